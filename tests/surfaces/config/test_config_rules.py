"""Every config rule in both directions, per source language, on real git repositories."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.model import ConfigDefaultChanged, ConfigRemoved, ConfigRenamed
from release_safety.contract.reports import ConfigReport
from release_safety.git.repository import GitSnapshot
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import ConfigSettings, ConfigSource, Settings
from release_safety.surfaces.config import analyse as analyse_config
from release_safety.surfaces.config import source_kind
from release_safety.surfaces.discovery import matching

Files = dict[str, str | None]
Pair = Callable[[Files, Files], tuple[GitSnapshot, GitSnapshot]]

PATTERNS = (
    ConfigSource(path=".env.example"),
    ConfigSource(path="deploy/defaults.env", defaults=True),
    ConfigSource(path="src/**/*.ts"),
    ConfigSource(path="app/*.py"),
    ConfigSource(path="cmd/**/*.go"),
    ConfigSource(path="server/src/*.rs"),
    ConfigSource(path="config.toml"),
    ConfigSource(path="conf/*.yaml"),
    ConfigSource(path="settings.json"),
)


def analyse(old: Snapshot | None, new: Snapshot) -> ConfigReport:
    """The config surface with the patterns that name a file at the new ref set explicitly
    (an explicit pattern that names nothing there is bad settings, tested on its own)."""
    sources = tuple(p for p in PATTERNS if matching(new, p.path))
    return analyse_config(old, new, Settings(config=ConfigSettings(sources=sources)))


def go_struct(*fields: str) -> str:
    """A struct caarlos0/env fills (struct tags no loader reaches are a gap, not variables)."""
    return (
        'package app\n\nimport "github.com/caarlos0/env/v11"\n\ntype C struct {\n'
        + "".join(f"\t{f}\n" for f in fields)
        + "}\n\nfunc Load() {\n\tvar c C\n\t_ = env.Parse(&c)\n}\n"
    )


def go_main(*body: str, imports: str = '"os"') -> str:
    lines = "".join(f"\t{line}\n" for line in body)
    return f"package main\n\nimport ({imports})\n\nfunc main() {{\n{lines}}}\n"


def go_default(value: str) -> str:
    return go_main('v := os.Getenv("MODE")', 'if v == "" {', f'\tv = "{value}"', "}", "_ = v")


# (case id, old files, new files, expected (rule, severity, message), expected changes)
ZOD_HELPERS = (
    "const optionalText = () =>\n"
    "  z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional());\n"
    "function requiredUrl() {\n"
    "  return z.string().url();\n"
    "}\n"
    "const schema = z.object({\n"
    "  DATABASE_URL: requiredUrl(),\n"
)
"""An env file's zod helpers (a `z.preprocess` arrow, a function) and the start of its schema."""

