"""Image references parsed as the distribution/reference grammar does, and the catalogue of
stateful kinds with what a major version is for each."""

from __future__ import annotations

import pytest

from release_safety.surfaces.deployment.catalogue import KINDS, package, series
from release_safety.surfaces.deployment.imageref import parse_image

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("text", "repository", "tag", "digest", "kind", "version"),
    [
        ("postgres:15.6-alpine", "postgres", "15.6-alpine", None, "postgres", (15, 6)),
        ("docker.io/library/postgres:16", "postgres", "16", None, "postgres", (16,)),
        (
            "index.docker.io/bitnami/redis:7.2.4-debian-12-r9",
            "bitnami/redis",
            "7.2.4-debian-12-r9",
            None,
            "redis",
            (7, 2, 4),
        ),
        ("localhost:5000/pg:15", "localhost:5000/pg", "15", None, "postgres", (15,)),
        (
            f"registry.example.com:8443/team/mariadb:10.11@{DIGEST}",
            "registry.example.com:8443/team/mariadb",
            "10.11",
            DIGEST,
            "mariadb",
            (10, 11),
        ),
        (f"mongo@{DIGEST}", "mongo", None, DIGEST, "mongo", None),
        ("bitnami/postgresql", "bitnami/postgresql", None, None, "postgres", None),
        ("postgres:latest", "postgres", "latest", None, "postgres", None),
        (
            "quay.io/minio/minio:RELEASE.2024-01-01T00-00-00Z",
            "quay.io/minio/minio",
            "RELEASE.2024-01-01T00-00-00Z",
            None,
            "minio",
            (2024, 1, 1),
        ),
        (
            "goharbor/valkey-photon:{{redis_version}}",
            "goharbor/valkey-photon",
            "unresolved",
            None,
            "valkey",
            None,
        ),
        (
            "${NS}/harbor-db-base:${TAG}",
            "unresolved/harbor-db-base",
            "unresolved",
            None,
            None,
            None,
        ),
        (
            "prometheuscommunity/postgres-exporter:v0.15.0",
            "prometheuscommunity/postgres-exporter",
            "v0.15.0",
            None,
            None,
            (0, 15, 0),
        ),
        ("mongo-express:1.0", "mongo-express", "1.0", None, None, (1, 0)),
        ("example/app:2.3.0", "example/app", "2.3.0", None, None, (2, 3, 0)),
    ],
)
def test_references_parse_as_the_ecosystem_does(
    text: str,
    repository: str,
    tag: str | None,
    digest: str | None,
    kind: str | None,
    version: tuple[int, ...] | None,
) -> None:
    image = parse_image(text)
    assert image is not None
    assert (image.repository, image.tag, image.digest) == (repository, tag, digest)
    assert (image.kind.name if image.kind else None, image.version) == (kind, version)


@pytest.mark.parametrize(
    "text", ["", "Postgres:15", "postgres:15:16", "a" * 64, "postgres@sha256:12"]
)
def test_invalid_references_are_none(text: str) -> None:
    assert parse_image(text) is None


@pytest.mark.parametrize(
    ("kind", "a", "b", "same_series"),
    [
        ("postgres", (15, 6), (15, 8), True),
        ("postgres", (15, 6), (18, 1), False),
        ("postgres", (9, 5), (9, 6), False),  # before 10, the major is two numbers
        ("mysql", (8, 0, 36), (8, 4, 0), False),
        ("mariadb", (10, 6), (10, 11), False),
        ("mongo", (6, 0, 3), (7, 0, 1), False),
        ("redis", (7, 0), (7, 2), True),
        ("minio", (2023, 1, 1), (2024, 6, 1), True),  # dated releases keep compatibility
    ],
)
def test_series(kind: str, a: tuple[int, ...], b: tuple[int, ...], same_series: bool) -> None:
    found = next(k for k in KINDS if k.name == kind)
    assert (series(found, a) == series(found, b)) is same_series


@pytest.mark.parametrize(
    ("token", "kind", "version"),
    [
        ("postgresql18-server", "postgres", "18"),
        ("postgresql-15=15.6-1.pgdg120+1", "postgres", "15"),
        ("postgresql@16", "postgres", "16"),
        ("postgresql", "postgres", None),
        ("mariadb-server-10.6", "mariadb", "10.6"),
        ("mysql-server", "mysql", None),
        ("redis=7.2.4-r0", "redis", "7.2.4-r0"),
        ("valkey", "valkey", None),
        ("postgresql-client-15", None, None),
        ("redis-tools", None, None),
        ("gzip", None, None),
    ],
)
def test_packages(token: str, kind: str | None, version: str | None) -> None:
    found = package(token)
    assert ((found[0].name, found[1]) if found else (None, None)) == (kind, version)
