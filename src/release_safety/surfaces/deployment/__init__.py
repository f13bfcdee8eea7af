"""The deployment surface: what a release does to the services around the application, read
from the descriptors it ships (compose files, Helm charts, Dockerfiles) at both refs.

The files `[deployment] sources` names (by default compose files, `Chart.yaml` and Dockerfiles
where discovery looks) are read, but for those `[deployment] exclude` names and, for a glob,
developer-only ones (a name or folder saying dev, test, ci, e2e, local, example that the glob
does not name itself): those are left out and listed in the coverage, and a deployment declared
`absent` stays so when every descriptor found is left out. A file's kind is the one its source
says, else its name's, else its content's (a `FROM` line: a Dockerfile). The files are grouped
in units: a compose file with the `.env` beside it, a chart
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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from release_safety.common.yamltree import Tree as YamlTree
from release_safety.common.yamltree import YamlError, load_yaml
from release_safety.contract.reports import (
    Coverage,
    Finding,
    SurfaceReport,
    Unmodelled,
    gone_hint,
    not_checked_finding,
)
from release_safety.git.snapshot import Snapshot, read_text
from release_safety.settings.model import (
    DEVELOPER_WORDS,
    DeploymentSettings,
    DescriptorKind,
    Settings,
    compile_glob,
    is_glob,
)
from release_safety.surfaces import discovery
from release_safety.surfaces.config import dotenv
from release_safety.surfaces.config.reads import SourceError
from release_safety.surfaces.config.runtime import DOCKERFILE_NAME
from release_safety.surfaces.deployment import rules
from release_safety.surfaces.deployment.compose import (
    ComposeError,
    ComposeFile,
    diff_compose,
    parse_compose,
    removed_file,
    understood,
)
from release_safety.surfaces.deployment.dockerfile import (
    Component,
    DockerfileError,
    diff_components,
    is_dockerfile,
    read_dockerfile,
)
from release_safety.surfaces.deployment.helm import (
    Chart,
    ChartError,
    add_overlay,
    add_template,
    diff_chart,
    parse_chart,
    removed_chart,
)
from release_safety.surfaces.discovery import DOCUMENT_MOVED, absent_report, reason_of

__all__ = ["analyse", "descriptor_kind"]

UnitKind = Literal["compose", "chart", "dockerfile"]
_TEMPLATE = re.compile(r".+\.(?:ya?ml|tpl)")
_OVERLAY = re.compile(r"values[-.].+\.ya?ml")
_ERRORS = (ComposeError, ChartError, DockerfileError, SourceError)


_DECLARED: dict[DescriptorKind, UnitKind] = {
    "compose": "compose",
    "helm": "chart",
    "dockerfile": "dockerfile",
}
_WORD = re.compile(r"[-_.]")


def descriptor_kind(path: str) -> UnitKind | None:
    """`chart` for a `Chart.yaml`, `dockerfile` for Dockerfile names (`Dockerfile.prod`,
    `dockerfile`, `Dockerfile-alpine`, `app.Dockerfile`, `Containerfile`), `compose` for other
    YAML files; None for anything else."""
    name = posixpath.basename(path)
    if name == "Chart.yaml":
        return "chart"
    if DOCKERFILE_NAME.fullmatch(name):
        return "dockerfile"
    if name.endswith((".yml", ".yaml")):
        return "compose"
    return None


def developer_word(pattern: str, path: str) -> str | None:
    """The word of a folder or the name of `path` that makes it developer-only for the glob
    `pattern` (one the glob does not name itself); None for a plain path."""
    if not is_glob(pattern):
        return None
    named = {word for part in pattern.lower().split("/") for word in _WORD.split(part)}
    words = (word for part in path.lower().split("/") for word in _WORD.split(part))
    return next((w for w in words if w in DEVELOPER_WORDS and w not in named), None)


@dataclass
class Found:
    """The descriptors the sources name at one ref (path -> the kind its source says), and
    those left out (path -> why)."""

    paths: dict[str, UnitKind | None]
    left_out: dict[str, str]


def find(snapshot: Snapshot | None, deployment: DeploymentSettings) -> Found:
    """The descriptors at the snapshot, and those `exclude` or developer-only names leave out."""
    found = Found({}, {})
    if snapshot is None:
        return found
    excludes = [(glob, compile_glob(glob)) for glob in deployment.exclude]
    for source in deployment.sources:
        for path in discovery.matching(snapshot, source.path):
            if path in found.paths or path in found.left_out:
                continue
            glob = next((g for g, regex in excludes if regex.fullmatches(path)), None)
            word = developer_word(source.path, path)
            if glob is not None:
                found.left_out[path] = f"[deployment] exclude {glob!r} names it"
            elif word is not None:
                found.left_out[path] = (
                    f"developer-only: `{word}` in its path (glob {source.path!r})"
                )
            else:
                found.paths[path] = _DECLARED[source.kind] if source.kind else None
    return found


def _kinds(snapshot: Snapshot | None, found: Found) -> tuple[dict[str, UnitKind], list[str]]:
    """Each descriptor's kind (its source's, its name's, else a Dockerfile by content), and
    the paths of no kind."""
    kinds: dict[str, UnitKind] = {}
    unknown: list[str] = []
    for path, declared in found.paths.items():
        kind = declared or descriptor_kind(path)
        if kind is None and snapshot is not None and is_dockerfile(read_text(snapshot, path)):
            kind = "dockerfile"
        if kind is None:
            unknown.append(path)
        else:
            kinds[path] = kind
    return kinds, unknown


def _left_out(found: Found, origin: str) -> list[Unmodelled]:
    """The coverage's record of the descriptors left out, each with how to read it after all."""
    return [
        Unmodelled(
            file=path,
            what=f"{path} left out: {why}",
            way_out=f"if operators deploy with it, name it in {origin}: [deployment] sources "
            f'= ["{path}"]' + (" and take it out of `exclude`" if "exclude" in why else ""),
        )
        for path, why in sorted(found.left_out.items())
    ]


