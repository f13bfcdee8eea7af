"""TypeScript / JavaScript sources no environment read can be reached from are not parsed, and
the coverage counts them; yet every file that can change the answer is read: a caller of a
helper that wraps `process.env` (the caller naming no env), a wrapper of that helper, the
module a read's name comes from, the function an env read is passed to. The same answer as
parsing every file, on small services and on umami's real releases."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.contract.reports import ConfigReport
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import MemorySnapshot, Snapshot
from release_safety.surfaces.config import ts_resolve, typescript
from release_safety.surfaces.config.reads import EnvRead, Gap

Judge = Callable[..., ConfigReport]

HELPER = "export function setting(key: string, otherwise = 'info') {\n"
HELPER += "  return process.env[key] ?? otherwise;\n}\n"
"""A helper that wraps the environment; its callers name no env."""

CALLER = "import { setting } from '@/lib/settings';\n"
CALLER += (
    "export const level = setting('LOG_LEVEL');\nexport const port = setting('PORT', '3000');\n"
)

UI = "export const add = (a: number, b: number) => a + b;\n"
"""A module that reads nothing and names nothing that reads."""


def test_the_caller_of_a_helper_is_read_though_it_names_no_env(judge: Judge) -> None:
    old = {"src/lib/settings.ts": HELPER, "src/app.ts": CALLER, "src/ui.ts": UI}
    new = {"src/app.ts": CALLER.replace("export const port = setting('PORT', '3000');\n", "")}
    report = judge(old, new, ["src/**/*.ts"])
    assert [(f.rule, f.file, f.line) for f in report.findings] == [
        ("config-var-removed", "src/app.ts", 3)
    ]
    assert sorted(report.coverage.understood) == ["LOG_LEVEL"]
    skipped = "1 file skipped: no environment read reachable"
    assert report.coverage.skipped == {"old": skipped, "new": skipped}


def test_a_wrapper_of_the_helper_in_a_file_naming_no_env_is_followed(judge: Judge) -> None:
    wrapper = "import { setting } from './settings';\n"
    wrapper += "export const flag = (name: string) => setting(name, 'false') === 'true';\n"
    caller = "import { flag } from './lib/flags';\nexport const debug = flag('DEBUG');\n"
    old = {"src/lib/settings.ts": HELPER, "src/lib/flags.ts": wrapper, "src/app.ts": caller}
    new = {"src/lib/flags.ts": wrapper.replace("'false'", "'true'")}
    report = judge(old, new, ["src/**/*.ts"])
    assert [(f.rule, f.file) for f in report.findings] == [("config-default-changed", "src/app.ts")]
    assert "`false` → `true`" in report.findings[0].message
    assert report.coverage.skipped == {}


def test_a_constant_naming_the_variable_changed_in_a_file_naming_no_env_is_found(
    judge: Judge,
) -> None:
    names = "export const LEVEL_KEY = 'LOG_LEVEL';\n"
    caller = "import { setting } from './settings';\nimport { LEVEL_KEY } from './names';\n"
    caller += "export const level = setting(LEVEL_KEY);\n"
    old = {
        "src/settings.ts": HELPER,
        "src/names.ts": names,
        "src/app.ts": caller,
        "src/ui.ts": UI,
    }
    new = {"src/names.ts": names.replace("'LOG_LEVEL'", "'LOG_VERBOSITY'")}
    report = judge(old, new, ["src/*.ts"])
    assert [(f.rule, f.file) for f in report.findings] == [("config-var-renamed", "src/app.ts")]
    assert "LOG_LEVEL" in report.findings[0].message
    assert sorted(report.coverage.understood) == ["LOG_VERBOSITY"]
    assert report.coverage.skipped["new"].startswith("1 file skipped")


def test_the_fallback_of_a_function_an_env_read_is_passed_to_is_found_elsewhere(
    judge: Judge,
) -> None:
    """`positive(process.env.TTL)`: its default is the function's, defined in a module that
    names no env and is imported by an alias the resolver does not follow."""
    numbers = "export function positive(value: string | undefined, fallback = 60) {\n"
    numbers += "  return Number(value) || fallback;\n}\n"
    app = "import { positive } from '@/lib/numbers';\n"
    app += "export const ttl = positive(process.env.CACHE_TTL);\n"
    old = {"src/lib/numbers.ts": numbers, "src/app.ts": app, "src/ui.ts": UI}
    new = {"src/lib/numbers.ts": numbers.replace("= 60", "= 300")}
    report = judge(old, new, ["src/**/*.ts"])
    assert [(f.rule, f.file) for f in report.findings] == [("config-default-changed", "src/app.ts")]
    assert "`60` → `300`" in report.findings[0].message


def test_an_edit_to_a_file_no_env_read_reaches_changes_nothing_and_is_counted(
    judge: Judge,
) -> None:
    direct = "export const port = process.env.PORT || '3000';\n"
    old = {"src/app.ts": direct, "src/ui.ts": UI, "src/more.ts": UI}
    new = {"src/ui.ts": UI.replace("a + b", "b + a")}
    report = judge(old, new, ["src/*.ts"])
    assert report.checked is True and report.findings == []
    skipped = "2 files skipped: no environment read reachable"
    assert report.coverage.skipped == {"old": skipped, "new": skipped}
    assert len(report.coverage.new) == 3  # the skipped files were read, as text


def test_a_syntax_error_no_env_read_can_reach_is_skipped_and_one_in_a_caller_is_not(
    judge: Judge,
) -> None:
    direct = "export const port = process.env.PORT || '3000';\n"
    old = {"src/app.ts": direct, "src/settings.ts": HELPER, "src/util.ts": UI}
    broken = {"src/util.ts": "export const add = (a, b) => a + ;\n"}
    report = judge(old, broken, ["src/*.ts"])
    assert report.checked is True
    assert report.coverage.skipped["new"] == "1 file skipped: no environment read reachable"
    caller = {"src/util.ts": "import { setting } from './settings';\nconst x = setting('X') + ;\n"}
    report = judge(old, caller, ["src/*.ts"])
    assert report.checked is False
    assert [f.file for f in report.findings if f.severity == "unknown"] == ["src/util.ts"]


@pytest.mark.parametrize(
    "opening",
    [
        "const v = import.meta.env.VITE_URL;",
        "const v = Bun.env.PORT;",
        "const v = Deno.env.get('PORT');",
        "const e = cleanEnv(process.env, {});",
        "import config from 'config';",
        "const convict = require('convict');",
        "import { ConfigService } from '@nestjs/config';",
        'import nconf from "nconf";',
    ],
)
def test_every_opening_of_a_read_the_readers_model_is_parsed(opening: str) -> None:
    assert ts_resolve.may_read(opening.encode())
    assert not ts_resolve.may_read(UI.encode())


def _every_file(
    snapshot: Snapshot, files: dict[str, tuple[str, str]]
) -> list[tuple[str, EnvRead | Gap]]:
    """What the resolver says with every file parsed: the answer skipping must equal."""
    texts = dict(snapshot.read_each(list(files)))
    return ts_resolve._Resolver(files, texts).run(list(files))


SERVICES = {
    "helper and callers": {
        "src/lib/settings.ts": HELPER,
        "src/app.ts": CALLER,
        "src/ui.ts": UI,
        "src/other.ts": "export function setting(k: string) { return k; }\n",
    },
    "a method named like a reader": {
        "src/env.ts": "export const env = {\n"
        "  get(name: string) { return process.env[name]; },\n};\n",
        "src/app.ts": "import { env } from './env';\nexport const a = env.get('A');\n",
        "src/cache.ts": "export const cache = { get(k: string) { return k; } };\n"
        "export const b = cache.get('B');\n",
    },
    "constants and defaults": {
        "src/settings.ts": HELPER,
        "src/names.ts": "export const KEY = 'NAME';\nexport const DEFAULT_TTL = 5;\n",
        "src/app.ts": "import { setting } from './settings';\nimport { KEY } from './names';\n"
        "export const n = setting(KEY);\n",
        "src/ui.ts": UI,
    },
}


@pytest.mark.parametrize("name", SERVICES)
def test_skipping_gives_what_parsing_every_file_gives(name: str) -> None:
    sources = {path: text.encode() for path, text in SERVICES[name].items()}
    snapshot = MemorySnapshot(sources)
    files = {path: ("ts", snapshot.blob_id(path) or "") for path in sources}
    resolved = ts_resolve.reads(snapshot, files)
    assert resolved.located == _every_file(snapshot, files)
    assert resolved.parsed != tuple(files)


UMAMI = Path("/work/.mirror/umami-software+umami/repo")


@pytest.fixture(scope="module")
def umami(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    if not UMAMI.is_dir():
        pytest.skip("umami is not fetched on this machine")
    target = tmp_path_factory.mktemp("umami") / "umami.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(UMAMI), str(target)], check=True)
    return GitRepo(target)


@pytest.mark.parametrize("tag", ["v2.19.0", "v3.0.3", "v3.1.0"])
def test_skipping_gives_what_parsing_every_file_gives_on_umami(umami: GitRepo, tag: str) -> None:
    snapshot = umami.snapshot(tag)
    files = {
        path: ("tsx" if path.endswith(".tsx") else "ts", snapshot.blob_id(path) or "")
        for path in snapshot.paths()
        if path.endswith((".ts", ".tsx"))
    }
    resolved = ts_resolve.reads(snapshot, files)
    assert resolved.located == _every_file(snapshot, files)
    assert len(resolved.parsed) < len(files) / 4
    texts = dict(snapshot.read_each(list(files)))
    skipped = [path for path in files if path not in resolved.parsed]
    assert all(typescript.parse(texts[path], files[path][0]) == [] for path in skipped[:200])
