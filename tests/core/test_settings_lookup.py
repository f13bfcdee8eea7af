"""Settings as a user meets them through the CLI: globs, the walk up to the repository root,
and the `[rules]` table."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli import run
from release_safety.repobuilder import RepoBuilder

ABSENT = """\
[migrations]
absent = "the service keeps no database of its own"
[rest]
absent = "the service has no HTTP API; it is a queue worker"
[mcp]
absent = "the service exposes no MCP tools to agents"
[deployment]
absent = "operators run the worker from their own manifests; the project ships none"
"""


def _config_repo(make_repo: Callable[[str], RepoBuilder], source: str) -> RepoBuilder:
    builder = make_repo("globs")
    files = {
        "conf/file1.env": "PORT=8080\n",
        "conf/file3.env": "HOST=x\n",
        ".release-safety.toml": f"{ABSENT}[config]\nsources = [{source!r}]\n",
    }
    builder.release("1.0.0", files)
    builder.release("1.1.0", {"conf/file1.env": "PORT=8080\nDEBUG=0\n"})
    return builder


@pytest.mark.parametrize(
    ("source", "code", "files"),
    [
        ("conf/file[12].env", 0, ["conf/file1.env"]),
        ("conf/file?.env", 0, ["conf/file1.env", "conf/file3.env"]),
        ("conf?file1.env", 2, []),  # `?` does not match a folder separator
        ("conf/*", 0, ["conf/file1.env", "conf/file3.env"]),
    ],
)
def test_settings_globs_bracket_and_question_mark(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    source: str,
    code: int,
    files: list[str],
) -> None:
    builder = _config_repo(make_repo, source)
    evidence = tmp_path / "e.json"
    args = ["generate", "--repo", str(builder.path), "--to", "1.1.0"]
    assert run([*args, "--out", str(tmp_path / "a.json"), "--evidence", str(evidence)]) == code
    if code == 2:
        assert "matches nothing" in capsys.readouterr().err
        return
    surfaces = json.loads(evidence.read_text())["surfaces"]
    (config,) = [s for s in surfaces if s["surface"] == "config"]
    assert sorted(config["coverage"]["new"]) == files
