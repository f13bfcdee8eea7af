"""Reading and first use: help for every option, README lists them, errors that point the way."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest

from release_safety.cli.commands.group import cli
from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands(
    group: click.Group = cli, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, click.Command]]:
    """Every leaf command of the tree, by its full name (`index update`)."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield " ".join((*path, name)), command


def options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option)]


def test_every_option_of_every_command_has_help() -> None:
    missing = [
        f"{name} {option.opts[0]}"
        for name, command in commands()
        for option in options(command)
        if not (option.help or "").strip()
    ]
    assert missing == []


def test_the_readme_row_of_every_command_names_each_of_its_options() -> None:
    missing = []
    for name, command in commands():
        rows = [
            line
            for line in README.splitlines()
            if line.startswith("| ") and re.search(rf"`{name}\b", line)
        ]
        assert rows, f"README has no row for {name}"
        row = rows[0]
        for option in options(command):
            if not option.hidden and not any(opt in row for opt in option.opts):
                missing.append(f"{name} {option.opts[0]}")
    assert missing == []


def test_a_tag_missing_its_prefix_names_the_tag_nearby(
    make_repo: Callable[[str], RepoBuilder], capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo("service")
    repo.release("1.5.0", {"README.md": "service\n"}, prefix="v")
    repo.release("1.6.0", {"README.md": "service 2\n"}, prefix="v")

    code = run(["generate", "--repo", str(repo.path), "--to", "1.6.0", "--out", "-"])

    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        f"release-safety: '1.6.0': no such ref or commit in {repo.path} (did you mean v1.6.0?)\n"
    )
    assert run(["generate", "--repo", str(repo.path), "--to", "zzz", "--out", "-"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_check_pr_prints_each_location_once(
    make_repo: Callable[[str], RepoBuilder], capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo("service")
    init = "CREATE TABLE users (id int, legacy_id int);\n"
    repo.release("1.0.0", {"db/migrations/001_init.sql": init})
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("db/migrations/002_drop.sql", "ALTER TABLE users DROP COLUMN legacy_id;\n")
    head = repo.commit("drop")
    capsys.readouterr()

    code = run(["check-pr", "--repo", str(repo.path), "--base", "main", "--head", head])

    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    drop = [line for line in lines if "[drop-column]" in line]
    assert drop == [
        "db/migrations/002_drop.sql:1: error: DROP COLUMN users.legacy_id [drop-column]"
        " (undeclared)"
    ]
    assert all(line.count("002_drop.sql") <= 1 for line in lines)


def test_docs_cite_the_contract_in_the_repository_and_its_anchors_exist() -> None:
    contract = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in contract.splitlines()
        if line.startswith("## ")
    }
    texts = {
        path: path.read_text(encoding="utf-8")
        for pattern in ("README.md", "docs/*.md", "src/**/*.py")
        for path in ROOT.glob(pattern)
    }
    cited = re.compile(r"interface (section|sections|\d)", re.IGNORECASE)
    assert [str(p) for p, text in texts.items() if cited.search(text)] == []
    links = {a for text in texts.values() for a in re.findall(r"contract\.md#([a-z0-9-]+)", text)}
    assert links and links <= anchors
