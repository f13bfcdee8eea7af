"""Settings as a user meets them through the CLI: globs, the walk up to the repository root,
and the `[rules]` table."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

ABSENT = """\
[migrations]
absent = "the service keeps no database of its own"
[rest]
absent = "the service has no HTTP API; it is a queue worker"
[mcp]
absent = "the service exposes no MCP tools to agents"
[deployment]
absent = "operators run the worker from their own manifests; the project ships none"
"""


def _config_repo(make_repo: Callable[[str], RepoBuilder], source: str) -> RepoBuilder:
    builder = make_repo("globs")
    files = {
        "conf/file1.env": "PORT=8080\n",
        "conf/file3.env": "HOST=x\n",
        ".release-safety.toml": f"{ABSENT}[config]\nsources = [{source!r}]\n",
    }
    builder.release("1.0.0", files)
    builder.release("1.1.0", {"conf/file1.env": "PORT=8080\nDEBUG=0\n"})
    return builder


@pytest.mark.parametrize(
    ("source", "code", "files"),
    [
        ("conf/file[12].env", 0, ["conf/file1.env"]),
        ("conf/file?.env", 0, ["conf/file1.env", "conf/file3.env"]),
        ("conf?file1.env", 2, []),  # `?` does not match a folder separator
        ("conf/*", 0, ["conf/file1.env", "conf/file3.env"]),
    ],
)
def test_settings_globs_bracket_and_question_mark(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    source: str,
    code: int,
    files: list[str],
) -> None:
    builder = _config_repo(make_repo, source)
    evidence = tmp_path / "e.json"
    args = ["generate", "--repo", str(builder.path), "--to", "1.1.0"]
    assert run([*args, "--out", str(tmp_path / "a.json"), "--evidence", str(evidence)]) == code
    if code == 2:
        assert "matches nothing" in capsys.readouterr().err
        return
    surfaces = json.loads(evidence.read_text())["surfaces"]
    (config,) = [s for s in surfaces if s["surface"] == "config"]
    assert sorted(config["coverage"]["new"]) == files


DROP = "ALTER TABLE users DROP COLUMN legacy;\n"


@pytest.fixture
def nested(make_repo: Callable[[str], RepoBuilder], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository inside a folder that has settings of its own (never read: above the root);
    the current folder is `services/api/db` in it."""
    outer = make_repo("outer").path.parent
    (outer / ".release-safety.toml").write_text("postgres_version = 9\n", encoding="utf-8")
    builder = make_repo("outer/repo")
    builder.write("services/api/db/001.sql", DROP).commit("first")
    monkeypatch.chdir(builder.path / "services/api/db")
    return builder.path


def _postgres(capsys: pytest.CaptureFixture[str]) -> int:
    assert run(["lint-migrations", "--json", "001.sql"]) == 1
    version: int = json.loads(capsys.readouterr().out)["postgresVersion"]
    return version


