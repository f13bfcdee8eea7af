"""A long lint's files read and split by a forked child (`cli/lintahead.py`): the same
answers, byte for byte, as the lint that reads and splits them itself, on a real history whose
findings depend on the schema the earlier files built; and the same error, or a one-line one,
when a file cannot be read or the child fails."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import release_safety.cli.lint as cli_lint
import release_safety.surfaces.migrations.lint as lint
from release_safety.cli.main import run

# The steps of a history on `users`, one file each, again and again (b: the file that added
# the column the later steps change): most findings need the schema the files before built
# (a column known to exist, nullable, of a type); one file has a syntax error, one is
# acknowledged, one cannot run in its transaction.
STEPS = [
    "ALTER TABLE users ADD COLUMN c{b} text;\n",
    "ALTER TABLE users ALTER COLUMN c{b} SET NOT NULL;\n",
    "ALTER TABLE users ALTER COLUMN c{b} TYPE bigint USING c{b}::bigint;\n",
    "ALTER TABLE users RENAME COLUMN c{b} TO d{b};\n",
    "ALTER TABLE users DROP COLUMN d{b};\n",
    "CREATE INDEX users_{n}_idx ON users (email);\n",
    "CREATE TABLE t{n} (id bigserial PRIMARY KEY, user_id bigint REFERENCES users (id));\n"
    "CREATE INDEX t{n}_user_idx ON t{n} (user_id);\n",
    "ALTER TABLE users ADD CONSTRAINT users_{n}_check CHECK (email <> '') NOT VALID;\n"
    "ALTER TABLE users VALIDATE CONSTRAINT users_{n}_check;\n",
    "-- release-safety: acknowledge(blocking-table-lock): users holds a few hundred rows\n"
    "CREATE INDEX users_{n}_idx ON users (name);\n",
    "BEGIN;\nCREATE INDEX CONCURRENTLY users_c{n}_idx ON users (email);\nCOMMIT;\n",
    "DO $$ BEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'k{n}') THEN\n"
    "    CREATE TYPE k{n} AS ENUM ('x');\n  END IF;\nEND $$;\n",
    "UPDATE users SET name = 'x' WHERE name IS NULL;\n",
    "ALTER TABLE other ADD COLUM c{n} text;\n",
]
COUNT = 90


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """COUNT migration files under `db/`, in the order they run: one that creates `users`,
    then the STEPS over and over."""
    folder = tmp_path / "db"
    folder.mkdir()
    (folder / "0000_users.sql").write_text(
        "CREATE TABLE users (id bigint PRIMARY KEY, email text, name text);\n"
    )
    for n in range(1, COUNT):
        step = (n - 1) % len(STEPS)
        sql = STEPS[step].format(n=n, b=n - step)
        (folder / f"{n:04d}_step.sql").write_text(f"-- step {n}\n{sql}")
    monkeypatch.chdir(tmp_path)
    return [f"db/{p.name}" for p in sorted(folder.iterdir())]


@pytest.fixture(autouse=True)
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two cores, neither busy (whatever the machine running the tests is doing)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5))


KNEX = Path(__file__).resolve().parents[2] / "fixtures" / "knex"


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The forks the lint makes (each one recorded, then made)."""
    made: list[int] = []
    fork = os.fork

    def counted() -> int:
        made.append(1)
        return fork()

    monkeypatch.setattr(os, "fork", counted)
    return made


Call = tuple[int, str, str]


