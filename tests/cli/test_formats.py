"""`--format`, `-` and `REF:path` on the linting commands, through the CLI, on real repositories."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release_safety.cli.main import run
from release_safety.cli.render.formats import FORMATS
from release_safety.git.builder import RepoBuilder
from sarif_ingest import github_accepts

MIGRATION = "db/migrations/0,2.sql"  # a comma: escaped in workflow-command properties
DROP = "CREATE INDEX i ON users (name);\nALTER TABLE users DROP COLUMN legacy;\n"
SPEC = """\
openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /users:
    get:
      parameters:
        - {name: q, in: query, schema: {type: string}}
      responses: {'200': {description: ok}}
"""
SPEC_WITHOUT_PATH = "openapi: 3.0.3\ninfo: {title: t, version: '2'}\npaths: {}\n"


@pytest.fixture
def repo(make_repo: Callable[[str], RepoBuilder], monkeypatch: pytest.MonkeyPatch) -> RepoBuilder:
    """A repository with a migration and an OpenAPI document changed after the first commit;
    the current folder is a subfolder of it."""
    builder = make_repo("service")
    builder.write("db/migrations/001.sql", "CREATE TABLE users (id int, legacy int, name text);\n")
    builder.write("openapi.yaml", SPEC)
    builder.commit("first")
    builder.git("branch", "-M", "main")
    builder.write(MIGRATION, DROP)
    builder.write("openapi.yaml", SPEC_WITHOUT_PATH)
    builder.write("docs/README.md", "docs\n")
    builder.commit("second")
    monkeypatch.chdir(builder.path / "docs")
    return builder


def _out(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out


def test_sarif_is_valid_sarif_2_1_0_with_the_rules_it_uses(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["lint-migrations", "--format", "sarif", f"../{MIGRATION}"]) == 1
    log = json.loads(_out(capsys))
    github_accepts(log)
    (only,) = log["runs"]
    driver = only["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("release-safety", "0.1.0")
    rules = {r["id"]: r for r in driver["rules"]}
    assert set(rules) == {r["ruleId"] for r in only["results"]}  # those used, not the catalogue
    drop = rules["drop-column"]
    assert drop["defaultConfiguration"] == {"level": "error"}
    assert drop["shortDescription"]["text"] == "A column is dropped"
    assert "Safer: Stop reading and writing the column" in drop["help"]["text"]
    results = {r["ruleId"]: r for r in only["results"]}
    assert results["drop-column"]["level"] == "error"
    assert results["create-index-non-concurrently"]["level"] == "note"
    location = results["drop-column"]["locations"][0]["physicalLocation"]
    uri = MIGRATION.replace(",", "%2C")  # a URI reference: percent-encoded (issue 45)
    assert location == {"artifactLocation": {"uri": uri}, "region": {"startLine": 2}}
    assert driver["rules"][results["drop-column"]["ruleIndex"]]["id"] == "drop-column"


def test_sarif_of_diff_openapi_and_check_pr_validate(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff-openapi", "--format", "sarif", "HEAD~1:openapi.yaml", "../openapi.yaml"]) == 1
    log = json.loads(_out(capsys))
    github_accepts(log)
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
        for loc in r.get("locations", [])
    }
    assert uris == {"openapi.yaml"}
    args = ["check-pr", "--repo", str(repo.path), "--base", "HEAD~1", "--head", "HEAD"]
    assert run([*args, "--format", "sarif"]) == 1
    log = json.loads(_out(capsys))
    github_accepts(log)
    errors = [r["ruleId"] for r in log["runs"][0]["results"] if r["level"] == "error"]
    assert "drop-column" in errors


def test_github_is_the_default_inside_actions_and_escapes_properties(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert run(["lint-migrations", f"../{MIGRATION}"]) == 1
    lines = _out(capsys).splitlines()
    escaped = "db/migrations/0%2C2.sql"
    assert (
        f"::error file={escaped},line=2,title=release-safety drop-column::"
        "DROP COLUMN users.legacy%0AShip a release whose code no longer reads or writes"
        " users.legacy; drop the column in the release after it." in lines
    )
    assert any(line.startswith("::notice ") for line in lines)
    assert run(["lint-migrations", "--format", "text", f"../{MIGRATION}"]) == 1
    assert _out(capsys).startswith(f"../{MIGRATION}: tables [users]")


def test_json_is_the_alias_of_format_json_and_two_formats_are_refused(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff-openapi", "--json", "HEAD~1:openapi.yaml", "../openapi.yaml"]) == 1
    alias = _out(capsys)
    assert run(["diff-openapi", "--format", "json", "HEAD~1:openapi.yaml", "../openapi.yaml"]) == 1
    assert _out(capsys) == alias
    assert json.loads(alias)["breaking"] is True
    assert run(["diff-openapi", "--json", "--format", "sarif", "a", "b"]) == 2
    error = json.loads(_out(capsys))["error"]
    assert error["exitCode"] == 2 and "two formats" in error["message"]
    assert run(["diff-openapi", "--format", "json", "HEAD:gone.yaml", "HEAD:openapi.yaml"]) == 2
    assert "no file gone.yaml at HEAD" in json.loads(_out(capsys))["error"]["message"]


def test_markdown_of_each_command(repo: RepoBuilder, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["lint-migrations", "--format", "markdown", f"../{MIGRATION}"]) == 1
    out = _out(capsys)
    assert out.startswith("## Migration lint\n\n2 error(s), 0 warning(s), 2 note(s).")
    assert "| error | `drop-column` | `../db/migrations/0,2.sql:2` |" in out
    assert run(["diff-openapi", "--format", "markdown", "HEAD~1:openapi.yaml", "../openapi.yaml"])
    assert "| error | `endpoint-removed` | `openapi.yaml:" in _out(capsys)
    args = ["check-pr", "--repo", str(repo.path), "--base", "HEAD~1", "--head", "HEAD"]
    assert run([*args, "--format", "markdown"]) == 1
    assert "undeclared breaking change" in _out(capsys)


def _stdin(monkeypatch: pytest.MonkeyPatch, data: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode())))


def test_inputs_stdin_and_ref_path(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, SPEC)
    assert run(["diff-openapi", "--json", "-", "HEAD:openapi.yaml"]) == 1
    data = json.loads(_out(capsys))
    assert (data["base"], data["revision"]) == ("-", "HEAD:openapi.yaml")
    assert [f["rule"] for f in data["findings"]] == ["endpoint-removed"]
    assert run(["diff-openapi", "HEAD~1:openapi.yaml", "HEAD~1:openapi.yaml"]) == 0
    assert _out(capsys).startswith("0 breaking change(s)")
    _stdin(monkeypatch, DROP)
    assert run(["lint-migrations", "--format", "sarif", "-"]) == 1
    log = json.loads(_out(capsys))
    github_accepts(log)
    results = log["runs"][0]["results"]
    assert "drop-column" in {r["ruleId"] for r in results}
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"stdin"}  # standard input, not named by --stdin-filepath
    assert run(["lint-migrations", "--json", f"HEAD:{MIGRATION}"]) == 1
    (linted,) = json.loads(_out(capsys))["files"]
    assert linted["findings"][0]["file"] == MIGRATION


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["diff-openapi", "nope:openapi.yaml", "HEAD:openapi.yaml"], "'nope': no such ref"),
        (
            ["diff-openapi", "HEAD:missing.yaml", "HEAD:openapi.yaml"],
            "no file missing.yaml at HEAD",
        ),
        (["diff-openapi", "-", "-"], "`-` given twice"),
        (["lint-migrations", "../openapi.yaml"], "../openapi.yaml: not a migration (not .sql;"),
        (["lint-migrations", "HEAD:openapi.yaml"], "HEAD:openapi.yaml: not a migration"),
        (["lint-migrations", "--exclude", "no-such-rule", "x.sql"], "unknown rule 'no-such-rule'"),
        (["lint-migrations", "--exclude", "settings-narrowed", "x.sql"], "cannot be off"),
    ],
)
def test_bad_inputs_are_one_line_exit_2(
    repo: RepoBuilder,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    _stdin(monkeypatch, SPEC)
    assert run(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_existing_file_wins_over_ref_path(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("HEAD:openapi.yaml").write_text(SPEC, encoding="utf-8")  # a file with a colon
    assert run(["diff-openapi", "--json", "HEAD:openapi.yaml", "../openapi.yaml"]) == 1
    assert json.loads(_out(capsys))["findings"][0]["file"] == "HEAD:openapi.yaml"
    assert run(["diff-openapi", "HEAD:openapi.yaml", "HEAD:openapi.yaml"]) == 0


def test_knex_migrations_are_linted_and_other_scripts_refused(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("20240101000000_drop.ts").write_text(
        "export async function up(knex) {\n"
        "  await knex.schema.alterTable('users', (t) => { t.dropColumn('legacy'); });\n}\n",
        encoding="utf-8",
    )
    Path("index.ts").write_text("console.log('hello');\n", encoding="utf-8")
    assert run(["lint-migrations", "--json", "20240101000000_drop.ts"]) == 1
    assert "drop-column" in _out(capsys)
    assert run(["lint-migrations", "index.ts"]) == 2
    assert "index.ts: not a migration (a .ts/.js file without an `up` export" in (
        capsys.readouterr().err
    )


def test_exclude_leaves_a_rule_out(repo: RepoBuilder, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["lint-migrations", "--json", f"../{MIGRATION}"]
    assert run([*args, "--exclude", "drop-column", "--exclude", "blocking-table-lock"]) == 0
    rules: Any = [f["rule"] for f in json.loads(_out(capsys))["files"][0]["findings"]]
    assert "drop-column" not in rules and "create-index-non-concurrently" in rules


def test_docs_show_an_example_of_each_format() -> None:
    page = (Path(__file__).parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    for name in FORMATS:
        assert f"\n## {name}\n" in page
