"""Rust (env::var, clap, figment / config-rs defaults files) and Python (pydantic-settings
next to os.environ): every rule both ways, on real two-tag repositories."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Files = dict[str, str | None]
RUST = ("server/src/**/*.rs", "server/config.default.toml")
PYTHON = ("app/*.py",)


def clap(*fields: str) -> Files:
    body = "".join(f"    {f}\n" for f in fields)
    return {"server/src/args.rs": f"#[derive(Parser)]\nstruct Args {{\n{body}}}\n"}


def rust_main(*lines: str) -> Files:
    body = "".join(f"    {line}\n" for line in lines)
    return {"server/src/main.rs": f"fn main() -> anyhow::Result<()> {{\n{body}    Ok(())\n}}\n"}


FIGMENT = (
    'const DEFAULTS: &str = include_str!("../config.default.toml");\n\n'
    "pub fn load() -> Figment {\n    Figment::new()\n        .merge(Toml::string(DEFAULTS))\n"
    '        .merge(Env::prefixed("SVIX_"))\n}\n'
)


def figment(toml: str) -> Files:
    return {"server/src/cfg.rs": FIGMENT, "server/config.default.toml": toml}


def settings_class(*fields: str, config: str = 'env_prefix="APP_"') -> Files:
    body = "".join(f"    {f}\n" for f in fields)
    return {
        "app/settings.py": (
            "from pydantic import AliasChoices, BaseModel, Field\n"
            "from pydantic_settings import BaseSettings, SettingsConfigDict\n\n\n"
            'class Database(BaseModel):\n    host: str = "db"\n\n\n'
            "class Settings(BaseSettings):\n"
            f"    model_config = SettingsConfigDict({config})\n\n{body}"
        )
    }


CASES: list[tuple[str, tuple[str, ...], Files, Files, list[tuple[str, str]]]] = [
    (
        "clap-default-changed",
        RUST,
        clap('#[arg(long, env = "PORT", default_value = "8071")]', "port: u16,"),
        clap('#[arg(long, env = "PORT", default_value = "8072")]', "port: u16,"),
        [("config-default-changed", "env var `PORT` default changed `8071` → `8072`")],
    ),
    (
        "clap-bare-env-renamed-with-the-field",
        RUST,
        clap("#[clap(env, default_value_t = 4)]", "workers: usize,"),
        clap("#[clap(env, default_value_t = 4)]", "worker_count: usize,"),
        [("config-var-renamed", "env var `WORKERS` renamed to `WORKER_COUNT` without fallback")],
    ),
    (
        "clap-required-and-optional-added",
        RUST,
        clap('#[arg(env = "A", default_value = "1")]', "a: u8,"),
        clap(
            '#[arg(env = "A", default_value = "1")]',
            "a: u8,",
            '#[arg(long, env = "TOKEN")]',
            "token: String,",
            '#[arg(long, env = "PROXY")]',
            "proxy: Option<String>,",
        ),
        [
            (
                "config-required-var-added",
                "new env var `TOKEN` required at start-up with no default",
            ),
            ("config-optional-var-added", "new optional env var `PROXY` (default (none))"),
        ],
    ),
    (
        "env-var-became-required",
        RUST,
        rust_main('let level = std::env::var("LOG_LEVEL").ok();'),
        rust_main('let level = std::env::var("LOG_LEVEL")?;'),
        [("config-var-became-required", "env var `LOG_LEVEL` became required (no default)")],
    ),
    (
        "env-var-renamed-with-fallback",
        RUST,
        rust_main('let url = env::var("DB_URL").unwrap_or_default();'),
        rust_main(
            'let url = env::var("DATABASE_URL")'
            '.or_else(|_| env::var("DB_URL")).unwrap_or_default();'
        ),
        [
            (
                "config-var-renamed-with-fallback",
                "env var `DB_URL` renamed to `DATABASE_URL`; `DB_URL` still read as a fallback",
            )
        ],
    ),
    (
        "env-var-reformatted",
        RUST,
        rust_main('let url = env::var("DB_URL").unwrap_or_default();'),
        rust_main("let url =", '    std::env::var("DB_URL")', "        .unwrap_or_default();"),
        [],
    ),
    (
        "figment-defaults-file-default-changed-and-key-removed",
        RUST,
        figment('listen_address = "0.0.0.0:8071"\nlog_level = "info"\n'),
        figment('listen_address = "0.0.0.0:8072"\n'),
        [
            (
                "config-default-changed",
                "env var `SVIX_LISTEN_ADDRESS` default changed `0.0.0.0:8071` → `0.0.0.0:8072`",
            ),
            ("config-var-removed", "env var `SVIX_LOG_LEVEL` removed (previous default `info`)"),
        ],
    ),
    (
        "figment-defaults-file-comments-only",
        RUST,
        figment('# the address\nlisten_address = "0.0.0.0:8071"\n'),
        figment('# the address to listen on\n\nlisten_address = "0.0.0.0:8071"  # default\n'),
        [],
    ),
    (
        "config-rs-prefix-and-separator",
        ("src/*.rs", "config/default.yaml"),
        {
            "src/main.rs": (
                "fn main() {\n    let c = Config::builder()\n"
                '        .add_source(File::with_name("config/default.yaml"))\n'
                '        .add_source(Environment::with_prefix("APP").separator("__"));\n}\n'
            ),
            "config/default.yaml": "database:\n  pool: 10\n",
        },
        {"config/default.yaml": "database:\n  pool: 20\n"},
        [
            (
                "config-default-changed",
                "env var `APP__DATABASE__POOL` default changed `10` → `20`",
            )
        ],
    ),
    (
        "pydantic-default-changed-and-required-added",
        PYTHON,
        settings_class("debug: bool = False"),
        settings_class("debug: bool = True", "signing_key: str"),
        [
            ("config-default-changed", "env var `APP_DEBUG` default changed `False` → `True`"),
            (
                "config-required-var-added",
                "new env var `APP_SIGNING_KEY` required at start-up with no default",
            ),
        ],
    ),
    (
        "pydantic-prefix-changed-renames-every-field",
        PYTHON,
        settings_class('region: str = "eu"'),
        settings_class('region: str = "eu"', config='env_prefix="SVC_"'),
        [("config-var-renamed", "env var `APP_REGION` renamed to `SVC_REGION` without fallback")],
    ),
    (
        "pydantic-alias-choices-keep-the-old-name",
        PYTHON,
        settings_class('region: str = "eu"'),
        settings_class(
            'region: str = Field("eu", validation_alias=AliasChoices("APP_ZONE", "APP_REGION"))'
        ),
        [
            (
                "config-var-renamed-with-fallback",
                "env var `APP_REGION` renamed to `APP_ZONE`; `APP_REGION` still read as a fallback",
            )
        ],
    ),
    (
        "pydantic-nested-delimiter",
        PYTHON,
        settings_class(
            "db: Database = Database()", config='env_prefix="APP_", env_nested_delimiter="__"'
        ),
        settings_class(
            "db: Database = Database()",
            config='env_prefix="APP_", env_nested_delimiter="__"',
        )
        | {"app/models.py": "import os\n\nTIMEOUT = os.getenv('APP_TIMEOUT', '5')\n"},
        [("config-optional-var-added", "new optional env var `APP_TIMEOUT` (default `5`)")],
    ),
    (
        "pydantic-class-renamed-is-no-change",
        PYTHON,
        settings_class("debug: bool = False"),
        {
            "app/settings.py": settings_class("debug: bool = False")["app/settings.py"].replace(
                "class Settings", "class AppSettings"
            )
        },
        [],
    ),
]


@pytest.mark.parametrize(
    ("sources", "old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_rust_and_python_rules(
    seen: Callable[..., list[tuple[str, str]]],
    sources: tuple[str, ...],
    old: Files,
    new: Files,
    expected: list[tuple[str, str]],
) -> None:
    assert seen(old, new, sources) == expected


def test_pydantic_nested_fields_are_read_key_by_key(judge: Callable[..., ConfigReport]) -> None:
    config = 'env_prefix="APP_", env_nested_delimiter="__"'
    old = settings_class("db: Database = Database()", config=config)
    new = {
        "app/settings.py": old["app/settings.py"].replace('host: str = "db"', 'host: str = "pg"')
    }
    report = judge(old, new, PYTHON)
    assert [(f.rule, f.message) for f in report.findings] == [
        ("config-default-changed", "env var `APP_DB__HOST` default changed `db` → `pg`")
    ]


def test_a_rust_file_that_reads_nothing_is_not_parsed(judge: Callable[..., ConfigReport]) -> None:
    unparseable = "fn f() { let S { #[allow(x)] a } = s; }\n"
    report = judge(
        rust_main('let a = env::var("A").ok();') | {"server/src/other.rs": unparseable},
        rust_main('let a = env::var("A").ok();', "let b = 1;"),
        RUST,
    )
    assert report.checked is True and report.findings == []
    broken = judge(
        rust_main('let a = env::var("A").ok();'), rust_main('let a = env::var("A"'), RUST
    )
    assert broken.checked is False
    assert broken.reason is not None and broken.reason.startswith("server/src/main.rs:")


def test_the_settings_prefix_wins_over_the_code(judge: Callable[..., ConfigReport]) -> None:
    old = figment('log_level = "info"\n')
    new = figment('log_level = "debug"\n')
    sources = ("server/src/**/*.rs", {"path": "server/config.default.toml", "env_prefix": "X_"})
    report = judge(old, new, sources)
    assert [f.message for f in report.findings] == [
        "env var `X_LOG_LEVEL` default changed `info` → `debug`"
    ]
