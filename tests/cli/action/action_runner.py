"""Run the composite action's steps locally: the env it would set, fake runner files, stub gh."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[3]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")

GH_STUB = """#!{python}
import json, os, sys
args = sys.argv[1:]
record = {{"argv": args}}
if "--input" in args:
    with open(args[args.index("--input") + 1], encoding="utf-8") as handle:
        record["input"] = json.load(handle)
with open(os.environ["GH_STUB_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(record) + "\\n")
if args[:2] == ["api", "--paginate"]:
    sys.stdout.write(os.environ.get("GH_STUB_COMMENT_IDS", ""))
elif args[:2] == ["api", "--method"]:
    sys.stdout.write(json.dumps({{"id": 4242}}))
"""

INIT_SQL = """CREATE TABLE users (
  id bigint PRIMARY KEY,
  email text NOT NULL,
  legacy_id bigint
);
"""


def openapi(properties: list[str]) -> str:
    """A small OpenAPI 3.0 document whose GET /users answers objects with `properties`."""
    schema = {
        "type": "object",
        "required": properties,
        "properties": {name: {"type": "string"} for name in properties},
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "service", "version": "1.0.0"},
        "paths": {
            "/users": {
                "get": {
                    "operationId": "listUsers",
                    "responses": {
                        "200": {
                            "description": "the users",
                            "content": {"application/json": {"schema": schema}},
                        }
                    },
                }
            }
        },
    }
    return json.dumps(document, indent=2) + "\n"


@dataclass
class Run:
    """What one run of the composite's `run` step left behind."""

    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    gh_calls: list[dict[str, Any]]

    def annotations(self, level: str) -> list[str]:
        return [line for line in self.stdout.splitlines() if line.startswith(f"::{level} ")]


def parse_output_file(text: str) -> dict[str, str]:
    """`$GITHUB_OUTPUT` as the runner reads it: `name=value` and `name<<DELIM` blocks."""
    outputs: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, value = line.split("=", 1)
        outputs[name] = value
        i += 1
    return outputs


def _step(step_id: str) -> dict[str, Any]:
    for step in ACTION["runs"]["steps"]:
        if step.get("id") == step_id:
            return dict(step)
    raise KeyError(step_id)


class Runner:
    """A fake runner: workspace, RUNNER_TEMP, the output/summary/event files, gh on PATH."""

    def __init__(self, root: Path, workspace: Path) -> None:
        self.root = root
        self.workspace = workspace
        self.temp = root / "runner-temp"
        self.temp.mkdir(parents=True, exist_ok=True)
        self.bin = root / "bin"
        self.bin.mkdir(exist_ok=True)
        gh = self.bin / "gh"
        gh.write_text(GH_STUB.format(python=sys.executable), encoding="utf-8")
        gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
        self.gh_log = root / "gh-calls.jsonl"
        self.steps: dict[str, dict[str, str]] = {}
        self.count = 0

    def _expand(self, text: str, inputs: Mapping[str, str]) -> str:
        def value(match: re.Match[str]) -> str:
            expr = match.group(1)
            if expr.startswith("inputs."):
                name = expr.removeprefix("inputs.")
                return inputs.get(name, str(ACTION["inputs"][name].get("default", "")))
            if expr.startswith("steps."):
                _, step, _, name = expr.split(".", 3)
                return self.steps.get(step, {}).get(name, "")
            if expr == "github.token":
                return "test-token"
            raise AssertionError(f"expression the test runner does not know: {expr}")

        return EXPRESSION.sub(value, text)

    def _bash(self, step_id: str, inputs: Mapping[str, str], env: Mapping[str, str]) -> Run:
        step = _step(step_id)
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], "inputs reach run: bodies through env: only"
        self.count += 1
        output = self.root / f"output-{self.count}"
        summary = self.root / f"summary-{self.count}"
        output.touch()
        summary.touch()
        self.gh_log.write_text("", encoding="utf-8")
        step_env = {k: self._expand(str(v), inputs) for k, v in (step.get("env") or {}).items()}
        full = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))},
            "PATH": f"{self.bin}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(self.temp),
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "GH_STUB_LOG": str(self.gh_log),
            **env,
            **step_env,
        }
        done = subprocess.run(
            ["bash", "-c", step["run"]],
            cwd=self.workspace,
            env=full,
            capture_output=True,
            text=True,
            check=False,
        )
        outputs = parse_output_file(output.read_text(encoding="utf-8"))
        self.steps[step_id] = outputs
        calls = [json.loads(x) for x in self.gh_log.read_text(encoding="utf-8").splitlines()]
        return Run(
            done.returncode,
            done.stdout,
            done.stderr,
            outputs,
            summary.read_text(encoding="utf-8"),
            calls,
        )

    def composite(
        self,
        inputs: Mapping[str, str],
        event: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Run:
        """The prepare step, an installed venv (this interpreter), then the `run` step."""
        self.steps["python"] = {"python-version": "3.11.7", "python-path": sys.executable}
        prep = self._bash("prep", inputs, {})
        assert prep.code == 0, prep.stderr
        venv = Path(prep.outputs["venv"])
        (venv / "bin").mkdir(parents=True, exist_ok=True)
        python = venv / "bin" / "python"
        python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
        python.chmod(0o755)
        event_path = self.root / "event.json"
        event_path.write_text(json.dumps(event or {}), encoding="utf-8")
        extra = {"GITHUB_EVENT_PATH": str(event_path), "GITHUB_REPOSITORY": "acme/service"}
        return self._bash("run", inputs, {**extra, **(env or {})})


def git(path: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=path, check=True, capture_output=True, text=True)
    return done.stdout.strip()
