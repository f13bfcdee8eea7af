"""docs/migration-rules.md, rendered from the catalogue (a test keeps the file in sync)."""

from __future__ import annotations

from release_safety.surfaces.migrations.budget import (
    MAX_BRACKET_NESTING,
    MAX_CPU_SECONDS,
    MAX_FILE_CHARS,
    MAX_NESTING,
    MAX_STATEMENT_CHARS,
    MAX_STATEMENTS,
)
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
statements, classified from the tokens PostgreSQL's lexical rules give (our lexer, equal to
sqlglot's PostgreSQL tokenizer) and, where a tree is needed, sqlglot's parser, and folded into
per-file facts (`lint-migrations` exits 1 when a finding is breaking or unknown, 0 otherwise):

- **tables**: every table, view or materialized view a statement names, sorted. Unquoted names
  are lower-cased, quoted names keep their case, `public.` is dropped and other schemas stay
  (`app.items`). Tables PostgreSQL locks without the text naming them (the table of an index
  dropped by name, a materialized view's sources) are not listed.
- **locksTable**: a lock of SHARE or stronger (it blocks writes; ACCESS EXCLUSIVE also blocks
  reads) is held on a table that existed before the migration while work proportional to its
  rows runs on it, in the same statement or a later one of the same transaction; or such a lock
  is taken by LOCK TABLE (held to commit on purpose), or held while the transaction waits
  (`pg_sleep`).
- **rewritesTable**: a pre-existing table's rows are copied to new storage.
- **scansTable**: every row of a pre-existing table is read (validation, index build, rewrite,
  a data change of every row, a query reading it whole).
- A flag is `unknown` only when a statement could not be classified and no other statement
  already made it true.

A SQL file runs as one transaction (migration tools send it as one script) unless a statement
cannot run inside one (`CONCURRENTLY`, `VACUUM`): then each statement commits on its own.
Explicit `BEGIN` / `COMMIT` are honoured. A knex file's transaction mode comes from its
`config.transaction`. A UTF-8 byte-order mark at the start of a file is ignored.

A file that holds both directions counts its up section alone, read as its tool reads it:
goose (`-- +goose Up` / `-- +goose Down`; `-- +goose NO TRANSACTION` runs it outside a
transaction), sql-migrate (`-- +migrate Up` / `-- +migrate Down`; `notransaction` after Up) and
dbmate (`-- migrate:up` / `-- migrate:down`; `transaction:false` after up). Its line numbers are
the file's. A file its tool would refuse (no up marker, two of them, down before up, statements
before up, two tools' markers) is unparseable, and so is a goose up section that substitutes
environment variables (`-- +goose ENVSUB ON` with a `${...}`): its statements are known only
when it runs. A migration renamed with its bytes and its version kept (a new description) in a
format whose tool keys applied migrations by version (golang-migrate's `*.up.sql`, goose,
dbmate) is neither added nor deleted: the tool does not run it again. Elsewhere a rename is a
deletion and an addition (knex and sql-migrate key them by name).

## The schema as of the previous release

Whether a statement breaks old code, rewrites or reads a table often depends on the schema it
runs against. The previous release's schema is rebuilt by replaying every migration of the
configured sources at that release, in the order the tools run them (by file name), through the
same classifier: tables and partitions, columns with type, NOT NULL, default and identity,
indexes and their tables, constraints (with `CHECK (col IS NOT NULL)` and validity), domains with
their constraints, enums, sequences and functions (with their bodies). Each added migration then
runs on the schema the ones before it left. The replay is cached per blob id and per sequence
of files, so a backfill replays each migration once. The files it read are the `old` side of
the surface's coverage. `lint-migrations FILE...` takes its files in the order given, each on
the schema the earlier ones built (the first on an unknown schema).

What the schema decides:

- `DROP DEFAULT` breaks old inserts only when the column is NOT NULL and had a default at the
  previous release (nullable: an advisory); `DROP IDENTITY` removes the value old inserts rely on.
- `SET NOT NULL`, a `CHECK (col IS NOT NULL)` (valid or `NOT VALID`: both apply to new writes at
  once) and a primary key on a nullable column break old code that leaves the column NULL, unless
  the column was NOT NULL, so checked, or new in the release; `SET NOT NULL` reads every row unless
  a validated check proves it (PostgreSQL 12+). The `NOT VALID` / `VALIDATE` / `SET NOT NULL`
  pattern avoids the long lock, not the break: the release that adds the check is the break.
- `ADD PRIMARY KEY` (also `USING INDEX`) makes its columns NOT NULL: a scan when they were
  nullable.
- A column type change is judged from the old type: no rewrite for a wider `varchar`, `numeric`
  precision or time precision, binary-coercible types (`varchar` to `text`), a domain without
  constraints over the old type, and `timestamp` to `timestamptz` (or back) when the session time
  zone is UTC (PostgreSQL 12+; `SET TimeZone` in the file counts, else the setting
  `migrations.server_timezone`, default `UTC`); the column's indexes are rebuilt when the new
  type uses another operator class, and its CHECK constraints validated again. Old code breaks
  unless the new type is a widening of the old (`int` to `bigint`, `varchar(n)` to a longer
  `varchar` or `text`, `numeric` precision, `timestamp` to `timestamptz`, an enum to `text`).
- `ADD COLUMN` of a domain type with constraints rewrites (every row is checked); so do identity
  and serial columns and volatile defaults (built-in functions' volatility comes from PostgreSQL's
  `pg_proc`, functions the migrations created carry their declared volatility).
- `ALTER DOMAIN ... SET NOT NULL` / `ADD CONSTRAINT` / `VALIDATE CONSTRAINT` read every table
  with a column of the domain under SHARE; `DROP INDEX`, `REINDEX INDEX` lock the index's table;
  `VALIDATE CONSTRAINT` of a foreign key takes ROW SHARE on the referenced table and reads it;
  `CREATE TABLE ... PARTITION OF` takes ACCESS EXCLUSIVE on the parent and, like `ATTACH
  PARTITION`, reads the parent's default partition.
- A call of a function the migrations created is classified from its body.

Where the history cannot be replayed (an earlier file that cannot be read, dynamic SQL, a call
of a function whose body is not known), the facts it would have decided are `unknown` (rule
`schema-fact-unknown`), never a guess: a statement of unknown effect makes the objects it names
unknown, one that could have done anything makes the whole schema unknown, until an object is
created again.

`DO` blocks and function bodies are read as PL/pgSQL: every branch of `IF` / `CASE`, loop bodies,
the queries loops iterate and the conditions that run queries count (an upper bound: a guard
like `IF EXISTS (...) THEN RETURN; END IF;` does not stop what follows from counting, and its
DDL is taken as applied); exception handlers are left out; `EXECUTE` of a constant string is
classified from the string. Only SQL built at run time is `unknown`.

Conservative choices where the text cannot tell: an UPDATE or DELETE with a WHERE clause reads
every row unless it picks rows by `id = literal` or `id IN (literals)` (a SELECT likewise); a
default calling a function of unknown volatility, a call of a function of unknown effect, and
dynamic SQL are unknown. Version-dependent behaviour follows `postgres_version` (default 15):
constant defaults rewrite before 11, `SET NOT NULL` skips its scan from 12 when a validated
`CHECK (col IS NOT NULL)` exists, `ATTACH PARTITION` takes SHARE UPDATE EXCLUSIVE on the parent
from 12, the no-rewrite type changes need 10 (9.x is taken as rewriting), `timestamptz` in UTC 12.

"""
BOUNDS = f"""## Bounds

A migration is `unknown` (rule `migration-over-budget`, with the bound it crossed) rather than
analysed when the file has more than {MAX_FILE_CHARS:,} characters or {MAX_STATEMENTS:,}
statements, or its classification takes more than {MAX_CPU_SECONDS:.0f} s of CPU time (the only
bound that depends on the machine); a single statement of more than {MAX_STATEMENT_CHARS:,}
characters, with parentheses nested more than {MAX_NESTING} deep or square brackets more than
{MAX_BRACKET_NESTING} deep, is an unknown statement (`migration-statement-unknown`). None of
these ever ends in a crash or a hang.

"""
AFTER_BOUNDS = """\
**Heaviness decides the verdict.** A migration that locks a table that existed at the previous
release against traffic (SHARE or stronger) while it rewrites or reads every row (the
`locksTable` fact) is a breaking finding of its own, `blocking-table-lock`: during a rolling
update the previous release's pods queue behind the lock, so the release is `false` (Recreate).
`CONCURRENTLY`, `NOT VALID` and brief metadata-only locks stay advisories. A table created by an
earlier migration of the same release has no rows yet and does not count.

Each finding's way out (`safer:`) is written from its own statement: `CREATE INDEX
CONCURRENTLY` with the statement's index, table and columns, a constraint added `NOT VALID`
under its own name and validated in a transaction of its own, the column a `SET NOT NULL`
names. A finding points at the line of the statement that causes it (inside a DO block, that
statement's line). The `Safer` line of each rule below is the catalogue's example.

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
  (`acknowledgement-unused`). `migration-unparseable` and `migration-over-budget` cannot be
  acknowledged: nothing is known about such a file. An acknowledgement outside a migration
  file has no effect (an advisory of the declarations surface says so).
- The peers' forms are the model (squawk's `-- squawk-ignore rule`, Atlas's `--atlas:nolint`,
  eugene's `-- eugene: ignore`); this one always carries a reason and is always recorded.

Examples marked *PostgreSQL-confirmed* run in the test suite on a real server
(`tests/surfaces/migrations/test_migration_rule_pairs.py`), each on fresh tables with rows (`users`,
`orders`, `staging`, `contacts` with an identity key and columns of the domains `email_address`
(with a CHECK) and `label` (without), the partitioned `events` and `logs` (with a default
partition), the view `active_users`, the materialized view `user_counts`, enums `mood` and
`priority`; the fixture is `tests/surfaces/migrations/pgprobe.py`), and the analysis sees the same
schema replayed as the previous release's; the measured flags (pg_locks of the migration's backend
before commit, pg_class.relfilenode, pg_stat_xact_user_tables) and tables must equal the static
analysis, and the rule must fire (or stay quiet) as the *rule* column says. Every rule has at least
one firing and one quiet example on the server. Flags are written `l` (locksTable), `r`
(rewritesTable), `s` (scansTable), `-` for none.
"""


RELEASE_LEVEL = (
    "Judged on the release's list of migration files, not on a migration's SQL: fires when a "
    "file present at the previous release differs at this one (tested on real repositories in "
    "`tests/surfaces/migrations/test_migrations_surface.py`).\n"
)


def _example(example: Example, rule: bool = True) -> str:
    flags = {"error": "PostgreSQL refuses it on a table with rows", "unknown": "unknown"}.get(
        example.heavy, example.heavy or "-"
    )
    where = "PostgreSQL-confirmed" if example.pg else "static only"
    if example.engine != "postgres":
        where = f"{example.engine}, static"
    tables = ", ".join(example.tables) or "none"
    sql = (example.shown or example.sql).replace("\n", " ").replace("|", "\\|")
    fires = ("fires | " if example.fires else "quiet | ") if rule else ""
    return f"| `{sql}` | {fires}{flags} | {tables} | {where} |"


def render() -> str:
    """The whole page."""
    lines = [INTRO + BOUNDS + AFTER_BOUNDS]
    for severity in ("breaking", "advisory", "unknown"):
        lines.append(f"## {severity.capitalize()} rules\n")
        for entry in (e for e in CATALOGUE if e.rule.severity == severity):
            rule = entry.rule
            lines.append(f"### `{rule.id}`: {rule.title}\n")
            lines.append(f"{rule.why}\n")
            unsafe = rule.unsafe.replace("\n", " ")
            lines.append(f"- Unsafe: `{unsafe}`")
            lines.append(f"- Safer: {rule.safe}\n")
            if entry.release:
                lines.append(RELEASE_LEVEL)
            if entry.examples:
                lines.append("| migration | rule | flags | tables | checked |")
                lines.append("| --- | --- | --- | --- | --- |")
                lines.extend(_example(e) for e in entry.examples)
                lines.append("")
    lines.append("## Other shapes confirmed on PostgreSQL\n")
    lines.append("| migration | flags | tables | checked |")
    lines.append("| --- | --- | --- | --- |")
    lines.extend(_example(e, rule=False) for e in SAFE_EXAMPLES)
    return "\n".join(lines) + "\n"
