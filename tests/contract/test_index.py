import json
from pathlib import Path

import pytest

from release_safety.common.errors import InputError
from release_safety.contract.index import apply_floor, empty_index, parse_index, upsert
from release_safety.contract.model import IndexEntry


def entry(
    version: str, safe: bool | str = True, backfilled: bool = False, **extra: object
) -> IndexEntry:
    data: dict[str, object] = {
        "version": version,
        "previousVersion": None,
        "releaseDate": "2025-01-01T00:00:00Z",
        "rollingUpdateSafe": safe,
        "requiredStops": [],
        "minPreviousVersion": None,
        "backfilled": backfilled,
        "syntheticRequiredStop": False,
        **extra,
    }
    return IndexEntry.model_validate(data)


def test_upsert_sorts_numerically_and_replaces_by_version() -> None:
    index = empty_index()
    for version in ["0.2155.10", "0.2155.9", "0.2156.0"]:
        index, taken = upsert(index, entry(version))
        assert taken
    index, _ = upsert(index, entry("0.2155.10", safe=False))
    assert [e.version for e in index.entries] == ["0.2155.9", "0.2155.10", "0.2156.0"]
    assert index.entries[1].rollingUpdateSafe is False


def test_backfilled_never_replaces_a_release_entry_without_force() -> None:
    index, _ = upsert(empty_index(), entry("1.0.0", safe=False))
    kept, taken = upsert(index, entry("1.0.0", safe="unknown", backfilled=True))
    assert not taken and kept.entries[0].rollingUpdateSafe is False
    forced, taken = upsert(index, entry("1.0.0", safe="unknown", backfilled=True), force=True)
    assert taken and forced.entries[0].backfilled


def test_floor_gets_a_synthetic_stop_and_moves() -> None:
    index = empty_index()
    for version in ["1.0.0", "1.1.0", "1.2.0"]:
        index, _ = upsert(index, entry(version))
    index = apply_floor(index, "1.1.0")
    assert index.backfillFloorVersion == "1.1.0"
    floor = index.entries[1]
    assert floor.requiredStops == ["1.1.0"] and floor.syntheticRequiredStop
    assert not any(e.syntheticRequiredStop for e in (index.entries[0], index.entries[2]))
    # Re-upserting the floor keeps its synthetic stop; moving the floor clears it.
    index, _ = upsert(index, entry("1.1.0"))
    assert index.entries[1].syntheticRequiredStop
    index = apply_floor(index, "1.2.0")
    assert index.entries[1].requiredStops == [] and not index.entries[1].syntheticRequiredStop
    assert index.entries[2].requiredStops == ["1.2.0"]


def test_generated_at_is_the_newest_release_date() -> None:
    index, _ = upsert(empty_index(), entry("1.0.0", releaseDate="2025-03-01T00:00:00Z"))
    index, _ = upsert(index, entry("0.9.0", releaseDate="2025-02-01T00:00:00Z"))
    assert index.generatedAt == "2025-03-01T00:00:00Z"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{", "not valid JSON"),
        ('{"schemaVersion": "1"}', "generatedAt"),
        (
            json.dumps({**empty_index().to_json_data(), "extra": 1}),
            "extra: unknown key",
        ),
        (
            json.dumps({**empty_index().to_json_data(), "entries": [{"version": "x"}]}),
            "entries.0.version",
        ),
    ],
)
def test_parse_index_is_strict(document: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=message):
        parse_index(document, "idx.json")


def test_duplicate_versions_rejected() -> None:
    data = empty_index().to_json_data()
    data["entries"] = [entry("1.0.0").to_json_data(), entry("1.0.0").to_json_data()]
    with pytest.raises(InputError, match="appears twice"):
        parse_index(json.dumps(data), "idx.json")
