"""Column and constraint definitions, read from tokens (CREATE TABLE and ADD COLUMN share them)."""

from __future__ import annotations

from itertools import pairwise

from release_safety.surfaces.migrations.engines.postgres.grammar import (
    SYNTAX_ERROR,
    ColumnSyntax,
    check_column,
)
from release_safety.surfaces.migrations.schema.coltypes import SERIAL_TYPES, ColType, parse_type
from release_safety.surfaces.migrations.sql.tokens import Cursor, Tok, split_top, words

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
    """A statement whose effect cannot be determined from its text. `anything` says that it
    may have changed any object (dynamic SQL, a function of unknown body), not only those it
    names. `near` places a syntax error: the offset in the statement from which the first
    token is the one PostgreSQL stops at (past the last token: the end of the statement)."""

    def __init__(self, reason: str, *, anything: bool = False, near: int | None = None) -> None:
        super().__init__(reason)
        self.anything = anything
        self.near = near


class ColumnDef:
    """A column definition: name, type and what its constraint clauses say."""

    name: str
    type: ColType | None
    type_words: list[str]
    not_null: bool
    default: list[Tok] | None
    identity: bool
    stored: bool
    primary: bool
    unique: bool
    checks: list[tuple[str | None, list[Tok]]]
    references: list[str]

    def __init__(
        self,
        name: str,
        type: ColType | None,
        type_words: list[str],
        not_null: bool = False,
        default: list[Tok] | None = None,
        identity: bool = False,
        stored: bool = False,
        primary: bool = False,
        unique: bool = False,
        checks: list[tuple[str | None, list[Tok]]] | None = None,
        references: list[str] | None = None,
    ) -> None:
        self.name = name
        self.type = type
        self.type_words = type_words
        self.not_null = not_null
        self.default = default
        self.identity = identity
        self.stored = stored
        self.primary = primary
        self.unique = unique
        self.checks = [] if checks is None else checks
        self.references = [] if references is None else references

    @property
    def serial(self) -> bool:
        return bool(self.type_words) and self.type_words[0] in SERIAL_TYPES

    @property
    def has_default(self) -> bool:
        return self.default is not None or self.identity or self.serial or self.stored


def _split_clauses(toks: list[Tok]) -> tuple[list[Tok], list[list[Tok]]]:
    """A column definition's type tokens and its constraint clauses."""
    # a key is a word's keyword form or a punctuation's text (`Tok`): brackets are punctuation
    k = 0
    depth = 0
    n = len(toks)
    while k < n:
        key = toks[k].key
        if key == "(" or key == "[":
            depth += 1
        elif key == ")" or key == "]":
            depth -= 1
        elif depth == 0 and key in _CONSTRAINT_STARTS:
            break
        k += 1
    clauses: list[list[Tok]] = []
    depth = 0
    for tok in toks[k:]:
        key = tok.key
        if key == "(":
            depth += 1
        elif key == ")":
            depth -= 1
        if depth == 0 and key in _CONSTRAINT_STARTS:
            last = clauses[-1] if clauses else None
            continues = last is not None and (
                (len(last) == 1 and last[0].up == "NOT" and key == "NULL")
                or (last[0].up == "GENERATED" and key == "DEFAULT")
                or last[-1].up == "CONSTRAINT"
            )
            if not continues:
                clauses.append([tok])
                continue
        if clauses:
            clauses[-1].append(tok)
    return toks[:k], clauses


