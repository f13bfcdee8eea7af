"""Classify one SQL statement: its tables, lock, rewrite, scan and compatibility issues.

DDL is read from the statement's tokens (`lexer`: those of sqlglot's PostgreSQL tokenizer,
without loading sqlglot) with a small grammar per statement kind (about one DDL statement in
five is an opaque `exp.Command` to sqlglot's parser anyway) and changes the schema in the
context as PostgreSQL would; data statements (UPDATE, DELETE, INSERT, SELECT, CREATE ... AS
SELECT) are read from their tokens when they are simple (`simpledata`), else from sqlglot's
syntax tree (sqlglot imported on first use; `simpledata` and `plpgsql` are imported where a
data statement, a DO block or a call needs them, so a file of DDL alone loads neither).
Anything that cannot be determined from the text is `unknown` with the reason, and the schema
forgets what such a statement may have changed.
"""

from __future__ import annotations

from itertools import pairwise

from release_safety.common.textcase import lower
from release_safety.surfaces.migrations.budget import (
    MAX_BRACKET_NESTING,
    MAX_NESTING,
    MAX_STATEMENT_CHARS,
)
from release_safety.surfaces.migrations.engines.postgres.altertable import (
    AEL,
    SRE,
    SUE,
    Alter,
    add_column,
    add_constraint,
    alter_table,
    owner_changed,
)
from release_safety.surfaces.migrations.engines.postgres.columns import (
    Unclassified,
    parse_column,
    parse_constraint,
)
from release_safety.surfaces.migrations.engines.postgres.context import Context
from release_safety.surfaces.migrations.engines.postgres.facts import Lock, StatementFacts
from release_safety.surfaces.migrations.engines.postgres.grammar import (
    SYNTAX_ERROR,
    ColumnSyntax,
    check_index,
)
from release_safety.surfaces.migrations.engines.postgres.hints import (
    sql_of,
    unknown_fact_hint,
    validate_later,
    with_concurrently,
)
from release_safety.surfaces.migrations.engines.postgres.volatility import (
    ENDS_SESSIONS,
    RUNS_SQL,
    WAITS,
    calls,
    function_volatility,
)
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.schema.coltypes import is_utc, parse_type
from release_safety.surfaces.migrations.schema.model import Domain, Function, Index, Table
from release_safety.surfaces.migrations.sql.tokens import (
    Cursor,
    Tok,
    TokenError,
    normalise,
    parse_one,
    split_top,
    tokenize,
    words,
)

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any

    from sqlglot import exp

    from release_safety.surfaces.migrations.sql.simpledata import Reference

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
        "DEALLOCATE",
        "UNLISTEN",
    }
)
_INERT_OBJECTS = frozenset(
    {
        "AGGREGATE",
        "CAST",
        "COLLATION",
        "CONVERSION",
        "EXTENSION",
        "GROUP",
        "LANGUAGE",
        "OPERATOR",
        "PUBLICATION",
        "ROLE",
        "SCHEMA",
        "SERVER",
        "SUBSCRIPTION",
        "TEXT",
        "USER",
        "DEFAULT",
        "EVENT",
        "FOREIGN",
        "ACCESS",
        "TRANSFORM",
        "TABLESPACE",
    }
)
POSTGRES_COMMANDS = frozenset(
    {
        *("ABORT", "ALTER", "ANALYSE", "ANALYZE", "BEGIN", "CALL", "CHECKPOINT", "CLOSE"),
        *("CLUSTER", "COMMENT", "COMMIT", "COPY", "CREATE", "DEALLOCATE", "DECLARE", "DELETE"),
        *("DISCARD", "DO", "DROP", "END", "EXECUTE", "EXPLAIN", "FETCH", "GRANT", "IMPORT"),
        *("INSERT", "LISTEN", "LOAD", "LOCK", "MERGE", "MOVE", "NOTIFY", "PREPARE", "REASSIGN"),
        *("REFRESH", "REINDEX", "RELEASE", "RESET", "REVOKE", "ROLLBACK", "SAVEPOINT"),
        *("SECURITY", "SELECT", "SET", "SHOW", "START", "TABLE", "TRUNCATE", "UNLISTEN"),
        *("UPDATE", "VACUUM", "VALUES", "WITH", "("),
    }
)
"""The words a PostgreSQL statement may start with (its grammar's `stmt`): any other first word
is a syntax error PostgreSQL reports at that word."""
_DROPPED_IN_USE = frozenset(
    {
        *("EXTENSION", "SERVER", "DATABASE", "OWNED", "ROLE", "USER", "GROUP", "CAST"),
        *("OPERATOR", "COLLATION", "AGGREGATE", "LANGUAGE", "TEXT", "CONVERSION", "ACCESS"),
        *("TRANSFORM", "FOREIGN", "ROUTINE"),
    }
)
"""DROP of these takes something old code may use: its login, a cast, operator, collation or
aggregate its queries name, the functions of a language, what a CASCADE reaches. (A
publication, subscription, event trigger, tablespace or statistics object is not old code's.)"""
_SESSION_WIDE = frozenset({"ROLE", "USER", "GROUP", "DATABASE", "SYSTEM"})
"""ALTER of these reaches every session the old code opens: a login refused, a database made
read-only. Not modelled, so unknown, never nothing."""
# accepted in this order, each at most once
_CREATE_MODIFIERS = ("GLOBAL", "LOCAL", "TEMP", "TEMPORARY", "UNLOGGED", "RECURSIVE")
_DATA = frozenset({"UPDATE", "DELETE", "INSERT", "SELECT", "WITH", "VALUES", "TABLE"})
_CATALOG_SCHEMAS = ("pg_catalog.", "information_schema.")


def classify(sql: str, ctx: Context, read: list[Tok] | None = None) -> StatementFacts:
    """Facts of one statement (`read`: its tokens, when the split read them); earlier
    statements' knowledge comes from and goes into `ctx`.

    A statement that cannot be classified is unknown, and the schema forgets what it names
    (or everything, when it may have changed anything)."""
    facts = StatementFacts()
    toks: list[Tok] = []
    try:
        _bounded(sql)
        toks = tokenize(sql) if read is None else read
        if sql.count("(") + sql.count("[") > MAX_BRACKET_NESTING:  # else no bound can be passed
            _nesting(toks)
        _dispatch(sql, toks, facts, ctx)
    except Unclassified as unclassified:
        _forget(ctx, toks, str(unclassified), anything=unclassified.anything)
        return StatementFacts(unknown=str(unclassified), syntax_near=unclassified.near)
    except (TokenError, ValueError, KeyError, IndexError, RecursionError) as error:
        # Text outside the grammar this classifier reads: unknown, never a crash. (Each clause
        # names its exception apart: compiled, one name would keep the first clause's type.)
        reason = _unparsed(error)
        _forget(ctx, toks, reason, anything=not toks)
        return StatementFacts(unknown=reason)
    except Exception as other:  # sqlglot's parse errors, imported lazily
        if not type(other).__module__.startswith("sqlglot"):
            raise
        reason = _unparsed(other)
        _forget(ctx, toks, reason, anything=False)
        return StatementFacts(unknown=reason)
    return facts


