"""Sequelize migrations read as sequelize-cli runs them: the SQL Sequelize's PostgreSQL query
interface sends for `up` (checked against fixtures/frameworks/sequelize, captured from
Sequelize itself), each statement on its own (no transaction) unless `up` runs them in
`sequelize.transaction`; the real CLI on real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from codereleases import ABSENT, captured, judged

from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.sequelize import extract_sequelize

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/sequelize/migrations"


def _plain(sql: str) -> str:
    return " ".join(sql.split()).replace(" ,", ",")


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.js")))
def test_the_sql_is_the_sql_sequelize_sends(name: str) -> None:
    expected = [_plain(sql) for sql in captured(FIXTURES / f"{name}.sql")]
    extracted = extract_sequelize((FIXTURES / f"{name}.js").read_text(), f"migrations/{name}.js")
    assert [_plain(s.sql or f"unknown: {s.reason}") for s in extracted.statements] == expected
    assert not extracted.transactional


def _migration(body: str) -> str:
    return (
        "'use strict';\n"
        "module.exports = {\n"
        "  up: async (queryInterface, Sequelize) => {\n"
        f"{body}"
        "  },\n"
        "  down: async (queryInterface) => {\n"
        "    await queryInterface.dropTable('Users');\n"
        "  },\n"
        "};\n"
    )


INIT = _migration(
    "    await queryInterface.createTable('Users', {\n"
    "      id: { type: Sequelize.INTEGER, primaryKey: true, autoIncrement: true },\n"
    "      name: { type: Sequelize.STRING },\n"
    "      email: { type: Sequelize.STRING },\n"
    "    });\n"
)
ADDED = "db/migrations/20240201000000-change.js"
CASES = {
    # found by the default discovery; a dropped column is breaking, at its line
    "remove": ("    await queryInterface.removeColumn('Users', 'name');\n", False),
    "add": ("    await queryInterface.addColumn('Users', 'age', Sequelize.INTEGER);\n", True),
    # an ENUM creates a type Sequelize names at run time: unknown, naming it
    "enum": (
        "    await queryInterface.addColumn('Users', 'kind', Sequelize.ENUM('a', 'b'));\n",
        "unknown",
    ),
    # outside a transaction, as sequelize-cli runs it: a concurrent index is fine...
    "concurrent": (
        "    await queryInterface.addIndex('Users', ['email'], { concurrently: true });\n",
        True,
    ),
    # ... but not in the transaction the migration opens itself
    "in-transaction": (
        "    await queryInterface.sequelize.transaction(async (t) => {\n"
        "      await queryInterface.addIndex('Users', ['email'], { concurrently: true });\n"
        "    });\n",
        False,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_sequelize_migration_is_judged_by_the_sql_it_sends(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, case: str
) -> None:
    body, safe = CASES[case]
    first = {".release-safety.toml": ABSENT, "db/migrations/20240101000000-init.js": INIT}
    found = judged(make_repo, tmp_path, case, first, {ADDED: _migration(body)})
    assert found["rollingUpdateSafe"] == safe, found["because"]
    if case == "remove":
        assert [(f["rule"], f["line"]) for f in found["because"]] == [("drop-column", 4)]
    if case == "enum":
        assert "ENUM, not modelled" in found["because"][0]["message"]
