"""Inline acknowledgements of migration findings: scope, reasons, knex comments, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.contract.reports import Finding
from release_safety.surfaces.migrations.lint import analyse_text, findings_of
from release_safety.surfaces.migrations.reading import Reading

REASON = "users holds one row per operator account, at most a few hundred"
INDEX = "CREATE INDEX users_name_idx ON users (name);"


def lint(text: str, path: str = "m.sql") -> list[Finding]:
    fmt = "knex" if path.endswith(".ts") else "sql"
    return findings_of(analyse_text(text, path, fmt, Reading()), path)


def by_rule(findings: list[Finding]) -> list[tuple[str, str, int | None]]:
    return sorted((f.rule, f.severity, f.line) for f in findings)


def test_an_acknowledgement_accepts_its_rule_on_the_next_statement_only() -> None:
    text = (
        f"-- release-safety: acknowledge(blocking-table-lock): {REASON}\n"
        f"{INDEX}\n"
        "CREATE INDEX users_email_idx ON users (email);\n"
    )
    found = lint(text)
    assert [(r, s, line) for r, s, line in by_rule(found) if r == "blocking-table-lock"] == [
        ("blocking-table-lock", "advisory", 2),
        ("blocking-table-lock", "breaking", 3),
    ]
    accepted = next(f for f in found if f.rule == "blocking-table-lock" and f.line == 2)
    assert accepted.message.endswith(f"(acknowledged at m.sql:1: {REASON})")


def test_a_trailing_comment_acknowledges_its_own_statement() -> None:
    text = f"{INDEX} -- release-safety: acknowledge(blocking-table-lock): {REASON}\n"
    assert ("blocking-table-lock", "advisory", 1) in by_rule(lint(text))


def test_several_rules_and_a_continued_reason() -> None:
    text = (
        "/* release-safety: acknowledge(blocking-table-lock, create-index-non-concurrently):\n"
        f"   {REASON} */\n"
        f"{INDEX}\n"
    )
    found = lint(text)
    assert {f.severity for f in found} == {"advisory"}
    assert all(REASON in f.message for f in found)


@pytest.mark.parametrize(
    ("comment", "problem"),
    [
        ("acknowledge(blocking-table-lock): ok", "acknowledgement reason is hollow"),
        ("acknowledge(blocking-table-lock): TODO explain", "acknowledgement reason is hollow"),
        (f"acknowledge(no-such-rule): {REASON}", "acknowledgement names no migration rule"),
        (f"acknowledge(migration-unparseable): {REASON}", "names no migration rule"),
        (f"acknowledge(response-property-removed): {REASON}", "names no migration rule"),
        (f"acknowledge: {REASON}", "malformed acknowledgement"),
        (f"acknowledge(Bad_Rule): {REASON}", "malformed acknowledgement: 'Bad_Rule'"),
    ],
)
def test_an_invalid_acknowledgement_acknowledges_nothing(comment: str, problem: str) -> None:
    found = lint(f"-- release-safety: {comment}\n{INDEX}\n")
    assert ("blocking-table-lock", "breaking", 2) in by_rule(found)
    [invalid] = [f for f in found if f.rule == "acknowledgement-invalid"]
    assert (invalid.severity, invalid.line) == ("unknown", 1)
    assert problem in invalid.message


def test_an_acknowledgement_with_nothing_to_accept_is_an_advisory() -> None:
    text = (
        f"-- release-safety: acknowledge(blocking-table-lock): {REASON}\n"
        "CREATE INDEX CONCURRENTLY users_name_idx ON users (name);\n"
    )
    found = lint(text)
    [unused] = [f for f in found if f.rule == "acknowledgement-unused"]
    assert (unused.severity, unused.line) == ("advisory", 1)
    assert not any(f.severity == "breaking" for f in found)


def test_a_breaking_compatibility_rule_can_be_acknowledged_too() -> None:
    text = (
        "-- release-safety: acknowledge(drop-column): the previous release stopped reading\n"
        "--   legacy_id (deprecated in 1.4, removed from every query in 1.5)\n"
        "ALTER TABLE users DROP COLUMN legacy_id;\n"
    )
    assert ("drop-column", "advisory", 3) in by_rule(lint(text))
    assert not any(f.severity != "advisory" for f in lint(text))


def test_knex_files_acknowledge_with_line_comments() -> None:
    text = (
        "export async function up(knex) {\n"
        f"  // release-safety: acknowledge(blocking-table-lock): {REASON}\n"
        "  await knex.schema.alterTable('users', (table) => {\n"
        "    table.index(['name']);\n"
        "  });\n"
        "}\n"
        "export async function down() {}\n"
    )
    found = lint(text, "migrations/20240101000000_index.ts")
    assert [f.severity for f in found if f.rule == "blocking-table-lock"] == ["advisory"]


def test_lint_migrations_shows_the_acknowledgement_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "002_index.sql"
    path.write_text(f"-- release-safety: acknowledge(blocking-table-lock): {REASON}\n{INDEX}\n")
    assert run(["lint-migrations", "--json", str(path)]) == 0
    [report] = json.loads(capsys.readouterr().out)["files"]
    accepted = [f for f in report["findings"] if f["rule"] == "blocking-table-lock"]
    assert [f["severity"] for f in accepted] == ["advisory"]
    path.write_text(f"{INDEX}\n")
    assert run(["lint-migrations", str(path)]) == 1
    assert "breaking blocking-table-lock" in capsys.readouterr().out


@pytest.mark.parametrize("marker", ["release-safety", "RELEASE-SAFETY", "Release_Safety"])
def test_the_lint_attaches_what_the_scanner_finds_in_any_ascii_case(marker: str) -> None:
    """The lint looks for the marker in the lowered text before loading the scanner: whatever
    the case, it attaches what the scanner itself finds."""
    from release_safety.surfaces.annotations import scan
    from release_safety.surfaces.comments import syntax_for

    text = f"-- {marker}: acknowledge(blocking-table-lock): {REASON}\n{INDEX}\n"
    syntax = syntax_for("m.sql")
    assert syntax is not None
    analysis = analyse_text(text, "m.sql", "sql", Reading())
    assert analysis.acknowledgements == scan(text.encode(), syntax)
    assert analysis.acknowledgements  # an acknowledgement, or a marker written wrongly
