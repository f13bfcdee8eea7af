"""The CLI people expect: full help with examples and exit codes, "did you mean", colour on a
terminal honouring NO_COLOR and --color, refs as typed in check-pr text, JSON words in text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import COMMANDS, run
from release_safety.common.spelling import word
from release_safety.git.builder import RepoBuilder

RED = "\x1b[31m"


def test_top_level_help_shows_each_commands_help_whole_and_the_exit_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for name, (_, short_help) in COMMANDS.items():
        assert f"{name} {' '.join(short_help.split())}" in out, name  # never cut short
    assert "Exit codes (every command): 0" in out and "3 could not check" in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_help_has_an_example_and_its_exit_codes(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"Examples:\n    release-safety {name}" in out or f"  release-safety {name} " in out
    assert "Exit codes:" in out


def test_did_you_mean_for_commands_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["lint-migraions", "x.sql"]) == 2
    assert "No such command 'lint-migraions'. Did you mean lint-migrations" in (
        capsys.readouterr().err
    )
    assert run(["lint-migrations", "--jsn", "x.sql"]) == 2
    assert "Did you mean '--json'?" in capsys.readouterr().err


@pytest.fixture
def dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    migration = tmp_path / "001.sql"
    migration.write_text("ALTER TABLE users DROP COLUMN legacy;\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return migration


def test_color_always_never_and_no_color(
    dropped: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert run(["lint-migrations", "--color", "always", "001.sql"]) == 1
    assert f"{RED}\x1b[1mbreaking\x1b[0m drop-column" in capsys.readouterr().out
    assert run(["lint-migrations", "001.sql"]) == 1  # auto: captured output is no terminal
    assert "\x1b[" not in capsys.readouterr().out
    assert run(["lint-migrations", "--color", "never", "001.sql"]) == 1
    assert "\x1b[" not in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    assert run(["lint-migrations", "--color", "always", "001.sql"]) == 1  # the flag wins
    assert RED in capsys.readouterr().out
    assert run(["lint-migrations", "--color", "auto", "001.sql"]) == 1
    assert "\x1b[" not in capsys.readouterr().out


def test_check_pr_text_names_refs_as_typed(
    make_repo: Callable[[str], RepoBuilder], capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo("service")
    repo.write("db/migrations/001.sql", "CREATE TABLE users (id int, legacy int);\n")
    repo.commit("first")
    repo.git("branch", "-M", "main")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("db/migrations/002.sql", "ALTER TABLE users DROP COLUMN legacy;\n")
    head = repo.commit("second")
    args = ["check-pr", "--repo", str(repo.path), "--base", "main", "--head", "feature"]
    assert run([*args, "--format", "text"]) == 1
    out = capsys.readouterr().out
    assert "no source found at merge-base(main, feature) or feature" in out
    assert head not in out and head[:8] not in out
    assert ".release-safety.toml:1: warning: config surface not checked" in out


def test_text_outputs_spell_booleans_as_json_does() -> None:
    assert (word(False), word(True), word("unknown")) == ("false", "true", "unknown")
