"""Rust files that read nothing by themselves are parsed only when they name what the reads
depend on (a reader function, a constant a read passes, a struct envy loads): each such file
still changes the answer when it changes, and a file naming none of them is not parsed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport
from release_safety.surfaces.config import rust_src

Judge = Callable[..., ConfigReport]
SOURCES = ["src/**/*.rs"]

UTIL = "use std::env;\n\npub fn opt(key: &str) -> Option<String> {\n    env::var(key).ok()\n}\n"
KEYS = 'pub const DB_URL: &str = "DATABASE_URL";\n'
WRAP = (
    "use crate::util;\n\npub fn setting(name: &str) -> Option<String> {\n    util::opt(name)\n}\n"
)
SETTINGS = (
    "use serde::Deserialize;\n\n"
    "#[derive(Deserialize)]\npub struct Settings {\n    pub port: u16,\n"
    "    pub log_level: Option<String>,\n}\n"
)
MAIN = (
    "mod keys;\nmod settings;\nmod util;\nmod wrap;\nuse crate::keys::DB_URL;\n\n"
    "fn main() {\n"
    '    let url = std::env::var(DB_URL).expect("set it");\n'
    '    let host = wrap::setting("HOST");\n'
    "    let s = envy::from_env::<settings::Settings>().unwrap();\n"
    "}\n"
)
PLAIN = "pub fn area(width: u32, height: u32) -> u32 {\n    width * height\n}\n"


def files(**changed: str) -> dict[str, str | None]:
    base = {
        "src/main.rs": MAIN,
        "src/util.rs": UTIL,
        "src/keys.rs": KEYS,
        "src/wrap.rs": WRAP,
        "src/settings.rs": SETTINGS,
        "src/geometry.rs": PLAIN,
    }
    return base | {f"src/{name}.rs": text for name, text in changed.items()}


def test_files_named_by_the_reads_are_read_though_they_read_nothing(judge: Judge) -> None:
    report = judge(files(), files(geometry=PLAIN + "// tuned\n"), SOURCES)
    assert report.checked is True, report.reason
    assert report.findings == []
    assert sorted(report.coverage.understood) == ["DATABASE_URL", "HOST", "LOG_LEVEL", "PORT"]


@pytest.mark.parametrize(
    ("changed", "gone"),
    [
        ({"keys": KEYS.replace('"DATABASE_URL"', '"DB_URL"')}, "`DATABASE_URL`"),
        ({"wrap": WRAP.replace("util::opt(name)", "Some(name.to_string())")}, "`HOST`"),
        ({"settings": SETTINGS.replace("    pub port: u16,\n", "")}, "`PORT`"),
        ({"geometry": PLAIN + "pub fn setting(x: &str) -> u8 {\n    0\n}\n"}, "`HOST`"),
    ],
    ids=["constant", "wrapper", "envy-struct", "reader-made-ambiguous"],
)
def test_a_change_in_a_file_without_reads_of_its_own_is_seen(
    judge: Judge, changed: dict[str, str], gone: str
) -> None:
    report = judge(files(), files(**changed), SOURCES)
    assert report.checked is True, report.reason
    breaking = [f for f in report.findings if f.severity == "breaking"]
    assert [gone in f.message for f in breaking] == [True], report.findings


def test_a_file_naming_nothing_the_reads_depend_on_is_not_parsed(
    judge: Judge, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[bytes] = []
    real = rust_src.parse

    def spy(source: bytes) -> rust_src.RustFacts:
        parsed.append(source)
        return real(source)

    monkeypatch.setattr(rust_src, "parse", spy)
    unrelated = PLAIN.replace("area", "surface_of_the_skip_test")
    main = MAIN + "// the skip test's own blob\n"
    old, new = (
        files(geometry=unrelated, main=main),
        files(geometry=unrelated + "// v2\n", main=main),
    )
    report = judge(old, new, SOURCES)
    assert report.checked is True, report.reason
    assert report.findings == []
    assert not [source for source in parsed if b"surface_of_the_skip_test" in source]
    assert [source for source in parsed if b"envy::from_env" in source]  # spied on indeed


@pytest.mark.parametrize(
    "text",
    [
        'std::env::var("X")',
        'Env::prefixed("APP_")',
        'Environment::with_prefix("APP")',
        'include_str!("../config.toml")',
        'Toml::file("config.toml")',
        'File::with_name("config")',
        "File::from(path)",
        "#[arg(long, value_parser = [1], env)]",
        "envy::from_env::<Config>()",
        'builder.set_default("a.b", 1)',
        "use envconfig::Envconfig",
        "confy::load",
        "twelf::config",
        "econf::load",
        "serde_env::from_env()",
        "dotenv_config::EnvConfig",
    ],
)
def test_a_file_with_a_read_loader_or_crate_of_its_own_is_always_parsed(text: str) -> None:
    assert rust_src.on_its_own(f"fn main() {{\n    {text};\n}}\n".encode())


def test_a_file_without_any_is_parsed_only_when_it_names_what_reads_depend_on() -> None:
    assert not rust_src.on_its_own(PLAIN.encode())
    assert rust_src.naming(frozenset({"area"}))(PLAIN.encode())
    assert not rust_src.naming(frozenset({"are", "setting"}))(PLAIN.encode())
