"""Compose rules, each both ways, on real git repositories: v1.0.0 with the old compose file,
v1.0.1 with the new one."""

from __future__ import annotations

import pytest
from deployment_support import Pair, judged

BASE = """\
services:
  app:
    image: example/app:1.0.0
    environment:
      DATABASE_URL: postgres://db/app
  db:
    image: postgres:15.6-alpine
    volumes:
      - pgdata:/var/lib/postgresql/data
      - ./init.sql:/docker-entrypoint-initdb.d/init.sql:ro
  cache:
    image: redis:7.2
volumes:
  pgdata:
"""


def edited(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new)


CASES = [
    # a stateful major version: breaking; minor and patch: advisory
    (
        "postgres-major",
        edited("postgres:15.6-alpine", "postgres:18.1-alpine"),
        [("deployment-stateful-major-changed", "breaking", 7)],
    ),
    (
        "postgres-minor",
        edited("postgres:15.6-alpine", "postgres:15.8-alpine"),
        [("deployment-stateful-updated", "advisory", 7)],
    ),
    (
        "registry-moves-same-tag",
        edited("postgres:15.6", "registry.example.com:8443/mirror/postgres:15.6"),
        [],
    ),
    (
        "digest-pinned",
        edited("postgres:15.6-alpine", "postgres:15.6-alpine@sha256:" + "a" * 64),
        [("deployment-stateful-updated", "advisory", 7)],
    ),
    (
        "default-read",
        edited("postgres:15.6-alpine", "postgres:${PG_TAG:-18.1}"),
        [("deployment-stateful-major-changed", "breaking", 7)],
    ),
    (
        "tag-unreadable",
        edited("postgres:15.6-alpine", "postgres:latest"),
        [("deployment-stateful-version-unreadable", "unknown", 7)],
    ),
    (
        "engine-changed",
        edited("redis:7.2", "valkey/valkey:8.0"),
        [("deployment-stateful-engine-changed", "breaking", 12)],
    ),
    (
        "replaced-by-unknown",
        edited("redis:7.2", "example/kv:3"),
        [("deployment-stateful-replaced", "unknown", 12)],
    ),
    ("app-image-bump", edited("example/app:1.0.0", "example/app:2.0.0"), []),
    # services
    (
        "service-removed",
        edited("  cache:\n    image: redis:7.2\n", ""),
        [("deployment-service-removed", "breaking", 11)],
    ),
    (
        "service-renamed",
        edited("  cache:\n", "  redis:\n"),
        [("deployment-service-renamed", "breaking", 11)],
    ),
    (
        "service-added",
        BASE.replace(
            "volumes:\n  pgdata:", "  worker:\n    image: example/app:1.0.0\nvolumes:\n  pgdata:"
        ),
        [],
    ),
    # volumes
    (
        "named-volume-removed",
        edited("volumes:\n  pgdata:\n", ""),
        [("deployment-volume-removed", "breaking", 14)],
    ),
    (
        "mount-removed",
        edited("      - pgdata:/var/lib/postgresql/data\n", ""),
        [("deployment-volume-removed", "breaking", 9)],
    ),
    (
        "mount-path-changed",
        edited("pgdata:/var/lib/postgresql/data", "pgdata:/var/lib/postgresql"),
        [("deployment-volume-mount-changed", "breaking", 9)],
    ),
    (
        "other-volume-same-path",
        edited("- pgdata:/var/lib", "- ./data:/var/lib"),
        [("deployment-volume-mount-changed", "breaking", 9)],
    ),
    (
        "long-syntax-same-mount",
        edited(
            "      - pgdata:/var/lib/postgresql/data\n",
            "      - type: volume\n        source: pgdata\n"
            "        target: /var/lib/postgresql/data\n",
        ),
        [],
    ),
    (
        "read-only-mount-removed",
        edited("      - ./init.sql:/docker-entrypoint-initdb.d/init.sql:ro\n", ""),
        [],
    ),
    # variables
    (
        "required-variable-added",
        edited(
            "DATABASE_URL: postgres://db/app\n",
            "DATABASE_URL: postgres://db/app\n      SECRET: ${SECRET:?set it}\n",
        ),
        [("deployment-required-env-added", "breaking", 6)],
    ),
    (
        "variable-with-default-added",
        edited(
            "DATABASE_URL: postgres://db/app\n",
            "DATABASE_URL: postgres://db/app\n      WORKERS: ${WORKERS:-4}\n",
        ),
        [],
    ),
]


@pytest.mark.parametrize(("name", "new", "expected"), CASES, ids=[c[0] for c in CASES])
def test_compose_rule(
    release_pair: Pair, name: str, new: str, expected: list[tuple[str, str, int]]
) -> None:
    found = judged(release_pair, {"docker-compose.yml": BASE}, {"docker-compose.yml": new})
    assert found == [
        (rule, severity, "docker-compose.yml", line) for rule, severity, line in expected
    ]


def test_a_variable_the_env_file_beside_sets_is_not_required(release_pair: Pair) -> None:
    needs = BASE.replace("postgres://db/app", "${DATABASE_URL}")
    files = {"deploy/docker-compose.yml": needs, "deploy/.env": "DATABASE_URL=postgres://db/app\n"}
    assert judged(release_pair, {"deploy/docker-compose.yml": BASE}, files) == []
    found = judged(
        release_pair, {"deploy/docker-compose.yml": BASE}, {"deploy/docker-compose.yml": needs}
    )
    assert found == [("deployment-required-env-added", "breaking", "deploy/docker-compose.yml", 5)]


def test_a_removed_compose_file_removes_its_services(release_pair: Pair) -> None:
    found = judged(
        release_pair,
        {"docker-compose.yml": BASE, "docker-compose.prod.yml": BASE},
        {"docker-compose.prod.yml": None},
    )
    assert [(rule, line) for rule, _, _, line in found] == [
        ("deployment-service-removed", 2),
        ("deployment-service-removed", 6),
        ("deployment-service-removed", 11),
    ]


def test_a_moved_compose_file_is_compared_with_its_previous_place(release_pair: Pair) -> None:
    moved = BASE.replace("postgres:15.6-alpine", "postgres:16.4")
    found = judged(
        release_pair,
        {"docker-compose.yml": BASE},
        {"docker-compose.yml": None, "deploy/compose.yaml": moved},
    )
    assert [(rule, file) for rule, _, file, _ in found] == [
        ("document-moved", "deploy/compose.yaml"),
        ("deployment-stateful-major-changed", "deploy/compose.yaml"),
    ]
