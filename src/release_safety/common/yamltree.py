"""YAML documents as plain values with the line of every key and item (compose files, Helm
values and chart files).

Scalars stay the text written (`15.10` is not the float 15.1, `yes` is not true), plain nulls
(`~`, `null`, nothing) are None; merge keys (`<<: *defaults`) are applied as compose and Helm
apply them: the mapping's own keys win. Nesting and alias expansion are bounded
(`yamlbound.check`): an alias bomb is refused before it is expanded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from release_safety.common.yamlbound import YamlBoundError
from release_safety.common.yamlbound import check as check_bounds

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
Path = tuple[str | int, ...]


class YamlError(Exception):
    """The text is not one YAML document; the message says where and why."""


@dataclass
class Tree:
    """A document's values and the 1-based line of each key path."""

    data: Any
    lines: dict[Path, int] = field(default_factory=dict)

    def line(self, *path: str | int) -> int:
        """The line of the longest prefix of `path` that has one (1 when none has)."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.lines:
                return self.lines[path[:end]]
        return 1


def load_yaml(text: str) -> Tree:
    """The YAML document in `text` (an empty document is None)."""
    try:
        check_bounds(text)
        node = yaml.compose(text, Loader=_Loader)
    except YamlBoundError as exc:
        raise YamlError(str(exc)) from exc
    except yaml.YAMLError as exc:
        raise YamlError(f"not valid YAML: {_first_line(exc)}") from exc
    tree = Tree(None)
    if node is not None:
        tree.data = _value(node, (), tree.lines)
    return tree


def _first_line(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1})" if mark is not None else ""
    return f"{getattr(exc, 'problem', None) or exc}{where}"


def _value(node: yaml.Node, path: Path, lines: dict[Path, int]) -> Any:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.ScalarNode):
        plain = not node.style
        return None if plain and node.value in _NULLS else str(node.value)
    if isinstance(node, yaml.SequenceNode):
        return [_value(item, (*path, i), lines) for i, item in enumerate(node.value)]
    assert isinstance(node, yaml.MappingNode)
    merged: dict[str, Any] = {}
    own: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        if key == "<<" and key_node.tag.endswith(":merge"):
            sources = (
                value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            )
            for source in sources:
                value = _value(source, path, lines)
                if isinstance(value, dict):
                    merged = {**value, **merged}
            continue
        lines[(*path, key)] = key_node.start_mark.line + 1
        own[key] = _value(value_node, (*path, key), lines)
    return {**merged, **own}
