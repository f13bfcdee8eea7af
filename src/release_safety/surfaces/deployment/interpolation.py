"""Variables in compose files and Dockerfiles: `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
`${VAR:?error}`, `${VAR:+alternative}`, `$VAR`, and `$$` for a literal dollar."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

_VARIABLE = re.compile(
    r"\$\$|\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)"
)


def interpolate(text: str, values: Mapping[str, str]) -> str:
    """`text` with every variable that has a value (in `values`, else its own default)
    filled in; the others are kept as written."""

    def fill(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match["braced"] or match["bare"]
        if match["op"] in ("-", ":-"):
            return values.get(name, match["arg"])
        return values.get(name, match.group(0))

    return _VARIABLE.sub(fill, text)


def needed(text: str, values: Mapping[str, str]) -> Iterator[str]:
    """The variables `text` needs set: no value in `values` and no default of its own."""
    for match in _VARIABLE.finditer(text):
        name = match["braced"] or match["bare"]
        if name and name not in values and match["op"] in (None, "?", ":?"):
            yield name
