"""A JSON Schema as the definition of a service's configuration (koanf, ory/x configx).

Each key is a variable named by the service's rule (`variable`: prefix, separator, upper case,
`a.b.c` -> `PREFIX_A_B_C`); nested objects recurse (`$ref`/`$defs` resolved by the project's
JSON-Schema engine), arrays and `additionalProperties` maps are one variable at their key. A
key's `default` is its default; a key required with no default is a required variable. What
the keys may hold is diffed as a contract (`deltas`): values operators set are inputs, so a
schema that accepts fewer values (an enum value removed, a bound tightened, a pattern or a
format added, a type narrowed) breaks a deployment, one that accepts more does not, and a
change the config catalogue does not judge is unknown. Keys removed, defaults changed and
required keys are judged as variables, by the surface's diff. `patternProperties`,
conditionals (`if`/`then`) and `oneOf`/`anyOf` between object shapes are gaps.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import takewhile
from typing import Any

from release_safety.common.yamltree import YamlError, load_yaml
from release_safety.contract.reports import Finding
from release_safety.surfaces.config.reads import EnvRead, Gap, Reading, SourceError
from release_safety.surfaces.config.structured import shown
from release_safety.surfaces.declarations.jsonpos import KeyPath, key_lines
from release_safety.surfaces.jsonschema.build import (
    SchemaBuilder,
    missing,
    pointer_parts,
    resolve,
)
from release_safety.surfaces.jsonschema.delta import ACCEPTS_FEWER, ACCEPTS_MORE, CHANGED, Kind
from release_safety.surfaces.jsonschema.diff import SchemaDelta, SchemaDiffer
from release_safety.surfaces.jsonschema.issues import SpecError
from release_safety.surfaces.jsonschema.judge import NOT_JUDGED, Catalogue, DeltaRule, Neutral
from release_safety.surfaces.jsonschema.model import Schema

Path = tuple[str, ...]
SEPARATOR = "_"
"""What joins nested keys unless the settings or the code say otherwise (koanf, configx)."""
_UNMAPPED = ("patternProperties", "if", "then", "else", "dependentSchemas")
"""Keywords whose keys cannot be mapped to variables."""


def is_schema(document: Any) -> bool:
    """A document that is a JSON Schema of an object: `$schema` beside schema keywords (a
    data file that names its own schema, `{"$schema": ..., "port": 80}`, stays data), or a
    top-level `type: object` with `properties`."""
    if not isinstance(document, dict) or not isinstance(document.get("properties"), dict):
        return False
    return "$schema" in document or document.get("type") == "object"


def variable(path: Path, prefix: str, separator: str = SEPARATOR) -> str:
    """The variable a key path is read from: `("a", "b")`, `APP_`, `_` -> `APP_A_B`."""
    return prefix + separator.join(path).upper().replace("-", "_")


class _Builder(SchemaBuilder):
    """The engine's builder; a `$ref` to another document (`ory://tracing-config`, a file) is
    any value here, and `Places` reports the key it hangs at as a gap."""

    def lookup(self, ref: str) -> Any:
        if ref.partition("#")[0]:
            return {}
        return super().lookup(ref)


def build(document: Any) -> Schema:
    """The document as the engine's schema (SourceError when it is not a valid schema)."""
    try:
        return _Builder(document).schema(document)
    except SpecError as exc:
        raise SourceError(f"not a JSON Schema the tool can read: {exc}") from exc


def reads(data: bytes, document: Any, prefix: str, separator: str) -> Reading:
    """Every variable the schema defines, with the gaps where its keys cannot be mapped."""
    places = Places(data, document)
    out: Reading = []
    _Walk(places, prefix, separator, out)(build(document), (), True, frozenset())
    for path, ref in sorted(places.external.items()):
        key = ".".join(path) or "(the root)"
        out.append(
            Gap(
                places.line(path),
                f"the schema's key `{key}` is defined in another document (`$ref: {ref}`): "
                "the variables under it and what they accept are not read",
                f"Vendor the document `{ref}` resolves to into the repository (its `$id` is "
                f"`{ref}`) and name it in `config.sources`: it is then read as part of this "
                f"schema, its keys as `{variable(path, prefix, separator)}_...`; or review its "
                "changes by hand before declaring the release safe.",
            )
        )
    return out


