"""Rows in the tables a release's migrations touch, and in their foreign-key parents (parents
first), so that a scan, a rewrite or a validation takes the time it takes at that size.

One `INSERT ... SELECT ... FROM generate_series(1, N)` per table: each column's value is made
from its type (a number from the row number, text that fits the length, an enum's labels in
turn, a uuid from an md5, ...); a foreign key takes the parent's keys in turn; columns with a
default, identity and generated columns are left to PostgreSQL. A table whose insert fails (a
CHECK the values miss) is tried again with its nullable columns NULL; if that fails too, the
table stays empty and the reason is kept: what depends on its size is then unverified.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from release_safety.verify.database import Connection, DatabaseError, message_of

_TABLES = """
SELECT c.oid::int, quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relname
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND NOT c.relispartition
"""
_COLUMNS = """
SELECT a.attname, quote_ident(a.attname), format_type(a.atttypid, a.atttypmod),
       format_type(coalesce(nullif(t.typbasetype, 0), a.atttypid),
                   CASE WHEN t.typbasetype <> 0 THEN t.typtypmod ELSE a.atttypmod END),
       a.attnotnull, a.atthasdef, a.attidentity::text, a.attgenerated::text,
       coalesce(b.typtype, t.typtype)::text, coalesce(nullif(t.typbasetype, 0), a.atttypid)::int,
       a.attndims > 0 OR coalesce(b.typcategory, t.typcategory) = 'A'
FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type b ON b.oid = nullif(t.typbasetype, 0)
WHERE a.attrelid = :oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
"""
_FOREIGN_KEYS = """
SELECT con.conrelid::int, con.confrelid::int, array_length(con.conkey, 1),
       (SELECT attname FROM pg_attribute WHERE attrelid = con.conrelid AND attnum = con.conkey[1]),
       (SELECT quote_ident(attname) FROM pg_attribute
        WHERE attrelid = con.confrelid AND attnum = con.confkey[1])
