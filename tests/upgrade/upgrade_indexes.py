"""Index documents for the upgrade-check tests, written as plain JSON data."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from release_safety.contract.index import IndexData, index_data


def entry(
    version: str,
    previous: str | None,
    safe: bool | str = True,
    stops: tuple[str, ...] = (),
    min_previous: str | None = None,
    *,
    synthetic: bool = False,
) -> dict[str, Any]:
    """One index entry as JSON data."""
    return {
        "version": version,
        "previousVersion": previous,
        "releaseDate": "2026-01-01T00:00:00Z",
        "rollingUpdateSafe": safe,
        "requiredStops": list(stops),
        "minPreviousVersion": min_previous,
        "backfilled": safe == "unknown",
        "syntheticRequiredStop": synthetic,
    }


def chained(*releases: tuple[str, bool | str], first_previous: str | None = None) -> list[dict]:
    """Entries whose previousVersion chain is unbroken, from (version, verdict) pairs."""
    entries = []
    previous = first_previous
    for version, safe in releases:
        entries.append(entry(version, previous, safe))
        previous = version
    return entries


def index_doc(entries: list[dict[str, Any]], floor: str | None = None) -> dict[str, Any]:
    return {
        "schemaVersion": "1",
        "generatedAt": "2026-01-02T00:00:00Z",
        "backfillFloorVersion": floor,
        "entries": entries,
    }


def as_index(doc: dict[str, Any]) -> IndexData:
    return index_data(json.dumps(doc), "test index")


@dataclass
class Served:
    """What the test server answers, and what it was asked."""

    body: bytes = b""
    etag: str | None = None
    last_modified: str | None = None
    failures: int = 0
    failure_status: int = 503
    delay: float = 0.0
    requests: list[dict[str, str]] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)


@dataclass
class IndexServer:
    url: str
    served: Served

    def serve(self, doc: dict[str, Any] | bytes, etag: str | None = '"v1"') -> bytes:
        body = doc if isinstance(doc, bytes) else json.dumps(doc, indent=2).encode()
        self.served.body = body
        self.served.etag = etag
        return body


POOL = [f"{major}.{minor}.{patch}" for major in (0, 1) for minor in (0, 9, 10) for patch in (0, 2)]
VERDICTS = st.sampled_from([True, False, "unknown"])


def vkey(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@st.composite
def indexes(draw: st.DrawFn) -> dict[str, Any]:
    """Random indexes: mostly well chained, with gaps, stray stops and odd minimums mixed in."""
    versions = sorted(draw(st.sets(st.sampled_from(POOL), max_size=len(POOL))), key=vkey)
    entries = []
    previous: str | None = draw(st.sampled_from([None, "0.0.1"]))
    for version in versions:
        chained = draw(st.integers(0, 9)) < 8
        entries.append(
            {
                "version": version,
                "previousVersion": previous if chained else draw(st.sampled_from([None, *POOL])),
                "releaseDate": "2026-01-01T00:00:00Z",
                "rollingUpdateSafe": draw(VERDICTS),
                "requiredStops": draw(st.lists(st.sampled_from(POOL), max_size=2)),
                "minPreviousVersion": draw(st.sampled_from([None, None, None, *POOL])),
                "backfilled": False,
                "syntheticRequiredStop": draw(st.integers(0, 9)) == 0,
            }
        )
        previous = version
    if draw(st.booleans()):
        entries = draw(st.permutations(entries))
    floor = draw(st.sampled_from([None, *POOL]))
    return {
        "schemaVersion": "1",
        "generatedAt": None,
        "backfillFloorVersion": floor,
        "entries": entries,
    }


ENDPOINTS = st.sampled_from([*POOL, "0.0.1", "0.5.0", "2.0.0"])


# The index of docs/upgrade-check.md, "Examples".
EXAMPLE_INDEX = index_doc(
    [
        entry("1.0.0", "0.9.0", "unknown", stops=("1.0.0",), synthetic=True),
        entry("1.1.0", "1.0.0", True),
        entry("1.2.0", "1.1.0", False),
        entry("1.3.0", "1.2.0", "unknown"),
        entry("1.4.0", "1.3.0", True, stops=("1.3.0",), min_previous="1.1.0"),
        entry("1.5.0", "1.4.0", True, min_previous="1.4.0"),
    ],
    floor="1.0.0",
)
