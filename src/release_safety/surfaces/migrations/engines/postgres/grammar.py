"""Statements checked against PostgreSQL's grammar (gram.y) clause by clause, where the
migrations' common statements go past their first word: a column definition (`columnDef`,
`Typename`, `ColConstraint`, `ColConstraintElem`, `ConstraintAttr`, `b_expr`; in `CREATE TABLE`
and `ALTER TABLE ... ADD COLUMN`) and the `ALTER TABLE` actions `DROP [COLUMN | CONSTRAINT]`,
`ALTER [COLUMN] ... {SET DEFAULT | DROP DEFAULT | SET NOT NULL | DROP NOT NULL | [SET DATA]
TYPE}` and `RENAME`. The first token the grammar cannot take is where PostgreSQL stops with
`syntax error at or near`. Only what every supported PostgreSQL version refuses is refused
(`STORAGE`, `COMPRESSION`, `VIRTUAL` columns and a generated column without `STORED` are newer
syntax, taken); the other actions, and what parentheses hold, are not checked. Expressions are
read as `b_expr` reads them: operands (literals, names, calls, typed literals, parenthesised or
bracketed groups, `CASE ... END`) joined by operators, with `::type` casts and subscripts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from release_safety.surfaces.migrations.sql.tokens import Cursor, Tok, split_top

SYNTAX_ERROR = "syntax error at or near"
"""PostgreSQL's words for a token its grammar cannot take."""
SYNTAX_END = "syntax error at end of input"

RESERVED = frozenset(
    {
        *("ALL", "ANALYSE", "ANALYZE", "AND", "ANY", "ARRAY", "AS", "ASC", "ASYMMETRIC"),
        *("BOTH", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN", "CONSTRAINT", "CREATE"),
        *("CURRENT_CATALOG", "CURRENT_DATE", "CURRENT_ROLE", "CURRENT_TIME"),
        *("CURRENT_TIMESTAMP", "CURRENT_USER", "DEFAULT", "DEFERRABLE", "DESC", "DISTINCT"),
        *("DO", "ELSE", "END", "EXCEPT", "FALSE", "FETCH", "FOR", "FOREIGN", "FROM", "GRANT"),
        *("GROUP", "HAVING", "IN", "INITIALLY", "INTERSECT", "INTO", "LATERAL", "LEADING"),
        *("LIMIT", "LOCALTIME", "LOCALTIMESTAMP", "NOT", "NULL", "OFFSET", "ON", "ONLY", "OR"),
        *("ORDER", "PLACING", "PRIMARY", "REFERENCES", "RETURNING", "SELECT", "SESSION_USER"),
        *("SOME", "SYMMETRIC", "SYSTEM_USER", "TABLE", "THEN", "TO", "TRAILING", "TRUE"),
        *("UNION", "UNIQUE", "USER", "USING", "VARIADIC", "WHEN", "WHERE", "WINDOW", "WITH"),
    }
)
"""PostgreSQL's reserved keywords: never a name."""
_CONSTANTS = frozenset(
    {
        *("TRUE", "FALSE", "NULL", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP"),
        *("LOCALTIME", "LOCALTIMESTAMP", "CURRENT_ROLE", "CURRENT_USER", "SESSION_USER"),
        *("USER", "SYSTEM_USER", "CURRENT_CATALOG"),
    }
)
"""Reserved keywords that are an expression on their own."""
_PREFIX = frozenset({"+", "-", "~", "@", "!!", "|/", "||/"})
_NOT_OPERATORS = frozenset({"(", ")", "[", "]", ",", ";", ".", "::", "$"})
_GENERATED_AFTER = frozenset({"STORED", "VIRTUAL"})
_ACTIONS = {"CASCADE": (), "RESTRICT": (), "NO": ("ACTION",), "SET": ()}
_TIME_TYPES = frozenset({"TIME", "TIMESTAMP"})
_MULTIWORD = {
    "DOUBLE": (("PRECISION",),),
    "CHARACTER": (("VARYING",), ()),
    "CHAR": (("VARYING",), ()),
    "NCHAR": (("VARYING",), ()),
    "BIT": (("VARYING",), ()),
    "NATIONAL": (("CHARACTER", "VARYING"), ("CHARACTER",), ("CHAR", "VARYING"), ("CHAR",)),
}
_INTERVAL_FIELDS = frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "TO"})
_ELEMENTS = frozenset(
    {"NOT", "NULL", "UNIQUE", "PRIMARY", "CHECK", "DEFAULT", "GENERATED", "REFERENCES"}
)
"""The first keys of a `ColConstraintElem`."""


