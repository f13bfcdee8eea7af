"""The commands: `serve-evaluator` as a real process, `contract-check` with schemathesis."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from evaluator_support import (
    ALICE_TOKEN,
    JAFFLE,
    NOW,
    Client,
    Running,
    dataset,
    free_socket,
    make_run,
)
from openapi_spec_validator import validate

from release_safety.cli.main import run
from release_safety.evaluator.openapi import openapi_document

BIN = str(Path(sys.executable).with_name("release-safety"))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture
def process(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """Start `release-safety serve-evaluator` processes; each stops at the end."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str) -> str:
        sock = free_socket()
        port = sock.getsockname()[1]
        sock.close()
        proc = subprocess.Popen(
            [BIN, "serve-evaluator", "--port", str(port), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(proc)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(url + "/", timeout=1)
                return url
            except httpx.HTTPError:
                assert proc.poll() is None, "serve-evaluator exited"
                assert time.monotonic() < deadline, "serve-evaluator did not answer"
                time.sleep(0.1)

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(timeout=10)


def test_print_openapi_is_a_valid_openapi_3_document() -> None:
    done = cli("serve-evaluator", "--print-openapi")
    assert done.returncode == 0
    document = json.loads(done.stdout)
    validate(document)
    assert document["openapi"].startswith("3.0.")
    assert document["info"]["version"] == "2.191.0"


def test_serve_evaluator_with_data_file_db_and_fixed_clock(
    process: Callable[..., str], tmp_path: Path
) -> None:
    data = dataset([make_run("only-run", "now-2m"), make_run("stale", "2020-01-01T00:00:00Z")])
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    db = tmp_path / "evaluator.sqlite"
    url = process("--data", str(path), "--db", str(db), "--now", NOW)
    results = Client(url).history()
    assert [row["queryUuid"] for row in results["data"]] == ["only-run"]
    assert results["data"][0]["createdAt"] == "2026-11-20T11:58:00.000Z"
    assert results["counts"]["windows"]["lastFewMinutes"] == 1
    assert db.exists() and db.stat().st_size > 0


def test_serve_evaluator_without_data_serves_the_seed(process: Callable[..., str]) -> None:
    url = process()
    answer = Client(url).get("/api/v1/org/users")
    assert answer.status_code == 200
    assert len(answer.json()["results"]) == 5


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["queryRuns"][0].update(projectUuid="nope"), "/queryRuns/0/projectUuid"),
        (lambda d: d["queryRuns"][0].update(createdAt="yesterday"), "/queryRuns/0/createdAt"),
        (lambda d: d["queryRuns"][0].update(context="legacyThing"), "/queryRuns/0/context"),
        (lambda d: d["queryRuns"].append(dict(d["queryRuns"][0])), "duplicate queryUuid"),
        (
            lambda d: d["queryRuns"][0].update(requestParameters={"limit": 1}),
            "does not fit ExecuteAsyncQueryRequestParams",
        ),
        (lambda d: d.pop("users"), "'users' is a required property"),
    ],
)
def test_bad_data_file_is_exit_2_naming_the_place(
    tmp_path: Path, mutate: Callable[[dict[str, Any]], Any], message: str
) -> None:
    data = copy.deepcopy(dataset([make_run("r1", "now-1m")]))
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    done = cli("serve-evaluator", "--data", str(path), "--port", "0")
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_clock_and_busy_port(tmp_path: Path) -> None:
    assert run(["serve-evaluator", "--now", "tomorrow"]) == 2
    sock = free_socket()
    sock.listen()
    port = str(sock.getsockname()[1])
    done = cli("serve-evaluator", "--port", port, "--now", NOW)
    sock.close()
    assert done.returncode == 3
    assert "cannot listen" in done.stderr


def trimmed_spec(
    tmp_path: Path, keep: list[str], edit: Callable[[dict[str, Any]], Any] | None = None
) -> Path:
    document = copy.deepcopy(openapi_document())
    document["paths"] = {path: document["paths"][path] for path in keep}
    if edit:
        edit(document)
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


HISTORY_PATH = "/api/v2/projects/{projectUuid}/query/history"


def contract(spec: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return cli(
        "contract-check", "--spec", str(spec), "--base-url", url, "--token", ALICE_TOKEN,
        "--param", f"projectUuid={JAFFLE}", "--max-examples", "3", "--seed", "7", *extra,
    )  # fmt: skip


def test_contract_check_passes_on_the_evaluator(seeded: Running, tmp_path: Path) -> None:
    spec = trimmed_spec(tmp_path, [HISTORY_PATH, "/api/v1/org/users"])
    done = contract(spec, seeded.url, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["passed"] is True
    assert result["schemathesis"]["testCases"] > 10
    assert result["schemathesis"]["failures"] == []


def test_contract_check_reports_a_response_schema_violation(
    seeded: Running, tmp_path: Path
) -> None:
    def require_more(document: dict[str, Any]) -> None:
        member = document["components"]["schemas"]["OrganizationMember"]
        member["properties"]["phone"] = {"type": "string"}
        member["required"].append("phone")

    spec = trimmed_spec(tmp_path, ["/api/v1/org/users"], require_more)
    done = contract(spec, seeded.url, "--json")
    assert done.returncode == 1
    failures = json.loads(done.stdout)["schemathesis"]["failures"]
    assert [f["code"] for f in failures] == ["ST108"]
    assert failures[0]["operations"] == ["GET /api/v1/org/users"]


def test_contract_check_replay(start_server: Callable[..., Running], tmp_path: Path) -> None:
    running = start_server()
    query_paths = [p for p in openapi_document()["paths"] if "/query/" in p]
    with_execute = trimmed_spec(tmp_path, query_paths)
    good = contract(with_execute, running.url, "--replay", "--json", "--phases", "examples")
    replayed = json.loads(good.stdout)["replay"]
    assert replayed and {row["result"] for row in replayed} == {"valid"}
    assert len({row["operation"] for row in replayed}) >= 6
    without_execute = trimmed_spec(tmp_path, [HISTORY_PATH])
    missing = contract(without_execute, running.url, "--replay", "--json", "--phases", "examples")
    assert missing.returncode == 1
    assert {row["result"] for row in json.loads(missing.stdout)["replay"]} == {"not-checked"}


def test_contract_check_bad_input_and_unreachable(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"openapi": "3.0.3", "info": {}}')
    assert (
        cli("contract-check", "--spec", str(bad), "--base-url", "http://127.0.0.1:9").returncode
        == 2
    )
    missing = cli("contract-check", "--spec", str(tmp_path / "nope.json"), "--base-url", "x")
    assert missing.returncode == 2
    spec = trimmed_spec(tmp_path, ["/api/v1/org/users"])
    sock = free_socket()
    port = sock.getsockname()[1]
    sock.close()
    down = cli(
        "contract-check", "--spec", str(spec), "--base-url", f"http://127.0.0.1:{port}", "--json"
    )
    assert down.returncode == 3
    assert json.loads(down.stdout)["error"]["exitCode"] == 3
    no_project = cli("contract-check", "--spec", str(spec), "--base-url", "http://x", "--replay")
    assert no_project.returncode == 2