@dataclass(frozen=True)
class Unit:
    """Files read together: a compose file (and `.env`), a chart, a folder of Dockerfiles."""

    kind: UnitKind
    key: str
    files: tuple[str, ...]


def _units(
    snapshot: Snapshot | None, kinds: dict[str, UnitKind]
) -> dict[tuple[UnitKind, str], Unit]:
    if snapshot is None:
        return {}
    grouped: dict[tuple[UnitKind, str], list[str]] = {}
    for path, kind in sorted(kinds.items()):
        folder = posixpath.dirname(path)
        key = folder if kind == "dockerfile" else path
        grouped.setdefault((kind, key), []).append(path)
    everything = snapshot.paths() if any(k == "chart" for k, _ in grouped) else ()
    units: dict[tuple[UnitKind, str], Unit] = {}
    for (kind, key), files in grouped.items():
        folder = posixpath.dirname(files[0])
        prefix = f"{folder}/" if folder else ""
        if kind == "compose":
            if snapshot.blob_id(f"{prefix}.env") is not None:
                files.append(f"{prefix}.env")
            files += [p for p in _pulled_in(snapshot, key) if p not in files]
        elif kind == "chart":
            extra = [f"{prefix}{name}" for name in ("requirements.yaml", "values.yaml")]
            files += [p for p in extra if snapshot.blob_id(p) is not None]
            files += [
                p
                for p in everything
                if posixpath.dirname(p) == folder and _OVERLAY.fullmatch(posixpath.basename(p))
            ]
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
    """The YAML file at `path`; one that does not load is named itself (a chart's values.yaml,
    not its Chart.yaml)."""
    try:
        return load_yaml(read_text(snapshot, path))
    except YamlError as exc:
        raise _Unreadable(str(exc), path) from exc


def _reader(snapshot: Snapshot) -> Callable[[str], str | None]:
    def read(path: str) -> str | None:
        return read_text(snapshot, path) if snapshot.blob_id(path) is not None else None

    return read