class ColumnSyntax(Exception):
    """A clause PostgreSQL's grammar refuses: from offset `near` of the statement, the first
    token is the one it stops at (past the last token: the end of the statement)."""

    def __init__(self, near: int) -> None:
        super().__init__(near)
        self.near = near


class _At(Exception):
    """The grammar stops at token `i` of the list (`len(toks)`: after the last one)."""

    def __init__(self, i: int) -> None:
        super().__init__(i)
        self.i = i


class _Reader:
    def __init__(self, toks: list[Tok]) -> None:
        self.toks = toks
        self.i = 0

    def peek(self, ahead: int = 0) -> Tok | None:
        k = self.i + ahead
        return self.toks[k] if k < len(self.toks) else None

    def key(self, ahead: int = 0) -> str:
        k = self.i + ahead
        return self.toks[k].key if k < len(self.toks) else ""

    def take(self, *keys: str) -> bool:
        """Take the tokens whose keys are `keys`, if they come next (as `Cursor.accept`)."""
        i, toks = self.i, self.toks
        end = i + len(keys)
        if end > len(toks):
            return False
        for k, key in enumerate(keys, i):
            if toks[k].key != key:
                return False
        self.i = end
        return True

    def need(self, *keys: str) -> None:
        for key in keys:
            if self.key() != key:
                raise _At(self.i)
            self.i += 1

    def name(self) -> None:
        """An identifier: a quoted one or a word that is not reserved."""
        tok = self.peek()
        if tok is None or not _is_name(tok):
            raise _At(self.i)
        self.i += 1

    def qualified(self) -> None:
        self.name()
        while self.key() == "." and self.peek(1) is not None:
            self.i += 1
            self.name()

    def group(self) -> None:
        """A balanced `( ... )` or `[ ... ]` group, read whole (its inside is not checked)."""
        opening = self.key()
        closing = {"(": ")", "[": "]"}.get(opening)
        if closing is None:
            raise _At(self.i)
        depth = 0
        while self.i < len(self.toks):
            key = self.key()
            depth += key in ("(", "[")
            depth -= key in (")", "]")
            self.i += 1
            if depth == 0:
                return
        raise _At(self.i)


def _is_name(tok: Tok) -> bool:
    return tok.kind == "ident" or (tok.kind == "word" and tok.up not in RESERVED)


def _kind(tok: Tok | None) -> str:
    return tok.kind if tok is not None else ""


def _is_operator(tok: Tok | None) -> bool:
    return tok is not None and tok.kind == "punct" and tok.key not in _NOT_OPERATORS


def _checked(toks: list[Tok], read: Callable[[_Reader], None]) -> None:
    """Run `read` over `toks`; ColumnSyntax where it stops, or when tokens are left over."""
    reader = _Reader(toks)
    try:
        read(reader)
        if reader.peek() is not None:
            raise _At(reader.i)
    except _At as stop:
        near = toks[stop.i].start if stop.i < len(toks) else (toks[-1].end + 1 if toks else 0)
        raise ColumnSyntax(near) from None


_PASSED: set[tuple[int, int, int, str]] = set()
"""The checks the statement being classified is known to pass (`passing`): its tokens' slices
by their first and last token (the objects) and their length, with the check."""


