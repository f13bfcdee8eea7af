"""extract_knex never raises: arbitrary text and mangled migrations give statements or unknowns."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release_safety.surfaces.migrations.frameworks.knex import extract_knex
from release_safety.surfaces.migrations.sql.statements import Extracted

FIXTURES = sorted((Path(__file__).resolve().parents[3] / "fixtures" / "knex").iterdir())
SOURCES = [(p.read_text(), p.name) for p in FIXTURES]
TOKENS = [
    "knex",
    ".schema",
    ".raw(",
    "(",
    ")",
    "{",
    "}",
    "`",
    "${",
    "'",
    '"',
    ";",
    "=>",
    "await ",
    "async ",
    ".alter()",
    "table.",
    "for (const x of ",
    "if (",
    "return ",
    "\\",
    "\n",
    "[",
    "]",
    ",",
    "...",
    "?.",
    "!",
    "/*",
    "//",
]


def check(result: Extracted, lines: int) -> None:
    assert isinstance(result.transactional, bool)
    for statement in result.statements:
        assert 1 <= statement.line <= lines + 1
        assert statement.sql is None or isinstance(statement.sql, str)
        if statement.sql is None:
            assert statement.reason


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(), suffix=st.sampled_from([".ts", ".js"]))
def test_arbitrary_text_never_raises(text: str, suffix: str) -> None:
    check(extract_knex(text, "20240101000000_x" + suffix), text.count("\n") + 1)


@st.composite
def mangled(draw: st.DrawFn) -> tuple[str, str]:
    text, name = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 40)))
        action = draw(st.sampled_from(["delete", "duplicate", "insert"]))
        if action == "delete":
            text = text[:start] + text[end:]
        elif action == "duplicate":
            text = text[:end] + text[start:end] + text[end:]
        else:
            text = text[:start] + draw(st.sampled_from(TOKENS)) + text[start:]
    return text, name


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mangled())
def test_mangled_migrations_never_raise(case: tuple[str, str]) -> None:
    text, name = case
    check(extract_knex(text, name), text.count("\n") + 1)


@settings(max_examples=100, deadline=None)
@given(
    body=st.lists(
        st.sampled_from(
            [
                "await knex.raw(`SELECT ${X}`);",
                "await knex.schema.alterTable(T, (t) => { t.text(X).alter(); });",
                "for (const x of [1, 2]) { await knex(T).where('a', x).del(); }",
                "if (await knex.schema.hasTable(T)) { return; }",
                "const y = X + 1;",
                "await Promise.all([knex(T).update({ a: X })]);",
                "knex.schema.createTable(T, function () { this.increments(); });",
                "await helper(knex);",
                "while (true) { await knex.raw('x'); }",
            ]
        ),
        max_size=8,
    )
)
def test_generated_up_bodies_give_sql_or_reasons(body: list[str]) -> None:
    text = (
        "const T = 'things';\nconst X = 'col';\n"
        "export async function up(knex) {\n  " + "\n  ".join(body) + "\n}\n"
    )
    result = extract_knex(text, "20240101000000_x.ts")
    check(result, text.count("\n") + 1)
    assert all(s.sql is not None or s.line > 3 for s in result.statements)
