"""Migrations that hold both directions (goose, sql-migrate, dbmate): only the up section runs.

Through the real `lint-migrations` entry point on files in `tmp_path`: the down section's
statements are neither reported nor replayed into the schema, line numbers are the file's, the
tool's transaction marker is honoured, and a file the tool would refuse is unknown.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pgprobe import Probe

from release_safety.cli.main import run
from release_safety.surfaces.migrations.sql.sections import up_section

# (up marker, down marker, the up marker that runs the section outside a transaction)
TOOLS = {
    "goose": ("-- +goose Up", "-- +goose Down", "-- +goose NO TRANSACTION\n-- +goose Up"),
    "sql-migrate": ("-- +migrate Up", "-- +migrate Down", "-- +migrate Up notransaction"),
    "dbmate": ("-- migrate:up", "-- migrate:down", "-- migrate:up transaction:false"),
}


def _lint(capsys: pytest.CaptureFixture[str], *paths: Path) -> list[dict[str, object]]:
    run(["lint-migrations", "--json", *map(str, paths)])
    return json.loads(capsys.readouterr().out)["files"]  # type: ignore[no-any-return]


def _findings(report: dict[str, object]) -> list[tuple[str, int]]:
    return [(f["rule"], f["line"]) for f in report["findings"]]  # type: ignore[attr-defined]


@pytest.mark.parametrize("tool", TOOLS)
def test_the_down_section_is_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool: str
) -> None:
    up, down, _ = TOOLS[tool]
    path = tmp_path / "002_add.sql"
    path.write_text(
        f"-- adds a column\n{up}\nSET lock_timeout = '1s';\n"
        "ALTER TABLE users ADD COLUMN nickname text;\n\n"
        f"{down}\nALTER TABLE users DROP COLUMN nickname;\nDROP TABLE users;\n"
    )
    (report,) = _lint(capsys, path)
    assert report["tables"] == ["users"]
    assert _findings(report) == []
    path.write_text(path.read_text().replace("nickname text", "nickname text NOT NULL"))
    (report,) = _lint(capsys, path)
    assert _findings(report) == [  # the file's own line
        ("add-not-null-column-without-default", 4),
        ("blocking-table-lock", 4),
    ]


@pytest.mark.parametrize("tool", TOOLS)
def test_the_schema_replays_up_sections_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool: str
) -> None:
    """A down section that drops what its up section made must not leave the schema without
    it: the later DROP DEFAULT is judged on the NOT NULL column (breaking), not unknown."""
    up, down, _ = TOOLS[tool]
    first = tmp_path / "001_create.sql"
    first.write_text(
        f"{up}\nCREATE TABLE t (id int, c text NOT NULL DEFAULT 'x');\n{down}\nDROP TABLE t;\n"
    )
    second = tmp_path / "002_default.sql"
    second.write_text(
        f"{up}\nSET lock_timeout = '1s';\nALTER TABLE t ALTER COLUMN c DROP DEFAULT;\n"
        f"{down}\nALTER TABLE t ALTER COLUMN c SET DEFAULT 'x';\n"
    )
    _, report = _lint(capsys, first, second)
    assert _findings(report) == [("drop-default-not-null-column", 3)]


@pytest.mark.parametrize("tool", TOOLS)
def test_the_tools_transaction_marker_is_honoured_as_postgres_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], probe: Probe, tool: str
) -> None:
    """In one transaction the ACCESS EXCLUSIVE lock of ADD COLUMN is held while the backfill
    reads every row; outside one (the tool's marker) each statement's locks end with it. The
    flags are those PostgreSQL shows running the statements in one transaction, and each in
    its own."""
    up, down, no_transaction = TOOLS[tool]
    body = "ALTER TABLE users ADD COLUMN n text;\nUPDATE users SET n = 'a';\n"
    flags = {}
    for marker, each in ((up, False), (no_transaction, True)):
        path = tmp_path / "001_backfill.sql"
        path.write_text(f"{marker}\n{body}{down}\nALTER TABLE users DROP COLUMN n;\n")
        (report,) = _lint(capsys, path)
        shown = probe.run(body, each=each)
        flags[each] = report["heaviness"]
        assert flags[each] == {
            "locksTable": shown.locks,
            "rewritesTable": shown.rewrites,
            "scansTable": shown.scans,
        }
    assert flags[False] == {"locksTable": True, "rewritesTable": False, "scansTable": True}
    assert flags[True] == {"locksTable": False, "rewritesTable": False, "scansTable": True}


@pytest.mark.parametrize("tool", TOOLS)
def test_concurrently_in_the_transaction_the_tool_opens_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool: str
) -> None:
    """PostgreSQL refuses CREATE INDEX CONCURRENTLY in a transaction block (the rule's
    example on PostgreSQL): the tool's wrapping makes one unless its marker turns it off."""
    up, down, no_transaction = TOOLS[tool]
    index = "CREATE INDEX CONCURRENTLY users_email_idx ON users (email);\n"
    path = tmp_path / "001_index.sql"
    path.write_text(f"{up}\n{index}{down}\nDROP INDEX users_email_idx;\n")
    (report,) = _lint(capsys, path)
    assert _findings(report) == [("cannot-run-in-transaction", 2)]
    path.write_text(f"{no_transaction}\n{index}{down}\nDROP INDEX users_email_idx;\n")
    (report,) = _lint(capsys, path)
    assert _findings(report) == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("-- +goose Down\nDROP TABLE users;\n", "-- +goose Down' before the up section"),
        ("SELECT 1;\n-- +goose Up\nSELECT 2;\n", "statements before the '-- +goose up' line"),
        ("-- +goose Up\nSELECT 1;\n-- +goose Up\nSELECT 2;\n", "a second or late"),
        ("-- +goose StatementBegin\nSELECT 1;\n-- +goose StatementEnd\n", "no '-- +goose up' line"),
        ("-- +goose Up\nSELECT 1;\n-- migrate:down\nSELECT 2;\n", "markers of two migration tools"),
        (
            "-- +goose ENVSUB ON\n-- +goose Up\nALTER TABLE ${TABLE} DROP COLUMN c;\n",
            "substitutes environment variables",
        ),
    ],
)
def test_a_file_the_tool_refuses_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, why: str
) -> None:
    path = tmp_path / "001_bad.sql"
    path.write_text(text)
    (report,) = _lint(capsys, path)
    assert report["heaviness"] == dict.fromkeys(
        ("locksTable", "rewritesTable", "scansTable"), "unknown"
    )
    (finding,) = report["findings"]  # type: ignore[misc]
    assert finding["rule"] == "migration-unparseable"
    assert why.lower() in finding["message"].lower()


@pytest.mark.parametrize(
    "text",
    [
        "-- migrate: adds the users table\nCREATE TABLE users (id int);\n",
        "-- +goose is what runs this\nCREATE TABLE users (id int);\n",
        "  -- +goose Down\nCREATE TABLE users (id int);\n",  # not at the start of the line
        "CREATE TABLE users (id int); -- +goose Down\n",
    ],
)
def test_comments_that_are_not_markers_leave_the_file_whole(text: str) -> None:
    assert up_section(text) is None


def test_markers_are_read_as_the_tools_read_them() -> None:
    """Case-insensitive, `\\r\\n` line ends, lines outside the up section emptied in place."""
    text = "-- header\r\n--  +GOOSE up\r\nSELECT 1;\r\n--+goose DOWN\r\nSELECT 2;\r\n"
    section, transactional = up_section(text)  # type: ignore[misc]
    assert section == "\n\nSELECT 1;\r\n\n\n"
    assert transactional
    assert up_section("-- +goose Up\nSELECT 1;\n-- +goose Down\n-- +goose NO TRANSACTION\n") == (
        "\nSELECT 1;\n\n\n",
        False,
    )