def passing(toks: list[Tok], slices: Sequence[tuple[int, int, str]]) -> None:
    """The statement `toks` is classified next, and passes the checks `slices` names (first
    index, last index, check: `prechecked`'s, computed ahead); nothing for the next one."""
    _PASSED.clear()
    for first, last, check in slices:
        _PASSED.add((id(toks[first]), id(toks[last]), last - first + 1, check))


def _known(toks: list[Tok], check: str) -> bool:
    """Whether `toks` is a slice of the statement being classified that passes `check`."""
    return (id(toks[0]), id(toks[-1]), len(toks), check) in _PASSED if toks else False


def check_column(toks: list[Tok]) -> None:
    """Raise ColumnSyntax when the column definition `toks` is none PostgreSQL reads."""
    if not (_PASSED and _known(toks, "column")):
        _checked(toks, _column)


def _column(reader: _Reader) -> None:
    reader.name()
    _type(reader)
    while reader.peek() is not None:
        _constraint(reader)


def check_action(toks: list[Tok]) -> None:
    """Raise ColumnSyntax when an `ALTER TABLE` action this grammar reads (`DROP`, `ALTER
    [COLUMN]`, `RENAME`; `ADD COLUMN`'s definition is `check_column`'s) is none PostgreSQL
    reads; other actions pass."""
    first = toks[0].key if toks else ""
    if _PASSED and _known(toks, "action"):
        return
    if first == "DROP":
        _checked(toks, _drop)
    elif first == "ALTER" and not (len(toks) > 1 and toks[1].key == "CONSTRAINT"):
        _checked(toks, _alter_column)
    elif first == "RENAME":
        _checked(toks, _rename)


def check_index(toks: list[Tok]) -> None:
    """Raise ColumnSyntax when `CREATE [UNIQUE] INDEX` followed by `toks` is no index
    PostgreSQL reads (`IndexStmt`; what parentheses and `WHERE` hold is not read)."""
    if not (_PASSED and _known(toks, "index")):
        _checked(toks, _index)


_CHECKS: dict[str, Callable[[list[Tok]], None]] = {
    "column": check_column,
    "action": check_action,
    "index": check_index,
}
_TABLE_CONSTRAINTS = frozenset({"CONSTRAINT", "CHECK", "UNIQUE", "PRIMARY", "FOREIGN", "EXCLUDE"})


def prechecked(toks: list[Tok]) -> tuple[tuple[int, int, str], ...]:
    """The checks of the statement `toks` that pass, as `passing` takes them, for the slices
    classification checks in the common statements (`ALTER TABLE`'s actions and added
    columns, `CREATE TABLE`'s columns, `CREATE [UNIQUE] INDEX`), read with no schema by the
    process that splits the files ahead (`cli/lintahead.py`). Each is a fact about its
    slice whichever slices classification then checks: a slice read otherwise is checked
    there, as without it."""
    if len(toks) < 3 or toks[0].key not in ("ALTER", "CREATE"):
        return ()
    cur = Cursor(toks)
    cur.i = 2
    candidates: list[tuple[list[Tok], str]] = []
    second = toks[1].key
    if toks[0].key == "ALTER" and second == "TABLE":
        cur.skip_optional(("IF", "EXISTS"), ("ONLY",))
        if cur.name() is None:
            return ()
        cur.accept("*")
        for action in split_top(cur.rest()):
            candidates.append((action, "action"))
            if (
                action[0].key == "ADD"
                and len(action) > 1
                and action[1].key not in _TABLE_CONSTRAINTS
            ):
                added = Cursor(action)
                added.i = 1
                added.accept("COLUMN")
                added.accept("IF", "NOT", "EXISTS")
                candidates.append((added.rest(), "column"))
    elif toks[0].key == "CREATE" and second == "TABLE":
        cur.accept("IF", "NOT", "EXISTS")
        if cur.name() is None or cur.peek() != "(":
            return ()
        for element in split_top(cur.skip_parens()):
            if element[0].up not in _TABLE_CONSTRAINTS and element[0].up != "LIKE":
                candidates.append((element, "column"))
    elif toks[0].key == "CREATE" and second == "INDEX":
        candidates.append((toks[2:], "index"))
    elif toks[0].key == "CREATE" and second == "UNIQUE" and toks[2].key == "INDEX":
        candidates.append((toks[3:], "index"))
    at = {id(tok): k for k, tok in enumerate(toks)}
    passed: list[tuple[int, int, str]] = []
    for part, check in candidates:
        try:
            _CHECKS[check](part)
        except ColumnSyntax:
            continue
        if part:
            passed.append((at[id(part[0])], at[id(part[-1])], check))
    return tuple(passed)


