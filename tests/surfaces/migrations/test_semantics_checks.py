"""A CHECK that rejects what old code writes is breaking: the column's default, or a value
the previous release's CHECK allowed (release-level), and what `checkvalues`
reads of a CHECK."""

from __future__ import annotations

import pytest

from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse
from release_safety.surfaces.migrations.engines.postgres.checkvalues import (
    allowed,
    constant,
    passes,
)
from release_safety.surfaces.migrations.sql.tokens import tokenize

INIT = (
    "CREATE TABLE members (id int PRIMARY KEY, plan text NOT NULL DEFAULT 'free',"
    " kind text CHECK (kind IN ('a', 'b', 'c')), score int DEFAULT 0);\n"
)


def _breaking(sql: str) -> list[tuple[str, int, str]]:
    old = {"migrations/001_init.sql": INIT}
    new = {**old, "migrations/002_check.sql": sql}
    report = analyse(MemorySnapshot(old), MemorySnapshot(new), Settings())
    return [(f.rule, f.line, f.message) for f in report.breaking()]


def test_a_check_rejecting_the_default_breaks_old_inserts() -> None:
    found = _breaking(
        "SET lock_timeout = '1s';\n"
        "ALTER TABLE members ADD CONSTRAINT plan_paid CHECK (plan IN ('pro', 'team')) NOT VALID;\n"
    )
    assert found == [
        (
            "check-rejects-old-writes",
            2,
            "CHECK plan_paid on members rejects plan's default 'free': old code's inserts that "
            "leave plan out fail",
        )
    ]


def test_a_check_narrowed_breaks_old_writes() -> None:
    found = _breaking(
        "SET lock_timeout = '1s';\n"
        "ALTER TABLE members DROP CONSTRAINT members_kind_check,\n"
        "  ADD CONSTRAINT members_kind_check CHECK (kind IN ('a', 'b')) NOT VALID;\n"
    )
    assert [(rule, line) for rule, line, _ in found] == [("check-rejects-old-writes", 2)]
    assert "kind = 'c'" in found[0][2]


def test_a_check_widened_or_keeping_the_default_breaks_nothing() -> None:
    assert (
        _breaking(
            "SET lock_timeout = '1s';\n"
            "ALTER TABLE members DROP CONSTRAINT members_kind_check,\n"
            "  ADD CONSTRAINT members_kind_check CHECK (kind IN ('a', 'b', 'c', 'd')) NOT VALID;\n"
            "ALTER TABLE members ADD CONSTRAINT score_positive CHECK (score >= 0) NOT VALID;\n"
        )
        == []
    )


def test_a_check_on_the_default_number() -> None:
    found = _breaking(
        "SET lock_timeout = '1s';\n"
        "ALTER TABLE members ADD CONSTRAINT score_positive CHECK (score > 0) NOT VALID;\n"
    )
    assert [(rule, line) for rule, line, _ in found] == [("check-rejects-old-writes", 2)]


def _toks(sql: str) -> list:  # type: ignore[type-arg]
    return tokenize(sql)


@pytest.mark.parametrize(
    ("check", "value", "expected"),
    [
        ("kind IN ('a', 'b')", "'a'", True),
        ("kind IN ('a', 'b')", "'c'", False),
        ("(kind)::text = ANY ((ARRAY['a'::character varying])::text[])", "'b'", False),
        ("kind <> 'x' AND kind <> 'y'", "'y'", False),
        ("kind <> 'x' OR length(kind) > 2", "'x'", None),
        ("n BETWEEN 1 AND 3", "2", None),
        ("n >= -1", "-2", False),
        ("NOT (n = 3)", "3", False),
        ("\"Kind\" = 'a'", "'a'", None),
    ],
)
def test_passes(check: str, value: str, expected: bool | None) -> None:
    column = "n" if check.startswith(("n ", "NOT")) else "kind"
    assert passes(_toks(check), column, value) is expected


def test_allowed_and_constant() -> None:
    assert allowed(_toks("kind IN ('a', 'b')"), "kind") == {"'a'", "'b'"}
    assert allowed(_toks("kind = 'a'"), "kind") == {"'a'"}
    assert allowed(_toks("kind <> 'a'"), "kind") is None
    assert constant(_toks("'free'::text")) == "'free'"
    assert constant(_toks("-1")) == "-1"
    assert constant(_toks("now()")) is None
