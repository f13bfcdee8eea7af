"""The query string is read as Starlette's `QueryParams` reads it: the same last value and the
same list of values for every name, over generated query strings (escapes valid and not,
`+`, blank and repeated names, separators, non-ASCII bytes)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from starlette.datastructures import QueryParams

from release_safety.evaluator.params import Params

PIECES = ["a", "page", "search", "=", "&", ";", "+", "%", "%2", "%20", "%E2%82%AC", "%zz", "\xe9"]
raws = st.lists(st.sampled_from(PIECES), max_size=12).map(lambda p: "".join(p).encode("latin-1"))


@settings(max_examples=300, deadline=None)
@given(raw=raws)
@example(raw=b"search=a+b%2B&search=&page&=x&&status=ready;status=error")
def test_params_read_the_query_string_as_starlette_does(raw: bytes) -> None:
    params, starlette = Params(raw), QueryParams(raw)
    assert params.last == dict(starlette)
    for name in {*starlette.keys(), "page", "search"}:
        assert params.text(name) == starlette.get(name)
        assert params.texts(name) == starlette.getlist(name)
