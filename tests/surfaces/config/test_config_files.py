"""Config files (TOML, YAML, JSON), env files as names or defaults, example files beside the
code, and what `config.sources` leaves out: every rule both ways, on real two-tag
repositories."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.model import ConfigRemoved, ConfigRenamed
from release_safety.contract.reports import ConfigReport

Files = dict[str, str | None]
Seen = Callable[..., list[tuple[str, str]]]
Judge = Callable[..., ConfigReport]

CASES: list[tuple[str, tuple[object, ...], Files, Files, list[tuple[str, str]]]] = [
    (
        "toml-default-changed",
        ("config.toml",),
        {"config.toml": "[server]\nport = 8080\nhost = 'a'\n"},
        {"config.toml": "[server]\nhost = 'a'\nport = 8081\n"},
        [("config-default-changed", "config key `server.port` default changed `8080` → `8081`")],
    ),
    (
        "yaml-table-moved-is-a-rename",
        ("conf/app.yaml",),
        {"conf/app.yaml": "database:\n  host: db\n  pool: 10\nlog: info\n"},
        {"conf/app.yaml": "db:\n  host: db\n  pool: 10\nlog: info\n"},
        [
            (
                "config-var-renamed",
                "config key `database.host` renamed to `db.host` without fallback",
            ),
            (
                "config-var-renamed",
                "config key `database.pool` renamed to `db.pool` without fallback",
            ),
        ],
    ),
    (
        "json-key-removed-list-changed",
        ("settings.json",),
        {"settings.json": '{"retry": [1, 2], "legacy": true, "name": "x"}'},
        {"settings.json": '{"retry": [1, 2, 3], "name": "x"}'},
        [
            ("config-default-changed", "config key `retry` default changed `[1, 2]` → `[1, 2, 3]`"),
            ("config-var-removed", "config key `legacy` removed (previous default `true`)"),
        ],
    ),
    (
        "yaml-template-gives-names-not-defaults",
        ("make/harbor.yml.tmpl",),
        {
            "make/harbor.yml.tmpl": (
                "hostname: reg.example.com\n_version: 2.13.0\nhttp:\n  port: 80\n"
            )
        },
        {
            "make/harbor.yml.tmpl": (
                "hostname: reg.example.org\n_version: 2.14.0\nhttp:\n  port: 8080\n"
            )
        },
        [],
    ),
    (
        "yaml-template-key-removed",
        ("make/harbor.yml.tmpl",),
        {"make/harbor.yml.tmpl": "hostname: reg\nhttp:\n  port: 80\n"},
        {"make/harbor.yml.tmpl": "hostname: reg\n"},
        [("config-var-removed", "config key `http.port` removed (previous default (none))")],
    ),
    (
        "template-marked-as-defaults",
        ({"path": "make/harbor.yml.tmpl", "defaults": True},),
        {"make/harbor.yml.tmpl": "hostname: reg\nhttp:\n  port: 80\n"},
        {"make/harbor.yml.tmpl": "hostname: reg\nhttp:\n  port: 8080\n"},
        [("config-default-changed", "config key `http.port` default changed `80` → `8080`")],
    ),
    (
        "config-file-marked-as-examples",
        ({"path": "config.toml", "defaults": False},),
        {"config.toml": "port = 1\n"},
        {"config.toml": "port = 2\n"},
        [],
    ),
    (
        "env-example-values-are-examples",
        ("server/development.env",),
        {
            "server/development.env": 'DATABASE_URL="postgresql://localhost/postgres"\nREDIS=redis://localhost\n'
        },
        {
            "server/development.env": 'DATABASE_URL="postgresql://localhost:5433/postgres"\nREDIS=redis://localhost:6380\n'
        },
        [],
    ),
    (
        "env-file-marked-as-defaults",
        ({"path": "server/development.env", "defaults": True},),
        {"server/development.env": "REDIS=redis://localhost\n"},
        {"server/development.env": "REDIS=redis://localhost:6380\n"},
        [
            (
                "config-default-changed",
                "env var `REDIS` default changed `redis://localhost` → `redis://localhost:6380`",
            )
        ],
    ),
    (
        "required-and-not-in-the-example",
        (".env.example", "app/*.py"),
        {".env.example": "PORT=\n", "app/main.py": "import os\nPORT = os.getenv('PORT', '1')\n"},
        {
            "app/main.py": (
                "import os\nPORT = os.getenv('PORT', '1')\nKEY = os.environ['SIGNING_KEY']\n"
            )
        },
        [
            (
                "config-required-var-added",
                "new env var `SIGNING_KEY` required at start-up with no default",
            ),
            (
                "config-required-var-unlisted",
                "env var `SIGNING_KEY` is required and no example file lists it",
            ),
        ],
    ),
    (
        "required-and-in-the-example",
        (".env.example", "app/*.py"),
        {".env.example": "PORT=\n", "app/main.py": "import os\nPORT = os.getenv('PORT', '1')\n"},
        {
            ".env.example": "PORT=\nSIGNING_KEY=\n",
            "app/main.py": (
                "import os\nPORT = os.getenv('PORT', '1')\nKEY = os.environ['SIGNING_KEY']\n"
            ),
        },
        [
            (
                "config-required-var-added",
                "new env var `SIGNING_KEY` required at start-up with no default",
            )
        ],
    ),
    (
        "exclude-globs-leave-files-out",
        ({"path": "src/**/*.py", "exclude": ["src/scripts/**"]},),
        {
            "src/app.py": "import os\nA = os.getenv('A')\n",
            "src/scripts/dev.py": "import os\nB = os.getenv('B')\n",
        },
        {"src/scripts/dev.py": "import os\n"},
        [],
    ),
    (
        "test-files-are-left-out",
        ("src/**/*.py", "web/**/*.ts"),
        {
            "src/app.py": "import os\nA = os.getenv('A')\n",
            "src/test_app.py": "import os\nH = os.environ['HOME']\n",
            "web/app.ts": "export const a = process.env.A;\n",
            "web/app.test.ts": "export const b = process.env.CI;\n",
        },
        {"src/test_app.py": "import os\n", "web/app.test.ts": "export {};\n"},
        [],
    ),
]


@pytest.mark.parametrize(
    ("sources", "old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_file_rules(
    seen: Seen, sources: tuple[object, ...], old: Files, new: Files, expected: list[tuple[str, str]]
) -> None:
    assert seen(old, new, sources) == expected


def test_a_declared_rename(judge: Judge) -> None:
    report = judge(
        {"config.toml": "db_host = 'db'\n"},
        {"config.toml": "database_host = 'postgres'\n"},
        ("config.toml",),
        renames={"database_host": "db_host"},
    )
    assert [(f.rule, f.message) for f in report.findings] == [
        ("config-var-renamed", "config key `db_host` renamed to `database_host` without fallback")
    ]
    assert report.changes == [
        ConfigRenamed(
            type="renamed", name="database_host", previousName="db_host", defaultValue="postgres"
        )
    ]


def test_without_the_declaration_it_is_a_removal(judge: Judge) -> None:
    report = judge(
        {"config.toml": "db_host = 'db'\n"},
        {"config.toml": "database_host = 'postgres'\n"},
        ("config.toml",),
    )
    assert report.changes == [ConfigRemoved(type="removed", name="db_host", previousDefault="db")]


def test_findings_point_at_the_key(judge: Judge) -> None:
    report = judge(
        {"conf/app.yaml": "server:\n  host: a\n  port: 1\n"},
        {"conf/app.yaml": "# comment\nserver:\n  host: a\n  port: 2\n"},
        ("conf/app.yaml",),
    )
    [finding] = report.findings
    assert (finding.file, finding.line) == ("conf/app.yaml", 4)


def test_an_entry_whose_files_are_all_excluded_matches_nothing(judge: Judge) -> None:
    report = judge(
        {"cmd/a_test.go": "package a\n"},
        {"cmd/a_test.go": "package a\n\nvar x = 1\n"},
        ("cmd/*.go",),
    )
    assert report.checked is False
    assert [(f.rule, f.message) for f in report.findings if f.rule != "surface-not-checked"] == [
        (
            "settings-path-unmatched",
            ".release-safety.toml: key 'config.sources': 'cmd/*.go' matches nothing at v1.0.1",
        )
    ]


def test_the_same_files_read_with_other_entries_are_read_again(judge: Judge) -> None:
    """What a ref's files say is kept per files and entries: the same files named by another
    entry (values as defaults or as names only) are read again, not taken from the first."""
    old, new = {".env": "PORT=80\n"}, {".env": "PORT=81\n"}
    as_defaults = judge(old, new, [{"path": ".env", "defaults": True}])
    assert [f.rule for f in as_defaults.findings] == ["config-default-changed"]
    assert judge(old, new, [{"path": ".env", "defaults": False}]).findings == []
    assert judge(old, new, [{"path": ".env", "defaults": True}]).findings == as_defaults.findings
