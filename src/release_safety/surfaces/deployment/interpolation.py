"""Variables in compose files and Dockerfiles: `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
`${VAR:?error}`, `${VAR:+alternative}`, `$VAR`, and `$$` for a literal dollar, found by
`common.shellvars`. A default may itself hold variables (`${PG_TAG:-${PG_MAJOR:-15}}`), as
compose reads it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from release_safety.common.shellvars import scan


def interpolate(text: str, values: Mapping[str, str]) -> str:
    """`text` with every variable that has a value (in `values`, else its own default, itself
    interpolated) filled in; the others are kept as written."""
    out: list[str] = []
    last = 0
    for found in scan(text):
        if isinstance(found, int):
            out += [text[last:found], "$"]
            last = found + 2
            continue
        out.append(text[last : found.start])
        last = found.end
        value = values.get(found.name)
        unset = value is None or (value == "" and found.op in (":-", ":=", ":+"))
        if (found.op in ("-", ":-", "=", ":=") and unset) or (
            found.op in ("+", ":+") and not unset
        ):
            out.append(interpolate(found.arg, values))
        elif found.op in ("+", ":+"):
            out.append("" if value is not None else text[found.start : found.end])
        else:
            out.append(value if value is not None else text[found.start : found.end])
    out.append(text[last:])
    return "".join(out)


def needed(text: str, values: Mapping[str, str]) -> Iterator[str]:
    """The variables `text` needs set: no value in `values` and no default of its own (those
    a default holds are needed when the default is used)."""
    for found in scan(text):
        if isinstance(found, int):
            continue
        if found.name in values:
            continue
        if found.op in (None, "?", ":?"):
            yield found.name
        elif found.op in ("-", ":-", "=", ":="):
            yield from needed(found.arg, values)
