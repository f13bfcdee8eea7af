"""What a compose service does to its data besides its mounts: PostgreSQL's data folder moved by
`PGDATA` (under the same volume it starts an empty cluster), an entrypoint or command that
removes a data folder (`rm`, `rmdir`, `find ... -delete`, `shred`, `mkfs`, `dropdb`), and a
service switched off by `profiles` (`docker compose up` no longer starts it; its volume is
orphaned)."""

from __future__ import annotations

import posixpath
import re

import release_safety.surfaces.deployment.rules as rules
from release_safety.contract.reports import Finding
from release_safety.surfaces.deployment.compose_read import Service, Written

_WIPING = frozenset({"rm", "rmdir", "shred", "mkfs", "dropdb", "pg_dropcluster", "wipefs"})
_SEPARATORS = re.compile(r"&&|\|\||[;|\n]")
_WORD = re.compile(r"""[^\s"'`()]+""")
_DATA_VARIABLES = {"postgres": "PGDATA"}


def data_directory(service: Service) -> Written | None:
    """Where the service's database keeps its data when the environment says so (`PGDATA`
    for PostgreSQL); None when it is the image's default."""
    kind = service.image.kind if service.image else None
    variable = _DATA_VARIABLES.get(kind.name) if kind else None
    return service.environment.get(variable) if variable else None


def _default_directory(service: Service) -> str:
    """The data folder of the official PostgreSQL image (`/var/lib/postgresql/<major>/docker`
    from 18 on)."""
    numbers = service.image.version if service.image else None
    if numbers and numbers[0] >= 18:
        return f"/var/lib/postgresql/{numbers[0]}/docker"
    return "/var/lib/postgresql/data"


def _folder(path: str) -> str:
    return posixpath.normpath(path.rstrip("*").rstrip("/") or "/")


def _data_places(service: Service) -> list[str]:
    """The folders that hold the service's data: its writable mounts and its data folder."""
    places = [_folder(m.target) for m in service.mounts if m.target.startswith("/")]
    directory = data_directory(service)
    if directory is not None and directory.value.startswith("/"):
        places.append(_folder(directory.value))
    return places


def _wipes(service: Service, text: str) -> list[str]:
    """The data folders (or variables naming them) a command removes."""
    places = _data_places(service)
    variables = set(_DATA_VARIABLES.values())
    found: list[str] = []
    for segment in _SEPARATORS.split(text):
        words = _WORD.findall(segment)
        verb = next((i for i, w in enumerate(words) if posixpath.basename(w) in _WIPING), None)
        if verb is None and "find" in words and "-delete" in words:
            verb = words.index("find")
        if verb is None:
            continue
        for word in words[verb + 1 :]:
            named = any(f"${v}" in word or f"${{{v}}}" in word for v in variables)
            under = word.startswith("/") and any(
                _folder(word) == p or _folder(word).startswith(f"{p}/") for p in places
            )
            if named or under:
                found.append(word)
    return found


def _commands(service: Service) -> list[Written]:
    return [w for w in (service.entrypoint, service.command) if w is not None]


def data_findings(path: str, before: Service, after: Service) -> list[Finding]:
    """What the new version of a service (declared in compose file `path`) does to the data of
    the previous one."""
    findings: list[Finding] = []
    label = f"{path} service `{after.name}`"
    was, now = data_directory(before), data_directory(after)
    if (was or now) and before.image and before.image.kind and after.image and after.image.kind:
        old_place = _folder(was.value if was else _default_directory(before))
        new_place = _folder(now.value if now else _default_directory(after))
        if old_place != new_place and not (was is None and now is None):
            at = now or was
            assert at is not None
            message = f"{label}: its data folder moves from {old_place} to {new_place}"
            hint = (
                f"Keep the data folder at {old_place} (`PGDATA`), or move the files there in a "
                "documented required stop; the database starts empty in the new folder."
            )
            findings.append(rules.DATA_MOVED.finding("deployment", message, at.file, at.line, hint))
    old_wipes = {w for c in _commands(before) for w in _wipes(before, c.value)}
    for command in _commands(after):
        wiped = [w for w in _wipes(after, command.value) if w not in old_wipes]
        if wiped:
            message = f"{label}: its entrypoint or command removes {', '.join(wiped)}"
            hint = (
                f"Do not remove {', '.join(wiped)} when the service starts: it holds the data "
                "the previous release wrote."
            )
            findings.append(
                rules.DATA_WIPED.finding("deployment", message, command.file, command.line, hint)
            )
    if after.profiles is not None and before.profiles is None:
        message = (
            f"{label}: now only starts with profiles {after.profiles.value}; `docker compose up` "
            "no longer starts it"
        )
        hint = (
            f"Keep service `{after.name}` without profiles for a release, or declare that it is "
            "switched off with a required stop (`release-safety: breaking(required-stop) ...`)."
        )
        at = after.profiles
        findings.append(
            rules.SERVICE_DISABLED.finding("deployment", message, at.file, at.line, hint)
        )
    return findings