def _index(reader: _Reader) -> None:
    """`[CONCURRENTLY] [[IF NOT EXISTS] name] ON [ONLY] table [USING method] (...) [INCLUDE
    (...)] [NULLS [NOT] DISTINCT] [WITH (...)] [TABLESPACE name] [WHERE a_expr]`."""
    reader.take("CONCURRENTLY")
    if reader.take("IF", "NOT"):
        reader.need("EXISTS")
        reader.name()
    elif reader.key() != "ON":
        reader.name()
    reader.need("ON")
    reader.take("ONLY")
    reader.qualified()
    reader.take("*")
    if reader.take("USING"):
        reader.name()
    if reader.key() != "(":
        raise _At(reader.i)
    reader.group()
    if reader.take("INCLUDE"):
        _parenthesised(reader)
    if reader.take("NULLS"):
        reader.take("NOT")
        reader.need("DISTINCT")
    if reader.take("WITH"):
        _parenthesised(reader)
    if reader.take("TABLESPACE"):
        reader.name()
    if reader.take("WHERE"):
        _any_expression(reader)


def _parenthesised(reader: _Reader) -> None:
    if reader.key() != "(":
        raise _At(reader.i)
    reader.group()


def _drop(reader: _Reader) -> None:
    """`DROP [COLUMN | CONSTRAINT] [IF EXISTS] name [CASCADE | RESTRICT]`."""
    reader.need("DROP")
    if not reader.take("CONSTRAINT"):
        reader.take("COLUMN")
    reader.take("IF", "EXISTS")
    reader.name()
    if reader.key() in ("CASCADE", "RESTRICT"):
        reader.i += 1


def _alter_column(reader: _Reader) -> None:
    """`ALTER [COLUMN] name` and the column actions migrations use; others are not read."""
    reader.need("ALTER")
    reader.take("COLUMN")
    reader.name()
    if reader.take("SET", "DEFAULT"):
        _any_expression(reader)
    elif reader.take("DROP", "DEFAULT") or reader.take("DROP", "EXPRESSION"):
        reader.take("IF", "EXISTS")
    elif reader.take("SET", "NOT") or reader.take("DROP", "NOT"):
        reader.need("NULL")
    elif reader.take("TYPE") or reader.take("SET", "DATA", "TYPE"):
        _type(reader)
        if reader.take("COLLATE"):
            reader.qualified()
        if reader.take("USING"):
            _any_expression(reader)
    elif reader.key() in ("SET", "DROP", "RESET", "ADD", "OPTIONS"):
        reader.i = len(reader.toks)  # statistics, storage, identity, options: not read here
    else:
        raise _At(reader.i)


def _rename(reader: _Reader) -> None:
    """`RENAME [COLUMN | CONSTRAINT] name TO name` or `RENAME TO name`."""
    reader.need("RENAME")
    if not reader.take("TO"):
        if not reader.take("CONSTRAINT"):
            reader.take("COLUMN")
        reader.name()
        reader.need("TO")
    reader.name()


