"""Hostile migrations (issue 17, items 8 and 12, and nested parentheses of item 6): a clear
`unknown` with the bound that was crossed, never a crash, a hang or a silent safe."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release_safety.cli.main import run
from release_safety.contract.reports import SURFACES, SurfaceReport
from release_safety.release.verdict import decide
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse
from release_safety.surfaces.migrations.budget import (
    MAX_BRACKET_NESTING,
    MAX_FILE_CHARS,
    MAX_NESTING,
    MAX_STATEMENT_CHARS,
    MAX_STATEMENTS,
    Budget,
    OverBudget,
)
from release_safety.surfaces.migrations.engines.postgres.classify import classify
from release_safety.surfaces.migrations.engines.postgres.context import Context
from release_safety.surfaces.migrations.engines.postgres.heaviness import analyse_extracted
from release_safety.surfaces.migrations.lint import lint_texts
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.sql.sqlfile import split_sql
from release_safety.surfaces.migrations.sql.statements import Extracted

DROP = "ALTER TABLE users DROP COLUMN age;\n"


def lint(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str | bytes) -> tuple[int, dict]:
    path = tmp_path / "0001_hostile.sql"
    if isinstance(body, str):
        path.write_text(body, encoding="utf-8")
    else:
        path.write_bytes(body)
    code = run(["lint-migrations", "--json", str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, json.loads(captured.out)


def rules_of(data: dict) -> set[str]:
    return {f["rule"] for report in data["files"] for f in report["findings"]}


def test_a_byte_order_mark_does_not_hide_the_first_statement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], release_pair: object
) -> None:
    code, data = lint(tmp_path, capsys, "\ufeff".encode() + DROP.encode())
    assert code == 1 and "drop-column" in rules_of(data)
    assert not any(r.startswith("migration-") for r in rules_of(data))
    old, new = release_pair(  # type: ignore[operator]
        {"db/migrations/0001.sql": "CREATE TABLE users (id int, age int);"},
        {"db/migrations/0002.sql": "\ufeff" + DROP},
    )
    report = analyse(old, new, Settings())
    assert [f.rule for f in report.breaking()] == ["drop-column"]
    assert report.unknown() == []


def test_deeply_nested_parentheses_are_unknown_with_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "SELECT " + "(" * 5000 + "1" + ")" * 5000 + ";\n"
    code, data = lint(tmp_path, capsys, deep + DROP)
    assert code == 1
    (report,) = data["files"]
    unknown = [f for f in report["findings"] if f["rule"] == "migration-statement-unknown"]
    assert unknown and "nested more than" in unknown[0]["message"]
    assert "drop-column" in rules_of(data)  # the rest of the file is still read


def test_nested_array_brackets_are_unknown_not_a_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = lint(tmp_path, capsys, "SELECT " + "ARRAY[" * 300 + "1" + "]" * 300 + ";")
    assert code == 1 and "migration-statement-unknown" in rules_of(data)


@pytest.mark.parametrize(
    ("opening", "depth"),
    [("ARRAY[", MAX_BRACKET_NESTING), ("(", MAX_NESTING), ("(ARRAY[", MAX_BRACKET_NESTING)],
)
def test_nesting_is_bounded_at_exactly_its_depth(opening: str, depth: int) -> None:
    """One level past a bound is unknown, the bound itself is read (classification skips the
    count when the text holds too few brackets to pass one)."""
    for levels, unknown in ((depth, False), (depth + 1, True)):
        closing = {"(": ")", "ARRAY[": "]", "(ARRAY[": "])"}[opening] * levels
        sql = "SELECT " + opening * levels + "1" + closing + ";"
        found = classify(sql, Context()).unknown
        assert (found is not None and "nested more than" in found) == unknown, (levels, found)


def test_a_huge_migration_is_over_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inserts = "".join(f"INSERT INTO t (id, v) VALUES ({i}, 'value {i}');\n" for i in range(300_000))
    assert len(inserts) > MAX_FILE_CHARS
    code, data = lint(tmp_path, capsys, inserts)
    assert code == 1 and rules_of(data) == {"migration-over-budget"}
    (report,) = data["files"]
    assert set(report["heaviness"].values()) == {"unknown"}
    assert "characters" in report["findings"][0]["message"]


def test_an_over_budget_migration_makes_the_release_unknown_never_true(
    release_pair: object,
) -> None:
    old, new = release_pair(  # type: ignore[operator]
        {"db/migrations/0001.sql": "CREATE TABLE users (id int, age int);"},
        {"db/migrations/0002.sql": "-- " + "x" * MAX_FILE_CHARS + "\n" + DROP},
    )
    report = analyse(old, new, Settings())
    (unknown,) = report.unknown()
    assert unknown.rule == "migration-over-budget" and "characters" in unknown.message
    others = [SurfaceReport(surface=s, checked=True) for s in SURFACES if s != report.surface]
    assert decide([report, *others]).rolling_update_safe == "unknown"


def test_a_single_line_expression_of_4_mb_is_over_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = lint(tmp_path, capsys, "SELECT " + "+".join(["1"] * 2_000_000) + ";")
    assert code == 1 and rules_of(data) == {"migration-over-budget"}


def test_too_many_statements_are_over_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = lint(tmp_path, capsys, "SELECT 1;\n" * (MAX_STATEMENTS + 1))
    assert code == 1 and rules_of(data) == {"migration-over-budget"}
    assert "statements" in data["files"][0]["findings"][0]["message"]


def test_a_statement_beyond_its_bound_is_unknown_and_the_rest_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "SELECT '" + "x" * MAX_STATEMENT_CHARS + "';\n"
    code, data = lint(tmp_path, capsys, long + DROP)
    assert code == 1
    assert {"migration-statement-unknown", "drop-column"} <= rules_of(data)


def test_the_cpu_budget_stops_a_file() -> None:
    extracted = Extracted(split_sql(DROP + DROP))
    with pytest.raises(OverBudget, match="CPU time"):  # between its statements
        analyse_extracted(extracted, Context(), Budget(deadline=0.0))
    # a deadline the wall clock says cannot have passed yet: the CPU clock is not read
    later = Budget(deadline=0.0, after=time.perf_counter() + 3600)
    assert analyse_extracted(extracted, Context(), later).tables == ["users"]


_OPENERS = ["(", "ARRAY[", "CASE WHEN true THEN ", "IF true THEN ", "BEGIN ", "/*", "'", "$$"]
_CLOSERS = {"(": ")", "ARRAY[": "]", "CASE WHEN true THEN ": " END", "IF true THEN ": " END IF;"}


@st.composite
def hostile(draw: st.DrawFn) -> str:
    """A statement nested deep (sometimes unbalanced), padded to huge sizes, with a DROP
    COLUMN after it."""
    opener = draw(st.sampled_from(_OPENERS))
    depth = draw(st.one_of(st.integers(0, 40), st.integers(200, 20_000)))
    closer = _CLOSERS.get(opener, "")
    balanced = draw(st.booleans())
    head = draw(st.sampled_from(["SELECT ", "DO $x$ BEGIN ", "UPDATE users SET a = ", ""]))
    filler = draw(st.sampled_from(["", "x" * 150_000, ";" * 5_000, "\x00\ufeff\u202e"]))
    tail = draw(st.sampled_from(["", " END $x$", ";"]))
    body = opener * depth + "1" + filler + (closer * depth if balanced else "")
    return f"{head}{body}{tail};\n{DROP}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile())
def test_hostile_text_is_classified_or_unknown_never_a_crash(text: str) -> None:
    (analysis,) = lint_texts([("m.sql", text, "sql")], Reading())
    for flag in (analysis.locks, analysis.rewrites, analysis.scans):
        assert flag in (True, False, "unknown")
    rules = {issue.rule for issue in analysis.issues}
    # never a silent safe: the DROP COLUMN is found, or the file is unknown
    assert "drop-column" in rules or rules & {
        "migration-unparseable",
        "migration-statement-unknown",
        "migration-over-budget",
    }
