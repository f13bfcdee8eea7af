"""Two OpenAPI documents, loaded (memoised per blob) and compared: all `diff-openapi` needs,
without the repository, the settings or the routes read from code (`analyse.py`)."""

from __future__ import annotations

import gc
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from release_safety.contract.finding import Finding
from release_safety.surfaces.rest.diff import diff_apis
from release_safety.surfaces.rest.group import Change, changes
from release_safety.surfaces.rest.load import SpecError, parse
from release_safety.surfaces.rest.normalise import Api, Fetch, normalise

_MEMO_SIZE = 3
# key -> (the document or why it could not be read, blob ids of the external files it read)
_memo: OrderedDict[str, tuple[Api | SpecError, dict[str, str | None]]] = OrderedDict()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Parsing and normalising a large document allocate hundreds of thousands of objects, none
    of them garbage: the cyclic collector would walk the growing heap for nothing (a third of
    the time for a 3 MB document). It runs again afterwards, as before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_api(
    data: bytes,
    key: str | None = None,
    fetch: Fetch | None = None,
    base: str = "",
    current: Callable[[str], str | None] | None = None,
    previous: Api | None = None,
) -> Api:
    """Parse and normalise a document; SpecError says why it cannot be.

    `key` (a blob id) memoises the result, errors included. `fetch` reads external `$ref`
    files (relative to the folder `base`); `current` gives a file's blob id now, so a memoised
    document whose external files changed is read again. `previous`, another version of the
    document, lends what did not change; only the newest document keeps what it read for that.
    """
    if key is not None and key in _memo:
        result, external = _memo[key]
        if current is None or all(current(p) == blob for p, blob in external.items()):
            _memo.move_to_end(key)
            if isinstance(result, SpecError):
                raise result
            return result
    read: dict[str, str | None] = {}

    def fetching(path: str) -> bytes | None:
        assert fetch is not None
        read[path] = current(path) if current is not None else None
        return fetch(path)

    try:
        with _collector_paused():
            result = normalise(parse(data), fetching if fetch is not None else None, base, previous)
    except SpecError as exc:
        result = exc
    for older, _ in _memo.values():
        if isinstance(older, Api):
            older.trace = None
    if previous is not None:
        previous.trace = None
    if key is not None:
        _memo[key] = (result, read)
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    if isinstance(result, SpecError):
        raise result
    return result


def describe(old: Api, new: Api, old_file: str, new_file: str) -> list[Change]:
    """The changes between two loaded documents, each with the operations it reaches;
    SpecError when the schemas cannot be compared."""
    try:
        return changes(diff_apis(old, new), old, new, old_file, new_file)
    except RecursionError as exc:
        raise SpecError("schemas nested too deeply to compare") from exc


def compare_documents(old: Api, new: Api, old_file: str, new_file: str) -> list[Finding]:
    """Findings between two loaded documents; SpecError when the schemas cannot be compared."""
    return [change.finding for change in describe(old, new, old_file, new_file)]
