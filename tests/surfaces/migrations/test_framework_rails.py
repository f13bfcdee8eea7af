"""Rails migrations read as ActiveRecord runs them: the SQL its PostgreSQL adapter sends (checked
against fixtures/frameworks/rails, captured from ActiveRecord itself), only `change` / `up`,
in a transaction unless `disable_ddl_transaction!`; the real CLI on real git repositories."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from codereleases import ABSENT, captured, judged

from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.rails import extract_rails

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/rails"
# ActiveRecord renames an index named after a renamed column; that rename is left out (it
# changes a name only: no lock beyond the catalogue, no rewrite).
_LEFT_OUT = re.compile(r"ALTER INDEX .* RENAME TO ")


def _plain(sql: str) -> str:
    return " ".join(sql.split()).replace("( ", "(").replace(" )", ")")


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("2*.rb")))
def test_the_sql_is_the_sql_activerecord_sends(name: str) -> None:
    text = (FIXTURES / f"{name}.sql").read_text()
    expected = [
        _plain(sql) for sql in captured(FIXTURES / f"{name}.sql") if not _LEFT_OUT.match(sql)
    ]
    extracted = extract_rails((FIXTURES / f"{name}.rb").read_text(), f"db/migrate/{name}.rb")
    assert [_plain(s.sql or f"unknown: {s.reason}") for s in extracted.statements] == expected
    assert extracted.transactional is not text.startswith("-- no transaction")


SETTINGS = '[[migrations.sources]]\npath = "db/migrate"\nformat = "rails"\n' + ABSENT
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
    first = {".release-safety.toml": SETTINGS, "db/migrate/20240101000000_create_users.rb": INIT}
    return judged(make_repo, tmp_path, name, first, files)


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


def _sql(body: str, head: str = "") -> list[str | None]:
    extracted = extract_rails(_migration(body, head), "db/migrate/20240301000000_x.rb")
    return [s.sql or f"unknown: {s.reason}" for s in extracted.statements]


def test_forms_activerecord_7_writes_are_read() -> None:
    body = (
        "  def self.up\n"
        "    create_enum :status, %w[ok error]\n"
        "    add_column :users, :status, :enum, enum_type: :status, default: 'ok'\n"
        "    add_column :users, :seen_at, :datetime, default: -> { 'CURRENT_TIMESTAMP' }\n"
        "    add_index :users, [:name, :email], order: { email: :desc }, name: \"by_#{'name'}\"\n"
        "    rename_index :users, 'by_name', 'users_by_name'\n"
        "  end\n"
    )
    assert _sql(body) == [
        "CREATE TYPE \"status\" AS ENUM ('ok', 'error')",
        'ALTER TABLE "users" ADD "status" status DEFAULT \'ok\'',
        'ALTER TABLE "users" ADD "seen_at" timestamp(6) DEFAULT CURRENT_TIMESTAMP',
        'CREATE INDEX "by_name" ON "users" ("name", "email" DESC)',
        'ALTER INDEX "by_name" RENAME TO "users_by_name"',
    ]


def test_what_runs_in_ruby_is_unknown_naming_it() -> None:
    body = (
        "  def change\n"
        "    add_column :users, :age, :integer unless column_exists?(:users, :age)\n"
        '    execute "UPDATE users SET name = #{quote(name)}"\n'
        "    add_column :users, :x, :string, stored: true\n"
        "  end\n"
    )
    assert _sql(body) == [
        "unknown: rails: `add_column :users, :age, :integer unless column_exists?(:...`, "
        "not a migration method",
        "unknown: rails: SQL the interpolation `#{quote(name)}`",
        "unknown: rails: the column option stored: not modelled",
    ]


def test_a_stored_virtual_column_is_generated() -> None:
    body = (
        "  def change\n"
        "    add_column :users, :search, :virtual, type: :tsvector, "
        "as: \"to_tsvector('simple', name)\", stored: true\n"
        "    change_table :users do |t|\n"
        "      t.virtual :total, type: :decimal, precision: 19, as: 'a + b', stored: true\n"
        "    end\n"
        "  end\n"
    )
    assert _sql(body) == [
        'ALTER TABLE "users" ADD "search" tsvector '
        "GENERATED ALWAYS AS (to_tsvector('simple', name)) STORED",
        'ALTER TABLE "users" ADD "total" decimal(19) GENERATED ALWAYS AS (a + b) STORED',
    ]


def test_a_migration_that_does_not_parse_is_unknown_at_its_error() -> None:
    extracted = extract_rails(
        _migration("  def change\n    add_column :u, :a,, :b\n  end\n"), "x.rb"
    )
    assert [(s.sql, s.reason) for s in extracted.statements] == [
        (None, "rails migration does not parse (line 3)")
    ]


def test_on_mysql_the_operations_are_judged_by_mysql(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """The reader writes PostgreSQL's SQL; on a MySQL source the same operations are judged as
    MySQL runs them (a dropped column breaks the previous release, no PostgreSQL lock rule)."""
    mysql = SETTINGS.replace('format = "rails"\n', 'format = "rails"\ndialect = "mysql"\n')
    first = {".release-safety.toml": mysql, "db/migrate/20240101000000_create_users.rb": INIT}
    drop = "  def change\n    remove_column :users, :name\n  end\n"
    evidence = judged(make_repo, tmp_path, "mysql", first, {ADDED: _migration(drop)})
    assert evidence["rollingUpdateSafe"] is False
    [finding] = evidence["because"]
    assert (finding["rule"], finding["file"], finding["line"]) == ("drop-column", ADDED, 3)
    assert finding["message"].endswith("(MySQL)")
    add = "  def change\n    add_column :users, :nickname, :string\n  end\n"
    quiet = judged(make_repo, tmp_path, "mysql-add", first, {ADDED: _migration(add)})
    assert quiet["rollingUpdateSafe"] is True, quiet["because"]


@pytest.mark.parametrize(("adapter", "mysql"), [("mysql2", True), ("postgresql", False)])
def test_the_engine_is_the_adapter_of_config_database_yml(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, adapter: str, mysql: bool
) -> None:
    first = {
        ".release-safety.toml": SETTINGS,
        "config/database.yml": f"default: &default\n  adapter: {adapter}\nproduction:\n"
        "  <<: *default\n  database: app\n",
        "db/migrate/20240101000000_create_users.rb": INIT,
    }
    drop = "  def change\n    remove_column :users, :name\n  end\n"
    evidence = judged(make_repo, tmp_path, adapter, first, {ADDED: _migration(drop)})
    [finding] = evidence["because"]
    assert finding["rule"] == "drop-column"
    assert finding["message"].endswith(" (MySQL)") is mysql
