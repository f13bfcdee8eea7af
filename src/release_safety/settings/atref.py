"""The settings a release is judged with: `.release-safety.toml` as committed at each ref (else the
`[tool.release-safety]` table of the root `pyproject.toml` at that ref; or a file outside the
repository given with `--config`), the previous release's beside it.

Settings at a ref are read at the repository root only: a release is the whole repository, so
the walk up from the current folder (`settings.model.find_settings`) is for the working tree's
commands (`lint-migrations`, `upgrade-check`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from release_safety.common.errors import InputError
from release_safety.common.localfile import read_regular
from release_safety.git.repository import GitRepo
from release_safety.settings.file import outside_label
from release_safety.settings.model import (
    SETTINGS_FILE,
    Settings,
    load_settings,
    settings_at,
    settings_source,
)


@dataclass(frozen=True)
class SettingsAt:
    """The settings a ref is judged with, and where they come from (`text` None: defaults)."""

    settings: Settings
    where: str
    text: str | None = None
    blob: str | None = None
    path: str | None = None
    """The repository file they were read from (`pyproject.toml` when its table holds them)."""


@dataclass(frozen=True)
class ReleaseSettings:
    """The settings a release is judged with, and the previous release's when they may differ.

    `previous` is None when there is no previous ref or when the settings were given from
    outside the repository; `problem` says why the previous ref's settings could not be read.
    """

    current: SettingsAt
    previous: SettingsAt | None = None
    problem: str | None = None

    @property
    def differ(self) -> bool:
        return self.previous is not None and self.previous.settings != self.current.settings

    def key(self) -> str:
        """What the reports depend on, for the report cache (the settings' file too: findings
        name it)."""
        previous = self.previous if self.differ else None
        parts = [self.current.settings, previous.settings if previous else None]
        texts = [f"{p.origin}\0{p.model_dump_json()}" if p else "-" for p in parts]
        return "\0".join([*texts, self.problem or ""])


def settings_file(repo: GitRepo, config: Path | None) -> str | Path:
    """Where the settings live: a path in the repository (read at each ref from git), or a
    file outside it (`--config`, used as it is for every ref)."""
    if config is None:
        return SETTINGS_FILE
    try:
        return config.resolve().relative_to(repo.path.resolve()).as_posix()
    except ValueError:
        return config


def settings_at_ref(repo: GitRepo, ref: str, where: str | Path) -> SettingsAt:
    """The settings committed at a ref (defaults when the file is absent there), or the file
    outside the repository (errors reading it name its path; what it is judged with names it
    by `outside_label`)."""
    if isinstance(where, Path):
        label = outside_label(where)
        return SettingsAt(load_settings(repo.path, where).read_from(label), label)
    snapshot = repo.snapshot(ref)
    source = settings_source(snapshot, where)
    found = settings_at(snapshot, where)
    if source is None or found is None:
        return SettingsAt(Settings(), f"defaults ({where} absent at {ref})")
    text = snapshot.read(source).decode("utf-8")
    return SettingsAt(found, f"{source} at {ref}", text, snapshot.blob_id(source), source)


def release_settings(
    repo: GitRepo, current: SettingsAt, from_ref: str | None, where: str | Path
) -> ReleaseSettings:
    """The current settings with the previous ref's (lenient: unreadable ones are a problem)."""
    if from_ref is None or isinstance(where, Path):
        return ReleaseSettings(current)
    try:
        return ReleaseSettings(current, settings_at_ref(repo, from_ref, where))
    except InputError as exc:
        return ReleaseSettings(current, problem=f"the previous release's settings: {exc.message}")


def uncommitted(repo: GitRepo, where: str | Path, current: SettingsAt, to_ref: str) -> str | None:
    """A warning when `to_ref` is the checked-out commit and the working tree's settings file
    differs from the committed one the release is judged with."""
    if isinstance(where, Path) or repo.resolve(to_ref) != repo.resolve("HEAD"):
        return None
    path = (repo.path / (current.path or where)).resolve()
    try:
        path.relative_to(repo.path.resolve())  # a link out of the repository is not read
        working: str | None = read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError, InputError):
        working = None
    if working == current.text:
        return None
    return (
        f"{where} in the working tree differs from the one committed at {to_ref}: the release "
        "is judged with the committed settings"
    )
