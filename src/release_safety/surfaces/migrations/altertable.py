"""ALTER TABLE: every action's lock, rewrite, scan and compatibility, read from tokens."""

from __future__ import annotations

from itertools import pairwise

from release_safety.surfaces.migrations.context import Context
from release_safety.surfaces.migrations.facts import Lock, StatementFacts
from release_safety.surfaces.migrations.tokens import Cursor, Tok, split_top, words
from release_safety.surfaces.migrations.volatility import volatility

AEL = Lock.ACCESS_EXCLUSIVE
SUE = Lock.SHARE_UPDATE_EXCLUSIVE
SRE = Lock.SHARE_ROW_EXCLUSIVE

SERIAL_TYPES = frozenset({"SERIAL", "BIGSERIAL", "SMALLSERIAL", "SERIAL2", "SERIAL4", "SERIAL8"})
# Targets every old value and parameter still fits: old code keeps working.
WIDEST_TYPES = frozenset({"TEXT"})
_CONSTRAINT_STARTS = frozenset(
    {
        "CONSTRAINT",
        "NOT",
        "NULL",
        "DEFAULT",
        "CHECK",
        "UNIQUE",
        "PRIMARY",
        "REFERENCES",
        "GENERATED",
        "COLLATE",
        "COMPRESSION",
        "STORAGE",
    }
)


class Unclassified(Exception):
    """A statement whose effect cannot be determined from its text."""


def alter_table(cur: Cursor, facts: StatementFacts, ctx: Context) -> None:
    """Classify `ALTER TABLE` after its first two words."""
    cur.skip_optional(("IF", "EXISTS"), ("ONLY",))
    table = cur.name()
    cur.accept("*")
    if table is None:
        raise Unclassified("ALTER TABLE without a table name")
    for action in split_top(cur.rest()):
        _action(Cursor(action), table, facts, ctx)


def _action(cur: Cursor, table: str, facts: StatementFacts, ctx: Context) -> None:
    new = table in ctx.created
    if cur.accept("ADD"):
        if cur.peek() in ("CONSTRAINT", "CHECK", "UNIQUE", "PRIMARY", "FOREIGN", "EXCLUDE"):
            _add_constraint(cur, table, facts, ctx)
        else:
            cur.accept("COLUMN")
            cur.skip_optional(("IF", "NOT", "EXISTS"))
            _add_column(cur, table, facts, ctx)
    elif cur.accept("DROP"):
        if cur.accept("CONSTRAINT"):
            cur.skip_optional(("IF", "EXISTS"))
            name = cur.name() or ""
            ctx.null_checks.pop((table, name), None)
            facts.touch(table, AEL)
        else:
            cur.accept("COLUMN")
            cur.skip_optional(("IF", "EXISTS"))
            column = cur.name() or "?"
            facts.touch(table, AEL)
            if not new:
                facts.issue("drop-column", f"DROP COLUMN {table}.{column}")
    elif cur.accept("ALTER"):
        cur.accept("COLUMN")
        altered = cur.name()
        if altered is None:
            raise Unclassified("ALTER COLUMN without a column name")
        _alter_column(cur, table, altered, facts, ctx)
    elif cur.accept("RENAME"):
        _rename(cur, table, facts, ctx)
    elif cur.accept("VALIDATE", "CONSTRAINT"):
        name = cur.name() or ""
        facts.touch(table, SUE, scans=not new)
        if (table, name) in ctx.null_checks:
            column, _ = ctx.null_checks[(table, name)]
            ctx.null_checks[(table, name)] = (column, True)
    elif cur.accept("SET"):
        _set(cur, table, facts, ctx)
    elif cur.accept("RESET"):
        facts.touch(table, SUE)
    elif cur.peek() in ("ENABLE", "DISABLE"):
        rest = words(cur.rest())
        facts.touch(table, SRE if "TRIGGER" in rest else AEL)
    elif cur.peek() in ("FORCE", "NO", "OWNER", "REPLICA", "INHERIT", "OF", "NOT"):
        facts.touch(table, AEL)
    elif cur.accept("CLUSTER", "ON"):
        facts.touch(table, SUE)
    elif cur.accept("ATTACH", "PARTITION"):
        part = cur.name() or "?"
        facts.touch(table, SUE if ctx.postgres_version >= 12 else AEL)
        facts.touch(part, AEL, scans=part not in ctx.created)
    elif cur.accept("DETACH", "PARTITION"):
        part = cur.name() or "?"
        concurrently = "CONCURRENTLY" in words(cur.rest())
        facts.outside_transaction |= concurrently
        facts.touch(table, SUE if concurrently else AEL)
        facts.touch(part, SUE if concurrently else AEL)
        if not new:
            facts.issue("drop-table", f"DETACH PARTITION {part} from {table}")
    else:
        raise Unclassified(f"ALTER TABLE action {cur.peek() or '?'} not recognised")