def _type(reader: _Reader) -> None:
    """`Typename`: `[SETOF] name [(...)] [WITH|WITHOUT TIME ZONE] ([n] | ARRAY [n])*`."""
    reader.take("SETOF")
    first = reader.key()
    words = _MULTIWORD.get(first)
    reader.qualified()
    if words is not None:
        for choice in words:
            if reader.take(*choice):
                break
        else:
            raise _At(reader.i)
    if first == "INTERVAL":
        while reader.key() in _INTERVAL_FIELDS:
            reader.i += 1
    if reader.key() == "(":
        reader.group()
    if first in _TIME_TYPES and reader.key() in ("WITH", "WITHOUT") and reader.key(1) == "TIME":
        reader.i += 2  # PostgreSQL's lexer reads WITH / WITHOUT before TIME as one token
        reader.need("ZONE")
    while reader.key() in ("[", "ARRAY"):
        if reader.take("ARRAY"):
            if reader.key() == "[":
                reader.group()
        else:
            reader.group()


def _constraint(reader: _Reader) -> None:
    """One `ColConstraint`: `[CONSTRAINT name] ColConstraintElem`, `ConstraintAttr`,
    `COLLATE name`, and the newer `COMPRESSION name` / `STORAGE mode`."""
    key = reader.key()  # one read of the first key, each branch below starting with it
    if key == "CONSTRAINT":
        reader.i += 1
        reader.name()
        _element(reader, named=True)
        return
    if key == "DEFERRABLE":
        reader.i += 1
        return
    if reader.take("NOT", "DEFERRABLE"):
        return
    if key == "INITIALLY":
        reader.i += 1
        if not (reader.take("DEFERRED") or reader.take("IMMEDIATE")):
            raise _At(reader.i)
        return
    if key == "COLLATE":
        reader.i += 1
        reader.qualified()
        return
    if key in ("COMPRESSION", "STORAGE"):
        reader.i += 1
        if not reader.take("DEFAULT"):
            reader.name()
        return
    _element(reader, named=False)


def _element(reader: _Reader, named: bool) -> None:
    """`ColConstraintElem`."""
    key = reader.key()  # each branch takes this first key
    if key not in _ELEMENTS:
        raise _At(reader.i)
    reader.i += 1
    if key == "NOT":
        reader.need("NULL")
        if reader.take("NO"):
            reader.need("INHERIT")
    elif key == "UNIQUE":
        if reader.take("NULLS"):
            reader.take("NOT")
            reader.need("DISTINCT")
        _index_options(reader)
    elif key == "PRIMARY":
        reader.need("KEY")
        _index_options(reader)
    elif key == "CHECK":
        if reader.key() != "(":
            raise _At(reader.i)
        reader.group()
        if reader.take("NO"):
            reader.need("INHERIT")
    elif key == "DEFAULT":
        _expression(reader)
    elif key == "GENERATED":
        _generated(reader)
    elif key == "REFERENCES":
        _references(reader)


def _index_options(reader: _Reader) -> None:
    """`opt_definition OptConsTableSpace`: `WITH (...)`, `USING INDEX TABLESPACE name`."""
    if reader.take("WITH"):
        reader.group()
    if reader.take("USING"):
        reader.need("INDEX", "TABLESPACE")
        reader.name()


def _generated(reader: _Reader) -> None:
    """`GENERATED {ALWAYS | BY DEFAULT} AS {IDENTITY [(...)] | (expr) [STORED|VIRTUAL]}`."""
    if not (reader.take("ALWAYS") or reader.take("BY", "DEFAULT")):
        raise _At(reader.i)
    reader.need("AS")
    if reader.take("IDENTITY"):
        if reader.key() == "(":
            reader.group()
        return
    if reader.key() != "(":
        raise _At(reader.i)
    reader.group()
    if reader.key() in _GENERATED_AFTER:
        reader.i += 1


