"""What changed between two versions of a compose file, read as compose runs it
(`compose_read`: with the files it includes and extends)."""

from __future__ import annotations

import release_safety.surfaces.deployment.rules as rules
from release_safety.contract.reports import Finding, Unmodelled
from release_safety.surfaces.deployment.catalogue import major_parts
from release_safety.surfaces.deployment.compose_read import (
    ComposeError,
    ComposeFile,
    Service,
    parse_compose,
)
from release_safety.surfaces.deployment.datadir import data_findings
from release_safety.surfaces.deployment.imageref import Image
from release_safety.surfaces.deployment.stateful import Place, compare, image_seen

__all__ = [
    "ComposeError",
    "ComposeFile",
    "diff_compose",
    "parse_compose",
    "removed_file",
    "understood",
]


def _place(file: ComposeFile, service: Service) -> Place:
    runs = f"image {service.image.text}" if service.image else f"a build of {service.build}"
    name = f"{file.path} service `{service.name}`"
    if service.image:
        return Place(name, service.image_file, service.image_line, runs)
    return Place(name, service.file, service.line, runs)


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
                rules.MOUNT_CHANGED.finding("deployment", message, now.file, now.line, hint)
            )
        else:
            source = f"`{mount.source}` at " if mount.source else "the anonymous volume at "
            message = f"{label}: {source}{mount.target} is no longer mounted"
            hint = (
                f"Keep mounting {mount.source or 'the volume'} at {mount.target} in service "
                f"`{after.name}` for a release, or move its data in a documented stop."
            )
            findings.append(
                rules.VOLUME_REMOVED.finding("deployment", message, mount.file, mount.line, hint)
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
    return [
        rules.UNCATALOGUED_MAJOR.finding(
            "deployment", message, after.image_file, after.image_line, hint
        )
    ]


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
            known[name] = f"{service.image_file}:{service.image_line}"
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
                Unmodelled(
                    file=service.image_file, line=service.image_line, what=what, way_out=way_out
                )
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
                rules.SERVICE_RENAMED.finding("deployment", message, twin.file, twin.line, hint)
            )
            findings += _mounts(old, new, service, twin)
        else:
            message = f"{new.path}: service `{service.name}` removed"
            findings.append(
                rules.SERVICE_REMOVED.finding(
                    "deployment", message, service.file, service.line, _removed_hint(service.name)
                )
            )
    for name, after in new.services.items():
        before = old.services.get(name)
        if before is not None:
            findings += compare(
                _place(new, after),
                image_seen(before.image, "image", before.image_file, before.image_line),
                image_seen(after.image, "image", after.image_file, after.image_line),
            )
            findings += _mounts(old, new, before, after)
            findings += _uncatalogued(new.path, before, after, stateless)
            findings += data_findings(new.path, before, after)
    for name, was in old.volumes.items():
        now = new.volumes.get(name)
        if now is None:
            message = f"{new.path}: volume `{name}` removed"
            hint = f"Keep volume `{name}` in {was.file} for a release, or move its data first."
            findings.append(
                rules.VOLUME_REMOVED.finding("deployment", message, was.file, was.line, hint)
            )
        elif now.value != was.value:
            message = f"{new.path}: volume `{name}` now names `{now.value}` (was `{was.value}`)"
            hint = f"Keep `name: {was.value}` on volume `{name}`: the data lives under it."
            findings.append(
                rules.MOUNT_CHANGED.finding("deployment", message, now.file, now.line, hint)
            )
    for variable, where in new.required.items():
        if variable not in old.required:
            message = f"{new.path}: needs `{variable}` set, with no default"
            hint = (
                f"Give `{variable}` a default in {where.file} (`${{{variable}:-}}`, with a "
                "fallback in the application), so operators' existing environments still start."
            )
            findings.append(
                rules.REQUIRED_ENV.finding("deployment", message, where.file, where.line, hint)
            )
    for unread in new.unread:
        message = (
            f"{new.path}: compose pulls in `{unread.reference}`, which cannot be read "
            f"({unread.why}): the services it defines are not judged"
        )
        hint = (
            f"Keep `{unread.reference}` in the repository beside {unread.file} and name it by a "
            "relative path, so the release's whole stack can be read."
        )
        findings.append(
            rules.REFERENCE_UNREAD.finding("deployment", message, unread.file, unread.line, hint)
        )
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
            s.file,
            s.line,
            _removed_hint(s.name),
        )
        for s in old.services.values()
    ]
