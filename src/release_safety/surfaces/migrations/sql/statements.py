"""What extraction hands to classification: a migration file as a list of statements."""

from __future__ import annotations

from itertools import starmap

from release_safety.common.value import HashableValue
from release_safety.surfaces.migrations.sql.lexer import Tok

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final

    from release_safety.surfaces.migrations.sql.lexer import Kind

    Bodies = dict[str, list[tuple[str, list[Tok] | None, int]]]
    """The statements of PL/pgSQL bodies by the body's text: each one's text, its tokens (or
    None) and the lines of the body before it (`plpgsql.Unit`)."""


class Statement(HashableValue):
    """One SQL statement of a migration, or a statement whose text could not be determined.

    `sql` is None when the text is dynamic (built at run time, a `DO` body that cannot be read);
    `reason` then says why. `line` and `column` (of its first character) are 1-based in the
    migration file. `terminated`: a `;` ends it (else the file does, where PostgreSQL reads
    "end of input").
    """

    FIELDS = ("sql", "line", "reason", "column", "terminated")

    sql: Final[str | None]
    line: Final[int]
    reason: Final[str | None]
    toks: list[Tok] | None
    """Its tokens when the split already read them (`tokenize(sql)`), else None (read-only,
    as every field: mypy refuses assignments to the others, which are Final)."""
    column: Final[int]
    terminated: Final[bool]
    checked: tuple[tuple[int, int, str], ...]
    """The grammar's checks its tokens are known to pass, found ahead (`grammar.prechecked`;
    not a field, as `toks`)."""
    bodies: Bodies | None
    """The statements of its PL/pgSQL body by the body's text, read ahead (`plpgsql.ahead`;
    not a field)."""

    def __init__(
        self,
        sql: str | None,
        line: int,
        reason: str | None = None,
        toks: list[Tok] | None = None,
        column: int = 1,
        terminated: bool = True,
        checked: tuple[tuple[int, int, str], ...] = (),
        bodies: Bodies | None = None,
    ) -> None:
        self.sql = sql
        self.line = line
        self.reason = reason
        self.toks = toks
        self.column = column
        self.terminated = terminated
        self.checked = checked
        self.bodies = bodies


class Extracted(HashableValue):
    """A migration file's statements and whether they run in one transaction. `wrapped`: the
    tool that runs the file wraps it in a transaction for certain (its markers, knex's
    default), so a statement that cannot run in one fails there."""

    FIELDS = ("statements", "transactional", "wrapped")

    statements: Final[list[Statement]]
    transactional: Final[bool]
    wrapped: Final[bool]

    def __init__(
        self,
        statements: list[Statement] | None = None,
        transactional: bool = True,
        wrapped: bool = False,
    ) -> None:
        self.statements = [] if statements is None else statements
        self.transactional = transactional
        self.wrapped = wrapped


if TYPE_CHECKING:  # an Extracted as plain tuples (`pack`): they pickle in a fifth of the time
    PackedTok = tuple[Kind, str, int, int, str, str]
    PackedStatement = tuple[
        str | None,
        int,
        str | None,
        list[PackedTok] | None,
        int,
        bool,
        tuple[tuple[int, int, str], ...],
        dict[str, list[tuple[str, list[PackedTok] | None, int]]] | None,
    ]
    Packed = tuple[list[PackedStatement], bool, bool]


def pack(extracted: Extracted, strings: dict[str, str]) -> Packed:
    """`extracted` as plain tuples, every field kept (`unpack` rebuilds it); the tokens' equal
    texts as one string (`strings`: those packed so far), which a pickler's memo sends once."""
    one = strings.setdefault

    def packed(toks: list[Tok] | None) -> list[PackedTok] | None:
        if toks is None:
            return None
        return [
            (t.kind, one(t.text, t.text), t.start, t.end, one(t.up, t.up), one(t.key, t.key))
            for t in toks
        ]

    return (
        [
            (
                s.sql,
                s.line,
                s.reason,
                packed(s.toks),
                s.column,
                s.terminated,
                s.checked,
                None
                if s.bodies is None
                else {
                    text: [(sql, packed(toks), line) for sql, toks, line in units]
                    for text, units in s.bodies.items()
                },
            )
            for s in extracted.statements
        ],
        extracted.transactional,
        extracted.wrapped,
    )


def unpack(packed: Packed) -> Extracted:
    """The Extracted `pack` gave these tuples for."""
    statements, transactional, wrapped = packed
    return Extracted(
        [
            Statement(
                sql,
                line,
                reason,
                None if toks is None else list(starmap(Tok, toks)),
                column,
                ended,
                checked,
                None
                if bodies is None
                else {
                    text: [
                        (unit, None if ts is None else list(starmap(Tok, ts)), at)
                        for unit, ts, at in units
                    ]
                    for text, units in bodies.items()
                },
            )
            for sql, line, reason, toks, column, ended, checked, bodies in statements
        ],
        transactional,
        wrapped,
    )
