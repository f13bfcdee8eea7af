"""`release-safety lint-migrations` end to end, through the real CLI entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from release_safety.cli.main import BROKEN_PIPE, run
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.reading import Reading


def test_breaking_file_exits_1_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "001_drop.sql"
    path.write_text("SET lock_timeout = '1s';\nALTER TABLE users DROP COLUMN age;\n")
    assert run(["lint-migrations", "--json", str(path)]) == 1
    data = json.loads(capsys.readouterr().out)
    (report,) = data["files"]
    assert report["tables"] == ["users"]
    assert report["heaviness"] == {"locksTable": False, "rewritesTable": False, "scansTable": False}
    assert [(f["rule"], f["line"]) for f in report["findings"]] == [("drop-column", 2)]


def test_safe_file_exits_0_and_version_matters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "002_add.sql"
    path.write_text(
        "SET lock_timeout = '1s';\nALTER TABLE users ADD COLUMN enabled boolean DEFAULT true;\n"
    )
    assert run(["lint-migrations", str(path)]) == 0
    assert "rewritesTable=false" in capsys.readouterr().out
    # before PostgreSQL 11 a constant default rewrites the table under ACCESS EXCLUSIVE
    assert run(["lint-migrations", "--postgres-version", "10", str(path)]) == 1
    out = capsys.readouterr().out
    assert "rewritesTable=true" in out and "breaking blocking-table-lock" in out


def test_missing_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["lint-migrations", "--json", str(tmp_path / "nope.sql")]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["exitCode"] == 2


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT " + "(" * 5000 + "1" + ")" * 5000 + ";\n",
        "UPDATE users SET age = " + "(" * 5000 + "1" + ")" * 5000 + ";\n",
    ],
)
def test_deep_nesting_is_an_unknown_statement_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], statement: str
) -> None:
    path = tmp_path / "003_deep.sql"
    path.write_text(statement)
    assert run(["lint-migrations", "--json", str(path)]) == 1
    (report,) = json.loads(capsys.readouterr().out)["files"]
    assert [(f["rule"], f["severity"]) for f in report["findings"]] == [
        ("migration-statement-unknown", "unknown")
    ]
    assert "nested more than" in report["findings"][0]["message"]


def _fresh(cwd: Path, *args: str) -> tuple[str, set[str]]:
    """`release-safety ARGS` run in `cwd` by a new interpreter: its output and the modules it
    loaded."""
    probe = (
        "import contextlib, io, json, sys\nfrom release_safety.cli.main import run\n"
        "out = io.StringIO()\nwith contextlib.redirect_stdout(out):\n    run(sys.argv[1:])\n"
        "print(json.dumps({'out': out.getvalue(), 'modules': list(sys.modules)}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True, cwd=cwd
    )
    data = json.loads(done.stdout)
    return data["out"], set(data["modules"])


def _imported(cwd: Path, *args: str) -> set[str]:
    return _fresh(cwd, *args)[1]


def _lint_in_fresh_process(path: Path) -> tuple[dict[str, object], set[str]]:
    """`lint-migrations --json FILE` in a new interpreter: its report and the modules loaded."""
    out, modules = _fresh(path.parent, "lint-migrations", "--json", str(path))
    return json.loads(out)["files"][0], modules


def test_a_file_without_annotations_loads_no_declarations_surface(tmp_path: Path) -> None:
    """Start-up (issue 18): the declarations surface (annotation scanning) and discovery are
    loaded only when a file could hold an annotation or a release is analysed."""
    path = tmp_path / "001_add.sql"
    path.write_text("ALTER TABLE users ADD COLUMN note text;\n")
    _, modules = _lint_in_fresh_process(path)
    assert "release_safety.surfaces.migrations.lint" in modules
    unwanted = {"release_safety.surfaces.declarations", "release_safety.surfaces.discovery"}
    assert not unwanted & modules


def test_a_lint_without_settings_loads_no_toml_parser_nor_hashes(tmp_path: Path) -> None:
    """Start-up (issue 14): the TOML parser is loaded only for a settings file, and hashlib
    only to key a release's migrations (the one-shot lint remembers nothing); with a settings
    file both the settings and the lint still apply."""
    path = tmp_path / "001_add.sql"
    path.write_text("ALTER TABLE users ALTER COLUMN note TYPE bigint;\n")
    report, modules = _lint_in_fresh_process(path)
    assert not {"tomllib", "hashlib", "_hashlib"} & modules
    assert "lock-timeout-missing" in {f["rule"] for f in report["findings"]}  # type: ignore[attr-defined]
    (tmp_path / ".release-safety.toml").write_text('[rules]\noff = ["lock-timeout-missing"]\n')
    report, modules = _lint_in_fresh_process(path)
    assert "tomllib" in modules
    assert "lock-timeout-missing" not in {f["rule"] for f in report["findings"]}  # type: ignore[attr-defined]


def test_ddl_is_linted_without_loading_sqlglot(tmp_path: Path) -> None:
    """Start-up (issues 14/18): DDL and simple data statements are read from our lexer's
    tokens; sqlglot (its parser) is loaded only for a statement that needs a syntax tree, and
    then still answers."""
    ddl = tmp_path / "001_ddl.sql"
    ddl.write_text(
        "SET lock_timeout = '1s';\n"
        "ALTER TABLE users ADD COLUMN note text DEFAULT 'x' NOT NULL;\n"
        "ALTER TABLE users ADD CONSTRAINT users_pk PRIMARY KEY (id);\n"
        'CREATE INDEX CONCURRENTLY users_note_idx ON users ("note");\n'
    )
    report, modules = _lint_in_fresh_process(ddl)
    assert report["tables"] == ["users"]
    assert report["heaviness"] == {"locksTable": True, "rewritesTable": False, "scansTable": True}
    assert not {m for m in modules if m.split(".")[0] == "sqlglot"}

    for number, (sql, loads) in enumerate(
        [
            ("UPDATE users SET note = 'x' WHERE note IS NULL", False),
            ("UPDATE users SET note = lower(note) WHERE note IS NULL", True),
        ]
    ):
        update = tmp_path / f"00{number + 2}_update.sql"
        update.write_text(sql + ";\n")
        report, modules = _lint_in_fresh_process(update)
        assert ("sqlglot" in modules) is loads
        assert report["tables"] == ["users"]
        heaviness = {"locksTable": False, "rewritesTable": False, "scansTable": True}
        assert report["heaviness"] == heaviness
        assert report["findings"] == []


@pytest.mark.parametrize("fmt", ["json", "text", "github", "markdown"])
def test_without_a_settings_file_the_lint_loads_no_pydantic(tmp_path: Path, fmt: str) -> None:
    """Start-up (issues 14, 18): with no settings file, the lint reads with the defaults and
    its findings are plain classes: no pydantic model is built or imported; a settings file
    is validated with pydantic."""
    path = tmp_path / "001_add.sql"
    path.write_text("ALTER TABLE users ADD COLUMN note text;\n")
    args = ("lint-migrations", "--format", fmt, "--exclude", "lock-timeout-missing", str(path))
    modules = _imported(tmp_path, *args)
    assert "release_safety.surfaces.migrations.lint" in modules
    unwanted = {"pydantic", "release_safety.settings.model", "release_safety.contract.reports"}
    assert not unwanted & modules
    (tmp_path / ".release-safety.toml").write_text("postgres_version = 10\n")
    assert "pydantic" in _imported(tmp_path, *args)


def test_the_lint_defaults_are_the_settings_defaults() -> None:
    """With no settings file the lint reads as the default settings would have it."""
    assert Reading() == Reading.of(Settings())
    assert Settings().rules.off == ()


def test_the_plain_json_call_is_answered_without_click_and_as_click_answers(
    tmp_path: Path,
) -> None:
    """Start-up (issue 14): `lint-migrations FILE... --json` is answered without importing
    click (`cli/lint.py`), with the output of the same lint through click (`--format json`)."""
    first = tmp_path / "001_add.sql"
    first.write_text("CREATE TABLE users (id int);\n")
    second = tmp_path / "002_drop.sql"
    second.write_text("ALTER TABLE users DROP COLUMN id;\nCREATE INDEX i ON users (id);\n")
    plain, modules = _fresh(tmp_path, "lint-migrations", str(first), "--json", str(second))
    assert "click" not in modules
    through_click, clicked = _fresh(
        tmp_path, "lint-migrations", "--format", "json", str(first), str(second)
    )
    assert "click" in clicked
    assert plain == through_click
    assert [f["rule"] for f in json.loads(plain)["files"][1]["findings"]][:1] == ["drop-column"]


@pytest.mark.parametrize("form", [["--json"], ["--format", "json"]])
def test_standard_input_is_read_once_among_many_files(tmp_path: Path, form: list[str]) -> None:
    """`-` is standard input once, wherever it stands among the files (quick path and click)."""
    named = tmp_path / "001_add.sql"
    named.write_text("CREATE TABLE users (id int);\n")
    argv = [sys.executable, "-m", "release_safety", "lint-migrations", *form]
    once = subprocess.run(
        [*argv, str(named), "-"], input="DROP TABLE users;\n", capture_output=True, text=True
    )
    assert once.returncode == 1
    assert [f["file"] for f in json.loads(once.stdout)["files"]] == [str(named), "<stdin>"]
    twice = subprocess.run([*argv, "-", str(named), "-"], input="", capture_output=True, text=True)
    assert twice.returncode == 2
    assert "`-` given twice" in twice.stdout + twice.stderr


def test_a_missing_file_or_a_folder_is_named_as_its_path_shows_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input, exit 2: the name in the message is the path's normal form."""
    assert run(["lint-migrations", "--json", f"{tmp_path}//missing.sql"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["message"] == f"{tmp_path}/missing.sql: no such file"
    assert run(["lint-migrations", "--json", f"{tmp_path}/"]) == 2
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert message == f"{tmp_path}: a folder without .sql or knex migrations"


@pytest.mark.parametrize(
    "form", [["--json"], ["--format", "text"], ["--format", "text", "missing.sql"]]
)
def test_the_command_prints_all_of_its_output_and_exit_code(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    form: list[str],
) -> None:
    """The command ends without tearing the interpreter down (`cli.main._exit_at_once`): what it
    prints, on both streams, is still all of what `run` prints, with the same exit code."""
    paths = []
    for k in range(300):
        path = tmp_path / f"{k:03d}_add.sql"
        path.write_text(f"ALTER TABLE t{k % 7} ADD COLUMN c{k} int NOT NULL DEFAULT 0;\n")
        paths.append(str(path))
    argv = ["lint-migrations", *form, *paths]
    done = subprocess.run(
        [sys.executable, "-m", "release_safety", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    monkeypatch.chdir(tmp_path)
    code = run(argv)
    printed = capsys.readouterr()
    assert (done.returncode, done.stdout, done.stderr) == (code, printed.out, printed.err)
    assert code == 2 if "missing.sql" in form else len(done.stdout) > 65536


@pytest.mark.parametrize("form", [["--json"], ["--format", "json"]])
def test_a_reader_that_leaves_early_ends_the_lint_quietly(tmp_path: Path, form: list[str]) -> None:
    """`lint-migrations ... | head`: exit 141 (as SIGPIPE would, never the unsafe code 1) and
    nothing on standard error, through the quick path as through click."""
    path = tmp_path / "001_drop.sql"
    path.write_text("ALTER TABLE users DROP COLUMN note;\n")
    argv = [sys.executable, "-m", "release_safety", "lint-migrations", *form, *[str(path)] * 800]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the output (about 400 KB) outgrows the pipe
        assert process.stderr.read() == b""
        assert process.wait() == BROKEN_PIPE


def test_the_lint_runs_without_the_cyclic_collector(tmp_path: Path) -> None:
    """`cli.main.main` turns the cyclic collector off for a lint (it makes no cycles, and ends in
    `os._exit`), and only for a lint."""
    path = tmp_path / "001_add.sql"
    path.write_text("ALTER TABLE users ADD COLUMN note text;\n")
    probe = (
        "import gc, sys\n"
        "import release_safety.cli.main as cli\n"
        "run = cli.run\n"
        "def probe(argv=None):\n"
        "    print(gc.isenabled(), file=sys.stderr)\n"
        "    return run(argv)\n"
        "cli.run = probe\n"
        "cli.main()\n"
    )
    for command, enabled in (("lint-migrations", "False"), ("rules", "True")):
        argv = [sys.executable, "-c", probe, command, *([str(path)] if command != "rules" else [])]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
        assert done.stderr.splitlines()[0] == enabled


def test_text_lists_findings_by_line_and_ends_with_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tmp_path / "001_a.sql"
    first.write_text(
        "SET lock_timeout = '1s';\nALTER TABLE users DROP COLUMN age;\n"
        "CREATE INDEX users_region_idx ON users (region);\n"
        "ALTER TABLE users ALTER COLUMN email SET NOT NULL;\n"
    )
    clean = tmp_path / "002_b.sql"
    clean.write_text("SELECT 1;\n")
    assert run(["lint-migrations", "--color", "never", str(first), str(clean)]) == 1
    out = capsys.readouterr().out.splitlines()
    lines = [int(text.split(":")[1]) for text in out if text.startswith(f"  {first}:")]
    assert lines == sorted(lines) and len(lines) >= 4
    severities = [text.split(": ", 1)[1].split()[0] for text in out if text.startswith("  /")]
    counts = {s: severities.count(s) for s in ("breaking", "unknown", "advisory")}
    shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    assert out[-1] == f"Found {len(severities)} issues in 1 of 2 files ({shown})."
    assert run(["lint-migrations", str(clean)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "No issues found in 1 file."


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_down_part_is_never_linted_forward_as_generate_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """golang-migrate's and diesel's down parts, as the pre-commit hook passes them: not
    linted, and not replayed before the up parts of their folder."""
    monkeypatch.chdir(tmp_path)
    _tree(
        tmp_path,
        {
            "db/migrations/1_init.up.sql": "CREATE TABLE users (id int, name text);\n",
            "db/migrations/1_init.down.sql": "DROP TABLE users;\n",
            "db/migrations/2_idx.up.sql": "CREATE INDEX CONCURRENTLY i ON users (name);\n",
            "db/migrations/2_idx.down.sql": "DROP INDEX i;\nDROP TABLE users;\n",
            "migrations/2020-01-01-000000_init/up.sql": "CREATE TABLE t (id int, n text);\n",
            "migrations/2020-01-01-000000_init/down.sql": "DROP TABLE t;\n",
            "migrations/2021-01-01-000000_n/up.sql": "ALTER TABLE t ALTER n SET DEFAULT '';\n",
            "migrations/2021-01-01-000000_n/down.sql": "ALTER TABLE t DROP COLUMN n;\n",
        },
    )
    hook = ["lint-migrations", "--earlier", "--skip-non-migrations", "--json"]
    changed = [
        "db/migrations/2_idx.down.sql",
        "db/migrations/2_idx.up.sql",
        "migrations/2021-01-01-000000_n/down.sql",
        "migrations/2021-01-01-000000_n/up.sql",
    ]
    assert run([*hook, *changed]) == 0
    reports = json.loads(capsys.readouterr().out)["files"]
    assert [r["file"] for r in reports] == [changed[1], changed[3]]
    assert {f["severity"] for r in reports for f in r["findings"]} <= {"advisory"}
    # the folder given: its tool's forward files, in its order
    assert run(["lint-migrations", "--json", "migrations"]) == 0
    files = [r["file"] for r in json.loads(capsys.readouterr().out)["files"]]
    assert files == [
        "migrations/2020-01-01-000000_init/up.sql",
        "migrations/2021-01-01-000000_n/up.sql",
    ]
    # the up part that drops is still judged
    _tree(tmp_path, {"migrations/2022-01-01-000000_drop/up.sql": "ALTER TABLE t DROP COLUMN n;\n"})
    assert run([*hook, "migrations/2022-01-01-000000_drop/up.sql"]) == 1
    (report,) = json.loads(capsys.readouterr().out)["files"]
    assert ("drop-column", 1) in [(f["rule"], f["line"]) for f in report["findings"]]


def test_a_prisma_mysql_migration_is_linted_as_mysql(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    root = "prisma/migrations"
    _tree(
        tmp_path,
        {
            f"{root}/migration_lock.toml": 'provider = "mysql"\n',
            f"{root}/20210101000000_init/migration.sql": "CREATE TABLE `users` (`id` INT NOT "
            "NULL, `name` VARCHAR(191) NOT NULL, PRIMARY KEY (`id`));\n",
            f"{root}/20210201000000_drop/migration.sql": "ALTER TABLE `users` DROP `name`;\n",
        },
    )
    assert (
        run(["lint-migrations", "--earlier", "--json", f"{root}/20210201000000_drop/migration.sql"])
        == 1
    )
    (report,) = json.loads(capsys.readouterr().out)["files"]
    assert [f["rule"] for f in report["findings"]] == ["drop-column", "mysql-table-rebuild"]
    assert "(MySQL)" in report["findings"][0]["message"]


def test_the_settings_sources_place_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _tree(
        tmp_path,
        {
            ".release-safety.toml": '[[migrations.sources]]\npath = "sql"\nformat = "sqlx"\n'
            'dialect = "sqlite"\n',
            "sql/1_init.sql": "CREATE TABLE users (id integer, name text);\n",
            "sql/2_idx.up.sql": "CREATE INDEX i ON users (name);\n",
            "sql/2_idx.down.sql": "DROP TABLE users;\n",
        },
    )
    assert run(["lint-migrations", "--json", "sql"]) == 1
    reports = json.loads(capsys.readouterr().out)["files"]
    assert [r["file"] for r in reports] == ["sql/1_init.sql", "sql/2_idx.up.sql"]
    assert [f["rule"] for f in reports[1]["findings"]] == ["engine-heaviness-unknown"]
