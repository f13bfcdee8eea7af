"""MySQL/MariaDB migrations judged from the MySQL 8.0 manual's online DDL tables: one test per
row used, each statement mapped to its row and the row's flags (INSTANT / INPLACE / COPY,
rebuild, concurrent DML) turned into heaviness and findings; no PostgreSQL rule fires."""

from __future__ import annotations

import pytest
from enginefixtures import on_engine

from release_safety.surfaces.migrations.engines.mysql.onlineddl import ROWS
from release_safety.surfaces.migrations.lint import findings_of

# (the manual's row, a statement on the fixture's `users` that it covers)
CASES = [
    ("Creating or adding a secondary index", "CREATE INDEX users_age ON users (age)"),
    ("Creating or adding a secondary index", "ALTER TABLE users ADD INDEX users_age (age)"),
    ("Dropping an index", "DROP INDEX users_age ON users"),
    ("Dropping an index", "ALTER TABLE users DROP INDEX users_age"),
    ("Renaming an index", "ALTER TABLE users RENAME INDEX a TO b"),
    ("Adding a FULLTEXT index", "ALTER TABLE users ADD FULLTEXT INDEX ft (name)"),
    ("Adding a SPATIAL index", "ALTER TABLE users ADD SPATIAL INDEX sp (name)"),
    ("Adding a primary key", "ALTER TABLE users ADD PRIMARY KEY (id)"),
    ("Dropping a primary key", "ALTER TABLE users DROP PRIMARY KEY"),
    ("Adding a column", "ALTER TABLE users ADD COLUMN tier VARCHAR(10)"),
    ("Dropping a column", "ALTER TABLE users DROP COLUMN name"),
    ("Renaming a column", "ALTER TABLE users RENAME COLUMN name TO full_name"),
    ("Setting a column default value", "ALTER TABLE users ALTER COLUMN age SET DEFAULT 0"),
    ("Dropping the column default value", "ALTER TABLE users ALTER COLUMN age DROP DEFAULT"),
    ("Changing the column data type", "ALTER TABLE users MODIFY COLUMN age BIGINT"),
    ("Reordering columns", "ALTER TABLE users MODIFY COLUMN name VARCHAR(100) AFTER id"),
    ("Extending VARCHAR column size", "ALTER TABLE users MODIFY COLUMN name VARCHAR(200)"),
    ("Making a column NULL", "ALTER TABLE users MODIFY COLUMN email VARCHAR(255) NULL"),
    ("Making a column NOT NULL", "ALTER TABLE users MODIFY COLUMN age INT NOT NULL DEFAULT 0"),
    ("Adding an auto-increment column", "ALTER TABLE users ADD COLUMN n INT AUTO_INCREMENT"),
    (
        "Adding a foreign key constraint",
        "ALTER TABLE users ADD CONSTRAINT fk FOREIGN KEY (age) REFERENCES teams (id)",
    ),
    ("Dropping a foreign key constraint", "ALTER TABLE users DROP FOREIGN KEY fk"),
    ("Renaming a table", "ALTER TABLE users RENAME TO people"),
    ("Converting a character set", "ALTER TABLE users CONVERT TO CHARACTER SET utf8mb4"),
    ("Rebuilding a table with the FORCE option", "ALTER TABLE users ENGINE=InnoDB"),
    ("Changing the ROW_FORMAT", "ALTER TABLE users ROW_FORMAT=COMPRESSED"),
]
BREAKING_BY_DESIGN = {"drop-column", "rename-column", "rename-table", "change-column-type"}


def test_every_row_is_used() -> None:
    assert {row for row, _ in CASES} == set(ROWS)


@pytest.mark.parametrize(("row", "sql"), CASES, ids=[sql for _, sql in CASES])
def test_the_manuals_row_decides_heaviness(row: str, sql: str) -> None:
    manual = ROWS[row]
    analysis = on_engine(sql, "mysql")
    assert (analysis.locks, analysis.rewrites, analysis.scans) == (
        not manual.concurrent_dml,
        manual.rebuilds,
        manual.scans,
    )
    rules = {f.rule for f in findings_of(analysis, "m.sql")}
    assert ("mysql-blocks-writes" in rules) == (not manual.concurrent_dml)
    assert ("mysql-table-rebuild" in rules) == (manual.rebuilds and manual.concurrent_dml)
    assert not rules - BREAKING_BY_DESIGN - {"mysql-blocks-writes", "mysql-table-rebuild"}
    for finding in findings_of(analysis, "m.sql"):
        assert "(MySQL)" in finding.message


def test_a_table_the_release_created_is_not_heavy() -> None:
    analysis = on_engine(
        "CREATE TABLE t (id INT, n INT);\nALTER TABLE t MODIFY COLUMN n BIGINT;\n"
        "ALTER TABLE t DROP COLUMN n",
        "mysql",
    )
    assert findings_of(analysis, "m.sql") == []
    assert (analysis.locks, analysis.rewrites, analysis.scans) == (False, False, False)


def test_breaking_changes_hold_on_mysql() -> None:
    cases = {
        "ALTER TABLE users ADD COLUMN tier INT NOT NULL": "add-not-null-column-without-default",
        "ALTER TABLE users MODIFY COLUMN name VARCHAR(20)": "change-column-type",
        "ALTER TABLE users MODIFY COLUMN age INT NOT NULL": "set-not-null",
        "ALTER TABLE users CHANGE COLUMN name full_name VARCHAR(100)": "rename-column",
        "RENAME TABLE users TO people": "rename-table",
        "DROP TABLE users": "drop-table",
    }
    for sql, rule in cases.items():
        fired = {f.rule for f in findings_of(on_engine(sql, "mysql"), "m.sql")}
        assert rule in fired, (sql, fired)
    quiet = "ALTER TABLE users ADD COLUMN tier INT NOT NULL DEFAULT 0"
    assert findings_of(on_engine(quiet, "mysql"), "m.sql") == []


def test_a_redefinition_of_an_unknown_column_is_unknown_not_guessed() -> None:
    analysis = on_engine("ALTER TABLE ghosts MODIFY COLUMN x VARCHAR(20)", "mysql")
    found = findings_of(analysis, "m.sql")
    assert "schema-fact-unknown" in {f.rule for f in found}
    assert {f.severity for f in found} == {"unknown"}
    assert "unknown" in (analysis.locks, analysis.rewrites, analysis.scans)


def test_a_statement_mysql_does_not_model_is_unknown() -> None:
    analysis = on_engine("LOCK TABLES users WRITE", "mysql")
    assert [f.severity for f in findings_of(analysis, "m.sql")] == ["unknown"]
