"""The deployment surface end to end: discovery, fail-closed reading, the verdict, the evidence,
the release notes, the pull-request gate and the demo, on real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from deployment_support import Pair, judged, report

from release_safety.cli.main import run
from release_safety.cli.render.github import SURFACE_TITLES
from release_safety.demo.run import run_demo
from release_safety.git.builder import RepoBuilder
from release_safety.settings.model import DeploymentSettings, Settings

COMPOSE = """\
services:
  app:
    image: example/app:1.0.0
  db:
    image: postgres:15.6
    volumes:
      - pgdata:/var/lib/postgresql/data
volumes:
  pgdata:
"""
PG18 = COMPOSE.replace("postgres:15.6", "postgres:18.1")
ELSEWHERE_ABSENT = """\
[rest]
absent = "the service has no HTTP API; it is a queue worker"
[mcp]
absent = "the service exposes no MCP tools to agents"
[config]
absent = "all configuration comes from the database, not the environment"
"""
INIT = "CREATE TABLE users (id int);\n"


def test_nothing_to_read_at_either_ref_is_not_checked(release_pair: Pair) -> None:
    found = report(release_pair, {"src/main.go": "package main\n"}, {})
    assert not found.checked
    assert found.reason is not None
    assert found.reason.startswith("no deployment descriptor found at v1.0.0 or v1.0.1; tried ")
    assert "'**/docker-compose*.yml'" in found.reason and "'**/Chart.yaml'" in found.reason
    assert [(f.rule, f.severity) for f in found.findings] == [("surface-not-checked", "unknown")]


def test_vendored_and_example_descriptors_are_not_the_service(release_pair: Pair) -> None:
    found = report(
        release_pair,
        {"examples/docker-compose.yml": COMPOSE, "vendor/x/Dockerfile": "FROM redis:7\n"},
        {"examples/docker-compose.yml": PG18},
    )
    assert not found.checked


def test_declared_absent_is_checked_and_a_descriptor_found_is_unknown(release_pair: Pair) -> None:
    reason = "operators deploy with their own manifests; the project ships none"
    settings = Settings(deployment=DeploymentSettings(absent=reason))
    found = report(release_pair, {"src/main.go": "package main\n"}, {}, settings)
    assert found.checked and found.coverage.absent == reason
    assert [(f.rule, f.severity) for f in found.findings] == [
        ("surface-declared-absent", "advisory")
    ]
    found = report(release_pair, {"deploy/compose.yaml": COMPOSE}, {}, settings)
    assert [(f.rule, f.severity, f.file) for f in found.findings] == [
        ("surface-declared-absent", "advisory", ".release-safety.toml"),
        ("absent-contradicted", "unknown", "deploy/compose.yaml"),
    ]


def test_an_unreadable_descriptor_is_not_checked_and_other_breaks_still_count(
    release_pair: Pair,
) -> None:
    found = report(
        release_pair,
        {"docker-compose.yml": COMPOSE, "db/Dockerfile": "FROM postgres:15\n"},
        {"docker-compose.yml": "services: [\n", "db/Dockerfile": "FROM postgres:17\n"},
    )
    assert not found.checked
    assert found.reason == (
        "docker-compose.yml at v1.0.1: not valid YAML: did not find expected node content (line 2)"
    )
    assert [(f.rule, f.severity, f.file) for f in found.findings] == [
        ("deployment-stateful-major-changed", "breaking", "db/Dockerfile"),
        ("surface-not-checked", "unknown", "docker-compose.yml"),
    ]


def test_a_file_named_in_the_settings_must_be_a_descriptor(release_pair: Pair) -> None:
    settings = Settings(deployment=DeploymentSettings(sources=("deploy/stack.toml",)))
    found = report(release_pair, {"deploy/stack.toml": "x = 1\n"}, {}, settings)
    assert not found.checked
    assert found.reason == (
        "deploy/stack.toml: neither its name nor its content says compose file, Chart.yaml "
        "or Dockerfile"
    )
    assert [(f.rule, f.severity, f.file) for f in found.findings] == [
        ("deployment-descriptor-kind-unknown", "unknown", "deploy/stack.toml")
    ]
    hint = found.findings[0].hint or ""
    assert 'path = "deploy/stack.toml", kind = "compose"' in hint


def test_unchanged_descriptors_change_nothing_and_are_still_read(release_pair: Pair) -> None:
    files = {"docker-compose.yml": "services: [\n", "db/Dockerfile": "FROM postgres:15\n"}
    found = report(release_pair, files, {"README.md": "edited\n"})
    assert found.checked and found.findings == []
    assert sorted(found.coverage.new) == ["db/Dockerfile", "docker-compose.yml"]
    assert found.coverage.old == found.coverage.new


def test_a_first_release_breaks_nothing(make_repo: Callable[[str], RepoBuilder]) -> None:
    from release_safety.git.repository import GitRepo
    from release_safety.surfaces.deployment import analyse

    builder = make_repo("first")
    builder.release("1.0.0", {"docker-compose.yml": COMPOSE}, prefix="v")
    repo = GitRepo(builder.path)
    try:
        found = analyse(None, repo.snapshot("v1.0.0"), Settings())
    finally:
        repo.close()
    assert found.checked and found.findings == []


def test_descriptors_of_every_kind_are_read_together(release_pair: Pair) -> None:
    old = {
        "docker-compose.yml": COMPOSE,
        "charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n",
        "charts/app/values.yaml": "replicas: 2\n",
        "charts/app/templates/db.yaml": "image: postgres:15.6\n",
        "images/db/Dockerfile": "FROM postgres:15.6\n",
    }
    new = {
        "docker-compose.yml": PG18,
        "charts/app/templates/db.yaml": "image: postgres:18.1\n",
        "images/db/Dockerfile": "FROM postgres:18.1\n",
    }
    assert [(rule, file) for rule, _, file, _ in judged(release_pair, old, new)] == [
        ("deployment-stateful-major-changed", "charts/app/templates/db.yaml"),
        ("deployment-stateful-major-changed", "docker-compose.yml"),
        ("deployment-stateful-major-changed", "images/db/Dockerfile"),
    ]


def _service(make_repo: Callable[[str], RepoBuilder], compose: str) -> RepoBuilder:
    builder = make_repo("service")
    files = {"db/migrations/001_init.sql": INIT, ".release-safety.toml": ELSEWHERE_ABSENT}
    builder.release("1.0.0", {**files, "deploy/docker-compose.yml": COMPOSE})
    builder.release("1.1.0", {"deploy/docker-compose.yml": compose})
    return builder


def _generate(builder: RepoBuilder, tmp_path: Path) -> tuple[int, Any, Any, str]:
    out, evidence, notes = (tmp_path / name for name in ("a.json", "e.json", "notes.md"))
    code = run(
        [
            *("generate", "--repo", str(builder.path), "--to", "1.1.0", "--out", str(out)),
            *("--evidence", str(evidence), "--notes", str(notes)),
        ]
    )
    return code, json.loads(out.read_text()), json.loads(evidence.read_text()), notes.read_text()


def test_a_major_database_upgrade_is_false_with_evidence_and_notes(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    code, artifact, evidence, notes = _generate(_service(make_repo, PG18), tmp_path)
    assert code == 0
    assert artifact["compatibility"] == {
        "rollingUpdateSafe": False,
        "recommendedStrategy": "Recreate",
    }
    assert "deployment" not in artifact  # the contract stays closed
    [because] = evidence["because"]
    assert (because["rule"], because["surface"], because["file"], because["line"]) == (
        "deployment-stateful-major-changed",
        "deployment",
        "deploy/docker-compose.yml",
        5,
    )
    assert because["message"] == (
        "deploy/docker-compose.yml service `db`: postgres image postgres:15.6 -> postgres:18.1: "
        "major version 15 -> 18"
    )
    assert "### Deployment (breaking: yes)\n\n- ⛔ deploy/docker-compose.yml service `db`" in notes


def test_a_minor_database_update_stays_true_and_is_noted(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    minor = COMPOSE.replace("postgres:15.6", "postgres:15.8")
    _, artifact, evidence, notes = _generate(_service(make_repo, minor), tmp_path)
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    assert [f["rule"] for f in evidence["findings"] if f["surface"] == "deployment"] == [
        "deployment-stateful-updated"
    ]
    assert "### Deployment (breaking: no)\n\n- ℹ️ deploy/docker-compose.yml service `db`" in notes


def test_an_explicit_source_that_matches_nothing_is_exit_2(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("typo")
    settings = ELSEWHERE_ABSENT + '[deployment]\nsources = ["deploy/compose.yml"]\n'
    builder.release("1.0.0", {"db/migrations/001_init.sql": INIT, ".release-safety.toml": settings})
    code = run(["generate", "--repo", str(builder.path), "--to", "1.0.0", "--out", "-"])
    assert code == 2
    assert (
        ".release-safety.toml: key 'deployment.sources': 'deploy/compose.yml' matches nothing "
        "at 1.0.0" in capsys.readouterr().err
    )


def test_the_pull_request_gate_stops_an_undeclared_database_upgrade(
    make_repo: Callable[[str], RepoBuilder], capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("pr")
    files = {"db/migrations/001_init.sql": INIT, ".release-safety.toml": ELSEWHERE_ABSENT}
    builder.release("1.0.0", {**files, "deploy/docker-compose.yml": COMPOSE})
    builder.git("checkout", "-q", "-b", "feature")
    builder.write("deploy/docker-compose.yml", PG18)
    head = builder.commit("postgres 18")
    capsys.readouterr()
    args = ["check-pr", "--repo", str(builder.path), "--base", "main", "--head", head]
    assert run(args) == 1
    assert "major version 15 -> 18 [deployment-stateful-major-changed] (undeclared)" in (
        capsys.readouterr().out
    )
    assert SURFACE_TITLES["deployment"] == "Deployment"  # the sticky comment's table title


def test_the_demo_shows_a_database_update_and_a_major_upgrade(tmp_path: Path) -> None:
    result = run_demo(tmp_path)
    by_version = {g.release.version: g for g in result.generated}
    deployment = {
        version: [f.rule for r in g.reports if r.surface == "deployment" for f in r.findings]
        for version, g in by_version.items()
    }
    assert deployment["1.3.0"] == ["deployment-stateful-updated"]
    assert by_version["1.3.0"].decision.rolling_update_safe is True
    assert deployment["1.6.0"] == ["deployment-stateful-major-changed"]
    assert "deployment-stateful-major-changed" in {
        f.rule for f in by_version["1.6.0"].decision.reasons
    }
    assert all(not rules for v, rules in deployment.items() if v not in ("1.3.0", "1.6.0"))
