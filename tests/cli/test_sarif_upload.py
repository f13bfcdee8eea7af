"""SARIF as GitHub code scanning ingests it (`sarif_ingest.github_accepts`), on every command
that prints SARIF, its errors included, on real repositories."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release_safety.cli.main import run
from release_safety.cli.render.annotations import Shown
from release_safety.cli.render.formats import MAX_RESULTS, help_uri, sarif
from release_safety.cli.rulesoff import catalogue
from release_safety.contract.finding import Finding
from release_safety.git.builder import RepoBuilder
from sarif_ingest import github_accepts

DOCS = Path(__file__).parents[2] / "docs"
LOCKED = "SET lock_timeout = '2s';\n"
"""Keeps `lock-timeout-missing` quiet, so a dropped column is the file's one finding."""


def _log(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(capsys.readouterr().out)
    github_accepts(log)
    return log


@pytest.fixture
def repo(make_repo: Callable[[str], RepoBuilder], monkeypatch: pytest.MonkeyPatch) -> RepoBuilder:
    builder = make_repo("service")
    builder.write("db/migrations/001.sql", "CREATE TABLE users (id int, legacy int);\n")
    builder.write("openapi.yaml", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n")
    builder.commit("first")
    builder.write("db/migrations/002.sql", "ALTER TABLE users DROP COLUMN legacy;\n")
    builder.commit("second")
    monkeypatch.chdir(builder.path)
    return builder


def test_check_pr_anchors_surface_findings_at_the_settings_file(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    """Surfaces with nothing found (config, deployment...) have no file: they are anchored at
    the settings file that would point at their documents, line 1."""
    assert run(["check-pr", "--base", "HEAD~1", "--head", "HEAD", "--format", "sarif"]) == 1
    log = _log(capsys)
    (only,) = log["runs"]
    assert only["automationDetails"]["id"] == "release-safety/check-pr/"
    places = {
        r["ruleId"]: r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in only["results"]
    }
    assert places["drop-column"] == "db/migrations/002.sql"
    assert places["surface-not-checked"] == ".release-safety.toml"


def test_fingerprints_are_stable_across_runs_and_lines(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["lint-migrations", "--format", "sarif", "db/migrations/002.sql"]
    assert run(args) == 1
    first = {r["ruleId"]: r["partialFingerprints"] for r in _log(capsys)["runs"][0]["results"]}
    Path("db/migrations/002.sql").write_text(
        "-- a comment moves the statement down\nALTER TABLE users DROP COLUMN legacy;\n",
        encoding="utf-8",
    )
    assert run(args) == 1
    log = _log(capsys)
    again = {r["ruleId"]: r["partialFingerprints"] for r in log["runs"][0]["results"]}
    assert again == first
    drop = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "drop-column")
    assert drop["locations"][0]["physicalLocation"]["region"]["startLine"] == 2


def test_stdin_is_anchored_at_the_name_given(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sql = "ALTER TABLE users DROP COLUMN legacy;\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(sql.encode())))
    args = ["lint-migrations", "--format", "sarif", "-", "--stdin-filepath", "db/migrations/9.sql"]
    assert run(args) == 1
    results = _log(capsys)["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"db/migrations/9.sql"}


def test_rules_link_their_documentation_page_and_heading(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    for rule in catalogue().values():
        page, _, anchor = help_uri(rule).rpartition("/docs/")[2].partition("#")
        text = (DOCS / page).read_text(encoding="utf-8")
        if anchor:
            assert f"`{anchor}`" in text, rule.id
    assert run(["lint-migrations", "--format", "sarif", "db/migrations/002.sql"]) == 1
    rules = _log(capsys)["runs"][0]["tool"]["driver"]["rules"]
    drop = next(r for r in rules if r["id"] == "drop-column")
    assert drop["name"] == "DropColumn"
    assert drop["helpUri"] == help_uri(catalogue()["drop-column"])
    assert "Safer:" in drop["help"]["markdown"]


def test_a_log_lists_only_the_rules_its_results_use(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not the whole catalogue: one result, one rule (with its help); two results of one rule,
    that rule once, both results pointing at it; an error, no rule."""
    Path("one.sql").write_text(f"{LOCKED}ALTER TABLE users DROP COLUMN legacy;\n", encoding="utf-8")
    assert run(["lint-migrations", "--format", "sarif", "one.sql"]) == 1
    out = capsys.readouterr().out
    (only,) = json.loads(out)["runs"]
    github_accepts(json.loads(out))
    (result,) = only["results"]
    (rule,) = only["tool"]["driver"]["rules"]
    assert (result["ruleId"], result["ruleIndex"], rule["id"]) == ("drop-column", 0, "drop-column")
    assert rule["help"]["text"].startswith(catalogue()["drop-column"].why)
    assert len(out.encode()) <= 30_000  # the catalogue alone is ten times that
    two = f"{LOCKED}ALTER TABLE users DROP COLUMN legacy;\nALTER TABLE users DROP COLUMN name;\n"
    Path("two.sql").write_text(two, encoding="utf-8")
    assert run(["lint-migrations", "--format", "sarif", "two.sql"]) == 1
    (both,) = _log(capsys)["runs"]
    assert [r["id"] for r in both["tool"]["driver"]["rules"]] == ["drop-column"]
    assert [(r["ruleId"], r["ruleIndex"]) for r in both["results"]] == [("drop-column", 0)] * 2
    assert run(["lint-migrations", "--format", "sarif", "missing.sql"]) == 2
    assert _log(capsys)["runs"][0]["tool"]["driver"]["rules"] == []


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["lint-migrations", "--format", "sarif", "missing.sql"], 2),
        (["diff-openapi", "--format=sarif", "openapi.yaml", "HEAD:nope.yaml"], 2),
        (["check-pr", "--base", "nope", "--head", "HEAD", "--format", "sarif"], 2),
    ],
)
def test_an_error_is_a_sarif_log_with_the_same_exit_code(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], args: list[str], code: int
) -> None:
    assert run(args) == code
    out, err = capsys.readouterr()
    log = json.loads(out)
    github_accepts(log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == code
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    assert err.startswith("release-safety: ")
    # the log is uploaded: the repository's local path is written from the working folder
    assert notification["message"]["text"] in err.replace(str(repo.path), ".")
    assert str(repo.path) not in out
    assert log["runs"][0]["automationDetails"]["id"] == f"release-safety/{args[0]}/"


def test_past_githubs_result_limit_the_most_severe_are_kept() -> None:
    findings = [
        Finding(
            rule="x",
            severity="advisory",
            surface="migrations",
            file="a.sql",
            line=1,
            message=f"note {i}",
        )
        for i in range(MAX_RESULTS)
    ]
    findings.append(
        Finding(rule="x", severity="breaking", surface="migrations", file="a.sql", message="b")
    )
    log = json.loads(sarif(Shown.of(findings)))
    github_accepts(log)
    (only,) = log["runs"]
    assert only["results"][0]["level"] == "error"
    (notification,) = only["invocations"][0]["toolExecutionNotifications"]
    assert notification["message"]["text"].startswith("1 less severe result(s) left out")
