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

import re
from typing import Any

from release_safety.findings import Finding
from release_safety.surfaces.config.reads import EnvRead, Gap, Reading, SourceError
from release_safety.surfaces.jsonschema.build import SchemaBuilder
from release_safety.surfaces.jsonschema.delta import ACCEPTS_FEWER, ACCEPTS_MORE, CHANGED, Kind
from release_safety.surfaces.jsonschema.diff import SchemaDelta, SchemaDiffer
from release_safety.surfaces.jsonschema.issues import SpecError
from release_safety.surfaces.jsonschema.judge import Catalogue, DeltaRule, Neutral
from release_safety.surfaces.jsonschema.model import Schema

Path = tuple[str, ...]
SEPARATOR = "_"
"""What joins nested keys unless the settings or the code say otherwise (koanf, configx)."""
_UNMAPPED = ("patternProperties", "if", "then", "else", "dependentSchemas")
"""Keywords whose keys cannot be mapped to variables."""


def is_schema(document: Any) -> bool:
    """A document that is a JSON Schema of an object: `$schema`, or a top-level `type:
    object` with `properties`."""
    if not isinstance(document, dict):
        return False
    return "$schema" in document or (
        document.get("type") == "object" and isinstance(document.get("properties"), dict)
    )


def variable(path: Path, prefix: str, separator: str = SEPARATOR) -> str:
    """The variable a key path is read from: `("a", "b")`, `APP_`, `_` -> `APP_A_B`."""
    return prefix + separator.join(path).upper().replace("-", "_")


def build(document: Any) -> Schema:
    """The document as the engine's schema (SourceError when it is not a valid schema)."""
    try:
        return SchemaBuilder(document).schema(document)
    except SpecError as exc:
        raise SourceError(f"not a JSON Schema the tool can read: {exc}") from exc


def reads(data: bytes, document: Any, prefix: str, separator: str) -> Reading:
    """Every variable the schema defines, with the gaps where its keys cannot be mapped."""
    lines = data.decode("utf-8", errors="replace").splitlines()
    out: Reading = []
    _walk(build(document), (), True, lines, prefix, separator, out)
    return out


def _walk(
    schema: Schema,
    path: Path,
    required: bool,
    lines: list[str],
    prefix: str,
    separator: str,
    out: Reading,
) -> None:
    unmapped = [key for key in _UNMAPPED if key in schema.opaque]
    shapes = [b for b in (*schema.one_of, *schema.any_of) if b.properties]
    if path and (unmapped or shapes):
        what = ", ".join(f"`{k}`" for k in unmapped) or "`oneOf`/`anyOf` between object shapes"
        out.append(
            Gap(
                line_of(lines, path),
                f"the schema's key `{'.'.join(path)}` uses {what}: its variables cannot be named",
                f"Give `{'.'.join(path)}` fixed `properties`, or list its variables in "
                "`config.sources` by another source (an env example file).",
            )
        )
    if schema.properties and (schema.types is None or "object" in schema.types):
        for key, child in sorted(schema.properties.items()):
            inner = required and key in schema.required
            _walk(child, (*path, key), inner, lines, prefix, separator, out)
        return
    if not path:
        return
    out.append(
        EnvRead(
            name=variable(path, prefix, separator),
            line=line_of(lines, path),
            default=schema.default,
            required=required and schema.default is None,
            site=".".join(path),
            via="JSON Schema",
        )
    )


def line_of(lines: list[str], path: Path) -> int:
    """The line of a key path in the schema's text (each key searched after its parent's)."""
    start = 0
    for key in path:
        pattern = re.compile(rf"""^\s*["']?{re.escape(key)}["']?\s*:""")
        for number in range(start, len(lines)):
            if pattern.search(lines[number]):
                start = number
                break
    return start + 1


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
    changes: list[SchemaDelta], file: str, data: bytes, prefix: str, separator: str
) -> list[Finding]:
    """The config findings of the schema's deltas, at each key's line, naming its variable."""
    lines = data.decode("utf-8", errors="replace").splitlines()
    found = []
    for delta in changes:
        rule = CATALOGUE.judge(delta)
        if rule is None:
            continue
        keys = tuple(part for part in delta.path if not part.startswith("["))
        name = variable(keys, prefix, separator) if keys else "(the whole configuration)"
        line = line_of(lines, keys)
        hint = (
            f"Operators who set `{name}` (key `{delta.at or '.'}`) to a value the previous "
            f"release accepted ({delta.before!r}) are refused after the upgrade: keep "
            "accepting it for a release, or declare the break."
            if rule is NARROWED
            else f"No rule judges {delta.kind.value} at key `{delta.at}` (variable `{name}`): "
            "review it, then declare the break or accept it."
        )
        message = f"{rule.say(delta)} (variable `{name}`)"
        registered = CATALOGUE.registered[rule.id]
        found.append(registered.finding("config", message, file, line, hint=hint))
    return found
