"""What each file registers, memoised by blob id: consecutive releases share most files, so a
release reads again only the files it changed."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")
_SIZE = 20_000
_memo: OrderedDict[Hashable, Any] = OrderedDict()


def memoised(key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()`, once per key (a blob id with the reader's name)."""
    if key in _memo:
        _memo.move_to_end(key)
        result: T = _memo[key]
        return result
    result = compute()
    _memo[key] = result
    while len(_memo) > _SIZE:
        _memo.popitem(last=False)
    return result
