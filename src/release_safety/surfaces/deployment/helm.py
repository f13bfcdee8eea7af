"""Helm charts: the chart's dependencies (`Chart.yaml`, or `requirements.yaml` of apiVersion
v1 charts), its values (`values.yaml` beside it), the images its values name (`image: x:1`,
or a mapping with `repository`, `registry`, `tag`, `digest`) and the literal images of its
templates; and what changed between two versions of a chart.

A values file beside `values.yaml` (`values-production.yaml`, `values.prod.yaml`; a chart's
`ci/*-values.yaml` are its tests, not read) is diffed like it, file by file: what it sets
removed or renamed, its strategies, and the images it sets, read with `values.yaml` under it.

A value is a leaf of `values.yaml` (a scalar, a list or an empty mapping). A value removed or
renamed is like an environment variable removed or renamed: operators' values files still set
it. Strategy values are those under a key named `strategy`, `updateStrategy`,
`deploymentStrategy` or `upgradeStrategy`, and `upgrade.mode` (docs/contract.md#verdict-rules,
rule 8).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import release_safety.surfaces.deployment.rules as rules
from release_safety.common.yamltree import Tree
from release_safety.contract.reports import Finding
from release_safety.surfaces.deployment.catalogue import version
from release_safety.surfaces.deployment.imageref import Image, parse_image
from release_safety.surfaces.deployment.stateful import Place, Seen, compare, image_seen

_TEMPLATE_IMAGE = re.compile(r"""^\s*-?\s*image:\s*["']?([^\s"'{}]+)["']?\s*(?:#.*)?$""")
_STRATEGY_KEYS = frozenset({"strategy", "updateStrategy", "deploymentStrategy", "upgradeStrategy"})
_RECREATE = frozenset({"Recreate", "OnDelete"})
ValuePath = tuple[str, ...]


class ChartError(Exception):
    """The chart cannot be read; the message says why."""


@dataclass(frozen=True)
class Dependency:
    name: str
    version: str
    file: str
    line: int


@dataclass(frozen=True)
class Located:
    """An image and where it is written."""

    image: Image
    file: str
    line: int


@dataclass
class Chart:
    """A chart at one ref, keyed across refs by its name."""

    path: str
    name: str
    dependencies: dict[str, Dependency] = field(default_factory=dict)
    values_path: str | None = None
    values: Tree = field(default_factory=lambda: Tree({}))
    images: dict[ValuePath, Located] = field(default_factory=dict)
    template_images: list[Located] = field(default_factory=list)
    overlays: dict[str, Overlay] = field(default_factory=dict)


@dataclass
class Overlay:
    """A values file beside `values.yaml` (`values-production.yaml`): its own values, and the
    images of the chart's values with it applied, where it sets them."""

    path: str
    values: Tree
    images: dict[ValuePath, Located]


def _dependencies(tree: Tree, file: str) -> dict[str, Dependency]:
    found: dict[str, Dependency] = {}
    entries = tree.data.get("dependencies") if isinstance(tree.data, dict) else None
    for i, entry in enumerate(entries or []):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            key = str(entry.get("alias") or entry["name"])
            text = str(entry.get("version") or "")
            found[key] = Dependency(entry["name"], text, file, tree.line("dependencies", i))
    return found


def _image_objects(value: Any, path: ValuePath) -> Iterator[tuple[ValuePath, str, ValuePath]]:
    """Every image a values document names: its key path, the reference it makes and the key
    path of the line that shows its version (its `tag` when it has one)."""
    if not isinstance(value, dict):
        return
    if isinstance(value.get("repository"), str):
        text = value["repository"]
        if isinstance(value.get("registry"), str) and value["registry"]:
            text = f"{value['registry']}/{text}"
        if value.get("tag"):
            text += f":{value['tag']}"
        if value.get("digest"):
            text += f"@{value['digest']}"
        yield path, text, (*path, "tag") if value.get("tag") else path
        return
    for key, item in value.items():
        if key == "image" and isinstance(item, str) and item:
            yield (*path, key), item, (*path, key)
        else:
            yield from _image_objects(item, (*path, key))


def _merged(base: Any, over: Any) -> Any:
    """`over` applied to `base` as Helm applies a values file: mappings merged key by key."""
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: _merged(base.get(k), v) for k, v in over.items()}}
    return over