def _compose(snapshot: Snapshot, unit: Unit) -> ComposeFile:
    path = unit.files[0]
    folder = posixpath.dirname(path)
    env = f"{folder}/.env" if folder else ".env"
    defaults: dict[str, str] = {}
    if env in unit.files:
        reads = dotenv.parse(read_text(snapshot, env))
        defaults.update({r.name: r.default for r in reads if r.default is not None})
    return parse_compose(path, _yaml(snapshot, path), defaults, _reader(snapshot))


Looked = tuple[tuple[str, str | None], ...]
_PULLED: OrderedDict[tuple[str, str | None], tuple[Looked, list[str]]] = OrderedDict()


def _pulled_in(snapshot: Snapshot, path: str) -> list[str]:
    """The files a compose file includes, extends or reads as `env_file` (none when it does not
    load: parsing it says why); kept per blob id while every file it looked for is the same
    (a backfill reads each version twice, and most compose files pull nothing in)."""
    key = (path, snapshot.blob_id(path))
    kept = _PULLED.get(key)
    if kept is not None and all(snapshot.blob_id(p) == blob for p, blob in kept[0]):
        _PULLED.move_to_end(key)
        return kept[1]
    looked: dict[str, str | None] = {}

    def read(wanted: str) -> str | None:
        looked[wanted] = snapshot.blob_id(wanted)
        return read_text(snapshot, wanted) if looked[wanted] is not None else None

    try:
        tree = load_yaml(read_text(snapshot, path))
        files = list(parse_compose(path, tree, {}, read).files)
    except (YamlError, ComposeError):
        files = []
    _PULLED[key] = (tuple(looked.items()), files)
    if len(_PULLED) > _CACHE_SIZE:
        _PULLED.popitem(last=False)
    return files


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
    for name, overlay in named.items():
        if _OVERLAY.fullmatch(name):
            add_overlay(chart, overlay, _yaml(snapshot, overlay))
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
_CACHE: OrderedDict[tuple[object, ...], Parsed | _Unreadable] = OrderedDict()


def _parse(snapshot: Snapshot, unit: Unit) -> Parsed:
    """The unit parsed, once per set of blob ids (a backfill reads each version twice)."""
    key = (unit.kind, unit.key, *((path, snapshot.blob_id(path)) for path in unit.files))
    found = _CACHE.get(key)
    if found is None:
        try:
            found = _PARSERS[unit.kind](snapshot, unit)
        except _Unreadable as exc:
            found = exc
        except _ERRORS as exc:
            found = _Unreadable(str(exc), unit.files[0])
        _CACHE[key] = found
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    _CACHE.move_to_end(key)
    if isinstance(found, _Unreadable):
        raise _Unreadable(f"{found.file} at {snapshot.ref}: {found.reason}", found.file)
    return found


def _diff(
    old: dict[str, Parsed], new: dict[str, Parsed], stateless: frozenset[str]
) -> list[Finding]:
    """The findings between the parsed units of one kind at both refs (keyed as in `_units`)."""
    findings: list[Finding] = []
    gone = {k: v for k, v in old.items() if k not in new}
    came = {k: v for k, v in new.items() if k not in old}
    for key in old.keys() & new.keys():
        before, after = old[key], new[key]
        if isinstance(before, ComposeFile) and isinstance(after, ComposeFile):
            findings += diff_compose(before, after, stateless)
        elif isinstance(before, Chart) and isinstance(after, Chart):
            findings += diff_chart(before, after)
    composes_gone = [v for v in gone.values() if isinstance(v, ComposeFile)]
    composes_came = [v for v in came.values() if isinstance(v, ComposeFile)]
    if len(composes_gone) == len(composes_came) == 1:
        before, after = composes_gone[0], composes_came[0]
        message = f"{before.path} moved to {after.path}; the two are compared"
        findings.append(DOCUMENT_MOVED.finding("deployment", message, after.path))
        findings += diff_compose(before, after, stateless)
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


