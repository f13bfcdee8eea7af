"""PR mode and `check-pr`, run through the composite's steps against real branches."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from action_runner import Runner, openapi

from release_safety.cli.main import run as cli_run
from release_safety.cli.render.github import MARKER
from release_safety.git.builder import RepoBuilder

DROP = "ALTER TABLE users DROP COLUMN legacy_id;\n"
DECLARED_DROP = (
    "-- release-safety: breaking(required-stop) drops users.legacy_id after the two-release"
    " deprecation\n" + DROP
)
MIGRATION = "migrations/002_drop_legacy.sql"


def pull_request(repo: RepoBuilder, files: dict[str, str], fork: bool = False) -> dict[str, Any]:
    """Commit `files` on a branch off main, check the head out, and return the event payload."""
    base = repo.git("rev-parse", "main")
    repo.git("checkout", "-q", "-b", "feature")
    for path, text in files.items():
        repo.write(path, text)
    head = repo.commit("feature")
    repo.git("checkout", "-q", "--detach", head)
    head_repo = "someone/service" if fork else "acme/service"
    return {
        "pull_request": {
            "number": 7,
            "base": {"sha": base, "repo": {"full_name": "acme/service"}},
            "head": {"sha": head, "repo": {"full_name": head_repo}},
        }
    }


def test_an_undeclared_break_fails_with_annotations_summary_and_a_new_sticky_comment(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    event = pull_request(service, {MIGRATION: DROP})

    result = runner(service.path).composite({"mode": "pr"}, event=event)

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["gate"] == "fail"
    assert result.outputs["verdict"] == result.outputs["rolling-update-safe"] == "false"
    assert result.outputs["strategy"] == "Recreate"
    errors = result.annotations("error")
    assert errors == [
        f"::error file={MIGRATION},line=1,title=release-safety drop-column::"
        "DROP COLUMN users.legacy_id%0A"
        "Ship a release whose code no longer reads or writes users.legacy_id; "
        "drop the column in the release after it."
    ]
    assert "undeclared breaking change" in result.summary
    assert "## If released as is" in result.summary
    comments = "repos/acme/service/issues/7/comments"
    assert [c["argv"][:3] for c in result.gh_calls] == [
        ["api", "--paginate", comments],
        ["api", "--method", "POST"],
    ]
    assert result.gh_calls[1]["argv"][3] == comments
    body = result.gh_calls[1]["input"]["body"]
    assert body.startswith(MARKER + "\n## ⛔ This pull request brings 1 undeclared")
    assert "### Database migrations" in body
    assert "### How to unblock" in body
    assert "Recreate" in body


def test_a_declared_break_passes_and_edits_the_existing_sticky_comment(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    event = pull_request(service, {MIGRATION: DECLARED_DROP})

    result = runner(service.path).composite(
        {"mode": "pr"}, event=event, env={"GH_STUB_COMMENT_IDS": "4242\n"}
    )

    assert result.code == 0, result.stdout + result.stderr
    assert result.outputs["gate"] == "pass"
    assert result.outputs["verdict"] == result.outputs["rolling-update-safe"] == "false"
    assert result.annotations("error") == []
    notices = result.annotations("notice")
    assert notices and notices[0].startswith(f"::notice file={MIGRATION},line=2,")
    assert [c["argv"][:4] for c in result.gh_calls] == [
        ["api", "--paginate", "repos/acme/service/issues/7/comments", "--jq"],
        ["api", "--method", "PATCH", "repos/acme/service/issues/comments/4242"],
    ]
    body = result.gh_calls[1]["input"]["body"]
    assert "## ✅ This pull request declares its breaking changes" in body
    assert "drops users.legacy_id after the two-release deprecation" in body
    assert "(required stop)" in body


def test_a_forks_pull_request_gets_the_summary_only(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    event = pull_request(service, {MIGRATION: DROP}, fork=True)

    result = runner(service.path).composite({"mode": "pr"}, event=event)

    assert result.code == 1
    assert result.gh_calls == []
    assert "pull request from a fork: job summary only" in result.stdout
    assert MARKER in result.summary
    assert len(result.annotations("error")) == 1


def test_a_removed_rest_response_field_is_a_break_to_declare(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    event = pull_request(service, {"openapi.json": openapi(["id", "email"])})

    result = runner(service.path).composite({"mode": "pr", "comment": "false"}, event=event)

    assert result.code == 1, result.stdout + result.stderr
    assert any(a.startswith("::error file=openapi.json,") for a in result.annotations("error"))
    assert "### REST API" in result.summary
    assert result.gh_calls == []


def test_check_pr_cli_json_and_exit_codes(
    service: RepoBuilder, tmp_path: Path, capsys: Any
) -> None:
    event = pull_request(service, {MIGRATION: DROP})
    head = event["pull_request"]["head"]["sha"]
    summary, comment = tmp_path / "summary.md", tmp_path / "comment.md"
    code = cli_run(
        [
            "check-pr",
            "--base",
            "main",
            "--head",
            head,
            "--repo",
            str(service.path),
            "--json",
            "--summary",
            str(summary),
            "--comment",
            str(comment),
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert data["passed"] is False
    assert data["mergeBase"] == event["pull_request"]["base"]["sha"]
    assert [f["rule"] for f in data["uncovered"]] == ["drop-column"]
    assert comment.read_text(encoding="utf-8").startswith(MARKER)
    assert summary.read_text(encoding="utf-8").startswith(MARKER)

    assert (
        cli_run(
            ["check-pr", "--base", "nope", "--head", head, "--repo", str(service.path), "--json"]
        )
        == 2
    )
    assert json.loads(capsys.readouterr().out)["error"]["exitCode"] == 2
    assert (
        cli_run(
            ["check-pr", "--base", "main", "--head", "HEAD", "--repo", str(tmp_path / "missing")]
        )
        == 3
    )


def test_check_pr_text_output_passes_a_pull_request_without_breaks(
    service: RepoBuilder, capsys: Any
) -> None:
    pull_request(service, {"README.md": "# service\n\nMore words.\n"})
    code = cli_run(["check-pr", "--base", "main", "--head", "HEAD", "--repo", str(service.path)])
    out = capsys.readouterr().out
    assert code == 0
    # MCP, config and deployment found nothing to read: the gate passes on unknown findings
    assert out.startswith(
        "⚠️ UNKNOWN: no undeclared break found, but 3 findings could not be proven either way"
        " (surface-not-checked ×3): the pull request may merge, and the release that ships it"
        " cannot be proven safe to roll.\n"
    )
    assert "safe to roll.\n" in out and "keeps rolling updates safe" not in out
    assert out.splitlines()[-1] == "Found 3 issues in 1 file (3 unknown)."


def test_check_pr_says_safe_only_when_every_surface_is_proven(
    service: RepoBuilder, capsys: Any
) -> None:
    settings = (
        '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
        '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
        '[deployment]\nabsent = "operators build their own images from the source tree"\n'
    )
    pull_request(service, {".release-safety.toml": settings})
    code = cli_run(
        ["check-pr", "--base", "main", "--head", "HEAD", "--repo", str(service.path), "--json"]
    )
    data = json.loads(capsys.readouterr().out)
    assert (code, data["warnings"]) == (0, [])
    assert data["headline"] == (
        "✅ No breaking change found: this pull request keeps rolling updates safe."
    )


def test_a_registry_declaration_covers_a_rest_break_in_a_json_document(
    service: RepoBuilder, capsys: Any
) -> None:
    registry = {
        "declarations": {
            "drop-legacy-id-field": {
                "reason": "GET /users no longer returns legacy_id; clients of 1.0 must stop"
                " reading it",
                "requiredStop": False,
            }
        }
    }
    pull_request(
        service,
        {
            "openapi.json": openapi(["id", "email"]),
            "release-safety.declarations.json": json.dumps(registry, indent=2) + "\n",
        },
    )
    code = cli_run(
        ["check-pr", "--base", "main", "--head", "HEAD", "--repo", str(service.path), "--json"]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    assert data["uncovered"] == []
    [covered] = data["covered"]
    assert covered["finding"]["file"] == "openapi.json"
    assert covered["declaration"]["file"] == "release-safety.declarations.json"
    assert (
        cli_run(["check-pr", "--base", "main", "--head", "HEAD", "--repo", str(service.path)]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    listed = [text for text in out if ": declared: " in text or ": warning: " in text]
    warned = len(listed) - 1
    assert out[-1].startswith(f"Found {len(listed)} issues in ")
    assert out[-1].endswith(f" files ({warned} unknown, 1 declared).")


def test_fail_on_unknown_fails_a_pull_request_whose_findings_are_unknown(
    service: RepoBuilder, capsys: Any
) -> None:
    """The same pull request as above: it passes by default and fails a strict gate, which
    says why; a pull request whose every surface is proven passes both (the quiet pair)."""
    pull_request(service, {"README.md": "# service\n\nMore words.\n"})
    args = ["check-pr", "--base", "main", "--head", "HEAD", "--repo", str(service.path)]
    assert cli_run([*args, "--fail-on", "unknown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        "⛔ UNKNOWN fails this gate (--fail-on unknown): 3 findings could not be proven either"
        " way (surface-not-checked ×3)"
    )
    assert ": error: " in out and ": warning: " not in out
    assert cli_run([*args, "--fail-on", "unknown", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["passed"], data["failOn"]) == (False, "unknown")
    assert cli_run([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["failOn"] == "breaking"
    assert cli_run([*args, "--fail-on", "sometimes"]) == 2


def test_fail_on_unknown_passes_a_pull_request_that_is_proven_safe(
    service: RepoBuilder, capsys: Any
) -> None:
    absent = (
        '[mcp]\nabsent = "the service exposes no MCP tools to agents"\n'
        '[config]\nabsent = "all configuration comes from the database"\n'
        '[deployment]\nabsent = "operators run it from their own manifests"\n'
    )
    service.write(".release-safety.toml", absent).commit("say what is absent")
    pull_request(service, {"README.md": "# service\n\nMore words.\n"})
    args = ["check-pr", "--base", "main", "--head", "HEAD", "--repo", str(service.path)]
    code = cli_run([*args, "--fail-on", "unknown"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("✅ No breaking change found")


def test_the_action_input_fail_on_makes_the_gate_strict(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    event = pull_request(service, {"README.md": "# service\n\nMore words.\n"})
    lenient = runner(service.path).composite({"mode": "pr", "comment": "false"}, event=event)
    assert (lenient.code, lenient.outputs["gate"]) == (0, "pass")
    strict = runner(service.path).composite(
        {"mode": "pr", "comment": "false", "fail-on": "unknown"}, event=event
    )
    assert (strict.code, strict.outputs["gate"]) == (1, "fail"), strict.stderr
