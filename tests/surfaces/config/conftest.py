"""The config surface judged on two real tagged releases built in `tmp_path`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from release_safety.contract.reports import ConfigReport
from release_safety.git.repository import GitSnapshot
from release_safety.settings.model import ConfigSettings, Settings
from release_safety.surfaces.config import analyse
from release_safety.surfaces.discovery import matching

Files = dict[str, str | None]
Pair = Callable[[Files, Files], tuple[GitSnapshot, GitSnapshot]]
Judge = Callable[..., ConfigReport]


@pytest.fixture
def judge(release_pair: Pair) -> Judge:
    """`judge(old_files, new_files, sources, renames=None)`: the config report of the second
    release, with the `sources` (paths, globs or tables) that name a file at that release set
    in the settings (an entry that names nothing is bad settings, tested on its own)."""

    def run(
        old: Files,
        new: Files,
        sources: Sequence[str | Mapping[str, Any]],
        renames: dict[str, str] | None = None,
    ) -> ConfigReport:
        before, after = release_pair(old, new)
        entries = [s if isinstance(s, str) else s["path"] for s in sources]
        named = [s for s, path in zip(sources, entries, strict=True) if matching(after, path)]
        config = ConfigSettings.model_validate({"sources": named, "renames": renames or {}})
        return analyse(before, after, Settings(config=config))

    return run


@pytest.fixture
def seen(judge: Judge) -> Callable[..., list[tuple[str, str]]]:
    """`seen(old_files, new_files, sources, renames=None)`: (rule, message) of every finding,
    after checking that the surface was checked."""

    def run(*args: Any, **kwargs: Any) -> list[tuple[str, str]]:
        report = judge(*args, **kwargs)
        assert report.checked is True, report.reason
        return [(f.rule, f.message) for f in report.findings]

    return run
