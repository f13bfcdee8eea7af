"""Refactors and reformatting report nothing; a change inside them still shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from rest_pairs import FIXTURES

from release_safety.surfaces.rest.documents import compare_documents, load_api

PAIRS = sorted(p for p in (FIXTURES / "refactor").iterdir() if p.is_dir())


def _pair(folder: Path) -> tuple[bytes, bytes]:
    base = next(folder.glob("base.*"))
    revision = next(folder.glob("revision.*"))
    return base.read_bytes(), revision.read_bytes()


@pytest.mark.parametrize("folder", PAIRS, ids=[p.name for p in PAIRS])
def test_refactor_reports_nothing(folder: Path) -> None:
    old, new = _pair(folder)
    found = compare_documents(load_api(old), load_api(new), "base", "revision")
    assert [f.message for f in found] == []


@pytest.mark.parametrize("folder", PAIRS, ids=[p.name for p in PAIRS])
def test_refactor_is_symmetric(folder: Path) -> None:
    old, new = _pair(folder)
    found = compare_documents(load_api(new), load_api(old), "revision", "base")
    assert [f.message for f in found] == []


def test_change_inside_a_recursive_schema_is_found() -> None:
    old, new = _pair(FIXTURES / "refactor" / "recursive-renamed")
    changed = new.replace(b"name: {type: string}", b"name: {type: integer}")
    found = compare_documents(load_api(old), load_api(changed), "base", "revision")
    assert [(f.rule, f.message) for f in found] == [
        (
            "response-type-widened",
            "GET /nodes — #/components/schemas/TreeNode: `name` type changed from string to"
            " integer",
        )
    ]
    assert found[0].line == 14