def _column_parts(toks: list[Tok]) -> tuple[list[Tok], list[list[Tok]]]:
    """A column definition's type tokens and its constraint clauses."""
    k = 0
    depth = 0
    while k < len(toks):
        tok = toks[k]
        depth += tok.text == "(" and tok.kind == "punct"
        depth -= tok.text == ")" and tok.kind == "punct"
        if depth == 0 and tok.up in _CONSTRAINT_STARTS:
            break
        k += 1
    clauses: list[list[Tok]] = []
    depth = 0
    for tok in toks[k:]:
        depth += tok.text == "(" and tok.kind == "punct"
        depth -= tok.text == ")" and tok.kind == "punct"
        starts = depth == 0 and tok.up in _CONSTRAINT_STARTS
        continues_not = clauses and [t.up for t in clauses[-1]] == ["NOT"] and tok.up == "NULL"
        if starts and not continues_not and not (clauses and clauses[-1][-1].up == "CONSTRAINT"):
            clauses.append([tok])
        elif clauses:
            clauses[-1].append(tok)
    return toks[:k], clauses


def _add_column(cur: Cursor, table: str, facts: StatementFacts, ctx: Context) -> None:
    column = cur.name()
    if column is None:
        raise Unclassified("ADD COLUMN without a column name")
    type_toks, clauses = _column_parts(cur.rest())
    new = table in ctx.created
    type_words = words(type_toks)
    rewrite = bool(type_words) and type_words[0] in SERIAL_TYPES
    not_null = rewrite
    has_default = rewrite
    scan = references = False
    for clause in clauses:
        head = [t.up for t in clause if t.kind == "word"]
        if head and head[0] == "CONSTRAINT":
            head = head[2:]
            clause = clause[2:]
        first = head[0] if head else ""
        if first == "NOT":
            not_null = True
        elif first == "DEFAULT":
            has_default = len(clause) > 1
            kind, function = volatility(clause[1:])
            if kind == "unknown" and not new:
                raise Unclassified(f"default calls {function}(), whose volatility is unknown")
            rewrite |= kind == "volatile" or ctx.postgres_version < 11
        elif first == "GENERATED":
            has_default = True
            rewrite |= "IDENTITY" in head or "STORED" in head
            not_null |= "IDENTITY" in head
        elif first in ("CHECK", "UNIQUE"):
            scan = True
        elif first == "PRIMARY":
            scan = True
            not_null = True
        elif first == "REFERENCES":
            ref = Cursor(clause[1:]).name()
            if ref is not None:
                facts.touch(ref, SRE)
            references = True
    # A new foreign key column is validated only when its default gives it values.
    scan |= references and has_default
    (ctx.not_null if not_null else ctx.nullable).add((table, column))
    if new:
        facts.touch(table, AEL)
        return
    facts.touch(table, AEL, rewrites=rewrite, scans=scan or (not_null and not has_default))
    if not_null and not has_default:
        facts.issue(
            "add-not-null-column-without-default",
            f"ADD COLUMN {table}.{column} NOT NULL without a default",
        )
    if rewrite:
        facts.issue("table-rewrite", f"ADD COLUMN {table}.{column} rewrites the table")
    if scan and not rewrite:
        facts.issue(
            "add-constraint-validating",
            f"ADD COLUMN {table}.{column} with a constraint reads every row",
        )


def _add_constraint(cur: Cursor, table: str, facts: StatementFacts, ctx: Context) -> None:
    name = cur.name() if cur.accept("CONSTRAINT") else None
    body = cur.rest()
    head = words(body)
    not_valid = any(pair == ("NOT", "VALID") for pair in pairwise(head))
    new = table in ctx.created
    kind = head[0] if head else ""
    label = f"ADD {' '.join(head[:2]) if kind in ('PRIMARY', 'FOREIGN') else kind} on {table}"
    if kind == "FOREIGN":
        ref_at = next((k for k, t in enumerate(body) if t.up == "REFERENCES"), None)
        if ref_at is None:
            raise Unclassified("FOREIGN KEY without REFERENCES")
        ref = Cursor(body[ref_at + 1 :]).name()
        facts.touch(table, SRE, scans=not new and not not_valid)
        if ref is not None:
            facts.touch(ref, SRE)
        if not new and not not_valid:
            facts.issue("add-constraint-validating", f"{label} validates every row")
        return
    if kind == "CHECK":
        inner = Cursor(body[1:]).skip_parens()
        if name is not None and [t.up for t in inner[1:]] == ["IS", "NOT", "NULL"]:
            column = Cursor(inner[:1]).name() or ""
            ctx.null_checks[(table, name)] = (column, not not_valid)
        facts.touch(table, AEL, scans=not new and not not_valid)
        if not new and not not_valid:
            facts.issue("add-constraint-validating", f"{label} validates every row")
        return
    if kind in ("UNIQUE", "PRIMARY", "EXCLUDE"):
        using_index = "USING" in head and "INDEX" in head
        facts.touch(table, AEL, scans=not new and not using_index)
        if kind == "PRIMARY":
            columns = [Cursor(g).name() or "" for g in split_top(Cursor(body[2:]).skip_parens())]
            _primary_key(table, columns, facts, ctx)
        if not new and not using_index:
            facts.issue("add-unique-constraint-builds-index", f"{label} builds an index")
        return
    raise Unclassified(f"ADD CONSTRAINT {kind or '?'} not recognised")


