"""Hostile documents (issue 17 items 1, 2 and 6): deep nesting, alias bombs, huge integers.

Each reaches the real commands: a document too deep or too large is "not checked" (or bad
input for the tool's own files), never a crash, a traceback or an exit 1 without JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release_safety.cli.main import run
from release_safety.common import yamlbound
from release_safety.common.jsonio import MAX_DEPTH, parse_json
from release_safety.git import repository as gitrepo
from release_safety.git.builder import RepoBuilder
from release_safety.git.snapshot import READ_AHEAD
from release_safety.surfaces.deployment.dockerfile import MAX_CONTINUED_LINES
from release_safety.surfaces.mcp import load as mcp_load
from release_safety.surfaces.rest import load as rest_load
from release_safety.surfaces.rest.load import SpecError

GOOD_SPEC = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"


def deep_flow_yaml(depth: int) -> str:
    return GOOD_SPEC + "x-deep: " + "[" * depth + "]" * depth + "\n"


def deep_block_yaml(depth: int) -> str:
    return GOOD_SPEC + "x-deep:\n" + "".join(" " * (i + 1) + "-\n" for i in range(depth))


def deep_json(depth: int) -> str:
    doc = '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "x": '
    return doc + "[" * depth + "]" * depth + "}"


def alias_bomb(levels: int = 9) -> str:
    lines = [GOOD_SPEC.rstrip("\n"), 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def depth_of(value: Any) -> int:
    deepest, level = 0, [value]
    while level:
        deepest += 1
        level = [
            child
            for node in level
            if isinstance(node, dict | list)
            for child in (node.values() if isinstance(node, dict) else node)
        ]
    return deepest - 1


def test_the_bounds_are_what_the_docs_say() -> None:
    text = (Path(__file__).parents[2] / "docs" / "bounds.md").read_text()
    assert f"{MAX_DEPTH} levels" in text
    assert f"{yamlbound.MAX_NODES:,}" in text
    assert f"at most {MAX_CONTINUED_LINES:,} continued lines" in text
    assert "`snapshot.TextsInOrder`), not one round trip" in text and READ_AHEAD == 512


@pytest.mark.parametrize("render", [deep_flow_yaml, deep_block_yaml, deep_json])
@pytest.mark.parametrize("depth", [MAX_DEPTH + 5, 30_000])
def test_a_deep_openapi_document_is_refused_with_a_reason(
    render: Callable[[int], str], depth: int
) -> None:
    if render is deep_block_yaml and depth > 3000:
        depth = 3000  # indentation grows with depth: 3,000 levels are already 4.5 MB
    with pytest.raises(SpecError, match=f"nested deeper than {MAX_DEPTH} levels"):
        rest_load.parse(render(depth).encode())


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    text = alias_bomb()
    assert len(text) < 1000
    with pytest.raises(SpecError, match="alias"):
        rest_load.parse(text.encode())


def test_modest_aliases_still_read() -> None:
    text = GOOD_SPEC + "components:\n  schemas:\n    A: &a {type: string}\n    B: *a\n"
    root = rest_load.parse(text.encode()).root
    assert root["components"]["schemas"]["B"] == {"type": "string"}


nested = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(min_size=1, max_size=4), children, max_size=3)
    ),
    max_leaves=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=nested,
    depth=st.one_of(st.integers(0, 2 * MAX_DEPTH), st.sampled_from([5_000, 40_000])),
    style=st.sampled_from(["json", "flow", "block"]),
)
def test_any_nesting_reads_within_the_bound_or_is_refused(
    value: Any, depth: int, style: str
) -> None:
    """Whatever the depth (a few levels to 40,000) and the style, a document either reads and
    is at most `MAX_DEPTH` deep, or is refused with a SpecError: never a crash."""
    wrapped = value
    for _ in range(min(depth, 3000) if style == "block" else depth):
        wrapped = [wrapped]
    if style == "json":
        text = json.dumps({"openapi": "3.0.3", "x": "PLACEHOLDER"})
        inner = "[" * depth + json.dumps(value) + "]" * depth
        text = text.replace('"PLACEHOLDER"', inner)
    elif style == "flow":
        text = "openapi: 3.0.3\nx: " + "[" * depth + json.dumps(value) + "]" * depth + "\n"
    else:
        levels = min(depth, 3000)
        text = "openapi: 3.0.3\nx:\n" + "".join(" " * (i + 1) + "-\n" for i in range(levels))
    try:
        read = rest_load.read_value(text)
    except SpecError:
        return
    assert depth_of(read) <= MAX_DEPTH + 1


def test_the_commands_survive_a_deep_spec(tmp_path: Path) -> None:
    """diff-openapi in its own process: a C stack overflow would be a signal, not an exit."""
    base, deep = tmp_path / "base.yaml", tmp_path / "deep.yaml"
    base.write_text(GOOD_SPEC)
    deep.write_text(deep_flow_yaml(30_000))
    for args in ([str(base), str(deep)], [str(deep), str(deep)]):
        done = subprocess.run(
            [sys.executable, "-m", "release_safety", "diff-openapi", *args, "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2, done.stderr  # a document given by hand: bad input
        assert "Traceback" not in done.stderr
        error = json.loads(done.stdout)["error"]
        assert "deep.yaml: the document is nested deeper than 256 levels" in error["message"]


@pytest.fixture
def hostile_service(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    """Four releases; the second's OpenAPI document is 30,000 levels deep, the fourth's an
    alias bomb."""
    builder = make_repo("service")
    builder.write("api/openapi.yaml", GOOD_SPEC)
    builder.write("db/migrations/0001_init.sql", "CREATE TABLE t (id int);\n")
    builder.write(".release-safety.toml", '[mcp]\nabsent = "the service has no MCP tools"\n')
    builder.release("1.0.0")
    builder.write("api/openapi.yaml", deep_flow_yaml(30_000))
    builder.release("1.1.0")
    builder.write("api/openapi.yaml", GOOD_SPEC)
    builder.release("1.2.0")
    builder.write("api/openapi.yaml", alias_bomb())
    builder.release("1.3.0")
    return builder


@pytest.mark.parametrize(("version", "reason"), [("1.1.0", "nested deeper"), ("1.3.0", "alias")])
def test_generate_says_not_checked_and_why(
    hostile_service: RepoBuilder, tmp_path: Path, version: str, reason: str
) -> None:
    out, evidence = tmp_path / "a.json", tmp_path / "e.json"
    args = ["generate", "--repo", str(hostile_service.path), "--to", version]
    assert run([*args, "--out", str(out), "--evidence", str(evidence)]) == 0
    artifact = json.loads(out.read_text())
    assert artifact["api"]["rest"]["checked"] is False
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    assert reason in evidence.read_text()


def test_backfill_with_two_jobs_finishes_past_hostile_documents(
    hostile_service: RepoBuilder, tmp_path: Path
) -> None:
    index = tmp_path / "index.json"
    args = ["backfill", "--repo", str(hostile_service.path), "--index", str(index)]
    assert run([*args, "--jobs", "2"]) == 0
    entries = json.loads(index.read_text())["entries"]
    assert [e["version"] for e in entries] == ["1.0.0", "1.1.0", "1.2.0", "1.3.0"]
    assert all(e["rollingUpdateSafe"] == "unknown" for e in entries)


def test_check_pr_reports_a_deep_spec_as_not_checked(
    hostile_service: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate does not crash; the surface is not checked (a warning by the gate's rule, and
    the release's own verdict stays unknown)."""
    args = ["check-pr", "--repo", str(hostile_service.path), "--base", "1.0.0", "--head", "1.1.0"]
    run([*args, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert "rest" in report["notChecked"] and report["rollingUpdateSafe"] == "unknown"
    assert any("nested deeper" in w["message"] for w in report["warnings"])


def test_a_deep_or_huge_mcp_snapshot_is_a_reason() -> None:
    deep = '{"tools": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(mcp_load.SnapshotError, match="nested deeper"):
        mcp_load.parse("mcp-tools.json", deep.encode())
    huge = '{"tools": [], "n": ' + "7" * 5000 + "}"
    with pytest.raises(mcp_load.SnapshotError, match="integer longer"):
        mcp_load.parse("mcp-tools.json", huge.encode())


DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (DEEP, "nested deeper"),
        ('{"a": ' + HUGE + "}", "integer longer"),
        ('{"a": NaN}', "NaN is not JSON"),
        ('{"a": 1, "a": 2}', "appears twice"),
    ],
)
def test_bounded_json_names_the_place_and_why(text: str, reason: str) -> None:
    with pytest.raises(Exception, match=reason) as caught:
        parse_json(text, "where.json", strict=True)
    assert str(caught.value).startswith("where.json: ")


