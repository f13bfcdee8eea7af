"""docs/migration-rules.md, rendered from the catalogue (a test keeps the file in sync)."""

from __future__ import annotations

from release_safety.surfaces.migrations.rules.catalogue import (
    CATALOGUE,
    SAFE_EXAMPLES,
    Example,
)

INTRO = """# Migration rules

Generated from `src/release_safety/surfaces/migrations/rules/catalogue.py` by
`release_safety.surfaces.migrations.rules.markdown.render()`; edit the catalogue, not this file.

Every migration added between two releases (or every file given to
`release-safety lint-migrations FILE... [--postgres-version N] [--json]`) is split into
statements, classified with sqlglot's PostgreSQL tokenizer and parser, and folded into
per-file facts (`lint-migrations` exits 1 when a finding is breaking or unknown, 0 otherwise):

- **tables**: every table, view or materialized view a statement names, sorted. Unquoted names
  are lower-cased, quoted names keep their case, `public.` is dropped and other schemas stay
  (`app.items`). Tables PostgreSQL locks without the text naming them (the table of an index
  dropped by name, a materialized view's sources) are not listed.
- **locksTable**: a lock of SHARE or stronger (it blocks writes; ACCESS EXCLUSIVE also blocks
  reads) is held on a table that existed before the migration while work proportional to its
  rows runs on it, in the same statement or a later one of the same transaction.
- **rewritesTable**: a pre-existing table's rows are copied to new storage.
- **scansTable**: every row of a pre-existing table is read (validation, index build, rewrite,
  a data change of every row, a query reading it whole).
- A flag is `unknown` only when a statement could not be classified and no other statement
  already made it true.

A SQL file runs as one transaction (migration tools send it as one script) unless a statement
cannot run inside one (`CONCURRENTLY`, `VACUUM`): then each statement commits on its own.
Explicit `BEGIN` / `COMMIT` are honoured. A knex file's transaction mode comes from its
`config.transaction`.

Conservative choices where the text cannot tell: a column type change is reported as a rewrite
and as breaking unless the target is `text` (the old type is not in the migration); an
UPDATE or DELETE with a WHERE clause reads every row unless it picks rows by `id = literal` or
`id IN (literals)`; a default calling a function outside the known volatility lists, a user
function in a data statement, dynamic SQL and `DO` bodies with loops or `EXECUTE` are unknown.
Version-dependent behaviour follows `postgres_version` (default 15): constant defaults rewrite
before 11, `SET NOT NULL` skips its scan from 12 when a validated `CHECK (col IS NOT NULL)`
exists, `ATTACH PARTITION` takes SHARE UPDATE EXCLUSIVE on the parent from 12.

Examples marked *PostgreSQL-confirmed* run in the test suite on a real server, each on fresh
tables with rows (`users`, `orders`, `staging`, the partitioned `events`, the view
`active_users`, the materialized view `user_counts`, enums `mood` and `priority`); the
measured flags (pg_locks of the migration's backend before commit, pg_class.relfilenode,
pg_stat_xact_user_tables) and tables must equal the static analysis. Flags are written `l`
(locksTable), `r` (rewritesTable), `s` (scansTable), `-` for none.
"""


def _example(example: Example) -> str:
    flags = {"error": "PostgreSQL refuses it on a table with rows", "unknown": "unknown"}.get(
        example.heavy, example.heavy or "-"
    )
    where = "PostgreSQL-confirmed" if example.pg else "static only"
    tables = ", ".join(example.tables) or "none"
    sql = example.sql.replace("\n", " ").replace("|", "\\|")
    return f"| `{sql}` | {flags} | {tables} | {where} |"


def render() -> str:
    """The whole page."""
    lines = [INTRO]
    for severity in ("breaking", "advisory", "unknown"):
        lines.append(f"## {severity.capitalize()} rules\n")
        for entry in (e for e in CATALOGUE if e.rule.severity == severity):
            rule = entry.rule
            lines.append(f"### `{rule.id}`: {rule.title}\n")
            lines.append(f"{rule.why}\n")
            unsafe = rule.unsafe.replace("\n", " ")
            lines.append(f"- Unsafe: `{unsafe}`")
            lines.append(f"- Safer: {rule.safe}\n")
            if entry.examples:
                lines.append("| migration | flags | tables | checked |")
                lines.append("| --- | --- | --- | --- |")
                lines.extend(_example(e) for e in entry.examples)
                lines.append("")
    lines.append("## Other shapes confirmed on PostgreSQL\n")
    lines.append("| migration | flags | tables | checked |")
    lines.append("| --- | --- | --- | --- |")
    lines.extend(_example(e) for e in SAFE_EXAMPLES)
    return "\n".join(lines) + "\n"
