"""TypeScript / JavaScript reader functions resolved across files: one-change releases of a
small service reading its variables through its own helpers, decided beside clean reports of
every other surface."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import SURFACES, ConfigReport, SurfaceReport
from release_safety.release.verdict import decide

Judge = Callable[..., ConfigReport]

ENV_TS = """\
export function getConfigFromEnv(key: string): string | undefined {
  return process.env[key];
}

export const getIntFromEnv = (key: string): number | undefined => {
  const value = getConfigFromEnv(key);
  return value === undefined ? undefined : parseInt(value, 10);
};

export function getEnv(key: string, fallback = 'info'): string {
  return process.env[key] ?? fallback;
}

export function requireEnv(key: string): string {
  const value = process.env[key];
  if (!value) {
    throw new Error(`${key} must be set`);
  }
  return value;
}

export const env = {
  get(name: string, otherwise?: string) {
    return getConfigFromEnv(name) ?? otherwise;
  },
};
"""

ENV_JS = """\
function read(key, otherwise) {
  const value = process.env[key];
  return value === undefined ? otherwise : value;
}
const readBool = (key) => read(key, 'false') === 'true';
module.exports = { read, readBool };
"""

SHAPES = {
    "helper in another file": (
        "import { getConfigFromEnv } from './env';\n",
        "getConfigFromEnv('{name}') || '{default}'",
    ),
    "wrapper of a wrapper": (
        "import { getIntFromEnv as int } from './env';\n",
        "int('{name}') || {default}",
    ),
    "default argument": (
        "import { getEnv } from './env';\n",
        "getEnv('{name}', '{default}')",
    ),
    "method of an exported object": (
        "import { env } from './env';\n",
        "env.get('{name}', '{default}')",
    ),
    "namespace import": (
        "import * as config from './env.js';\n",
        "config.getConfigFromEnv('{name}') ?? '{default}'",
    ),
}


def decided(report: ConfigReport) -> object:
    others = [SurfaceReport(surface=s, checked=True) for s in SURFACES if s != "config"]
    return decide([*others, report]).rolling_update_safe


def service(header: str, call: str, variables: dict[str, str], comment: str = "") -> dict:
    lines = [header, comment]
    for index, (name, default) in enumerate(variables.items()):
        lines.append(f"export const v{index} = {call.format(name=name, default=default)};")
    return {"src/env.ts": ENV_TS, "src/config.ts": "\n".join(lines) + "\n"}


BASE = {"PORT": "3000", "LOG_LEVEL": "debug", "CACHE_TTL": "60"}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_variable_removed_through_a_reader_makes_the_release_false(
    judge: Judge, shape: str
) -> None:
    header, call = SHAPES[shape]
    fewer = {k: v for k, v in BASE.items() if k != "CACHE_TTL"}
    report = judge(service(header, call, BASE), service(header, call, fewer), ["src/*.ts"])
    assert decided(report) is False
    removed = [f for f in report.findings if f.rule == "config-var-removed"]
    assert [(f.file, f.line) for f in removed] == [("src/config.ts", 6)]
    assert "CACHE_TTL" in removed[0].message
    assert sorted(report.coverage.understood) == ["LOG_LEVEL", "PORT"]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_default_changed_through_a_reader_makes_the_release_false(
    judge: Judge, shape: str
) -> None:
    header, call = SHAPES[shape]
    other = {**BASE, "PORT": "8080"}
    report = judge(service(header, call, BASE), service(header, call, other), ["src/*.ts"])
    assert decided(report) is False
    assert [f.rule for f in report.findings] == ["config-default-changed"]
    assert "`3000` → `8080`" in report.findings[0].message


@pytest.mark.parametrize("shape", SHAPES)
def test_a_comment_only_release_through_a_reader_is_true(judge: Judge, shape: str) -> None:
    header, call = SHAPES[shape]
    report = judge(
        service(header, call, BASE),
        service(header, call, BASE, comment="// settings of the service"),
        ["src/*.ts"],
    )
    assert report.checked is True and report.findings == []
    assert decided(report) is True


@pytest.mark.parametrize("shape", SHAPES)
def test_a_computed_name_in_a_changed_file_is_unknown(judge: Judge, shape: str) -> None:
    header, call = SHAPES[shape]
    new = service(header, call, BASE)
    name = call.split("(")[0]
    new["src/config.ts"] += f"const key = `${{prefix}}_URL`;\nexport const url = {name}(key);\n"
    report = judge(service(header, call, BASE), new, ["src/*.ts"])
    assert decided(report) == "unknown"
    gap = next(f for f in report.findings if f.rule == "config-read-not-understood")
    assert (gap.file, gap.line) == ("src/config.ts", 8)
    assert "`key`" in gap.message and name in (gap.hint or "")


def test_a_variable_made_required_by_a_throwing_reader_makes_the_release_false(
    judge: Judge,
) -> None:
    old = {"src/env.ts": ENV_TS, "src/app.ts": "import { getConfigFromEnv } from './env';\n"}
    old["src/app.ts"] += "export const secret = getConfigFromEnv('SIGNING_KEY');\n"
    new = {"src/app.ts": old["src/app.ts"].replace("getConfigFromEnv", "requireEnv")}
    report = judge(old, new, ["src/*.ts"])
    assert decided(report) is False
    assert [f.rule for f in report.findings] == ["config-var-became-required"]
    assert (report.findings[0].file, report.findings[0].line) == ("src/app.ts", 2)


def test_a_new_variable_required_by_a_throwing_reader_makes_the_release_false(
    judge: Judge,
) -> None:
    app = (
        "import { requireEnv, getConfigFromEnv } from './env';\nconst p = getConfigFromEnv('P');\n"
    )
    new = app + "export const url = requireEnv('DATABASE_URL');\n"
    report = judge({"src/env.ts": ENV_TS, "src/app.ts": app}, {"src/app.ts": new}, ["src/*.ts"])
    assert decided(report) is False
    assert [f.rule for f in report.findings] == ["config-required-var-added"]
    assert "DATABASE_URL" in report.findings[0].message


def test_a_javascript_reader_required_with_require_and_constants(judge: Judge) -> None:
    app = (
        "const { read, readBool } = require('./env');\n"
        "const { PORT_VAR } = require('./names');\n"
        "module.exports = { port: read(PORT_VAR, '3000'), debug: readBool('DEBUG') };\n"
    )
    names = "const PORT_VAR = 'PORT';\nmodule.exports = { PORT_VAR };\n"
    old = {"lib/env.js": ENV_JS, "lib/names.js": names, "lib/app.js": app}
    new = {"lib/app.js": app.replace("'3000'", "'8080'")}
    report = judge(old, new, ["lib/*.js"])
    assert sorted(report.coverage.understood) == ["DEBUG", "PORT"]
    assert decided(report) is False
    assert [f.rule for f in report.findings] == ["config-default-changed"]


def test_a_computed_env_index_in_a_changed_file_is_unknown(judge: Judge) -> None:
    app = "export const port = process.env.PORT ?? '3000';\n"
    new = app + "export const pick = (prefix: string) => process.env[prefix + '_URL'];\n"
    report = judge({"src/app.ts": app}, {"src/app.ts": new}, ["src/*.ts"])
    assert decided(report) == "unknown"
    gap = report.findings[0]
    assert (gap.rule, gap.file, gap.line) == ("config-read-not-understood", "src/app.ts", 2)
    assert "process.env[prefix + '_URL']" in gap.message
    assert [u.line for u in report.coverage.unmodelled] == [2]


def test_a_computed_name_in_an_unchanged_file_is_recorded_not_blocking(judge: Judge) -> None:
    pick = "export const pick = (name: string) => process.env[name.toUpperCase()];\n"
    old = {"src/pick.ts": pick, "src/app.ts": "export const port = process.env.PORT ?? '1';\n"}
    new = {"src/app.ts": "// the port\nexport const port = process.env.PORT ?? '1';\n"}
    report = judge(old, new, ["src/*.ts"])
    assert decided(report) is True
    assert [(u.file, u.line, u.blocking) for u in report.coverage.unmodelled] == [
        ("src/pick.ts", 1, False)
    ]


@pytest.mark.parametrize("library", ["nconf", "rc", "dotenv-extended"])
def test_an_unmodelled_config_library_is_unknown_naming_it(judge: Judge, library: str) -> None:
    app = f"import lib from '{library}';\nexport const port = process.env.PORT ?? '1';\n"
    report = judge({"src/app.ts": app}, {"src/app.ts": app + "// x\n"}, ["src/*.ts"])
    assert decided(report) == "unknown"
    finding = report.findings[0]
    assert (finding.rule, finding.file, finding.line) == (
        "config-read-not-understood",
        "src/app.ts",
        1,
    )
    assert library in finding.message and "exclude" in (finding.hint or "")


VALUED = """\
function envPositiveInteger(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}

