"""Fail closed on what the verdict did not see or weigh: real repositories, real commands.

Each test names the verdict-table change of docs/verdict.md it covers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

MakeRepo = Callable[[str], RepoBuilder]

SPEC = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /users:
    get:
      responses:
        '200':
          description: users
          content:
            application/json:
              schema:
                type: object
                required: [id, name]
                properties:
                  id: {type: string}
                  name: {type: string}
"""
NO_NAME = SPEC.replace("required: [id, name]", "required: [id]").replace(
    "                  name: {type: string}\n", ""
)
MCP = json.dumps({"schemaVersion": "1", "tools": []}) + "\n"
INIT = "CREATE TABLE users (id int, name text);\n"
COMPOSE = "services:\n  app:\n    image: example/svc:1\n  db:\n    image: postgres:16.4\n"
ABSENT_MCP = '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
EVERYTHING_ELSE_ABSENT = (
    ABSENT_MCP
    + '[rest]\nabsent = "the worker has no HTTP API at all, only a queue"\n'
    + '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    + '[deployment]\nabsent = "operators run the worker from their own manifests; none ship"\n'
)


def generate(repo: RepoBuilder, tmp_path: Path, to: str, *extra: str) -> tuple[int, Any, Any]:
    """Run `generate`; the exit code, the artifact and the evidence (None when not written)."""
    out, evidence = tmp_path / f"{to}.json", tmp_path / f"{to}.evidence.json"
    args = ["generate", "--repo", str(repo.path), "--to", to, "--out", str(out)]
    code = run([*args, "--evidence", str(evidence), *extra])
    artifact = json.loads(out.read_text()) if out.exists() else None
    found = json.loads(evidence.read_text()) if evidence.exists() else None
    return code, artifact, found


def surfaces(evidence: Any) -> dict[str, Any]:
    return {s["surface"]: s for s in evidence["surfaces"]}


def rules(evidence: Any, severity: str | None = None) -> list[str]:
    return [f["rule"] for f in evidence["findings"] if severity in (None, f["severity"])]


# --- row 2: a surface that read nothing ------------------------------------------------------


def test_migrations_only_repository_without_settings_is_not_true(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("db-only")
    repo.release("1.0.0", {"db/migrations/001_init.sql": INIT})
    repo.release("1.1.0", {"db/migrations/002_add.sql": "ALTER TABLE users ADD COLUMN x text;\n"})
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    assert artifact["api"]["rest"] == {
        "checked": False,
        "breaking": "unknown",
        "changes": [],
        "breakingCount": 0,
        "advisories": [],
        "advisoryCount": 0,
    }
    assert artifact["api"]["mcp"]["checked"] is False
    assert artifact["config"]["checked"] is False
    by_surface = surfaces(evidence)
    assert by_surface["migrations"]["checked"] is True
    rest = by_surface["rest"]
    assert rest["reason"].startswith("no document found at 1.0.0 or 1.1.0; tried rest.specs = ")
    for tried in ("**/openapi.yaml", "**/openapi.json", "**/swagger.yaml", "**/swagger.json"):
        assert f"'{tried}'" in rest["reason"]
    assert rest["coverage"]["tried"][0] == "rest.specs = '**/openapi.yaml'"
    because = {(f["surface"], f["rule"]) for f in evidence["because"]}
    assert {("rest", "surface-not-checked"), ("mcp", "surface-not-checked")} <= because
    assert ("config", "surface-not-checked") in because


def test_documents_where_real_projects_keep_them_are_discovered(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("svc")
    repo.release(
        "1.0.0",
        {
            "api/v2.0/swagger.yaml": SPEC,  # harbor's place
            "vendor/github.com/lib/openapi.yaml": SPEC,  # vendored: not the service's
            "web/tests/fixtures/openapi.json": "{}",  # a test fixture
            "server/svc/mcp-tools.json": MCP,
            "deploy/.env.example": "PORT=8080\n",
            "server/migrations/001_init.sql": INIT,
            "deploy/docker-compose.yml": COMPOSE,
            "examples/docker-compose.yml": COMPOSE,  # an example: not the service's
        },
    )
    repo.release("1.1.0", {"api/v2.0/swagger.yaml": NO_NAME})
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is False
    assert artifact["api"]["rest"]["breakingCount"] == 1
    coverage = {name: s["coverage"] for name, s in surfaces(evidence).items()}
    assert list(coverage["rest"]["new"]) == ["api/v2.0/swagger.yaml"]
    assert list(coverage["mcp"]["new"]) == ["server/svc/mcp-tools.json"]
    assert list(coverage["config"]["old"]) == ["deploy/.env.example"]
    assert coverage["migrations"]["matched"] == {"old": 1, "new": 1}
    assert list(coverage["deployment"]["new"]) == ["deploy/docker-compose.yml"]
    assert all(s["checked"] for s in evidence["surfaces"])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            '[rest]\nspecs = ["server/openapi.jsn"]\n',
            "key 'rest.specs': 'server/openapi.jsn' matches nothing at 1.1.0",
        ),
        (
            '[[migrations.sources]]\npath = "db/migrationz"\n',
            "key 'migrations.sources[0]': {path='db/migrationz'",
        ),
        (
            '[mcp]\nsnapshots = ["tools/*.json"]\n',
            "key 'mcp.snapshots': 'tools/*.json' matches nothing at 1.1.0",
        ),
        (
            '[declarations]\nregistry = "breaks.json"\n',
            "key 'declarations.registry': 'breaks.json' matches nothing at 1.1.0",
        ),
    ],
)
def test_a_settings_path_that_matches_nothing_is_exit_2(
    make_repo: MakeRepo,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    settings: str,
    message: str,
) -> None:
    repo = make_repo("typo")
    files = {"server/openapi.json": "{}", "db/migrations/001_init.sql": INIT}
    repo.release("1.0.0", {**files, ".release-safety.toml": settings})
    repo.release("1.1.0", {"README.md": "next\n"})
    code, artifact, _ = generate(repo, tmp_path, "1.1.0")
    assert (code, artifact) == (2, None)
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert err.startswith("release-safety: .release-safety.toml: key ")


