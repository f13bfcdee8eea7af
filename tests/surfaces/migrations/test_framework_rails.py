"""Rails migrations read as ActiveRecord runs them: the SQL its PostgreSQL adapter sends (checked
against fixtures/frameworks/rails, captured from ActiveRecord itself), only `change` / `up`,
in a transaction unless `disable_ddl_transaction!`; the real CLI on real git repositories."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.rails import extract_rails
from release_safety.surfaces.migrations.sql.sqlfile import split_sql

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/rails"
# ActiveRecord renames an index named after a renamed column; that rename is left out (it
# changes a name only: no lock beyond the catalogue, no rewrite).
_LEFT_OUT = re.compile(r"ALTER INDEX .* RENAME TO ")


def _plain(sql: str) -> str:
    return " ".join(sql.split()).replace("( ", "(").replace(" )", ")")


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("2*.rb")))
def test_the_sql_is_the_sql_activerecord_sends(name: str) -> None:
    captured = (FIXTURES / f"{name}.sql").read_text()
    expected = [_plain(s.sql) for s in split_sql(captured) if s.sql and not _LEFT_OUT.match(s.sql)]
    extracted = extract_rails((FIXTURES / f"{name}.rb").read_text(), f"db/migrate/{name}.rb")
    assert [_plain(s.sql or f"unknown: {s.reason}") for s in extracted.statements] == expected
    assert extracted.transactional is not captured.startswith("-- no transaction")


SETTINGS = (
    "[[migrations.sources]]\n"
    'path = "db/migrate"\n'
    'format = "rails"\n'
    '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    '[rest]\nabsent = "the service has no HTTP API of its own"\n'
    '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    '[deployment]\nabsent = "operators run it from their own manifests; none ship"\n'
)
INIT = (
    "class CreateUsers < ActiveRecord::Migration[7.1]\n"
    "  def change\n"
    "    create_table :users do |t|\n"
    "      t.string :name\n"
    "      t.string :email, null: false\n"
    "    end\n"
    "  end\n"
    "end\n"
)


def _migration(body: str, head: str = "") -> str:
    return f"class Change < ActiveRecord::Migration[7.1]\n{head}{body}end\n"


def _evidence(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, files: dict, name: str = "service"
) -> dict:
    repo = make_repo(name)
    repo.release(
        "1.0.0",
        {".release-safety.toml": SETTINGS, "db/migrate/20240101000000_create_users.rb": INIT},
    )
    repo.release("1.1.0", files)
    evidence = tmp_path / f"{name}.evidence.json"
    args = [
        "generate",
        "--repo",
        str(repo.path),
        "--to",
        "1.1.0",
        "--out",
        str(tmp_path / "a.json"),
    ]
    run([*args, "--evidence", str(evidence)])
    return json.loads(evidence.read_text())


ADDED = "db/migrate/20240201000000_change.rb"


def _blocking(evidence: dict) -> list[tuple[str, int]]:
    return [(f["rule"], f["line"]) for f in evidence["because"]]


def test_dropping_a_column_the_previous_release_reads_is_breaking(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    body = "  def change\n    remove_column :users, :name, :string\n  end\n"
    evidence = _evidence(make_repo, tmp_path, {ADDED: _migration(body)})
    assert evidence["rollingUpdateSafe"] is False
    assert [(f["rule"], f["file"], f["line"]) for f in evidence["because"]] == [
        ("drop-column", ADDED, 3)
    ]


def test_adding_a_nullable_column_is_safe(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    body = "  def change\n    add_column :users, :nickname, :string\n  end\n"
    evidence = _evidence(make_repo, tmp_path, {ADDED: _migration(body)})
    assert evidence["rollingUpdateSafe"] is True, evidence["because"]


def test_only_the_down_part_dropping_a_column_is_safe(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    body = (
        "  def up\n    add_column :users, :nickname, :string\n  end\n\n"
        "  def down\n    remove_column :users, :name\n    drop_table :users\n  end\n"
    )
    evidence = _evidence(make_repo, tmp_path, {ADDED: _migration(body)})
    assert evidence["rollingUpdateSafe"] is True, evidence["because"]


def test_a_model_call_is_unknown_naming_it(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    body = "  def up\n    User.where(name: nil).update_all(name: 'x')\n  end\n"
    evidence = _evidence(make_repo, tmp_path, {ADDED: _migration(body)})
    assert evidence["rollingUpdateSafe"] == "unknown"
    [finding] = evidence["because"]
    assert (finding["file"], finding["line"]) == (ADDED, 3)
    assert "User.where(name: nil).update_all(name: 'x')" in finding["message"]


def test_a_concurrent_index_needs_disable_ddl_transaction(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    body = "  def change\n    add_index :users, :email, algorithm: :concurrently\n  end\n"
    inside = _evidence(make_repo, tmp_path, {ADDED: _migration(body)}, "inside")
    assert inside["rollingUpdateSafe"] is not True
    assert any(f["line"] == 3 and f["file"] == ADDED for f in inside["because"])
    head = "  disable_ddl_transaction!\n"
    outside = _evidence(make_repo, tmp_path, {ADDED: _migration(body, head)}, "outside")
    assert outside["rollingUpdateSafe"] is True, outside["because"]


def test_a_release_adding_no_migration_is_judged(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    evidence = _evidence(make_repo, tmp_path, {"README.md": "a release without migrations\n"})
    assert evidence["rollingUpdateSafe"] is True, evidence["because"]
