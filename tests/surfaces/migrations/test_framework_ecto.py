"""Ecto migrations read as Ecto runs them: the SQL ecto_sql's PostgreSQL adapter writes
(fixtures/frameworks/ecto: the SQL its `execute_ddl` and its own tests give; Hex is not
reachable here, so no Ecto ran), `change` / `up` only, in a transaction unless
`@disable_ddl_transaction true`; the real CLI on real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.ecto import extract_ecto
from release_safety.surfaces.migrations.sql.sqlfile import split_sql

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/ecto"


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.exs")))
def test_the_sql_is_the_sql_ecto_sql_writes(name: str) -> None:
    expected_text = (FIXTURES / f"{name}.sql").read_text()
    expected = [s.sql for s in split_sql(expected_text) if s.sql]
    extracted = extract_ecto((FIXTURES / f"{name}.exs").read_text(), f"priv/repo/{name}.exs")
    assert [s.sql or f"unknown: {s.reason}" for s in extracted.statements] == expected
    assert extracted.transactional is not expected_text.startswith("-- no transaction")


def _migration(body: str, head: str = "") -> str:
    return (
        "defmodule App.Repo.Migrations.Change do\n"
        "  use Ecto.Migration\n"
        f"{head}"
        "  def change do\n"
        f"{body}"
        "  end\n"
        "end\n"
    )


SETTINGS = (
    '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    '[rest]\nabsent = "the service has no HTTP API of its own"\n'
    '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    '[deployment]\nabsent = "operators run it from their own manifests; none ship"\n'
)
INIT = _migration(
    "    create table(:users) do\n      add :name, :string\n      add :email, :string\n"
    "      timestamps()\n    end\n"
)
ADDED = "priv/repo/migrations/20240201000000_change.exs"
CASES = {
    # found by the default discovery; a dropped column is breaking, at its line
    "remove": ("    alter table(:users) do\n      remove :name\n    end\n", False),
    "add": ("    alter table(:users) do\n      add :age, :integer\n    end\n", True),
    # a function's SQL is known only when it runs: unknown, naming it
    "function": ("    execute(&fill_ages/0)\n", "unknown"),
    # a concurrent index in Ecto's transaction fails
    "concurrent": ("    create index(:users, [:email], concurrently: true)\n", False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_ecto_migration_is_judged_by_the_sql_it_runs(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, case: str
) -> None:
    body, safe = CASES[case]
    repo = make_repo(case)
    first = {".release-safety.toml": SETTINGS, "priv/repo/migrations/20240101000000_init.exs": INIT}
    repo.release("1.0.0", first)
    repo.release("1.1.0", {ADDED: _migration(body)})
    evidence = tmp_path / f"{case}.json"
    args = ["generate", "--repo", str(repo.path), "--to", "1.1.0", "--out", str(tmp_path / "a")]
    run([*args, "--evidence", str(evidence)])
    found = json.loads(evidence.read_text())
    assert found["rollingUpdateSafe"] == safe, found["because"]
    if safe is not True:
        assert [(f["file"], f["line"]) for f in found["because"]] == [(ADDED, 4)]
    if case == "function":
        assert "SQL `&fill_ages/0`, computed at run time" in found["because"][0]["message"]


def test_a_concurrent_index_outside_the_transaction_is_safe(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    repo = make_repo("outside")
    first = {".release-safety.toml": SETTINGS, "priv/repo/migrations/20240101000000_init.exs": INIT}
    repo.release("1.0.0", first)
    body = "    create index(:users, [:email], concurrently: true)\n"
    head = "  @disable_ddl_transaction true\n  @disable_migration_lock true\n"
    repo.release("1.1.0", {ADDED: _migration(body, head)})
    evidence = tmp_path / "outside.json"
    args = ["generate", "--repo", str(repo.path), "--to", "1.1.0", "--out", str(tmp_path / "a")]
    run([*args, "--evidence", str(evidence)])
    found = json.loads(evidence.read_text())
    assert found["rollingUpdateSafe"] is True, found["because"]