def test_several_candidates_are_exit_2_never_a_silent_pick(
    make_repo: MakeRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo("two-apis")
    repo.release("1.0.0", {"openapi.yaml": SPEC, "admin/openapi.yaml": SPEC})
    repo.release("1.1.0", {"README.md": "x\n"})
    assert generate(repo, tmp_path, "1.1.0")[0] == 2
    err = capsys.readouterr().err
    assert "several candidate documents at 1.1.0: admin/openapi.yaml, openapi.yaml" in err
    assert "rest.specs = [...]" in err
    repo.write(".release-safety.toml", '[rest]\nspecs = ["openapi.yaml", "admin/openapi.yaml"]\n')
    repo.release("1.2.0", {"admin/openapi.yaml": NO_NAME})
    code, artifact, _ = generate(repo, tmp_path, "1.2.0")
    assert code == 0
    [change] = artifact["api"]["rest"]["changes"]
    assert change.startswith("admin/openapi.yaml: GET /users — ")  # each document named


def test_declared_absent_surfaces_say_so_and_do_not_hold_the_verdict(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("worker")
    repo.release(
        "1.0.0",
        {"db/migrations/001_init.sql": INIT, ".release-safety.toml": EVERYTHING_ELSE_ABSENT},
    )
    repo.release("1.1.0", {"db/migrations/002_add.sql": "ALTER TABLE users ADD COLUMN x text;\n"})
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    mcp = artifact["api"]["mcp"]
    assert (mcp["checked"], mcp["breaking"], mcp["advisoryCount"]) == (True, False, 1)
    assert "the service exposes no MCP server to agents" in mcp["advisories"][0]
    assert surfaces(evidence)["mcp"]["coverage"]["absent"] == (
        "the service exposes no MCP server to agents"
    )


def test_an_absence_declared_with_a_hollow_reason_leaves_the_surface_unknown(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("hollow")
    repo.release("1.0.0", {".release-safety.toml": '[mcp]\nabsent = "n/a"\n'})
    repo.release("1.1.0")
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    assert surfaces(evidence)["mcp"]["checked"] is False
    assert "surface-absent-reason-hollow" in rules(evidence, "unknown")


# --- row 1: heaviness weighs -----------------------------------------------------------------


def _database_repo(make_repo: MakeRepo, name: str) -> RepoBuilder:
    repo = make_repo(name)
    repo.release(
        "1.0.0",
        {"db/migrations/001_init.sql": INIT, ".release-safety.toml": EVERYTHING_ELSE_ABSENT},
    )
    return repo


def test_an_index_built_under_a_blocking_lock_is_false(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = _database_repo(make_repo, "heavy")
    index = "CREATE INDEX users_name_idx ON users USING gin (to_tsvector('simple', name));\n"
    repo.release("1.1.0", {"db/migrations/002_index.sql": index})
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"] == {
        "rollingUpdateSafe": False,
        "recommendedStrategy": "Recreate",
    }
    [reason] = evidence["because"]
    assert (reason["rule"], reason["file"], reason["line"]) == (
        "blocking-table-lock",
        "db/migrations/002_index.sql",
        1,
    )
    assert "users is locked (SHARE)" in reason["message"]
    assert "CONCURRENTLY" in reason["hint"]


def test_concurrently_and_tables_new_in_the_release_stay_safe(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = _database_repo(make_repo, "light")
    repo.release(
        "1.1.0",
        {
            "db/migrations/002_teams.sql": "CREATE TABLE teams (id int, name text);\n",
            "db/migrations/003_index.sql": "CREATE INDEX teams_name_idx ON teams (name);\n",
            "db/migrations/004_users.sql": (
                "CREATE INDEX CONCURRENTLY users_name_idx ON users (name);\n"
            ),
        },
    )
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    assert "blocking-table-lock" not in rules(evidence)
    files = {f["name"]: f["heaviness"] for f in artifact["migrations"]["files"]}
    assert files["004_users.sql"]["scansTable"] is True  # a fact, not a verdict


def test_an_acknowledged_small_table_is_an_advisory_quoting_the_reason(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = _database_repo(make_repo, "small")
    reason = "users holds one row per operator account, at most a few hundred"
    migration = (
        f"-- release-safety: acknowledge(blocking-table-lock, create-index-non-concurrently):\n"
        f"--   {reason}\n"
        "CREATE INDEX users_name_idx ON users (name);\n"
    )
    repo.release("1.1.0", {"db/migrations/002_index.sql": migration})
    notes = tmp_path / "notes.md"
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0", "--notes", str(notes))
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    accepted = [f for f in evidence["findings"] if f["rule"] == "blocking-table-lock"]
    assert [f["severity"] for f in accepted] == ["advisory"]
    assert accepted[0]["message"].endswith(
        f"(acknowledged at db/migrations/002_index.sql:1: {reason})"
    )
    assert accepted[0]["acknowledged"] == f"db/migrations/002_index.sql:1: {reason}"
    assert artifact["migrations"]["files"][0]["heaviness"]["locksTable"] is True
    section = notes.read_text()
    assert "### Acknowledged by the maintainers" in section
    assert "| `blocking-table-lock` | `db/migrations/002_index.sql:3` |" in section
    assert section.count(reason) == 4  # two rules, each with its message and its reason


def test_a_hollow_acknowledgement_acknowledges_nothing(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = _database_repo(make_repo, "hollow-ack")
    migration = (
        "-- release-safety: acknowledge(blocking-table-lock): fine\n"
        "CREATE INDEX users_name_idx ON users (name);\n"
    )
    repo.release("1.1.0", {"db/migrations/002_index.sql": migration})
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is False
    assert "acknowledgement-invalid" in rules(evidence, "unknown")
    assert "declaration-malformed" not in rules(evidence)  # not mistaken for a declaration


# --- settings are a surface ------------------------------------------------------------------


def test_a_settings_edit_that_hides_a_break_never_yields_true(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = _database_repo(make_repo, "hide")
    hidden = EVERYTHING_ELSE_ABSENT + '[[migrations.sources]]\npath = "docs"\n'
    repo.write("docs/001_notes.sql", "SELECT 1;\n")
    repo.release(
        "1.1.0",
        {
            ".release-safety.toml": hidden,
            "db/migrations/002_drop.sql": "ALTER TABLE users DROP COLUMN name;\n",
        },
    )
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is False
    [drop] = [f for f in evidence["because"] if f["rule"] == "drop-column"]
    assert drop["message"].endswith("[seen with the previous release's settings]")
    narrowed = [f for f in evidence["findings"] if f["rule"] == "settings-narrowed"]
    assert [(f["file"], f["line"]) for f in narrowed] == [(".release-safety.toml", 9)]
    assert narrowed[0]["message"] == (
        "key 'migrations.sources': discovery found "
        "1.0.0:db/migrations/001_init.sql, 1.1.0:db/migrations/001_init.sql, "
        "1.1.0:db/migrations/002_drop.sql, the new settings do not"
    )
    assert [f["name"] for f in artifact["migrations"]["files"]] == [
        "001_notes.sql",
        "002_drop.sql",
    ]


def test_a_narrowing_with_nothing_hidden_is_still_unknown(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = _database_repo(make_repo, "narrow")
    narrower = "postgres_version = 10\n" + EVERYTHING_ELSE_ABSENT
    repo.release("1.1.0", {".release-safety.toml": narrower})
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    [finding] = evidence["because"]
    assert finding["rule"] == "settings-narrowed"
    assert finding["message"] == "key 'postgres_version': 15 -> 10"


def test_a_widening_settings_change_is_an_advisory(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = _database_repo(make_repo, "widen")
    wider = EVERYTHING_ELSE_ABSENT.replace(ABSENT_MCP, "") + '[mcp]\nsnapshots = ["mcp.json"]\n'
    repo.release("1.1.0", {".release-safety.toml": wider, "mcp.json": MCP})
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    settings_findings = [f for f in evidence["findings"] if f["surface"] == "settings"]
    assert {(f["rule"], f["severity"]) for f in settings_findings} == {
        ("settings-changed", "advisory")
    }


def test_adopting_settings_that_find_what_the_defaults_found_is_not_a_narrowing(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("adopt")
    repo.release(
        "1.0.0",
        {
            "openapi.yaml": SPEC,
            "mcp-tools.json": MCP,
            "db/migrations/001.sql": INIT,
            "compose.yaml": COMPOSE,
        },
    )
    explicit = (
        '[rest]\nspecs = ["openapi.yaml"]\n'
        '[mcp]\nsnapshots = ["mcp-tools.json"]\n'
        '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    )
    repo.release("1.1.0", {".release-safety.toml": explicit})
    code, artifact, evidence = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    settings_findings = [f for f in evidence["findings"] if f["surface"] == "settings"]
    assert sorted((f["rule"], f["message"].split(": ", 1)[0]) for f in settings_findings) == [
        ("settings-changed", "key 'config.absent'"),  # the defaults found no config either
        ("settings-changed", "key 'mcp.snapshots'"),
        ("settings-changed", "key 'rest.specs'"),
    ]
    # the same settings adopted where the defaults also found a config source: a narrowing
    repo.delete(".release-safety.toml")
    repo.release("1.2.0", {".env.example": "PORT=1\n"})
    repo.release("1.3.0", {".release-safety.toml": explicit})
    code, artifact, evidence = generate(repo, tmp_path, "1.3.0")
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    assert sorted((f["rule"], f["message"]) for f in evidence["because"]) == [
        (
            "absent-contradicted",
            "config surface declared absent, but 1.3.0 has .env.example",
        ),
        (
            "settings-narrowed",
            "key 'config.absent': declared absent: "
            "configuration lives in the database, edited in the UI",
        ),
    ]


def test_the_committed_settings_are_used_and_a_differing_working_copy_is_named(
    make_repo: MakeRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _database_repo(make_repo, "working")
    repo.release("1.1.0")
    repo.write(".release-safety.toml", "[rest]\nspecs = ['nowhere.yaml']\n")
    code, artifact, _ = generate(repo, tmp_path, "1.1.0")
    assert code == 0 and artifact["compatibility"]["rollingUpdateSafe"] is True
    err = capsys.readouterr().err
    assert ".release-safety.toml in the working tree differs from the one committed at 1.1.0" in err
