"""PL/pgSQL bodies (`DO` blocks, functions the migrations call): their SQL, classified as if
every statement runs.

Control flow is read, not executed: every branch of IF / CASE, every loop body, the queries a
FOR loop iterates and the conditions and expressions that run queries are classified (an upper
bound: a guard such as `IF EXISTS (...) THEN RETURN; END IF;` does not stop the statements
after it from counting). Exception handlers run only on error and are left out. `EXECUTE` of a
constant string is classified from the string; only SQL built at run time (`EXECUTE 'DROP
TABLE ' || name`, `EXECUTE format(...)` with arguments) is unknown, and may have changed
anything. A SQL-language body is its statements.
"""

from __future__ import annotations

from collections.abc import Callable

from release_safety.surfaces.migrations.engines.postgres.columns import Unclassified
from release_safety.surfaces.migrations.engines.postgres.context import Context
from release_safety.surfaces.migrations.engines.postgres.facts import Issue, StatementFacts
from release_safety.surfaces.migrations.schema.model import Function
from release_safety.surfaces.migrations.sql.lexer import joined
from release_safety.surfaces.migrations.sql.sqlfile import split_sql
from release_safety.surfaces.migrations.sql.tokens import Tok, tokenize

Classifier = Callable[[str, Context, list[Tok] | None], StatementFacts]
Unit = tuple[str, list[Tok] | None, int]
"""A statement of a body: its text, its tokens when the body's give them, and the lines of
the body before it."""
_QUIET = frozenset({"RETURN", "EXIT", "CONTINUE", "NULL", "RAISE", "ASSERT", "GET", "CLOSE"})
_QUIET |= {"FETCH", "MOVE"}
_QUERIES = frozenset({"SELECT", "WITH", "VALUES", "TABLE"})
MAX_CALL_DEPTH = 8


def do_block(
    sql: str, toks: list[Tok], facts: StatementFacts, ctx: Context, classify: Classifier
) -> None:
    """Merge the facts of a DO block's statements into `facts`, their issues on the lines of
    the statements that raise them."""
    body = _body(toks)
    language = [t.up for t in toks if t.kind == "word"]
    if body is None or ("LANGUAGE" in language and "PLPGSQL" not in language):
        raise Unclassified("DO block body not readable", anything=True)
    lines = sql.count("\n", 0, body.start)  # a body's opening quote holds no line break
    units = ctx.bodies.get(body.text)  # read ahead
    _run(_units(body.text) if units is None else units, "DO block", facts, ctx, classify, lines)


def ahead(toks: list[Tok]) -> dict[str, list[Unit]]:
    """The statements of the body of the DO statement `toks` by the body's text, as `do_block`
    reads them (`_units`), read with no schema by the process that splits the files ahead
    (`cli/lintahead.py`); none for a body `do_block` refuses or `_units` cannot read (read
    again, and refused, where the statement is classified)."""
    body = _body(toks) if toks and toks[0].key == "DO" else None
    if body is None:
        return {}
    try:
        return {body.text: _units(body.text)}
    except Exception:  # whatever it is, the lint raises it again reading the body itself
        return {}


def _body(toks: list[Tok]) -> Tok | None:
    """The body of the DO statement `toks`: its one string (None when it has none or several)."""
    bodies = [t for t in toks[1:] if t.kind == "string"]
    return bodies[0] if len(bodies) == 1 else None


def function_body(
    function: Function, facts: StatementFacts, ctx: Context, classify: Classifier
) -> None:
    """Merge the facts of a called function's body (PL/pgSQL or SQL) into `facts`."""
    if function.body is None or function.language not in ("plpgsql", "sql"):
        raise Unclassified("function body not readable", anything=True)
    if ctx.depth >= MAX_CALL_DEPTH:
        raise Unclassified("functions call each other too deeply", anything=True)
    if function.language == "plpgsql":
        units = _units(function.body)
    else:
        units = [(s.sql, None, 0) for s in split_sql(function.body) if s.sql]
    ctx.depth += 1
    try:
        _run(units, "function", facts, ctx, classify)
    finally:
        ctx.depth -= 1


def _run(
    units: list[Unit],
    what: str,
    facts: StatementFacts,
    ctx: Context,
    classify: Classifier,
    lines: int | None = None,
) -> None:
    """Classify the units into `facts`; `lines`, the lines of the statement before the body,
    puts each unit's issues on its own line (None: a function's, on the calling statement's)."""
    for sql, toks, line in units:
        inner = classify(sql, ctx, toks)
        if inner.unknown is not None:
            raise Unclassified(f"{what}: {inner.unknown}")
        for fact in inner.tables.values():
            facts.touch(fact.table, fact.lock).merge(fact, 0 if lines is None else lines + line)
        for issue in inner.issues:
            after = 0 if lines is None else lines + line + issue.line
            facts.issues.append(Issue(issue.rule, issue.message, issue.column, after, issue.hint))
        facts.outside_transaction |= inner.outside_transaction
        facts.unnamed_lock = facts.unnamed_lock or inner.unnamed_lock
        facts.explicit_lock |= inner.explicit_lock
        facts.waits |= inner.waits


