"""The composite's shape: kebab-case names, every input through env:, pinned nested actions."""

from __future__ import annotations

import re

from action_runner import ACTION, ROOT

from release_safety.cli.action import MODES

KEBAB = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


def test_inputs_and_outputs_are_the_issues_kebab_case_names() -> None:
    assert set(ACTION["inputs"]) == {
        "mode",
        "version",
        "previous-version",
        "index-path",
        "config",
        "python-version",
        "upload-asset",
        "commit-index",
        "comment",
        "github-token",
        "base",
        "head",
        "floor",
        "through",
        "from",
        "to",
        "upload-sarif",
        "fail-on",
        "verify",
        "database-url",
    }
    assert {
        "verdict",
        "gate",
        "rolling-update-safe",
        "strategy",
        "artifact-path",
        "index-path",
        "summary-path",
    } <= set(ACTION["outputs"])
    assert all(KEBAB.match(name) for name in [*ACTION["inputs"], *ACTION["outputs"]])
    assert all(m in ACTION["inputs"]["mode"]["description"] for m in MODES)


def test_every_input_reaches_the_one_call_through_env() -> None:
    steps = ACTION["runs"]["steps"]
    run = next(s for s in steps if s.get("id") == "run")
    passed = " ".join(str(v) for v in run["env"].values())
    for name in ACTION["inputs"]:
        if name != "python-version":
            assert f"inputs.{name} }}}}" in passed, name
    assert run["run"].strip().splitlines()[-1] == '"$VENV/bin/python" -m release_safety.cli.action'
    assert 'export PYTHONPATH="$GITHUB_ACTION_PATH/src"' in run["run"]
    assert all("${{" not in s.get("run", "") for s in steps)


def test_nested_actions_are_pinned_and_python_leaves_the_caller_alone() -> None:
    steps = ACTION["runs"]["steps"]
    uses = [s["uses"] for s in steps if "uses" in s]
    pinned = r"(?:actions/[\w-]+|github/codeql-action/upload-sarif)@[0-9a-f]{40}"
    assert uses and all(re.fullmatch(pinned, u) for u in uses)
    setup = next(s for s in steps if s["uses"].startswith("actions/setup-python@"))
    assert setup["with"]["update-environment"] is False


def test_the_venv_is_installed_from_the_hashed_lock_and_cached_by_its_hash() -> None:
    steps = ACTION["runs"]["steps"]
    prep = next(s for s in steps if s.get("id") == "prep")
    assert 'sha256sum "$GITHUB_ACTION_PATH/requirements.lock"' in prep["run"]
    key = prep["run"].split("key=", 1)[1].splitlines()[0]
    assert "$lock" in key and "$RUNNER_ARCH" in key  # x64 and arm64 runners differ
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"] == {
        "path": "${{ steps.prep.outputs.venv }}",
        "key": "${{ steps.prep.outputs.key }}",
    }
    install = [s["run"] for s in steps if "pip install" in s.get("run", "")]
    assert len(install) == 1
    assert "--require-hashes" in install[0]
    assert '-r "$GITHUB_ACTION_PATH/requirements.lock"' in install[0]


def test_verdict_has_one_vocabulary_across_modes_and_the_docs_say_so() -> None:
    described = " ".join(ACTION["outputs"]["verdict"]["description"].split())
    assert described.startswith("true | false | unknown in every mode")
    assert "pass | fail" in ACTION["outputs"]["gate"]["description"]
    docs = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    row = next(line for line in docs.splitlines() if line.startswith("| `verdict` |"))
    assert "pass" not in row and "`true` / `false` / `unknown`" in row
