"""Ecto migrations read as Ecto runs them: the SQL ecto_sql's PostgreSQL adapter writes
(fixtures/frameworks/ecto: the SQL its `execute_ddl` and its own tests give; Hex is not
reachable here, so no Ecto ran), `change` / `up` only, in a transaction unless
`@disable_ddl_transaction true`; the real CLI on real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from codereleases import ABSENT, captured, judged

from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.ecto import extract_ecto

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/ecto"


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.exs")))
def test_the_sql_is_the_sql_ecto_sql_writes(name: str) -> None:
    expected_text = (FIXTURES / f"{name}.sql").read_text()
    expected = captured(FIXTURES / f"{name}.sql")
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


SETTINGS = ABSENT
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
    first = {".release-safety.toml": SETTINGS, "priv/repo/migrations/20240101000000_init.exs": INIT}
    found = judged(make_repo, tmp_path, case, first, {ADDED: _migration(body)})
    assert found["rollingUpdateSafe"] == safe, found["because"]
    if safe is not True:
        assert [(f["file"], f["line"]) for f in found["because"]] == [(ADDED, 4)]
    if case == "function":
        assert "SQL `&fill_ages/0`, computed at run time" in found["because"][0]["message"]


def test_a_concurrent_index_outside_the_transaction_is_safe(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    body = "    create index(:users, [:email], concurrently: true)\n"
    head = "  @disable_ddl_transaction true\n  @disable_migration_lock true\n"
    first = {".release-safety.toml": SETTINGS, "priv/repo/migrations/20240101000000_init.exs": INIT}
    found = judged(make_repo, tmp_path, "outside", first, {ADDED: _migration(body, head)})
    assert found["rollingUpdateSafe"] is True, found["because"]