def test_settings_are_found_walking_up_to_the_repository_root(
    nested: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _postgres(capsys) == 15  # the file above the repository root is not read
    (nested / ".release-safety.toml").write_text("postgres_version = 11\n", encoding="utf-8")
    assert _postgres(capsys) == 11
    table = "[tool.black]\nline-length = 90\n[tool.release-safety]\npostgres_version = 12\n"
    (nested / "services/pyproject.toml").write_text(table, encoding="utf-8")
    assert _postgres(capsys) == 12  # the nearest wins
    (nested / "services/api/pyproject.toml").write_text("[tool.black]\n", encoding="utf-8")
    assert _postgres(capsys) == 12  # a pyproject.toml without the table is passed over
    (nested / "services/.release-safety.toml").write_text("postgres_version = 13\n")
    assert _postgres(capsys) == 13  # in one folder, .release-safety.toml wins
    (nested / "services/.release-safety.toml").write_text("[rules]\nof = []\n")
    assert run(["lint-migrations", "001.sql"]) == 2
    error = capsys.readouterr().err
    assert "services/.release-safety.toml, line 2: key 'rules.of': unknown key" in error


def test_a_pyproject_is_parsed_only_when_it_names_the_table(
    nested: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Python project's own `pyproject.toml` is passed over unparsed unless its text names
    `release-safety`: its TOML, even broken, is not this tool's to judge; one that names the
    table is read, quoted key included, and broken TOML there is still bad input."""
    pyproject = nested / "services/api/pyproject.toml"
    pyproject.write_text("[tool.black\nline-length = 90\n", encoding="utf-8")  # broken
    assert _postgres(capsys) == 15
    pyproject.write_text('[tool."release-safety"]\npostgres_version = 14\n', encoding="utf-8")
    assert _postgres(capsys) == 14
    pyproject.write_text("[tool.release-safety\npostgres_version = 14\n", encoding="utf-8")
    assert run(["lint-migrations", "001.sql"]) == 2
    assert "pyproject.toml: not valid TOML" in capsys.readouterr().err


def test_rules_off_silences_lint_migrations_and_rejects_unknown_ids(
    nested: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = nested / ".release-safety.toml"
    settings.write_text('[rules]\noff = ["drop-column", "lock-timeout-missing"]\n')
    assert run(["lint-migrations", "--json", "001.sql"]) == 0
    assert json.loads(capsys.readouterr().out)["files"][0]["findings"] == []
    settings.write_text('[rules]\noff = ["drop-colum"]\n')
    assert run(["lint-migrations", "001.sql"]) == 2
    assert "unknown rule 'drop-colum'" in capsys.readouterr().err


DATABASE_ONLY = (
    ABSENT.replace('[migrations]\nabsent = "the service keeps no database of its own"\n', "")
    + '[config]\nabsent = "all configuration comes from the database, not the environment"\n'
)


def test_rules_off_never_loosens_a_release(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check-pr's gate leaves the rule out; the release weighs it and names the rule off."""
    builder = make_repo("service")
    settings = DATABASE_ONLY + '[rules]\noff = ["drop-column", "blocking-table-lock"]\n'
    builder.write("db/migrations/001.sql", "CREATE TABLE users (id int, legacy int);\n")
    builder.write(".release-safety.toml", settings)
    builder.release("1.0.0")
    builder.write("db/migrations/002.sql", DROP)
    builder.release("1.1.0")
    pr = ["check-pr", "--repo", str(builder.path), "--base", "1.0.0", "--head", "1.1.0"]
    assert run([*pr, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is True and data["uncovered"] == []
    assert data["rollingUpdateSafe"] is False  # the would-be release still weighs it
    evidence = tmp_path / "e.json"
    generate = ["generate", "--repo", str(builder.path), "--to", "1.1.0"]
    assert run([*generate, "--out", str(tmp_path / "a.json"), "--evidence", str(evidence)]) == 0
    report = json.loads(evidence.read_text())
    assert report["rollingUpdateSafe"] is False
    rules = {f["rule"]: f["severity"] for f in report["findings"]}
    assert rules["drop-column"] == "breaking"
    assert rules["rule-turned-off"] == "advisory"


def test_a_pull_request_turning_a_rule_off_is_a_narrowing(
    make_repo: Callable[[str], RepoBuilder], capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("service")
    builder.write("db/migrations/001.sql", "CREATE TABLE users (id int);\n")
    builder.write(".release-safety.toml", DATABASE_ONLY)
    builder.release("1.0.0")
    builder.write(".release-safety.toml", DATABASE_ONLY + '[rules]\noff = ["drop-column"]\n')
    builder.commit("silence drop-column")
    pr = ["check-pr", "--repo", str(builder.path), "--base", "1.0.0", "--head", "HEAD"]
    assert run([*pr, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [f["rule"] for f in data["problems"] + data["uncovered"]] == ["settings-narrowed"]


def test_settings_at_a_ref_from_pyproject_table(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """Refs are read at the repository root: `.release-safety.toml`, else pyproject's table."""
    builder = make_repo("service")
    table = "[tool.release-safety]\n" + DATABASE_ONLY.replace("[", "[tool.release-safety.")
    builder.write("pyproject.toml", "[project]\nname = 'x'\n\n" + table)
    builder.write("db/migrations/001.sql", "CREATE TABLE users (id int);\n")
    builder.release("1.0.0")
    builder.write("db/migrations/002.sql", "CREATE TABLE teams (id int);\n")
    builder.release("1.1.0")
    evidence = tmp_path / "e.json"
    args = ["generate", "--repo", str(builder.path), "--to", "1.1.0", "--evidence", str(evidence)]
    assert run([*args, "--out", str(tmp_path / "a.json")]) == 0  # surfaces declared absent
    surfaces = json.loads(evidence.read_text())["surfaces"]
    (settings,) = [s for s in surfaces if s["surface"] == "settings"]
    assert settings["coverage"]["tried"][0].startswith("settings: pyproject.toml at ")


@pytest.mark.parametrize("holder", ["pyproject", "outside", "committed"])
def test_findings_and_errors_name_the_settings_file_that_was_read(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    holder: str,
) -> None:
    """A declared-absent advisory and a path that matches nothing name the file the settings
    came from: `pyproject.toml`, the `--config` file (by its name: it has no repository path),
    or `.release-safety.toml`."""
    builder = make_repo("origin")
    settings = f"{ABSENT}[config]\nsources = ['conf/app.env']\n"
    files = {"conf/app.env": "PORT=8080\n"}
    outside = tmp_path / "outside.toml"
    if holder == "pyproject":
        table = ("\n" + settings).replace("\n[", "\n[tool.release-safety.")
        files["pyproject.toml"] = "[project]\nname = 'x'\n" + table
        expected = "pyproject.toml"
    elif holder == "outside":
        outside.write_text(settings, encoding="utf-8")
        expected = "--config outside.toml (outside the repository)"  # no local path
    else:
        files[".release-safety.toml"] = settings
        expected = ".release-safety.toml"
    builder.release("1.0.0", files)
    builder.release("1.1.0", {"README.md": "next\n"})
    args = ["generate", "--repo", str(builder.path)]
    args += ["--config", str(outside)] if holder == "outside" else []
    evidence = tmp_path / "e.json"
    assert run([*args, "--to", "1.1.0", "--out", "-", "--evidence", str(evidence)]) == 0
    advisories = [
        finding
        for finding in json.loads(evidence.read_text())["findings"]
        if finding["rule"] == "surface-declared-absent"
    ]
    assert len(advisories) == 4
    for finding in advisories:
        assert finding["file"] == (None if holder == "outside" else expected)
        assert f" declared absent in {expected} (" in finding["message"]
    # A typo (a path no release and not HEAD has) is exit 2 naming the file and the key.
    holders = {"pyproject": "pyproject.toml", "committed": ".release-safety.toml"}
    if holder == "outside":
        outside.write_text(settings.replace("app.env", "ap.env"), encoding="utf-8")
    else:
        held = (builder.path / holders[holder]).read_text()
        builder.write(holders[holder], held.replace("app.env", "ap.env"))
    builder.release("1.2.0", {"README.md": "third\n"})
    assert run([*args, "--to", "1.2.0", "--out", str(tmp_path / "a.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(
        f"release-safety: {expected}: key 'config.sources': 'conf/ap.env' matches nothing at "
        "1.2.0 (nor at 1.1.0, HEAD or any release tag: a typo?); nearest: 'conf/app.env'"
    )