def _unparsed(error: Exception) -> str:
    """Why a statement the tokenizer or sqlglot could not read is unknown."""
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"could not parse: {first[:120]}"


def _bounded(sql: str) -> None:
    if len(sql) > MAX_STATEMENT_CHARS:
        raise Unclassified(
            f"a statement of {len(sql):,} characters, more than the {MAX_STATEMENT_CHARS:,} "
            "one may have",
            anything=True,
        )


def _nesting(toks: list[Tok]) -> None:
    depth = brackets = 0
    for tok in toks:
        if tok.kind != "punct":
            continue
        depth += tok.text in ("(", "[")
        depth -= tok.text in (")", "]")
        brackets += (tok.text == "[") - (tok.text == "]")
        if depth > MAX_NESTING:
            raise Unclassified(f"parentheses nested more than {MAX_NESTING} deep", anything=True)
        if brackets > MAX_BRACKET_NESTING:
            raise Unclassified(
                f"square brackets nested more than {MAX_BRACKET_NESTING} deep", anything=True
            )


def _forget(ctx: Context, toks: list[Tok], reason: str, *, anything: bool) -> None:
    if anything:
        ctx.schema.lose_everything(reason)
        return
    names: set[str] = set()
    cur = Cursor(toks)
    while not cur.at_end():
        if cur.toks[cur.i].kind in ("word", "ident"):
            name = cur.name()
            if name is not None:
                names |= {name, name.rsplit(".", 1)[-1]}
        else:
            cur.i += 1
    ctx.schema.taint(names, reason)


def _dispatch(sql: str, toks: list[Tok], facts: StatementFacts, ctx: Context) -> None:
    cur = Cursor(toks)
    first = cur.peek()
    if first in ("BEGIN", "START"):
        facts.transaction = "begin"
    elif first in ("COMMIT", "END", "ROLLBACK", "ABORT"):
        facts.transaction = "commit"
    elif first in ("SET", "RESET"):
        _set(toks, facts, ctx)
    elif first in _INERT or first == "":
        return
    elif first == "ALTER":
        cur.i = 1
        if cur.accept("TABLE"):
            alter_table(cur, facts, ctx)
        else:
            _alter_other(cur, facts, ctx)
    elif first == "CREATE":
        cur.i = 1
        _create(sql, cur, facts, ctx)
    elif first == "DROP":
        cur.i = 1
        _drop(cur, facts, ctx)
    elif first in _DATA:
        _data(sql, toks, facts, ctx)
    elif first == "TRUNCATE":
        cur.i = 1
        cur.skip_optional(("TABLE",), ("ONLY",))
        for table in cur.names():
            facts.touch(table, AEL)
            if not ctx.new_in_release(table):
                facts.issue(
                    RuleId.TRUNCATE_TABLE,
                    f"TRUNCATE {table}",
                    hint=f"Ship a release whose code no longer needs the rows of {table}; "
                    "truncate it in the release after it.",
                )
    elif first == "LOCK":
        cur.i = 1
        _lock(cur, facts)
    elif first == "COMMENT" and cur.accept("COMMENT", "ON"):
        _comment(cur, facts, ctx)
    elif first in ("GRANT", "REVOKE"):
        _grant(cur, facts, revoke=first == "REVOKE")
    elif first == "VACUUM":
        cur.i = 1
        _vacuum(cur, facts, ctx)
    elif first == "CLUSTER":
        cur.i = 1
        cur.accept("VERBOSE")
        clustered = cur.name()
        if clustered is None:
            raise Unclassified("CLUSTER without a table reclusters every table")
        _rewrite(facts, ctx, clustered, "CLUSTER")
    elif first == "REINDEX":
        cur.i = 1
        _reindex(cur, facts, ctx)
    elif first == "REFRESH" and cur.accept("REFRESH", "MATERIALIZED", "VIEW"):
        _refresh(cur, facts, ctx)
    elif first == "DO":
        cur.i = 1
        from release_safety.surfaces.migrations.engines.postgres import plpgsql

        plpgsql.do_block(sql, toks, facts, ctx, classify)
    elif first == "CALL":
        cur.i = 1
        _call(cur.name() or "?", facts, ctx)
    elif first in ("EXECUTE", "PREPARE", "COPY", "MERGE", "IMPORT", "LOAD"):
        raise Unclassified(f"{first} runs code or data the text does not show", anything=True)
    elif first not in POSTGRES_COMMANDS:
        raise Unclassified(f'{SYNTAX_ERROR} "{cur.toks[0].text if cur.toks else first}"')
    else:
        raise Unclassified(f"statement {first or '?'} not recognised")


def _set(toks: list[Tok], facts: StatementFacts, ctx: Context) -> None:
    """SET / RESET: lock_timeout and the session time zone matter."""
    cur = Cursor(toks)
    reset = cur.accept("RESET")
    if not reset:
        cur.accept("SET")
        cur.skip_optional(("SESSION",), ("LOCAL",))
    if cur.accept("TIME", "ZONE"):
        name = "TIMEZONE"
    else:
        name = cur.peek()
        cur.i += 1
        cur.skip_optional(("TO",), ("=",))
    facts.sets_lock_timeout = not reset and name == "LOCK_TIMEOUT"
    value = "" if cur.at_end() else cur.toks[cur.i].text.strip("'").upper()
    if name == "STANDARD_CONFORMING_STRINGS" and value in ("OFF", "FALSE", "0", "NO"):
        raise Unclassified(
            "SET standard_conforming_strings = off: later string literals end where PostgreSQL "
            "reads backslashes as escapes, which the tool does not",
            anything=True,
        )
    if name not in ("TIMEZONE", "ALL"):
        return
    value = "" if cur.at_end() else cur.toks[cur.i].text
    default = reset or value.upper() in ("DEFAULT", "LOCAL", "")
    ctx.utc = ctx.server_utc if default else is_utc(value)


def _rewrite(facts: StatementFacts, ctx: Context, table: str, what: str) -> None:
    new = ctx.new(table)
    facts.touch(table, AEL, rewrites=not new)
    if not new:
        facts.issue(
            RuleId.TABLE_REWRITE,
            f"{what} rewrites {table}",
            hint=f"Run {what} on {table} outside the release's migrations, in a maintenance "
            f"window, or rebuild {table} online (pg_repack).",
        )