def _units(body: str) -> list[Unit]:
    """The SQL a PL/pgSQL body runs, in order: statements, and queries in control flow,
    with their tokens taken from the body's (`joined`) where they read the same."""
    walker = _Walker(body, tokenize(body))
    walker.block()
    return walker.units


class _Walker:
    """A reader of PL/pgSQL's block structure over the body's tokens."""

    def __init__(self, body: str, toks: list[Tok]) -> None:
        self.body = body
        self.toks = toks
        self.i = 0
        self.units: list[Unit] = []

    def up(self, offset: int = 0) -> str:
        k = self.i + offset
        if k >= len(self.toks):
            return ""
        tok = self.toks[k]
        return tok.up if tok.kind == "word" else tok.text if tok.kind == "punct" else ""

    def line(self, toks: list[Tok]) -> int:
        """The lines of the body before the first of `toks`."""
        return self.body.count("\n", 0, toks[0].start) if toks else 0

    def add(self, toks: list[Tok], unit: tuple[str, list[Tok] | None]) -> None:
        """A statement (from `joined`) that starts where `toks` does."""
        self.units.append((unit[0], unit[1], self.line(toks)))

    def accept(self, *words: str) -> bool:
        if all(self.up(k) == w for k, w in enumerate(words)):
            self.i += len(words)
            return True
        return False

    def expect(self, word: str) -> None:
        if not self.accept(word):
            raise Unclassified(f"PL/pgSQL body: expected {word} at {self.up() or 'the end'}")

    def label(self) -> None:
        """Skip a `<<label>>` (the tokenizer reads `<` `<` label `>` `>`)."""
        if self.up() == "<" and self.up(1) == "<":
            while self.i < len(self.toks) and not (self.up() == ">" and self.up(1) == ">"):
                self.i += 1
            self.i += 2

    def until(self, *stops: str) -> list[Tok]:
        """Tokens up to a stop word outside parentheses and CASE expressions (consumed)."""
        start, depth, cases = self.i, 0, 0
        while self.i < len(self.toks):
            word = self.up()
            if depth == 0 and cases == 0 and word in stops:
                out = self.toks[start : self.i]
                self.i += 1
                return out
            depth += word in ("(", "[")
            depth -= word in (")", "]")
            cases += word == "CASE"
            cases -= word == "END" and cases > 0
            self.i += 1
        raise Unclassified(f"PL/pgSQL body: {' or '.join(stops)} missing")

    def query(self, toks: list[Tok]) -> None:
        """A SQL statement, its PL/pgSQL `INTO targets` left out."""
        if not toks:
            return
        first = toks[0].up
        depth = 0
        for k, tok in enumerate(toks):
            depth += tok.text == "("
            depth -= tok.text == ")"
            if tok.up != "INTO" or depth:
                continue
            before = [t.up for t in toks[:k]]
            if "RETURNING" not in before and (first == "INSERT" or "INSERT" in before):
                continue
            end = k + 1 + (k + 1 < len(toks) and toks[k + 1].up == "STRICT")
            if end < len(toks) and toks[end].kind in ("word", "ident"):
                end += 1
                while end + 1 < len(toks) and toks[end].text in (".", ","):
                    end += 2
            self.add(toks, joined(self.body, [toks[:k], toks[end:]]))
            return
        self.add(toks, joined(self.body, [toks]))

    def expression(self, toks: list[Tok]) -> None:
        """An expression PL/pgSQL evaluates with a query: classified when it reads tables or
        calls functions."""
        calls = any(
            t.kind == "word" and k + 1 < len(toks) and toks[k + 1].text == "("
            for k, t in enumerate(toks)
        )
        if calls or any(t.up == "SELECT" for t in toks):
            self.add(toks, joined(self.body, [toks], "SELECT "))

    def block(self) -> None:
        self.label()
        if self.accept("DECLARE"):
            self.declarations()
        self.expect("BEGIN")
        self.statements("END", "EXCEPTION")
        if self.accept("EXCEPTION"):
            kept = len(self.units)
            while self.accept("WHEN"):
                self.until("THEN")
                self.statements("WHEN", "END")
            del self.units[kept:]
        self.expect("END")
        if self.up() not in (";", ""):
            self.i += 1
        self.accept(";")

    def declarations(self) -> None:
        while self.i < len(self.toks) and self.up() != "BEGIN":
            decl = self.until(";")
            words = [t.up for t in decl]
            if "CURSOR" in words and "FOR" in words:
                self.query(decl[words.index("FOR") + 1 :])
                continue
            at = next(
                (k for k, t in enumerate(decl) if t.text in (":=", "=") or t.up == "DEFAULT"),
                None,
            )
            if at is not None:
                self.expression(decl[at + 1 :])

    def statements(self, *stops: str) -> None:
        while self.i < len(self.toks) and self.up() not in stops:
            self.statement()

    def statement(self) -> None:
        self.label()
        head = self.up()
        if head == "IF":
            self.i += 1
            self.expression(self.until("THEN"))
            self.statements("ELSIF", "ELSEIF", "ELSE", "END")
            while self.accept("ELSIF") or self.accept("ELSEIF"):
                self.expression(self.until("THEN"))
                self.statements("ELSIF", "ELSEIF", "ELSE", "END")
            if self.accept("ELSE"):
                self.statements("END")
            self.expect("END")
            self.expect("IF")
            self.accept(";")
        elif head == "CASE":
            self.i += 1
            if self.up() != "WHEN":
                self.expression(self.until("WHEN"))
                self.i -= 1
            while self.accept("WHEN"):
                self.expression(self.until("THEN"))
                self.statements("WHEN", "ELSE", "END")
            if self.accept("ELSE"):
                self.statements("END")
            self.expect("END")
            self.expect("CASE")
            self.accept(";")
        elif head in ("LOOP", "WHILE", "FOR", "FOREACH"):
            self.loop(head)
        elif head in ("BEGIN", "DECLARE"):
            self.block()
        elif head in _QUIET:
            stmt = self.until(";")
            if head == "RETURN" and len(stmt) > 1 and stmt[1].up == "QUERY":
                self.dynamic_or_query(stmt[2:])
            else:
                self.expression(stmt[1:])
        elif head == "PERFORM":
            stmt = self.until(";")
            self.add(stmt, joined(self.body, [stmt[1:]], "SELECT "))
        elif head == "EXECUTE":
            self.execute(self.until(";")[1:])
        elif head == "OPEN":
            stmt = self.until(";")
            at = next((k for k, t in enumerate(stmt) if t.up == "FOR"), None)
            if at is not None:
                self.dynamic_or_query(stmt[at + 1 :])
        elif head in ("COMMIT", "ROLLBACK"):
            raise Unclassified("transaction control inside a PL/pgSQL body")
        else:
            stmt = self.until(";")
            assign = next((k for k, t in enumerate(stmt) if t.text == ":="), None)
            if assign is None and len(stmt) > 1 and stmt[1].text == "=":
                assign = 1
            if assign is not None:
                self.expression(stmt[assign + 1 :])
            else:
                self.query(stmt)

    def loop(self, head: str) -> None:
        self.i += 1
        if head != "LOOP":
            header = self.until("LOOP")
            at = next((k for k, t in enumerate(header) if t.up in ("IN", "ARRAY")), None)
            if head == "WHILE":
                self.expression(header)
            elif at is not None:
                self.dynamic_or_query(header[at + 1 :])
        self.statements("END")
        self.expect("END")
        self.expect("LOOP")
        if self.up() not in (";", ""):
            self.i += 1
        self.accept(";")

    def dynamic_or_query(self, toks: list[Tok]) -> None:
        """What a FOR loop or RETURN QUERY iterates: a query, EXECUTE, or an expression."""
        if toks and toks[0].up == "EXECUTE":
            self.execute(toks[1:])
        elif (toks and toks[0].up in _QUERIES) or (
            len(toks) > 1 and toks[0].text == "(" and toks[1].up in _QUERIES
        ):
            self.query(toks)
        else:
            self.expression(toks)

    def execute(self, toks: list[Tok]) -> None:
        """EXECUTE of a constant string runs that string; anything else is dynamic."""
        at = next((k for k, t in enumerate(toks) if t.up in ("INTO", "USING")), len(toks))
        constant = _constant(toks[:at])
        if constant is None:
            raise Unclassified("runs SQL built at run time (EXECUTE)", anything=True)
        line = self.line(toks)
        self.units.extend((s.sql, None, line) for s in split_sql(constant) if s.sql)


def _constant(toks: list[Tok]) -> str | None:
    """The value of a string constant expression: literals joined by `||`, or `format()` of
    a literal without arguments; None when the value depends on run time."""
    if (
        len(toks) >= 4
        and toks[0].up == "FORMAT"
        and toks[1].text == "("
        and toks[-1].text == ")"
        and toks[2].kind == "string"
        and len(toks) == 4
        and "%" not in toks[2].text.replace("%%", "")
    ):
        return toks[2].text.replace("%%", "%")
    parts: list[str] = []
    for k, tok in enumerate(toks):
        if k % 2 == 0 and tok.kind == "string":
            parts.append(tok.text)
        elif k % 2 == 1 and tok.text == "||":
            continue
        else:
            return None
    return "".join(parts) if parts and len(toks) % 2 == 1 else None