export const timeout = envPositiveInteger(process.env.REQUEST_TIMEOUT_MS, 30_000);
export const port = process.env.PORT ?? '3000';
"""


def test_a_default_given_to_a_value_function_is_the_default(judge: Judge) -> None:
    report = judge(
        {"src/config.ts": VALUED},
        {"src/config.ts": VALUED.replace("30_000", "60_000")},
        ["src/*.ts"],
    )
    assert decided(report) is False
    assert [f.rule for f in report.findings] == ["config-default-changed"]
    assert "`30000` → `60000`" in report.findings[0].message
    assert (report.findings[0].file, report.findings[0].line) == ("src/config.ts", 6)


def test_a_value_function_release_with_a_comment_only_is_true(judge: Judge) -> None:
    report = judge({"src/config.ts": VALUED}, {"src/config.ts": "// x\n" + VALUED}, ["src/*.ts"])
    assert report.findings == [] and decided(report) is True


CLASS = """\
export class AppConfig {
  private read(key: string, fallback?: string): string | undefined {
    return process.env[key] ?? fallback;
  }

  get port(): string | undefined {
    return this.read('PORT', '3000');
  }
}
"""


def test_a_method_read_through_this_is_resolved(judge: Judge) -> None:
    report = judge(
        {"src/config.ts": CLASS},
        {"src/config.ts": CLASS.replace("'3000'", "'8080'")},
        ["src/*.ts"],
    )
    assert decided(report) is False
    assert [(f.rule, f.line) for f in report.findings] == [("config-default-changed", 7)]


def test_a_default_exported_reader_is_resolved_through_its_import(judge: Judge) -> None:
    reader = "export default function readEnv(key) {\n  return process.env[key];\n}\n"
    app = "import readEnv from './read.js';\nexport const url = readEnv('DATABASE_URL');\n"
    app += "export const host = readEnv('HOST');\n"
    report = judge(
        {"lib/read.js": reader, "lib/app.js": app},
        {"lib/app.js": app.split("export const host")[0]},
        ["lib/*.js"],
    )
    assert decided(report) is False
    assert [(f.rule, f.file, f.line) for f in report.findings] == [
        ("config-var-removed", "lib/app.js", 3)
    ]
