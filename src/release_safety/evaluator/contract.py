"""`contract-check`: schemathesis against a running server, and the replay of history rows.

Schemathesis runs as its own process (its CLI is the engine's stable interface) with the
checks for status codes, content types, response schemas, server errors and negative data;
its JSON report gives the failures. `--replay` re-sends each history row's
`requestParameters` to the execute operation of its variant and reports the rows whose
request no longer fits the document or is no longer accepted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml
from jsonschema import Draft4Validator
from openapi_spec_validator import validate as validate_spec

from release_safety.common.errors import CheckError, InputError
from release_safety.common.localfile import read_regular
from release_safety.common.yamlbound import YamlBoundError
from release_safety.common.yamlbound import check as check_bounds
from release_safety.evaluator.execute import operation_of
from release_safety.evaluator.openapi import json_schema, schema_validator

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
)
HISTORY = "/api/v2/projects/{projectUuid}/query/history"
EXECUTE = "/api/v2/projects/{projectUuid}/query/"


@dataclass(frozen=True)
class ContractRun:
    """What to check and how."""

    spec: Path
    base_url: str
    token: str | None
    params: dict[str, str]
    replay: bool
    max_examples: int
    seed: int
    phases: str = "examples,coverage,fuzzing"


@dataclass
class ContractResult:
    """The schemathesis verdict, its failures, and the replay of history rows."""

    schemathesis_exit: int
    test_cases: int
    failures: list[dict[str, Any]]
    errors: list[str]
    output: str
    replay: list[dict[str, Any]] | None = field(default=None)

    @property
    def passed(self) -> bool:
        replay_ok = all(row["result"] == "valid" for row in self.replay or [])
        return self.schemathesis_exit == 0 and not self.failures and not self.errors and replay_ok

    def to_json(self) -> dict[str, Any]:
        """The machine-readable result."""
        return {
            "passed": self.passed,
            "schemathesis": {
                "exitCode": self.schemathesis_exit,
                "testCases": self.test_cases,
                "failures": self.failures,
                "errors": self.errors,
            },
            "replay": self.replay,
        }

    def to_text(self) -> str:
        """Schemathesis's own report, then the replay, then one verdict line."""
        lines = [self.output.rstrip()]
        for row in self.replay or []:
            detail = "; ".join(row["problems"])
            lines.append(
                f"replay {row['queryUuid']} {row['operation']}: {row['result']}"
                + (f" ({detail})" if detail else "")
            )
        lines.append("contract-check: " + ("PASS" if self.passed else "FAIL"))
        return "\n".join(lines)


def load_spec(path: Path) -> dict[str, Any]:
    """Read an OpenAPI document (JSON or YAML, a regular file within the bounds of
    docs/bounds.md) and check it is a valid one (else exit 2)."""
    try:
        text = read_regular(path).decode("utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    try:
        check_bounds(text)
        document = yaml.safe_load(text)
    except YamlBoundError as exc:
        raise InputError(f"{path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not JSON or YAML: {str(exc).splitlines()[0]}") from exc
    if not isinstance(document, dict):
        raise InputError(f"{path}: not an OpenAPI document")
    try:
        validate_spec(document)
    except Exception as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"{path}: invalid OpenAPI document: {message}") from exc
    return document


def ensure_reachable(base_url: str) -> None:
    """Any HTTP answer will do; no answer at all is exit 3."""
    try:
        httpx.get(base_url + "/", timeout=5.0)
    except httpx.HTTPError as exc:
        raise CheckError(f"{base_url}: server unreachable: {exc}") from exc


def _toml_string(value: str) -> str:
    return json.dumps(value)


