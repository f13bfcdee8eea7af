"""Score `lint-migrations` against PostgreSQL on a real repository's migration history.

A held-out check of the heaviness flags: migrations nobody here wrote. The files are taken in order
(by name) from a fetched repository, linted in one `release-safety lint-migrations --json` run (each
on the schema the earlier ones built), then replayed one by one on a throwaway PostgreSQL server,
each measured by the suite's probe (`tests/surfaces/migrations/pgprobe.py`: locks from pg_locks,
rewrites from relfilenode, scans from the backend's counters) after every table has been given rows
(200 where its constraints allow, else one, else none). Per flag it prints how many files the lint
got exactly right, where it said "not" and PostgreSQL did it (the miss a release-safety tool may not
make), and where it said unknown.

    .venv/bin/python bench/score_real_migrations.py supabase /work/.mirror/supabase+auth/repo
    .venv/bin/python bench/score_real_migrations.py svix /work/.mirror/svix+svix-webhooks/repo
    .venv/bin/python bench/score_real_migrations.py harbor /work/.mirror/goharbor+harbor/repo

Needs PostgreSQL's server binaries (Debian's `postgresql`) and the test extra (psycopg).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "surfaces" / "migrations"))
from pgprobe import Measured, Probe
from pgserver import pg_server

from release_safety.surfaces.migrations.sql.sqlfile import split_sql


@dataclass(frozen=True)
class Preset:
    """Where a repository keeps its migrations and what its deployment sets up first."""

    pattern: str
    schema: str = "public"
    replace: tuple[tuple[str, str], ...] = ()
    setup: str = ""


PRESETS = {
    "supabase": Preset(
        "migrations/*.up.sql",
        schema="auth",
        replace=(
            ('{{ index .Options "Namespace" }}', "auth"),
            ('{{index .Options "Namespace" }}', "auth"),
        ),
        setup="CREATE SCHEMA auth; CREATE ROLE supabase_auth_admin; CREATE ROLE postgres_admin; "
        "CREATE ROLE authenticated; CREATE ROLE anon; CREATE ROLE service_role; "
        "CREATE ROLE dashboard_user; CREATE ROLE supabase_admin;",
    ),
    "svix": Preset("server/svix-server/migrations/*.up.sql"),
    "harbor": Preset(
        "make/migrations/postgresql/*.up.sql",
        # golang-migrate, harbor's runner, creates its table before the first migration
        setup="CREATE TABLE schema_migrations (version bigint PRIMARY KEY, dirty bool NOT NULL);",
    ),
}
FLAGS = (("locks", "locksTable"), ("rewrites", "rewritesTable"), ("scans", "scansTable"))
ROWS = (200, 1)
TIMEOUT = "10s"  # a data migration looping on made-up rows is not measured

_COLUMNS = """
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), t.typcategory,
       t.typname, a.attnotnull, a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '',
       (SELECT e.enumlabel FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder
        LIMIT 1)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type t ON t.oid = coalesce(nullif(t.typbasetype, 0), a.atttypid)
WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition
ORDER BY c.relname, a.attnum
"""


def _value(kind: str, name: str, category: str, label: str | None) -> str | None:
    """An expression of row number `i` for a NOT NULL column of this type, or None."""
    if label is not None:
        return f"'{label}'::{kind}"
    by_name = {
        "uuid": "md5(i::text)::uuid",
        "json": "json_build_object('k', i)",
        "jsonb": "jsonb_build_object('k', i)",
        "bytea": "convert_to(i::text, 'UTF8')",
        "interval": "i * interval '1 second'",
        "inet": "('10.0.' || i / 256 || '.' || i % 256)::inet",
    }
    by_category = {
        "N": f"i::{kind}",
        "S": f"('v' || i)::{kind}",
        "B": "i % 2 = 0",
        "D": f"(timestamp '2024-01-01' + i * interval '1 second')::{kind}",
        "A": f"'{{}}'::{kind}",
    }
    return by_name.get(name) or by_category.get(category)


def populate(conn: psycopg.Connection, schema: str) -> None:
    """Give every empty table rows: 200 where its constraints allow, else one; rounds until
    no table gains any, so referenced tables fill before the tables referencing them."""
    columns: dict[str, list[tuple[str, str | None]]] = {}
    for table, column, kind, category, name, notnull, default, label in conn.execute(
        _COLUMNS, [schema]
    ):
        value = None if default or not notnull else _value(kind, name, category, label)
        if not default:
            columns.setdefault(table, []).append((column, value or "NULL"))
        else:
            columns.setdefault(table, [])
    pending = [t for t in columns if not _has_rows(conn, schema, t)]
    while pending:
        filled = [t for t in pending if _fill(conn, schema, t, columns[t])]
        if not filled:
            break
        pending = [t for t in pending if t not in filled]
    conn.commit()


def _has_rows(conn: psycopg.Connection, schema: str, table: str) -> bool:
    return conn.execute(f'SELECT EXISTS (SELECT 1 FROM {schema}."{table}")').fetchone() == (True,)


def _fill(conn: psycopg.Connection, schema: str, table: str, cols: list[tuple[str, str]]) -> bool:
    names = ", ".join(f'"{c}"' for c, _ in cols)
    values = ", ".join(v for _, v in cols)
    target = f'{schema}."{table}"' + (f" ({names})" if cols else "")
    for count in ROWS:
        source = f"SELECT {values} FROM generate_series(1, {count}) i" if cols else ""
        sql = f"INSERT INTO {target} {source}" if cols else f"INSERT INTO {target} DEFAULT VALUES"
        try:
            with conn.transaction():
                conn.execute(sql)
            return True
        except psycopg.Error:
            continue
    return False


def lint(folder: Path, files: list[str], major: int) -> dict[str, dict[str, bool | None]]:
    """Each file's heaviness flags as `lint-migrations --json` gives them (None: unknown)."""
    command = [sys.executable, "-m", "release_safety", "lint-migrations", "--json"]
    command += ["--postgres-version", str(major), *files]
    out = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"lint-migrations failed: {out.stderr.strip()}")
    return {
        f["file"]: {k: v if isinstance(v, bool) else None for k, v in f["heaviness"].items()}
        for f in json.loads(out.stdout)["files"]
    }


