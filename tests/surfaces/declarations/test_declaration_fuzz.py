"""Fuzz: malformed annotations and registries give findings with places, never a traceback."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from release_safety.contract.reports import DeclarationsReport
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces import declarations

REGISTRY = "release-safety.declarations.json"
PATHS = [
    "db/m.sql",
    "src/a.ts",
    "app/b.py",
    "docs/c.md",
    "x.yaml",
    "y.lua",
    "z.unknown",
    "Makefile",
]
OPENERS = [
    "--",
    "#",
    "//",
    "/*",
    "/**\n *",
    "<!--",
    ";",
    "%",
    "{-",
    "--[[",
    '"',
    "'",
    "`",
    '"""',
    "",
]
CLOSERS = ["", "*/", "-->", "-}", "]]", '"', "\n", "\n--   ", "\n * "]
MARKERS = [
    "release-safety:",
    "release-safety: ",
    "Release-Safety: ",
    "release_safety :",
    "release-safety",
]
KINDS = [
    "breaking",
    "braking",
    "",
    "breaking(",
    "breaking(required-stop)",
    "breaking()",
    "breaking(,)",
]
KINDS += ["breaking(required-stop, required-stop):", "breaking(no-stop)", "BREAKING"]

noise = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
piece = st.tuples(
    st.sampled_from(OPENERS),
    st.sampled_from(MARKERS),
    st.sampled_from(KINDS),
    noise,
    st.sampled_from(CLOSERS),
).map(lambda p: f"{p[0]} {p[1]}{p[2]} {p[3]}{p[4]}")
file_text = st.lists(st.one_of(piece, noise), max_size=8).map("\n".join)


def check(report: DeclarationsReport, new: MemorySnapshot) -> None:
    assert report.checked
    paths = set(new.paths())
    for finding in report.findings:
        assert finding.file in paths
        assert finding.line is not None and finding.line >= 1
        assert finding.message
        assert finding.severity in ("breaking", "unknown", "advisory")
    breaking = [(f.file, f.line, f.message) for f in report.findings if f.rule == "declared-break"]
    assert breaking == [(d.file, d.line, d.reason) for d in report.declared]
    for declared in report.declared:
        assert declared.reason.strip()


@settings(max_examples=300, deadline=None)
@given(
    old=st.dictionaries(st.sampled_from(PATHS), file_text, max_size=3),
    new=st.dictionaries(st.sampled_from(PATHS), file_text, max_size=4),
)
def test_random_annotations(old: dict[str, str], new: dict[str, str]) -> None:
    new_snapshot = MemorySnapshot(new)
    report = declarations.analyse(MemorySnapshot(old), new_snapshot, Settings())
    check(report, new_snapshot)
    again = declarations.analyse(MemorySnapshot(old), new_snapshot, Settings())
    assert again == report


@settings(max_examples=100, deadline=None)
@given(data=st.dictionaries(st.sampled_from(PATHS), st.binary(max_size=200), max_size=4))
def test_random_bytes(data: dict[str, bytes]) -> None:
    snapshot = MemorySnapshot(data)
    check(declarations.analyse(None, snapshot, Settings()), snapshot)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=10,
)
entry_values = st.fixed_dictionaries(
    {},
    optional={
        "reason": st.one_of(st.text(max_size=60), json_values),
        "requiredStop": st.one_of(st.booleans(), json_values),
        "migration": json_values,
        "releasedIn": json_values,
        "impact": st.one_of(
            json_values,
            st.fixed_dictionaries(
                {"kind": st.just("no-external-callers")},
                optional={
                    "featureFlag": json_values,
                    "firstPartyOnly": json_values,
                    "covers": st.fixed_dictionaries(
                        {"rest": json_values, "mcp": st.lists(st.text(max_size=5), max_size=2)}
                    ),
                },
            ),
        ),
        "owner": json_values,
    },
)
ids = st.text(max_size=12)
registries = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"declarations": st.dictionaries(ids, st.one_of(entry_values, json_values), max_size=4)},
        optional={"$schema": json_values, "extra": json_values},
    ),
)


def render(value: Any, cut: int | None, indent: int | None) -> str:
    text = json.dumps(value, indent=indent)
    return text if cut is None else text[:cut]


@settings(max_examples=300, deadline=None)
@given(
    before=registries,
    after=registries,
    cut=st.none() | st.integers(min_value=0, max_value=200),
    indent=st.none() | st.integers(min_value=0, max_value=4),
)
def test_random_registries(before: Any, after: Any, cut: int | None, indent: int | None) -> None:
    old = MemorySnapshot({REGISTRY: json.dumps(before, indent=2)})
    new = MemorySnapshot({REGISTRY: render(after, cut, indent)})
    report = declarations.analyse(old, new, Settings())
    check(report, new)
    text_lines = new.read(REGISTRY).decode().count("\n") + 1
    assert all(f.line is not None and f.line <= text_lines for f in report.findings)


@settings(max_examples=100, deadline=None)
@given(before=st.binary(max_size=100), after=st.binary(max_size=100))
def test_random_registry_bytes(before: bytes, after: bytes) -> None:
    new = MemorySnapshot({REGISTRY: after})
    check(declarations.analyse(MemorySnapshot({REGISTRY: before}), new, Settings()), new)