def _primary_key(table: str, columns: list[str], facts: StatementFacts, ctx: Context) -> None:
    for column in columns:
        if (table, column) in ctx.nullable and table not in ctx.created:
            facts.issue(
                "add-primary-key-nullable-column",
                f"PRIMARY KEY on nullable column {table}.{column}",
            )
        elif (table, column) not in ctx.not_null and table not in ctx.created:
            facts.issue(
                "add-primary-key",
                f"PRIMARY KEY on {table}.{column} makes it NOT NULL if it was not already",
            )
        ctx.not_null.add((table, column))


def _alter_column(
    cur: Cursor, table: str, column: str, facts: StatementFacts, ctx: Context
) -> None:
    new = table in ctx.created
    where = f"{table}.{column}"
    if cur.accept("TYPE") or cur.accept("SET", "DATA", "TYPE"):
        type_toks = cur.rest()
        type_words = words(type_toks)
        facts.touch(table, AEL, rewrites=not new)
        if not new:
            facts.issue("table-rewrite", f"ALTER COLUMN {where} TYPE rewrites the table")
            if type_words[:1] != ["TEXT"] or "USING" in type_words:
                facts.issue("change-column-type", f"ALTER COLUMN {where} TYPE")
    elif cur.accept("SET", "NOT", "NULL"):
        proven = ctx.postgres_version >= 12 and ctx.validated_not_null(table, column)
        facts.touch(table, AEL, scans=not new and not proven)
        if not new and not proven:
            facts.issue("set-not-null", f"SET NOT NULL on {where}")
        ctx.not_null.add((table, column))
        ctx.nullable.discard((table, column))
    elif cur.accept("DROP", "NOT", "NULL"):
        facts.touch(table, AEL)
        ctx.not_null.discard((table, column))
    elif cur.accept("SET", "DEFAULT") or cur.accept("DROP", "DEFAULT"):
        dropped = cur.toks[cur.i - 2].up == "DROP"
        facts.touch(table, AEL)
        if dropped and not new:
            known = (table, column) in ctx.not_null
            rule = "drop-default-not-null-column" if known else "drop-default"
            facts.issue(rule, f"DROP DEFAULT on {where}")
    elif cur.accept("SET", "STATISTICS"):
        facts.touch(table, SUE)
    elif cur.peek() in ("SET", "ADD", "DROP", "RESET"):
        # SET STORAGE / COMPRESSION / GENERATED / (options), ADD / DROP IDENTITY, DROP EXPRESSION
        action = " ".join(words(cur.rest())[:2])
        options = action in ("SET", "RESET")
        facts.touch(table, SUE if options else AEL)
    else:
        raise Unclassified(f"ALTER COLUMN action {cur.peek() or '?'} not recognised")


def _rename(cur: Cursor, table: str, facts: StatementFacts, ctx: Context) -> None:
    new = table in ctx.created
    facts.touch(table, AEL)
    if cur.accept("TO"):
        target = cur.name() or "?"
        if new:
            ctx.created.add(target)
        else:
            facts.issue("rename-table", f"RENAME {table} TO {target}")
        return
    if cur.accept("CONSTRAINT"):
        return
    cur.accept("COLUMN")
    column = cur.name() or "?"
    cur.accept("TO")
    target = cur.name() or "?"
    if not new:
        facts.issue("rename-column", f"RENAME COLUMN {table}.{column} TO {target}")


def _set(cur: Cursor, table: str, facts: StatementFacts, ctx: Context) -> None:
    new = table in ctx.created
    if cur.accept("SCHEMA"):
        facts.touch(table, AEL)
        if not new:
            facts.issue("set-schema", f"{table} SET SCHEMA {cur.name() or '?'}")
    elif cur.peek() in ("LOGGED", "UNLOGGED", "TABLESPACE") or cur.accept("ACCESS", "METHOD"):
        facts.touch(table, AEL, rewrites=not new)
        if not new:
            facts.issue("table-rewrite", f"SET {cur.peek() or 'ACCESS METHOD'} rewrites {table}")
    elif cur.accept("WITHOUT", "CLUSTER") or cur.peek() == "(":
        facts.touch(table, SUE)
    elif cur.accept("WITHOUT", "OIDS"):
        facts.touch(table, AEL)
    else:
        raise Unclassified(f"ALTER TABLE SET {cur.peek() or '?'} not recognised")
