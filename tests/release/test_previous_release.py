"""The release before the first release of `tag_pattern`: the nearest earlier version tag, else
none (the first release, judged with nothing as new), in `generate` and `backfill` alike, on
real repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

MakeRepo = Callable[[str], RepoBuilder]

ABSENT = (
    '[rest]\nabsent = "the worker has no HTTP API at all, only a queue"\n'
    '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    '[deployment]\nabsent = "operators run the worker from their own manifests; none ship"\n'
)
PATTERN = r"^app-v(?P<version>\d+\.\d+\.\d+)$"
RENAMED = (
    f"tag_pattern = '{PATTERN}'\n{ABSENT}"
    '[[accept]]\nkey = "tag_pattern"\n'
    'reason = "releases are tagged app-vX.Y.Z from 2.0 on; the 1.x tags were the old names"\n'
)
HISTORY = {
    "db/migrations/001_users.sql": "CREATE TABLE users (id int, name text, legacy text);\n",
    "db/migrations/002_drop.sql": "ALTER TABLE users DROP COLUMN legacy;\n",
    "db/migrations/003_lock.sql": "CREATE INDEX users_name_idx ON users (name);\n",
}


def generate(repo: RepoBuilder, tmp_path: Path, to: str) -> tuple[int, Any, Any]:
    out, evidence = tmp_path / f"{to}.json", tmp_path / f"{to}.evidence.json"
    args = ["generate", "--repo", str(repo.path), "--to", to, "--out", str(out)]
    code = run([*args, "--evidence", str(evidence)])
    return code, json.loads(out.read_text()), json.loads(evidence.read_text())


def release_findings(evidence: Any) -> list[tuple[str, str, str]]:
    return [
        (f["rule"], f["severity"], f["message"])
        for f in evidence["findings"]
        if f["surface"] == "release"
    ]


def renamed_repo(make_repo: MakeRepo) -> RepoBuilder:
    """Releases 1.0.0 and 1.1.0 tagged plainly, then app-v2.0.0 under a new tag pattern."""
    repo = make_repo("renamed")
    repo.release("1.0.0", dict(list(HISTORY.items())[:2]))
    repo.release("1.1.0", dict(list(HISTORY.items())[2:]))
    repo.write(".release-safety.toml", RENAMED)
    repo.write("db/migrations/004_add.sql", "ALTER TABLE users ADD COLUMN email text;\n")
    repo.commit("2.0.0")
    repo.tag("app-v2.0.0")
    return repo


def test_the_first_tag_of_the_pattern_is_judged_against_the_nearest_earlier_version_tag(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = renamed_repo(make_repo)
    code, artifact, evidence = generate(repo, tmp_path, "app-v2.0.0")
    assert code == 0
    assert (artifact["version"], artifact["previousVersion"]) == ("2.0.0", "1.1.0")
    assert evidence["fromRef"] == "1.1.0"
    assert [f["name"] for f in artifact["migrations"]["files"]] == ["004_add.sql"]
    assert release_findings(evidence) == [
        (
            "previous-release-outside-pattern",
            "advisory",
            f"no tag of tag_pattern `{PATTERN}` is below 2.0.0: judged against 1.1.0 (1.1.0), "
            "the nearest earlier version tag",
        )
    ]
    assert artifact["compatibility"]["rollingUpdateSafe"] is True


def test_backfill_judges_the_first_tag_of_the_pattern_the_same_way(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = renamed_repo(make_repo)
    index = tmp_path / "index.json"
    assert run(["backfill", "--repo", str(repo.path), "--index", str(index)]) == 0
    [entry] = json.loads(index.read_text())["entries"]
    assert (entry["version"], entry["previousVersion"]) == ("2.0.0", "1.1.0")


def test_a_first_release_judges_nothing_as_new(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo("first")
    repo.write(".release-safety.toml", ABSENT)
    for path, text in HISTORY.items():
        repo.write(path, text)
        repo.commit(path)
    repo.tag("v1.0.0")
    code, artifact, evidence = generate(repo, tmp_path, "v1.0.0")
    assert code == 0
    assert artifact["previousVersion"] is None
    assert artifact["migrations"]["files"] == []
    assert [f["rule"] for f in evidence["findings"] if f["surface"] == "migrations"] == []
    assert release_findings(evidence) == [
        (
            "no-previous-release",
            "advisory",
            "1.0.0 is the first release: no earlier tag names a version, so no previous "
            "release runs beside it; nothing was judged as new",
        )
    ]
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    # backfilled, the same release is judged the same way (and unknown, as any backfill)
    index = tmp_path / "index.json"
    assert run(["backfill", "--repo", str(repo.path), "--index", str(index)]) == 0
    [entry] = json.loads(index.read_text())["entries"]
    assert (entry["previousVersion"], entry["rollingUpdateSafe"]) == (None, "unknown")
