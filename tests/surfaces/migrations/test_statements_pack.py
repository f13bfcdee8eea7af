"""A file's statements packed as plain tuples for a pipe (`statements.pack`) and rebuilt
(`unpack`): every field of every statement and token comes back (compiled or not)."""

from __future__ import annotations

import pickle

import pytest

from release_safety.surfaces.migrations.lint import split_file
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement, pack, unpack

TEXTS = [
    "CREATE TABLE t (id bigserial PRIMARY KEY, name text NOT NULL DEFAULT 'x''y');\n"
    "ALTER TABLE t ADD COLUMN c double precision;  -- a comment\nCOMMIT",
    "DO $$ BEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'k') THEN\n"
    "    CREATE TYPE k AS ENUM ('x');\n  END IF;\nEND $$;\n",
    "-- +goose Up\nSELECT E'a\\nb', U&'d\\0061t', X'1F', 1.5e3, \"Quoted\"\"Name\";\n"
    "-- +goose Down\nDROP TABLE t;\n",
    "CREATE FUNCTION f() RETURNS int BEGIN ATOMIC SELECT 1; END;\n/* block */ SELECT 2;",
]


def _fields(extracted: Extracted) -> list[tuple[object, ...]]:
    return [
        (s.sql, s.line, s.reason, s.toks, s.column, s.terminated, s.checked, s.bodies)
        for s in extracted.statements
    ] + [(extracted.transactional, extracted.wrapped)]


@pytest.mark.parametrize("text", TEXTS)
def test_packed_statements_come_back_whole(text: str) -> None:
    extracted = split_file(text, "db/001.sql", "sql", Reading())
    assert isinstance(extracted, Extracted) and extracted.statements
    strings: dict[str, str] = {}
    back = unpack(pickle.loads(pickle.dumps(pack(extracted, strings))))
    assert _fields(back) == _fields(extracted)
    # the lexer's tokens where the split read them (the first two), else none to carry
    assert any(s.toks for s in extracted.statements) is (text in TEXTS[:2])
    # what the split finds ahead with them: the grammar's checks, a DO block's statements
    assert any(s.checked for s in extracted.statements) is (text == TEXTS[0])
    assert any(s.bodies for s in extracted.statements) is (text == TEXTS[1])


def test_statements_without_text_or_tokens_come_back_whole() -> None:
    extracted = Extracted(
        [Statement(None, 3, "built at run time", column=5), Statement("SELECT 1", 7)],
        transactional=False,
        wrapped=True,
    )
    assert _fields(unpack(pack(extracted, {}))) == _fields(extracted)


def test_equal_texts_are_packed_as_one_string() -> None:
    extracted = split_file(
        "ALTER TABLE t ADD a int;\nALTER TABLE t ADD b int;\n", "x.sql", "sql", Reading()
    )
    assert isinstance(extracted, Extracted)
    strings: dict[str, str] = {}
    first, second = pack(extracted, strings)[0]
    assert first[3] is not None and second[3] is not None
    for one, other in zip(first[3], second[3], strict=True):
        if one[1] == other[1]:  # ALTER, TABLE, t, ADD, int: one string each
            assert one[1] is other[1] and one[4] is other[4]
    assert "TABLE" in strings and strings["t"] == "t"
