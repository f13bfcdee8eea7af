"""Dockerfile rules, each both ways, on real git repositories (harbor's shape: a folder per
bundled component, `Dockerfile` on top of a `Dockerfile.base`)."""

from __future__ import annotations

import pytest
from deployment_support import Pair, judged

DB = """\
ARG harbor_base_image_version
ARG harbor_base_namespace
FROM ${harbor_base_namespace}/harbor-db-base:${harbor_base_image_version}

VOLUME /var/lib/postgresql/data
COPY ./docker-entrypoint.sh /docker-entrypoint.sh
ENTRYPOINT ["/docker-entrypoint.sh", "14", "15"]
"""
DB_BASE = """\
FROM photon:5.0
RUN tdnf install -y postgresql14-server >> /dev/null
RUN tdnf install -y gzip postgresql15-server findutils bc >> /dev/null \\
    && mkdir -p /docker-entrypoint-initdb.d
"""
REDIS = """\
FROM ${harbor_base_namespace}/harbor-redis-base:${harbor_base_image_version}
VOLUME /var/lib/redis
USER redis
CMD ["redis-server", "/etc/redis.conf"]
"""
OFFICIAL = """\
FROM debian:bookworm-slim
ENV PG_MAJOR 15
RUN apt-get update && apt-get install -y --no-install-recommends "postgresql-$PG_MAJOR"
CMD ["postgres", "-p", "5432"]
"""
APP = 'FROM golang:1.22 AS build\nRUN go build ./...\nFROM alpine:3.19\nCMD ["/app"]\n'
FILES = {
    "make/db/Dockerfile": DB,
    "make/db/Dockerfile.base": DB_BASE,
    "make/redis/Dockerfile": REDIS,
    "docker/pg/Dockerfile": OFFICIAL,
    "Dockerfile": APP,
}


def edit(path: str, old: str, new: str) -> dict[str, str | None]:
    assert old in FILES[path], old
    return {path: FILES[path].replace(old, new)}


CASES = [
    (
        "entrypoint-arguments-major",
        edit("make/db/Dockerfile", '"14", "15"', '"15", "18"'),
        [("deployment-stateful-major-changed", "breaking", "make/db/Dockerfile", 7)],
    ),
    ("entrypoint-arguments-same", edit("make/db/Dockerfile", "COPY ./", "COPY --chown=999 ./"), []),
    (
        "server-package-major",
        edit("make/db/Dockerfile.base", "postgresql15-server", "postgresql18-server"),
        [("deployment-stateful-major-changed", "breaking", "make/db/Dockerfile.base", 3)],
    ),
    ("other-package", edit("make/db/Dockerfile.base", "findutils bc", "findutils bc tzdata"), []),
    (
        "version-variable-major",
        edit("docker/pg/Dockerfile", "PG_MAJOR 15", "PG_MAJOR 17"),
        [
            ("deployment-stateful-major-changed", "breaking", "docker/pg/Dockerfile", 3),
            ("deployment-stateful-major-changed", "breaking", "docker/pg/Dockerfile", 2),
        ],
    ),
    (
        "same-major-other-packaging",
        {"docker/pg/Dockerfile": 'FROM postgres:15.6\nCMD ["postgres"]\n'},
        [],
    ),
    ("server-port-argument", edit("docker/pg/Dockerfile", '"-p", "5432"', '"-p", "5433"'), []),
    ("app-base-image-major", edit("Dockerfile", "golang:1.22", "golang:2.0"), []),
    (
        "engine-changed-keeping-the-volume",
        {
            "make/redis/Dockerfile": None,
            "make/valkey/Dockerfile": REDIS.replace("redis", "valkey").replace(
                "/var/lib/valkey", "/var/lib/redis"
            ),
        },
        [("deployment-stateful-engine-changed", "breaking", "make/valkey/Dockerfile", 1)],
    ),
    (
        "component-removed",
        {"make/redis/Dockerfile": None},
        [("deployment-stateful-component-removed", "breaking", "make/redis/Dockerfile", 1)],
    ),
    ("stateless-component-removed", {"Dockerfile": None}, []),
    (
        "replaced-by-unknown",
        edit("make/redis/Dockerfile", '["redis-server", "/etc/redis.conf"]', '["/kv", "serve"]')
        | {"make/redis/Dockerfile": REDIS.replace("redis", "kv")},
        [("deployment-stateful-replaced", "unknown", "make/redis/Dockerfile", 1)],
    ),
]


@pytest.mark.parametrize(("name", "new", "expected"), CASES, ids=[c[0] for c in CASES])
def test_dockerfile_rule(
    release_pair: Pair,
    name: str,
    new: dict[str, str | None],
    expected: list[tuple[str, str, str, int]],
) -> None:
    assert sorted(judged(release_pair, dict(FILES), new)) == sorted(expected)


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("16.2-alpine", [("deployment-stateful-major-changed", "breaking", "db/Dockerfile", 1)]),
        ("15.7-alpine", [("deployment-stateful-updated", "advisory", "db/Dockerfile", 1)]),
        ("15.6-alpine", []),
    ],
)
def test_base_image_version(
    release_pair: Pair, tag: str, expected: list[tuple[str, str, str, int]]
) -> None:
    old = {"db/Dockerfile": "FROM postgres:15.6-alpine\nVOLUME /var/lib/postgresql/data\n"}
    new = {"db/Dockerfile": f"FROM postgres:{tag}\nVOLUME /var/lib/postgresql/data\n"}
    assert judged(release_pair, old, new) == expected
