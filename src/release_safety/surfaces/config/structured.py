"""Structured config files (TOML, YAML, JSON): each leaf key is a setting (`database.port`),
or, with an environment prefix (from the settings or the code that loads the file, as figment's
`Env::prefixed("APP_")` or config-rs's `Environment::with_prefix("APP")` read it), the
variable `PREFIX` + the key path in upper case, joined by the separator (`APP_DATABASE__PORT`).

A file holds the defaults unless its name marks it as a template or an example
(`harbor.yml.tmpl`, `config.example.toml`), or the settings say otherwise; a file of examples
gives names only. Lists are values (a changed list is a changed default). Between two versions
of a file, `moves` pairs what was moved as it was (a subtree or a value under another key),
found with deepdiff.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from typing import Any

import yaml

from release_safety.common.yamlbound import YamlBoundError
from release_safety.common.yamlbound import check as check_bounds
from release_safety.surfaces.config.reads import EnvRead, SourceError

Path = tuple[str, ...]
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (several times faster)."""
TEMPLATE_SUFFIXES = (".tmpl", ".template", ".example", ".sample", ".dist", ".in")
KINDS = {".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".json": "json"}


def load(data: bytes, kind: str) -> Any:
    """The document (SourceError with the line where parsing failed); YAML within the bounds
    of `yamlbound`."""
    text = data.decode("utf-8", errors="replace")
    try:
        if kind == "toml":
            return tomllib.loads(text)
        if kind == "json":
            return json.loads(text)
        check_bounds(text)
        return yaml.load(text, Loader=_YAML_LOADER)
    except YamlBoundError as exc:
        raise SourceError(str(exc)) from exc
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"line (\d+)", str(exc))
        raise SourceError(f"not valid TOML: {exc}", int(where[1]) if where else 1) from exc
    except json.JSONDecodeError as exc:
        raise SourceError(f"not valid JSON: {exc.msg}", exc.lineno) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise SourceError(f"not valid YAML: {getattr(exc, 'problem', exc)}", line) from exc


def leaves(document: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every leaf key with its value (a list or an empty table is a value)."""
    if isinstance(document, dict) and document:
        for key, value in document.items():
            yield from leaves(value, (*path, str(key)))
    elif path:
        yield path, document


def shown(value: Any) -> str | None:
    """A value as a default string: strings as they are, others as JSON, null as none."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def name_of(path: Path, prefix: str | None, separator: str) -> str:
    """The setting's name: the key path, or the environment variable with a prefix."""
    return prefix + separator.join(path).upper() if prefix is not None else ".".join(path)


def parse(
    data: bytes, document: Any, defaults: bool, prefix: str | None, separator: str
) -> list[EnvRead]:
    """The settings a structured file (`data`, parsed into `document`) holds."""
    text = data.decode("utf-8", errors="replace").splitlines()
    return [
        EnvRead(
            name=name_of(path, prefix, separator),
            line=_line(text, path),
            default=shown(value) if defaults else None,
            site=".".join(path),
            listed=not defaults,
            key=prefix is None,
        )
        for path, value in leaves(document)
    ]


def _line(lines: list[str], path: Path) -> int:
    """The line where the key path is written (each key searched after its parent's line)."""
    start = 0
    for key in path:
        pattern = re.compile(
            rf"""^\s*(?:["']?{re.escape(key)}["']?\s*[:=]|\[\s*{re.escape(key)})"""
        )
        dotted = re.compile(rf"""(?:^|\.)\s*["']?{re.escape(key)}["']?\s*[:=]""")
        for number in range(start, len(lines)):
            if pattern.search(lines[number]) or dotted.search(lines[number]):
                start = number
                break
    return start + 1


def moves(old: Any, new: Any) -> dict[Path, Path]:
    """Leaf key paths that moved as they were, new -> old: a table or a value removed at one
    key and added, equal, at another (only when the pairing is one to one)."""
    from deepdiff import DeepDiff  # deferred: a tenth of a second, for changed documents only

    difference = DeepDiff(old, new, view="tree", threshold_to_diff_deeper=0)
    removed = _by_value(difference.get("dictionary_item_removed", []), "t1")
    added = _by_value(difference.get("dictionary_item_added", []), "t2")
    found: dict[Path, Path] = {}
    for value, sources in removed.items():
        targets = added.get(value, [])
        if len(sources) != 1 or len(targets) != 1:
            continue
        (before, subtree), (after, _) = sources[0], targets[0]
        for suffix, _ in leaves(subtree):
            found[after + suffix] = before + suffix
        if not isinstance(subtree, dict) or not subtree:
            found[after] = before
    return found


def _by_value(items: Any, side: str) -> dict[str, list[tuple[Path, Any]]]:
    grouped: dict[str, list[tuple[Path, Any]]] = {}
    for item in items:
        value = getattr(item, side)
        if value is None or value == "":
            continue
        path = tuple(str(part) for part in item.path(output_format="list"))
        if any(not isinstance(part, str) for part in item.path(output_format="list")):
            continue
        key = json.dumps(value, sort_keys=True, default=str)
        grouped.setdefault(key, []).append((path, value))
    return grouped
