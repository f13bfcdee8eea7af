"""`lint-migrations` as a terminal and a commit hook use it: folders, `--earlier`,
`--skip-non-migrations`, `--stdin-filepath`, `--config`, on real files."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from release_safety.cli.main import run


@pytest.fixture
def migrations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A migrations folder: a table created, then a lone SET NOT NULL on it; an index.ts."""
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "001_create.sql").write_text("CREATE TABLE t (id int, name text);\n")
    (folder / "002_not_null.sql").write_text("ALTER TABLE t ALTER COLUMN name SET NOT NULL;\n")
    (folder / "003_later.sql").write_text("ALTER TABLE t DROP COLUMN name;\n")
    (folder / "index.ts").write_text("export * from './models';\n")
    monkeypatch.chdir(tmp_path)
    return folder


def _rules(capsys: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    files = json.loads(capsys.readouterr().out)["files"]
    return {f["file"]: [x["rule"] for x in f["findings"]] for f in files}


def test_a_folder_is_its_migrations_in_name_order(
    migrations: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["lint-migrations", "--format", "json", "migrations"]) == 1
    rules = _rules(capsys)
    assert list(rules) == [
        f"migrations/{n}" for n in ("001_create.sql", "002_not_null.sql", "003_later.sql")
    ]
    assert "set-not-null" in rules["migrations/002_not_null.sql"]  # known: 001 created it
    (migrations.parent / "empty").mkdir()
    assert run(["lint-migrations", "empty"]) == 2
    assert "empty: a folder without .sql or knex migrations" in capsys.readouterr().err


def test_earlier_replays_the_folder_before_a_changed_migration(
    migrations: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["lint-migrations", "--format", "json", "migrations/002_not_null.sql"]
    assert run(args) == 1
    assert "schema-fact-unknown" in _rules(capsys)["migrations/002_not_null.sql"]  # alone
    assert run([*args, "--earlier"]) == 1
    rules = _rules(capsys)
    assert list(rules) == ["migrations/002_not_null.sql"]  # 001 replayed, not reported
    assert "schema-fact-unknown" not in rules["migrations/002_not_null.sql"]
    assert "set-not-null" in rules["migrations/002_not_null.sql"]


def test_skip_non_migrations_leaves_index_ts_out(
    migrations: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["lint-migrations", "migrations/index.ts"]) == 2
    assert "not a migration" in capsys.readouterr().err
    args = ["lint-migrations", "--json", "--skip-non-migrations", "--earlier"]
    assert run([*args, "migrations/index.ts", "migrations/001_create.sql"]) == 0
    assert list(_rules(capsys)) == ["migrations/001_create.sql"]


def test_stdin_filepath_names_standard_input(
    migrations: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sql = "ALTER TABLE t DROP COLUMN name;\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(sql.encode())))
    assert run(["lint-migrations", "--json", "-", "--stdin-filepath", "db/9.sql"]) == 1
    assert list(_rules(capsys)) == ["db/9.sql"]


def test_config_names_the_settings(migrations: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = migrations.parent / "elsewhere.toml"
    settings.write_text('[rules]\noff = ["drop-column"]\n')
    args = ["lint-migrations", "--json", "migrations/003_later.sql"]
    assert run(args) == 1
    assert "drop-column" in _rules(capsys)["migrations/003_later.sql"]
    run([*args, "--config", str(settings)])
    assert "drop-column" not in _rules(capsys)["migrations/003_later.sql"]


@pytest.mark.parametrize(
    "name",
    ["a.sql", "db/m/1.sql", "./a.sql", "a//b.sql", "a/./b.sql", "a/../b.sql", "/abs/x.sql",
     "x/", "x/.", ".", "..", ".hidden.sql", "a/.b/c.sql", "a/...", "//x.sql", "a/b/"],
)  # fmt: skip
def test_a_name_is_placed_as_its_path_writes_it(name: str) -> None:
    from release_safety.cli.lint import _posix

    assert _posix(name) == Path(name).as_posix()
