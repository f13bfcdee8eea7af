"""Classify one SQL statement: its tables, lock, rewrite, scan and compatibility issues.

DDL is read from sqlglot's PostgreSQL tokens with a small grammar per statement kind (about one
DDL statement in five is an opaque `exp.Command` to sqlglot's parser anyway); data statements
(UPDATE, DELETE, INSERT, SELECT, CREATE ... AS SELECT) are read from sqlglot's syntax tree.
Anything that cannot be determined from the text is `unknown` with the reason.
"""

from __future__ import annotations

import logging

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from release_safety.surfaces.migrations import plpgsql
from release_safety.surfaces.migrations.altertable import (
    AEL,
    SRE,
    SUE,
    Unclassified,
    alter_table,
)
from release_safety.surfaces.migrations.context import Context
from release_safety.surfaces.migrations.facts import Lock, StatementFacts
from release_safety.surfaces.migrations.tokens import (
    Cursor,
    Tok,
    normalise,
    split_top,
    tokenize,
    words,
)

logging.getLogger("sqlglot").setLevel(logging.CRITICAL)

# Statements with no effect on tables and no compatibility impact.
_INERT = frozenset(
    {
        "ANALYZE",
        "CHECKPOINT",
        "DISCARD",
        "LISTEN",
        "NOTIFY",
        "RELEASE",
        "SAVEPOINT",
        "SECURITY",
        "SHOW",
    }
)
_INERT_OBJECTS = frozenset(
    {
        "AGGREGATE",
        "CAST",
        "COLLATION",
        "CONVERSION",
        "DOMAIN",
        "EXTENSION",
        "FUNCTION",
        "GROUP",
        "LANGUAGE",
        "OPERATOR",
        "PROCEDURE",
        "PUBLICATION",
        "ROLE",
        "SCHEMA",
        "SEQUENCE",
        "SERVER",
        "SUBSCRIPTION",
        "TEXT",
        "TYPE",
        "USER",
        "DEFAULT",
        "EVENT",
        "FOREIGN",
        "ACCESS",
    }
)
_SAFE_FUNCTIONS = frozenset(
    {
        "set_config",
        "pg_advisory_xact_lock",
        "pg_advisory_lock",
        "pg_advisory_unlock",
        "current_setting",
        "now",
        "count",
        "pg_sleep",
    }
)


def classify(sql: str, ctx: Context) -> StatementFacts:
    """Facts of one statement; earlier statements' knowledge comes from and goes into `ctx`."""
    facts = StatementFacts()
    try:
        toks = tokenize(sql)
        _dispatch(sql, toks, facts, ctx)
    except Unclassified as exc:
        return StatementFacts(unknown=str(exc))
    except (SqlglotError, ValueError, KeyError, IndexError, StopIteration) as exc:
        # Text outside the grammar this classifier reads: unknown, never a crash.
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return StatementFacts(unknown=f"could not parse: {first[:120]}")
    except RecursionError:
        return StatementFacts(unknown="could not parse: nested too deeply")
    return facts


def _dispatch(sql: str, toks: list[Tok], facts: StatementFacts, ctx: Context) -> None:
    cur = Cursor(toks)
    first = cur.peek()
    if first in ("BEGIN", "START"):
        facts.transaction = "begin"
    elif first in ("COMMIT", "END", "ROLLBACK", "ABORT"):
        facts.transaction = "commit"
    elif first in ("SET", "RESET"):
        names = words(toks[1:4])
        facts.sets_lock_timeout = first == "SET" and "LOCK_TIMEOUT" in names
    elif first in _INERT or first == "":
        return
    elif cur.accept("ALTER", "TABLE"):
        alter_table(cur, facts, ctx)
    elif cur.accept("ALTER"):
        _alter_other(cur, facts, ctx)
    elif cur.accept("CREATE"):
        _create(sql, cur, facts, ctx)
    elif cur.accept("DROP"):
        _drop(cur, facts, ctx)
    elif first in ("UPDATE", "DELETE", "INSERT", "SELECT", "WITH", "VALUES", "TABLE"):
        _data(sql, facts, ctx)
    elif cur.accept("TRUNCATE"):
        cur.skip_optional(("TABLE",), ("ONLY",))
        for table in cur.names():
            facts.touch(table, AEL)
            if table not in ctx.created:
                facts.issue("truncate-table", f"TRUNCATE {table}")
    elif cur.accept("LOCK"):
        _lock(cur, facts)
    elif cur.accept("COMMENT", "ON"):
        _comment(cur, facts)
    elif first in ("GRANT", "REVOKE"):
        _grant(cur, facts, revoke=first == "REVOKE")
    elif cur.accept("VACUUM"):
        _vacuum(cur, facts, ctx)
    elif cur.accept("CLUSTER"):
        cur.accept("VERBOSE")
        clustered = cur.name()
        if clustered is None:
            raise Unclassified("CLUSTER without a table reclusters every table")
        _rewrite(facts, ctx, clustered, "CLUSTER")
    elif cur.accept("REINDEX"):
        _reindex(cur, facts, ctx)
    elif cur.accept("REFRESH", "MATERIALIZED", "VIEW"):
        _refresh(cur, facts, ctx)
    elif cur.accept("DO"):
        plpgsql.do_block(toks, facts, ctx, classify)
    elif first in ("CALL", "EXECUTE", "PREPARE", "COPY", "MERGE", "IMPORT", "LOAD"):
        raise Unclassified(f"{first} runs code or data the text does not show")
    else:
        raise Unclassified(f"statement {first or '?'} not recognised")


