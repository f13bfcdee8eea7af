"""The list items held beside the database: by row id, end to end in one buffer."""

from __future__ import annotations

import sys
import threading

import pytest

from release_safety.common.errors import CheckError
from release_safety.evaluator.store import Items


def test_items_are_read_back_by_row_id_and_only_stored_in_order() -> None:
    items = Items()
    items.add(1, b'{"a":1}')
    items.add(2, b"")
    items.add(3, b'{"c":"\xc3\xa9"}')
    assert [bytes(items[i]) for i in (3, 1, 2)] == [b'{"c":"\xc3\xa9"}', b'{"a":1}', b""]
    with pytest.raises(CheckError, match="out of order"):
        items.add(5, b"{}")


def test_pages_are_joined_while_another_thread_adds_items() -> None:
    # A page is joined from views of the buffer, which cannot grow while one is held: a
    # writer on another thread (switching threads as often as the interpreter allows) must
    # neither fail nor change a page read meanwhile.
    items = Items()
    for rowid in range(1, 101):
        items.add(rowid, b'{"row":%d}' % rowid)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for rowid in range(101, 10_001):
                items.add(rowid, b'{"row":%d,"pad":"%s"}' % (rowid, b"x" * (rowid % 50)))
        except BaseException as exc:  # reported by the reading thread
            errors.append(exc)

    page = list(range(100, 0, -4))
    expected = b",".join(b'{"row":%d}' % rowid for rowid in page)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        writer = threading.Thread(target=write)
        writer.start()
        reads = 0
        while writer.is_alive() or reads < 100:
            assert items.joined(page) == expected
            reads += 1
        writer.join()
    finally:
        sys.setswitchinterval(switch)
    assert errors == []
    assert items.joined([10_000, 1]) == b'{"row":10000,"pad":""},{"row":1}'