def _digest(value: Any) -> str:
    """A digest of a part of a schema, the same for the same part at both refs."""
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Walk:
    """The walk of a built schema into `out`."""

    places: Places
    prefix: str
    separator: str
    out: Reading

    def __call__(self, schema: Schema, path: Path, required: bool, seen: frozenset[int]) -> None:
        """The variables under `schema` at `path` (`seen`: the schemas above, so a recursive
        one is one variable at its key)."""
        key = ".".join(path) or "(the root)"
        unmapped = [word for word in _UNMAPPED if word in schema.opaque]
        shapes = [b for b in (*schema.one_of, *schema.any_of) if b.properties]
        if unmapped or shapes:
            what = ", ".join(f"`{w}`" for w in unmapped) or "`oneOf`/`anyOf` between object shapes"
            subject = None if shapes else _digest({w: schema.opaque[w] for w in unmapped})
            self.out.append(
                Gap(
                    self.places.line(path),
                    f"the schema's key `{key}` uses {what}: its variables cannot be named",
                    f"Give `{key}` fixed `properties`, or list its variables in "
                    "`config.sources` by another source (an env example file); while "
                    f"{what} stays as it is, a release that does not change it is judged.",
                    subject=subject,
                )
            )
        objects = schema.types is None or "object" in schema.types
        if schema.properties and objects and id(schema) not in seen:
            inner = seen | {id(schema)}
            for name, child in sorted(schema.properties.items()):
                self(child, (*path, name), required and name in schema.required, inner)
            return
        if not path:
            return
        default = None if schema.default is None else shown(json.loads(schema.default))
        self.out.append(
            EnvRead(
                name=variable(path, self.prefix, self.separator),
                line=self.places.line(path),
                default=default,
                required=required and default is None,
                site=key,
                via="JSON Schema",
            )
        )


