"""The release notes' "Upgrade safety" section (`generate --notes`) on real repositories: config
changes as sentences, why a release is not safe, and findings placed where they are."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.cli.render.markdown import upgrade_safety_section
from release_safety.contract.reports import Finding
from release_safety.git.builder import RepoBuilder
from release_safety.release.artifact import unknown_artifact

SETTINGS = """\
[rest]
absent = "the service has no HTTP API; it is a queue worker"
[mcp]
absent = "the service exposes no MCP tools to agents"
[deployment]
absent = "operators run the worker from their own manifests; the project ships none"
[migrations]
absent = "the worker keeps no database of its own, only a queue"
[config]
sources = [{ path = ".env.example", defaults = true }]
renames = { QUEUE_URL = "BROKER_URL" }
"""


def notes_of(builder: RepoBuilder, tmp_path: Path, tag: str, *extra: str) -> str:
    notes = tmp_path / f"{tag}.md"
    args = ["generate", "--repo", str(builder.path), "--to", tag, "--out", str(tmp_path / "a.json")]
    assert run([*args, "--notes", str(notes), *extra]) == 0
    return notes.read_text()


def test_config_changes_are_sentences_and_the_why_names_them(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("worker")
    env = "BROKER_URL=amqp://queue\nPOOL_SIZE=10\nLEGACY_MODE=off\n"
    builder.release("1.0.0", {".release-safety.toml": SETTINGS, ".env.example": env}, prefix="v")
    builder.release("1.1.0", {".env.example": "QUEUE_URL=amqp://queue\nPOOL_SIZE=50\n"}, "v")
    notes = notes_of(builder, tmp_path, "v1.1.0")
    section = notes.split("### Configuration (breaking: yes)\n\n", 1)[1].split("\n\n", 1)[0]
    assert sorted(section.splitlines()) == [
        "- `BROKER_URL` renamed to `QUEUE_URL` (default `amqp://queue`)",
        "- `LEGACY_MODE` removed (its default was `off`)",
        "- default of `POOL_SIZE` changed from `10` to `50`",
    ]
    assert "{'type'" not in notes
    why = next(line for line in notes.splitlines() if line.startswith("- Why: "))
    assert "LEGACY_MODE" in why and "POOL_SIZE" in why and "more (see Evidence)" not in why
    said = capsys.readouterr().err
    assert said.startswith("release-safety: 1.1.0: UNSAFE (env var `BROKER_URL` renamed")


def test_a_backfilled_release_says_why_it_is_unknown(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("worker")
    env = "BROKER_URL=amqp://queue\n"
    builder.release("1.0.0", {".release-safety.toml": SETTINGS, ".env.example": env}, prefix="v")
    builder.release("1.1.0", {"README.md": "docs\n"}, prefix="v")
    assert "- Why: " not in notes_of(builder, tmp_path, "v1.1.0")  # true: nothing to explain
    assert capsys.readouterr().err == "release-safety: 1.1.0: SAFE\n"
    notes = notes_of(builder, tmp_path, "v1.1.0", "--backfilled")
    assert capsys.readouterr().err == (
        "release-safety: 1.1.0: UNKNOWN (backfilled release: verdict is never true)\n"
    )
    assert "**⚠️ UNKNOWN: rolling-update safety could not be proven" in notes
    assert "- Why: backfilled release: verdict is never true\n" in notes
    assert "| `backfilled-release` | unknown | – | backfilled release: verdict is never true |" in (
        notes
    )


def test_a_finding_without_a_line_is_placed_at_its_file_alone() -> None:
    artifact = unknown_artifact("1.0.0", None, "2026-01-01T00:00:00Z")
    found = Finding(
        rule="deployment-unreadable",
        severity="unknown",
        surface="deployment",
        file="deploy/compose.yaml",
        message="compose file does not parse",
    )
    section = upgrade_safety_section(artifact, [found], [found])
    assert "(`deploy/compose.yaml`)" in section
    assert "| `deployment-unreadable` | unknown | `deploy/compose.yaml` |" in section
    assert ":1`" not in section and "None" not in section
