"""`upgrade-check` and `upgrade-plan` end to end: output, JSON contract, exit codes, sources."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from upgrade_indexes import EXAMPLE_INDEX, IndexServer, chained, entry, index_doc

from release_safety.cli.main import run
from release_safety.common.jsonio import MAX_DEPTH

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "schemas" / "upgrade-check.schema.json").read_text()
)
DOC = EXAMPLE_INDEX


@pytest.fixture
def index_file(tmp_path: Path) -> Path:
    path = tmp_path / "release-safety-index.json"
    path.write_text(json.dumps(DOC, indent=2))
    return path


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run(list(args))
    return code, capsys.readouterr().out


def call_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code, out = call(capsys, *args, "--json")
    return code, json.loads(out)


def test_safe_span_exits_zero_with_the_human_lines(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    code, out = call(
        capsys, "upgrade-check", "--from", "1.4.0", "--to", "1.5.0", "--index", str(index_file)
    )
    assert code == 0
    assert out.splitlines() == [
        "Upgrade check: 1.4.0 → 1.5.0",
        "Direction: upgrade",
        "Verdict: SAFE",
        "Unsafe rolling-update safety: none",
        "Unknown rolling-update safety: none",
        "Required stops: none",
        "Minimum previous version: 1.4.0",
        "Missing coverage: none",
        "Covered releases: 1.5.0",
    ]


def test_unsafe_span_lists_why_and_exits_one(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    code, out = call(
        capsys, "upgrade-check", "--from", "1.0.0", "--to", "1.5.0", "--index", str(index_file)
    )
    assert code == 1
    lines = out.splitlines()
    assert lines[2:8] == [
        "Verdict: UNSAFE (not safe to roll: 1.2.0; backfilled, never proven safe: 1.3.0;"
        " required stops in between: 1.3.0; upgrading needs 1.4.0 or later to start from)",
        "Unsafe rolling-update safety: 1.2.0",
        "Unknown rolling-update safety: 1.3.0 (backfilled)",
        "Required stops: 1.3.0",
        "Minimum previous version: 1.4.0 (above 1.0.0: go through an intermediate version)",
        "Missing coverage: none",
    ]
    assert lines[8] == "Covered releases: 1.1.0, 1.2.0, 1.3.0, 1.4.0, 1.5.0"
    assert lines[9] == (
        f"Route: release-safety upgrade-plan --from 1.0.0 --to 1.5.0 --index {index_file}"
    )


BACKFILLED_SPAN = index_doc(
    [
        entry("1.4.2", "1.4.1", "unknown"),  # backfilled
        entry("1.4.3", "1.4.2", True),
        entry("1.5.0", "1.4.3", True, stops=("1.4.3",)),
    ]
)


@pytest.fixture
def backfilled_index(tmp_path: Path) -> Path:
    path = tmp_path / "backfilled-index.json"
    path.write_text(json.dumps(BACKFILLED_SPAN, indent=2))
    return path


def test_an_unknown_span_says_unknown_and_why_in_text_as_its_json_does(
    capsys: pytest.CaptureFixture[str], backfilled_index: Path
) -> None:
    args = ["--from", "1.4.1", "--to", "1.4.3", "--index", str(backfilled_index)]
    code, out = call(capsys, "upgrade-check", *args)
    assert code == 1
    assert out.splitlines()[2:9] == [
        "Verdict: UNKNOWN (backfilled, never proven safe: 1.4.2)",
        "Unsafe rolling-update safety: none",
        "Unknown rolling-update safety: 1.4.2 (backfilled)",
        "Required stops: none",
        "Minimum previous version: none",
        "Missing coverage: none",  # 1.4.2's previousVersion is 1.4.1: the step is covered
        "Covered releases: 1.4.2, 1.4.3",
    ]
    code, data = call_json(capsys, "upgrade-check", *args)
    assert (code, data["verdict"], data["missingRanges"]) == (1, "unknown", [])


def test_a_start_the_index_does_not_know_is_unknown_with_the_gap(
    capsys: pytest.CaptureFixture[str], backfilled_index: Path
) -> None:
    args = ["--from", "1.4.0", "--to", "1.4.3", "--index", str(backfilled_index)]
    code, out = call(capsys, "upgrade-check", *args)
    assert code == 1
    assert out.splitlines()[2] == (
        "Verdict: UNKNOWN (backfilled, never proven safe: 1.4.2; no coverage before 1.4.2)"
    )


def test_a_true_span_blocked_by_a_stop_says_why_it_does_not_roll_in_one_hop(
    capsys: pytest.CaptureFixture[str], backfilled_index: Path
) -> None:
    args = ["--from", "1.4.2", "--to", "1.5.0", "--index", str(backfilled_index)]
    code, out = call(capsys, "upgrade-check", *args)
    assert code == 1
    assert out.splitlines()[2] == "Verdict: UNSAFE in one hop (required stops in between: 1.4.3)"


@pytest.mark.parametrize("command", ["upgrade-check", "upgrade-plan"])
def test_versions_given_with_a_tags_v_are_taken_as_the_versions(
    capsys: pytest.CaptureFixture[str], backfilled_index: Path, command: str
) -> None:
    index = ["--index", str(backfilled_index)]
    plain = call_json(capsys, command, "--from", "1.4.2", "--to", "1.4.3", *index)
    tagged = call_json(capsys, command, "--from", "v1.4.2", "--to", "v1.4.3", *index)
    assert tagged == plain
    assert (tagged[1]["fromVersion"], tagged[1]["toVersion"]) == ("1.4.2", "1.4.3")


def test_the_route_hint_repeats_the_index_options_given_and_runs_as_printed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    odd = tmp_path / "my index.json"
    odd.write_text(json.dumps(DOC, indent=2))
    pin = hashlib.sha256(odd.read_bytes()).hexdigest()
    args = ["--from", "1.0.0", "--to", "1.5.0", "--index", str(odd), "--index-sha256", pin]
    code, out = call(capsys, "upgrade-check", *args)
    assert code == 1
    route = out.splitlines()[-1].removeprefix("Route: ")
    assert shlex.split(route) == ["release-safety", "upgrade-plan", *args]
    code, plan = call(capsys, *shlex.split(route)[1:])
    assert plan.startswith("Upgrade plan: 1.0.0 → 1.5.0\n")


@pytest.mark.parametrize(
    ("start", "target", "code"),
    [("1.4.0", "1.5.0", 0), ("1.0.0", "1.5.0", 1), ("1.5.0", "1.4.0", 1), ("1.5.0", "1.9.0", 1)],
)
def test_json_is_the_contract_and_valid_against_the_schema(
    capsys: pytest.CaptureFixture[str], index_file: Path, start: str, target: str, code: int
) -> None:
    exit_code, data = call_json(
        capsys, "upgrade-check", "--from", start, "--to", target, "--index", str(index_file)
    )
    assert exit_code == code
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["safe"] is (code == 0)
    assert (data["fromVersion"], data["toVersion"]) == (start, target)


def test_downgrade_is_reported_and_never_safe(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    code, data = call_json(
        capsys, "upgrade-check", "--from", "1.5.0", "--to", "1.4.0", "--index", str(index_file)
    )
    assert code == 1
    assert (data["direction"], data["safe"], data["verdict"]) == ("downgrade", False, "unknown")


def test_below_the_floor_reports_the_floor_as_a_stop(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    code, data = call_json(
        capsys, "upgrade-check", "--from", "0.9.0", "--to", "1.1.0", "--index", str(index_file)
    )
    assert code == 1
    assert data["requiredStops"] == ["1.0.0"]
    assert data["missingRanges"] == []


def test_malformed_version_is_a_json_error_with_exit_two(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    code, data = call_json(
        capsys, "upgrade-check", "--from", "1.4", "--to", "1.5.0", "--index", str(index_file)
    )
    assert code == 2
    assert data["error"]["exitCode"] == 2
    assert "not a release version" in data["error"]["message"]


def test_missing_option_is_a_json_error_with_exit_two(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = call_json(capsys, "upgrade-check", "--from", "1.4.0")
    assert code == 2
    assert data["error"]["kind"] == "usage"


def test_unreadable_index_is_exit_three_not_unsafe(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, data = call_json(
        capsys,
        "upgrade-check",
        "--from",
        "1.0.0",
        "--to",
        "1.1.0",
        "--index",
        str(tmp_path / "none.json"),
    )
    assert code == 3
    assert data["error"]["exitCode"] == 3


def test_invalid_index_is_exit_three(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "index.json"
    path.write_text(json.dumps({**DOC, "extra": 1}))
    code, data = call_json(
        capsys, "upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--index", str(path)
    )
    assert code == 3
    assert "could not be validated" in data["error"]["message"]


@pytest.mark.parametrize("where", ["unknown key", "required stops", "an entry"])
def test_an_index_nested_too_deep_is_exit_three_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    """Only a failed index is walked for depth (the schema bounds a valid one): nesting that
    `json` still reads is named as too deep, wherever it hides, never a traceback."""
    deep = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    first = json.dumps(DOC["entries"][0])
    plain = json.dumps(DOC)
    text = {
        "unknown key": plain[:-1] + f', "x": {deep}}}',
        "required stops": plain.replace('"requiredStops": []', f'"requiredStops": {deep}'),
        "an entry": plain.replace(first, deep),
    }[where]
    path = tmp_path / "index.json"
    path.write_text(text)
    code, data = call_json(
        capsys, "upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--index", str(path)
    )
    assert code == 3
    assert data["error"]["message"] == (
        f"could not be validated: {path}: not valid JSON: nested deeper than {MAX_DEPTH} levels"
    )
    assert run(["validate", str(path)]) == 2
    assert f"nested deeper than {MAX_DEPTH} levels" in capsys.readouterr().err


def test_human_errors_go_to_stderr_as_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = run(
        ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--index", str(tmp_path / "x")]
    )
    captured = capsys.readouterr()
    assert code == 3
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1


def test_url_source_with_cache_offline_and_pin(
    capsys: pytest.CaptureFixture[str], index_server: IndexServer
) -> None:
    body = index_server.serve(DOC)
    pin = hashlib.sha256(body).hexdigest()
    args = ["upgrade-check", "--from", "1.4.0", "--to", "1.5.0", "--index", index_server.url]
    assert call_json(capsys, *args, "--index-sha256", pin)[0] == 0
    assert call_json(capsys, *args, "--offline")[0] == 0
    code, data = call_json(capsys, *args, "--index-sha256", "1" * 64)
    assert code == 3
    assert "SHA-256" in data["error"]["message"]
    assert index_server.served.statuses == [200, 304]


def test_fetch_failure_is_exit_three_with_json(
    capsys: pytest.CaptureFixture[str], index_server: IndexServer
) -> None:
    index_server.serve(DOC)
    index_server.served.failures = 100
    index_server.served.failure_status = 500
    code, data = call_json(
        capsys, "upgrade-check", "--from", "1.4.0", "--to", "1.5.0", "--index", index_server.url
    )
    assert code == 3
    assert data["error"]["kind"] == "io"


def test_default_source_is_index_path_from_the_settings(
    capsys: pytest.CaptureFixture[str],
    index_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".release-safety.toml").write_text(f'index_path = "{index_file}"\n')
    monkeypatch.chdir(work)
    assert call_json(capsys, "upgrade-check", "--from", "1.4.0", "--to", "1.5.0")[0] == 0


def test_default_source_prefers_index_url(
    capsys: pytest.CaptureFixture[str],
    index_server: IndexServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    index_server.serve(DOC)
    (tmp_path / ".release-safety.toml").write_text(
        f'index_url = "{index_server.url}"\nindex_path = "absent.json"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert call_json(capsys, "upgrade-check", "--from", "1.4.0", "--to", "1.5.0")[0] == 0
    assert index_server.served.statuses == [200]


def test_without_settings_the_index_in_the_current_folder_is_used(
    capsys: pytest.CaptureFixture[str], index_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(index_file.parent)
    assert call_json(capsys, "upgrade-check", "--from", "1.4.0", "--to", "1.5.0")[0] == 0


def test_index_option_overrides_the_settings(
    capsys: pytest.CaptureFixture[str],
    index_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".release-safety.toml").write_text('index_url = "http://127.0.0.1:9/never"\n')
    monkeypatch.chdir(work)
    args = ["--from", "1.4.0", "--to", "1.5.0", "--index", str(index_file)]
    assert call_json(capsys, "upgrade-check", *args)[0] == 0


def test_plan_routes_through_stops_with_strategy_and_mapping(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    code, plan = call_json(
        capsys, "upgrade-plan", "--from", "0.9.0", "--to", "1.5.0", "--index", str(index_file)
    )
    assert code == 0
    route = [
        (h["fromVersion"], h["toVersion"], h["strategy"], h["stopReason"]) for h in plan["hops"]
    ]
    assert route == [
        ("0.9.0", "1.0.0", "Recreate", "floor"),
        ("1.0.0", "1.3.0", "Recreate", "required-stop"),
        ("1.3.0", "1.4.0", "RollingUpdate", "min-previous-version"),
        ("1.4.0", "1.5.0", "RollingUpdate", "target"),
    ]
    assert plan["hops"][2]["stopRequiredBy"] == ["1.5.0"]
    third = plan["hops"][1]
    assert third["forcedBy"] == [
        {"version": "1.2.0", "rollingUpdateSafe": False, "backfilled": False},
        {"version": "1.3.0", "rollingUpdateSafe": "unknown", "backfilled": True},
    ]
    assert third["stopRequiredBy"] == ["1.4.0"]
    assert third["deployment"]["helm"] == {"upgradeMode": "Recreate"}
    # no release carries a Recreate note: none is made up (it was another service's chart)
    assert [hop["deployment"]["note"] for hop in plan["hops"]] == [None] * 4
    assert plan["hops"][3]["deployment"]["compose"].endswith("start with the new tag")


def test_plan_human_output_numbers_the_hops(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    code, out = call(
        capsys, "upgrade-plan", "--from", "1.1.0", "--to", "1.5.0", "--index", str(index_file)
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[:4] == [
        "Upgrade plan: 1.1.0 → 1.5.0",
        "Direction: upgrade",
        "Complete: yes",
        "Hops: 3",
    ]
    assert lines[4:9] == [
        "1. 1.1.0 → 1.3.0: Recreate (stop: required stop, for 1.4.0)",
        "   releases: 2; Recreate because of: 1.2.0 (false), 1.3.0 (unknown, backfilled)",
        "   compose: stop the application, change the image tag to 1.3.0, start it again",
        "   helm: upgrade.mode: Recreate",
        "2. 1.3.0 → 1.4.0: RollingUpdate (stop: min previous version, for 1.5.0)",
    ]
    assert "chart" not in out and "note:" not in out
    assert out.rstrip().endswith("Missing coverage: none")


def test_plan_with_a_gap_is_incomplete(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "gap.json"
    path.write_text(
        json.dumps(index_doc([*chained(("1.0.0", True), ("1.1.0", True)), entry("1.3.0", "1.2.0")]))
    )
    code, plan = call_json(
        capsys, "upgrade-plan", "--from", "1.0.0", "--to", "1.3.0", "--index", str(path)
    )
    assert code == 1
    assert plan["complete"] is False
    assert plan["missingRanges"] == [{"afterVersion": "1.1.0", "beforeVersion": "1.3.0"}]
    assert plan["hops"][0]["strategy"] == "Recreate"


def test_plan_for_a_downgrade_has_no_route(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    code, plan = call_json(
        capsys, "upgrade-plan", "--from", "1.5.0", "--to", "1.1.0", "--index", str(index_file)
    )
    assert code == 1
    assert (plan["direction"], plan["hops"]) == ("downgrade", [])
    assert "never proven safe" in plan["problem"]


def test_plan_reports_an_unreachable_release(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "odd.json"
    entries = [
        *chained(("1.0.0", True), ("1.1.0", True)),
        entry("1.2.0", "1.1.0", True, min_previous="1.1.5"),
    ]
    path.write_text(json.dumps(index_doc(entries)))
    code, out = call(
        capsys, "upgrade-plan", "--from", "1.0.0", "--to", "1.2.0", "--index", str(path)
    )
    assert code == 1
    assert "Problem: 1.2.0 needs 1.1.5 or later to upgrade from" in out


def test_upgrade_plan_markdown_draws_the_route_as_a_mermaid_graph(
    capsys: pytest.CaptureFixture[str], index_file: Path
) -> None:
    args = ["--from", "1.0.0", "--to", "1.5.0", "--index", str(index_file)]
    _, plan = call_json(capsys, "upgrade-plan", *args)
    code, out = call(capsys, "upgrade-plan", *args, "--format", "markdown")
    assert code == (0 if plan["complete"] else 1)
    assert out.startswith("## Upgrade plan: 1.0.0 → 1.5.0\n\n```mermaid\ngraph LR\n")
    assert '  v1_0_0["1.0.0<br/>running"]' in out
    for hop in plan["hops"]:
        arrow = "-->" if hop["strategy"] == "RollingUpdate" else "-.->"
        edge = f"v{hop['fromVersion'].replace('.', '_')} {arrow}|{hop['strategy']}| "
        assert f"  {edge}v{hop['toVersion'].replace('.', '_')}\n" in out
        assert f"| {hop['fromVersion']} → {hop['toVersion']} | `{hop['strategy']}` |" in out
    assert len(plan["hops"]) >= 2  # the example index has a required stop: a real route
    assert json.loads(call(capsys, "upgrade-plan", *args, "--format", "json")[1]) == plan
