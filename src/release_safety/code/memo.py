"""A bounded memo of parse results by content: each blob is parsed once per process."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """Least recently used first out, `size` entries at most."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __contains__(self, key: K) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value for `key`, made (and kept) when it is not there."""
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return value

    def peek(self, key: K) -> V:
        """The value for `key` (KeyError when it is not there)."""
        return self._items[key]


def per_tree(memo: Memo[tuple[str, K], V], tree: str | None, key: K, make: Callable[[], V]) -> V:
    """`make()`, kept in `memo` per tree (a `Snapshot.tree_key`: what follows from the paths
    alone) and `key`; made afresh for a tree without a key."""
    return make() if tree is None else memo.get((tree, key), make)