def checkout(repo: str, ref: str, pattern: str, folder: Path) -> list[str]:
    """Write the migration files of `ref` under `folder`; their paths in order."""
    names = (
        subprocess.run(
            ["git", "--git-dir", repo, "ls-tree", "-r", "-z", "--name-only", ref],
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    files = sorted(n for n in names if fnmatch.fnmatch(n, pattern))
    for name in files:
        blob = subprocess.run(
            ["git", "--git-dir", repo, "show", f"{ref}:{name}"], capture_output=True, check=True
        ).stdout
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(blob)
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("preset", choices=sorted(PRESETS))
    parser.add_argument("repo", help="a bare git directory (fetched)")
    parser.add_argument("--ref", default="HEAD")
    parser.add_argument("--all", action="store_true", help="list every file, not only misses")
    args = parser.parse_args()
    preset = PRESETS[args.preset]
    with tempfile.TemporaryDirectory() as tmp, pg_server() as dsn:
        folder = Path(tmp)
        try:
            files = checkout(args.repo, args.ref, preset.pattern, folder)
        except subprocess.CalledProcessError as exc:
            detail = exc.stderr.decode(errors="replace").strip().splitlines() or ["git failed"]
            sys.exit(f"{args.repo}: cannot read {args.ref}: {detail[-1]}")
        if not files:
            sys.exit(f"{args.repo}: no file at {args.ref} matches {preset.pattern}")
        admin = psycopg.connect(dsn, autocommit=True)
        major = admin.info.server_version // 10000
        said = lint(folder, files, major)
        admin.execute(f"ALTER ROLE postgres SET statement_timeout = '{TIMEOUT}'")
        admin.execute(f"ALTER ROLE postgres SET search_path = {preset.schema}, public")
        admin.execute("CREATE DATABASE history")
        history = dsn.replace("dbname=postgres", "dbname=history")
        with psycopg.connect(history, autocommit=True) as conn:
            if preset.setup:
                conn.execute(preset.setup)
        rows: list[tuple[str, Measured | str, dict[str, bool | None]]] = []
        for name in files:
            sql = (folder / name).read_text()
            for old, new in preset.replace:
                sql = sql.replace(old, new)
            rows.append((name, measure_copy(admin, dsn, preset.schema, sql), said[name]))
            apply(history, sql, name)
        admin.close()
    report(args.preset, args.ref, major, rows, verbose=args.all)


def measure_copy(admin: psycopg.Connection, dsn: str, schema: str, sql: str) -> Measured | str:
    """Measure a migration on a copy of the history so far, its tables given rows; what
    PostgreSQL said when it failed there."""
    admin.execute("CREATE DATABASE measured TEMPLATE history")
    probe = Probe(dsn.replace("dbname=postgres", "dbname=measured"))
    try:
        populate(probe.conn, schema)
        return probe.measure(schema, sql)
    except psycopg.Error as exc:
        return f"fails on PostgreSQL with rows: {str(exc).splitlines()[0]}"
    finally:
        probe.close()
        admin.execute("DROP DATABASE measured WITH (FORCE)")


def apply(dsn: str, sql: str, name: str) -> None:
    """Run a migration on the history (tables as a fresh install has them) statement by
    statement, as a migration runner would."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        try:
            for statement in split_sql(sql):
                conn.execute(statement.sql or "")
        except psycopg.Error as exc:
            sys.exit(f"{name} fails on a fresh install: {str(exc).splitlines()[0]}")


def report(
    preset: str,
    ref: str,
    major: int,
    rows: list[tuple[str, Measured | str, dict[str, bool | None]]],
    verbose: bool = False,
) -> None:
    """Per flag: exact, said-not-but-done, unknown; then every file that differs."""
    scored = [(n, m, s) for n, m, s in rows if isinstance(m, Measured)]
    print(f"{preset} at {ref}: {len(rows)} files, {len(scored)} ran on PostgreSQL {major}")
    for flag, key in FLAGS:
        exact = sum(s[key] is getattr(m, flag) for _, m, s in scored)
        missed = sum(getattr(m, flag) and s[key] is False for _, m, s in scored)
        unknown = sum(s[key] is None for _, m, s in scored)
        share = exact / len(scored) if scored else 0.0
        print(
            f"  {key}: exact {exact}/{len(scored)} ({share:.1%}), said not but done {missed}, "
            f"unknown {unknown}"
        )
    for name, measured, flags in rows:
        if isinstance(measured, str):
            print(f"  {name}: {measured}")
            continue
        shown = "".join(k for k, (f, _) in zip("lrs", FLAGS, strict=True) if getattr(measured, f))
        ours = "".join(
            k if flags[key] else ("?" if flags[key] is None else "")
            for k, (_, key) in zip("lrs", FLAGS, strict=True)
        )
        if verbose or any(flags[key] is not getattr(measured, f) for f, key in FLAGS):
            print(f"  {name}: PostgreSQL {shown or '-'}, lint {ours or '-'}")


if __name__ == "__main__":
    main()
