"""Checked means understood: sources that read nothing, and variables lost at once, are unknown."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.contract.reports import ConfigReport

Judge = Callable[..., ConfigReport]


def test_sources_that_read_no_variable_leave_config_unchecked(judge: Judge) -> None:
    report = judge(
        {"src/app.ts": "export const x = 1;\n"},
        {"src/app.ts": "export const x = 2;\n"},
        ["src/*.ts"],
    )
    assert report.checked is False
    assert [f.rule for f in report.findings] == ["config-nothing-read"]
    assert report.findings[0].file == "src/app.ts"
    hint = report.findings[0].hint or ""
    assert "[config] sources" in hint and "src/app.ts" in hint
    assert '[config] absent = "<why this service has no environment configuration>"' in hint


def test_most_variables_gone_at_once_is_one_unknown_finding(judge: Judge) -> None:
    names = [f"SETTING_{i}" for i in range(12)]
    old = "".join(f"export const v{i} = process.env.{n} ?? 'x';\n" for i, n in enumerate(names))
    report = judge(
        {"src/config.ts": old},
        {"src/config.ts": "export const p = process.env.PORT;\n"},
        ["src/*.ts"],
    )
    assert report.checked is False
    rules = [f.rule for f in report.findings]
    assert "config-loader-lost" in rules and "config-var-removed" not in rules
    lost = next(f for f in report.findings if f.rule == "config-loader-lost")
    assert "12 of the 12 variables" in lost.message and lost.file == "src/config.ts"
    assert report.coverage.understood == {"PORT": "src/config.ts:1"}


def test_a_few_variables_removed_stay_removals(judge: Judge) -> None:
    names = [f"SETTING_{i}" for i in range(12)]
    old = "".join(f"export const v{i} = process.env.{n} ?? 'x';\n" for i, n in enumerate(names))
    new = "".join(f"export const v{i} = process.env.{n} ?? 'x';\n" for i, n in enumerate(names[2:]))
    report = judge({"src/config.ts": old}, {"src/config.ts": new}, ["src/*.ts"])
    assert report.checked is True
    assert [f.rule for f in report.findings] == ["config-var-removed"] * 2
