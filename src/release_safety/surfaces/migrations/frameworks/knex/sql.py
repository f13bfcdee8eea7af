"""knex's SQL text: names quoted as knex's formatter quotes them, values inlined as its
PostgreSQL client escapes them, `knex.raw` fragments with their `?` / `??` bindings, and the
statements compiled from a migration (`Out`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from release_safety.surfaces.migrations.frameworks.knex.values import (
    UNDEFINED,
    Dynamic,
    js_str,
    known,
)


@dataclass
class Raw:
    """A raw SQL fragment: `knex.raw(sql, bindings)` or `knex.fn.now()`."""

    sql: str
    bindings: list[object] = field(default_factory=list)


@dataclass(frozen=True)
class Out:
    """One compiled statement (or a dynamic one) with the line of the call that produced it."""

    sql: str | None
    line: int
    reason: str | None = None


def wrap_identifier(name: str) -> str:
    name = name.strip()
    if name == "*":
        return name
    accessor = ""
    match = re.match(r"(.*?)(\[[0-9]+\])", name)
    if match:
        name, accessor = match.group(1), match.group(2)
    return '"' + name.replace('"', '""') + '"' + accessor


def wrap(value: object) -> str:
    """knex's formatter.wrap for a name: `a.b` -> `"a"."b"`, `x as y` -> `"x" as "y"`, raw kept."""
    value = known(value)
    if isinstance(value, Raw):
        return render_raw(value)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        if isinstance(value, int | float):
            return js_str(value)
        raise Dynamic(f"name {value!r} is not a string")
    if isinstance(value, int | float):
        return js_str(value)
    lowered = value.lower()
    alias = lowered.find(" as ")
    if alias != -1:
        return f"{wrap(value[:alias])} as {wrap_identifier(value[alias + 4 :])}"
    parts = value.split(".")
    return ".".join(wrap_identifier(p) for p in parts)


def columnize(value: object) -> str:
    value = known(value)
    if isinstance(value, list):
        return ", ".join(wrap(v) for v in value)
    return wrap(value)


def escape_literal(value: object) -> str:
    """knex pg `_escapeBinding`: a value inlined into SQL text."""
    value = known(value)
    if value is None or value is UNDEFINED:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_str(value)
    if isinstance(value, Raw):
        return render_raw(value)
    if isinstance(value, str):
        escaped = value.replace("'", "''")
        if "\\" in value:
            return "E'" + escaped.replace("\\", "\\\\") + "'"
        return "'" + escaped + "'"
    raise Dynamic(f"value {type(value).__name__} cannot be inlined statically")


def render_raw(raw: Raw, params: list[object] | None = None) -> str:
    """A raw fragment with its bindings: `??` an identifier, `?` a value.

    With `params` the values become `?` placeholders collected into it (the query's bindings,
    numbered `$n` when the statement is emitted); without, they are inlined as literals.
    """
    if not raw.bindings:
        return raw.sql
    values = list(raw.bindings)
    out: list[str] = []
    i = 0
    text = raw.sql
    while i < len(text):
        if text.startswith("\\?", i):
            out.append("\\?")
            i += 2
        elif text.startswith("??", i) and values:
            out.append(columnize(values.pop(0)))
            i += 2
        elif text[i] == "?" and values:
            value = values.pop(0)
            if params is None:
                out.append(escape_literal(value))
            elif isinstance(value, Raw):
                out.append(render_raw(value, params))
            else:
                params.append(value)
                out.append("?")
            i += 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def position_bindings(sql: str) -> str:
    """knex pg `positionBindings`: each `?` not escaped by a backslash becomes `$1`, `$2`, ..."""
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        escapes = match.group(1)
        if len(escapes) % 2:
            return escapes[:-1] + "?"
        count += 1
        return f"{escapes}${count}"

    return re.sub(r"(\\*)\?", number, sql)