def add_overlay(chart: Chart, path: str, tree: Tree) -> None:
    """Record a values file beside `values.yaml`; only images it sets are its own."""
    if not isinstance(tree.data, dict | None):
        raise ChartError(f"{path}: the values are not a mapping")
    own = Tree(tree.data or {}, tree.lines)
    merged = _merged(chart.values.data, own.data)
    images: dict[ValuePath, Located] = {}
    for where, text, shown in _image_objects(merged, ()):
        image = parse_image(text)
        sets = any(p[: len(where)] == where for p in own.lines if isinstance(p, tuple))
        if image is not None and sets:
            images[where] = Located(image, path, own.line(*shown))
    name = path.rsplit("/", 1)[-1]
    chart.overlays[name] = Overlay(path, own, images)


def parse_chart(
    path: str, chart: Tree, requirements: Tree | None, values_path: str | None, values: Tree | None
) -> Chart:
    """The chart whose `Chart.yaml` is at `path` (with its `requirements.yaml` and values)."""
    if not isinstance(chart.data, dict) or not isinstance(chart.data.get("name"), str):
        raise ChartError("not a Helm chart: no `name`")
    found = Chart(path, chart.data["name"], _dependencies(chart, path))
    if requirements is not None:
        found.dependencies.update(
            _dependencies(requirements, path.replace("Chart.yaml", "requirements.yaml"))
        )
    if values is not None and values_path is not None:
        if not isinstance(values.data, dict | None):
            raise ChartError(f"{values_path}: the values are not a mapping")
        found.values_path, found.values = values_path, Tree(values.data or {}, values.lines)
        for where, text, shown in _image_objects(found.values.data, ()):
            image = parse_image(text)
            if image is not None:
                found.images[where] = Located(image, values_path, values.line(*shown))
    return found


def add_template(chart: Chart, path: str, text: str) -> None:
    """Record the literal images (no template expression) of one template file."""
    for number, line in enumerate(text.splitlines(), start=1):
        match = _TEMPLATE_IMAGE.match(line)
        image = parse_image(match.group(1)) if match else None
        if image is not None:
            chart.template_images.append(Located(image, path, number))


def _leaves(value: Any, path: ValuePath = ()) -> Iterator[tuple[ValuePath, Any]]:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, (*path, str(key)))
    else:
        yield path, value


def _prefixes(paths: Iterator[ValuePath]) -> set[ValuePath]:
    return {path[:end] for path in paths for end in range(1, len(path) + 1)}


def _at(value: Any, path: ValuePath) -> Any:
    for key in path:
        value = value[key]
    return value


def _gone(before: Any, after: Any) -> list[ValuePath]:
    """The topmost value paths of `before` that `after` lacks."""
    present = _prefixes(path for path, _ in _leaves(after))
    roots: dict[ValuePath, None] = {}
    for path, _ in _leaves(before):
        if path and path not in present:
            top = next(path[:end] for end in range(1, len(path) + 1) if path[:end] not in present)
            roots.setdefault(top, None)
    return list(roots)


def _moved(value: Any, path: ValuePath, other: Any, other_path: ValuePath) -> bool:
    """True when a value gone from `path` is the one new at `other_path`: the same mapping, or
    the same scalar under the same key."""
    return value == other and (isinstance(value, dict) or path[-1] == other_path[-1])


def _dotted(path: ValuePath) -> str:
    return ".".join(path)


def _values(old: Chart, new: Chart) -> list[Finding]:
    findings: list[Finding] = []
    before, after = old.values.data, new.values.data
    added = _gone(after, before)
    for path in _gone(before, after):
        value = _at(before, path)
        twin = next((a for a in added if _moved(value, path, _at(after, a), a)), None)
        file = old.values_path or old.path
        if twin is not None:
            added.remove(twin)
            message = f"{new.name}: value `{_dotted(path)}` renamed to `{_dotted(twin)}`"
            where = new.values_path or new.path
            hint = (
                f"Read `{_dotted(twin)}` in the templates and fall back to `{_dotted(path)}` "
                f"(`default .Values.{_dotted(path)} .Values.{_dotted(twin)}`) for a release."
            )
            findings.append(
                rules.VALUE_RENAMED.finding(
                    "deployment", message, where, new.values.line(*twin), hint
                )
            )
        else:
            message = f"{new.name}: value `{_dotted(path)}` removed"
            hint = (
                f"Keep reading `{_dotted(path)}` in the templates for a release, so operators' "
                "values files still apply."
            )
            findings.append(
                rules.VALUE_REMOVED.finding(
                    "deployment", message, file, old.values.line(*path), hint
                )
            )
    old_leaves = dict(_leaves(before))
    for path, now in _leaves(after):
        strategy = _STRATEGY_KEYS.intersection(path) or path[-2:] == ("upgrade", "mode")
        if not strategy or path not in old_leaves or old_leaves[path] == now:
            continue
        was = old_leaves[path]
        rule = (
            rules.STRATEGY_RECREATE
            if now in _RECREATE and was not in _RECREATE
            else rules.STRATEGY_CHANGED
        )
        message = f"{new.name}: value `{_dotted(path)}` {was!r} -> {now!r}"
        where = new.values_path or new.path
        hint = (
            f"Keep `{_dotted(path)}: {was}` for this release, or declare the switch to {now!r} "
            "with a required stop (`release-safety: breaking(required-stop) <reason>`)."
            if rule is rules.STRATEGY_RECREATE
            else f"Say in the release notes why `{_dotted(path)}` is now {now!r}."
        )
        findings.append(rule.finding("deployment", message, where, new.values.line(*path), hint))
    return findings


