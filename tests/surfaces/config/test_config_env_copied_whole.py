"""A TypeScript / JavaScript source that copies the whole environment (directus' env package:
`{ ...process.env }` merged over a table of defaults) reads names it does not write: the
config surface is not checked, so the release is never `true` on it. The real CLI on real git
repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

SETTINGS = (
    '[config]\nsources = ["src/env.ts"]\n'
    '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    '[rest]\nabsent = "the worker has no HTTP API at all, only a queue"\n'
    '[migrations]\nabsent = "the worker keeps no database of its own"\n'
    '[deployment]\nabsent = "operators run the worker from their own manifests; none ship"\n'
)
DEFAULTS = "const DEFAULTS = {\n  PORT: 8055,\n  CACHE_TTL: '5m',\n};\n"
COPIES = {
    "spread": "const env = { ...DEFAULTS, ...process.env };\nexport default env;\n",
    "object-entries": (
        "const env: Record<string, unknown> = { ...DEFAULTS };\n"
        "for (const [k, v] of Object.entries(process.env)) env[k] = v;\n"
    ),
    "for-in": (
        "const env: Record<string, unknown> = { ...DEFAULTS };\n"
        "for (const key in process.env) env[key] = process.env[key];\n"
    ),
}


def _generate(repo: RepoBuilder, tmp_path: Path, to: str) -> tuple[int, dict]:
    evidence = tmp_path / f"{to}.evidence.json"
    args = ["generate", "--repo", str(repo.path), "--to", to, "--out", str(tmp_path / "a.json")]
    code = run([*args, "--evidence", str(evidence)])
    return code, json.loads(evidence.read_text())


@pytest.mark.parametrize("copy", sorted(COPIES))
def test_a_source_that_copies_the_environment_whole_is_not_checked(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, copy: str
) -> None:
    repo = make_repo(copy)
    env = "const path = process.env.CONFIG_PATH || '.env';\n" + DEFAULTS
    repo.release("1.0.0", {".release-safety.toml": SETTINGS, "src/env.ts": env})
    # the table of defaults changes (CACHE_TTL's default), which the reads do not show
    repo.release("1.1.0", {"src/env.ts": env.replace("'5m'", "'1h'") + COPIES[copy]})
    code, evidence = _generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert evidence["rollingUpdateSafe"] == "unknown"
    [config] = [s for s in evidence["surfaces"] if s["surface"] == "config"]
    assert config["checked"] is False
    [finding] = [
        f
        for f in evidence["because"]
        if f["surface"] == "config" and "process.env is copied whole" in f["message"]
    ]
    line = 6 if copy == "spread" else 7
    assert (finding["rule"], finding["file"], finding["line"]) == (
        "config-read-not-understood",
        "src/env.ts",
        line,
    )
    assert "defaults_table" in finding["hint"]


def test_an_env_schema_given_a_copy_of_the_environment_is_still_read(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """t3-env's `runtimeEnv: { ...process.env }` is read through its schema."""
    repo = make_repo("t3")
    env = (
        "import { createEnv } from '@t3-oss/env-core';\n"
        "import { z } from 'zod';\n"
        "export const env = createEnv({\n"
        "  server: { PORT: z.string().default('8055') },\n"
        "  runtimeEnv: { ...process.env },\n"
        "});\n"
    )
    repo.release("1.0.0", {".release-safety.toml": SETTINGS, "src/env.ts": env})
    repo.release("1.1.0", {"src/env.ts": env.replace("'8055'", "'8080'")})
    code, evidence = _generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert evidence["rollingUpdateSafe"] is False
    assert [(f["rule"], f["file"], f["line"]) for f in evidence["because"]] == [
        ("config-default-changed", "src/env.ts", 4)
    ]


TABLED = SETTINGS.replace(
    'sources = ["src/env.ts"]', 'sources = [{ path = "src/env.ts", defaults_table = "DEFAULTS" }]'
)
MERGED = "const env = { ...DEFAULTS, ...process.env };\nexport default env;\n"


@pytest.mark.parametrize(
    ("table", "verdict", "because"),
    [
        # a default of the table changed: the line of its entry
        ("const DEFAULTS = {\n  PORT: 8055,\n  CACHE_TTL: '1h',\n};\n", False, [3]),
        # a variable gone from the table
        ("const DEFAULTS = {\n  PORT: 8055,\n};\n", False, [3]),
        # the same values spelled otherwise (a bundler's `8.055e3`), one added with a default
        ("const DEFAULTS = {\n  PORT: 8.055e3,\n  CACHE_TTL: '5m',\n  TUS: false,\n};\n", True, []),
    ],
)
def test_a_named_table_of_defaults_is_read(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    table: str,
    verdict: bool,
    because: list[int],
) -> None:
    repo = make_repo("tabled")
    repo.release("1.0.0", {".release-safety.toml": TABLED, "src/env.ts": DEFAULTS + MERGED})
    repo.release("1.1.0", {"src/env.ts": table + MERGED})
    code, evidence = _generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert evidence["rollingUpdateSafe"] is verdict
    assert [(f["file"], f["line"]) for f in evidence["because"]] == [
        ("src/env.ts", line) for line in because
    ]


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        (MERGED, 1, "no object literals named DEFAULTS"),
        ("const DEFAULTS = {\n  PORT: 8055,\n  ...STORAGE,\n};\n" + MERGED, 3, "...STORAGE"),
        ("const DEFAULTS = {\n  [key]: 1,\n};\n" + MERGED, 2, "[key]: 1"),
        ("const DEFAULTS = load();\n" + MERGED, 1, "is not an object literal"),
    ],
)
def test_a_table_of_defaults_that_cannot_be_read_is_not_checked(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, text: str, line: int, says: str
) -> None:
    repo = make_repo("unread")
    repo.release("1.0.0", {".release-safety.toml": TABLED, "src/env.ts": DEFAULTS + MERGED})
    repo.release("1.1.0", {"src/env.ts": text})
    code, evidence = _generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert evidence["rollingUpdateSafe"] == "unknown"
    [finding] = evidence["because"]
    assert (finding["rule"], finding["file"], finding["line"]) == (
        "surface-not-checked",
        "src/env.ts",
        line,
    )
    assert says in finding["message"]


def test_dropping_the_table_of_defaults_narrows_the_settings(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    repo = make_repo("dropped")
    repo.release("1.0.0", {".release-safety.toml": TABLED, "src/env.ts": DEFAULTS + MERGED})
    repo.release("1.1.0", {".release-safety.toml": SETTINGS, "src/env.ts": DEFAULTS})
    code, evidence = _generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert evidence["rollingUpdateSafe"] == "unknown"
    assert "settings-narrowed" in [f["rule"] for f in evidence["because"]]


def test_a_table_of_defaults_on_a_glob_is_bad_settings(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo("glob")
    settings = TABLED.replace('path = "src/env.ts"', 'path = "src/*.ts"')
    repo.release("1.0.0", {".release-safety.toml": settings, "src/env.ts": DEFAULTS + MERGED})
    repo.release("1.1.0")
    args = ["generate", "--repo", str(repo.path), "--to", "1.1.0", "--out", str(tmp_path / "a")]
    assert run(args) == 2
    assert "defaults_table names an object of one file" in capsys.readouterr().err
