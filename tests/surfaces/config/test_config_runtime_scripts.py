"""Which Dockerfiles' ENTRYPOINT / CMD scripts join the config sources (`runtime.runtime_files`):
each Dockerfile name the deployment surface reads, outside vendored folders and developer paths;
a file in a folder named like a Dockerfile is no Dockerfile."""

from __future__ import annotations

from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import ConfigSource
from release_safety.surfaces.config.runtime import runtime_files

SOURCES = {"src/app.py": ConfigSource(path="src/**/*.py")}


def _run(script: str) -> str:
    return f'FROM alpine:3.20\nENTRYPOINT ["/srv/{script}"]\n'


def _scripts(dockerfiles: dict[str, str]) -> list[str]:
    scripts = {f"scripts/{name}.sh": "echo $PORT\n" for name in ("a", "b", "c", "d", "e", "f")}
    files = {"src/app.py": "import os\n", **scripts, **dockerfiles}
    return sorted(runtime_files(MemorySnapshot(files), SOURCES))


def test_every_dockerfile_name_runs_its_scripts() -> None:
    found = _scripts(
        {
            "Dockerfile": _run("scripts/a.sh"),
            "deploy/api.Dockerfile": _run("scripts/b.sh"),
            "deploy/Containerfile": _run("scripts/c.sh"),
            "make/photon/db/Dockerfile.base": _run("scripts/d.sh"),
        }
    )
    assert found == [f"scripts/{name}.sh" for name in "abcd"]


def test_vendored_developer_and_folder_named_files_run_nothing() -> None:
    found = _scripts(
        {
            "vendor/lib/Dockerfile": _run("scripts/a.sh"),
            "Dockerfile.dev": _run("scripts/b.sh"),
            "ci/Dockerfile": _run("scripts/c.sh"),
            "Dockerfile.d/notes.txt": _run("scripts/d.sh"),
            "docs/dockerfiles.md": _run("scripts/e.sh"),
            "Dockerfile": _run("scripts/f.sh"),
        }
    )
    assert found == ["scripts/f.sh"]
