"""Python config libraries (environs, django-environ, dynaconf) as one-change releases on real
two-tag repositories, and an unmodelled library as an unknown naming it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Judge = Callable[..., ConfigReport]
Files = dict[str, str | None]

ENVIRONS = (
    "from environs import Env\n\nenv = Env()\nenv.read_env()\n\n"
    'DEBUG = env.bool("DEBUG", False)\n'
    'PORT = env.int("PORT", default=8000)\n'
    'SECRET = env.str("SECRET")\n'
    'with env.prefixed("APP_"):\n'
    '    WORKERS = env.int("WORKERS", 4)\n'
)
DJANGO = (
    "import environ\n\nenv = environ.Env(DEBUG=(bool, False), ALLOWED=(list, []))\n\n"
    'DEBUG = env("DEBUG")\n'
    'TIMEOUT = env.int("TIMEOUT", default=30)\n'
    'KEY = env("SECRET_KEY")\n'
    "DATABASES = {'default': env.db()}\n"
)
DYNACONF = (
    "from dynaconf import Dynaconf, Validator\n\n"
    'settings = Dynaconf(envvar_prefix="APP", settings_files=["settings.toml"],\n'
    '    validators=[Validator("TOKEN", must_exist=True), Validator("db.pool", default=5)])\n'
)
TOML = 'port = 8000\n[db]\nhost = "db"\n'


def case(code: str, toml: str | None = None) -> Files:
    files: Files = {"app/settings.py": code}
    if toml is not None:
        files["app/settings.toml"] = toml
    return files


CASES = [
    (
        "environs-removed",
        ENVIRONS,
        ENVIRONS.replace('PORT = env.int("PORT", default=8000)\n', ""),
        "config-var-removed",
        "`PORT`",
    ),
    (
        "environs-default",
        ENVIRONS,
        ENVIRONS.replace("8000", "9000"),
        "config-default-changed",
        "`8000` → `9000`",
    ),
    (
        "environs-prefixed-default",
        ENVIRONS,
        ENVIRONS.replace(", 4)", ", 8)"),
        "config-default-changed",
        "`APP_WORKERS`",
    ),
    (
        "environs-required",
        ENVIRONS,
        ENVIRONS.replace('env.bool("DEBUG", False)', 'env.bool("DEBUG")'),
        None,
        "`DEBUG`",
    ),
    (
        "django-schema-default",
        DJANGO,
        DJANGO.replace("(bool, False)", "(bool, True)"),
        "config-default-changed",
        "`DEBUG`",
    ),
    (
        "django-removed-db",
        DJANGO,
        DJANGO.replace("env.db()", "{}"),
        "config-var-removed",
        "`DATABASE_URL`",
    ),
    ("django-required", DJANGO, DJANGO.replace(", default=30", ""), None, "`TIMEOUT`"),
    ("dynaconf-file-default", DYNACONF, DYNACONF, "config-default-changed", "`APP_PORT`"),
    (
        "dynaconf-validator-default",
        DYNACONF,
        DYNACONF.replace("default=5", "default=6"),
        "config-default-changed",
        "`APP_DB__POOL`",
    ),
    (
        "dynaconf-made-required",
        DYNACONF,
        DYNACONF.replace(
            'Validator("db.pool", default=5)', 'Validator("db.pool", must_exist=True)'
        ),
        None,
        "`APP_DB__POOL`",
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "rule", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_one_change_releases_through_libraries_are_breaking(
    judge: Judge, old: str, new: str, rule: str | None, words: str
) -> None:
    toml = TOML if "Dynaconf" in old else None
    new_toml = toml.replace("8000", "9000") if toml and old == new else toml
    report = judge(case(old, toml), case(new, new_toml), ["app/settings.py"])
    assert report.checked is True, report.reason
    breaking = [f for f in report.findings if f.severity == "breaking"]
    assert breaking, report.findings
    assert rule is None or breaking[0].rule == rule
    assert words in breaking[0].message


@pytest.mark.parametrize("code", [ENVIRONS, DJANGO, DYNACONF], ids=["environs", "django", "dyna"])
def test_comment_only_releases_are_quiet(judge: Judge, code: str) -> None:
    toml = TOML if "Dynaconf" in code else None
    report = judge(case(code, toml), case(code + "# c\n", toml), ["app/settings.py"])
    assert report.checked is True, report.reason
    assert report.findings == []
    assert report.coverage.understood


def test_what_each_library_reads(judge: Judge) -> None:
    understood = {}
    for code in (ENVIRONS, DJANGO, DYNACONF):
        toml = TOML if "Dynaconf" in code else None
        report = judge(case(code, toml), case(code, toml), ["app/settings.py"])
        understood[code] = sorted(report.coverage.understood)
    assert understood[ENVIRONS] == ["APP_WORKERS", "DEBUG", "PORT", "SECRET"]
    assert understood[DJANGO] == ["DATABASE_URL", "DEBUG", "SECRET_KEY", "TIMEOUT"]
    assert understood[DYNACONF] == ["APP_DB__HOST", "APP_DB__POOL", "APP_PORT", "APP_TOKEN"]


def test_an_unmodelled_library_is_unknown_naming_it(judge: Judge) -> None:
    code = (
        "import os\nfrom decouple import config\n\n"
        'PORT = os.getenv("PORT", "80")\nDEBUG = config("DEBUG", default=False, cast=bool)\n'
    )
    report = judge(case(code), case(code + "# c\n"), ["app/settings.py"])
    assert report.checked is False
    found = [f for f in report.findings if f.rule == "config-read-not-understood"]
    assert len(found) == 1 and found[0].line == 5
    assert "python-decouple" in found[0].message
    assert "app/settings.py" in (found[0].hint or "")
    assert report.coverage.unmodelled[0].blocking is True


def test_dynaconf_environments_read_the_default_layer(judge: Judge) -> None:
    code = DYNACONF.replace(
        'settings_files=["settings.toml"]', 'settings_files=["settings.toml"], environments=True'
    )
    layered = "[default]\nport = 8000\n[production]\nport = 80\n"
    report = judge(
        case(code, layered), case(code, layered.replace("8000", "8001")), ["app/settings.py"]
    )
    assert [(f.rule, f.message) for f in report.findings] == [
        ("config-default-changed", "env var `APP_PORT` default changed `8000` → `8001`")
    ]