def _alter_other(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    kind = cur.peek()
    schema = ctx.schema
    if cur.accept("MATERIALIZED", "VIEW") or cur.accept("VIEW"):
        cur.skip_optional(("IF", "EXISTS"))
        view = cur.name() or "?"
        rest = words(cur.rest())
        facts.touch(view, AEL)
        if rest[:2] == ["RENAME", "TO"]:
            target = normalise([lower(cur.toks[-1].text)]) if cur.toks else "?"
            schema.rename_table(view, target)
            if ctx.new(view):
                facts.touch(target, AEL, created=True)
                ctx.created.add(target)
        if ctx.new_in_release(view):
            return
        later = f"drop {view} a release later, once no pod of the previous release queries it"
        if rest[:2] == ["RENAME", "TO"]:
            target = lower(cur.toks[-1].text) if cur.toks else "?"
            hint = f"CREATE VIEW {target} AS SELECT * FROM {view}; and {later}."
            facts.issue(RuleId.RENAME_VIEW, f"RENAME view {view}", hint=hint)
        elif rest[:1] == ["RENAME"]:
            hint = (
                f"Add the new name as another column of {view} (CREATE OR REPLACE VIEW {view} "
                "... with both), and drop the old column a release later."
            )
            facts.issue(RuleId.RENAME_COLUMN, f"RENAME COLUMN of view {view}", hint=hint)
        elif rest[:2] == ["SET", "SCHEMA"]:
            hint = f"Create the view in the new schema beside {view}, and {later}."
            facts.issue(RuleId.SET_SCHEMA, f"{view} SET SCHEMA", hint=hint)
        elif rest[:2] == ["OWNER", "TO"]:
            owner_changed(facts, f"{kind} {view}", Cursor(cur.toks[-1:]))
    elif cur.accept("TYPE"):
        name = cur.name() or "?"
        rest = words(cur.rest())
        if rest[:2] == ["RENAME", "TO"] and name in schema.enums:
            schema.own_enums().discard(name)
            schema.own_enums().add(lower(cur.toks[-1].text))
        if ctx.new_in_release(name):
            return
        if rest[:2] == ["RENAME", "VALUE"]:
            labels = [t.text for t in cur.toks if t.kind == "string"] + ["?", "?"]
            hint = (
                f"ALTER TYPE {name} ADD VALUE '{labels[1]}'; ship code that writes "
                f"'{labels[1]}', UPDATE the rows from '{labels[0]}', and stop using "
                f"'{labels[0]}' (the previous release still writes it)."
            )
            facts.issue(RuleId.RENAME_ENUM_VALUE, f"RENAME VALUE of type {name}", hint=hint)
        elif rest[:2] == ["RENAME", "TO"]:
            target = lower(cur.toks[-1].text) if cur.toks else "?"
            hint = (
                f"Create type {target} beside {name}, move the columns and code to it over "
                f"releases, and drop {name} once nothing uses it."
            )
            facts.issue(RuleId.RENAME_TYPE, f"RENAME type {name}", hint=hint)
        elif rest[:2] == ["SET", "SCHEMA"]:
            hint = f"Leave type {name} in its schema; create the type in the new one beside it."
            facts.issue(RuleId.SET_SCHEMA, f"type {name} SET SCHEMA", hint=hint)
        elif rest[:2] in (["DROP", "ATTRIBUTE"], ["RENAME", "ATTRIBUTE"]):
            hint = (
                f"Stop using the attribute of {name} in one release; "
                f"{lower(' '.join(rest[:2]))} in the release after it."
            )
            facts.issue(RuleId.DROP_TYPE, f"ALTER TYPE {name} {' '.join(rest[:2])}", hint=hint)
    elif cur.accept("SCHEMA"):
        name = cur.name() or "?"
        rest = words(cur.rest())
        if ctx.new_in_release(name):
            return
        if rest[:2] == ["RENAME", "TO"]:
            hint = (
                f"Keep schema {name}; move its objects to the new schema one by one, each with "
                f"a view under its old name in {name} for a release."
            )
            facts.issue(RuleId.RENAME_SCHEMA, f"RENAME schema {name}", hint=hint)
        elif rest[:2] == ["OWNER", "TO"]:
            owner_changed(facts, f"SCHEMA {name}", Cursor(cur.toks[-1:]))
    elif cur.accept("INDEX"):
        _alter_index(cur, ctx)
    elif cur.accept("DOMAIN"):
        _alter_domain(cur, facts, ctx)
    elif cur.accept("TRIGGER"):
        cur.name()
        if cur.accept("ON"):
            facts.touch(cur.name() or "?", AEL)
    elif cur.accept("FUNCTION") or cur.accept("PROCEDURE") or cur.accept("ROUTINE"):
        function = cur.name() or "?"
        cur.skip_parens()
        after = cur.rest()
        head = words(after)[:2]
        if head == ["RENAME", "TO"] and function in schema.functions:
            schema.own_functions()[lower(after[-1].text)] = schema.own_functions().pop(function)
        if ctx.new_in_release(function):
            return
        if head == ["RENAME", "TO"]:
            _dropped_object(facts, ctx, f"{kind} {function} (renamed)", function)
        elif head == ["SET", "SCHEMA"]:
            hint = (
                f"Leave {lower(kind)} {function} in its schema; create it in the new schema "
                "beside it, and drop the old one once no released code calls it."
            )
            facts.issue(RuleId.SET_SCHEMA, f"{kind} {function} SET SCHEMA", hint=hint)
        elif head == ["OWNER", "TO"]:
            owner_changed(facts, f"{kind} {function}", Cursor(after[-1:]))
    elif cur.accept("SEQUENCE"):
        _alter_sequence(cur, facts, ctx)
    elif cur.accept("POLICY"):
        name = cur.name() or "?"
        table = cur.name() if cur.accept("ON") else None
        if table is None:
            return
        facts.touch(table, AEL)
        if ctx.new_in_release(_on_table("POLICY", name, table)):
            return
        if words(cur.rest())[:1] != ["RENAME"]:
            _policy_changed(facts, ctx, table, f"ALTER POLICY {name} ON {table}")
    elif kind in _SESSION_WIDE:
        raise Unclassified(
            f"ALTER {kind} changes what every session of the running code may do (logins, "
            "settings such as default_transaction_read_only); not modelled"
        )
    elif kind in _INERT_OBJECTS or kind in ("STATISTICS", "TYPE"):
        cur.rest()
    else:
        raise Unclassified(f"ALTER {kind or '?'} not recognised")


_SEQUENCE_BREAKS = frozenset({"RESTART", "MAXVALUE", "MINVALUE", "AS", "RENAME"})
"""ALTER SEQUENCE clauses that make old code's nextval() fail, or return ids it already holds."""


def _alter_sequence(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    cur.skip_optional(("IF", "EXISTS"))
    name = cur.name() or "?"
    rest = cur.rest()
    head = words(rest)
    if ctx.new_in_release(name):
        return
    if head[:2] == ["SET", "SCHEMA"]:
        hint = (
            f"Leave sequence {name} in its schema: the previous release calls nextval('{name}') "
            "by that name until its last pod is gone."
        )
        facts.issue(RuleId.SET_SCHEMA, f"SEQUENCE {name} SET SCHEMA", hint=hint)
    elif head[:2] == ["OWNER", "TO"]:
        owner_changed(facts, f"SEQUENCE {name}", Cursor(rest[-1:]))
    elif head[:2] == ["OWNED", "BY"] and head[2:3] != ["NONE"]:
        owner = normalise([lower(t.text) for t in rest[2:-1] if t.kind in ("word", "ident")])
        facts.touch(owner, Lock.ACCESS_SHARE)
    elif any(word in _SEQUENCE_BREAKS for word in head):
        clause = next(word for word in head if word in _SEQUENCE_BREAKS)
        facts.issue(
            RuleId.ALTER_SEQUENCE,
            f"ALTER SEQUENCE {name} {' '.join(head[head.index(clause) :][:3])}",
            hint=f"Leave {name} as old code draws from it: restart it above every id it gave "
            "(RESTART WITH a value past max(id)), keep its name and bounds until no released "
            "code uses them.",
        )


def _policy_changed(facts: StatementFacts, ctx: Context, table: str, what: str) -> None:
    """A policy of a table old code uses changed: the rows its role sees or may write change."""
    facts.touch(table, AEL)
    if ctx.new_in_release(table):
        return
    facts.issue(
        RuleId.ROW_POLICY_CHANGED,
        f"{what}: the rows old code's role sees and may write on {table} change",
        hint=f"Check that every role the previous release connects as still sees and writes "
        f"the rows it needs on {table}, and acknowledge the finding with that reason.",
    )


def _alter_index(cur: Cursor, ctx: Context) -> None:
    """ALTER INDEX: RENAME and settings lock the index, not its table."""
    cur.skip_optional(("IF", "EXISTS"))
    index = cur.name() or "?"
    rest = words(cur.rest())
    if rest[:1] not in (["RENAME"], ["SET"], ["RESET"], ["ALTER"], ["ATTACH"]):
        raise Unclassified("ALTER INDEX action not recognised")
    if rest[:2] == ["RENAME", "TO"] and index in ctx.schema.indexes:
        renamed = ctx.schema.pop_index(index)
        assert renamed is not None
        ctx.schema.put_index(lower(cur.toks[-1].text), renamed)


def _alter_domain(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    """ALTER DOMAIN: adding NOT NULL or a CHECK validates every column of the domain, each of
    its tables read under SHARE (writes wait); VALIDATE CONSTRAINT does the same."""
    schema = ctx.schema
    name = cur.name() or "?"
    rest = cur.rest()
    head = words(rest)
    domain = schema.domains.get(name)
    checks = not (head[:2] == ["SET", "NOT"] or head[:1] in (["ADD"], ["VALIDATE"]))
    if checks:
        if domain is not None and head[:2] == ["DROP", "NOT"]:
            schema.own_domains()[name] = Domain(domain.base, False, domain.checks)
        elif domain is not None and head[:2] == ["DROP", "CONSTRAINT"]:
            dropped = Cursor(rest[2:])
            dropped.skip_optional(("IF", "EXISTS"))
            gone = dropped.name() or ""
            schema.own_domains()[name] = Domain(
                domain.base, domain.not_null, domain.checks - {gone}
            )
        return
    not_valid = head[-2:] == ["NOT", "VALID"]
    constraint = parse_constraint(rest[1:]) if head[:1] == ["ADD"] else None
    nulls = head[:2] == ["SET", "NOT"] or (
        constraint is not None and [t.up for t in constraint.check[1:]] == ["IS", "NOT", "NULL"]
    )
    tables = schema.tables_with_domain(name)
    what = f"ALTER DOMAIN {name} {' '.join(head[:3])}"
    if tables is None:
        if not not_valid:
            facts.touch("?", Lock.SHARE, maybe_scans=True)
        reason = schema.doubt(name) or "the tables using the domain are not all known"
        facts.issue(
            RuleId.SCHEMA_FACT_UNKNOWN,
            f"which tables {what} checks: {reason}",
            hint=unknown_fact_hint(f"the tables using domain {name}", reason),
        )
    for table in tables or []:
        if not not_valid:
            facts.touch(table, Lock.SHARE, scans=not ctx.new(table))
        if ctx.new_in_release(table):
            continue
        check = f"{name}_not_null"
        if nulls:
            hint = (
                f"Ship code that never leaves the {name} columns of {table} NULL; then "
                + validate_later(name, check, "CHECK (VALUE IS NOT NULL)", "DOMAIN")
            )
            facts.issue(
                RuleId.SET_NOT_NULL, f"{what}: old code writing NULL to {table} fails", hint=hint
            )
        elif head[:1] == ["ADD"] and not not_valid and constraint is not None:
            named = constraint.name or f"{name}_check"
            hint = validate_later(name, named, sql_of(constraint.body), "DOMAIN")
            facts.issue(
                RuleId.ADD_CONSTRAINT_VALIDATING,
                f"{what} validates every row of {table}",
                hint=hint,
            )
    if domain is not None:
        added = frozenset({constraint.name or f"{name}_check"}) if constraint else frozenset()
        not_null = domain.not_null or head[:2] == ["SET", "NOT"]
        schema.own_domains()[name] = Domain(domain.base, not_null, domain.checks | added)


def _create(sql: str, cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    cur.skip_optional(("OR", "REPLACE"))
    replace = cur.i > 0 and cur.toks[cur.i - 1].up == "REPLACE"
    if cur.peek() in _CREATE_MODIFIERS:
        for modifier in _CREATE_MODIFIERS:
            cur.accept(modifier)
    kind = cur.peek()
    schema = ctx.schema
    unique = cur.accept("UNIQUE", "INDEX")
    if unique or cur.accept("INDEX"):
        _create_index(sql, cur, facts, ctx, unique=unique)
    elif cur.accept("TABLE"):
        _create_table(sql, cur, facts, ctx)
    elif cur.accept("MATERIALIZED", "VIEW") or cur.accept("VIEW"):
        materialized = kind == "MATERIALIZED"
        cur.skip_optional(("IF", "NOT", "EXISTS"))
        view = cur.name() or "?"
        with_data = words(cur.toks[-3:])[-3:] != ["WITH", "NO", "DATA"]
        scans = materialized and with_data
        for table in _query_tables(sql, cur.toks, ctx):
            if table != view:
                facts.touch(table, Lock.ACCESS_SHARE, scans=scans and not ctx.new(table))
        if replace and view in schema.tables:
            facts.touch(view, AEL)
            return
        facts.touch(view, AEL, created=True)
        ctx.created.add(view)
        schema.add_table(view, Table("matview" if materialized else "view", complete=False))
    elif cur.accept("TRIGGER") or cur.accept("CONSTRAINT", "TRIGGER"):
        _create_trigger(cur.rest(), facts, ctx)
    elif cur.accept("POLICY"):
        rest = cur.rest()
        at = next((k for k, t in enumerate(rest) if t.up == "ON"), None)
        if at is not None:
            table = Cursor(rest[at + 1 :]).name() or "?"
            policy = Cursor(rest[:1]).name() or "?"
            if "RESTRICTIVE" in words(rest):
                _policy_changed(facts, ctx, table, f"CREATE POLICY {policy} AS RESTRICTIVE")
            facts.touch(table, AEL)
            ctx.created.add(_on_table("POLICY", policy, table))
    elif cur.accept("RULE"):  # CREATE RULE name AS ON event TO table ... DO [ALSO|INSTEAD]
        rest = cur.rest()
        at = next((k for k, t in enumerate(rest) if t.up == "TO"), None)
        table = Cursor(rest[at + 1 :]).name() or "?" if at is not None else "?"
        facts.touch(table, AEL)
        if "INSTEAD" in words(rest):
            raise Unclassified(
                f"a rule DO INSTEAD on {table} replaces what the running code's statements do"
            )
    elif cur.accept("STATISTICS"):
        rest = cur.rest()
        at = next((k for k, t in enumerate(rest) if t.up == "FROM"), None)
        if at is not None:
            facts.touch(Cursor(rest[at + 1 :]).name() or "?", SUE)
    elif cur.accept("TYPE"):
        name = cur.name()
        if name is not None:
            ctx.created.add(name)
            schema.known_again(name)
            if words(cur.rest())[:2] == ["AS", "ENUM"]:
                schema.own_enums().add(name)
    elif cur.accept("DOMAIN"):
        _create_domain(cur, ctx)
    elif cur.accept("SEQUENCE"):
        cur.skip_optional(("IF", "NOT", "EXISTS"))
        name = cur.name()
        if name is not None:
            schema.own_sequences().add(name)
            ctx.created.add(name)
    elif cur.accept("FUNCTION") or cur.accept("PROCEDURE"):
        start = cur.i
        named = cur.name() or ""
        cur.i = start
        replaces = replace and schema.function(named) is not None and not ctx.new_in_release(named)
        created = _create_function(cur, ctx)
        if not replace:  # OR REPLACE may replace the previous release's function
            ctx.created.add(created)
        body = schema.functions[created].body
        trigger = ("RETURNS", "TRIGGER") in pairwise(words(cur.toks))
        refuses = _refuses(body, before=True) if replaces and trigger and body else None
        if refuses is not None:
            facts.issue(
                RuleId.TRIGGER_REFUSES_WRITES,
                f"trigger function {created}() replaced by one that {refuses}: the triggers of "
                "the previous release that run it may refuse its writes",
                hint=f"Replace {created}() in the release after the one whose code meets what "
                "it now demands, or acknowledge it with why no released code writes what it "
                "refuses.",
            )
    elif cur.accept("SCHEMA"):
        cur.skip_optional(("IF", "NOT", "EXISTS"))
        name = cur.name()
        if name is not None and name not in schema.tables:
            ctx.created.add(name)
    elif kind in _INERT_OBJECTS or kind == "DATABASE":
        cur.rest()
    else:
        raise Unclassified(f"CREATE {kind or '?'} not recognised")


def _create_trigger(rest: list[Tok], facts: StatementFacts, ctx: Context) -> None:
    """CREATE TRIGGER on a table old code writes: its function may refuse old code's writes
    (an exception raised, a BEFORE row trigger returning NULL), judged from the body the
    migrations gave it; a body they do not show is unknown."""
    at = next((k for k, t in enumerate(rest) if t.up == "ON"), None)
    if at is None:
        raise Unclassified("CREATE TRIGGER without ON table")
    name = Cursor(rest[:1]).name() or "?"
    table = Cursor(rest[at + 1 :]).name() or "?"
    facts.touch(table, SRE)
    ctx.created.add(_on_table("TRIGGER", name, table))
    run = next((k for k, t in enumerate(rest) if t.up == "EXECUTE"), len(rest))
    function = Cursor(rest[run + 2 :]).name() or "?"
    if ctx.new_in_release(table):
        return
    events = " or ".join(t.text for t in rest[:at] if t.up in ("INSERT", "UPDATE", "DELETE"))
    known = ctx.schema.function(function)
    if known is None or known.body is None:
        why = "its function is not created by the migrations with a constant body"
        facts.issue(
            RuleId.SCHEMA_FACT_UNKNOWN,
            f"what trigger {name} does to old code's writes on {table}: {why} ({function})",
            hint=f"Review that {function}() neither raises nor skips the previous release's "
            f"{events or 'writes'} on {table}, and acknowledge the finding with that reason.",
        )
        return
    refuses = _refuses(known.body, before=words(rest[1:2]) == ["BEFORE"])
    if refuses is not None:
        facts.issue(
            RuleId.TRIGGER_REFUSES_WRITES,
            f"trigger {name} on {table} runs {function}(), which {refuses}: the previous "
            f"release's {events or 'writes'} on {table} may be refused",
            hint=f"Create trigger {name} in the release after the one whose code meets what "
            f"{function}() demands of {table}, or acknowledge it with why no released code "
            "writes what it refuses.",
        )


def _on_table(kind: str, name: str, table: str) -> str:
    """How a trigger or a policy is known among what the release created (they are named per
    table)."""
    return f"{kind} {name} on {table}"


_RAISE_QUIET = frozenset({"DEBUG", "LOG", "INFO", "NOTICE", "WARNING"})
"""RAISE levels that do not abort the statement."""


def _refuses(body: str, *, before: bool) -> str | None:
    """What in a trigger function's body refuses the write that fired it: an exception raised
    (RAISE at the default level, EXCEPTION, or a re-raise), or, for a BEFORE trigger, RETURN
    NULL (the row is skipped); None when it holds neither."""
    try:
        toks = tokenize(body)
    except TokenError:
        return "runs a body the tool cannot read"
    for tok, after in pairwise(toks):
        if tok.up == "RAISE" and after.up not in _RAISE_QUIET:
            return "raises an exception"
        if before and tok.up == "RETURN" and after.up == "NULL":
            return "returns NULL (the row is skipped)"
    return None


def _create_domain(cur: Cursor, ctx: Context) -> None:
    name = cur.name()
    if name is None:
        raise Unclassified("CREATE DOMAIN without a name")
    cur.accept("AS")
    rest = cur.rest()
    stops = ("CONSTRAINT", "NOT", "NULL", "CHECK", "DEFAULT", "COLLATE")
    at = next((k for k, t in enumerate(rest) if t.up in stops), len(rest))
    head = words(rest[at:])
    checks = frozenset(
        f"{name}_check{k or ''}" for k, word in enumerate(w for w in head if w == "CHECK")
    )
    not_null = any(pair == ("NOT", "NULL") for pair in pairwise(head))
    ctx.schema.own_domains()[name] = Domain(parse_type(rest[:at]), not_null, checks)
    ctx.schema.known_again(name)
    ctx.created.add(name)


def _create_function(cur: Cursor, ctx: Context) -> str:
    """Remember a function's body and volatility: a call to it is classified from its body.
    Returns its name."""
    name = cur.name()
    if name is None:
        raise Unclassified("CREATE FUNCTION without a name")
    cur.skip_parens()
    rest = cur.rest()
    up = words(rest)
    language = next((lower(b) for a, b in pairwise(up) if a == "LANGUAGE"), "sql")
    volatility = "i" if "IMMUTABLE" in up else "s" if "STABLE" in up else "v"
    as_at = next((k for k, t in enumerate(rest) if t.up == "AS"), None)
    body = None
    if as_at is not None and as_at + 1 < len(rest) and rest[as_at + 1].kind == "string":
        body = rest[as_at + 1].text
    ctx.schema.own_functions()[name] = Function(body, language, volatility)
    ctx.schema.known_again(name)
    return name


def _index_columns(toks: list[Tok]) -> tuple[str, ...]:
    """The plain columns of an index's element list (expressions left out)."""
    out: list[str] = []
    for element in split_top(toks):
        if element[0].kind in ("word", "ident") and (
            len(element) == 1 or element[1].kind == "word"
        ):
            name = Cursor(element[:1]).name()
            if name is not None:
                out.append(name)
    return tuple(out)


def _create_index(
    sql: str, cur: Cursor, facts: StatementFacts, ctx: Context, *, unique: bool
) -> None:
    try:
        check_index(cur.toks[cur.i :])
    except ColumnSyntax as refused:
        raise Unclassified(SYNTAX_ERROR, near=refused.near) from None
    concurrently = cur.accept("CONCURRENTLY")
    exists = cur.accept("IF", "NOT", "EXISTS")
    index = None if cur.peek() == "ON" else cur.name()
    if not cur.accept("ON"):
        raise Unclassified("CREATE INDEX without ON table")
    only = cur.accept("ONLY")
    table = cur.name()
    if table is None:
        raise Unclassified("CREATE INDEX without a table name")
    if exists and index is not None and ctx.schema.index_table(index) is not None:
        return
    if cur.accept("USING"):
        cur.i += 1
    columns = _index_columns(cur.skip_parens())
    name = index or f"{table.rsplit('.', 1)[-1]}_{'_'.join(columns) or 'expr'}_idx"
    ctx.schema.put_index(name, Index(table, columns, unique=unique))
    ctx.schema.known_again(name)
    new = ctx.new(table)
    facts.outside_transaction |= concurrently
    builds = not new and not only
    facts.touch(table, SUE if concurrently else Lock.SHARE, scans=builds)
    if builds and not concurrently:
        facts.issue(
            RuleId.CREATE_INDEX_NON_CONCURRENTLY,
            f"CREATE INDEX on {table}",
            hint=f"{with_concurrently(sql, 'INDEX')} -- in a migration of its own, outside a "
            "transaction",
        )


def _create_table(sql: str, cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    schema = ctx.schema
    exists = cur.accept("IF", "NOT", "EXISTS")
    table = cur.name()
    if table is None:
        raise Unclassified("CREATE TABLE without a name")
    if exists and schema.table(table) is not None:
        return
    facts.touch(table, AEL, created=True)
    ctx.created.add(table)
    created = Table()
    schema.add_table(table, created)
    alter = Alter(table, facts, ctx)
    if cur.accept("PARTITION", "OF"):
        _partition_of(cur, table, created, alter)
        return
    if cur.accept("OF"):
        created.complete = False
    if cur.peek() == "(":
        for element in split_top(cur.skip_parens()):
            head = element[0].up
            if head in ("CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "EXCLUDE"):
                add_constraint(parse_constraint(element), alter)
            elif head == "LIKE":
                source = Cursor(element[1:]).name() or "?"
                facts.touch(source, Lock.ACCESS_SHARE)
                like = schema.table(source)
                if like is None or not like.complete:
                    created.complete = False
                else:
                    created.columns.update(like.columns)
            else:
                add_column(parse_column(element), alter)
    rest = words(cur.rest())
    if "PARTITION" in rest:
        created.kind = "partitioned"
    if "AS" in rest:
        created.complete = False
        with_data = rest[-3:] != ["WITH", "NO", "DATA"]
        for source in _query_tables(sql, cur.toks, ctx):
            if source != table:
                facts.touch(source, Lock.ACCESS_SHARE, scans=with_data and not ctx.new(source))
    if "INHERITS" in rest:
        at = next(k for k, t in enumerate(cur.toks) if t.up == "INHERITS")
        for parent in Cursor(Cursor(cur.toks[at + 1 :]).skip_parens()).names():
            facts.touch(parent, SUE)
            created.complete = False


def _partition_of(cur: Cursor, table: str, created: Table, alter: Alter) -> None:
    """CREATE TABLE ... PARTITION OF: ACCESS EXCLUSIVE on the parent, and the parent's
    default partition, if any, locked and read for rows that belong to the new one (reported
    as the parent: the text does not name it)."""
    facts, schema = alter.facts, alter.ctx.schema
    parent = cur.name() or "?"
    facts.touch(parent, AEL)
    rest = cur.rest()
    head = words(rest)
    known = schema.table(parent)
    created.parent = parent
    created.default_partition = head[:1] == ["DEFAULT"]
    if known is None or not known.complete:
        created.complete = False
    else:
        created.columns.update(known.columns)
    if "PARTITION" in head[1:] and "BY" in head:
        created.kind = "partitioned"
    if created.default_partition:
        return
    default = next(
        (n for n in schema.partitions(parent) if schema.tables[n].default_partition), None
    )
    if default is not None:
        facts.touch(parent, AEL, scans=not alter.ctx.new(default))


def _drop(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    kind = cur.peek()
    schema = ctx.schema
    if cur.accept("MATERIALIZED", "VIEW") or cur.accept("VIEW") or cur.accept("TABLE"):
        if_exists = cur.accept("IF", "EXISTS")
        rule = RuleId.DROP_TABLE if kind == "TABLE" else RuleId.DROP_VIEW
        for name in cur.names():
            facts.touch(name, AEL, dropped=True)
            if not ctx.new_in_release(name) and not (if_exists and ctx.never_existed(name)):
                facts.issue(
                    rule,
                    f"DROP {kind} {name}",
                    hint=f"Ship a release whose code no longer uses {name}; drop it in the "
                    "release after it.",
                )
            ctx.created.discard(name)
            for part in schema.partitions(name):
                schema.drop_table(part)
            schema.drop_table(name)
    elif cur.accept("INDEX"):
        concurrently = cur.accept("CONCURRENTLY")
        cur.skip_optional(("IF", "EXISTS"))
        facts.outside_transaction |= concurrently
        for index in cur.names():
            table = schema.index_table(index)
            if table is not None:
                facts.touch(table, SUE if concurrently else AEL)
            elif not concurrently:
                facts.unnamed_lock = AEL
            schema.pop_index(index)
    elif cur.accept("TYPE") or cur.accept("DOMAIN"):
        cur.skip_optional(("IF", "EXISTS"))
        for name in cur.names():
            if not ctx.new_in_release(name):
                hint = (
                    f"Ship a release whose code no longer uses {name}; drop it in the release "
                    "after it."
                )
                facts.issue(RuleId.DROP_TYPE, f"DROP {kind} {name}", hint=hint)
            schema.own_domains().pop(name, None)
            schema.own_enums().discard(name)
    elif cur.accept("SCHEMA"):
        cur.skip_optional(("IF", "EXISTS"))
        old = [name for name in cur.names() if not ctx.new_in_release(name)]
        if old:
            hint = (
                f"Empty {', '.join(old)} over releases (each object first unused, then "
                "dropped); drop the schema once nothing is left in it."
            )
            facts.issue(RuleId.DROP_SCHEMA, f"DROP SCHEMA {', '.join(old)}", hint=hint)
    elif cur.accept("TRIGGER") or cur.accept("POLICY") or cur.accept("RULE"):
        cur.skip_optional(("IF", "EXISTS"))
        name = cur.name() or "?"
        table = cur.name() if cur.accept("ON") else None
        if table is None:
            return
        facts.touch(table, AEL)
        if kind == "POLICY" and not ctx.new_in_release(_on_table(kind, name, table)):
            _policy_changed(facts, ctx, table, f"DROP POLICY {name} ON {table}")
        elif kind == "TRIGGER" and not ctx.new_in_release(_on_table(kind, name, table)):
            facts.issue(
                RuleId.TRIGGER_DISABLED,
                f"DROP TRIGGER {name} ON {table}: what it does for old code's writes stops",
                hint=f"Keep trigger {name} on {table} until no released code relies on it, or "
                "acknowledge the finding with why none does.",
            )
    elif cur.accept("SEQUENCE"):
        cur.skip_optional(("IF", "EXISTS"))
        for name in cur.names():
            _dropped_object(facts, ctx, "SEQUENCE", name)
            schema.own_sequences().discard(name)
    elif cur.accept("FUNCTION") or cur.accept("PROCEDURE"):
        cur.skip_optional(("IF", "EXISTS"))
        name = cur.name() or "?"
        _dropped_object(facts, ctx, kind, name)
        schema.own_functions().pop(name, None)
    elif cur.accept("FOREIGN", "TABLE"):
        cur.skip_optional(("IF", "EXISTS"))
        for name in cur.names():
            facts.touch(name, AEL, dropped=True)
            _dropped_object(facts, ctx, "FOREIGN TABLE", name)
            schema.drop_table(name)
    elif kind in _DROPPED_IN_USE:
        cur.i += 1
        named = []
        while cur.peek() in ("SEARCH", "DATA", "WRAPPER", "METHOD", "CLASS", "FAMILY", "BY"):
            named.append(cur.peek())
            cur.i += 1
        cur.skip_optional(("IF", "EXISTS"))
        what = " ".join(t.text for t in cur.rest()[:8])
        _dropped_object(facts, ctx, " ".join([kind, *named]), what)
    elif kind in _INERT_OBJECTS or kind == "STATISTICS":
        cur.rest()
    else:
        raise Unclassified(f"DROP {kind or '?'} not recognised")


def _dropped_object(facts: StatementFacts, ctx: Context, kind: str, name: str) -> None:
    """DROP of something old code may use, unless this release created it."""
    if not ctx.new_in_release(name):
        facts.issue(
            RuleId.DROP_OBJECT,
            f"DROP {kind} {name}",
            hint=f"Ship a release whose code no longer uses {name}; drop it in the release "
            "after that.",
        )


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
    facts.explicit_lock = True
    for table in tables:
        facts.touch(table, mode)


def _comment(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    if cur.accept("TABLE") or cur.accept("MATERIALIZED", "VIEW") or cur.accept("VIEW"):
        facts.touch(cur.name() or "?", SUE)
    elif cur.accept("COLUMN"):
        parts: list[str] = []
        while not cur.at_end() and (tok := cur.toks[cur.i]).kind in ("word", "ident"):
            parts.append(tok.text if tok.kind == "ident" else lower(tok.text))
            cur.i += 1
            if not cur.accept("."):
                break
        if len(parts) < 2:
            raise Unclassified("COMMENT ON COLUMN without table.column")
        facts.touch(normalise(parts[:-1]), SUE)
    elif cur.accept("INDEX"):
        table = ctx.schema.index_table(cur.name() or "")
        if table is not None:
            facts.touch(table, Lock.ACCESS_SHARE)


def _grant(cur: Cursor, facts: StatementFacts, revoke: bool) -> None:
    rest = cur.rest()
    if revoke:
        hint = (
            "Ship the code that no longer needs the privilege first; run "
            f"{sql_of(rest)}; a release later."
        )
        facts.issue(RuleId.REVOKE_PRIVILEGES, " ".join(t.text for t in rest[:12]), hint=hint)


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
    table = name if kind == "TABLE" else ctx.schema.index_table(name) if kind == "INDEX" else None
    if table is None:
        why = "its table is not known" if kind == "INDEX" else "the tables it locks are not named"
        raise Unclassified(f"REINDEX {kind} {name}: {why}")
    facts.outside_transaction |= concurrently
    new = ctx.new(table)
    facts.touch(table, SUE if concurrently else Lock.SHARE, scans=not new)
    if not concurrently and not new:
        hint = f"REINDEX {kind} CONCURRENTLY {name}; -- outside a transaction (PostgreSQL 12+)"
        facts.issue(RuleId.REINDEX_NON_CONCURRENTLY, f"REINDEX {kind} {name}", hint=hint)


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
    hint = (
        f"REFRESH MATERIALIZED VIEW CONCURRENTLY {view}; from a job after the rollout, not in "
        f"the migration (CONCURRENTLY needs a unique index on {view})."
    )
    facts.issue(RuleId.REFRESH_MATERIALIZED_VIEW, f"REFRESH MATERIALIZED VIEW {view}", hint=hint)


def _call(name: str, facts: StatementFacts, ctx: Context) -> None:
    """CALL or a function call in a data statement: classified from the body the migrations
    gave the function, unknown otherwise."""
    function = ctx.schema.function(name)
    if function is None or function.body is None:
        raise Unclassified(f"calls {name}(), whose effects are not visible", anything=True)
    from release_safety.surfaces.migrations.engines.postgres import plpgsql

    plpgsql.function_body(function, facts, ctx, classify)


def _relation(ctx: Context, name: str) -> bool:
    """A name in FROM that is a user table (not a catalog relation or a known sequence)."""
    folded = lower(name)
    if folded.startswith(_CATALOG_SCHEMAS) or folded.startswith("pg_"):
        return False
    return name not in ctx.schema.sequences


def _table_name(table: exp.Table) -> str:
    from sqlglot import exp

    parts = [
        part.this if part.quoted else lower(part.this)
        for part in (table.args.get("db"), table.this)
        if isinstance(part, exp.Identifier)
    ]
    return normalise(parts)


def _query_tables(sql: str, toks: list[Tok], ctx: Context) -> list[str]:
    """Tables read by the query after the first `AS` of a CREATE ... AS (CTEs left out); none
    on a replay, which keeps no facts of the statement and reads no data statement (`_data`):
    the schema it leaves does not depend on the tables a query reads."""
    if ctx.replay:
        return []

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
    out: list[str] = []
    from release_safety.surfaces.migrations.sql.simpledata import references

    refs = references(sql, toks[start:end])
    for ref in (
        _references(sql[toks[start].start : toks[end - 1].end + 1]) if refs is None else refs
    ):
        if ref.table not in out and _relation(ctx, ref.table):
            out.append(ref.table)
    return out


def _data(sql: str, toks: list[Tok], facts: StatementFacts, ctx: Context) -> None:
    """A data statement: the tables it reads and writes, whether it reads or changes every row
    of one; a call of a function the migrations created is classified from its body."""
    called = calls(toks)
    if ctx.replay:
        for name in called:
            if ctx.schema.functions.get(name) is not None:
                _call(name, facts, ctx)
        return
    inserted = _plain_insert(toks)
    if inserted is not None:
        if _relation(ctx, inserted):
            facts.touch(inserted, Lock.ROW_EXCLUSIVE)
        return
    from release_safety.surfaces.migrations.sql.simpledata import references

    refs = references(sql, toks)
    if refs is None:
        refs = _references(sql)
    for name in called:
        if name in RUNS_SQL:
            raise Unclassified(
                f"calls {name}(), which runs SQL the text does not show", anything=True
            )
        if name in ENDS_SESSIONS:
            ends = "cancels the queries" if name == "pg_cancel_backend" else "ends the sessions"
            facts.issue(
                RuleId.TERMINATE_SESSIONS,
                f"{name}() {ends} it selects: the previous release's among them",
                hint=f"Remove the {name}() call: let lock_timeout fail the migration when old "
                "code holds a conflicting lock, and retry it.",
            )
        facts.waits |= name in WAITS
        if (
            ctx.schema.functions.get(name) is not None
            or function_volatility(name, ctx.schema) == "unknown"
        ):
            _call(name, facts, ctx)
    for ref in refs:
        if not _relation(ctx, ref.table):
            continue
        new = ctx.new(ref.table)
        keyed = ref.pinned is not None and any(key <= ref.pinned for key in _keys(ctx, ref.table))
        if ref.write is None:
            facts.touch(ref.table, Lock.ACCESS_SHARE, scans=not new and not keyed)
            continue
        every_row = ref.write != "INSERT" and ref.pinned is None and not new
        facts.touch(
            ref.table,
            Lock.ROW_EXCLUSIVE,
            scans=ref.write != "INSERT" and not new and not keyed,
            full_change=every_row,
        )
        if every_row:
            hint = (
                f"Run the {ref.write} of {ref.table} in batches of rows (a key range per "
                "transaction) from a job after the rollout, not in the schema migration."
            )
            facts.issue(
                RuleId.FULL_TABLE_DATA_CHANGE, f"{ref.write} of every row of {ref.table}", hint=hint
            )


def _references(sql: str) -> list[Reference]:
    """The tables of a data statement (CTEs left out) from sqlglot's syntax tree, in its
    order. Raises Unclassified for a statement sqlglot keeps as a command."""
    from sqlglot import exp

    from release_safety.surfaces.migrations.sql.simpledata import Reference

    tree = parse_one(sql)
    if isinstance(tree, exp.Command):
        raise Unclassified("data statement not parsed")
    ctes = {lower(cte.alias_or_name) for cte in tree.find_all(exp.CTE)}
    writes = dict(_writes(tree))
    out: list[Reference] = []
    for table in tree.find_all(exp.Table):
        name = _table_name(table)
        if not name or lower(name) in ctes:
            continue
        write = writes.get(id(table))
        out.append(Reference(name, *write) if write else Reference(name, None, _read(table)))
    return out


def _writes(tree: exp.Expr) -> list[tuple[int, tuple[str, frozenset[str] | None]]]:
    """The table node each INSERT, UPDATE and DELETE of the statement (CTEs included) writes,
    with the statement's kind and the columns its WHERE pins (None without a WHERE)."""
    from sqlglot import exp

    out: list[tuple[int, tuple[str, frozenset[str] | None]]] = []
    for node in tree.find_all(exp.Update, exp.Delete, exp.Insert):
        target = node.this.this if isinstance(node.this, exp.Schema) else node.this
        if not isinstance(target, exp.Table):
            continue
        where = node.args.get("where")
        pinned = _pinned(where.this) if where is not None else None
        out.append((id(target), (type(node).__name__.upper(), pinned)))
    return out


_CONSTANT_WORDS = frozenset({"NULL", "TRUE", "FALSE", "DEFAULT"})
_CONSTANT_PUNCT = frozenset({"(", ")", ",", "-", "+", "::", "[", "]", "."})


def _plain_insert(toks: list[Tok]) -> str | None:
    """The table of `INSERT INTO t [(columns)] VALUES (constants), ...` (seed data, read
    without a parse), or None for any other statement."""
    cur = Cursor(toks)
    if not cur.accept("INSERT", "INTO"):
        return None
    table = cur.name()
    if table is None or (cur.peek() == "(" and not Cursor(cur.skip_parens()).names()):
        return None
    if not cur.accept("VALUES"):
        return None
    cast = False
    for tok in toks[cur.i :]:
        constant = (
            tok.kind in ("string", "number")
            or (tok.kind == "punct" and tok.text in _CONSTANT_PUNCT)
            or (tok.kind == "word" and (tok.up in _CONSTANT_WORDS or cast))
        )
        if not constant:
            return None
        cast = tok.text == "::"
    return table


def _keys(ctx: Context, table: str) -> tuple[frozenset[str], ...]:
    """The column sets a unique index of the table covers: a WHERE pinning every column of
    one of them reads one row. A table the schema does not know is taken to have its key on
    `id`. A non-unique index proves nothing: its value may match every row."""
    if ctx.schema.table(table) is None:
        return (frozenset({"id"}),)
    return tuple(
        frozenset(i.columns) for i in ctx.schema.indexes_of(table) if i.unique and i.columns
    )


def _read(table: exp.Table) -> frozenset[str] | None:
    """The columns the WHERE pins when the table is the only one of its SELECT (a keyed read
    when they cover a unique key), else None."""
    from sqlglot import exp

    select = table.find_ancestor(exp.Select)
    if select is None or select.args.get("joins"):
        return None
    source = select.args.get("from_")
    where = select.args.get("where")
    if source is None or source.this is not table or where is None:
        return None
    return _pinned(where.this)


def _pinned(where: Any) -> frozenset[str]:
    """The columns the conjuncts of a WHERE set to literals."""
    from sqlglot import exp

    if isinstance(where, exp.And):
        return _pinned(where.this) | _pinned(where.expression)
    if isinstance(where, exp.Paren):
        return _pinned(where.this)
    column = where.this if isinstance(where, (exp.EQ, exp.In)) else None
    if not isinstance(column, exp.Column):
        return frozenset()
    if isinstance(where, exp.EQ):
        literal = _literal(where.expression)
    else:
        literal = bool(where.expressions) and all(_literal(e) for e in where.expressions)
    return frozenset({lower(column.name)}) if literal else frozenset()


def _literal(value: Any) -> bool:
    from sqlglot import exp

    return isinstance(value, exp.Literal) or (
        isinstance(value, exp.Neg) and isinstance(value.this, exp.Literal)
    )
