"""Fuzz: a malformed overrides file is one line of bad input, never a traceback or a silent drop."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from release_safety.common.errors import InputError
from release_safety.contract.reports import DeclarationsReport
from release_safety.contract.versions import is_release, version_key
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces import overrides

FILE = "release-safety.overrides.json"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
versions = st.tuples(*(st.integers(min_value=0, max_value=12),) * 3).map(
    lambda v: ".".join(map(str, v))
)
version_like = st.one_of(versions, st.sampled_from(["1.0", "v1.0.0", "01.2.3", "", "pr-1"]))
blocks = st.fixed_dictionaries(
    {},
    optional={
        "minPreviousVersion": st.one_of(st.none(), version_like, json_values),
        "requiredStop": st.one_of(st.booleans(), json_values),
        "note": st.one_of(st.none(), st.text(max_size=20), json_values),
        "extra": json_values,
    },
)
files = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "$schema": st.one_of(st.text(max_size=10), json_values),
            "default": st.one_of(blocks, json_values),
            "versions": st.one_of(st.dictionaries(version_like, blocks, max_size=4), json_values),
            "other": json_values,
        },
    ),
)


def outcome(text: str | bytes, version: str) -> None:
    snapshot = MemorySnapshot({FILE: text})
    try:
        report = overrides.analyse(None, snapshot, Settings(), version)
    except InputError as exc:
        assert exc.exit_code == 2
        assert exc.message.startswith(f"{FILE}: ") and "\n" not in exc.message
        return
    assert report.checked
    floor = report.min_previous_version
    assert floor is None or is_release(floor)
    assert report.required_stops == sorted(set(report.required_stops), key=version_key)
    if floor is not None and is_release(version):
        assert version_key(floor) < version_key(version)
    empty = DeclarationsReport(surface="declarations", checked=True)
    block = overrides.upgrade_block(report, empty, version)
    assert block.requiredStops == report.required_stops


@settings(max_examples=400, deadline=None)
@given(data=files, version=st.one_of(versions, st.just("pr-9")), indent=st.none() | st.just(2))
def test_random_override_files(data: Any, version: str, indent: int | None) -> None:
    outcome(json.dumps(data, indent=indent), version)


@settings(max_examples=150, deadline=None)
@given(data=files, cut=st.integers(min_value=0, max_value=120), version=versions)
def test_truncated_override_files(data: Any, cut: int, version: str) -> None:
    outcome(json.dumps(data)[:cut], version)


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=120), version=versions)
def test_random_override_bytes(data: bytes, version: str) -> None:
    outcome(data, version)


@settings(max_examples=200, deadline=None)
@given(
    stops=st.dictionaries(versions, st.booleans(), max_size=6),
    version=versions,
)
def test_no_declared_stop_is_dropped(stops: dict[str, bool], version: str) -> None:
    text = json.dumps({"versions": {v: {"requiredStop": s} for v, s in stops.items()}})
    report = overrides.analyse(None, MemorySnapshot({FILE: text}), Settings(), version)
    expected = [v for v, s in stops.items() if s and version_key(v) <= version_key(version)]
    assert report.required_stops == sorted(expected, key=version_key)
