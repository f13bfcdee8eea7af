"""Rust reader functions across files, envy, config-rs defaults and unmodelled crates: each
one-change release on a real two-tag repository (removed, default changed, made required:
breaking; comment only: quiet; computed name in a changed file, unmodelled crate: unknown)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Judge = Callable[..., ConfigReport]
Files = dict[str, str | None]
SOURCES = ["src/**/*.rs"]

UTIL = (
    "use std::env;\nuse std::str::FromStr;\n\n"
    "pub fn env_or<T: FromStr>(name: &str, default: T) -> T {\n"
    "    env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)\n}\n\n"
    "pub fn opt(key: &str) -> Option<String> {\n    env::var(key).ok()\n}\n\n"
    "pub fn must(key: &str) -> String {\n"
    '    opt(key).unwrap_or_else(|| panic!("{key} is not set"))\n}\n'
)
MAIN = (
    "mod util;\nuse crate::util::{env_or, must, opt};\n\n"
    'const PORT_VAR: &str = "PORT";\n\n'
    "fn main() {\n"
    "    let port: u16 = env_or(PORT_VAR, 8080);\n"
    '    let workers = util::env_or("WORKERS", 4);\n'
    '    let host = opt("HOST").unwrap_or("0.0.0.0".to_string());\n'
    '    let secret = must("SECRET");\n'
    "}\n"
)


def repo(main: str, util: str = UTIL) -> Files:
    return {"src/util.rs": util, "src/main.rs": main}


def test_rust_readers_are_resolved_across_files(judge: Judge) -> None:
    report = judge(repo(MAIN), repo(MAIN + "// tuned\n"), SOURCES)
    assert report.checked is True, report.reason
    assert report.findings == []
    assert sorted(report.coverage.understood) == ["HOST", "PORT", "SECRET", "WORKERS"]


@pytest.mark.parametrize(
    ("new", "rule", "words"),
    [
        (
            MAIN.replace('    let workers = util::env_or("WORKERS", 4);\n', ""),
            "config-var-removed",
            "`WORKERS`",
        ),
        (MAIN.replace("8080", "9090"), "config-default-changed", "`8080` → `9090`"),
        (MAIN.replace('"0.0.0.0"', '"127.0.0.1"'), "config-default-changed", "`HOST`"),
        (
            MAIN.replace('opt("HOST").unwrap_or("0.0.0.0".to_string())', 'must("HOST")'),
            None,
            "`HOST`",
        ),
    ],
    ids=["removed", "default-argument", "default-on-result", "made-required"],
)
def test_one_change_releases_through_rust_readers_are_breaking(
    judge: Judge, new: str, rule: str | None, words: str
) -> None:
    report = judge(repo(MAIN), repo(new), SOURCES)
    assert report.checked is True, report.reason
    breaking = [f for f in report.findings if f.severity == "breaking"]
    assert breaking, report.findings
    assert rule is None or breaking[0].rule == rule
    assert words in breaking[0].message and breaking[0].file == "src/main.rs"


def test_a_computed_rust_name_in_a_changed_file_is_unknown(judge: Judge) -> None:
    new = MAIN.replace("}\n", '    let x = env_or(&format!("{}_X", port), 1);\n}\n')
    report = judge(repo(MAIN), repo(new), SOURCES)
    assert report.checked is False
    gap = next(f for f in report.findings if f.rule == "config-read-not-understood")
    assert gap.file == "src/main.rs" and gap.line == 11
    assert 'env_or(&format!("{}_X", port))' in gap.message


ENVY = (
    "use serde::Deserialize;\n\n#[derive(Deserialize)]\nstruct Config {\n"
    '    #[serde(default = "default_port")]\n    port: u16,\n'
    "    database_url: String,\n"
    "    proxy: Option<String>,\n"
    '    #[serde(rename = "log")]\n    log_level: String,\n}\n\n'
    "fn default_port() -> u16 {\n    8080\n}\n\n"
    "fn main() {\n"
    '    let config = envy::prefixed("APP_").from_env::<Config>().unwrap();\n}\n'
)


@pytest.mark.parametrize(
    ("new", "rule", "words"),
    [
        (
            ENVY.replace("    database_url: String,\n", ""),
            "config-var-removed",
            "`APP_DATABASE_URL`",
        ),
        (ENVY.replace("    8080\n", "    9090\n"), "config-default-changed", "`8080` → `9090`"),
        (ENVY.replace("proxy: Option<String>", "proxy: String"), None, "`APP_PROXY`"),
    ],
    ids=["removed", "default-changed", "made-required"],
)
def test_envy_one_change_releases_are_breaking(
    judge: Judge, new: str, rule: str | None, words: str
) -> None:
    report = judge({"src/main.rs": ENVY}, {"src/main.rs": new}, SOURCES)
    assert report.checked is True, report.reason
    breaking = [f for f in report.findings if f.severity == "breaking"]
    assert breaking, report.findings
    assert rule is None or breaking[0].rule == rule
    assert words in breaking[0].message


def test_envy_reads_the_fields_and_a_comment_is_quiet(judge: Judge) -> None:
    report = judge({"src/main.rs": ENVY}, {"src/main.rs": ENVY + "// c\n"}, SOURCES)
    assert report.checked is True, report.reason
    assert report.findings == []
    assert sorted(report.coverage.understood) == [
        "APP_DATABASE_URL",
        "APP_LOG",
        "APP_PORT",
        "APP_PROXY",
    ]


CONFIG_RS = (
    "fn load() -> Result<Config, ConfigError> {\n    Config::builder()\n"
    '        .set_default("server.port", 8080)?\n'
    '        .add_source(Environment::with_prefix("APP").separator("__"))\n'
    "        .build()\n}\n"
)


def test_config_rs_set_default_is_the_variable_default(judge: Judge) -> None:
    report = judge(
        {"src/main.rs": CONFIG_RS},
        {"src/main.rs": CONFIG_RS.replace("8080", "9090")},
        SOURCES,
    )
    assert [(f.rule, f.message) for f in report.findings] == [
        ("config-default-changed", "env var `APP__SERVER__PORT` default changed `8080` → `9090`")
    ]


def test_an_unmodelled_crate_is_unknown_naming_it(judge: Judge) -> None:
    code = (
        "use envconfig::Envconfig;\n\n#[derive(Envconfig)]\nstruct Config {\n"
        '    #[envconfig(from = "DB_HOST", default = "localhost")]\n    db_host: String,\n}\n\n'
        'fn main() {\n    let port = std::env::var("PORT").unwrap();\n'
        "    let c = Config::init_from_env().unwrap();\n}\n"
    )
    report = judge({"src/main.rs": code}, {"src/main.rs": code + "// c\n"}, SOURCES)
    assert report.checked is False
    found = [f for f in report.findings if f.rule == "config-read-not-understood"]
    assert len(found) == 1 and found[0].line == 1 and "envconfig" in found[0].message
    assert "src/main.rs" in (found[0].hint or "")


def test_an_unparseable_file_naming_a_reader_is_a_gap_only_then(judge: Judge) -> None:
    unparseable = 'fn f() { let S { #[allow(x)] a } = s; let b = env_or("B", 1); }\n'
    quiet = "fn f() { let S { #[allow(x)] a } = s; }\n"
    for other, checked in ((unparseable, False), (quiet, True)):
        old = repo(MAIN) | {"src/other.rs": other}
        report = judge(old, old | {"src/other.rs": other + "// c\n"}, SOURCES)
        assert report.checked is checked, report.findings
    report = judge(
        repo(MAIN) | {"src/other.rs": unparseable},
        repo(MAIN) | {"src/other.rs": unparseable + "// c\n"},
        SOURCES,
    )
    assert [(f.rule, f.file, f.line) for f in report.findings] == [
        ("config-read-not-understood", "src/other.rs", 1)
    ]
