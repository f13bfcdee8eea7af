"""Deployment knows what it does not know: the catalogue's databases, queues and stores with
their own major rules, images it does not know that keep data, Dockerfiles by content or by a
source's kind, and discovery that leaves developer-only descriptors out (and says so). Releases
are generated on real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from deployment_support import Pair, judged, report

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder
from release_safety.settings.model import DeploymentSettings, DeploymentSource, Settings
from release_safety.surfaces.deployment.dockerfile import MAX_CONTINUED_LINES

ELSEWHERE_ABSENT = """\
[rest]
absent = "the service has no HTTP API; it is a queue worker"
[mcp]
absent = "the service exposes no MCP tools to agents"
[config]
absent = "all configuration comes from the database, not the environment"
[migrations]
absent = "the service keeps its data in the bundled stores"
"""


def _compose(image: str, volume: bool = True) -> str:
    mounts = "    volumes:\n      - data:/var/lib/store\n" if volume else ""
    return (
        "services:\n  app:\n    image: example/app:1.0.0\n"
        f"  store:\n    image: {image}\n{mounts}volumes:\n  data:\n"
    )


def _generate(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    old: dict[str, str],
    new: dict[str, str],
    settings: str = "",
) -> tuple[Any, Any]:
    """The artifact and the evidence of release 1.1.0 after 1.0.0."""
    builder = make_repo("service")
    builder.release("1.0.0", {**old, ".release-safety.toml": ELSEWHERE_ABSENT + settings})
    builder.release("1.1.0", new)
    out, evidence = tmp_path / "a.json", tmp_path / "e.json"
    args = ["generate", "--repo", str(builder.path), "--to", "1.1.0", "--out", str(out)]
    assert run([*args, "--evidence", str(evidence)]) == 0
    return json.loads(out.read_text()), json.loads(evidence.read_text())


def _safe(artifact: Any) -> object:
    return artifact["compatibility"]["rollingUpdateSafe"]


def _deployment(evidence: Any) -> list[tuple[str, str | None, int | None]]:
    return [
        (f["rule"], f.get("file"), f.get("line"))
        for f in evidence["findings"]
        if f["surface"] == "deployment"
    ]


def _coverage(evidence: Any) -> Any:
    [found] = [s for s in evidence["surfaces"] if s["surface"] == "deployment"]
    return found["coverage"]


def test_a_cockroachdb_release_line_is_a_major_upgrade(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    old = _compose("cockroachdb/cockroach:v23.1.11")
    new = _compose("cockroachdb/cockroach:v23.2.4")
    artifact, evidence = _generate(
        make_repo, tmp_path, {"docker-compose.yml": old}, {"docker-compose.yml": new}
    )
    assert _safe(artifact) is False
    assert _deployment(evidence) == [("deployment-stateful-major-changed", "docker-compose.yml", 5)]
    assert _coverage(evidence)["understood"] == {
        "docker-compose.yml service `store` (cockroachdb cockroachdb/cockroach:v23.2.4)": (
            "docker-compose.yml:5"
        )
    }


def test_an_unknown_image_with_a_volume_moving_major_is_unknown(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    old, new = _compose("example/ledger:1.4.2"), _compose("example/ledger:2.0.0")
    artifact, evidence = _generate(
        make_repo, tmp_path, {"docker-compose.yml": old}, {"docker-compose.yml": new}
    )
    assert _safe(artifact) == "unknown"
    [finding] = [f for f in evidence["findings"] if f["surface"] == "deployment"]
    assert (finding["rule"], finding["file"], finding["line"]) == (
        "deployment-uncatalogued-major-changed",
        "docker-compose.yml",
        5,
    )
    assert (
        "example/ledger:1.4.2 -> example/ledger:2.0.0 moves major version 1 -> 2"
        in (finding["message"])
    )
    assert 'add "example/ledger" to [deployment] stateless' in finding["hint"]
    [gap] = _coverage(evidence)["unmodelled"]
    assert (gap["file"], gap["line"]) == ("docker-compose.yml", 5)
    assert "example/ledger:2.0.0, which mounts /var/lib/store" in gap["what"]


def test_the_same_image_without_a_volume_is_quiet(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    old = _compose("example/ledger:1.4.2", volume=False)
    new = _compose("example/ledger:2.0.0", volume=False)
    artifact, evidence = _generate(
        make_repo, tmp_path, {"docker-compose.yml": old}, {"docker-compose.yml": new}
    )
    assert _safe(artifact) is True
    assert _deployment(evidence) == []
    assert _coverage(evidence)["unmodelled"] == []


def test_an_image_declared_stateless_is_quiet(release_pair: Pair) -> None:
    settings = Settings(deployment=DeploymentSettings(stateless=("example/ledger",)))
    found = report(
        release_pair,
        {"docker-compose.yml": _compose("example/ledger:1.4.2")},
        {"docker-compose.yml": _compose("example/ledger:2.0.0")},
        settings,
    )
    assert found.checked and found.findings == [] and found.coverage.unmodelled == []


def test_a_minor_move_of_an_unknown_image_with_a_volume_is_quiet(release_pair: Pair) -> None:
    old, new = _compose("example/ledger:1.4.2"), _compose("example/ledger:1.9.0")
    assert judged(release_pair, {"compose.yaml": old}, {"compose.yaml": new}) == []


def test_a_dev_compose_files_database_bump_is_not_read_and_is_listed(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    prod = _compose("postgres:16.4")
    files = {
        "docker-compose.yml": prod,
        "docker-compose-dev.yml": _compose("postgres:15.6"),
        "docker/dev/compose.yml": _compose("mysql:8.0"),
        "app/Dockerfile.dev": "FROM postgres:15\n",
        ".devcontainer/Dockerfile": "FROM postgres:15\n",
    }
    new = {
        "docker-compose-dev.yml": _compose("postgres:17.2"),
        "docker/dev/compose.yml": _compose("mysql:8.4"),
        "app/Dockerfile.dev": "FROM postgres:17\n",
    }
    artifact, evidence = _generate(make_repo, tmp_path, files, new)
    assert _safe(artifact) is True
    assert _deployment(evidence) == []
    coverage = _coverage(evidence)
    assert list(coverage["new"]) == ["docker-compose.yml"]
    left = {gap["file"]: gap["what"] for gap in coverage["unmodelled"]}
    assert sorted(left) == [
        "app/Dockerfile.dev",
        "docker-compose-dev.yml",
        "docker/dev/compose.yml",
    ]
    assert left["docker/dev/compose.yml"] == (
        "docker/dev/compose.yml left out: developer-only: `dev` in its path "
        "(glob '**/compose*.yml')"
    )


def test_a_glob_that_names_dev_reads_dev_files(release_pair: Pair) -> None:
    settings = Settings(
        deployment=DeploymentSettings(sources=(DeploymentSource(path="docker/dev/*.yml"),))
    )
    found = report(
        release_pair,
        {"docker/dev/compose.yml": _compose("postgres:15.6")},
        {"docker/dev/compose.yml": _compose("postgres:17.2")},
        settings,
    )
    assert [f.rule for f in found.findings] == ["deployment-stateful-major-changed"]


def test_exclude_leaves_a_descriptor_out_and_says_so(release_pair: Pair) -> None:
    settings = Settings(deployment=DeploymentSettings(exclude=("deploy/staging/**",)))
    found = report(
        release_pair,
        {"compose.yaml": _compose("redis:7.2"), "deploy/staging/compose.yaml": _compose("redis:7")},
        {"deploy/staging/compose.yaml": _compose("redis:8")},
        settings,
    )
    assert found.checked and found.findings == []
    [gap] = found.coverage.unmodelled
    assert (
        gap.what
        == "deploy/staging/compose.yaml left out: [deployment] exclude 'deploy/staging/**' names it"
    )
    assert "take it out of `exclude`" in gap.way_out


@pytest.mark.parametrize(
    "dev",
    [
        {"docker-compose-dev.yml": _compose("postgres:15.6")},
        {"docker/dev/compose.yml": _compose("postgres:15.6"), "Dockerfile.dev": "FROM node:20\n"},
        {
            "tools/mockery/Dockerfile": "FROM golang:1.22\n",
            "x/watcherx/integrationtest/Dockerfile": "FROM golang:1.22\n",
        },
    ],
)
def test_absent_is_honoured_when_only_developer_files_exist(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, dev: dict[str, str]
) -> None:
    absent = '[deployment]\nabsent = "operators deploy with their own manifests"\n'
    artifact, evidence = _generate(
        make_repo, tmp_path, {**dev, "src/main.go": "package main\n"}, {}, absent
    )
    assert _safe(artifact) is True
    assert _deployment(evidence) == [("surface-declared-absent", ".release-safety.toml", 10)]
    assert sorted(g["file"] for g in _coverage(evidence)["unmodelled"]) == sorted(dev)


def test_a_lower_case_dockerfile_is_recognised(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    artifact, evidence = _generate(
        make_repo,
        tmp_path,
        {"db/dockerfile": "FROM postgres:15.6\n"},
        {"db/dockerfile": "FROM postgres:16.4\n"},
    )
    assert _safe(artifact) is False
    assert _deployment(evidence) == [("deployment-stateful-major-changed", "db/dockerfile", 1)]


def test_a_dockerfile_in_a_dot_folder_is_read_by_its_name_or_content(release_pair: Pair) -> None:
    sources = (".docker/Dockerfile-alpine", ".docker/build-db")
    settings = Settings(deployment=DeploymentSettings(sources=sources))
    found = report(
        release_pair,
        {sources[0]: "FROM redis:7.2-alpine\n", sources[1]: "ARG V=10.6\nFROM mariadb:${V}\n"},
        {sources[0]: "FROM redis:8.0-alpine\n", sources[1]: "ARG V=10.11\nFROM mariadb:${V}\n"},
        settings,
    )
    assert found.checked, found.reason
    assert [(f.rule, f.file) for f in found.findings] == [
        ("deployment-stateful-major-changed", ".docker/Dockerfile-alpine"),
        ("deployment-stateful-major-changed", ".docker/build-db"),
    ]


def test_a_source_says_its_kind(release_pair: Pair) -> None:
    source = DeploymentSource(path="deploy/stack.txt", kind="compose")
    settings = Settings(deployment=DeploymentSettings(sources=(source,)))
    found = report(
        release_pair,
        {"deploy/stack.txt": _compose("mongo:6.0.14")},
        {"deploy/stack.txt": _compose("mongo:7.0.8")},
        settings,
    )
    assert [(f.rule, f.file, f.line) for f in found.findings] == [
        ("deployment-stateful-major-changed", "deploy/stack.txt", 5)
    ]


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        ("pgvector/pgvector:pg16", "pgvector/pgvector:pg17", "major"),
        ("pgvector/pgvector:0.7.0-pg16", "pgvector/pgvector:0.8.0-pg16", "updated"),
        ("timescale/timescaledb:2.14.2-pg15", "timescale/timescaledb:2.17.0-pg16", "major"),
        ("timescale/timescaledb-ha:pg16", "timescale/timescaledb-ha:pg16.4", "updated"),
        ("bitnami/postgresql:15.6.0-debian-12-r5", "bitnami/postgresql:16.2.0", "major"),
        ("mariadb:10.11", "mariadb:11.4", "major"),
        ("mongo:6.0", "mongo:7.0", "major"),
        ("clickhouse/clickhouse-server:24.3", "clickhouse/clickhouse-server:24.8", "major"),
        ("clickhouse/clickhouse-server:24.3.1", "clickhouse/clickhouse-server:24.3.5", "updated"),
        ("cassandra:4.1", "cassandra:5.0", "major"),
        ("scylladb/scylla:5.2", "scylladb/scylla:5.4", "major"),
        ("quay.io/coreos/etcd:v3.4.27", "quay.io/coreos/etcd:v3.5.12", "major"),
        ("bitnami/kafka:3.6", "bitnami/kafka:4.0", "major"),
        ("bitnami/kafka:3.6", "bitnami/kafka:3.7", "updated"),
        ("redpandadata/redpanda:v23.3.5", "redpandadata/redpanda:v24.1.1", "major"),
        ("nats:2.9", "nats:2.10", "updated"),
        ("rabbitmq:3.12-management", "rabbitmq:3.13-management", "major"),
        ("docker.elastic.co/elasticsearch/elasticsearch:7.17.9", "elasticsearch:8.12.0", "major"),
        ("opensearchproject/opensearch:2.11.0", "opensearchproject/opensearch:2.13.0", "updated"),
        ("valkey/valkey:7.2", "valkey/valkey:8.0", "major"),
        ("eqalpha/keydb:x86_64_v6.3.3", "eqalpha/keydb:x86_64_v6.3.4", "version-unreadable"),
        ("getmeili/meilisearch:v1.6", "getmeili/meilisearch:v1.7", "major"),
        ("typesense/typesense:0.25.2", "typesense/typesense:26.0", "major"),
        ("qdrant/qdrant:v1.8.4", "qdrant/qdrant:v1.9.0", "major"),
        ("neo4j:4.4", "neo4j:5.18", "major"),
        ("influxdb:1.8", "influxdb:2.7", "major"),
        (
            "docker.dragonflydb.io/dragonflydb/dragonfly:v1.15",
            "dragonflydb/dragonfly:v1.16",
            "updated",
        ),
        ("surrealdb/surrealdb:v1.5.0", "surrealdb/surrealdb:v2.0.0", "major"),
        ("semitechnologies/weaviate:1.24.1", "semitechnologies/weaviate:1.25.0", "updated"),
        ("milvusdb/milvus:v2.3.9", "milvusdb/milvus:v2.4.0", "updated"),
        ("zookeeper:3.8", "zookeeper:3.9", "major"),
        ("apachepulsar/pulsar:3.2.0", "apachepulsar/pulsar:4.0.0", "major"),
        ("eclipse-mosquitto:1.6", "eclipse-mosquitto:2.0", "major"),
        (
            "minio/minio:RELEASE.2023-01-01T00-00-00Z",
            "minio/minio:RELEASE.2024-05-01T01-11-10Z",
            "updated",
        ),
    ],
)
def test_each_product_has_its_own_major(release_pair: Pair, old: str, new: str, rule: str) -> None:
    found = judged(release_pair, {"compose.yaml": _compose(old)}, {"compose.yaml": _compose(new)})
    assert [r for r, _, _, _ in found] == [
        f"deployment-stateful-{rule}" + ("-changed" if rule == "major" else "")
    ]


@pytest.mark.parametrize(
    "image",
    ["natsio/nats-box:0.14", "docker.redpanda.com/redpandadata/console:v2.4", "minio/mc:latest"],
)
def test_tools_beside_a_store_are_not_the_store(release_pair: Pair, image: str) -> None:
    found = report(
        release_pair, {"compose.yaml": _compose(image, volume=False)}, {"README.md": "x\n"}
    )
    assert found.coverage.understood == {}


@pytest.mark.parametrize("continued", [MAX_CONTINUED_LINES, MAX_CONTINUED_LINES + 1])
def test_a_dockerfile_continued_past_the_bound_is_not_read_and_says_why(
    release_pair: Pair, continued: int
) -> None:
    """BuildKit's parser joins continued lines in quadratic time (100,000 take it 50 s): past
    `MAX_CONTINUED_LINES` the file is not given to it, and the surface says so (issue 35)."""
    packages = "".join(f"  pkg{i} \\\n" for i in range(continued - 1))
    new = {"Dockerfile": f"FROM postgres:16\nRUN apk add \\\n{packages}  last\n"}
    found = report(release_pair, {"Dockerfile": "FROM postgres:15\n"}, new)
    if continued <= MAX_CONTINUED_LINES:
        assert found.checked, found.reason
        assert any(f.severity == "breaking" for f in found.findings)
    else:
        assert not found.checked
        bound = f"{continued:,} continued lines, more than the {MAX_CONTINUED_LINES:,} read"
        assert f"Dockerfile at v1.0.1: {bound}" in (found.reason or "")
