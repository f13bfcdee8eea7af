"""Which settings judge an older release: `--config` wherever it is, else the ref's own, else
the adopting settings (the working tree's, else HEAD's), always said; never silent defaults."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from absent_surfaces import CONFIG, DEPLOYMENT, MCP, REST

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

# Adopting settings: migrations read from db/ (the defaults look for `migrations` folders),
# every other surface declared absent with a reason.
ADOPTED = '[[migrations.sources]]\npath = "db"\nformat = "sql"\n' + REST + MCP + CONFIG + DEPLOYMENT


@pytest.fixture
def history(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    """Two releases without settings; the settings committed after them, at HEAD."""
    builder = make_repo("history")
    builder.release("1.0.0", {"db/001_init.sql": "CREATE TABLE users (id int);\n"})
    builder.release("1.1.0", {"db/002_add.sql": "ALTER TABLE users ADD COLUMN name text;\n"})
    builder.write(".release-safety.toml", ADOPTED).commit("adopt release-safety")
    return builder


def _generate(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, object], list[dict[str, str]], str, str]:
    out, evidence, notes = tmp_path / "a.json", tmp_path / "e.json", tmp_path / "n.md"
    args = ["generate", "--repo", str(repo), "--to", "1.1.0", "--out", str(out)]
    code = run([*args, "--evidence", str(evidence), "--notes", str(notes), *extra])
    err = capsys.readouterr().err
    if code != 0:
        return code, {}, [], "", err
    findings = json.loads(evidence.read_text())["findings"]
    return code, json.loads(out.read_text()), findings, notes.read_text(), err


def test_an_older_release_is_judged_with_the_settings_committed_at_head(
    history: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, artifact, findings, notes, err = _generate(history.path, tmp_path, capsys)
    assert code == 0
    said = "settings: .release-safety.toml in the working tree (1.1.0 has none)"
    assert said in err and said in notes
    assert [f["rule"] for f in findings if f["message"] == said] == ["settings-adopted"]
    # db/ was read: the added column is judged, not "no migration file found".
    assert artifact["compatibility"]["rollingUpdateSafe"] is True  # type: ignore[index]
    assert not [f for f in findings if f["rule"] == "surface-not-checked"]


def test_head_is_the_adopting_settings_when_the_working_tree_has_none(
    history: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (history.path / ".release-safety.toml").unlink()  # deleted, not committed
    code, _, findings, notes, err = _generate(history.path, tmp_path, capsys)
    said = "settings: .release-safety.toml at HEAD (1.1.0 has none)"
    assert code == 0 and said in err and said in notes
    assert any(f["message"] == said for f in findings)


def test_the_working_tree_settings_come_before_head(
    history: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (history.path / ".release-safety.toml").write_text(ADOPTED.replace('"db"', '"sql"'))
    code, _, _, _, err = _generate(history.path, tmp_path, capsys)
    assert code == 2  # the working tree's file, whose source is a typo, judges the release
    assert "'migrations.sources[0]'" in err and ".release-safety.toml" in err


def test_same_verdicts_with_and_without_config(
    history: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, without, _, _, _ = _generate(history.path, tmp_path, capsys)
    config = history.path / ".release-safety.toml"
    code, given, findings, _, err = _generate(
        history.path, tmp_path, capsys, "--config", str(config)
    )
    assert code == 0
    assert given["compatibility"] == without["compatibility"]
    assert "settings: --config .release-safety.toml" in err
    assert any(f["rule"] == "settings-adopted" for f in findings)


def test_config_inside_the_repository_wins_over_the_committed_file(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("committed")
    broken = ADOPTED.replace('"db"', '"nowhere"')  # committed at the releases: a typo
    builder.release("1.0.0", {"db/001_init.sql": "CREATE TABLE t (id int);\n"})
    builder.release("1.1.0", {".release-safety.toml": broken})
    assert _generate(builder.path, tmp_path, capsys)[0] == 2
    ci = builder.path / "ci" / "release-safety.toml"
    ci.parent.mkdir()
    ci.write_text(ADOPTED)  # inside the repository, never committed
    code, _, findings, _, err = _generate(builder.path, tmp_path, capsys, "--config", str(ci))
    assert code == 0, err
    assert "settings: --config ci/release-safety.toml" in err
    assert any(f["file"] == "ci/release-safety.toml" for f in findings)


def test_defaults_are_never_silent(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("bare")
    builder.release("1.0.0", {"db/migrations/001.sql": "CREATE TABLE t (id int);\n"})
    builder.release("1.1.0", {"db/migrations/002.sql": "CREATE TABLE u (id int);\n"})
    code, _, findings, notes, err = _generate(builder.path, tmp_path, capsys)
    said = "settings: defaults (.release-safety.toml absent at 1.1.0)"
    assert code == 0 and said in err and said in notes
    assert [f["rule"] for f in findings if f["message"] == said] == ["settings-defaults"]


def test_a_release_with_settings_of_its_own_is_judged_with_them_silently(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("own")
    builder.release(
        "1.0.0", {"db/001.sql": "CREATE TABLE t (id int);\n", ".release-safety.toml": ADOPTED}
    )
    builder.release("1.1.0", {"db/002.sql": "CREATE TABLE u (id int);\n"})
    code, _, findings, _, err = _generate(builder.path, tmp_path, capsys)
    assert code == 0 and "settings:" not in err
    assert not [f for f in findings if f["rule"] in {"settings-adopted", "settings-defaults"}]
