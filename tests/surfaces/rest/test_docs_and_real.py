"""The rules page stays in sync with the catalogue; every consecutive real pair runs."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from rest_pairs import DATASET

from release_safety.contract.reports import RULES
from release_safety.surfaces.rest.documents import compare_documents
from release_safety.surfaces.rest.load import parse
from release_safety.surfaces.rest.normalise import normalise
from release_safety.surfaces.rest.rules import CATALOGUE, render_docs

DOCS = Path(__file__).resolve().parents[3] / "docs" / "rest-rules.md"
# The dataset's versions in commit order (see its README).
ORDER = [
    *("085baba", "1ff8b64", "bf2a340", "498c71d", "5162af9", "466c74a", "dc708bb"),
    *("c309ca1", "91e7c95", "aa58881", "ca34204", "23e6f5b", "c094647", "f85dbe2"),
]


def test_rules_page_is_generated_from_the_catalogue() -> None:
    expected = render_docs()
    assert DOCS.read_text(encoding="utf-8") == expected, (
        "regenerate: python -c 'from pathlib import Path; from release_safety.surfaces.rest."
        'rules import render_docs; Path("docs/rest-rules.md").write_text(render_docs())\''
    )


def test_rules_are_registered_in_the_shared_catalogue() -> None:
    for rule in CATALOGUE.rules:
        shared = RULES[rule.id]
        assert (shared.surface, shared.severity, shared.title) == ("rest", rule.level, rule.title)
        assert rule.why and rule.unsafe and rule.safe


def _real(name: str) -> bytes:
    return gzip.decompress((DATASET / f"openai-openapi.{name}.yaml.gz").read_bytes())


@pytest.mark.skipif(not DATASET.is_dir(), reason="real dataset not present")
def test_every_consecutive_real_pair_runs_and_reuse_changes_nothing() -> None:
    """Each version normalised against the one before finds what a fresh normalisation finds,
    and most operations of these documents are carried over unchanged."""
    counts, carried = [], []
    previous = fresh_previous = normalise(parse(_real(ORDER[0])))
    for name in ORDER[1:]:
        document = parse(_real(name))
        current, fresh = normalise(document, previous=previous), normalise(document)
        found = compare_documents(previous, current, "old.yaml", "new.yaml")
        assert compare_documents(fresh_previous, fresh, "old.yaml", "new.yaml") == found
        assert all(" — " in f.message and f.line and f.line >= 1 for f in found)
        assert len({f.message for f in found}) == len(found)
        counts.append(len(found))
        same = sum(op is previous.operations.get(key) for key, op in current.operations.items())
        carried.append(same / len(current.operations))
        previous, fresh_previous = current, fresh
    assert len(counts) == 13
    assert all(count > 0 for count in counts)
    assert sorted(carried)[len(carried) // 2] > 0.5
