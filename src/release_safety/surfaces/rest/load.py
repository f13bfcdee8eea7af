"""Read an OpenAPI document: JSON or YAML (YAML 1.2 core scalars, timestamps kept as strings),
the YAML through rapidyaml where it can: 8x faster than PyYAML's C loader on the dataset's
2.9 MB spec (bench/bench_libraries.py), so both libraries are kept.

YAML goes through rapidyaml (C++) when the text holds none of the constructs its JSON emitter
renders differently from the YAML 1.2 core schema (tags, `~`, `True`, octal and hex
numbers, `.inf` ...); otherwise, or when it fails, through PyYAML (its C loader when present)
with the same core-schema resolvers, so both paths give the same values for the same text
(a test checks it on the real dataset). A text rapidyaml refuses is tried once more with its
multi-line single-quoted scalars' continuation lines indented past their key (`deepen`:
PyYAML accepts them at the key's indent, rapidyaml does not; harbor's swagger has them).
One known deviation: the bare words `inf`, `infinity` and `nan` are quoted before rapidyaml
reads them (it would turn them into infinities), so a block-scalar line that is exactly
`- inf` reads `- "inf"`; descriptions are never compared.

Bounds (docs/bounds.md): nesting and alias expansion are bounded by `yamlbound.check` before
PyYAML builds anything. A document with aliases reaches rapidyaml, which copies what they name,
only after that check, and only when each alias names an anchor complete before it, defined
once, the copies add at most `_COPIED_NODES` nodes and no `<<` merge key is written (rapidyaml
merges, the core schema does not); otherwise PyYAML reads it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import yaml

from release_safety.common.jsonio import MAX_DEPTH, deeper_than
from release_safety.common.yamlbound import TOO_DEEP, YamlBoundError
from release_safety.common.yamlbound import check as check_bounds
from release_safety.surfaces.jsonschema.issues import SpecError as SpecError
from release_safety.surfaces.rest.deepen import deepen_quoted
from release_safety.surfaces.rest.swagger import convert_swagger

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CoreLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """PyYAML with the YAML 1.2 core schema: no timestamps, no yes/no booleans, no octal 012."""


_CoreLoader.yaml_implicit_resolvers = {}
for _tag, _regex, _first in (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("null", r"^(?:~|null|Null|NULL|)$", "~nN\0"),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
):
    _CoreLoader.add_implicit_resolver(
        f"tag:yaml.org,2002:{_tag}", re.compile(_regex), list(_first) if _first else None
    )
_CoreLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^$"), [""])


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    value = str(loader.construct_scalar(node))
    if value.startswith("0o"):
        return int(value[2:], 8)
    if value.startswith("0x"):
        return int(value[2:], 16)
    return int(value, 10)


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    value = str(loader.construct_scalar(node)).lower()
    if value.endswith(".inf"):
        return float("-inf") if value.startswith("-") else float("inf")
    if value == ".nan":
        return float("nan")
    return float(value)


_CoreLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_CoreLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)

# Plain scalars the rapidyaml JSON emitter renders unlike the YAML 1.2 core schema, found in one
# pass that starts with a character class (fast; a lookahead of the words' first characters then
# rejects most places at once): tags, `.inf`, `012`, `0x1F` send the document to PyYAML; the
# words `inf`, `infinity`, `nan` (strings in the core schema, infinities to rapidyaml) are quoted
# first; `True`, `FALSE`, `~`, `Null` (strings to rapidyaml) become placeholders put back as
# JSON literals after the parse (`_LITERALS`).
_SCALAR = re.compile(
    r"[:,\[{-] *(?=[-!~TFNin.+0])"
    r"(?:(!)|(?:(-?(?:infinity|inf|nan))|(True|TRUE)|(False|FALSE)|(~|Null|NULL)"
    r"|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)|[-+]?0[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)"
    r"(?=[ \t]*(?:$|[,\]}#])))",
    re.MULTILINE,
)
_LITERALS = {3: "true", 4: "false", 5: "null"}
"""`_SCALAR`'s group -> the JSON literal its core-schema word stands for."""
_PLACEHOLDER = "rs-literal-b1f0c9-"
"""A placeholder's prefix (then the literal): a plain word rapidyaml keeps as written."""
_COMPLEX = re.compile(r"\n[ \t]*\?[ \t]|\n%")