def _references(reader: _Reader) -> None:
    """`REFERENCES table [(columns)] [MATCH ...] [ON DELETE|UPDATE action]...`."""
    reader.qualified()
    if reader.key() == "(":
        reader.group()
    if reader.take("MATCH"):
        if reader.key() not in ("FULL", "PARTIAL", "SIMPLE"):
            raise _At(reader.i)
        reader.i += 1
    while reader.take("ON"):
        if reader.key() not in ("DELETE", "UPDATE"):
            raise _At(reader.i)
        reader.i += 1
        if reader.take("SET"):
            if reader.key() not in ("NULL", "DEFAULT"):
                raise _At(reader.i)
            reader.i += 1
            if reader.key() == "(":
                reader.group()
        elif reader.take("NO"):
            reader.need("ACTION")
        elif not (reader.take("CASCADE") or reader.take("RESTRICT")):
            raise _At(reader.i)


def _expression(reader: _Reader) -> None:
    """`b_expr`: operands joined by operators; ends before a token that joins nothing."""
    while True:
        while _is_operator(reader.peek()) and reader.key() in _PREFIX:
            reader.i += 1
        _operand(reader)
        while reader.key() in ("::", "["):
            if reader.take("::"):
                _type(reader)
            else:
                reader.group()
        if reader.take("IS"):
            reader.take("NOT")
            if reader.take("DISTINCT"):
                reader.need("FROM")
                continue
            if reader.take("DOCUMENT"):
                return
            raise _At(reader.i)
        if reader.take("OPERATOR"):
            reader.group()
            continue
        if not _is_operator(reader.peek()):
            return
        reader.i += 1


_A_EXPR_STARTS = frozenset({*_CONSTANTS, "NOT", "CASE", "CAST", "ARRAY", "EXISTS"})


def _any_expression(reader: _Reader) -> None:
    """An `a_expr` to the end of the clause: one that starts as no expression can, or ends on
    a binary operator, is refused; the rest is not read."""
    tok = reader.peek()
    if tok is None or (tok.kind == "word" and tok.up in RESERVED - _A_EXPR_STARTS):
        raise _At(reader.i)
    if tok.kind == "punct" and tok.key not in _PREFIX and tok.key not in ("(", "["):
        raise _At(reader.i)
    last = reader.toks[-1]
    reader.i = len(reader.toks)
    if _is_operator(last):
        raise _At(reader.i)


def _operand(reader: _Reader) -> None:
    tok = reader.peek()
    if tok is None:
        raise _At(reader.i)
    if tok.kind in ("string", "number"):
        reader.i += 1
    elif tok.key == "$" and _kind(reader.peek(1)) == "number":
        reader.i += 2
    elif tok.key in ("(", "["):
        reader.group()
    elif tok.key == "CASE":
        _case(reader)
    elif tok.key in ("CAST", "EXISTS") or (tok.key == "ROW" and reader.key(1) == "("):
        reader.i += 1
        if reader.key() != "(":
            raise _At(reader.i)
        reader.group()
    elif tok.key == "ARRAY":
        reader.i += 1
        if reader.key() not in ("[", "("):
            raise _At(reader.i)
        reader.group()
    elif tok.kind == "word" and tok.up in _CONSTANTS:
        reader.i += 1
        timed = tok.up in ("CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP")
        if timed and reader.key() == "(":
            reader.group()
    elif _is_name(tok):
        if tok.up in _MULTIWORD or tok.up in _TIME_TYPES or tok.up == "INTERVAL":
            start = reader.i
            try:
                _type(reader)  # a typed literal: `double precision '1'`, `interval '1 day'`
            except _At:
                pass
            else:
                if _kind(reader.peek()) == "string":
                    reader.i += 1
                    return
            reader.i = start
        reader.qualified()
        if reader.key() == "(":
            reader.group()
        elif _kind(reader.peek()) == "string":
            reader.i += 1  # `date '2024-01-01'`
    else:
        raise _At(reader.i)


def _case(reader: _Reader) -> None:
    """`CASE ... END`, nested ones included, read whole."""
    depth = 0
    while reader.peek() is not None:
        key = reader.key()
        depth += key == "CASE"
        depth -= key == "END"
        reader.i += 1
        if depth == 0:
            return
    raise _At(reader.i)