def _dependency_changes(old: Chart, new: Chart) -> list[Finding]:
    findings: list[Finding] = []
    for key, was in old.dependencies.items():
        now = new.dependencies.get(key)
        if now is None:
            message = f"{new.name}: dependency `{key}` ({was.name} {was.version}) removed"
            hint = (
                f"Keep dependency `{key}` ({was.name}) for a release, or move what it holds in a "
                "documented required stop."
            )
            findings.append(
                rules.DEPENDENCY_REMOVED.finding("deployment", message, was.file, was.line, hint)
            )
            continue
        if now.version == was.version:
            continue
        first, second = version(was.version.lstrip("^~>=< ")), version(now.version.lstrip("^~>=< "))
        change = f"{new.name}: dependency `{key}` ({now.name}) {was.version} -> {now.version}"
        if first is None or second is None:
            message = (
                f"{change}: the version cannot be read, so a major upgrade cannot be ruled out"
            )
            hint = (
                f"Write dependency `{key}` at {now.file}:{now.line} as a version or range whose "
                "major can be read (`1.2.3`, `^1.2.3`, `~1.2`); if the change is a major "
                "upgrade, declare the break."
            )
            findings.append(
                rules.VERSION_UNREADABLE.finding("deployment", message, now.file, now.line, hint)
            )
        elif first[0] != second[0]:
            findings.append(
                rules.DEPENDENCY_MAJOR.finding(
                    "deployment",
                    change,
                    now.file,
                    now.line,
                    f"Upgrade `{key}` to {now.version} in a release of its own, with "
                    f"{now.name}'s upgrade notes and the Recreate strategy.",
                )
            )
    return findings


def _seen(located: Located) -> list[Seen]:
    return image_seen(located.image, "image", located.file, located.line)


def _images(
    label: str, old: dict[ValuePath, Located], new: dict[ValuePath, Located]
) -> list[Finding]:
    findings: list[Finding] = []
    for where, located in new.items():
        before = old.get(where)
        if before is not None:
            name = f"{label} value `{_dotted(where)}`"
            place = Place(name, located.file, located.line, f"image {located.image.text}")
            findings += compare(place, _seen(before), _seen(located))
    return findings


def _overlays(old: Chart, new: Chart) -> list[Finding]:
    """Each values file beside `values.yaml` diffed like it: what it sets, the images it sets."""
    findings: list[Finding] = []
    for name, was in old.overlays.items():
        label = f"{new.name} ({name})"
        now = new.overlays.get(name)
        if now is None:
            message = f"{label}: the values file {was.path} removed"
            hint = (
                f"Keep {was.path} for a release: operators install with `-f {name}`, and what it "
                "set (persistence, images) falls back to the chart's defaults."
            )
            findings.append(rules.VALUE_REMOVED.finding("deployment", message, was.path, 1, hint))
            continue
        before = Chart(old.path, label, values_path=was.path, values=was.values)
        after = Chart(new.path, label, values_path=now.path, values=now.values)
        findings += _values(before, after) + _images(label, was.images, now.images)
    return findings


def diff_chart(old: Chart, new: Chart) -> list[Finding]:
    """What changed between two versions of a chart."""
    findings = _dependency_changes(old, new) + _values(old, new) + _overlays(old, new)
    findings += _images(new.name, old.images, new.images)
    old_seen = [s for located in old.template_images for s in _seen(located)]
    new_seen = [s for located in new.template_images for s in _seen(located)]
    place = Place(f"{new.name} templates", new.path, 1, None)
    return findings + compare(place, old_seen, new_seen)


def removed_chart(old: Chart) -> list[Finding]:
    message = f"chart `{old.name}` ({old.path}) removed"
    hint = (
        f"Keep chart `{old.name}` for a release, or declare its removal with a required stop "
        "that says where operators install from now."
    )
    return [rules.CHART_REMOVED.finding("deployment", message, old.path, 1, hint)]