class Places:
    """The line of each config key in the schema's text: its key under `properties`, followed
    through local `$ref`s and `allOf`/`anyOf`/`oneOf` (JSON or YAML positions)."""

    def __init__(self, data: bytes, document: Any) -> None:
        text = data.decode("utf-8", errors="replace")
        try:
            written = key_lines(text) if text.lstrip().startswith("{") else load_yaml(text).lines
        except YamlError:
            written = {}
        self.lines: dict[Path, int] = {}
        self.external: dict[Path, str] = {}
        """Key paths whose schema is a `$ref` to another document, with the reference."""
        self._walk(document, document, (), (), written, frozenset())

    def _walk(
        self,
        root: Any,
        node: Any,
        raw: KeyPath,
        path: Path,
        written: Mapping[KeyPath, int],
        chain: frozenset[str],
    ) -> None:
        """Through `node` (`chain`: the `$ref`s followed to reach it, never followed twice)."""
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            self.external.setdefault(path, ref)
        elif isinstance(ref, str) and ref not in chain:
            target = resolve(root, ref)
            if not missing(target):
                self._walk(root, target, pointer_parts(ref), path, written, chain | {ref})
        properties = node.get("properties")
        for key, child in properties.items() if isinstance(properties, dict) else ():
            where = (*raw, "properties", key)
            if where in written:
                self.lines.setdefault((*path, key), written[where])
            self._walk(root, child, where, (*path, key), written, chain)
        for keyword in ("allOf", "anyOf", "oneOf"):
            branches = node.get(keyword)
            for index, branch in enumerate(branches if isinstance(branches, list) else ()):
                self._walk(root, branch, (*raw, keyword, index), path, written, chain)

    def line(self, path: Path) -> int:
        """The line of the key path, else of its nearest written parent (1 for none)."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.lines:
                return self.lines[path[:end]]
        return 1


NARROWED = DeltaRule(
    "config-constraint-narrowed",
    "breaking",
    "request",
    (*ACCEPTS_FEWER, *CHANGED),
    "A config key accepts fewer values",
    "Deployments set the key to values the previous release accepted; a narrower schema "
    "refuses them at start-up.",
    "`log.level` loses the enum value `trace`; `port.maximum` drops from 65535 to 1024; "
    "`dsn` gains `format: uri`.",
    "Keep accepting the old values for a release (deprecate them), or declare the break.",
    lambda d: (
        f"config key `{d.at}` accepts fewer values: {d.kind.value} ({d.before!r} -> {d.after!r})"
    ),
    when=lambda d: d.kind is not Kind.PROPERTY_BECAME_REQUIRED,
)
_AS_VARIABLES = (
    Kind.PROPERTY_REMOVED,
    Kind.DEFAULT_CHANGED,
    Kind.PROPERTY_BECAME_REQUIRED,
)
"""Kinds the variable diff judges, where a key is a variable."""
CATALOGUE = Catalogue(
    "config",
    [NARROWED],
    [
        Neutral(
            "request",
            (Kind.PROPERTY_ADDED, Kind.PROPERTY_REMOVED, Kind.DEFAULT_CHANGED),
            "Judged as variables: a key removed, added or with a new default is a variable's "
            "change (`config-var-removed`, `config-default-changed`, ...).",
        ),
        Neutral(
            "request",
            (Kind.PROPERTY_BECAME_REQUIRED,),
            "Judged as variables: `config-var-became-required` when the key has no default.",
        ),
        Neutral("request", ACCEPTS_MORE, "A key that accepts more still accepts what is set."),
        Neutral("request", (Kind.PROPERTY_DEPRECATED,), "A deprecation changes no value."),
    ],
)


def deltas(old: Schema, new: Schema, place: str) -> list[SchemaDelta]:
    """What changed in what the keys may hold (a SourceError when the diff gives up)."""
    try:
        return SchemaDiffer().compare(old, new, "request", place)
    except SpecError as exc:
        raise SourceError(f"the schemas cannot be compared: {exc}") from exc


def findings(
    changes: list[SchemaDelta],
    file: str,
    places: Places,
    schema: Schema,
    prefix: str,
    separator: str,
) -> list[Finding]:
    """The config findings of the schema's deltas (`schema`: the new one), at each key's line,
    naming its variable (a change inside a named schema is placed at the first key using it;
    inside an array or a map, at the array's or the map's key)."""
    reached = _origins(schema)
    found: list[Finding] = []
    for delta in changes:
        base, contained = reached.get(delta.origin or "", ((), False))
        inner = tuple(takewhile(lambda part: not part.startswith("[") and part != "*", delta.path))
        rule = CATALOGUE.judge(delta)
        if (contained or len(inner) < len(delta.path)) and delta.kind in _AS_VARIABLES:
            # inside an array or a map, one variable: no variable diff judges its parts
            rule = NARROWED if delta.kind is Kind.PROPERTY_BECAME_REQUIRED else NOT_JUDGED
        if rule is None:
            continue
        keys = base if contained else (*base, *inner)
        key = ".".join(keys) or "(the root)"
        name = variable(keys, prefix, separator) if keys else "(every variable)"
        if delta.origin is not None and delta.origin not in reached:
            keys, key, name = (), f"{delta.origin} {delta.at}".strip(), "(no variable)"
        change = f"{delta.kind.value} ({_show(delta.before)} -> {_show(delta.after)})"
        if rule is NARROWED:
            message = f"config key `{key}` (variable `{name}`) accepts fewer values: {change}"
            hint = (
                f"Deployments that set `{name}` (key `{key}`) to a value the previous release "
                "accepted are refused after the upgrade: keep accepting it for a release "
                "(deprecate it), or declare the break."
            )
        else:
            message = f"config key `{key}` (variable `{name}`): {change} is judged by no rule"
            hint = (
                f"Review what `{change}` does to the values `{name}` (key `{key}`) accepts, "
                "then declare the break or accept it in the release's settings."
            )
        registered = CATALOGUE.registered[rule.id]
        made = registered.finding("config", message, file, places.line(keys), hint=hint)
        if made not in found:  # a named schema's change, met at each place that uses it
            found.append(made)
    return found


def _show(value: Any) -> str:
    return "none" if value is None else str(value)


def _origins(schema: Schema) -> dict[str, tuple[Path, bool]]:
    """The first key path (breadth first) that reaches each named schema, and whether it goes
    through an array's items or a map's values (then the path ends at that key)."""
    reached: dict[str, tuple[Path, bool]] = {}
    queue: deque[tuple[Schema, Path, bool]] = deque([(schema, (), False)])
    seen: set[int] = set()
    while queue:
        node, path, contained = queue.popleft()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.origin is not None:
            reached.setdefault(node.origin, (path, contained))
        for key, child in sorted(node.properties.items()):
            queue.append((child, path if contained else (*path, key), contained))
        queue.extend((part, path, contained) for part in (*node.one_of, *node.any_of))
        inside = (*node.prefix_items, node.items, node.additional)
        queue.extend((part, path, True) for part in inside if isinstance(part, Schema))
    return reached
