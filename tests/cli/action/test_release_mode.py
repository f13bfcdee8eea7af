"""Release mode, run through the composite's steps against a real repository and origin."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from action_runner import Runner, git

from release_safety.cli.main import run as cli_run
from release_safety.git.builder import RepoBuilder

DROP_SQL = "ALTER TABLE users DROP COLUMN legacy_id;\n"


def origin_file(origin: Path, path: str) -> str:
    return git(origin, "show", f"main:{path}")


def test_before_the_tag_commits_the_artifact_and_index_retrying_a_rejected_push(
    service: RepoBuilder, runner: Callable[[Path], Runner], tmp_path: Path
) -> None:
    origin = tmp_path / "origin.git"
    service.write("migrations/002_drop_legacy.sql", DROP_SQL).commit("drop legacy_id")
    service.git("push", "-q", "origin", "main")
    # Someone else's release job pushes an index entry for 1.0.0 first: our push is rejected.
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(origin), str(other))
    assert (
        cli_run(
            ["generate", "--repo", str(other), "--to", "v1.0.0", "--out", str(tmp_path / "v1.json")]
        )
        == 0
    )
    assert (
        cli_run(
            [
                "index",
                "update",
                "--index",
                str(other / "release-safety-index.json"),
                "--artifact",
                str(tmp_path / "v1.json"),
            ]
        )
        == 0
    )
    git(other, "add", "release-safety-index.json")
    git(other, "-c", "user.name=x", "-c", "user.email=x@example.com", "commit", "-q", "-m", "v1")
    git(other, "push", "-q", "origin", "HEAD:main")

    result = runner(service.path).composite(
        {"mode": "release", "version": "1.1.0"},
        env={"GITHUB_REF_TYPE": "branch", "GITHUB_REF_NAME": "main"},
    )

    assert result.code == 0, result.stdout + result.stderr
    assert "push to main rejected (attempt 1)" in result.stdout
    assert result.outputs["verdict"] == "false"
    assert result.outputs["rolling-update-safe"] == "false"
    assert result.outputs["strategy"] == "Recreate"
    assert result.outputs["artifact-path"] == str(service.path / "release-safety.json")
    assert result.outputs["index-path"] == str(service.path / "release-safety-index.json")
    pushed = result.outputs["commit"]
    assert git(origin, "rev-parse", "main") == pushed
    assert git(origin, "log", "-1", "--format=%s", "main") == (
        "release-safety: 1.1.0 artifact and index"
    )
    artifact = json.loads(origin_file(origin, "release-safety.json"))
    assert artifact["version"] == "1.1.0"
    assert artifact["previousVersion"] == "1.0.0"
    assert artifact["compatibility"]["rollingUpdateSafe"] is False
    assert [f["name"] for f in artifact["migrations"]["files"]] == ["002_drop_legacy.sql"]
    # Regenerated whole on top of the other job's commit: both entries are there.
    index = json.loads(origin_file(origin, "release-safety-index.json"))
    assert [e["version"] for e in index["entries"]] == ["1.0.0", "1.1.0"]
    summary = Path(result.outputs["summary-path"]).read_text(encoding="utf-8")
    assert summary.startswith("## Upgrade safety")
    assert "Not safe to roll" in summary
    assert "002_drop_legacy.sql" in summary
    assert summary in result.summary
    assert result.gh_calls == []


def test_after_publication_reuses_the_committed_artifact_and_uploads_it(
    service: RepoBuilder, runner: Callable[[Path], Runner], tmp_path: Path
) -> None:
    origin = tmp_path / "origin.git"
    service.write("migrations/002_drop_legacy.sql", DROP_SQL).commit("drop legacy_id")
    before = runner(service.path).composite(
        {"mode": "release", "version": "1.1.0"},
        env={"GITHUB_REF_TYPE": "branch", "GITHUB_REF_NAME": "main"},
    )
    assert before.code == 0, before.stdout + before.stderr
    committed = origin_file(origin, "release-safety.json")
    service.git("tag", "v1.1.0", before.outputs["commit"])
    service.git("checkout", "-q", "--detach", "v1.1.0")
    event = {"release": {"tag_name": "v1.1.0"}, "repository": {"default_branch": "main"}}

    after = runner(service.path).composite(
        {"mode": "release"},
        event=event,
        env={"GITHUB_REF_TYPE": "tag", "GITHUB_REF_NAME": "v1.1.0"},
    )

    assert after.code == 0, after.stdout + after.stderr
    assert "reused the artifact committed at v1.1.0" in after.stdout
    asset = Path(after.outputs["artifact-path"])
    assert asset.read_text(encoding="utf-8") == committed + "\n"
    assert after.gh_calls == [
        {"argv": ["release", "upload", "v1.1.0", str(asset), "--clobber", "--repo", "acme/service"]}
    ]
    assert after.outputs["verdict"] == "false"
    assert after.outputs["commit"] == ""  # the index already holds the release's entry
    assert "## Upgrade safety" in after.summary


def test_release_mode_refuses_a_bad_flag_with_exit_2(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    result = runner(service.path).composite(
        {"mode": "release", "version": "1.1.0", "commit-index": "maybe"}
    )
    assert result.code == 2
    assert "::error title=release-safety::input commit-index" in result.stdout


def test_upgrade_check_mode_reads_the_index_and_fails_an_unsafe_span(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    service.write("migrations/002_drop_legacy.sql", DROP_SQL).commit("drop legacy_id")
    released = runner(service.path).composite(
        {"mode": "release", "version": "1.1.0", "commit-index": "false"}
    )
    assert released.code == 0, released.stdout + released.stderr
    check = runner(service.path).composite(
        {
            "mode": "upgrade-check",
            "from": "1.0.0",
            "to": "1.1.0",
            "index-path": "release-safety-index.json",
        }
    )
    assert check.code == 1, check.stdout + check.stderr
    assert check.outputs["verdict"] == check.outputs["rolling-update-safe"] == "false"
    assert check.outputs["strategy"] == "Recreate"
    assert "Upgrade check: 1.0.0 → 1.1.0" in check.summary
    assert "**⛔ Not safe to roll: use the Recreate strategy**" in check.summary
    assert "\nVerdict: UNSAFE (not safe to roll: 1.1.0)\n" in check.summary  # the command's words
    assert "None" not in check.summary


def test_backfill_mode_writes_the_index_without_committing(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    service.release("1.1.0", {"migrations/002_drop_legacy.sql": DROP_SQL}, prefix="v")
    result = runner(service.path).composite({"mode": "backfill", "commit-index": "false"})
    assert result.code == 0, result.stdout + result.stderr
    index = json.loads(Path(result.outputs["index-path"]).read_text(encoding="utf-8"))
    assert [(e["version"], e["backfilled"]) for e in index["entries"]] == [
        ("1.0.0", True),
        ("1.1.0", True),
    ]
    assert "2 entries" in result.summary
    assert "- verdicts: 0 true, " in result.summary and "(UNKNOWN: a backfilled" in result.summary
    status = subprocess.run(
        ["git", "status", "--porcelain"],
        cwd=service.path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "release-safety-index.json" in status


def test_a_rejected_push_never_discards_commits_the_remote_does_not_have(
    service: RepoBuilder, runner: Callable[[Path], Runner], tmp_path: Path
) -> None:
    origin = tmp_path / "origin.git"
    service.write("migrations/002_drop_legacy.sql", DROP_SQL).commit("drop legacy_id (unpushed)")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(origin), str(other))
    (other / "README.md").write_text("# service, edited elsewhere\n", encoding="utf-8")
    git(other, "-c", "user.name=x", "-c", "user.email=x@example.com", "commit", "-qam", "docs")
    git(other, "push", "-q", "origin", "HEAD:main")
    remote_tip = git(origin, "rev-parse", "main")

    result = runner(service.path).composite(
        {"mode": "release", "version": "1.1.0"},
        env={"GITHUB_REF_TYPE": "branch", "GITHUB_REF_NAME": "main"},
    )

    assert result.code == 3
    assert "cannot fast-forward to origin/main" in result.stdout
    assert git(origin, "rev-parse", "main") == remote_tip
    assert service.git("log", "-1", "--format=%s") == "drop legacy_id (unpushed)"
