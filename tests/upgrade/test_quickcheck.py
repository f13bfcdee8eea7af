"""The plain `upgrade-check --json` call answered without click: the same bytes and exit code as
the click command, for answers and for every kind of failure; any other form is left to click."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from upgrade_indexes import EXAMPLE_INDEX, IndexServer

from release_safety.cli.main import BROKEN_PIPE, run
from release_safety.upgrade import check as quickcheck


@pytest.fixture
def index_file(tmp_path: Path) -> Path:
    path = tmp_path / "release-safety-index.json"
    path.write_text(json.dumps(EXAMPLE_INDEX, indent=2))
    return path


def both_ways(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """(exit code, stdout, stderr) of `run(args)` without click, then through click."""
    assert quickcheck.plain_json_call(args) is not None
    quick = run(args)
    quick_out = capsys.readouterr()
    with monkeypatch.context() as patched:
        patched.setattr(quickcheck, "plain_json_call", lambda _args: None)
        slow = run(args)
    slow_out = capsys.readouterr()
    return (quick, quick_out.out, quick_out.err), (slow, slow_out.out, slow_out.err)


@pytest.mark.parametrize(
    ("span", "extra", "code"),
    [
        (("1.4.0", "1.5.0"), [], 0),
        (("1.0.0", "1.5.0"), [], 1),
        (("1.5.0", "1.0.0"), ["--offline"], 1),
        (("1.x", "1.5.0"), [], 2),
        (("1.0.0", "1.5.0"), ["--index-sha256", "z" * 64], 2),
        (("1.0.0", "1.5.0"), ["--index-sha256", "0" * 64], 3),
    ],
)
def test_the_same_answer_and_exit_code_as_the_click_command(
    span: tuple[str, str],
    extra: list[str],
    code: int,
    index_file: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = ["upgrade-check", "--json", "--from", span[0], "--to", span[1]]
    args += ["--index", str(index_file), *extra]
    quick, slow = both_ways(args, capsys, monkeypatch)
    assert quick == slow
    assert quick[0] == code and json.loads(quick[1])


def test_failures_of_the_index_match_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps({**EXAMPLE_INDEX, "extra": 1}))
    twice = tmp_path / "twice.json"
    twice.write_text('{"schemaVersion": "1", "schemaVersion": "1"}')
    for source in (tmp_path / "missing.json", invalid, twice, tmp_path):
        args = ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--index", str(source)]
        quick, slow = both_ways([*args, "--json"], capsys, monkeypatch)
        assert quick == slow
        assert quick[0] == 3 and json.loads(quick[1])["error"]["exitCode"] == 3


def test_a_url_index_matches_too(
    index_server: IndexServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    index_server.serve(EXAMPLE_INDEX)
    args = ["upgrade-check", "--from", "1.4.0", "--to", "1.5.0", "--index", index_server.url]
    quick, slow = both_ways([*args, "--json"], capsys, monkeypatch)
    assert quick == slow and quick[0] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0"],  # text output
        ["upgrade-check", "--from=1.0.0", "--to", "1.1.0", "--json"],
        ["upgrade-check", "--from", "1.0.0", "--json"],  # --to missing
        ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--to", "1.2.0", "--json"],
        ["upgrade-check", "--from", "-1.0.0", "--to", "1.1.0", "--json"],
        ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--json", "--help"],
        ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--json", "--index"],
        ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--json", "extra"],
        ["upgrade-plan", "--from", "1.0.0", "--to", "1.1.0", "--json"],
        ["--json", "upgrade-check", "--from", "1.0.0", "--to", "1.1.0"],
    ],
)
def test_any_other_form_is_left_to_click(args: list[str]) -> None:
    assert quickcheck.plain_json_call(args) is None


@pytest.mark.parametrize(
    ("form", "span", "code", "stderr"),
    [
        (["--json"], ("1.4.0", "1.5.0"), BROKEN_PIPE, b""),
        ([], ("1.4.0", "1.5.0"), BROKEN_PIPE, b""),
        (["--json"], ("1.x", "1.5.0"), BROKEN_PIPE, b""),  # the error object: to the gone reader
        ([], ("1.x", "1.5.0"), 2, b"release-safety: '1.x'"),  # the error line to stderr
    ],
    ids=["quick-answer", "click-answer", "quick-error", "click-error"],
)
def test_a_reader_that_has_gone_ends_the_check_quietly(
    index_file: Path, form: list[str], span: tuple[str, str], code: int, stderr: bytes
) -> None:
    """`upgrade-check ... | true`: exit 141 (as SIGPIPE would, never the unsafe code 1) and no
    traceback, through the quick path as through click; an error in text form still reaches
    standard error."""
    reader, writer = os.pipe()
    os.close(reader)  # gone before the first byte is written
    args = ["upgrade-check", *form, "--from", span[0], "--to", span[1], "--index", str(index_file)]
    done = subprocess.run(
        [sys.executable, "-m", "release_safety", *args],
        stdout=writer,
        stderr=subprocess.PIPE,
        check=False,
    )
    os.close(writer)
    assert done.stderr.startswith(stderr) and done.stderr.count(b"\n") == (1 if stderr else 0)
    assert done.returncode == code
