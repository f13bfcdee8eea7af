"""The deployment surface: what a release does to the services around the application, read
from the descriptors it ships (compose files, Helm charts, Dockerfiles) at both refs.

The files `[deployment] sources` names (by default compose files, `Chart.yaml` and Dockerfiles
where discovery looks) are grouped in units: a compose file with the `.env` beside it, a chart
(`Chart.yaml`, `requirements.yaml`, `values.yaml` and its templates), a folder of Dockerfiles.
A unit whose files are byte for byte the same at both refs changed nothing; the others are
parsed and diffed. A compose file or chart that moved is followed (a lone compose file gone and
a lone one new, a chart by its name); a Dockerfile folder gone is followed to a new one that
keeps its data (`deployment.dockerfile`). Nothing found at either ref: not checked.
"""

from __future__ import annotations

import posixpath
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from release_safety import discovery
from release_safety.discovery import DOCUMENT_MOVED, declared_absent, reason_of
from release_safety.findings import Coverage, Finding, SurfaceReport, not_checked_finding
from release_safety.settings import DEFAULT_DEPLOYMENT_SOURCES, Settings
from release_safety.snapshot import Snapshot, read_text
from release_safety.surfaces.config import dotenv
from release_safety.surfaces.config.reads import SourceError
from release_safety.surfaces.deployment.compose import (
    ComposeError,
    ComposeFile,
    diff_compose,
    parse_compose,
    removed_file,
)
from release_safety.surfaces.deployment.dockerfile import (
    Component,
    DockerfileError,
    diff_components,
    read_dockerfile,
)
from release_safety.surfaces.deployment.helm import (
    Chart,
    ChartError,
    add_template,
    diff_chart,
    parse_chart,
    removed_chart,
)
from release_safety.surfaces.deployment.yamltree import Tree as YamlTree
from release_safety.surfaces.deployment.yamltree import YamlError, load_yaml

__all__ = ["analyse", "descriptor_kind"]

UnitKind = Literal["compose", "chart", "dockerfile"]
_DOCKERFILE = re.compile(r"(?:Dockerfile|Containerfile)(?:\..+)?|.+\.(?:Dockerfile|dockerfile)")
_TEMPLATE = re.compile(r".+\.(?:ya?ml|tpl)")
_ERRORS = (YamlError, ComposeError, ChartError, DockerfileError, SourceError)


def descriptor_kind(path: str) -> UnitKind | None:
    """`chart` for a `Chart.yaml`, `dockerfile` for Dockerfile names, `compose` for other YAML
    files; None for anything else."""
    name = posixpath.basename(path)
    if name == "Chart.yaml":
        return "chart"
    if _DOCKERFILE.fullmatch(name):
        return "dockerfile"
    if name.endswith((".yml", ".yaml")):
        return "compose"
    return None


@dataclass(frozen=True)
class Unit:
    """Files read together: a compose file (and `.env`), a chart, a folder of Dockerfiles."""

    kind: UnitKind
    key: str
    files: tuple[str, ...]


def _units(snapshot: Snapshot | None, paths: Iterable[str]) -> dict[tuple[UnitKind, str], Unit]:
    if snapshot is None:
        return {}
    grouped: dict[tuple[UnitKind, str], list[str]] = {}
    for path in paths:
        kind = descriptor_kind(path)
        assert kind is not None
        folder = posixpath.dirname(path)
        key = folder if kind == "dockerfile" else path
        grouped.setdefault((kind, key), []).append(path)
    everything = snapshot.paths() if any(k == "chart" for k, _ in grouped) else ()
    units: dict[tuple[UnitKind, str], Unit] = {}
    for (kind, key), files in grouped.items():
        folder = posixpath.dirname(files[0])
        prefix = f"{folder}/" if folder else ""
        if kind == "compose" and snapshot.blob_id(f"{prefix}.env") is not None:
            files.append(f"{prefix}.env")
        elif kind == "chart":
            extra = [f"{prefix}{name}" for name in ("requirements.yaml", "values.yaml")]
            files += [p for p in extra if snapshot.blob_id(p) is not None]
            files += [
                p
                for p in everything
                if p.startswith(f"{prefix}templates/") and _TEMPLATE.fullmatch(p)
            ]
        units[(kind, key)] = Unit(kind, key, tuple(files))
    return units


