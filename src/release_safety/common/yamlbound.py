"""The bounds every YAML reader of the tool applies before PyYAML builds anything (docs/bounds.md).

A document nested deeper than `jsonio.MAX_DEPTH` (libyaml's composer recurses on the C stack)
or whose aliases expand to more than `MAX_NODES` nodes (an alias bomb: every walk of the
values visits each expansion, and readers that copy them build each one) is refused from the
parser's events, which need no recursion and build nothing. OpenAPI documents, compose files,
Helm charts and values, structured config files and the evaluator's contract all go through
`check`.
"""

from __future__ import annotations

import yaml

from release_safety.common.jsonio import MAX_DEPTH

MAX_NODES = 1_000_000
"""Most nodes a YAML document may expand to through its aliases."""
TOO_DEEP = f"the document is nested deeper than {MAX_DEPTH} levels"
TOO_MANY = f"the document's aliases expand to more than {MAX_NODES:,} nodes (an alias bomb?)"

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlBoundError(ValueError):
    """The document is past a bound (`TOO_DEEP`, `TOO_MANY`); it is not read."""


def check(text: str) -> int | None:
    """Refuse `text` (YamlBoundError) when it is past a bound; a syntax error is left to the
    reader (`yaml.YAMLError` propagates unchanged, with its mark). Within the bounds: the nodes
    its aliases add when each is copied, or None when an alias names an anchor not complete
    before it (forward, undefined or recursive) or an anchor is defined twice (what a reader
    that copies aliases, such as rapidyaml, cannot be trusted with)."""
    try:
        return _count_events(text)
    except yaml.MarkedYAMLError as exc:
        # libyaml's scanner (PyYAML >= 6.0.4) has a nesting limit of its own, met first
        if "nesting depth" in (exc.problem or ""):
            raise YamlBoundError(TOO_DEEP) from exc
        raise


def _count_events(text: str) -> int | None:
    """Count the nodes the document expands to, an alias counting as its anchor's node does;
    the nodes aliases add (None: not every alias names one complete anchor before it)."""
    total = added = 0
    simple = True
    sizes: dict[str, int] = {}
    open_collections: list[tuple[str | None, int]] = []
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            size = sizes.get(event.anchor or "")
            simple = simple and size is not None
            total += size or 1
            added += (size or 1) - 1
        elif isinstance(event, yaml.ScalarEvent):
            total += 1
            if event.anchor:
                simple = simple and event.anchor not in sizes
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.CollectionStartEvent):
            total += 1
            open_collections.append((event.anchor, total - 1))
            if len(open_collections) > MAX_DEPTH + 1:
                raise YamlBoundError(TOO_DEEP)
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, start = open_collections.pop()
            if anchor:
                simple = simple and anchor not in sizes
                sizes[anchor] = total - start
        if total > MAX_NODES:
            raise YamlBoundError(TOO_MANY)
    return added if simple else None