def parse_column(toks: list[Tok]) -> ColumnDef:
    """A column definition (`name type [constraints]`); Unclassified with `near` when
    PostgreSQL's grammar refuses it (`grammar`)."""
    try:
        check_column(toks)
    except ColumnSyntax as refused:
        raise Unclassified(SYNTAX_ERROR, near=refused.near) from None
    cur = Cursor(toks)
    name = cur.name()
    if name is None:
        raise Unclassified("column definition without a name")
    type_toks, clauses = _split_clauses(cur.rest())
    column = ColumnDef(name, parse_type(type_toks), words(type_toks))
    column.not_null = column.serial
    for clause in clauses:
        constraint = None
        if clause[0].up == "CONSTRAINT" and len(clause) > 2:
            constraint = Cursor(clause[1:2]).name()
            clause = clause[2:]
        head = [t.up for t in clause if t.kind == "word"]
        first = head[0] if head else ""
        if first == "NOT" and head[1:2] == ["NULL"]:
            column.not_null = True
        elif first == "DEFAULT":
            column.default = clause[1:]
        elif first == "GENERATED":
            column.identity = "IDENTITY" in head
            column.stored = "STORED" in head
            column.not_null |= column.identity
        elif first == "CHECK":
            column.checks.append((constraint, Cursor(clause[1:]).skip_parens()))
        elif first == "UNIQUE":
            column.unique = True
        elif first == "PRIMARY":
            column.primary = column.not_null = True
        elif first == "REFERENCES":
            ref = Cursor(clause[1:]).name()
            if ref is not None:
                column.references.append(ref)
    return column


class ConstraintDef:
    """A table constraint: kind (CHECK, FOREIGN, PRIMARY, UNIQUE, EXCLUDE), name, columns, and
    what else it says."""

    kind: str
    name: str | None
    columns: list[str]
    not_valid: bool
    using_index: str | None
    references: str | None
    check: list[Tok]
    body: list[Tok]
    """The definition after the name (`CHECK (...)`, `FOREIGN KEY (...) REFERENCES ...`), for
    the safer SQL a finding on it writes."""

    def __init__(
        self,
        kind: str,
        name: str | None,
        columns: list[str],
        not_valid: bool = False,
        using_index: str | None = None,
        references: str | None = None,
        check: list[Tok] | None = None,
        body: list[Tok] | None = None,
    ) -> None:
        self.kind = kind
        self.name = name
        self.columns = columns
        self.not_valid = not_valid
        self.using_index = using_index
        self.references = references
        self.check = [] if check is None else check
        self.body = [] if body is None else body

    def not_null_of(self) -> str | None:
        """The column of a `CHECK (column IS NOT NULL)`, else None."""
        if self.kind != "CHECK" or [t.up for t in self.check[1:]] != ["IS", "NOT", "NULL"]:
            return None
        return Cursor(self.check[:1]).name()


def parse_constraint(toks: list[Tok]) -> ConstraintDef:
    """A table constraint (`[CONSTRAINT name] CHECK|UNIQUE|PRIMARY KEY|FOREIGN KEY|EXCLUDE`)."""
    cur = Cursor(toks)
    name = cur.name() if cur.accept("CONSTRAINT") else None
    body = cur.rest()
    head = words(body)
    kind = head[0] if head else ""
    found = ConstraintDef(kind, name, [])
    found.not_valid = any(pair == ("NOT", "VALID") for pair in pairwise(head))
    found.body = body[:-2] if found.not_valid and head[-2:] == ["NOT", "VALID"] else body
    inner = Cursor(body)
    inner.i = 1
    if kind in ("PRIMARY", "FOREIGN"):
        inner.accept("KEY")
    if kind == "CHECK":
        found.check = inner.skip_parens()
        return found
    if kind == "EXCLUDE":
        return found
    if kind not in ("PRIMARY", "FOREIGN", "UNIQUE"):
        raise Unclassified(f"constraint {kind or '?'} not recognised")
    if inner.accept("USING", "INDEX"):
        found.using_index = inner.name()
        return found
    inner.skip_optional(("NULLS", "NOT", "DISTINCT"), ("NULLS", "DISTINCT"))
    found.columns = [Cursor(g).name() or "" for g in split_top(inner.skip_parens())]
    if kind == "FOREIGN":
        if not inner.accept("REFERENCES"):
            raise Unclassified("FOREIGN KEY without REFERENCES")
        found.references = inner.name()
    return found