def _rewrite(facts: StatementFacts, ctx: Context, table: str, what: str) -> None:
    new = table in ctx.created
    facts.touch(table, AEL, rewrites=not new)
    if not new:
        facts.issue("table-rewrite", f"{what} rewrites {table}")


def _alter_other(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    kind = cur.peek()
    if cur.accept("MATERIALIZED", "VIEW") or cur.accept("VIEW"):
        cur.skip_optional(("IF", "EXISTS"))
        view = cur.name() or "?"
        rest = words(cur.rest())
        facts.touch(view, AEL)
        if view in ctx.created:
            return
        if rest[:2] == ["RENAME", "TO"]:
            facts.issue("rename-view", f"RENAME view {view}")
        elif rest[:1] == ["RENAME"]:
            facts.issue("rename-column", f"RENAME COLUMN of view {view}")
        elif rest[:2] == ["SET", "SCHEMA"]:
            facts.issue("set-schema", f"{view} SET SCHEMA")
    elif cur.accept("TYPE"):
        name = cur.name() or "?"
        rest = words(cur.rest())
        if name in ctx.created_types:
            return
        if rest[:2] == ["RENAME", "VALUE"]:
            facts.issue("rename-enum-value", f"RENAME VALUE of type {name}")
        elif rest[:2] == ["RENAME", "TO"]:
            facts.issue("rename-type", f"RENAME type {name}")
        elif rest[:2] == ["SET", "SCHEMA"]:
            facts.issue("set-schema", f"type {name} SET SCHEMA")
        elif rest[:2] in (["DROP", "ATTRIBUTE"], ["RENAME", "ATTRIBUTE"]):
            facts.issue("drop-type", f"ALTER TYPE {name} {' '.join(rest[:2])}")
    elif cur.accept("SCHEMA"):
        name = cur.name() or "?"
        if words(cur.rest())[:2] == ["RENAME", "TO"]:
            facts.issue("rename-schema", f"RENAME schema {name}")
    elif cur.accept("INDEX"):
        cur.skip_optional(("IF", "EXISTS"))
        cur.name()
        if words(cur.rest())[:1] not in (["RENAME"], ["SET"], ["RESET"], ["ALTER"]):
            raise Unclassified("ALTER INDEX action not recognised")
    elif cur.accept("DOMAIN"):
        if "CONSTRAINT" in words(cur.rest()):
            raise Unclassified("ALTER DOMAIN constraint checks columns of unnamed tables")
    elif cur.accept("TRIGGER"):
        cur.name()
        if cur.accept("ON"):
            facts.touch(cur.name() or "?", AEL)
    elif kind in _INERT_OBJECTS or kind in ("DATABASE", "SYSTEM", "POLICY", "STATISTICS"):
        cur.rest()
    else:
        raise Unclassified(f"ALTER {kind or '?'} not recognised")


def _create(sql: str, cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    cur.skip_optional(("OR", "REPLACE"))
    replace = cur.toks[cur.i - 1].up == "REPLACE" if cur.i else False
    for modifier in ("GLOBAL", "LOCAL", "TEMP", "TEMPORARY", "UNLOGGED", "RECURSIVE"):
        cur.accept(modifier)
    kind = cur.peek()
    if cur.accept("UNIQUE", "INDEX") or cur.accept("INDEX"):
        _create_index(cur, facts, ctx)
    elif cur.accept("TABLE"):
        _create_table(sql, cur, facts, ctx)
    elif cur.accept("MATERIALIZED", "VIEW") or cur.accept("VIEW"):
        materialized = kind == "MATERIALIZED"
        cur.skip_optional(("IF", "NOT", "EXISTS"))
        view = cur.name() or "?"
        with_data = words(cur.toks[-3:])[-3:] != ["WITH", "NO", "DATA"]
        scans = materialized and with_data
        for table in _query_tables(sql, cur.toks):
            if table != view:
                facts.touch(table, Lock.ACCESS_SHARE, scans=scans and table not in ctx.created)
        if replace and view not in ctx.created:
            facts.touch(view, AEL)
        else:
            facts.touch(view, AEL, created=True)
            ctx.created.add(view)
    elif cur.accept("TRIGGER") or cur.accept("CONSTRAINT", "TRIGGER"):
        rest = cur.rest()
        at = next((k for k, t in enumerate(rest) if t.up == "ON"), None)
        if at is None:
            raise Unclassified("CREATE TRIGGER without ON table")
        facts.touch(Cursor(rest[at + 1 :]).name() or "?", SRE)
    elif cur.accept("POLICY") or cur.accept("RULE"):
        rest = cur.rest()
        at = next((k for k, t in enumerate(rest) if t.up in ("ON", "TO")), None)
        if at is not None:
            facts.touch(Cursor(rest[at + 1 :]).name() or "?", AEL)
    elif cur.accept("STATISTICS"):
        rest = cur.rest()
        at = next((k for k, t in enumerate(rest) if t.up == "FROM"), None)
        if at is not None:
            facts.touch(Cursor(rest[at + 1 :]).name() or "?", SUE)
    elif cur.accept("TYPE") or cur.accept("DOMAIN"):
        name = cur.name()
        if name is not None:
            ctx.created_types.add(name)
    elif kind in _INERT_OBJECTS or kind == "DATABASE":
        cur.rest()
    else:
        raise Unclassified(f"CREATE {kind or '?'} not recognised")


def _create_index(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    concurrently = cur.accept("CONCURRENTLY")
    cur.skip_optional(("IF", "NOT", "EXISTS"))
    index = None if cur.peek() == "ON" else cur.name()
    if not cur.accept("ON"):
        raise Unclassified("CREATE INDEX without ON table")
    cur.accept("ONLY")
    table = cur.name()
    if table is None:
        raise Unclassified("CREATE INDEX without a table name")
    if index is not None:
        ctx.indexes[index] = table
    new = table in ctx.created
    facts.outside_transaction |= concurrently
    facts.touch(table, SUE if concurrently else Lock.SHARE, scans=not new)
    if not new and not concurrently:
        facts.issue("create-index-non-concurrently", f"CREATE INDEX on {table}")


def _create_table(sql: str, cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    cur.skip_optional(("IF", "NOT", "EXISTS"))
    table = cur.name()
    if table is None:
        raise Unclassified("CREATE TABLE without a name")
    facts.touch(table, AEL, created=True)
    ctx.created.add(table)
    if cur.accept("PARTITION", "OF"):
        parent = cur.name() or "?"
        facts.touch(parent, AEL)
        return
    if cur.peek() == "(":
        for element in split_top(cur.skip_parens()):
            _table_element(table, element, facts, ctx)
    rest = words(cur.rest())
    if "AS" in rest:
        with_data = rest[-3:] != ["WITH", "NO", "DATA"]
        for source in _query_tables(sql, cur.toks):
            if source != table:
                facts.touch(
                    source, Lock.ACCESS_SHARE, scans=with_data and source not in ctx.created
                )
    if "INHERITS" in rest:
        raise Unclassified("CREATE TABLE ... INHERITS locks parents the grammar does not read")


def _table_element(table: str, element: list[Tok], facts: StatementFacts, ctx: Context) -> None:
    head = words(element)
    if head[:1] == ["LIKE"]:
        facts.touch(Cursor(element[1:]).name() or "?", Lock.ACCESS_SHARE)
        return
    for k, tok in enumerate(element):
        if tok.up == "REFERENCES":
            ref = Cursor(element[k + 1 :]).name()
            if ref is not None and ref != table:
                facts.touch(ref, SRE)
    if head and head[0] not in ("CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "EXCLUDE"):
        column = Cursor(element).name() or ""
        not_null = "PRIMARY" in head or ("NOT" in head and "NULL" in head)
        (ctx.not_null if not_null else ctx.nullable).add((table, column))


def _drop(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    kind = cur.peek()
    if cur.accept("MATERIALIZED", "VIEW") or cur.accept("VIEW") or cur.accept("TABLE"):
        cur.skip_optional(("IF", "EXISTS"))
        rule = "drop-table" if kind == "TABLE" else "drop-view"
        for name in cur.names():
            facts.touch(name, AEL, dropped=True)
            if name not in ctx.created:
                facts.issue(rule, f"DROP {kind} {name}")
            ctx.created.discard(name)
    elif cur.accept("INDEX"):
        concurrently = cur.accept("CONCURRENTLY")
        cur.skip_optional(("IF", "EXISTS"))
        facts.outside_transaction |= concurrently
        for index in cur.names():
            table = ctx.indexes.get(index)
            if table is not None:
                facts.touch(table, SUE if concurrently else AEL)
            elif not concurrently:
                facts.unnamed_lock = AEL
    elif cur.accept("TYPE") or cur.accept("DOMAIN"):
        cur.skip_optional(("IF", "EXISTS"))
        for name in cur.names():
            if name not in ctx.created_types:
                facts.issue("drop-type", f"DROP {kind} {name}")
    elif cur.accept("SCHEMA"):
        cur.skip_optional(("IF", "EXISTS"))
        facts.issue("drop-schema", f"DROP SCHEMA {', '.join(cur.names())}")
    elif cur.accept("TRIGGER") or cur.accept("POLICY") or cur.accept("RULE"):
        cur.skip_optional(("IF", "EXISTS"))
        cur.name()
        if cur.accept("ON"):
            facts.touch(cur.name() or "?", AEL)
    elif kind in _INERT_OBJECTS or kind in ("OWNED", "STATISTICS", "DATABASE"):
        cur.rest()
    else:
        raise Unclassified(f"DROP {kind or '?'} not recognised")


def _lock(cur: Cursor, facts: StatementFacts) -> None:
    cur.skip_optional(("TABLE",), ("ONLY",))
    tables = cur.names()
    mode = Lock.ACCESS_EXCLUSIVE
    if cur.accept("IN"):
        rest = words(cur.rest())
        name = "_".join(rest[: rest.index("MODE")]) if "MODE" in rest else ""
        if name not in Lock.__members__:
            raise Unclassified(f"LOCK mode {name or '?'} not recognised")
        mode = Lock[name]
    for table in tables:
        facts.touch(table, mode)


def _comment(cur: Cursor, facts: StatementFacts) -> None:
    if cur.accept("TABLE") or cur.accept("MATERIALIZED", "VIEW") or cur.accept("VIEW"):
        facts.touch(cur.name() or "?", SUE)
    elif cur.accept("COLUMN"):
        parts: list[str] = []
        while not cur.at_end() and (tok := cur.toks[cur.i]).kind in ("word", "ident"):
            parts.append(tok.text if tok.kind == "ident" else tok.text.lower())
            cur.i += 1
            if not cur.accept("."):
                break
        if len(parts) < 2:
            raise Unclassified("COMMENT ON COLUMN without table.column")
        facts.touch(normalise(parts[:-1]), SUE)


def _grant(cur: Cursor, facts: StatementFacts, revoke: bool) -> None:
    rest = cur.rest()
    if revoke:
        facts.issue("revoke-privileges", " ".join(t.text for t in rest[:12]))


def _vacuum(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    options = words(cur.skip_parens()) if cur.peek() == "(" else []
    while cur.peek() in ("FULL", "FREEZE", "VERBOSE", "ANALYZE"):
        options.append(cur.peek())
        cur.i += 1
    tables = cur.names()
    facts.outside_transaction = True
    if not tables:
        raise Unclassified("VACUUM without a table processes every table")
    for table in tables:
        if "FULL" in options:
            _rewrite(facts, ctx, table, "VACUUM FULL")
        else:
            facts.touch(table, SUE)


def _reindex(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    if cur.peek() == "(":
        cur.skip_parens()
    kind = cur.peek()
    cur.i += 1
    concurrently = cur.accept("CONCURRENTLY")
    name = cur.name() or "?"
    table = name if kind == "TABLE" else ctx.indexes.get(name) if kind == "INDEX" else None
    if table is None:
        raise Unclassified(f"REINDEX {kind} {name}: the tables it locks are not named")
    facts.outside_transaction |= concurrently
    facts.touch(table, SUE if concurrently else Lock.SHARE, scans=table not in ctx.created)
    if not concurrently and table not in ctx.created:
        facts.issue("reindex-non-concurrently", f"REINDEX {kind} {name}")


def _refresh(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    concurrently = cur.accept("CONCURRENTLY")
    view = cur.name() or "?"
    if "NO" in words(cur.rest()):
        facts.touch(view, AEL)
        return
    if concurrently:
        facts.touch(view, Lock.EXCLUSIVE, scans=True)
    else:
        facts.touch(view, AEL, rewrites=True)
    facts.issue("refresh-materialized-view", f"REFRESH MATERIALIZED VIEW {view}")


def _table_name(table: exp.Table) -> str:
    parts = [
        part.this if part.quoted else part.this.lower()
        for part in (table.args.get("db"), table.this)
        if isinstance(part, exp.Identifier)
    ]
    return normalise(parts)


def _query_tables(sql: str, toks: list[Tok]) -> list[str]:
    """Tables read by the query after the first `AS` of a CREATE ... AS (CTEs left out)."""
    depth = 0
    start = None
    for k, tok in enumerate(toks):
        depth += tok.text == "(" and tok.kind == "punct"
        depth -= tok.text == ")" and tok.kind == "punct"
        if depth == 0 and tok.up == "AS" and k + 1 < len(toks):
            start = k + 1
            break
    if start is None:
        return []
    end = len(toks)
    if words(toks[-3:]) in (["WITH", "NO", "DATA"], ["NO", "DATA"]) or words(toks[-2:]) == [
        "WITH",
        "DATA",
    ]:
        end = max(k for k, t in enumerate(toks) if t.up == "WITH")
    query = sql[toks[start].start : toks[end - 1].end + 1]
    tree = sqlglot.parse_one(query, read="postgres")
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    out: list[str] = []
    for table in tree.find_all(exp.Table):
        name = _table_name(table)
        if name and name.lower() not in ctes and name not in out:
            out.append(name)
    return out


def _data(sql: str, facts: StatementFacts, ctx: Context) -> None:
    tree = sqlglot.parse_one(sql, read="postgres")
    if isinstance(tree, exp.Command):
        raise Unclassified("data statement not parsed")
    _check_functions(tree)
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    target: str | None = None
    full = False
    narrow = False
    if isinstance(tree, (exp.Update, exp.Delete)):
        table = tree.this if isinstance(tree.this, exp.Table) else tree.find(exp.Table)
        target = _table_name(table) if table is not None else None
        where = tree.args.get("where")
        full = where is None
        narrow = where is not None and _key_lookup(where.this)
    elif isinstance(tree, exp.Insert):
        table = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        target = _table_name(table) if isinstance(table, exp.Table) else None
    for table in tree.find_all(exp.Table):
        name = _table_name(table)
        if not name or name.lower() in ctes:
            continue
        new = name in ctx.created
        if name == target:
            facts.touch(
                name,
                Lock.ROW_EXCLUSIVE,
                scans=not new and not narrow and not isinstance(tree, exp.Insert),
                full_change=full and not new,
            )
        else:
            facts.touch(name, Lock.ACCESS_SHARE, scans=not new)
    if target is not None and full and target not in ctx.created:
        facts.issue(
            "full-table-data-change", f"{type(tree).__name__.upper()} of every row of {target}"
        )


def _key_lookup(where: exp.Expression) -> bool:
    """A WHERE that picks rows by `id = literal` or `id IN (literals)`: served by the key."""
    if isinstance(where, exp.And):
        return _key_lookup(where.this) or _key_lookup(where.expression)
    if isinstance(where, exp.Paren):
        return _key_lookup(where.this)
    column = where.this if isinstance(where, (exp.EQ, exp.In)) else None
    if not isinstance(column, exp.Column) or column.name.lower() != "id":
        return False
    if isinstance(where, exp.EQ):
        return isinstance(where.expression, exp.Literal)
    return all(isinstance(e, exp.Literal) for e in where.expressions) and bool(where.expressions)


def _check_functions(tree: exp.Expr) -> None:
    """User functions in data statements may do anything: unknown."""
    for call in tree.find_all(exp.Anonymous):
        name = str(call.this).lower()
        if name not in _SAFE_FUNCTIONS:
            raise Unclassified(f"calls function {name}(), whose effects are not visible")
