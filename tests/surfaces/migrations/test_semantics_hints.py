"""The way out of a migration finding is written from its case: the table, column and
constraint names of the statement, not the catalogue's example (release-level)."""

from __future__ import annotations

import re

import pytest
from pgprobe import FIXTURE_SQL

from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse
from release_safety.surfaces.migrations.lint import analyse_text, findings_of, schema_of
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.rules.catalogue import BY_ID, CATALOGUE

INIT = (
    "CREATE TABLE accounts (id int PRIMARY KEY, handle text, tier text NOT NULL DEFAULT 'basic',"
    " kind text CHECK (kind IN ('x', 'y')));\n"
)


def _hints(sql: str) -> dict[str, str]:
    old = {"migrations/001_init.sql": INIT}
    new = {**old, "migrations/002_change.sql": "SET lock_timeout = '1s';\n" + sql}
    report = analyse(MemorySnapshot(old), MemorySnapshot(new), Settings())
    return {f.rule: f.hint or "" for f in report.findings}


def test_hints_name_the_statements_table_column_and_constraint() -> None:
    cases = {
        "ALTER TABLE accounts DROP COLUMN handle;": ("drop-column", "accounts.handle"),
        "ALTER TABLE accounts RENAME COLUMN handle TO nick;": ("rename-column", "accounts.nick"),
        "ALTER TABLE accounts ALTER COLUMN handle SET NOT NULL;": (
            "set-not-null",
            "accounts.handle",
        ),
        "ALTER TABLE accounts ALTER COLUMN tier DROP DEFAULT;": (
            "drop-default-not-null-column",
            "accounts.tier",
        ),
        "ALTER TABLE accounts ADD CONSTRAINT tier_paid CHECK (tier IN ('pro')) NOT VALID;": (
            "check-rejects-old-writes",
            "tier_paid",
        ),
        "DROP TABLE accounts;": ("drop-table", "accounts"),
    }
    for sql, (rule, named) in cases.items():
        hints = _hints(sql)
        assert named in hints[rule], (sql, hints[rule])
        assert hints[rule] != BY_ID[rule].safe


# Every name of the verification schema, renamed in the statement and the schema both: a hint
# that still names the original was copied from the catalogue, not written from the statement.
_NAMES = [
    "users",
    "orders",
    "events",
    "events_2024",
    "events_2025",
    "staging",
    "active_users",
    "user_counts",
    "contacts",
    "logs",
    "logs_2024",
    "logs_rest",
    "members",
    "email",
    "age",
    "status",
    "region",
    "created_at",
    "user_id",
    "amount",
    "orders_user_id_idx",
    "user_counts_region",
    "email_address",
    "contacts_tag_nn",
    "contacts_seen_idx",
    "contacts_code_idx",
    "members_kind_check",
    "invoice_numbers",
    "full_name",
    "phone",
    "score",
    "nick",
    "seen",
    "mood",
    "priority",
    "legacy",
    "tag",
    "plan",
    "code",
    "name",
    "kind",
    "note",
]
_WORDS = frozenset({"code", "name", "kind", "note", "plan", "tag", "status", "seen"})
"""Names that are also words a hint writes in English ("ship code that ...")."""
_RENAMED = re.compile(r"\b(" + "|".join(_NAMES) + r")\b")


def _renamed(sql: str) -> str:
    return _RENAMED.sub(lambda m: m.group(1) + "_q", sql)


_CATALOGUE_NAMES = (set(_NAMES) - _WORDS) | {
    word
    for entry in CATALOGUE
    for text in (entry.rule.safe, entry.rule.unsafe)
    for word in re.findall(r"\b[a-z]+_[a-z_]+\b", text)
} - {"lock_timeout", "statement_timeout"}  # settings, the same in every case
_HISTORY = schema_of(_renamed(FIXTURE_SQL), Reading())