FROM pg_constraint con WHERE con.contype = 'f'
"""


@dataclass(frozen=True)
class Seeded:
    """What seeding did: rows per table, and the tables left empty with the reason."""

    rows: dict[str, int]
    failed: dict[str, str]


def _text(base: str) -> str:
    if "(" in base and base.startswith(("character varying", "character(", "bit")):
        length = base.partition("(")[2].partition(")")[0]
        return f"left('v' || i, {length})"
    return "'v' || i"


def _numeric(base: str) -> str:
    if base.startswith("numeric("):
        precision, _, scale = base.partition("(")[2].partition(")")[0].partition(",")
        digits = int(precision) - int(scale or 0)
        return f"i % {10 ** min(digits, 9)}" if digits > 0 else "0"
    return "i"


_BY_TYPE = {
    "smallint": "i % 32767",
    "integer": "i",
    "bigint": "i",
    "real": "i * 1.5",
    "double precision": "i * 1.5",
    "money": "i",
    "boolean": "i % 2 = 0",
    "date": "date '2020-01-01' + (i % 3650)",
    "timestamp without time zone": "timestamp '2020-01-01' + i * interval '1 second'",
    "timestamp with time zone": "timestamptz '2020-01-01 00:00Z' + i * interval '1 second'",
    "time without time zone": "time '00:00' + (i % 86400) * interval '1 second'",
    "time with time zone": "'00:00+00'::timetz",
    "interval": "i * interval '1 second'",
    "uuid": "md5(i::text)::uuid",
    "json": "json_build_object('i', i)",
    "jsonb": "jsonb_build_object('i', i)",
    "bytea": "decode(md5(i::text), 'hex')",
    "inet": "'10.0.0.0'::inet + i",
    "cidr": "'10.0.0.0/32'::cidr",
    "macaddr": "'08:00:2b:01:02:03'::macaddr",
    "tsvector": "to_tsvector('simple', 'v' || i)",
    "xml": "xmlparse(content 'v')",
    "citext": "'v' || i",
}


def value_expression(base: str, kind: str, labels: Sequence[str], array: bool) -> str | None:
    """The SQL expression, in the row number `i`, for a column of base type `base`
    (`format_type`), or None when the tool does not know how to make one."""
    if array:
        return "'{}'"
    if kind == "e":
        quoted = ", ".join("'" + label.replace("'", "''") + "'" for label in labels)
        return f"(ARRAY[{quoted}])[1 + i % {len(labels)}]" if labels else None
    if base.startswith(("character", "text", "bit")):
        return _text(base)
    if base.startswith("numeric"):
        return _numeric(base)
    if base.startswith(("timestamp(", "time(")):
        base = base.split("(")[0] + base.partition(")")[2]
    return _BY_TYPE.get(base)


@dataclass(frozen=True)
class _Table:
    oid: int
    qualified: str
    name: str


def _closure(
    conn: Connection, names: Sequence[str]
) -> tuple[list[_Table], dict[int, list[tuple[int, int, str, str]]]]:
    """The tables named and their foreign-key ancestors, parents first."""
    tables = {int(o): _Table(int(o), q, n) for o, q, n in conn.run(_TABLES)}
    by_name = {t.name: t.oid for t in tables.values()}
    by_name.update({t.qualified: t.oid for t in tables.values()})
    keys: dict[int, list[tuple[int, int, str, str]]] = {}
    for child, parent, width, column, parent_column in conn.run(_FOREIGN_KEYS):
        keys.setdefault(int(child), []).append((int(parent), int(width), column, parent_column))
    wanted = [by_name[n] for n in sorted(set(names)) if n in by_name]
    order: list[int] = []
    seen: set[int] = set()

    def visit(oid: int) -> None:
        if oid in seen or oid not in tables:
            return
        seen.add(oid)
        for parent, *_ in keys.get(oid, []):
            if parent != oid:
                visit(parent)
        order.append(oid)

    for oid in wanted:
        visit(oid)
    return [tables[o] for o in order], keys


def _insert(
    conn: Connection,
    table: _Table,
    rows: int,
    keys: list[tuple[int, int, str, str]],
    nullable_null: bool,
) -> str | None:
    """Insert `rows` rows into `table`; None when done, else what went wrong."""
    fk_columns = {column: (parent, pcol) for parent, width, column, pcol in keys if width == 1}
    wide_fk = {column for _, width, column, _ in keys if width != 1}
    names, values, sources = [], [], ["generate_series(1, :rows) AS i"]
    for name, quoted, shown, base, notnull, hasdef, ident, generated, kind, typ, array in conn.run(
        _COLUMNS, oid=table.oid
    ):
        if ident or generated or (hasdef and name not in fk_columns):
            continue
        expression: str | None
        if name in fk_columns:
            parent, pcol = fk_columns[name]
            if parent == table.oid or nullable_null:
                expression = None
            else:
                alias = f"p{len(sources)}"
                parent_name = conn.run(
                    "SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) "
                    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE c.oid = :oid",
                    oid=parent,
                )[0][0]
                # The parent's keys numbered, joined on the row number in turn (a hash join:
                # an array of keys indexed per row would be read whole for every row).
                sources.append(
                    f"JOIN (SELECT {pcol} AS k, row_number() OVER (ORDER BY {pcol}) AS n "
                    f"FROM {parent_name}) {alias} ON {alias}.n = 1 + (i - 1) % "
                    f"(SELECT greatest(count(*), 1) FROM {parent_name})"
                )
                expression = f"{alias}.k"
        elif name in wide_fk or (nullable_null and not notnull):
            expression = None
        else:
            labels = (
                [
                    r[0]
                    for r in conn.run(
                        "SELECT enumlabel FROM pg_enum WHERE enumtypid = :t ORDER BY enumsortorder",
                        t=typ,
                    )
                ]
                if kind == "e"
                else []
            )
            expression = value_expression(base, kind, labels, bool(array))
        if expression is None:
            if notnull:
                return f"no value for column {name} ({shown})"
            continue
        names.append(quoted)
        values.append(f"({expression})::{shown}")
    if not names:
        sql = f"INSERT INTO {table.qualified} SELECT FROM generate_series(1, :rows)"
    else:
        sql = (
            f"INSERT INTO {table.qualified} ({', '.join(names)}) "
            f"SELECT {', '.join(values)} FROM {' '.join(sources)}"
        )
    try:
        conn.run("BEGIN")
        conn.run(sql, rows=rows)
        conn.run("COMMIT")
    except DatabaseError as exc:
        conn.run("ROLLBACK")
        return message_of(exc)
    return None


def seed(conn: Connection, tables: Sequence[str], rows: int) -> Seeded:
    """Fill `tables` (names as the migrations write them) and their foreign-key parents with
    `rows` rows each, then ANALYZE them as production tables are."""
    order, keys = _closure(conn, tables)
    done: dict[str, int] = {}
    failed: dict[str, str] = {}
    for table in order:
        if int(conn.run(f"SELECT count(*) FROM {table.qualified}")[0][0]):
            continue  # rows the migrations themselves inserted: kept as they are
        reason = _insert(conn, table, rows, keys.get(table.oid, []), nullable_null=False)
        if reason is not None:
            retry = _insert(conn, table, rows, keys.get(table.oid, []), nullable_null=True)
            if retry is not None:
                failed[table.name] = reason
                continue
        count = int(conn.run(f"SELECT count(*) FROM {table.qualified}")[0][0])
        if rows and not count:
            failed[table.name] = "no row could be made: a foreign-key parent is empty"
            continue
        done[table.name] = count
        conn.run(f"ANALYZE {table.qualified}")
    return Seeded(done, failed)
