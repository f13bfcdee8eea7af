"""The safer SQL of one statement, written from its own table, index, columns and constraint:
the way out a migration finding carries (the catalogue's example stays in the rules' docs).

Built only for a rule that fires, from what the classifier read of the statement.
"""

from __future__ import annotations

import re

from release_safety.common.textcase import lower
from release_safety.surfaces.migrations.sql.lexer import Tok

_TIGHT_BEFORE = frozenset({")", ",", ".", "::", "]"})
_TIGHT_AFTER = frozenset({"(", ".", "::", "["})
_SPACED_CALL = frozenset({"CHECK", "KEY", "IN", "AS", "AND", "OR", "NOT", "UNIQUE", "USING", "ON"})
"""Words a `(` after them is not a call's: `CHECK (`, `IN (`."""


def sql_of(toks: list[Tok]) -> str:
    """Tokens written back as SQL: strings and quoted identifiers quoted again, spaces
    between words, none inside brackets or around `.` and `::`."""
    out: list[str] = []
    before = ""
    call = False
    for tok in toks:
        text = tok.text
        if tok.kind == "string":
            text = "'" + text.replace("'", "''") + "'"
        elif tok.kind == "ident" and (text != lower(text) or not text.isidentifier()):
            text = '"' + text.replace('"', '""') + '"'
        tight = not out or text in _TIGHT_BEFORE or before in _TIGHT_AFTER
        out.append(text if tight or (text == "(" and call) else " " + text)
        before = text
        call = tok.kind in ("word", "ident") and tok.up not in _SPACED_CALL
    return "".join(out)


def with_concurrently(statement: str, keyword: str) -> str:
    """`statement` with CONCURRENTLY after its first `keyword` (`INDEX`), as the migration of
    its own it must become; on one line unless a `--` comment needs its line ends."""
    text = statement
    if not re.search(r"\bCONCURRENTLY\b", text, re.IGNORECASE):
        text = re.sub(
            rf"\b{keyword}\b",
            lambda m: m.group(0) + " CONCURRENTLY",
            text,
            count=1,
            flags=re.IGNORECASE,
        )
    text = text.strip().rstrip(";").rstrip()
    return (text if "--" in text else " ".join(text.split())) + ";"


def validate_later(table: str, name: str, definition: str, kind: str = "TABLE") -> str:
    """A constraint added NOT VALID, then validated in a transaction of its own (`kind`: the
    object that holds it, a TABLE or a DOMAIN)."""
    return (
        f"ALTER {kind} {table} ADD CONSTRAINT {name} {definition} NOT VALID; COMMIT; "
        f"ALTER {kind} {table} VALIDATE CONSTRAINT {name};"
    )


def not_null_in_steps(table: str, column: str) -> str:
    """SET NOT NULL without the scan under ACCESS EXCLUSIVE: a CHECK added NOT VALID,
    validated, then SET NOT NULL (PostgreSQL 12+ trusts the validated CHECK)."""
    name = f"{table.rsplit('.', 1)[-1]}_{column}_not_null"
    return (
        f"Ship code that always writes {table}.{column} first; then "
        f"{validate_later(table, name, f'CHECK ({column} IS NOT NULL)')} COMMIT; "
        f"ALTER TABLE {table} ALTER COLUMN {column} SET NOT NULL;"
    )


def key_using_index(table: str, name: str, kind: str, columns: list[str]) -> str:
    """A primary key or unique constraint on an index built CONCURRENTLY beforehand."""
    listed = ", ".join(columns)
    index = f"{table.rsplit('.', 1)[-1]}_{'_'.join(columns) or 'key'}_idx"
    shown = "PRIMARY KEY" if kind == "PRIMARY" else "UNIQUE"
    steps = (
        f"CREATE UNIQUE INDEX CONCURRENTLY {index} ON {table} ({listed}); -- a migration of "
        f"its own; then ALTER TABLE {table} ADD CONSTRAINT {name} {shown} USING INDEX {index};"
    )
    if kind == "PRIMARY":
        return f"Make {listed} NOT NULL first (see set-not-null), then {steps}"
    return steps


def unknown_fact_hint(subject: str, reason: str) -> str:
    """The way out of a fact about `subject` the replayed schema cannot say: the earlier
    migrations when none were given, else the change that lost it written as plain SQL."""
    if "no earlier migration" in reason:
        return (
            f"Lint the file after the migrations that create {subject} (`release-safety "
            "lint-migrations --earlier FILE`, or the whole folder)."
        )
    return (
        f"Write the change that left {subject} unknown as plain SQL ({reason}), or accept it "
        "above the statement: `-- release-safety: acknowledge(schema-fact-unknown): <what "
        f"{subject} is at this point>`."
    )