def run_schemathesis(run: ContractRun, workdir: Path) -> ContractResult:
    """Run schemathesis once and read its JSON report."""
    config = workdir / "schemathesis.toml"
    # Unexpected-method probes feed a check this command does not run: skip them.
    lines = ["[phases.coverage]", "unexpected-methods = []", "", "[parameters]"] + [
        f"{_toml_string(name)} = {_toml_string(value)}" for name, value in run.params.items()
    ]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = workdir / "report.json"
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run",
        str(run.spec), "--url", run.base_url, "--checks", ",".join(CHECKS),
        "--phases", run.phases, "--seed", str(run.seed),
        "--max-examples", str(run.max_examples), "--generation-database", "none",
        "--no-color", "--workers", "2", "--request-timeout", "30",
        "--report", "json", "--report-json-path", str(report),
    ]  # fmt: skip
    if run.token:
        command += ["--header", f"Authorization: ApiKey {run.token}"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if not report.exists():
        raise CheckError(f"schemathesis did not run: {(done.stderr or done.stdout).strip()[:500]}")
    data = json.loads(report.read_text(encoding="utf-8"))
    failures = [
        {"code": f["code"], "title": f["title"], "count": f["count"], "operations": f["operations"]}
        for f in data.get("failures", [])
    ]
    errors = [json.dumps(e, sort_keys=True)[:500] for e in data.get("errors", [])]
    return ContractResult(
        schemathesis_exit=done.returncode,
        test_cases=int(data.get("test_cases", {}).get("generated", 0)),
        failures=failures,
        errors=errors,
        output=done.stdout,
    )


def _request_validator(spec: dict[str, Any], path: str) -> Draft4Validator | None:
    operation = spec.get("paths", {}).get(path, {}).get("post")
    if not isinstance(operation, dict):
        return None
    content = operation.get("requestBody", {}).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    if schema is None:
        return None
    pointer = "/".join(p.replace("~", "~0").replace("/", "~1") for p in ("paths", path, "post"))
    return schema_validator(
        json_schema(spec), f"#/{pointer}/requestBody/content/application~1json/schema"
    )


def history_rows(client: httpx.Client, project: str) -> list[dict[str, Any]]:
    """Every row of the caller's history in the project, newest first."""
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = client.get(
            HISTORY.replace("{projectUuid}", project), params={"page": page, "pageSize": 100}
        )
        if answer.status_code != 200:
            raise CheckError(
                f"history of {project}: HTTP {answer.status_code}: {answer.text[:200]}"
            )
        results = answer.json()["results"]
        rows.extend(results["data"])
        if page >= results.get("pagination", {}).get("totalPageCount", 0):
            return rows
        page += 1


def replay_rows(run: ContractRun, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Re-send each history row's request to its execute operation; report what fails."""
    headers = {"Authorization": f"ApiKey {run.token}"} if run.token else {}
    project = run.params["projectUuid"]
    results = []
    with httpx.Client(base_url=run.base_url, headers=headers, timeout=30.0) as client:
        rows = history_rows(client, project)
        for row in rows:
            body = row.get("requestParameters")
            operation = operation_of(body if isinstance(body, dict) else {})
            template = EXECUTE + operation
            validator = _request_validator(spec, template)
            problems: list[str] = []
            outcome = "valid"
            if validator is None:
                outcome = "not-checked"
                problems.append(f"the document has no POST {template}")
            else:
                problems += [
                    f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message[:200]}"
                    for e in validator.iter_errors(body)
                ]
                answer = client.post(template.replace("{projectUuid}", project), json=body)
                if answer.status_code != 200:
                    problems.append(f"server answered HTTP {answer.status_code}")
                outcome = "invalid" if problems else "valid"
            results.append(
                {
                    "queryUuid": row.get("queryUuid"),
                    "operation": operation,
                    "result": outcome,
                    "problems": problems,
                }
            )
    return results


def run_contract(run: ContractRun) -> ContractResult:
    """The whole check: document, reachability, the replay if asked, then schemathesis."""
    spec = load_spec(run.spec)
    ensure_reachable(run.base_url)
    replayed = replay_rows(run, spec) if run.replay else None  # before fuzzing adds runs
    with tempfile.TemporaryDirectory(prefix="contract-check-") as folder:
        result = run_schemathesis(run, Path(folder))
    result.replay = replayed
    return result