def _index_with(extra: str) -> str:
    return (
        '{"schemaVersion": "1", "generatedAt": null, "backfillFloorVersion": null, '
        f'"entries": [], "x": {extra}}}'
    )


@pytest.mark.parametrize("payload", [DEEP, HUGE])
def test_the_tools_files_too_deep_or_huge_are_one_line_errors(
    payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Indexes, artifacts, settings, overrides: bad input (or could not check for a fetched
    index), one line, JSON under --json, never exit 1."""
    index = tmp_path / "index.json"
    index.write_text(_index_with(payload))
    check = ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--index", str(index)]
    assert run([*check, "--json"]) == 3
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["exitCode"] == 3 and "\n" not in error["message"]
    assert run(["validate", str(index)]) == 2
    artifact = tmp_path / "artifact.json"
    artifact.write_text('{"schemaVersion": "2", "version": ' + payload + "}")
    assert run(["validate", str(artifact)]) == 2
    assert (
        run(["index", "update", "--index", str(tmp_path / "i.json"), "--artifact", str(artifact)])
        == 2
    )
    settings_file = tmp_path / "settings.toml"
    settings_file.write_text("x = " + ("[" * 50_000 + "]" * 50_000 if payload == DEEP else HUGE))
    assert run(
        ["generate", "--repo", str(tmp_path), "--to", "HEAD", "--config", str(settings_file)]
    ) in (2, 3)
    err = capsys.readouterr().err
    assert "Traceback" not in err


def test_overrides_too_deep_are_bad_input(make_repo: Callable[[str], RepoBuilder]) -> None:
    builder = make_repo("service")
    builder.write("release-safety.overrides.json", '{"versions": ' + DEEP + "}")
    builder.release("1.0.0")
    assert run(["generate", "--repo", str(builder.path), "--to", "1.0.0", "--out", "-"]) == 2


def test_a_5000_digit_version_is_refused_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = f"{'1' * 5000}.0.0"
    entry = {
        "version": long,
        "previousVersion": None,
        "releaseDate": "2026-01-01T00:00:00Z",
        "rollingUpdateSafe": True,
        "requiredStops": [],
        "minPreviousVersion": None,
        "backfilled": False,
        "syntheticRequiredStop": False,
    }
    index = tmp_path / "index.json"
    doc = {"schemaVersion": "1", "generatedAt": None, "backfillFloorVersion": None}
    index.write_text(json.dumps({**doc, "entries": [entry]}))
    assert run(["validate", str(index)]) == 2
    check = ["upgrade-check", "--from", "1.0.0", "--to", long, "--index", str(index), "--json"]
    assert run(check) == 2
    out = capsys.readouterr().out
    assert len(out) < 500 and json.loads(out)["error"]["exitCode"] == 2


def test_anything_unexpected_is_exit_3_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The top-level handler itself: a command that fails in a way nobody foresaw."""
    from release_safety.cli import main as cli

    monkeypatch.setitem(cli.COMMANDS, "boom", ("tests_boom:boom", "Fail unexpectedly."))
    module = type(sys)("tests_boom")
    import click

    @click.command("boom")
    @click.option("--json", "as_json", is_flag=True)
    def boom(as_json: bool) -> int:
        raise RuntimeError("something\nnobody foresaw")

    module.boom = boom  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tests_boom", module)
    assert run(["boom"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "RuntimeError: something nobody foresaw" in err
    assert run(["boom", "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "internal"


def test_a_symlinked_migration_fails_closed_in_one_json_object(
    make_repo: Callable[[str], RepoBuilder], capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("service")
    builder.release("1.0.0", {"db/migrations/0001_init.sql": "CREATE TABLE t (id int);\n"})
    (builder.path / "db/migrations/0002_link.sql").symlink_to("0001_init.sql")
    (builder.path / "db/migrations/0003_out.sql").symlink_to("/etc/passwd")
    builder.commit("links")
    args = ["check-pr", "--repo", str(builder.path), "--base", "1.0.0", "--head", "HEAD"]
    code = run([*args, "--json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code in (0, 1, 3) and "Traceback" not in err
    assert report.get("passed") is not True or report["rollingUpdateSafe"] != True  # noqa: E712


def test_a_blob_past_the_bound_is_refused_from_gits_header_unread(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size git records for a blob is checked before its bytes are read (issue 35 class 8:
    a 400 MB blob took 62 s and 2.8 GB; refused now in 1.5 s, 60 MB): the surface is not
    checked, naming the file. The bound is lowered here so the blob stays small."""
    monkeypatch.setattr(gitrepo, "MAX_FILE_BYTES", 4096)
    builder = make_repo("big")
    builder.release("1.0.0", {"api/openapi.yaml": GOOD_SPEC})
    builder.release("1.1.0", {"api/openapi.yaml": GOOD_SPEC + "x-pad: " + "a" * 5000 + "\n"})
    out, evidence = tmp_path / "a.json", tmp_path / "e.json"
    args = ["generate", "--repo", str(builder.path), "--to", "1.1.0", "--out", str(out)]
    assert run([*args, "--evidence", str(evidence)]) == 0
    assert json.loads(out.read_text())["api"]["rest"]["checked"] is False
    size = len(GOOD_SPEC) + 5008
    assert "api/openapi.yaml at 1.1.0: blob " in evidence.read_text()
    assert f"{size:,} bytes, more than the 4,096 read" in evidence.read_text()
