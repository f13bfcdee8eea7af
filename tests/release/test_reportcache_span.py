"""The report cache follows how the settings fit a release's span (`span.fit`): an entry that
names nothing at either ref is a coverage note while HEAD or another release has its files,
and bad settings once none has; a cached report is not read across that change. Nothing else
moved: the cached report is read."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from release_safety.contract.release import Release
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.release.generate import analyse_release
from release_safety.settings.atref import ReleaseSettings, SettingsAt
from release_safety.settings.model import Settings

SOURCES = {"config": {"sources": ["server/**/*.ts", "extra/**/*.ts"]}}


def _judged(builder: RepoBuilder) -> tuple[bool, list[str]]:
    """v1.1.0 backfilled with the cache on: whether the config surface was checked, and the
    rules of the settings surface's findings."""
    judged = ReleaseSettings(SettingsAt(Settings.model_validate(SOURCES), "the settings"))
    release = Release("1.1.0", "v1.1.0", "v1.0.0", "1.0.0", "2024-01-02T00:00:00Z")
    repo = GitRepo(builder.path)
    try:
        generated = analyse_release(
            repo, judged, release, backfilled=True, use_cache=True, strict=False
        )
    finally:
        repo.close()
    by = {report.surface: report for report in generated.reports}
    return by["config"].checked, [f.rule for f in by["settings"].findings]


def _cached() -> int:
    folder = Path(os.environ["RELEASE_SAFETY_CACHE_DIR"]) / "reports"
    return sum(1 for _ in folder.rglob("*.json"))


def test_a_cached_report_follows_where_an_entry_names_files(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    builder = make_repo("service")
    read = "export const p = process.env.PORT || 1;\n"
    builder.release("1.0.0", {"server/a.ts": read}, prefix="v")
    builder.release("1.1.0", {"server/a.ts": read + "// x\n"}, prefix="v")
    builder.write("extra/b.ts", "export const q = process.env.Q || 1;\n").commit("extra code")
    assert _judged(builder) == (True, ["settings-entry-not-in-span"])  # HEAD has extra/
    assert _cached() == 1
    assert _judged(builder) == (True, ["settings-entry-not-in-span"])
    assert _cached() == 1  # nothing moved: the cached report is read
    builder.delete("extra/b.ts").commit("extra code removed")
    assert _judged(builder) == (False, [])  # no ref has extra/ now: bad settings, not a note
    assert _cached() == 2
