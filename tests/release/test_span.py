"""Settings that hold across history (`release/span.py`): an entry that names nothing at either
ref of a release but does elsewhere is a coverage note there; one that names nothing anywhere
is a typo (exit 2, naming the key, the file and the nearest path)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from absent_surfaces import DEPLOYMENT, MCP, REST

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

ABSENT = REST + MCP + DEPLOYMENT
MOVED = (
    ABSENT
    + """\
[config]
sources = [".env.example", "server/.env.example"]
[[migrations.sources]]
path = ["db/migrations", "server/migrations"]
format = "sql"
"""
)


@pytest.fixture
def moved(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    """Migrations in db/migrations and the env template at the root, both moved under server/
    at 2.0.0; the settings are committed at HEAD only."""
    builder = make_repo("moved")
    files = {"db/migrations/001_init.sql": "CREATE TABLE t (id int);\n", ".env.example": "PORT=1\n"}
    builder.release("1.0.0", files)
    builder.release("1.1.0", {"db/migrations/002_u.sql": "CREATE TABLE u (id int);\n"})
    builder.move("db/migrations/001_init.sql", "server/migrations/001_init.sql")
    builder.move("db/migrations/002_u.sql", "server/migrations/002_u.sql")
    builder.move(".env.example", "server/.env.example")
    builder.release("2.0.0")
    builder.release("2.1.0", {"server/migrations/003_v.sql": "CREATE TABLE v (id int);\n"})
    builder.write(".release-safety.toml", MOVED).commit("adopt release-safety")
    return builder


def _generate(
    repo: Path, tmp_path: Path, tag: str
) -> tuple[int, dict[str, object], list[dict[str, str]]]:
    out, evidence = tmp_path / f"{tag}.json", tmp_path / f"{tag}.e.json"
    args = ["generate", "--repo", str(repo), "--to", tag, "--out", str(out)]
    code = run([*args, "--evidence", str(evidence)])
    if code != 0:
        return code, {}, []
    return code, json.loads(out.read_text()), json.loads(evidence.read_text())["findings"]


def test_one_file_judges_every_release_of_a_project_that_moved_its_migrations(
    moved: RepoBuilder, tmp_path: Path
) -> None:
    counts = {}
    for tag in ("1.0.0", "1.1.0", "2.0.0", "2.1.0"):
        code, artifact, findings = _generate(moved.path, tmp_path, tag)
        assert code == 0, tag
        assert not [f for f in findings if f["severity"] == "unknown"], (tag, findings)
        assert artifact["compatibility"]["rollingUpdateSafe"] is True, tag  # type: ignore[index]
        counts[tag] = artifact["migrations"]["count"]  # type: ignore[index]
    assert counts == {"1.0.0": 0, "1.1.0": 1, "2.0.0": 0, "2.1.0": 1}  # 1.0.0: the first


def test_an_entry_at_other_releases_only_is_a_coverage_note(
    moved: RepoBuilder, tmp_path: Path
) -> None:
    _, _, findings = _generate(moved.path, tmp_path, "1.1.0")
    notes = {f["message"] for f in findings if f["rule"] == "settings-entry-not-in-span"}
    assert notes == {
        ".release-safety.toml: config.sources = 'server/.env.example' matches nothing at "
        "1.0.0 or 1.1.0 (it does at HEAD): not read for this release",
        ".release-safety.toml: migrations.sources[1] = {path='server/migrations', "
        "pattern='.*\\\\.sql', format='sql'} matches nothing at 1.0.0 or 1.1.0 (it does at "
        "HEAD): not read for this release",
    }
    _, _, later = _generate(moved.path, tmp_path, "2.1.0")  # the old folder: at a release tag
    assert {f["message"] for f in later if f["rule"] == "settings-entry-not-in-span"} == {
        ".release-safety.toml: config.sources = '.env.example' matches nothing at 2.0.0 or "
        "2.1.0 (it does at 1.1.0): not read for this release",
        ".release-safety.toml: migrations.sources[0] = {path='db/migrations', "
        "pattern='.*\\\\.sql', format='sql'} matches nothing at 2.0.0 or 2.1.0 (it does at "
        "1.1.0): not read for this release",
    }


def test_a_typo_is_exit_2_naming_the_key_the_file_and_the_nearest_path(
    moved: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (moved.path / ".release-safety.toml").write_text(MOVED.replace("server/.env", "sever/.env"))
    assert _generate(moved.path, tmp_path, "2.1.0")[0] == 2
    assert not (tmp_path / "2.1.0.json").exists()  # nothing written on failure
    *said, line = capsys.readouterr().err.splitlines()
    assert said == [
        "release-safety: warning: settings: .release-safety.toml in the working tree "
        "(2.1.0 has none)"
    ]
    assert line == (
        "release-safety: .release-safety.toml: key 'config.sources': 'sever/.env.example' "
        "matches nothing at 2.1.0 (nor at 2.0.0, HEAD or any release tag: a typo?); "
        "nearest: 'server/.env.example'"
    )


def test_a_migrations_folder_gone_at_a_release_is_judged_not_an_error(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """A source with files at the earlier ref only held at the release before: the surface
    judges the files gone (never exit 2, never safe by omission)."""
    builder = make_repo("gone")
    settings = ABSENT + '[config]\nabsent = "no configuration"\n'
    settings += '[[migrations.sources]]\npath = "db/migrations"\n'
    builder.release("1.0.0", {"db/migrations/001.sql": "CREATE TABLE t (id int);\n"})
    builder.delete("db/migrations/001.sql")
    builder.release("1.1.0", {"README.md": "no database any more\n"})
    builder.write(".release-safety.toml", settings).commit("adopt")
    code, artifact, _ = _generate(builder.path, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is not True  # type: ignore[index]


def test_a_source_may_name_several_paths() -> None:
    from release_safety.settings.model import parse_settings

    settings = parse_settings(MOVED, ".release-safety.toml")
    assert settings is not None
    assert [s.path for s in settings.migrations.sources] == ["db/migrations", "server/migrations"]
    assert {s.format for s in settings.migrations.sources} == {"sql"}


def test_a_config_entry_naming_only_files_it_excludes_names_nothing(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """The files a config entry leaves out by its `exclude` are not files it names: at a span
    that has only those, the entry is a coverage note; at one with a file it keeps, it is read
    (the note is gone)."""
    builder = make_repo("excluded")
    settings = ABSENT + '[migrations]\nabsent = "the worker keeps no database"\n'
    settings += '[config]\nsources = [{ path = "conf/**/*.env", exclude = ["conf/legacy/**"] }]\n'
    builder.release("1.0.0", {"conf/legacy/old.env": "PORT=1\n"})
    builder.release("1.1.0", {"conf/legacy/old.env": "PORT=2\n"})
    builder.release("2.0.0", {"conf/app.env": "PORT=3\n"})
    builder.write(".release-safety.toml", settings).commit("adopt release-safety")
    notes = {}
    for tag in ("1.1.0", "2.0.0"):
        _, _, findings = _generate(builder.path, tmp_path, tag)
        notes[tag] = [f["message"] for f in findings if f["rule"] == "settings-entry-not-in-span"]
    assert notes == {
        "1.1.0": [
            ".release-safety.toml: config.sources = 'conf/**/*.env' matches nothing at 1.0.0 or "
            "1.1.0 (it does at HEAD): not read for this release"
        ],
        "2.0.0": [],
    }


def test_a_span_lists_the_earlier_tree_and_the_later_follows(
    make_repo: Callable[[str], RepoBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fit asks the earlier ref first: git lists its tree, and the later tree follows from
    it and the diff under way (a release judged beside the child lists no tree after the fork);
    an entry named at either ref applies, and a glob the later ref alone names still does."""
    from release_safety.git.repository import GitRepo
    from release_safety.release.span import fit
    from release_safety.settings.model import parse_settings

    builder = make_repo("listed")
    builder.release("1.0.0", {"conf/app.env": "PORT=1\n"})
    builder.release("1.1.0", {"conf/app.env": "PORT=2\n", "deploy/Dockerfile": "FROM alpine\n"})
    text = '[config]\nsources = ["conf/*.env"]\n[deployment]\nsources = ["deploy/Dockerfile*"]\n'
    settings = parse_settings(text, ".release-safety.toml")
    assert settings is not None
    git = GitRepo(builder.path)
    listed: list[str] = []
    real = git._git

    def spied(*args: str) -> str:
        if args[0] == "ls-tree":
            listed.append(args[-1])
        return real(*args)

    monkeypatch.setattr(git, "_git", spied)
    try:
        old, new = git.snapshot("1.0.0"), git.snapshot("1.1.0")
        git.start_diff(old.commit, new.commit)
        span = fit(settings, old, new, lambda entry: None)
        assert span.notes == [] and span.typos == []
        assert new.paths() == ["conf/app.env", "deploy/Dockerfile"]
        assert listed == [old.commit]
    finally:
        git.close()
