from pathlib import Path

import pytest

from release_safety import jsonio


def test_atomic_write_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.json"
    jsonio.write_atomic(target, jsonio.dumps({"b": 1, "a": [1, 2]}))
    assert target.read_text() == '{\n  "b": 1,\n  "a": [\n    1,\n    2\n  ]\n}\n'


def test_failure_midway_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old\n")
    # A lone surrogate cannot be encoded: the write fails after the temporary file exists.
    with pytest.raises(UnicodeEncodeError):
        jsonio.write_atomic(target, "partial" * 1000 + "\udcff")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