class _Unreadable(Exception):
    def __init__(self, reason: str, file: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.file = file


Parsed = ComposeFile | Chart | Component


def _yaml(snapshot: Snapshot, path: str) -> YamlTree:
    return load_yaml(read_text(snapshot, path))


def _compose(snapshot: Snapshot, unit: Unit) -> ComposeFile:
    defaults: dict[str, str] = {}
    for env in unit.files[1:]:
        reads = dotenv.parse(read_text(snapshot, env))
        defaults.update({r.name: r.default for r in reads if r.default is not None})
    return parse_compose(unit.files[0], _yaml(snapshot, unit.files[0]), defaults)


def _chart(snapshot: Snapshot, unit: Unit) -> Chart:
    path = unit.files[0]
    named = {posixpath.basename(f): f for f in unit.files[1:] if "/templates/" not in f"/{f}"}
    requirements, values = named.get("requirements.yaml"), named.get("values.yaml")
    chart = parse_chart(
        path,
        _yaml(snapshot, path),
        _yaml(snapshot, requirements) if requirements else None,
        values,
        _yaml(snapshot, values) if values else None,
    )
    for template in (f for f in unit.files[1:] if f not in named.values()):
        add_template(chart, template, read_text(snapshot, template))
    return chart


def _component(snapshot: Snapshot, unit: Unit) -> Component:
    component = Component(unit.key)
    for path in unit.files:
        read_dockerfile(component, path, read_text(snapshot, path))
    return component


_PARSERS: dict[UnitKind, Callable[[Snapshot, Unit], Parsed]] = {
    "compose": _compose,
    "chart": _chart,
    "dockerfile": _component,
}


_CACHE_SIZE = 512
_CACHE: OrderedDict[tuple[object, ...], Parsed | str] = OrderedDict()


def _parse(snapshot: Snapshot, unit: Unit) -> Parsed:
    """The unit parsed, once per set of blob ids (a backfill reads each version twice)."""
    key = (unit.kind, unit.key, *((path, snapshot.blob_id(path)) for path in unit.files))
    found = _CACHE.get(key)
    if found is None:
        try:
            found = _PARSERS[unit.kind](snapshot, unit)
        except _ERRORS as exc:
            found = str(exc)
        _CACHE[key] = found
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    _CACHE.move_to_end(key)
    if isinstance(found, str):
        raise _Unreadable(f"{unit.files[0]} at {snapshot.ref}: {found}", unit.files[0])
    return found


def _diff(old: dict[str, Parsed], new: dict[str, Parsed]) -> list[Finding]:
    """The findings between the parsed units of one kind at both refs (keyed as in `_units`)."""
    findings: list[Finding] = []
    gone = {k: v for k, v in old.items() if k not in new}
    came = {k: v for k, v in new.items() if k not in old}
    for key in old.keys() & new.keys():
        before, after = old[key], new[key]
        if isinstance(before, ComposeFile) and isinstance(after, ComposeFile):
            findings += diff_compose(before, after)
        elif isinstance(before, Chart) and isinstance(after, Chart):
            findings += diff_chart(before, after)
    composes_gone = [v for v in gone.values() if isinstance(v, ComposeFile)]
    composes_came = [v for v in came.values() if isinstance(v, ComposeFile)]
    if len(composes_gone) == len(composes_came) == 1:
        before, after = composes_gone[0], composes_came[0]
        message = f"{before.path} moved to {after.path}; the two are compared"
        findings.append(DOCUMENT_MOVED.finding("deployment", message, after.path))
        findings += diff_compose(before, after)
    else:
        for compose in composes_gone:
            findings += removed_file(compose)
    charts_came = {v.name: v for v in came.values() if isinstance(v, Chart)}
    for chart in (v for v in gone.values() if isinstance(v, Chart)):
        heir = charts_came.get(chart.name)
        findings += diff_chart(chart, heir) if heir is not None else removed_chart(chart)
    return findings


def _unchanged(sides: list[tuple[Snapshot | None, Unit | None]]) -> bool:
    """True when a unit has the same files with the same bytes at both refs."""
    blobs = [
        [(f, snapshot.blob_id(f)) for f in unit.files]
        for snapshot, unit in sides
        if snapshot is not None and unit is not None
    ]
    return len(blobs) == 2 and blobs[0] == blobs[1]


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
    """Diff the deployment descriptors at `old` and at `new`."""
    deployment = settings.deployment
    if deployment.absent is not None:
        return declared_absent(
            SurfaceReport,
            "deployment",
            deployment.absent,
            new,
            DEFAULT_DEPLOYMENT_SOURCES,
            settings.origin,
        )
    patterns = deployment.sources
    tried = discovery.tried("deployment.sources", patterns)
    problems = (
        discovery.unmatched("deployment", "deployment.sources", patterns, new, settings.origin)
        if settings.explicitly_set("deployment", "sources")
        else []
    )
    new_paths = discovery.matched(new, patterns)
    old_paths = discovery.matched(old, patterns)
    for path in dict.fromkeys(p for p in [*new_paths, *old_paths] if descriptor_kind(p) is None):
        reason = f"{path}: not a compose file, Chart.yaml or Dockerfile by its name"
        problems.append(not_checked_finding("deployment", reason, path))
    before = _units(old, [p for p in old_paths if descriptor_kind(p)])
    after = _units(new, [p for p in new_paths if descriptor_kind(p)])
    coverage = Coverage.of(
        tried,
        {f: old.blob_id(f) for u in before.values() for f in u.files} if old else {},
        {f: new.blob_id(f) for u in after.values() for f in u.files},
    )
    if not new_paths and not old_paths:
        refs = f"{old.ref} or {new.ref}" if old is not None else new.ref
        reason = f"no deployment descriptor found at {refs}; tried {', '.join(tried)}"
        problems.append(not_checked_finding("deployment", reason))
    elif old is not None and old_paths and not new_paths:
        reason = f"deployment descriptors found at {old.ref} but none at {new.ref}"
        problems.append(not_checked_finding("deployment", reason))
    parsed: tuple[dict[UnitKind, dict[str, Parsed]], ...] = ({}, {})
    for key in sorted(before.keys() | after.keys()):
        sides = [(old, before.get(key)), (new, after.get(key))]
        if _unchanged(sides):
            continue
        try:  # a unit unreadable at either ref is compared at neither
            both = [(side, _parse(s, u)) for side, (s, u) in enumerate(sides) if s and u]
        except _Unreadable as exc:
            problems.append(not_checked_finding("deployment", exc.reason, exc.file))
            continue
        for side, found in both:
            parsed[side].setdefault(key[0], {})[key[1]] = found
    findings: list[Finding] = []
    if old is not None:
        for kind in ("compose", "chart"):
            findings += _diff(parsed[0].get(kind, {}), parsed[1].get(kind, {}))
        components = [
            {k: v for k, v in side.get("dockerfile", {}).items() if isinstance(v, Component)}
            for side in parsed
        ]
        findings += diff_components(*components)
    return SurfaceReport(
        surface="deployment",
        checked=not problems,
        reason=reason_of(problems),
        findings=sorted([*problems, *findings], key=Finding.sort_key),
        coverage=coverage,
    )
