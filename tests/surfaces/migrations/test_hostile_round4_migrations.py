"""Hostile round 4, classes 6 and 8 (issue 45): goose Go migrations registered through an
import alias or a function value are migrations written in code (matched by what the import
is, not its name), and a sqitch change dropped from `sqitch.plan` while its deploy script stays
is unknown, like a deleted shipped migration. Each with its quiet twin."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import MigrationsReport
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import Settings, parse_settings
from release_safety.surfaces.migrations.analyse import analyse

Pair = Callable[[dict[str, str | None], dict[str, str | None]], tuple[Snapshot, Snapshot]]
INIT = "CREATE TABLE users (id int, email text);\n"
SQL_SOURCE = '[[migrations.sources]]\npath = "db/sql"\nformat = "sql"\n'


def judged(
    release_pair: Pair, old: dict[str, str | None], new: dict[str, str | None], toml: str
) -> MigrationsReport:
    parsed = parse_settings(toml, ".release-safety.toml")
    assert isinstance(parsed, Settings)
    before, after = release_pair(old, new)
    return analyse(before, after, parsed)


REGISTERED = {
    "alias": (
        'package gomigrations\n\nimport g "github.com/pressly/goose/v3"\n\n'
        "func init() { g.AddMigration(up, down) }\n",
        5,
    ),
    "function-value": (
        'package gomigrations\n\nimport (\n\t"github.com/pressly/goose/v3"\n)\n\n'
        "func init() {\n\tadd := goose.AddMigrationContext\n\tadd(up, down)\n}\n",
        8,
    ),
    "dot-import": (
        'package gomigrations\n\nimport . "github.com/pressly/goose/v3"\n\n'
        'func init() { AddNamedMigrationNoTx("x.go", up, down) }\n',
        5,
    ),
}


@pytest.mark.parametrize("how", sorted(REGISTERED))
def test_a_goose_migration_however_the_import_is_named_is_not_read(
    release_pair: Pair, how: str
) -> None:
    text, line = REGISTERED[how]
    report = judged(
        release_pair,
        {"db/sql/001_init.sql": INIT},
        {"db/gomigrations/drop_email.go": text},
        SQL_SOURCE,
    )
    assert [(f.rule, f.file, f.line) for f in report.unknown()] == [
        ("migration-not-read", "db/gomigrations/drop_email.go", line)
    ]


def test_a_go_file_using_another_package_named_goose_is_quiet(release_pair: Pair) -> None:
    other = (
        'package tools\n\nimport g "example.com/birds/goose"\n\n'
        "func init() { g.AddMigration(1, 2) }\n"
    )
    report = judged(
        release_pair, {"db/sql/001_init.sql": INIT}, {"cmd/tools/birds.go": other}, SQL_SOURCE
    )
    assert report.unknown() == []


SQITCH = '[[migrations.sources]]\npath = "db/deploy"\nformat = "sqitch"\n'
PLAN = (
    "%syntax-version=1.0.0\n%project=svc\n\n"
    "users 2024-01-01T00:00:00Z a <a@x>\n"
    "note [users] 2024-01-02T00:00:00Z a <a@x>\n"
)
SHIPPED = {
    "db/sqitch.plan": PLAN,
    "db/deploy/users.sql": INIT,
    "db/deploy/note.sql": "ALTER TABLE users ADD note text;\n",
}


def test_a_sqitch_change_dropped_from_the_plan_is_unknown(release_pair: Pair) -> None:
    dropped = {"db/sqitch.plan": PLAN.replace("note [users] 2024-01-02T00:00:00Z a <a@x>\n", "")}
    report = judged(release_pair, SHIPPED, dropped, SQITCH)
    assert [(f.rule, f.severity, f.file) for f in report.findings] == [
        ("shipped-migration-deleted", "unknown", "db/sqitch.plan")
    ]
    assert "note" in report.findings[0].message


def test_a_sqitch_change_added_to_the_plan_is_quiet(release_pair: Pair) -> None:
    added = {
        "db/sqitch.plan": PLAN + "tier [users] 2024-01-03T00:00:00Z a <a@x>\n",
        "db/deploy/tier.sql": "ALTER TABLE users ADD tier text;\n",
    }
    report = judged(release_pair, SHIPPED, added, SQITCH)
    assert report.unknown() == []
    assert [f.name for f in report.files] == ["tier.sql"]
