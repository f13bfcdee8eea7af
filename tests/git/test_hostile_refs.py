"""Hostile refs and patterns (issue 17 items 5 and 8): tags that name no commit, versions too
long to read, and regular expressions that would backtrack for ever with Python's engine."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release_safety.cli.main import run
from release_safety.common.errors import InputError
from release_safety.contract.versions import TagPattern, Version
from release_safety.git.builder import RepoBuilder
from release_safety.settings.model import MigrationSource, parse_settings


@pytest.fixture
def odd_tags(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    """Releases 1.0.0 and 1.1.0, plus release-pattern tags on a blob, a tree, a tag of a tag
    and a 4,400-digit version written into packed-refs."""
    builder = make_repo("service")
    builder.release("1.0.0", {"db/migrations/0001_a.sql": "CREATE TABLE a (id int);\n"})
    blob = builder.git("hash-object", "-w", "db/migrations/0001_a.sql")
    builder.git("tag", "v1.0.1", blob)
    builder.git("tag", "-a", "-m", "a tree", "v1.0.2", builder.git("write-tree"))
    builder.git("tag", "-a", "-m", "inner", "inner", "1.0.0")
    builder.git("tag", "-a", "-m", "outer", "v1.0.3", "inner")
    builder.release("1.1.0", {"db/migrations/0002_b.sql": "CREATE TABLE b (id int);\n"})
    packed = builder.path / ".git" / "packed-refs"
    head = builder.git("rev-parse", "HEAD")
    existing = packed.read_text() if packed.exists() else "# pack-refs with: peeled sorted \n"
    packed.write_text(existing + f"{head} refs/tags/v{'9' * 4400}.0.0\n")
    return builder


def test_tags_that_name_no_commit_are_skipped_with_a_warning(
    odd_tags: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index.json"
    assert run(["backfill", "--repo", str(odd_tags.path), "--index", str(index)]) == 0
    assert [e["version"] for e in json.loads(index.read_text())["entries"]] == ["1.0.0", "1.1.0"]
    err = capsys.readouterr().err
    assert "tag 'v1.0.1' names a blob, not a commit; skipped" in err
    assert "tag 'v1.0.2' names a tree, not a commit; skipped" in err
    assert "tag 'v1.0.3' names a tag, not a commit; skipped" in err
    assert "(4405 characters)" in err and "is not a release version; skipped" in err
    assert "Traceback" not in err
    assert run(["generate", "--repo", str(odd_tags.path), "--to", "1.1.0", "--out", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["previousVersion"] == "1.0.0"


@settings(max_examples=50, deadline=None)
@given(
    part=st.one_of(
        st.integers(0, 10**18 - 1).map(str),
        st.integers(19, 6000).map(lambda n: "1" * n),
        st.text("0123456789", min_size=1, max_size=30),
    )
)
def test_versions_parse_or_are_refused_never_overflow(part: str) -> None:
    text = f"1.{part}.0"
    try:
        version = Version.parse(text)
    except InputError as exc:
        assert len(exc.message) < 200
        return
    assert str(version) == text


CATASTROPHIC = r"^(?P<version>(\d+\.?)+)x$"  # nested quantifiers: exponential with backtracking


def test_a_backtracking_tag_pattern_is_linear(make_repo: Callable[[str], RepoBuilder]) -> None:
    """With Python's engine this match takes longer than the universe has; with RE2 it is
    immediate. Run in a process of its own so a regression shows as a timeout, not a hang."""
    builder = make_repo("service")
    builder.release("1.0.0")
    builder.git("tag", "1" * 60 + "y")
    builder.write(".release-safety.toml", f"tag_pattern = '{CATASTROPHIC}'\n")
    builder.commit("settings")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "release_safety",
            "backfill",
            "--repo",
            str(builder.path),
            "--index",
            str(builder.path.parent / "index.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 2), done.stderr
    assert "Traceback" not in done.stderr


def test_backtracking_migration_patterns_are_linear() -> None:
    source = MigrationSource(path="**/migrations", pattern=r"(a+)+\.sql", exclude=r"(a|aa)+$")
    name = "a" * 5000 + "!"
    assert not source.matches(f"db/migrations/{name}")
    assert source.matches("db/migrations/aaa.sql")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("tag_pattern = '^(?=v)(?P<version>.+)$'", "tag pattern"),
        ("[[migrations.sources]]\npath='m'\npattern='(a)\\1'", "migrations.sources.0.pattern"),
        ("[[migrations.sources]]\npath='m'\nexclude='(?<!x)a'", "migrations.sources.0.exclude"),
    ],
)
def test_patterns_re2_cannot_compile_are_bad_settings(text: str, key: str) -> None:
    with pytest.raises(InputError, match="RE2 syntax") as caught:
        parse_settings(text, ".release-safety.toml")
    assert key in caught.value.message and "\n" not in caught.value.message


def test_tag_patterns_keep_their_meaning() -> None:
    pattern = TagPattern(r"^release-(?P<version>\d+\.\d+\.\d+)$")
    assert str(pattern.version_of("release-2.0.1")) == "2.0.1"
    assert pattern.version_of("release-2.0.1-rc1") is None