@cache
def _rapidyaml() -> Any:
    """rapidyaml, imported for the first YAML text (a JSON document never needs it), or None."""
    try:
        import ryml  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - rapidyaml is a declared dependency
        return None
    return ryml


def _fast_text(text: str) -> str | None:
    """The text rapidyaml may read (infinity words quoted), or None when PyYAML must."""
    if text.startswith(("%", "? ")) or _COMPLEX.search(text):
        return None
    words: list[tuple[int, int, str]] = []
    for match in _SCALAR.finditer(text):
        start = match.start()
        if text[start] in ":,-" and text[start + 1 : start + 2] != " ":
            continue  # `gpt-4-0613`, `1,000`: inside a word, not a value
        group = match.lastindex or 0
        if group == 2:
            words.append((*match.span(2), f'"{match[2]}"'))
        elif group in _LITERALS and _PLACEHOLDER not in text:
            words.append((*match.span(group), _PLACEHOLDER + _LITERALS[group]))
        else:
            return None
    if not words:
        return text
    pieces, last = [], 0
    for begin, end, word in words:
        pieces += [text[last:begin], word]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


@dataclass
class Document:
    """A loaded OpenAPI document in OpenAPI 3 shape, with its source text for line lookups."""

    root: dict[str, Any]
    version: str
    text: str
    # the key paths of the text's nested mappings down to the depth lines are kept for, in
    # document order (None: unknown), which lets the lines be read from the shallow lines only
    outline: tuple[tuple[str, ...], ...] | None = field(default=None, repr=False)
    _lines: dict[tuple[str, ...], int] | None = field(default=None, repr=False)

    def line_of(self, *keys: str) -> int:
        """1-based line of a mapping key path such as ("paths", "/pets", "get"), else 1."""
        if self.version == "2.0" and keys[:2] == ("components", "schemas"):
            keys = ("definitions", *keys[2:])
        if self._lines is None:
            self._lines = _key_lines(self.text, _LINE_DEPTH, self.outline)
        return self._lines.get(keys[:3], self._lines.get(keys[:2], 1))


_LINE_DEPTH = 3  # lines are kept for the keys of the first three levels


