"""The way out of a migration finding is written from its case: the table, column and
constraint names of the statement, not the catalogue's example (release-level)."""

from __future__ import annotations

from release_safety.settings import Settings
from release_safety.snapshot import MemorySnapshot
from release_safety.surfaces.migrations.analyse import analyse
from release_safety.surfaces.migrations.rules import BY_ID

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