def _call(
    args: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *,
    ahead: bool,
) -> Call:
    monkeypatch.setattr(cli_lint, "AHEAD_FROM", 2 if ahead else 10**9)
    code = run(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "form", [["--json"], [], ["--format", "sarif"], ["--format", "json", "--earlier"]]
)
def test_split_ahead_the_answers_are_the_lints_own(
    history: list[str],
    form: list[str],
    forks: list[int],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = history[-3:] if "--earlier" in form else history
    args = ["lint-migrations", *form, *names]
    serial = _call(args, capsys, monkeypatch, ahead=False)
    assert not forks
    ahead = _call(args, capsys, monkeypatch, ahead=True)
    assert forks == [1]
    assert ahead == serial
    assert serial[0] == 1 and not serial[2]


def test_knex_migrations_split_ahead_give_the_lints_own_answers(
    tmp_path: Path,
    forks: list[int],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Knex files are translated by the child (their statements built from the code)."""
    folder = tmp_path / "migrations"
    folder.mkdir()
    for path in sorted(KNEX.iterdir()):
        (folder / path.name).write_bytes(path.read_bytes())
    monkeypatch.chdir(tmp_path)
    for form in (["--json"], []):
        args = ["lint-migrations", *form, "migrations"]
        serial = _call(args, capsys, monkeypatch, ahead=False)
        assert _call(args, capsys, monkeypatch, ahead=True) == serial
        assert serial[1].count("migrations/") > 10 and not serial[2]
    assert forks == [1, 1]


def test_the_findings_split_ahead_rest_on_the_schema_before_each_file(
    history: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = _call(["lint-migrations", "--json", *history], capsys, monkeypatch, ahead=True)
    assert code == 1
    files = json.loads(out)["files"]
    rules = {
        f["file"]: {x["rule"] for x in f["findings"] if "acknowledged" not in x} for f in files
    }
    assert list(rules) == history
    assert "set-not-null" in rules["db/0002_step.sql"]  # c1, nullable text, added by 0001
    assert "blocking-table-lock" in rules["db/0003_step.sql"]  # c1: text to bigint rewrites
    assert "rename-column" in rules["db/0004_step.sql"]
    assert "drop-column" in rules["db/0005_step.sql"]  # d1, c1 renamed by 0004
    assert not {"schema-fact-unknown", "migration-statement-unknown"} & set().union(
        *(rules[f"db/{n:04d}_step.sql"] for n in range(1, 13))
    )
    assert "blocking-table-lock" in rules["db/0006_step.sql"]
    assert "blocking-table-lock" not in rules["db/0007_step.sql"]  # t7 is new
    assert "blocking-table-lock" not in rules["db/0009_step.sql"]  # acknowledged
    acknowledged = [x["rule"] for x in files[9]["findings"] if "acknowledged" in x]
    assert acknowledged == ["blocking-table-lock"]
    assert "cannot-run-in-transaction" in rules["db/0010_step.sql"]
    assert "migration-statement-unknown" in rules["db/0013_step.sql"]  # COLUM


def test_a_file_that_cannot_be_read_is_the_same_error_and_no_output(
    history: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for wrong in ("db/missing.sql", "db/notes.txt"):
        Path("db/notes.txt").write_text("not a migration\n")
        args = ["lint-migrations", "--json", *history[:70], wrong, *history[70:]]
        serial = _call(args, capsys, monkeypatch, ahead=False)
        assert _call(args, capsys, monkeypatch, ahead=True) == serial
        code, out, err = serial
        assert code == 2 and not err and out.count("\n") == 1
        assert json.loads(out)["error"]["message"].startswith(wrong)


def test_a_file_unread_is_reported_before_the_lint_failing_on_an_earlier_one(
    history: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lint without a child reads every file first: a missing one is the error even when
    linting an earlier file fails, and with a child too."""
    failing = _failing_on(lint.Linter.lint, "db/0003_step.sql")
    monkeypatch.setattr(lint.Linter, "lint", failing)
    args = ["lint-migrations", "--json", *history, "db/missing.sql"]
    serial = _call(args, capsys, monkeypatch, ahead=False)
    assert _call(args, capsys, monkeypatch, ahead=True) == serial
    assert serial[0] == 2 and "db/missing.sql: no such file" in serial[1]
    args = args[:-1]  # nothing unread: the lint's own failure
    serial = _call(args, capsys, monkeypatch, ahead=False)
    assert _call(args, capsys, monkeypatch, ahead=True) == serial
    assert serial[0] == 3 and "unexpected RuntimeError: linting db/0003_step.sql" in serial[1]


def test_a_file_the_split_fails_on_is_the_same_error(
    history: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    extract = lint.extract

    def failing(text: str, path: str, *args: Any, **kwargs: Any) -> Any:
        if path == "db/0040_step.sql":
            raise TypeError(f"splitting {path}")
        return extract(text, path, *args, **kwargs)

    monkeypatch.setattr(lint, "extract", failing)
    args = ["lint-migrations", "--json", *history]
    serial = _call(args, capsys, monkeypatch, ahead=False)
    assert _call(args, capsys, monkeypatch, ahead=True) == serial
    assert serial[0] == 3 and "unexpected TypeError: splitting db/0040_step.sql" in serial[1]
    args.append("db/missing.sql")  # read before any file is split, without a child
    serial = _call(args, capsys, monkeypatch, ahead=False)
    assert _call(args, capsys, monkeypatch, ahead=True) == serial
    assert serial[0] == 2 and "db/missing.sql: no such file" in serial[1]


def test_a_child_that_dies_is_a_one_line_error_and_no_output(
    history: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    split_file = lint.split_file

    def dying(text: str, path: str, *args: Any) -> Any:
        if path == "db/0050_step.sql":
            os._exit(9)
        return split_file(text, path, *args)

    monkeypatch.setattr(lint, "split_file", dying)
    code, out, err = _call(["lint-migrations", *history], capsys, monkeypatch, ahead=True)
    assert (code, out) == (3, "")  # no report, not even the files linted before it died
    assert err == (
        "release-safety: the process reading the migration files ahead stopped (exit code 9)\n"
    )


def test_a_short_lint_or_a_busy_machine_forks_nothing(
    history: list[str],
    forks: list[int],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli_lint, "AHEAD_FROM", 50)
    assert run(["lint-migrations", "--json", *history[:49]]) == 1
    assert not forks
    assert run(["lint-migrations", "--json", *history[:50]]) == 1
    assert forks == [1]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"SELECT 1;\n")))
    assert run(["lint-migrations", "--json", "-", *history]) == 1  # standard input: never
    monkeypatch.setattr(os, "getloadavg", lambda: (2.0, 0.5, 0.5))  # no core to spare
    assert run(["lint-migrations", "--json", *history]) == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})  # one core to run on
    assert run(["lint-migrations", "--json", *history]) == 1
    assert forks == [1]
    assert 1 < cli_lint.AHEAD_FROM <= 1000  # a one-file lint never forks; a long one may


def _failing_on(method: Callable[..., Any], path: str) -> Callable[..., Any]:
    def failing(self: lint.Linter, name: str, *args: Any) -> Any:
        if name == path:
            raise RuntimeError(f"linting {name}")
        return method(self, name, *args)

    return failing
