"""Compose files: services, their images and writable mounts, named volumes, and the variables
the file needs with no default; and what changed between two versions of a file.

Interpolation follows compose: `${VAR:-default}` and `${VAR-default}` read the default,
`${VAR:?error}` and `${VAR}` / `$VAR` with no default need the variable set (unless the `.env`
file beside the compose file sets it), `$$` is a literal dollar. Short (`pgdata:/data:ro`) and
long (`{type, source, target, read_only}`) volume syntaxes are read; read-only and tmpfs mounts
hold no state and are left out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import release_safety.surfaces.deployment.rules as rules
from release_safety.common.yamltree import Path, Tree
from release_safety.contract.reports import Finding, Unmodelled
from release_safety.surfaces.deployment.catalogue import major_parts
from release_safety.surfaces.deployment.imageref import Image, parse_image
from release_safety.surfaces.deployment.interpolation import interpolate, needed
from release_safety.surfaces.deployment.stateful import Place, compare, image_seen


class ComposeError(Exception):
    """The document is not a compose file; the message says why."""


@dataclass(frozen=True)
class Mount:
    """A writable mount of a service: the volume or host path (None: anonymous) and where."""

    source: str | None
    target: str
    line: int


@dataclass(frozen=True)
class Service:
    name: str
    line: int
    image: Image | None
    image_line: int
    build: str | None
    mounts: tuple[Mount, ...]


@dataclass(frozen=True)
class ComposeFile:
    """A compose file at one ref: services, named volumes (name -> (docker name, line)), and the
    variables it needs with no default (name -> line)."""

    path: str
    services: dict[str, Service]
    volumes: dict[str, tuple[str, int]]
    required: dict[str, int]


def _strings(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))


def _mount(entry: Any, defaults: Mapping[str, str], line: int) -> Mount | None:
    if isinstance(entry, dict):
        if entry.get("type") == "tmpfs" or str(entry.get("read_only")).lower() == "true":
            return None
        named, path = entry.get("source"), entry.get("target")
        if not isinstance(path, str):
            return None
        return Mount(interpolate(named, defaults) if isinstance(named, str) else None, path, line)
    if not isinstance(entry, str):
        return None
    parts = interpolate(entry, defaults).split(":")
    source: str | None = None
    if len(parts) == 1 or (len(parts) == 2 and not parts[1].startswith("/")):
        target, mode = parts[0], ":".join(parts[1:])  # `/data` or `/data:ro`: anonymous
    else:
        source, target, mode = parts[0], parts[1], ":".join(parts[2:])
    if "ro" in mode.split(","):
        return None
    return Mount(source, target, line)


def parse_compose(path: str, tree: Tree, defaults: Mapping[str, str]) -> ComposeFile:
    """The compose file in `tree`; `defaults` are the variables of the `.env` file beside it."""
    data = tree.data
    if not isinstance(data, dict) or not isinstance(data.get("services", 0), dict | None):
        raise ComposeError("not a compose file: no `services` mapping")
    services: dict[str, Service] = {}
    for name, spec in (data["services"] or {}).items():
        spec = spec if isinstance(spec, dict) else {}
        image_text = spec.get("image")
        image = (
            parse_image(interpolate(image_text, defaults)) if isinstance(image_text, str) else None
        )
        build = spec.get("build")
        context = build.get("context") if isinstance(build, dict) else build
        mounts = [
            _mount(entry, defaults, tree.line("services", name, "volumes", i))
            for i, entry in enumerate(spec.get("volumes") or [])
        ]
        services[name] = Service(
            name=name,
            line=tree.line("services", name),
            image=image,
            image_line=tree.line("services", name, "image"),
            build=context if isinstance(context, str) else None,
            mounts=tuple(m for m in mounts if m is not None),
        )
    volumes: dict[str, tuple[str, int]] = {}
    for name, spec in (data.get("volumes") or {}).items():
        docker_name = spec.get("name") if isinstance(spec, dict) else None
        volumes[name] = (str(docker_name or name), tree.line("volumes", name))
    required: dict[str, int] = {}
    for where, text in _strings(data, ()):
        for variable in needed(text, defaults):
            required.setdefault(variable, tree.line(*where))
    return ComposeFile(path, services, volumes, required)


def _place(file: ComposeFile, service: Service) -> Place:
    runs = f"image {service.image.text}" if service.image else f"a build of {service.build}"
    name = f"{file.path} service `{service.name}`"
    return Place(name, file.path, service.image_line if service.image else service.line, runs)


def _same_workload(old: Service, new: Service) -> bool:
    if old.image is not None and new.image is not None:
        return old.image.repository == new.image.repository
    return old.build is not None and old.build == new.build


def _mounts(old: ComposeFile, new: ComposeFile, before: Service, after: Service) -> list[Finding]:
    findings: list[Finding] = []
    label = f"{new.path} service `{after.name}`"
    for mount in before.mounts:
        if any(m.source == mount.source and m.target == mount.target for m in after.mounts):
            continue
        same_source = [m for m in after.mounts if mount.source and m.source == mount.source]
        same_target = [m for m in after.mounts if m.target == mount.target]
        if same_source or same_target:
            now = (same_source or same_target)[0]
            if same_source:
                message = (
                    f"{label}: `{mount.source}` is mounted at {now.target} (was {mount.target})"
                )
            else:
                was, source = mount.source or "(anonymous)", now.source or "(anonymous)"
                message = f"{label}: {mount.target} now mounts `{source}` (was `{was}`)"
            hint = (
                f"Keep service `{after.name}` mounting {mount.source or 'its volume'} at "
                f"{mount.target}; move the data with an explicit, documented step."
            )
            findings.append(
                rules.MOUNT_CHANGED.finding("deployment", message, new.path, now.line, hint)
            )
        else:
            source = f"`{mount.source}` at " if mount.source else "the anonymous volume at "
            message = f"{label}: {source}{mount.target} is no longer mounted"
            hint = (
                f"Keep mounting {mount.source or 'the volume'} at {mount.target} in service "
                f"`{after.name}` for a release, or move its data in a documented stop."
            )
            findings.append(
                rules.VOLUME_REMOVED.finding("deployment", message, old.path, mount.line, hint)
            )
    return findings


def _major(numbers: tuple[int, ...]) -> tuple[int, ...]:
    return numbers[: major_parts(1, None, numbers)]


def _keeps_data(service: Service, stateless: frozenset[str]) -> Image | None:
    """The service's image when the catalogue does not know it, it is not declared stateless,
    and the service mounts a writable volume or host folder."""
    image = service.image
    if image is None or image.kind is not None or image.repository in stateless:
        return None
    return image if service.mounts else None


def _uncatalogued(
    path: str, before: Service, after: Service, stateless: frozenset[str]
) -> list[Finding]:
    """An image the catalogue does not know, mounting data, whose major version moves."""
    image = _keeps_data(after, stateless)
    if image is None or before.image is None or before.image.repository != image.repository:
        return []
    was, now = before.image.version, image.version
    if was is None or now is None or _major(was) == _major(now):
        return []
    mounts = ", ".join(m.target for m in after.mounts)
    major = f"{'.'.join(map(str, _major(was)))} -> {'.'.join(map(str, _major(now)))}"
    message = (
        f"{path} service `{after.name}`: {before.image.text} -> {image.text} moves major "
        f"version {major} and mounts {mounts}; {image.repository} is not in the stateful "
        "catalogue, so whether the new version reads the data in place is not known"
    )
    hint = (
        f"If {image.repository} keeps no data its major version changes, add "
        f'"{image.repository}" to [deployment] stateless; otherwise read its upgrade notes '
        "and acknowledge the release in the overrides file."
    )
    return [rules.UNCATALOGUED_MAJOR.finding("deployment", message, path, after.image_line, hint)]


def understood(
    file: ComposeFile, stateless: frozenset[str]
) -> tuple[dict[str, str], list[Unmodelled]]:
    """What the compose file shows of stateful components: the services whose image the
    catalogue knows (name -> file:line), and those it does not know that mount data."""
    known: dict[str, str] = {}
    unmodelled: list[Unmodelled] = []
    for service in file.services.values():
        image = service.image
        if image is not None and image.kind is not None:
            name = f"{file.path} service `{service.name}` ({image.kind.name} {image.text})"
            known[name] = f"{file.path}:{service.image_line}"
        elif (image := _keeps_data(service, stateless)) is not None:
            mounts = ", ".join(m.target for m in service.mounts)
            what = (
                f"service `{service.name}` runs {image.text}, which mounts {mounts} and is not "
                "in the stateful catalogue: its major upgrades cannot be judged"
            )
            way_out = (
                f'add "{image.repository}" to [deployment] stateless if its data survives '
                "major versions"
            )
            unmodelled.append(
                Unmodelled(file=file.path, line=service.image_line, what=what, way_out=way_out)
            )
    return known, unmodelled


def diff_compose(
    old: ComposeFile, new: ComposeFile, stateless: frozenset[str] = frozenset()
) -> list[Finding]:
    """What changed between two versions of a compose file (`new.path` may be its new place);
    `stateless` names images known to keep no data a major version changes."""
    findings: list[Finding] = []
    removed = [s for name, s in old.services.items() if name not in new.services]
    added = [s for name, s in new.services.items() if name not in old.services]
    for service in removed:
        twin = next((a for a in added if _same_workload(service, a)), None)
        if twin is not None:
            added.remove(twin)
            message = f"{new.path}: service `{service.name}` renamed to `{twin.name}`"
            hint = (
                f"Keep the name `{service.name}`, or give `{twin.name}` the network alias "
                f"`{service.name}` (networks: default: aliases: [{service.name}])."
            )
            findings.append(
                rules.SERVICE_RENAMED.finding("deployment", message, new.path, twin.line, hint)
            )
            findings += _mounts(old, new, service, twin)
        else:
            message = f"{new.path}: service `{service.name}` removed"
            findings.append(
                rules.SERVICE_REMOVED.finding(
                    "deployment", message, old.path, service.line, _removed_hint(service.name)
                )
            )
    for name, after in new.services.items():
        before = old.services.get(name)
        if before is not None:
            findings += compare(
                _place(new, after),
                image_seen(before.image, "image", old.path, before.image_line),
                image_seen(after.image, "image", new.path, after.image_line),
            )
            findings += _mounts(old, new, before, after)
            findings += _uncatalogued(new.path, before, after, stateless)
    for name, (docker_name, line) in old.volumes.items():
        now = new.volumes.get(name)
        if now is None:
            message = f"{new.path}: volume `{name}` removed"
            hint = f"Keep volume `{name}` in {new.path} for a release, or move its data first."
            findings.append(
                rules.VOLUME_REMOVED.finding("deployment", message, old.path, line, hint)
            )
        elif now[0] != docker_name:
            message = f"{new.path}: volume `{name}` now names `{now[0]}` (was `{docker_name}`)"
            hint = f"Keep `name: {docker_name}` on volume `{name}`: the data lives under it."
            findings.append(
                rules.MOUNT_CHANGED.finding("deployment", message, new.path, now[1], hint)
            )
    for variable, line in new.required.items():
        if variable not in old.required:
            message = f"{new.path}: needs `{variable}` set, with no default"
            hint = (
                f"Give `{variable}` a default in {new.path} (`${{{variable}:-}}`, with a fallback "
                "in the application), so operators' existing environments still start."
            )
            findings.append(rules.REQUIRED_ENV.finding("deployment", message, new.path, line, hint))
    return findings


def _removed_hint(name: str) -> str:
    return (
        f"Keep service `{name}` (idle) for a release, or declare its removal with a required "
        "stop (`release-safety: breaking(required-stop) <reason>`)."
    )


def removed_file(old: ComposeFile) -> list[Finding]:
    """A compose file the release no longer ships: each of its services is removed."""
    return [
        rules.SERVICE_REMOVED.finding(
            "deployment",
            f"{old.path}: service `{s.name}` removed with the file",
            old.path,
            s.line,
            _removed_hint(s.name),
        )
        for s in old.services.values()
    ]
