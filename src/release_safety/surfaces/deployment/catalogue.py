"""Stateful components: which images, packages and server commands hold data, and what a
"major version" is for each.

A component is stateful when it keeps data on disk that the next version must read: a database,
a cache with persistence, a search index, an object store, a broker. Its kind comes from an
image's repository name (a word of its last path component: `postgres`, `bitnami/postgresql`,
`goharbor/redis-photon`), an installed OS package (`postgresql18-server`, `mariadb-server-10.6`)
or the server it runs (`redis-server`, `mongod`). The series of a version is what upgrades in
place only with a migration step: the first number for most, the first two for MySQL, MariaDB
and MongoDB, and PostgreSQL before 10 (`9.6`); none for MinIO, whose releases are dates
(`RELEASE.2024-01-01T00-00-00Z`) that promise compatibility.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """A stateful component: the words that name it, its server packages and commands, how
    many leading version numbers make a series, and where its tags carry the version that
    matters when not at their start (`tag`: a search whose groups are the numbers)."""

    name: str
    words: frozenset[str]
    packages: re.Pattern[str]
    commands: frozenset[str]
    series_parts: int = 1
    tag: re.Pattern[str] | None = None


def _kind(
    name: str,
    words: str,
    packages: str,
    commands: str = "",
    series_parts: int = 1,
    tag: str | None = None,
) -> Kind:
    return Kind(
        name,
        frozenset(words.split()),
        re.compile(packages),
        frozenset(commands.split()),
        series_parts,
        re.compile(tag) if tag else None,
    )


KINDS: tuple[Kind, ...] = (
    _kind(
        "postgres",
        "postgres postgresql pg postgis timescaledb pgvector pgvecto",
        r"postgresql(?:-|@)?(?P<v>\d+(?:\.\d+)?)?(?:-server)?",
        "postgres postmaster pg_ctl",
        tag=r"(?:^|[-_.])pg-?(\d+)(?=$|[-_.])",
    ),
    _kind(
        "mysql",
        "mysql percona",
        r"mysql(?:\d+)?(?:-community)?-server(?:-(?P<v>\d+\.\d+))?",
        "mysqld",
        2,
    ),
    _kind(
        "mariadb",
        "mariadb",
        r"mariadb(?P<v>\d+(?:\.\d+)?)?-server(?:-(?P<v2>\d+\.\d+))?",
        "mariadbd",
        2,
    ),
    _kind("cockroachdb", "cockroach cockroachdb", r"cockroach(?:db)?", "cockroach", 2),
    _kind("yugabytedb", "yugabyte yugabytedb", r"yugabyte(?:db)?", "yugabyted", 2),
    _kind("redis", "redis", r"redis(?P<v>\d+)?(?:-server)?", "redis-server"),
    _kind("valkey", "valkey", r"valkey(?P<v>\d+)?(?:-server)?", "valkey-server"),
    _kind("keydb", "keydb", r"keydb(?:-server)?", "keydb-server"),
    _kind("dragonfly", "dragonfly dragonflydb", r"dragonfly(?:db)?", "dragonfly"),
    _kind("mongo", "mongo mongodb", r"mongodb(?:-org)?(?:-server)?", "mongod", series_parts=2),
    _kind("couchdb", "couchdb", r"couchdb", "couchdb"),
    _kind("arangodb", "arangodb", r"arangodb3?", "arangod", 2),
    _kind("surrealdb", "surrealdb", r"surrealdb", "surreal"),
    _kind("neo4j", "neo4j", r"neo4j", "neo4j"),
    _kind("cassandra", "cassandra", r"cassandra", "cassandra"),
    _kind("scylladb", "scylla scylladb", r"scylla(?:-server)?", "scylla", 2),
    _kind("clickhouse", "clickhouse", r"clickhouse-server", "clickhouse-server", 2),
    _kind("influxdb", "influxdb", r"influxdb(?P<v>\d+)?", "influxd"),
    _kind("prometheus", "prometheus", r"prometheus", "prometheus"),
    _kind("elasticsearch", "elasticsearch", r"elasticsearch", "elasticsearch"),
    _kind("opensearch", "opensearch", r"opensearch", "opensearch"),
    _kind("solr", "solr", r"solr", "solr"),
    _kind("meilisearch", "meilisearch", r"meilisearch", "meilisearch", 2),
    _kind("typesense", "typesense", r"typesense-server", "typesense-server"),
    _kind("qdrant", "qdrant", r"qdrant", "qdrant", 2),
    _kind("weaviate", "weaviate", r"weaviate", "weaviate"),
    _kind("milvus", "milvus", r"milvus", "milvus"),
    _kind("minio", "minio", r"minio", "minio", series_parts=0),
    _kind("seaweedfs", "seaweedfs", r"seaweedfs", "weed"),
    _kind("etcd", "etcd", r"etcd", "etcd", 2),
    _kind("zookeeper", "zookeeper", r"zookeeper", "zkServer.sh", 2),
    _kind("consul", "consul", r"consul", "consul"),
    _kind("vault", "vault", r"vault", "vault"),
    _kind("kafka", "kafka", r"kafka", "kafka-server-start.sh"),
    _kind("redpanda", "redpanda", r"redpanda", "redpanda rpk", 2),
    _kind("pulsar", "pulsar", r"pulsar", "pulsar"),
    _kind("nats", "nats", r"nats-server", "nats-server"),
    _kind("rabbitmq", "rabbitmq", r"rabbitmq-server", "rabbitmq-server", 2),
    _kind("mosquitto", "mosquitto", r"mosquitto", "mosquitto"),
)
"""Every stateful kind the surface knows; an image, package or command naming none of them is
stateless (the application's own images, proxies, workers). A series is what upgrades in place
only with a migration step, by each product's own upgrade documentation: the first two numbers
where every release line is a major (CockroachDB's and Redpanda's year.release, ScyllaDB,
ClickHouse's monthly lines, etcd, ZooKeeper and RabbitMQ minors, Meilisearch before dumpless
upgrades, Qdrant minor by minor, MySQL, MariaDB, MongoDB, ArangoDB, YugabyteDB), else the first.
Any version 0.x counts its minor as the major (Typesense `0.25`, semantic versioning). Images
that carry the PostgreSQL major in a `pg` tag (`pgvector/pgvector:pg16`,
`timescale/timescaledb:2.14.2-pg16`) are read by it, not by the extension's version."""

_TOOL_WORDS = frozenset(
    {
        *("exporter", "express", "commander", "insight", "ui", "admin", "cli", "client"),
        *("tools", "operator", "backup", "dashboard", "dashboards", "web", "proxy", "bouncer"),
        *("console", "box", "sidecar", "init", "gui", "studio"),
    }
)
"""Words that make a name a tool beside a component rather than the component itself
(`postgres-exporter`, `mongo-express`, `redis-commander`)."""
_BY_WORD = {word: kind for kind in KINDS for word in kind.words}
_BY_COMMAND = {command: kind for kind in KINDS for command in kind.commands}
_VERSION = re.compile(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?|RELEASE\.(\d{4})-(\d\d)-(\d\d)")


def kind_of_name(repository: str) -> Kind | None:
    """The kind an image repository names by a word of its last path component."""
    words = re.split(r"[-_.]", repository.rsplit("/", 1)[-1])
    if _TOOL_WORDS.intersection(words):
        return None
    return next((_BY_WORD[w] for w in words if w in _BY_WORD), None)


def kind_of_command(word: str) -> Kind | None:
    """The kind whose server a command word starts (`redis-server`, `/usr/bin/mongod`)."""
    return _BY_COMMAND.get(word.rsplit("/", 1)[-1])


def package(token: str) -> tuple[Kind, str | None] | None:
    """The kind and version of an OS package argument (`postgresql18-server`,
    `mariadb-server-10.6`, `redis=7.2.4-1`), or None when it is no stateful server."""
    name, _, pinned = token.partition("=")
    for kind in KINDS:
        found = kind.packages.fullmatch(name)
        if found:
            named = next((g for g in found.groups() if g), None)
            return kind, named or pinned or None
    return None


def version(text: str | None, kind: Kind | None = None) -> tuple[int, ...] | None:
    """The version numbers of a tag or package version: those the kind's tag pattern finds
    (`2.14.2-pg16` -> (16,) for PostgreSQL), else the leading ones (`15.6-alpine` -> (15, 6))."""
    marked = kind.tag.search(text or "") if kind is not None and kind.tag else None
    if marked is not None:
        return tuple(int(part) for part in marked.groups())
    found = _VERSION.match(text or "")
    if found is None:
        return None
    return tuple(int(part) for part in found.groups() if part is not None)


def series(kind: Kind, numbers: tuple[int, ...]) -> tuple[int, ...]:
    """The part of a version that changes only with a major upgrade of the kind."""
    return numbers[: major_parts(kind.series_parts, kind.name, numbers)]


def major_parts(parts: int, name: str | None, numbers: tuple[int, ...]) -> int:
    """How many leading numbers make a series: `parts` by the product's rule, two for
    PostgreSQL before 10 (`9.6`) and for any 0.x version."""
    if parts and numbers and (numbers[0] == 0 or (name == "postgres" and numbers[0] < 10)):
        return max(parts, 2)
    return parts
