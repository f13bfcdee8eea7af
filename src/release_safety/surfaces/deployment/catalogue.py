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
    """A stateful component: the words that name it, its server packages and commands, and how
    many leading version numbers make a series."""

    name: str
    words: frozenset[str]
    packages: re.Pattern[str]
    commands: frozenset[str]
    series_parts: int = 1


def _kind(name: str, words: str, packages: str, commands: str = "", series_parts: int = 1) -> Kind:
    return Kind(
        name,
        frozenset(words.split()),
        re.compile(packages),
        frozenset(commands.split()),
        series_parts,
    )


KINDS: tuple[Kind, ...] = (
    _kind(
        "postgres",
        "postgres postgresql pg postgis timescaledb pgvector",
        r"postgresql(?:-|@)?(?P<v>\d+(?:\.\d+)?)?(?:-server)?",
        "postgres postmaster pg_ctl",
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
    _kind("redis", "redis keydb", r"redis(?P<v>\d+)?(?:-server)?", "redis-server"),
    _kind("valkey", "valkey", r"valkey(?P<v>\d+)?(?:-server)?", "valkey-server"),
    _kind("mongo", "mongo mongodb", r"mongodb(?:-org)?(?:-server)?", "mongod", series_parts=2),
    _kind("elasticsearch", "elasticsearch", r"elasticsearch", "elasticsearch"),
    _kind("opensearch", "opensearch", r"opensearch", "opensearch"),
    _kind("clickhouse", "clickhouse", r"clickhouse-server", "clickhouse-server"),
    _kind("minio", "minio", r"minio", "minio", series_parts=0),
    _kind("rabbitmq", "rabbitmq", r"rabbitmq-server", "rabbitmq-server"),
    _kind("kafka", "kafka", r"kafka", "kafka-server-start.sh"),
    _kind("zookeeper", "zookeeper", r"zookeeper", "zkServer.sh"),
    _kind("etcd", "etcd", r"etcd", "etcd"),
    _kind("cassandra", "cassandra scylla", r"cassandra", "cassandra"),
    _kind("couchdb", "couchdb", r"couchdb", "couchdb"),
    _kind("influxdb", "influxdb", r"influxdb(?P<v>\d+)?", "influxd"),
    _kind("neo4j", "neo4j", r"neo4j", "neo4j"),
)
"""Every stateful kind the surface knows; an image, package or command naming none of them is
stateless (the application's own images, proxies, workers)."""

_TOOL_WORDS = frozenset(
    {
        *("exporter", "express", "commander", "insight", "ui", "admin", "cli", "client"),
        *("tools", "operator", "backup", "dashboard", "web", "proxy", "bouncer"),
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


def version(text: str | None) -> tuple[int, ...] | None:
    """The leading version numbers of a tag or package version (`15.6-alpine` -> (15, 6))."""
    found = _VERSION.match(text or "")
    if found is None:
        return None
    return tuple(int(part) for part in found.groups() if part is not None)


def series(kind: Kind, numbers: tuple[int, ...]) -> tuple[int, ...]:
    """The part of a version that changes only with a major upgrade of the kind."""
    parts = 2 if kind.name == "postgres" and numbers[0] < 10 else kind.series_parts
    return numbers[:parts]
