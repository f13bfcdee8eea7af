"""Query-string parsing that collects every failing field into one 422 ValidateError."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl

from release_safety.evaluator.errors import ApiError, invalid

_INTEGER = re.compile(r"^([+-]?)0*([0-9]+)$")
# Integers beyond a double's exact range are refused as values, before Python parses them
# (a 5,000-digit page would otherwise raise past int()'s digit limit).
MAX_INTEGER = 2**53 - 1


class Params:
    """Typed access to a request's query string; call `check()` before using the values."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.errors: dict[str, dict[str, Any]] = {}
        self._pairs: list[tuple[str, str]] | None = None
        self._last: dict[str, str] | None = None

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """The query string's (name, value) pairs, read as Starlette's `QueryParams` reads them
        (latin-1, blank values kept), on first use: most requests have none to read. (Not a
        `cached_property`, which takes a lock at every read before Python 3.12.)"""
        if self._pairs is None:
            self._pairs = parse_qsl(self.raw.decode("latin-1"), keep_blank_values=True)
        return self._pairs

    @property
    def last(self) -> dict[str, str]:
        """Each name's last value."""
        if self._last is None:
            self._last = dict(self.pairs)
        return self._last

    def _fail(self, name: str, message: str, value: Any) -> None:
        self.errors[name] = {"message": message, "value": value}

    def integer(self, name: str, default: int, saturate: bool = False) -> int:
        """An integer parameter (a repeated one keeps its last value). With `saturate` (page
        and pageSize, which the document bounds only from below), a positive value past
        MAX_INTEGER reads as MAX_INTEGER: a page past the end, a page size at the cap."""
        text = self.last.get(name)
        if text is None:
            return default
        match = _INTEGER.match(text.strip())
        if not match:
            self._fail(name, "invalid integer number", text)
            return default
        sign, digits = match.groups()
        beyond = len(digits) > len(str(MAX_INTEGER)) or int(digits) > MAX_INTEGER
        if beyond and saturate and sign != "-":
            return MAX_INTEGER
        if beyond:
            self._fail(name, f"integer out of range (at most {MAX_INTEGER} in size)", text)
            return default
        return int(sign + digits)

    def enum(self, name: str, values: Sequence[str]) -> str | None:
        """One of `values`, or None when absent."""
        text = self.last.get(name)
        if text is None:
            return None
        if text not in values:
            self._fail(name, f"should be one of the following; [{', '.join(values)}]", text)
            return None
        return text

    def enum_list(self, name: str, values: Sequence[str]) -> list[str]:
        """A repeated parameter whose every value is one of `values`."""
        items = self.texts(name)
        bad = [item for item in items if item not in values]
        if bad:
            self._fail(name, f"should be one of the following; [{', '.join(values)}]", items)
            return []
        return items

    def text(self, name: str) -> str | None:
        """A free-text parameter."""
        return self.last.get(name)

    def texts(self, name: str) -> list[str]:
        """A repeated free-text parameter: every value, in order."""
        return [value for key, value in self.pairs if key == name]

    def check(self) -> None:
        """Raise the 422 ValidateError naming every failing field, if any."""
        if self.errors:
            raise invalid(self.errors)


def pagination(page: int, page_size: int, cap: int) -> tuple[int, int]:
    """Check page and pageSize (422 PaginationError below 1); cap pageSize."""
    if page < 1 or page_size < 1:
        raise ApiError(
            422,
            "PaginationError",
            "page and pageSize must be 1 or more",
            {"page": page, "pageSize": page_size},
        )
    return page, min(page_size, cap)


def page_info(page: int, page_size: int, total: int) -> dict[str, int]:
    """The pagination object: totalPageCount = ceil(totalResults / pageSize)."""
    return {
        "page": page,
        "pageSize": page_size,
        "totalResults": total,
        "totalPageCount": -(-total // page_size),
    }


def offset_of(page: int, page_size: int) -> int:
    """The row offset of a page, bounded so SQLite never overflows (a far page is empty)."""
    return min((page - 1) * page_size, 2**62)
