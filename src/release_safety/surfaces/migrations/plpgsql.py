"""`DO` blocks: the SQL statements of a simple PL/pgSQL body, classified as if they all run.

A body is readable when it is a sequence of SQL statements, possibly guarded by IF / ELSIF /
ELSE (every branch counts: an upper bound) with exception handlers (skipped: they run only on
error). Dynamic SQL (EXECUTE), loops, assignments and returns make the block unknown.
"""

from __future__ import annotations

from collections.abc import Callable

from release_safety.surfaces.migrations.altertable import Unclassified
from release_safety.surfaces.migrations.context import Context
from release_safety.surfaces.migrations.facts import StatementFacts
from release_safety.surfaces.migrations.tokens import Tok, split_top, tokenize

Classifier = Callable[[str, Context], StatementFacts]
_OPAQUE = frozenset({"EXECUTE", "LOOP", "FOR", "FOREACH", "WHILE", "RETURN", "CALL", "GET"})


def do_block(toks: list[Tok], facts: StatementFacts, ctx: Context, classify: Classifier) -> None:
    """Merge the facts of a DO block's statements into `facts`."""
    bodies = [t for t in toks[1:] if t.kind == "string"]
    language = [t.up for t in toks if t.kind == "word"]
    if len(bodies) != 1 or ("LANGUAGE" in language and "PLPGSQL" not in language):
        raise Unclassified("DO block body not readable")
    body = bodies[0].text
    for sql in _statements(body):
        inner = classify(sql, ctx)
        if inner.unknown is not None:
            raise Unclassified(f"DO block: {inner.unknown}")
        for fact in inner.tables.values():
            facts.touch(fact.table, fact.lock).merge(fact)
        facts.issues.extend(inner.issues)
        facts.outside_transaction |= inner.outside_transaction


def _statements(body: str) -> list[str]:
    """The SQL statements of a PL/pgSQL body, control flow and handlers removed."""
    toks = tokenize(body)
    if any(t.up in _OPAQUE for t in toks) or any(t.text == ":=" for t in toks):
        raise Unclassified("DO block runs dynamic SQL or control flow")
    begin = next((k for k, t in enumerate(toks) if t.up == "BEGIN"), None)
    if begin is None:
        raise Unclassified("DO block without BEGIN")
    out: list[str] = []
    in_handler = False
    for piece in split_top(toks[begin + 1 :], ";"):
        piece = _strip_control(piece)
        if piece and piece[0].up == "EXCEPTION":
            in_handler = True
        if in_handler or not piece or piece[0].up in ("NULL", "RAISE", "END", "BEGIN"):
            continue
        sql = body[piece[0].start : piece[-1].end + 1]
        out.append("SELECT" + sql[len("PERFORM") :] if piece[0].up == "PERFORM" else sql)
    return out


def _strip_control(piece: list[Tok]) -> list[Tok]:
    """Drop leading BEGIN, END IF, ELSE and `IF|ELSIF <condition> THEN` from a piece."""
    changed = True
    while piece and changed:
        changed = False
        head = piece[0].up
        if head in ("BEGIN", "ELSE"):
            piece, changed = piece[1:], True
        elif head == "END" and len(piece) > 1 and piece[1].up == "IF":
            piece, changed = piece[2:], True
        elif head in ("IF", "ELSIF"):
            then = next((k for k, t in enumerate(piece) if t.up == "THEN"), None)
            if then is None:
                raise Unclassified("DO block IF without THEN")
            piece, changed = piece[then + 1 :], True
    return piece
