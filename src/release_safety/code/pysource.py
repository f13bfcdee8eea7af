"""Python sources, read with the standard library's `ast` (never imported): the source text of
a node."""

from __future__ import annotations

import ast
from functools import lru_cache


def segment(text: str, node: ast.AST) -> str | None:
    """`ast.get_source_segment` without splitting the text again for every node."""
    end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None:
        return None
    data, starts = _lines(text)
    start = starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
    return data[start : starts[end_line - 1] + end_col].decode("utf-8", errors="replace")


@lru_cache(maxsize=8)
def _lines(text: str) -> tuple[bytes, list[int]]:
    """The text in UTF-8 (the unit of `col_offset`) and where each line starts in it."""
    data = text.encode("utf-8", errors="surrogateescape")
    starts = [0]
    for index, byte in enumerate(data):
        if byte == 10:
            starts.append(index + 1)
    return data, starts
