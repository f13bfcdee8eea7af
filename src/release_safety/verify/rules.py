"""The rules of `verify-migrations`: where PostgreSQL and the static analysis disagree, and
what could not be run."""

from __future__ import annotations

from release_safety.contract.reports import Rule, Severity, register


def _rule(id: str, severity: Severity, title: str, why: str, unsafe: str, safe: str) -> Rule:
    return register(
        Rule(
            id=id,
            surface="migrations",
            severity=severity,
            title=title,
            why=why,
            unsafe=unsafe,
            safe=safe,
        )
    )


STATIC_MISSED = _rule(
    "static-missed",
    "breaking",
    "PostgreSQL locked, rewrote or scanned a table the static analysis called light",
    "On a real server, with rows in the table, the migration did work the static analysis "
    "said it would not: the release is not safe to roll, and the static rule that read the "
    "statement is wrong.",
    "ALTER TABLE orders ADD COLUMN total numeric DEFAULT random();  -- rewrites orders",
    "Make the statement non-blocking (add the column without the volatile default, backfill "
    "in batches) and report the static miss with the statement and the server's version.",
)
STATIC_HEAVIER = _rule(
    "static-heavier",
    "advisory",
    "The static analysis flagged work PostgreSQL did not do here",
    "The static analysis is cautious where the work depends on a plan, a size or a setting: "
    "on this server, with the seeded rows, PostgreSQL did not do it. The verdict keeps the "
    "static flag; this only says where the two part.",
    "ALTER TABLE users ALTER COLUMN name TYPE varchar(100);  -- from varchar(50): no rewrite",
    "Nothing to change; keep the flag unless the migration can say why it is light "
    "(a `release-safety:` acknowledgement with the reason).",
)
UNVERIFIED = _rule(
    "unverified",
    "unknown",
    "A migration could not be run on PostgreSQL here",
    "What could not run (an extension that is missing, a role, data the migration expects, "
    "an earlier migration that failed, SQL built at run time) was not observed: it is neither "
    "agreement nor disagreement.",
    "CREATE EXTENSION postgis;  -- not installed on the verifying server",
    "Run the verification on a server that has what the migration needs (`--database-url` "
    "with the production image), or read the migration by hand.",
)
