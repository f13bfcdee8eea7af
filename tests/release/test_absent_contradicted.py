"""`absent` never hides what is there: a surface declared absent where the search finds files
of its kind at either ref is `unknown` (`absent-contradicted`), naming what was found."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from absent_surfaces import CONFIG, DEPLOYMENT, MCP, MIGRATIONS, REST

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

ALL_ABSENT = MIGRATIONS + REST + MCP + CONFIG + DEPLOYMENT
ALEMBIC = "from alembic import op\n\n\ndef upgrade():\n    op.add_column('t', 'c')\n"


def _judge(builder: RepoBuilder, tmp_path: Path, tag: str) -> tuple[object, list[dict[str, str]]]:
    out, evidence = tmp_path / "a.json", tmp_path / "e.json"
    args = ["generate", "--repo", str(builder.path), "--to", tag, "--out", str(out)]
    assert run([*args, "--evidence", str(evidence)]) == 0
    verdict = json.loads(out.read_text())["compatibility"]["rollingUpdateSafe"]
    return verdict, json.loads(evidence.read_text())["findings"]


def _contradicted(findings: list[dict[str, str]]) -> list[tuple[str, str | None]]:
    return [(f["message"], f["file"]) for f in findings if f["rule"] == "absent-contradicted"]


@pytest.mark.parametrize(
    ("first", "added"),
    [
        ("alembic/versions/1975ea83b712_init.py", "alembic/versions/2a0c1e9f7b31_add.py"),
        ("db/migrate/20240101000000_init.rb", "db/migrate/20240201000000_add.rb"),
        ("app/migrations/0001_initial.py", "app/migrations/0002_add.py"),
    ],
)
def test_migrations_written_in_code_contradict_absent(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, first: str, added: str
) -> None:
    builder = make_repo("code")
    builder.release("1.0.0", {first: ALEMBIC, ".release-safety.toml": ALL_ABSENT})
    builder.release("1.1.0", {added: ALEMBIC})
    verdict, findings = _judge(builder, tmp_path, "1.1.0")
    assert verdict == "unknown"
    assert _contradicted(findings) == [
        (f"migrations surface declared absent, but 1.1.0 has {first}, {added}", first)
    ]


def test_a_service_without_migrations_keeps_its_declaration(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("none")
    worker = "import os\n\n\ndef upgrade():\n    pass\n"  # not a migration: no folder of them
    builder.release("1.0.0", {"worker/main.py": worker, ".release-safety.toml": ALL_ABSENT})
    builder.release("1.1.0", {"worker/versions/helpers.py": worker})
    verdict, findings = _judge(builder, tmp_path, "1.1.0")
    assert verdict is True
    assert _contradicted(findings) == []


def test_files_at_the_earlier_ref_only_contradict_absent_too(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("gone")
    files = {"db/migrations/001.sql": "CREATE TABLE t (id int);\n", "api/openapi.yaml": "x: 1\n"}
    builder.release("1.0.0", {**files, ".release-safety.toml": ALL_ABSENT})
    builder.delete("db/migrations/001.sql").delete("api/openapi.yaml")
    builder.release("1.1.0", {"README.md": "gone\n"})
    verdict, findings = _judge(builder, tmp_path, "1.1.0")
    assert verdict == "unknown"
    assert sorted(_contradicted(findings)) == [
        ("migrations surface declared absent, but 1.0.0 has db/migrations/001.sql", None),
        ("rest surface declared absent, but 1.0.0 has api/openapi.yaml", None),
    ]


def test_migrations_kept_in_one_go_file_contradict_absent(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """miniflux keeps its migrations as SQL in `internal/database/migrations.go`: a release that
    adds one is never `true` under `[migrations] absent` (12 false-safe releases measured)."""
    builder = make_repo("gofile")
    go = 'package database\n\nvar migrations = []string{\n\t"CREATE TABLE feeds (id int)",\n}\n'
    cli = "package cli\n\n// migrate runs the database migrations.\nfunc migrate() {}\n"
    settings = ALL_ABSENT.replace("written in Python", "Go functions in migrations.go")
    files = {"internal/database/migrations.go": go, "internal/cli/migrate.go": cli}
    builder.release("1.0.0", {**files, ".release-safety.toml": settings})
    more = go.replace("}\n", '\t"ALTER TABLE feeds ADD COLUMN url text",\n}\n')
    builder.release("1.1.0", {"internal/database/migrations.go": more})
    verdict, findings = _judge(builder, tmp_path, "1.1.0")
    assert verdict == "unknown"
    assert _contradicted(findings) == [
        (
            "migrations surface declared absent, but 1.1.0 has internal/database/migrations.go",
            "internal/database/migrations.go",
        )
    ]


EXPRESS = (
    "import express from 'express';\n\nconst app = express();\n"
    "app.get('/health', (req, res) => res.send('ok'));\napp.delete('/api/users/:id', remove);\n"
)


def test_routes_the_code_registers_contradict_rest_absent(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("routes")
    files = {"package.json": '{"dependencies": {"express": "4"}}\n', "src/app.ts": EXPRESS}
    builder.release("1.0.0", {**files, ".release-safety.toml": ALL_ABSENT})
    builder.release("1.1.0", {"src/app.ts": EXPRESS.replace("app.delete", "app.get")})
    verdict, findings = _judge(builder, tmp_path, "1.1.0")
    assert verdict == "unknown"
    [held] = [f for f in findings if f["rule"] == "absent-contradicted"]
    assert held["message"] == (
        "rest surface declared absent, but 1.1.0 has GET /health (src/app.ts:4), "
        "GET /api/users/:id (src/app.ts:5)"
    )
    assert (held["file"], held["line"]) == ("src/app.ts", 4)
    assert "name it in [rest] routes" in held["hint"]


def test_routes_at_the_earlier_ref_only_contradict_rest_absent(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("routesgone")
    builder.release("1.0.0", {"src/app.ts": EXPRESS, ".release-safety.toml": ALL_ABSENT})
    builder.delete("src/app.ts")
    builder.release("1.1.0", {"src/worker.ts": "export function run() {}\n"})
    verdict, findings = _judge(builder, tmp_path, "1.1.0")
    assert verdict == "unknown"
    assert _contradicted(findings) == [
        (
            "rest surface declared absent, but 1.0.0 has GET /health (src/app.ts:4), "
            "DELETE /api/users/:id (src/app.ts:5)",
            None,
        )
    ]


def test_a_service_that_only_calls_http_apis_keeps_rest_absent(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("client")
    client = (
        "import axios from 'axios';\n\nconst api = axios.create({ baseURL: 'https://x' });\n"
        "export const users = () => api.get('/users');\nexport const drop = (id) => "
        "api.delete(`/users/${id}`);\n"
    )
    builder.release("1.0.0", {"src/client.ts": client, ".release-safety.toml": ALL_ABSENT})
    builder.release(
        "1.1.0", {"src/client.ts": client + "export const me = () => api.get('/me');\n"}
    )
    verdict, findings = _judge(builder, tmp_path, "1.1.0")
    assert verdict is True
    assert _contradicted(findings) == []
