import os
import stat
import threading
from pathlib import Path

import pytest

from release_safety.common import jsonio


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


def test_a_link_is_followed_and_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    jsonio.write_atomic(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_a_pipe_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    jsonio.write_atomic(fifo, "through the pipe\n")
    reader.join(timeout=10)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # `--out /dev/null` must never replace the device


PLAIN: list[object] = [
    {},
    [],
    {"a": [], "b": {}, "c": [{}], "d": None, "e": True, "f": False},
    {"é": "naïve — ☃ \U0001f600", "ctl": '\x00\x01\x1f\x7f\b\f\n\r\t"\\/', "sep": "\u2028\u2029"},
    {"n": [0, -1, 2**63 - 1, -(2**63), 2**64 - 1], "nested": [[[["deep"]]]]},
    ("tuple", 1),
]


@pytest.mark.parametrize("data", PLAIN)
def test_dumps_plain_is_dumps_byte_for_byte(data: object) -> None:
    assert jsonio.dumps_plain(data) == jsonio.dumps(data)


@pytest.mark.parametrize(
    "data",
    [
        {"big": 2**64},
        {"lone": "\udcff"},
        {1: "int key"},
        [True, 1],
        {"s": type("S", (str,), {})("x")},
    ],
)
def test_what_orjson_would_write_otherwise_goes_through_dumps(data: object) -> None:
    assert jsonio.dumps_plain(data) == jsonio.dumps(data)
