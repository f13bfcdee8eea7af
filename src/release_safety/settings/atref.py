"""The settings a release is judged with, the previous release's beside it (docs/settings.md,
"Which settings judge a release"):

1. `--config FILE` is always the settings used, wherever the file is (inside the repository
   too): the file as it is on disk, for every ref.
2. Else `.release-safety.toml` as committed at the ref (else the `[tool.release-safety]` table
   of the root `pyproject.toml` at that ref).
3. Else, for a ref with no settings of its own (a release older than the adoption), the
   adopting settings: the working tree's file, else HEAD's; the artifact's notes, the evidence
   and stderr say so. Defaults only when neither has any, and then said too.

The pull-request gate reads a `--config` inside the repository at each ref and judges a ref
without settings with the defaults (`gate_settings_file`): a pull request must not be able to
narrow what is checked by editing the settings, so both refs' own settings are weighed.

Settings at a ref are read at the repository root only: a release is the whole repository, so
the walk up from the current folder (`settings.model.find_settings`) is for the working tree's
commands (`lint-migrations`, `upgrade-check`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from release_safety.common.errors import CheckError, InputError
from release_safety.common.localfile import read_regular
from release_safety.git.repository import GitRepo
from release_safety.settings.file import PYPROJECT, outside_label, read_settings
from release_safety.settings.model import (
    SETTINGS_FILE,
    Settings,
    load_settings,
    parse_settings,
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
    adopted_for: str | None = None
    """The ref that has no settings of its own and is judged with these (the adopting ones)."""


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
        """What the reports depend on, for the report cache: the settings, their file (findings
        name it) and where they come from (the note that says so)."""
        previous = self.previous if self.differ else None
        parts = [self.current, previous]
        texts = [
            f"{p.where}\0{p.settings.origin}\0{p.settings.model_dump_json()}" if p else "-"
            for p in parts
        ]
        return "\0".join([*texts, self.problem or ""])


def _inside(repo: GitRepo, config: Path) -> str | None:
    """The repository path of a `--config` file inside the repository, else None."""
    try:
        return config.resolve().relative_to(repo.path.resolve()).as_posix()
    except ValueError:
        return None


def gate_settings_file(repo: GitRepo, config: Path | None) -> str | Path:
    """Where the pull-request gate's settings live: a path in the repository (read at each ref
    from git, a `--config` inside it too), or a file outside it (used as it is)."""
    if config is None:
        return SETTINGS_FILE
    return _inside(repo, config) or config


def settings_file(config: Path | None) -> str | Path:
    """Where a release's settings live: the `--config` file as it is, for every ref, wherever
    it is; else the settings committed at each ref (`settings_at_ref` with `adopt`)."""
    return SETTINGS_FILE if config is None else config


def settings_at_ref(repo: GitRepo, ref: str, where: str | Path, adopt: bool = False) -> SettingsAt:
    """The settings committed at a ref, or the `--config` file (errors reading it name its
    path; what it is judged with names it: its repository path, else `outside_label`). A ref
    without settings of its own is judged with the adopting settings when `adopt`
    (`adopting_settings`), else with the defaults; either way `where` says so."""
    if isinstance(where, Path):
        inside = _inside(repo, where)
        label = f"--config {inside}" if inside else outside_label(where)
        loaded = load_settings(repo.path, where).read_from(inside or label)
        return SettingsAt(loaded, label, path=inside)
    snapshot = repo.snapshot(ref)
    source = settings_source(snapshot, where)
    found = settings_at(snapshot, where)
    if source is None or found is None:
        adopted = adopting_settings(repo, where) if adopt else None
        if adopted is not None:
            return replace(adopted, where=f"{adopted.where} ({ref} has none)", adopted_for=ref)
        return SettingsAt(Settings(), f"defaults ({where} absent at {ref})")
    text = snapshot.read(source).decode("utf-8")
    return SettingsAt(found, f"{source} at {ref}", text, snapshot.blob_id(source), source)


def adopting_settings(repo: GitRepo, where: str) -> SettingsAt | None:
    """The settings a maintainer adopts the tool with: the working tree's file (`where`, else a
    root `pyproject.toml` with a `[tool.release-safety]` table), else HEAD's; None when neither
    has any."""
    for name in (where, *((PYPROJECT,) if where == SETTINGS_FILE else ())):
        path = repo.path / name
        if path.is_file() and not path.is_symlink():
            text = read_settings(path)
            found = parse_settings(text, f"{name} in the working tree", name == PYPROJECT)
            if found is not None:
                return SettingsAt(
                    found.read_from(name), f"{name} in the working tree", text, None, name
                )
    try:
        head = repo.snapshot("HEAD")
    except (InputError, CheckError):
        return None  # no commit yet
    source = settings_source(head, where)
    found = settings_at(head, where)
    if source is None or found is None:
        return None
    text = head.read(source).decode("utf-8")
    return SettingsAt(found, f"{source} at HEAD", text, head.blob_id(source), source)


def release_settings(
    repo: GitRepo,
    current: SettingsAt,
    from_ref: str | None,
    where: str | Path,
    adopt: bool = False,
) -> ReleaseSettings:
    """The current settings with the previous ref's (lenient: unreadable ones are a problem).
    With `adopt`, a previous ref without settings of its own is judged with the adopting
    settings only when the current ref is too (a release that adds the settings file is
    compared with what the release before it was judged with by default)."""
    if from_ref is None or isinstance(where, Path):
        return ReleaseSettings(current)
    try:
        adopted = adopt and current.adopted_for is not None
        return ReleaseSettings(current, settings_at_ref(repo, from_ref, where, adopted))
    except InputError as exc:
        return ReleaseSettings(current, problem=f"the previous release's settings: {exc.message}")


def uncommitted(repo: GitRepo, where: str | Path, current: SettingsAt, to_ref: str) -> str | None:
    """A warning when `to_ref` is the checked-out commit and the working tree's settings file
    differs from the committed one the release is judged with."""
    if isinstance(where, Path) or repo.resolve(to_ref) != repo.resolve("HEAD"):
        return None
    if current.adopted_for is not None:
        return None  # judged with the working tree's settings already
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
