"""JSON with places: the 1-based line of every object key.

`json` gives values but no positions; `key_lines` walks the (already valid) text once to map each
key path, such as `("declarations", "drop-legacy-id")`, to the line its key is written on.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from typing import Any

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)

KeyPath = tuple[str | int, ...]


def key_lines(text: str) -> dict[KeyPath, int]:
    """The line of each object key, by the path of keys and array indexes leading to it."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    lines: dict[KeyPath, int] = {}
    stack: list[list[Any]] = []  # [kind, path, pending key or index, expecting key]
    path: KeyPath = ()
    for match in _TOKEN.finditer(text):
        token = match.group()
        frame = stack[-1] if stack else None
        if token in "{[":
            child: KeyPath = path
            if frame is not None:
                child = (*frame[1], frame[2])
            stack.append(["{" if token == "{" else "[", child, 0, token == "{"])
            path = child
        elif token in "}]":
            stack.pop()
            path = stack[-1][1] if stack else ()
        elif token == ":":
            if frame is not None:
                frame[3] = False
        elif token == ",":
            if frame is not None and frame[0] == "{":
                frame[3] = True
            elif frame is not None and frame[0] == "[":
                frame[2] += 1
        elif frame is not None and frame[0] == "{" and frame[3] and token.startswith('"'):
            key = json.loads(token)
            frame[2] = key
            lines[(*frame[1], key)] = bisect_right(starts, match.start())
    return lines
