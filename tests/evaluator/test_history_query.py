"""The plain-string reading of the history query agrees with the full reading (`Params`) on
every string it reads, over generated query strings; and it reads the common ones."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from release_safety.evaluator import history
from release_safety.evaluator.errors import ApiError

PIECES = [
    "search", "page", "pageSize", "trigger", "language", "status", "window", "sortBy", "x",
    "=", "&", "&", "=", ";", "+", "%41", "orders_0042", "0", "1", "25", "007", "1000", "-1",
    "9999999999", "apps", "sql", "ready", "error", "lastHour", "runtime", "createdAt", "Apps",
    ".", "~", "\xe9",
]  # fmt: skip
raws = st.lists(st.sampled_from(PIECES), max_size=14).map(lambda p: "".join(p).encode("latin-1"))


def _read(parse: Callable[[bytes], history.HistoryQuery], raw: bytes) -> object:
    """The query, or the 422 error's payload."""
    try:
        return parse(raw)
    except ApiError as exc:
        return exc.status_code, exc.payload()


def _full(raw: bytes) -> object:
    return _read(history._parsed.__wrapped__, raw)


@settings(max_examples=1500, deadline=None)
@given(raw=raws)
@example(raw=b"search=orders_0042&page=3&pageSize=1000&sortBy=runtime&trigger=apps")
@example(raw=b"status=ready&language=sql&window=lastHour&page=007")
def test_the_plain_reading_agrees_with_the_full_one(raw: bytes) -> None:
    plain = history._plain(raw)
    assert plain is None or plain == _full(raw)
    assert _read(history.parse_query, raw) == _full(raw)


@pytest.mark.parametrize(
    "raw",
    [b"search=orders_0042", b"search=orders_0042&page=2&pageSize=100&window=last7Days",
     b"trigger=scheduled&status=error&sortBy=runtime&language=semantic"],
)  # fmt: skip
def test_common_query_strings_are_read_plainly(raw: bytes) -> None:
    assert history._plain(raw) == _full(raw)
