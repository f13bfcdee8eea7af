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

**Heaviness decides the verdict.** A migration that locks a table that existed at the previous
release against traffic (SHARE or stronger) while it rewrites or reads every row (the
`locksTable` fact) is a breaking finding of its own, `blocking-table-lock`: during a rolling
update the previous release's pods queue behind the lock, so the release is `false` (Recreate).
`CONCURRENTLY`, `NOT VALID` and brief metadata-only locks stay advisories. A table created by an
earlier migration of the same release has no rows yet and does not count.

## Acknowledgements

A maintainer can accept a finding of any migration rule (a known-small table, a column the
previous release no longer uses) with a comment right above the statement, in the file's own
comment syntax (`--` or `/* */` in SQL, `//` in knex files), always with a reason:

```sql
-- release-safety: acknowledge(blocking-table-lock): feature_flags holds one row per flag, about 40
CREATE INDEX feature_flags_name_idx ON feature_flags (name);
```

- `acknowledge(rule-id, ...)` names one or more rule ids; the reason follows, and may continue
  on the next comment lines (indented), as in declared breaks (docs/declarations.md).
- It applies to the findings of those rules on the first statement that starts at or after the
  comment's line (a comment at the end of a statement's first line applies to that statement).
- An acknowledged finding is not dropped: it becomes an advisory whose message quotes the
  reason and the comment's place, in `lint-migrations` output, the evidence file and the release
  notes. A breaking or unknown finding acknowledged this way no longer holds the verdict back.
- The reason must say something (the hollow-reason rules of declared breaks): a hollow reason,
  an unknown rule id or a malformed comment acknowledges nothing and is an `unknown` finding of
  its own (`acknowledgement-invalid`); an acknowledgement that matches no finding is an advisory
  (`acknowledgement-unused`). `migration-unparseable` cannot be acknowledged: nothing is known
  about such a file. An acknowledgement outside a migration file has no effect (an advisory of
  the declarations surface says so).
- The peers' forms are the model (squawk's `-- squawk-ignore rule`, Atlas's `--atlas:nolint`,
  eugene's `-- eugene: ignore`); this one always carries a reason and is always recorded.

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
