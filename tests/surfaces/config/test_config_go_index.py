"""The Go files of a ref searched by their words (`go_resolve.GoRepo`): a word is sought as a
word, not as bytes, and a second ref of the same blobs (their words kept per blob id) answers
the same."""

from __future__ import annotations

import uuid

from release_safety.git.snapshot import MemorySnapshot
from release_safety.surfaces.config.go_resolve import GoRepo


def _files() -> dict[str, str]:
    token = uuid.uuid4().hex  # blobs no earlier test indexed
    return {
        "a/reads.go": f'package a\n// {token}\nfunc f() {{ ReadEnv("X") }}\n',
        "a/longer.go": f"package a\n// {token}\nfunc g() {{ ReadEnvironment() }}\n",
        "a/none.go": f"package a\n// {token}\nfunc h() {{}}\n",
        "b/tagged.go": f'package b\n// {token}\ntype C struct {{ Port int `env:"PORT"` }}\n',
        "b/getenv.go": f'package b\n// {token}\nimport "os"\nvar p = os.Getenv("P")\n',
    }


def _repo(files: dict[str, str]) -> GoRepo:
    snapshot = MemorySnapshot(files)
    return GoRepo(snapshot, {path: str(snapshot.blob_id(path)) for path in files})


def test_a_word_is_sought_as_a_word_not_as_bytes() -> None:
    files = _files()
    first = _repo(files)
    assert first.mentioning(["ReadEnv"]) == ["a/reads.go"]  # not ReadEnvironment
    assert first.mentioning(["ReadEnv"], "b") == []
    assert first.mentioning(["Nowhere"]) == []
    assert first.seeds == ["b/tagged.go", "b/getenv.go"]
    again = _repo(files)  # the same blobs, their words kept
    assert again.mentioning(["ReadEnv"]) == ["a/reads.go"]
    assert again.mentioning(["ReadEnvironment", "h"]) == ["a/longer.go", "a/none.go"]
    assert again.seeds == first.seeds
    assert again.tagged("b/tagged.go") and not again.tagged("b/getenv.go")