@pytest.mark.parametrize(
    "sql",
    [e.sql for entry in CATALOGUE for e in entry.examples if e.fires],
    ids=lambda sql: sql[:50],
)
def test_no_hint_names_what_its_statement_does_not_have(sql: str) -> None:
    """Each firing example of the catalogue, on a schema whose every name is renamed: no
    hint is the catalogue's text, and none names a table, column or index the statement
    does not (a `providers` lock suggesting `CREATE INDEX ... ON users`)."""
    statement = _renamed(sql)
    analysis = analyse_text(statement, "m.sql", "sql", Reading(), history=_HISTORY)
    findings = findings_of(analysis, "m.sql")
    assert findings
    for finding in findings:
        hint = finding.hint or ""
        assert hint and hint != BY_ID[finding.rule].safe, (finding.rule, hint)
        named = set(re.findall(r"\b[a-z_][a-z0-9_]*\b", hint)) & _CATALOGUE_NAMES
        stray = {word for word in named if not re.search(rf"\b{word}\b", statement)}
        assert not stray, (finding.rule, stray, hint)


MULTILINE = """-- header
SET lock_timeout = '1s';

ALTER TABLE users
  ADD COLUMN a int;
CREATE INDEX
  users_region_idx ON users (region);
DO $$
BEGIN
  UPDATE users SET status = 'x';
  ALTER TABLE users DROP COLUMN age;
END $$;
ALTER TABLE users
  ALTER COLUMN email
  SET NOT NULL;
"""
KNEX = """exports.up = async (knex) => {
  await knex.raw("SET lock_timeout = '1s'");

  await knex.schema.alterTable('users', (table) => {
    table.string('nick');
    table.dropColumn('age');
  });
  await knex.schema.alterTable('orders', (t) => {
    t.index(['user_id', 'amount'], 'orders_ua_idx');
  });
};
exports.down = async () => {};
"""


def test_every_finding_points_at_the_line_of_the_statement_that_causes_it() -> None:
    """Multi-line statements at their first line, a DO block's statements and the lock they
    make heavy at their own line, knex calls at theirs."""
    fixture = schema_of(FIXTURE_SQL, Reading())
    expected = {
        ("sql", "create-index-non-concurrently", 6),
        ("sql", "blocking-table-lock", 6),
        ("sql", "full-table-data-change", 10),
        ("sql", "blocking-table-lock", 10),
        ("sql", "drop-column", 11),
        ("sql", "set-not-null", 13),
        ("sql", "blocking-table-lock", 13),
        ("knex", "drop-column", 6),
        ("knex", "create-index-non-concurrently", 9),
        ("knex", "blocking-table-lock", 9),
    }
    seen = set()
    for text, fmt, path in ((MULTILINE, "sql", "m.sql"), (KNEX, "knex", "m.js")):
        analysis = analyse_text(text, path, fmt, Reading(), history=fixture)
        seen |= {(fmt, f.rule, f.line) for f in findings_of(analysis, path)}
    assert seen == expected
    hints = {
        f.rule: f.hint
        for f in findings_of(
            analyse_text(MULTILINE, "m.sql", "sql", Reading(), history=fixture), "m.sql"
        )
    }
    assert hints["create-index-non-concurrently"] == (
        "CREATE INDEX CONCURRENTLY users_region_idx ON users (region); -- in a migration of "
        "its own, outside a transaction"
    )
    assert (
        "ALTER TABLE users ADD CONSTRAINT users_email_not_null CHECK (email IS NOT NULL) NOT "
        "VALID; COMMIT; ALTER TABLE users VALIDATE CONSTRAINT users_email_not_null;"
    ) in (hints["set-not-null"] or "")


def test_the_concurrent_index_keeps_the_statements_own_text() -> None:
    """Its case, its expression and its WHERE; a comment inside keeps its line end, so the
    safer SQL does not comment out the rest."""
    sql = "create unique index i2 on users\n  (lower(email)) -- one per address\n  where age > 1;"
    analysis = analyse_text(
        sql, "m.sql", "sql", Reading(), history=schema_of(FIXTURE_SQL, Reading())
    )
    hint = next(f.hint for f in findings_of(analysis, "m.sql") if f.rule.startswith("create-index"))
    assert hint == (
        "create unique index CONCURRENTLY i2 on users\n  (lower(email)) -- one per address\n"
        "  where age > 1; -- in a migration of its own, outside a transaction"
    )