def _stateful(
    new: Snapshot, units: dict[tuple[UnitKind, str], Unit], stateless: frozenset[str]
) -> tuple[dict[str, str], list[Unmodelled]]:
    """What the compose files at the new ref show of stateful components (`understood`)."""
    known: dict[str, str] = {}
    unmodelled: list[Unmodelled] = []
    for unit in (u for (kind, _), u in sorted(units.items()) if kind == "compose"):
        try:
            compose = _parse(new, unit)
        except _Unreadable:
            continue
        assert isinstance(compose, ComposeFile)
        names, gaps = understood(compose, stateless)
        known.update(names)
        unmodelled += gaps
    return known, unmodelled


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
    """Diff the deployment descriptors at `old` and at `new`."""
    deployment = settings.deployment
    origin = settings.origin
    tried = discovery.tried("deployment.sources", [s.path for s in deployment.sources])
    found_new = find(new, deployment)
    left_out = _left_out(found_new, origin)
    if deployment.absent is not None:
        report = absent_report(
            SurfaceReport,
            "deployment",
            deployment.absent,
            new,
            sorted(found_new.paths),
            tried,
            origin,
            settings.absent_line("deployment"),
            old,
            sorted(find(old, deployment).paths) if old is not new else [],
        )
        report.coverage.unmodelled = left_out
        return report
    problems = (
        discovery.unmatched(
            "deployment",
            "deployment.sources",
            [s.path for s in deployment.sources],
            new,
            origin,
            old,
        )
        if settings.explicitly_set("deployment", "sources")
        else []
    )
    found_old = find(old, deployment)
    kinds_new, unknown_new = _kinds(new, found_new)
    kinds_old, unknown_old = _kinds(old, found_old)
    for path in dict.fromkeys([*unknown_new, *unknown_old]):
        reason = (
            f"{path}: neither its name nor its content says compose file, Chart.yaml or Dockerfile"
        )
        hint = (
            f'Say its kind in {origin}: [[deployment.sources]] path = "{path}", kind = '
            f'"compose" (or "helm", "dockerfile"); or leave it out: [deployment] exclude = '
            f'["{path}"].'
        )
        problems.append(
            rules.DESCRIPTOR_KIND_UNKNOWN.finding("deployment", reason, path, None, hint)
        )
    before = _units(old, kinds_old)
    after = _units(new, kinds_new)
    coverage = Coverage.of(
        tried,
        {f: old.blob_id(f) for u in before.values() for f in u.files} if old else {},
        {f: new.blob_id(f) for u in after.values() for f in u.files},
    )
    if not found_new.paths and not found_old.paths:
        refs = f"{old.ref} or {new.ref}" if old is not None else new.ref
        reason = f"no deployment descriptor found at {refs}; tried {', '.join(tried)}"
        if found_new.left_out:
            reason += f"; left out {', '.join(sorted(found_new.left_out))}"
        problems.append(not_checked_finding("deployment", reason))
    elif old is not None and found_old.paths and not found_new.paths:
        reason = f"deployment descriptors found at {old.ref} but none at {new.ref}"
        hint = gone_hint("deployment", "the descriptors")
        problems.append(not_checked_finding("deployment", reason, hint=hint))
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
    stateless = frozenset(deployment.stateless)
    findings: list[Finding] = []
    if old is not None:
        for kind in ("compose", "chart"):
            findings += _diff(parsed[0].get(kind, {}), parsed[1].get(kind, {}), stateless)
        components = [
            {k: v for k, v in side.get("dockerfile", {}).items() if isinstance(v, Component)}
            for side in parsed
        ]
        findings += diff_components(*components)
    coverage.understood, unmodelled = _stateful(new, after, stateless)
    coverage.unmodelled = [*unmodelled, *left_out]
    return SurfaceReport(
        surface="deployment",
        checked=not problems,
        reason=reason_of(problems),
        findings=sorted([*problems, *findings], key=Finding.sort_key),
        coverage=coverage,
    )
