"""The list items held beside the database: by row id, end to end in one buffer."""

from __future__ import annotations

import pytest

from release_safety.errors import CheckError
from release_safety.evaluator.store import Items


def test_items_are_read_back_by_row_id_and_only_stored_in_order() -> None:
    items = Items()
    items.add(1, b'{"a":1}')
    items.add(2, b"")
    items.add(3, b'{"c":"\xc3\xa9"}')
    assert [bytes(items[i]) for i in (3, 1, 2)] == [b'{"c":"\xc3\xa9"}', b'{"a":1}', b""]
    with pytest.raises(CheckError, match="out of order"):
        items.add(5, b"{}")
