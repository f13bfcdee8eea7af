"""Config findings point at the definition, their hint speaks the service's language, and test
helpers are out of the default sources (issue 31, item 6)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Judge = Callable[..., ConfigReport]

GO = 'package main\n\nimport "os"\n\nvar host = os.Getenv("{name}")\n'


def test_a_go_rename_hint_shows_go_with_the_real_names(judge: Judge) -> None:
    report = judge(
        {"cmd/main.go": GO.format(name="DB_HOST")},
        {"cmd/main.go": GO.format(name="DATABASE_HOST")},
        ["**/*.go"],
        renames={"DATABASE_HOST": "DB_HOST"},
    )
    finding = report.findings[0]
    assert (finding.rule, finding.file, finding.line) == ("config-var-renamed", "cmd/main.go", 5)
    assert 'cmp.Or(os.Getenv("DATABASE_HOST"), os.Getenv("DB_HOST"))' in (finding.hint or "")
    assert "process.env" not in (finding.hint or "")


def test_a_python_removal_hint_shows_python(judge: Judge) -> None:
    old = "import os\n\nA = os.getenv('KEEP', 'x')\nB = os.getenv('GONE', 'y')\n"
    report = judge({"app/settings.py": old}, {"app/settings.py": old.split("B =")[0]}, ["app/*.py"])
    finding = report.findings[0]
    assert (finding.rule, finding.file, finding.line) == (
        "config-var-removed",
        "app/settings.py",
        4,
    )
    assert 'os.environ.get("GONE")' in (finding.hint or "")


def test_a_typescript_hint_goes_through_the_services_reader(judge: Judge) -> None:
    env = "export function getConfigFromEnv(key: string) {\n  return process.env[key];\n}\n"
    app = "import { getConfigFromEnv } from './env';\n"
    app += "export const port = getConfigFromEnv('PORT') ?? '3000';\n"
    report = judge(
        {"src/env.ts": env, "src/app.ts": app},
        {"src/app.ts": app.replace("'3000'", "'4000'")},
        ["src/*.ts"],
    )
    finding = report.findings[0]
    assert (finding.rule, finding.file, finding.line) == ("config-default-changed", "src/app.ts", 2)
    assert "getConfigFromEnv('PORT') ?? '3000'" in (finding.hint or "")
    assert "PORT=3000" in (finding.hint or "")


def test_a_finding_points_at_the_code_not_at_an_env_file(judge: Judge) -> None:
    code = "export const port = process.env.PORT ?? '3000';\n"
    report = judge(
        {".env": "# defaults\nPORT=3000\n", "src/config.ts": code},
        {"src/config.ts": code.replace("3000", "4000")},
        [{"path": ".env", "defaults": True}, "src/*.ts"],
    )
    assert [(f.rule, f.file, f.line) for f in report.findings] == [
        ("config-default-changed", "src/config.ts", 1)
    ]


@pytest.mark.parametrize(
    "helper",
    [
        "internal/testutil/mail.go",
        "pkg/testing/mailcatcher.go",
        "pkg/mocks/store.go",
        "pkg/store/store_mock.go",
        "internal/fakes/smtp.go",
    ],
)
def test_test_helpers_are_out_of_the_default_config_sources(judge: Judge, helper: str) -> None:
    main = GO.format(name="PORT")
    helper_code = GO.replace("package main", "package helper").format(name="MAILHOG_URL")
    report = judge(
        {"cmd/main.go": main, helper: helper_code},
        {"cmd/main.go": main, helper: None},
        ["**/*.go"],
    )
    assert report.checked is True and report.findings == []
    assert list(report.coverage.understood) == ["PORT"]


def test_a_rename_through_a_reader_hints_the_fallback_through_that_reader(judge: Judge) -> None:
    env = "export function getConfigFromEnv(key: string) {\n  return process.env[key];\n}\n"
    app = "import { getConfigFromEnv } from './env';\n"
    app += "export const db = { host: getConfigFromEnv('DB_HOST') ?? 'localhost' };\n"
    report = judge(
        {"src/env.ts": env, "src/app.ts": app},
        {"src/app.ts": app.replace("DB_HOST", "DATABASE_HOST")},
        ["src/*.ts"],
    )
    finding = report.findings[0]
    assert (finding.rule, finding.file, finding.line) == ("config-var-renamed", "src/app.ts", 2)
    fallback = "getConfigFromEnv('DATABASE_HOST') ?? getConfigFromEnv('DB_HOST')"
    assert fallback in (finding.hint or "")