CASES = [
    (
        "dotenv-removed",
        {".env.example": "PORT=3000\nCACHE_TTL=60\n"},
        {".env.example": "PORT=3000\n"},
        [
            (
                "config-var-removed",
                "breaking",
                "env var `CACHE_TTL` removed (previous default (none))",
            )
        ],
        [ConfigRemoved(type="removed", name="CACHE_TTL", previousDefault=None)],
    ),
    (
        "dotenv-example-values-are-not-defaults",
        {".env.example": "PORT=3000\nURL=http://localhost:8071\nKEY=\n"},
        {".env.example": "PORT=3001\nURL=http://localhost:9000\nKEY=x\n"},
        [],
        [],
    ),
    (
        "dotenv-defaults-removed",
        {"deploy/defaults.env": "PORT=3000\nCACHE_TTL=60\n"},
        {"deploy/defaults.env": "PORT=3000\n"},
        [("config-var-removed", "breaking", "env var `CACHE_TTL` removed (previous default `60`)")],
        [ConfigRemoved(type="removed", name="CACHE_TTL", previousDefault="60")],
    ),
    (
        "dotenv-default-changed",
        {"deploy/defaults.env": "POOL=10\n"},
        {"deploy/defaults.env": "POOL=50\n"},
        [("config-default-changed", "breaking", "env var `POOL` default changed `10` → `50`")],
        [
            ConfigDefaultChanged(
                type="defaultChanged", name="POOL", previousDefault="10", defaultValue="50"
            )
        ],
    ),
    (
        "dotenv-new-required",
        {"deploy/defaults.env": "PORT=3000\n"},
        {"deploy/defaults.env": "PORT=3000\nSIGNING_KEY=\n"},
        [
            (
                "config-required-var-added",
                "breaking",
                "new env var `SIGNING_KEY` required at start-up with no default",
            )
        ],
        [],
    ),
    (
        "dotenv-new-optional",
        {"deploy/defaults.env": "PORT=3000\n"},
        {"deploy/defaults.env": "PORT=3000\nFEATURE_X=off\n"},
        [
            (
                "config-optional-var-added",
                "advisory",
                "new optional env var `FEATURE_X` (default `off`)",
            )
        ],
        [],
    ),
    (
        "dotenv-reordered-and-commented",
        {"deploy/defaults.env": "A=1\nB=2\n"},
        {"deploy/defaults.env": "# settings\nexport B=2  # two\n\nA='1'\n"},
        [],
        [],
    ),
    (
        "dotenv-multi-line-value-and-bare-key",
        {"deploy/defaults.env": 'CERT="-----BEGIN-----\nabc\n-----END-----"\nA=1\n'},
        {"deploy/defaults.env": 'CERT="-----BEGIN-----\nabc\n-----END-----"\nA=2\nTOKEN\n'},
        [
            ("config-default-changed", "breaking", "env var `A` default changed `1` → `2`"),
            (
                "config-required-var-added",
                "breaking",
                "new env var `TOKEN` required at start-up with no default",
            ),
        ],
        [
            ConfigDefaultChanged(
                type="defaultChanged", name="A", previousDefault="1", defaultValue="2"
            )
        ],
    ),
    (
        "ts-renamed-without-fallback",
        {"src/config.ts": "export const c = { host: process.env.DB_HOST || 'db' };\n"},
        {"src/config.ts": "export const c = { host: process.env.DATABASE_HOST || 'db' };\n"},
        [
            (
                "config-var-renamed",
                "breaking",
                "env var `DB_HOST` renamed to `DATABASE_HOST` without fallback",
            )
        ],
        [
            ConfigRenamed(
                type="renamed", name="DATABASE_HOST", previousName="DB_HOST", defaultValue="db"
            )
        ],
    ),
    (
        "ts-renamed-with-fallback",
        {"src/config.ts": "export const c = { host: process.env.DB_HOST || 'db' };\n"},
        {
            "src/config.ts": (
                "export const c = {\n  host: process.env.DATABASE_HOST ?? process.env['DB_HOST'] "
                "?? 'db',\n};\n"
            )
        },
        [
            (
                "config-var-renamed-with-fallback",
                "advisory",
                "env var `DB_HOST` renamed to `DATABASE_HOST`; `DB_HOST` still read as a fallback",
            )
        ],
        [
            ConfigRenamed(
                type="renamed", name="DATABASE_HOST", previousName="DB_HOST", defaultValue="db"
            )
        ],
    ),
    (
        "ts-default-changed",
        {"src/config.ts": "const pool = Number(process.env.POOL_SIZE) || 10;\n"},
        {"src/config.ts": "const pool = Number(process.env.POOL_SIZE) || 50;\n"},
        [("config-default-changed", "breaking", "env var `POOL_SIZE` default changed `10` → `50`")],
        [
            ConfigDefaultChanged(
                type="defaultChanged", name="POOL_SIZE", previousDefault="10", defaultValue="50"
            )
        ],
    ),
    (
        "ts-empty-default-added",
        {"src/config.ts": "const cloudMode = process.env.CLOUD_MODE;\n"},
        {"src/config.ts": "const cloudMode = process.env.CLOUD_MODE || '';\n"},
        [],
        [],
    ),
    (
        "ts-empty-default-removed",
        {"src/config.ts": "const cloudMode = process.env.CLOUD_MODE || '';\n"},
        {"src/config.ts": "const cloudMode = process.env.CLOUD_MODE;\n"},
        [
            (
                "config-default-changed",
                "breaking",
                "env var `CLOUD_MODE` default changed `` → (none)",
            )
        ],
        [
            ConfigDefaultChanged(
                type="defaultChanged", name="CLOUD_MODE", previousDefault="", defaultValue=None
            )
        ],
    ),
    (
        "ts-default-spelled-as-a-subscript",
        {"src/env.ts": "const path = process.env.CONFIG_PATH || DEFAULTS.CONFIG_PATH;\n"},
        {"src/env.ts": "const path = process.env['CONFIG_PATH'] || DEFAULTS['CONFIG_PATH'];\n"},
        [],
        [],
    ),
    (
        "ts-default-inside-a-call-changed",
        {"src/env.ts": "const path = resolve(process.env.CONFIG_PATH || DEFAULTS.CONFIG_PATH);\n"},
        {"src/env.ts": "const path = resolve(process.env.CONFIG_PATH || '.env');\n"},
        [
            (
                "config-default-changed",
                "breaking",
                "env var `CONFIG_PATH` default changed `DEFAULTS.CONFIG_PATH` → `.env`",
            )
        ],
        [
            ConfigDefaultChanged(
                type="defaultChanged",
                name="CONFIG_PATH",
                previousDefault="DEFAULTS.CONFIG_PATH",
                defaultValue=".env",
            )
        ],
    ),
    (
        "ts-default-subscript-changed",
        {"src/env.ts": "const path = process.env.CONFIG_PATH || DEFAULTS['CONFIG_PATH'];\n"},
        {"src/env.ts": "const path = process.env.CONFIG_PATH || DEFAULTS['ENV_PATH'];\n"},
        [
            (
                "config-default-changed",
                "breaking",
                "env var `CONFIG_PATH` default changed `DEFAULTS.CONFIG_PATH` → "
                "`DEFAULTS.ENV_PATH`",
            )
        ],
        [
            ConfigDefaultChanged(
                type="defaultChanged",
                name="CONFIG_PATH",
                previousDefault="DEFAULTS.CONFIG_PATH",
                defaultValue="DEFAULTS.ENV_PATH",
            )
        ],
    ),
    (
        "ts-destructured-default-changed",
        {"src/env.ts": "const { REGION = 'eu', TIER } = process.env;\n"},
        {"src/env.ts": "const { REGION = 'us', TIER } = process.env;\n"},
        [("config-default-changed", "breaking", "env var `REGION` default changed `eu` → `us`")],
        [
            ConfigDefaultChanged(
                type="defaultChanged", name="REGION", previousDefault="eu", defaultValue="us"
            )
        ],
    ),
    (
        "ts-envalid-default-changed",
        {
            "src/env.ts": (
                "import { cleanEnv, str } from 'envalid';\n"
                "export const env = cleanEnv(process.env, {\n"
                "  DB_CLIENT: str({ choices: ['pg', 'sqlite3'], default: 'sqlite3' }),\n"
                "});\n"
            )
        },
        {
            "src/env.ts": (
                "import { cleanEnv, str } from 'envalid';\n"
                "export const env = cleanEnv(process.env, {\n"
                "  DB_CLIENT: str({ choices: clients, default: 'better-sqlite3' }),\n"
                "});\n"
            )
        },
        [
            (
                "config-default-changed",
                "breaking",
                "env var `DB_CLIENT` default changed `sqlite3` → `better-sqlite3`",
            )
        ],
        [
            ConfigDefaultChanged(
                type="defaultChanged",
                name="DB_CLIENT",
                previousDefault="sqlite3",
                defaultValue="better-sqlite3",
            )
        ],
    ),
    (
        "ts-envalid-spec-in-consts",
        {
            "src/env.ts": (
                "const base = { PORT: num({ default: 3000 }), CACHE_TTL: num({ default: 60 }) };\n"
                "const spec = { ...base, JWT_SECRET: str({ devDefault: 'dev' }) };\n"
                "export const env = envalid.cleanEnv(process.env, spec);\n"
            )
        },
        {
            "src/env.ts": (
                "const base = { PORT: num({ default: 3000 }) };\n"
                "const spec = {\n"
                "  ...base,\n"
                "  JWT_SECRET: str({ devDefault: 'dev' }),\n"
                "  SIGNING_KEY: str(),\n"
                "  REGION: str({ default: 'eu' }),\n"
                "};\n"
                "export const env = envalid.cleanEnv(process.env, spec);\n"
            )
        },
        [
            (
                "config-var-removed",
                "breaking",
                "env var `CACHE_TTL` removed (previous default `60`)",
            ),
            (
                "config-required-var-added",
                "breaking",
                "new env var `SIGNING_KEY` required at start-up with no default",
            ),
            (
                "config-optional-var-added",
                "advisory",
                "new optional env var `REGION` (default `eu`)",
            ),
        ],
        [ConfigRemoved(type="removed", name="CACHE_TTL", previousDefault="60")],
    ),
    (
        "ts-zod-schema",
        {
            "src/env.ts": (
                "const schema = z.object({\n"
                "  PORT: z.coerce.number().default(3000),\n"
                "  DATABASE_URL: z.string().url(),\n"
                "  REDIS_URL: z.string().optional(),\n"
                "});\n"
                "export const env = schema.parse(process.env);\n"
            )
        },
        {
            "src/env.ts": (
                "const base = z.object({ PORT: z.coerce.number().default(8080) });\n"
                "const schema = base.extend({\n"
                "  DATABASE_URL: z.string().url(),\n"
                "  SIGNING_KEY: z.string().min(32),\n"
                "  LOG_LEVEL: z.enum(['info', 'debug']).nullish(),\n"
                "}).strict().refine((env) => env.PORT > 0);\n"
                "export const env = schema.safeParse(process.env);\n"
            )
        },
        [
            (
                "config-default-changed",
                "breaking",
                "env var `PORT` default changed `3000` → `8080`",
            ),
            (
                "config-required-var-added",
                "breaking",
                "new env var `SIGNING_KEY` required at start-up with no default",
            ),
            (
                "config-var-removed",
                "breaking",
                "env var `REDIS_URL` removed (previous default (none))",
            ),
            (
                "config-optional-var-added",
                "advisory",
                "new optional env var `LOG_LEVEL` (default (none))",
            ),
        ],
        [
            ConfigDefaultChanged(
                type="defaultChanged", name="PORT", previousDefault="3000", defaultValue="8080"
            ),
            ConfigRemoved(type="removed", name="REDIS_URL", previousDefault=None),
        ],
    ),
    (
        "ts-zod-helpers",
        {
            "src/env.ts": ZOD_HELPERS
            + (
                "  PROXY: optionalText(),\n"
                "  BASE_URL: requiredUrl().default('https://a.example'),\n"
                "});\n"
                "export const env = schema.parse(process.env);\n"
            )
        },
        {
            "src/env.ts": ZOD_HELPERS
            + (
                "  PROXY: requiredUrl(),\n"
                "  BASE_URL: requiredUrl().default('https://b.example'),\n"
                "  TRACE: optionalText(),\n"
                "});\n"
                "export const env = schema.parse(process.env);\n"
            )
        },
        [
            (
                "config-var-became-required",
                "breaking",
                "env var `PROXY` became required (no default)",
            ),
            (
                "config-default-changed",
                "breaking",
                "env var `BASE_URL` default changed `https://a.example` → `https://b.example`",
            ),
            (
                "config-optional-var-added",
                "advisory",
                "new optional env var `TRACE` (default (none))",
            ),
        ],
        [
            ConfigDefaultChanged(
                type="defaultChanged",
                name="BASE_URL",
                previousDefault="https://a.example",
                defaultValue="https://b.example",
            )
        ],
    ),
    (
        "ts-t3-env",
        {
            "src/env.ts": (
                "export const env = createEnv({\n"
                "  server: { LOG_LEVEL: z.enum(['info', 'debug']).default('info') },\n"
                "  runtimeEnv: process.env,\n"
                "});\n"
            )
        },
        {
            "src/env.ts": (
                "export const env = createEnv({\n"
                "  server: { LOG_LEVEL: z.enum(['info', 'debug']).default('debug') },\n"
                "  runtimeEnv: process.env,\n"
                "});\n"
            )
        },
        [
            (
                "config-default-changed",
                "breaking",
                "env var `LOG_LEVEL` default changed `info` → `debug`",
            )
        ],
        [
            ConfigDefaultChanged(
                type="defaultChanged",
                name="LOG_LEVEL",
                previousDefault="info",
                defaultValue="debug",
            )
        ],
    ),
    (
        "ts-new-required-non-null",
        {"src/config.ts": "export const a = process.env.A ?? '1';\n"},
        {
            "src/config.ts": (
                "export const a = process.env.A ?? '1';\nexport const k = process.env.KEY!;\n"
            )
        },
        [
            (
                "config-required-var-added",
                "breaking",
                "new env var `KEY` required at start-up with no default",
            )
        ],
        [],
    ),
    (
        "ts-new-required-throw-guard",
        {"src/config.ts": "export const a = 1;\n"},
        {"src/config.ts": "if (!process.env.KEY) {\n  throw new Error('KEY is required');\n}\n"},
        [
            (
                "config-required-var-added",
                "breaking",
                "new env var `KEY` required at start-up with no default",
            )
        ],
        [],
    ),
    (
        "ts-new-required-variable-guard",
        {"src/config.ts": "export const a = 1;\n"},
        {
            "src/config.ts": (
                "const key = process.env.KEY;\n"
                "if (!key) {\n  process.exit(1);\n}\nexport { key };\n"
            )
        },
        [
            (
                "config-required-var-added",
                "breaking",
                "new env var `KEY` required at start-up with no default",
            )
        ],
        [],
    ),
    (
        "ts-new-unguarded-read-is-optional",
        {"src/config.ts": "export const a = 1;\n"},
        {"src/config.ts": "const key = process.env.KEY;\nif (key) {\n  throw new Error('x');\n}\n"},
        [("config-optional-var-added", "advisory", "new optional env var `KEY` (default (none))")],
        [],
    ),
    (
        "ts-new-optional",
        {"src/config.ts": "export const a = 1;\n"},
        {"src/config.ts": "export const flag = process.env.FLAG ?? 'off';\n"},
        [("config-optional-var-added", "advisory", "new optional env var `FLAG` (default `off`)")],
        [],
    ),
    (
        "ts-read-moved-to-another-file",
        {"src/a.ts": "export const p = process.env.PORT || '3000';\n"},
        {
            "src/a.ts": "export {};\n",
            "src/lib/b.ts": "export const p = process.env.PORT || '3000';\n",
        },
        [],
        [],
    ),
    (
        "py-became-required",
        {"app/settings.py": "import os\nREGION = os.getenv('REGION')\n"},
        {"app/settings.py": "import os\nREGION = os.environ['REGION']\n"},
        [
            (
                "config-var-became-required",
                "breaking",
                "env var `REGION` became required (no default)",
            )
        ],
        [],
    ),
    (
        "py-required-gains-default",
        {"app/settings.py": "import os\nREGION = os.environ['REGION']\n"},
        {"app/settings.py": "import os\nREGION = os.environ.get('REGION', 'eu')\n"},
        [("config-default-added", "advisory", "env var `REGION` now has a default `eu`")],
        [],
    ),
    (
        "py-renamed-same-default",
        {"app/settings.py": "from os import getenv\nA = getenv('TIMEOUT_MS', '5000')\n"},
        {"app/settings.py": "from os import getenv\nB = getenv('REQUEST_TIMEOUT_MS', '5000')\n"},
        [
            (
                "config-var-renamed",
                "breaking",
                "env var `TIMEOUT_MS` renamed to `REQUEST_TIMEOUT_MS` without fallback",
            )
        ],
        [
            ConfigRenamed(
                type="renamed",
                name="REQUEST_TIMEOUT_MS",
                previousName="TIMEOUT_MS",
                defaultValue="5000",
            )
        ],
    ),
    (
        "py-same-default-unrelated-names",
        {"app/settings.py": "from os import getenv\nA = getenv('CACHE_PERMISSIONS', 'true')\n"},
        {"app/settings.py": "from os import getenv\nB = getenv('WEBSOCKET_LOGS', 'true')\n"},
        [
            (
                "config-optional-var-added",
                "advisory",
                "new optional env var `WEBSOCKET_LOGS` (default `true`)",
            ),
            (
                "config-var-removed",
                "breaking",
                "env var `CACHE_PERMISSIONS` removed (previous default `true`)",
            ),
        ],
        [ConfigRemoved(type="removed", name="CACHE_PERMISSIONS", previousDefault="true")],
    ),
    (
        "py-renamed-with-nested-fallback",
        {"app/settings.py": "import os\nT = os.getenv('TIMEOUT', '5')\n"},
        {
            "app/settings.py": (
                "import os\nT = os.getenv('REQUEST_TIMEOUT', os.getenv('TIMEOUT', '5'))\n"
            )
        },
        [
            (
                "config-var-renamed-with-fallback",
                "advisory",
                "env var `TIMEOUT` renamed to `REQUEST_TIMEOUT`; "
                "`TIMEOUT` still read as a fallback",
            )
        ],
        [
            ConfigRenamed(
                type="renamed", name="REQUEST_TIMEOUT", previousName="TIMEOUT", defaultValue="5"
            )
        ],
    ),
    (
        "py-new-required",
        {"app/settings.py": "import os\n"},
        {"app/settings.py": "import os\nDSN = os.environ['DSN']\n"},
        [
            (
                "config-required-var-added",
                "breaking",
                "new env var `DSN` required at start-up with no default",
            )
        ],
        [],
    ),
    (
        "py-unchanged-reformatted",
        {"app/settings.py": "import os\nA = os.getenv('A', '1')\n"},
        {"app/settings.py": "import os\n\n\nA = os.getenv(\n    'A',\n    '1',\n)\n"},
        [],
        [],
    ),
    (
        "go-tag-default-changed",
        {"cmd/app/config.go": go_struct('Port int `envconfig:"PORT" default:"8080"`')},
        {"cmd/app/config.go": go_struct('Port int `envconfig:"PORT" default:"9090"`')},
        [("config-default-changed", "breaking", "env var `PORT` default changed `8080` → `9090`")],
        [
            ConfigDefaultChanged(
                type="defaultChanged", name="PORT", previousDefault="8080", defaultValue="9090"
            )
        ],
    ),
    (
        "go-new-required-tag",
        {"cmd/app/config.go": "package app\n\ntype C struct {\n\tPort int\n}\n"},
        {"cmd/app/config.go": go_struct("Port int", 'DSN string `env:"DSN,required"`')},
        [
            (
                "config-required-var-added",
                "breaking",
                "new env var `DSN` required at start-up with no default",
            )
        ],
        [],
    ),
    (
        "go-getenv-default-changed",
        {"cmd/app/main.go": go_default("fast")},
        {"cmd/app/main.go": go_default("safe")},
        [("config-default-changed", "breaking", "env var `MODE` default changed `fast` → `safe`")],
        [
            ConfigDefaultChanged(
                type="defaultChanged", name="MODE", previousDefault="fast", defaultValue="safe"
            )
        ],
    ),
    (
        "go-cmp-or-fallback",
        {"cmd/app/main.go": go_main('_ = os.Getenv("MODE")')},
        {
            "cmd/app/main.go": go_main(
                '_ = cmp.Or(os.Getenv("APP_MODE"), os.Getenv("MODE"))', imports='"cmp"; "os"'
            )
        },
        [
            (
                "config-var-renamed-with-fallback",
                "advisory",
                "env var `MODE` renamed to `APP_MODE`; `MODE` still read as a fallback",
            )
        ],
        [ConfigRenamed(type="renamed", name="APP_MODE", previousName="MODE", defaultValue=None)],
    ),
    (
        "go-new-optional-lookup",
        {"cmd/app/main.go": "package main\n"},
        {
            "cmd/app/main.go": go_main(
                'v, ok := os.LookupEnv("DEBUG")', "if !ok {", '\tv = "0"', "}", "_ = v"
            )
        },
        [("config-optional-var-added", "advisory", "new optional env var `DEBUG` (default `0`)")],
        [],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected", "changes"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_rule_table(
    release_pair: Pair,
    old: dict[str, str | None],
    new: dict[str, str | None],
    expected: list[tuple[str, str, str]],
    changes: list[object],
) -> None:
    before, after = release_pair(old, new)
    report = analyse(before, after)
    assert report.checked is True, report.reason
    assert [(f.rule, f.severity, f.message) for f in report.findings] == expected
    assert report.changes == changes
    assert all(f.file and f.line and f.line >= 1 for f in report.findings)


def test_finding_points_at_the_read(release_pair: Pair) -> None:
    before, after = release_pair(
        {"src/config.ts": "const a = 1;\n"},
        {"src/config.ts": "const a = 1;\n\nconst k = process.env.KEY!;\n"},
    )
    [finding] = analyse(before, after).findings
    assert (finding.file, finding.line) == ("src/config.ts", 3)


def test_removed_points_at_old_read(release_pair: Pair) -> None:
    before, after = release_pair({".env.example": "A=1\nGONE=x\n"}, {".env.example": "A=1\n"})
    [finding] = analyse(before, after).findings
    assert (finding.file, finding.line) == (".env.example", 2)


def test_ambiguous_rename_is_removal_and_addition(release_pair: Pair) -> None:
    before, after = release_pair(
        {"deploy/defaults.env": "A=1\nB=1\n"}, {"deploy/defaults.env": "C=1\nD=1\n"}
    )
    report = analyse(before, after)
    assert sorted(f.message for f in report.findings) == [
        "env var `A` removed (previous default `1`)",
        "env var `B` removed (previous default `1`)",
        "new optional env var `C` (default `1`)",
        "new optional env var `D` (default `1`)",
    ]
    assert report.changes == [
        ConfigRemoved(type="removed", name="A", previousDefault="1"),
        ConfigRemoved(type="removed", name="B", previousDefault="1"),
    ]


@pytest.mark.parametrize(
    ("path", "text", "where"),
    [
        ("src/config.ts", "const = process.env.A;\n", "src/config.ts:1"),
        (
            "src/env.ts",
            "import { spec } from './spec';\nexport const env = cleanEnv(process.env, spec);\n",
            "src/env.ts:2",
        ),
        (
            "src/env.ts",
            "export const env = cleanEnv(process.env, {\n  PORT: port,\n});\n",
            "src/env.ts:2",
        ),
        (
            "src/env.ts",
            "import { schema } from './schema';\nexport const env = schema.parse(process.env);\n",
            "src/env.ts:2",
        ),
        (
            "src/env.ts",
            "const schema = z.object({\n  ...shared,\n  PORT: z.number(),\n});\n"
            "export const env = schema.parse(process.env);\n",
            "src/env.ts:2",
        ),
        (
            "src/env.ts",
            "import { port } from './fields';\nconst schema = z.object({\n  PORT: port(),\n});\n"
            "export const env = schema.parse(process.env);\n",
            "src/env.ts:3",
        ),
        (
            "src/env.ts",
            "const schema = z.object({\n  PORT: portSchema,\n});\n"
            "export const env = schema.parse(process.env);\n",
            "src/env.ts:2",
        ),
        ("app/settings.py", "import os\ndef (:\n", "app/settings.py:2"),
        ("cmd/app/main.go", 'package main\nfunc {\nos.Getenv("A")\n', "cmd/app/main.go:2"),
        (".env.example", "A=1\nthis is not a line\n", ".env.example:2"),
        (
            "server/src/main.rs",
            'fn main() {\n    let a = env::var("A");\n}}\n',
            "server/src/main.rs:3",
        ),
        ("config.toml", "a = 1\nb = \n", "config.toml:2"),
        ("conf/app.yaml", "a: 1\nb: [\n", "conf/app.yaml:3"),
        ("settings.json", '{"a": 1,\n}', "settings.json:2"),
    ],
)
def test_unparseable_source_is_not_checked(
    release_pair: Pair, path: str, text: str, where: str
) -> None:
    before, after = release_pair({".env.example": "A=1\n"}, {path: text})
    report = analyse(before, after)
    assert report.checked is False
    assert report.reason is not None and report.reason.startswith(f"{where} at v1.0.1: ")
    line = int(where.rsplit(":", 1)[1])
    assert [(f.rule, f.severity, f.file, f.line) for f in report.findings] == [
        ("surface-not-checked", "unknown", path, line)
    ]
    assert report.changes == []


def test_sources_gone_is_not_checked(release_pair: Pair) -> None:
    before, after = release_pair({".env.example": "A=1\n"}, {".env.example": None})
    report = analyse_config(before, after, Settings())
    assert report.checked is False
    assert report.reason == "sources found at v1.0.0 but none at v1.0.1"
    assert [f.rule for f in report.findings] == ["surface-not-checked"]


def test_an_explicit_source_that_names_nothing_is_a_settings_error(release_pair: Pair) -> None:
    """At neither ref: a settings error. At the earlier ref only: the file is gone at this
    release, which the surface judges (the entry held at the release before)."""
    before, after = release_pair({".env.example": "A=1\n"}, {".env.example": None})
    settings = Settings(config=ConfigSettings(sources=(".env.example", "conf/*.env")))
    report = analyse_config(before, after, settings)
    assert report.checked is False
    unmatched = [f for f in report.findings if f.rule == "settings-path-unmatched"]
    assert [(f.file, f.message) for f in unmatched] == [
        (
            ".release-safety.toml",
            ".release-safety.toml: key 'config.sources': 'conf/*.env' matches nothing at v1.0.1",
        )
    ]


def test_no_sources_at_either_ref_is_not_checked(release_pair: Pair) -> None:
    before, after = release_pair({"README.md": "a\n"}, {"README.md": "b\n"})
    report = analyse_config(before, after, Settings())
    assert report.checked is False
    assert report.reason is not None
    assert report.reason.startswith("no source found at v1.0.0 or v1.0.1; tried ")
    assert "config.sources = '**/.env.example'" in report.reason
    assert [(f.rule, f.severity) for f in report.findings] == [("surface-not-checked", "unknown")]


def test_discovery_skips_vendored_and_test_folders(release_pair: Pair) -> None:
    files = {"vendor/lib/.env.example": "A=1\n", "tests/.env.example": "B=1\n"}
    before, after = release_pair(files, {"deploy/.env.example": "C=\n"})
    report = analyse_config(before, after, Settings())
    assert report.checked is True
    assert list(report.coverage.new) == ["deploy/.env.example"]
    assert report.coverage.old == {}


def test_first_sources_are_a_baseline(release_pair: Pair) -> None:
    before, after = release_pair({}, {".env.example": "KEY=\n"})
    assert analyse(before, after).findings == []
    assert analyse(None, after).checked is True


def test_declared_absent_is_checked_and_says_why(release_pair: Pair) -> None:
    before, after = release_pair({"README.md": "a\n"}, {"README.md": "b\n"})
    reason = "the service reads no environment variables; all settings come from its UI"
    report = analyse_config(before, after, Settings(config=ConfigSettings(absent=reason)))
    assert report.checked is True
    assert [(f.rule, f.severity) for f in report.findings] == [
        ("surface-declared-absent", "advisory")
    ]
    assert report.coverage.absent == reason


def test_declared_absent_but_found_is_unknown(release_pair: Pair) -> None:
    before, after = release_pair({}, {"deploy/.env.example": "A=1\n"})
    reason = "the service reads no environment variables; all settings come from its UI"
    report = analyse_config(before, after, Settings(config=ConfigSettings(absent=reason)))
    assert [(f.rule, f.severity, f.file) for f in report.findings] == [
        ("surface-declared-absent", "advisory", ".release-safety.toml"),
        ("absent-contradicted", "unknown", "deploy/.env.example"),
    ]


def test_unknown_source_kind_is_not_checked(release_pair: Pair) -> None:
    settings = Settings(config=ConfigSettings(sources=("config/*",)))
    before, after = release_pair({"config/a.env": "A=1\n"}, {"config/app.ini": "a = 1\n"})
    report = analyse_config(before, after, settings)
    assert report.checked is False
    assert report.reason == "config/app.ini: cannot tell what kind of source this is"


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (".env.example", "dotenv"),
        ("deploy/prod.env", "dotenv"),
        ("env.sample", "dotenv"),
        ("src/config.ts", "ts"),
        ("src/App.tsx", "tsx"),
        ("lib/config.cjs", "js"),
        ("types/env.d.ts", "ts"),
        ("app/settings.py", "python"),
        ("cmd/main.go", "go"),
        ("server/src/cfg.rs", "rust"),
        ("config.default.toml", "toml"),
        ("make/harbor.yml.tmpl", "yaml"),
        ("config.example.json", "json"),
        ("settings.ini", None),
    ],
)
def test_source_kind(path: str, kind: str | None) -> None:
    assert source_kind(path) == kind