def outline(root: dict[str, Any], depth: int = _LINE_DEPTH) -> tuple[tuple[str, ...], ...]:
    """The key paths of nested mappings down to `depth` levels, in document order (what the
    lines of the keys must cover)."""
    found: list[tuple[str, ...]] = []

    def walk(node: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, value in node.items():
            found.append((*path, key))
            if isinstance(value, dict) and len(path) + 1 < depth:
                walk(value, (*path, key))

    walk(root, ())
    return tuple(found)


# What libyaml reads otherwise than the text's lines numbered by `\n`: breaks of its own (a lone
# CR, NEL, LS, PS), the escaped surrogate pairs `json.dumps` writes (`\ud83d\ude00` for 😀)
# and characters it refuses (controls, DEL).
_BREAKS = re.compile("\r(?!\n)|[\x85\u2028\u2029]")
_HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB]")  # found fast: a literal first
_SURROGATES = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
)
_REFUSED = re.compile("[^\t\n\r -~\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _paired(match: re.Match[str]) -> str:
    """An escaped surrogate pair as the character it stands for."""
    high, low = int(match[2], 16) - 0xD800, int(match[3], 16) - 0xDC00
    return match[1] + chr(0x10000 + (high << 10) + low)


def _key_lines(
    text: str, depth: int, expected: tuple[tuple[str, ...], ...] | None = None
) -> dict[tuple[str, ...], int]:
    """Lines of mapping keys up to `depth` levels (none inside sequences), from the marks of
    PyYAML's event stream (its C parser; JSON is YAML), lines counted by line feeds alone; the
    first of duplicate keys wins; a text the parser stops on keeps the lines found before.

    Given the key paths `expected` (the document's `outline`), block YAML is read first with
    only its shallow lines (`_shallow`): when that gives exactly those key paths, in order,
    its lines are the answer (every line kept where it was); otherwise the whole text is read.
    """
    lone_cr = text.count("\r") > text.count("\r\n")
    if lone_cr or any(brk in text for brk in "\x85\u2028\u2029"):
        text = _BREAKS.sub(" ", text)
    if _HIGH_SURROGATE.search(text):
        text = _SURROGATES.sub(_paired, text)
    found: dict[tuple[str, ...], int] = {}
    shallow = _shallow(text, depth) if expected is not None else None
    if shallow is not None:
        with suppress(yaml.YAMLError):
            _record_keys(shallow, depth, found)
            if tuple(found) == expected:
                return found
        found.clear()
    try:
        _record_keys(text, depth, found)
    except yaml.reader.ReaderError:  # a character libyaml refuses: read again without any
        found.clear()
        with suppress(yaml.YAMLError):
            _record_keys(_REFUSED.sub(" ", text), depth, found)
    except yaml.YAMLError:
        pass
    return found


_FIRST_INDENT = re.compile(r"^( +)[^\s#]", re.MULTILINE)


def _shallow(text: str, depth: int) -> str | None:
    """Block YAML with every line indented deeper than `depth - 1` steps blanked (line breaks
    kept), the step being the first indented line's indent; None for flow-style text (JSON),
    which blanking would break. A key of the first `depth` levels indented as the first one is
    kept on its line; a block scalar loses deep lines only (its indent is its first line's)."""
    if re.match(r"\s*[\[{]", text):
        return None
    first = _FIRST_INDENT.search(text)
    if first is None:
        return text
    deeper = re.compile(f"^ {{{len(first[1]) * (depth - 1) + 1}}}[^\n]*", re.MULTILINE)
    return deeper.sub("", text)


_MAP, _MAP_END = yaml.MappingStartEvent, yaml.MappingEndEvent
_SEQ, _SEQ_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_SCALAR_EVENT, _ALIAS_EVENT = yaml.ScalarEvent, yaml.AliasEvent
_NODE_EVENTS = frozenset({_MAP, _SEQ, _SCALAR_EVENT, _ALIAS_EVENT})


def _record_keys(text: str, depth: int, found: dict[tuple[str, ...], int]) -> None:
    """Put in `found` the lines of keys up to `depth` levels, as the events come; deeper nodes
    are only counted through."""
    # Per open mapping of at most `depth - 1` keys: its key path, whether its next node is a
    # key, and its last key; the bottom one stands for the document (its node has no key).
    stack: list[list[Any]] = [[(), False, None]]
    skipped = 0  # the open collections under one whose keys are not recorded
    for event in yaml.parse(text, Loader=_BaseLoader):
        kind = event.__class__
        if skipped:
            if kind is _MAP or kind is _SEQ:
                skipped += 1
            elif kind is _MAP_END or kind is _SEQ_END:
                skipped -= 1
            continue
        if kind is _MAP_END:
            stack.pop()
            continue
        if kind not in _NODE_EVENTS:
            continue
        frame = stack[-1]
        path = frame[0]
        if frame[1]:  # a key: a collection as a key holds no recorded keys
            frame[1] = False
            frame[2] = event.value if isinstance(event, _SCALAR_EVENT) else None
            if frame[2] is not None and event.start_mark is not None:
                found.setdefault((*path, frame[2]), event.start_mark.line + 1)
            skipped = int(kind is _MAP or kind is _SEQ)
            continue
        if len(stack) > 1:
            frame[1] = True
        if kind is _MAP and (len(stack) == 1 or frame[2] is not None):
            child = path if len(stack) == 1 else (*path, frame[2])
            if len(child) < depth:
                stack.append([child, True, None])
                continue
        skipped = int(kind is _MAP or kind is _SEQ)


def read_text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SpecError(f"not UTF-8 text (byte {exc.start})") from exc


def read_value(text: str) -> Any:
    """JSON or YAML text as Python values (any shape), within the bounds of docs/bounds.md;
    SpecError says why it cannot be."""
    try:
        return _parse_text(text)
    except RecursionError as exc:
        raise SpecError(TOO_DEEP) from exc


def parse(data: bytes) -> Document:
    """Parse bytes into a Document in OpenAPI 3 shape; SpecError says why it cannot be."""
    text = read_text(data)
    root = read_value(text)
    if not isinstance(root, dict):
        raise SpecError("the document is not a mapping")
    if isinstance(root.get("swagger"), str) and root["swagger"].startswith("2."):
        keys = outline(root)
        return Document(convert_swagger(root), "2.0", text, keys)
    openapi = root.get("openapi")
    if "openapi" not in root and "swagger" not in root:
        raise SpecError("not an OpenAPI document: no top-level `openapi` or `swagger` key")
    if "openapi" not in root:
        swagger = root["swagger"]
        raise SpecError(f"unsupported Swagger version {swagger!r} (2.0, or OpenAPI 3.0, 3.1)")
    if not isinstance(openapi, str) or not re.match(r"3\.[01]\b", openapi):
        raise SpecError(f"unsupported OpenAPI version {openapi!r} (3.0, 3.1 or Swagger 2.0)")
    return Document(root, openapi[:3], text, outline(root))


def _parse_text(text: str) -> Any:
    if re.match(r"\s*[\[{]", text):
        try:
            value = json.loads(text)
        except RecursionError as exc:
            raise SpecError(TOO_DEEP) from exc
        except ValueError:
            pass  # flow-style YAML is a superset of JSON: let the YAML parser report
        else:
            if deeper_than(value, MAX_DEPTH):
                raise SpecError(TOO_DEEP)
            return value
    aliased = _may_alias(text)
    if not aliased:
        fast = _read_fast(text)  # rapidyaml itself refuses nesting deeper than 64
        if fast is not None:
            return fast
    try:
        added = check_bounds(text)
        if added is not None and added <= _COPIED_NODES and "<<" not in text:
            fast = _read_fast(text)  # copies of complete anchors, no merge key
            if fast is not None:
                return fast
        return _string_keys(yaml.load(text, Loader=_CoreLoader))
    except YamlBoundError as exc:
        raise SpecError(str(exc)) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(f"not valid YAML or JSON{where}: {problem}") from exc
    except (ValueError, TypeError) as exc:
        raise SpecError(f"not valid YAML: {exc}") from exc


# An anchor-like `&name` (found fast: the pattern starts with its literal), kept when it starts
# the text or follows a space, `[`, `{` or `,`.
_ANCHOR = re.compile(r"&([^\s,\[\]{}]+)")
_BEFORE_ANCHOR = re.compile(r"[\s\[{,]")


def _may_alias(text: str) -> bool:
    """True when the text may hold an alias: some anchor-like `&name` has a `*name` too.
    (rapidyaml expands aliases in place, so an alias bomb must never reach it.)"""
    names = {
        match[1]
        for match in _ANCHOR.finditer(text)
        if match.start() == 0 or _BEFORE_ANCHOR.match(text, match.start() - 1)
    }
    return any(f"*{name}" in text for name in names)


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """rapidyaml prints parse errors on file descriptor 2; the fallback reports them instead."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# Most nodes rapidyaml may add by copying what aliases name (PyYAML shares them instead).
_COPIED_NODES = 100_000


def _read_fast(text: str) -> Any:
    """The text's values through rapidyaml, or None when PyYAML must read it."""
    if _rapidyaml() is None:
        return None
    fast_text = _fast_text(text)
    if fast_text is None:
        return None
    fast = _parse_fast(fast_text)
    if fast is None and "'\n" in fast_text:  # maybe a quoted scalar's lines at its key's indent
        deeper = deepen_quoted(fast_text)
        if deeper is not None and deeper != fast_text:
            fast = _parse_fast(deeper)
    return fast


def _parse_fast(text: str) -> Any:
    """rapidyaml to JSON text to Python; None when it cannot (the caller falls back)."""
    ryml = _rapidyaml()
    assert ryml is not None
    try:
        with _quiet_stderr():
            tree = ryml.parse_in_arena(text.encode("utf-8"))
            tree.resolve()
            emitted = ryml.emit_json_malloc(tree, tree.root_id())
        return json.loads(_literals(emitted) if _PLACEHOLDER in text else emitted)
    except Exception:
        return None


def _literals(emitted: str) -> str:
    """The JSON with each placeholder value put back as its literal; ValueError when one is
    not a whole value (a block scalar's line `- True`: PyYAML reads that text)."""
    for literal in _LITERALS.values():
        emitted = emitted.replace(f'"{_PLACEHOLDER}{literal}"', literal)
    if _PLACEHOLDER in emitted:
        raise ValueError("a placeholder inside a longer string")
    return emitted


def _string_keys(value: Any) -> Any:
    """Mapping keys as strings (`200:` is a response code, not a number), iteratively."""
    stack = [value]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            if any(not isinstance(k, str) for k in node):
                items = [(_key_text(k), v) for k, v in node.items()]
                node.clear()
                node.update(items)
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return value


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)
