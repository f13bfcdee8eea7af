"""Each TypeScript blob is parsed once and its facts kept by blob id, yet what a file reads is
resolved again at every ref: a release that changes only an imported helper changes the reads
of the unchanged files calling it. A source that never names `env` is not walked for literal
reads, and still fails on a syntax error when it calls a reader (`test_config_ts_skip.py`: one
no read can reach is not parsed)."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.contract.reports import ConfigReport

Judge = Callable[..., ConfigReport]

HELPER = """\
export function getEnv(key: string, fallback = 'info'): string {
  return process.env[key] ?? fallback;
}
"""

CALLER = "import { getEnv } from './helpers';\nexport const level = getEnv('LOG_LEVEL');\n"
"""The same blob at both refs: its facts are taken once."""


def test_a_helper_default_changed_alone_changes_the_read_of_its_unchanged_caller(
    judge: Judge,
) -> None:
    old = {"src/helpers.ts": HELPER, "src/app.ts": CALLER}
    new = {"src/helpers.ts": HELPER.replace("'info'", "'warn'")}
    report = judge(old, new, ["src/*.ts"])
    assert [(f.rule, f.file, f.line) for f in report.findings] == [
        ("config-default-changed", "src/app.ts", 2)
    ]
    assert "`info` → `warn`" in report.findings[0].message


def test_a_helper_made_to_throw_alone_makes_its_unchanged_callers_variable_required(
    judge: Judge,
) -> None:
    helper = "export function need(key: string) {\n  const v = process.env[key];\n  return v;\n}\n"
    throwing = helper.replace("return v;", "if (!v) throw new Error(key);\n  return v;")
    caller = "import { need } from './helpers';\nexport const url = need('DATABASE_URL');\n"
    old = {"src/helpers.ts": helper, "src/app.ts": caller}
    report = judge(old, {"src/helpers.ts": throwing}, ["src/*.ts"])
    assert [(f.rule, f.file) for f in report.findings] == [
        ("config-var-became-required", "src/app.ts")
    ]


def test_a_helper_changed_by_a_comment_alone_leaves_the_release_quiet(judge: Judge) -> None:
    old = {"src/helpers.ts": HELPER, "src/app.ts": CALLER}
    new = {"src/helpers.ts": "// reads the environment\n" + HELPER}
    report = judge(old, new, ["src/*.ts"])
    assert report.checked is True and report.findings == []
    assert sorted(report.coverage.understood) == ["LOG_LEVEL"]


def test_a_syntax_error_in_a_source_that_names_no_env_is_not_checked_when_it_calls_a_reader(
    judge: Judge,
) -> None:
    old = {"src/helpers.ts": HELPER, "src/app.ts": CALLER, "src/util.ts": "export const a = 1;\n"}
    broken = "import { getEnv } from './helpers';\nexport const b = getEnv('B') + ;\n"
    report = judge(old, {"src/util.ts": broken}, ["src/*.ts"])
    assert report.checked is False
    assert [f.file for f in report.findings if f.severity == "unknown"] == ["src/util.ts"]


def test_a_t3_schema_whose_only_env_is_create_env_is_read(judge: Judge) -> None:
    schema = (
        "import { createEnv } from './t3';\n"
        "export const settings = createEnv({\n"
        "  server: { LOG_LEVEL: z.string().default('info') },\n"
        "});\n"
    )
    report = judge(
        {"src/settings.ts": schema},
        {"src/settings.ts": schema.replace("'info'", "'debug'")},
        ["src/*.ts"],
    )
    assert [(f.rule, f.file) for f in report.findings] == [
        ("config-default-changed", "src/settings.ts")
    ]
