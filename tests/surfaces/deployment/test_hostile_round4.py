"""Hostile round 4 (issue 45, classes 1-4): what compose files pull in, nested interpolation,
Helm `values-*.yaml`, and a stateful service's data moved, wiped or switched off. Each probe
hid a break that judged `true`; each has a quiet twin that must stay quiet."""

from __future__ import annotations

from deployment_support import Pair, judged, report

APP = """\
services:
  app:
    image: example/app:1.0.0
"""
EXTENDS = """\
services:
  app:
    image: example/app:1.0.0
  db:
    extends:
      file: base.yaml
      service: db
"""
BASE = """\
services:
  db:
    image: postgres:15.4
    volumes:
      - pgdata:/var/lib/postgresql/data
"""
INCLUDE = """\
include:
  - db.yaml
services:
  app:
    image: example/app:1.0.0
"""


def rules_of(found: list[tuple[str, str, str | None, int | None]]) -> list[tuple[str, str | None]]:
    return [(rule, file) for rule, _, file, _ in found]


# class 1: files compose pulls in


def test_a_major_bump_in_an_extended_file_is_breaking(release_pair: Pair) -> None:
    old = {"docker-compose.yml": EXTENDS, "base.yaml": BASE}
    found = judged(release_pair, old, {"base.yaml": BASE.replace("15.4", "16.1")})
    assert found == [("deployment-stateful-major-changed", "breaking", "base.yaml", 3)]


def test_a_minor_bump_in_an_extended_file_is_advisory(release_pair: Pair) -> None:
    old = {"docker-compose.yml": EXTENDS, "base.yaml": BASE}
    found = judged(release_pair, old, {"base.yaml": BASE.replace("15.4", "15.6")})
    assert found == [("deployment-stateful-updated", "advisory", "base.yaml", 3)]


def test_the_extending_service_overrides_the_image(release_pair: Pair) -> None:
    pinned = EXTENDS.replace("      service: db\n", "      service: db\n    image: postgres:15.4\n")
    old = {"docker-compose.yml": pinned, "base.yaml": BASE}
    assert judged(release_pair, old, {"base.yaml": BASE.replace("15.4", "16.1")}) == []


def test_a_major_bump_in_an_included_file_is_breaking(release_pair: Pair) -> None:
    old = {"docker-compose.yml": INCLUDE, "db.yaml": BASE}
    found = judged(release_pair, old, {"db.yaml": BASE.replace("15.4", "16.1")})
    assert found == [("deployment-stateful-major-changed", "breaking", "db.yaml", 3)]


def test_an_include_in_its_long_form_is_read(release_pair: Pair) -> None:
    long = INCLUDE.replace("  - db.yaml\n", "  - path: ./db.yaml\n")
    old = {"docker-compose.yml": long, "db.yaml": BASE}
    found = judged(release_pair, old, {"db.yaml": BASE.replace("15.4", "15.5")})
    assert found == [("deployment-stateful-updated", "advisory", "db.yaml", 3)]


def test_a_service_that_leaves_with_its_included_file_is_removed(release_pair: Pair) -> None:
    old = {"docker-compose.yml": INCLUDE, "db.yaml": BASE}
    found = judged(release_pair, old, {"docker-compose.yml": APP, "db.yaml": None})
    assert found == [("deployment-service-removed", "breaking", "db.yaml", 2)]


def test_an_included_file_that_cannot_be_read_is_unknown(release_pair: Pair) -> None:
    remote = INCLUDE.replace("db.yaml", "oci://registry.example.com/stack/db:1")
    found = judged(
        release_pair,
        {"docker-compose.yml": INCLUDE, "db.yaml": BASE},
        {"docker-compose.yml": remote},
    )
    assert ("deployment-compose-reference-unread", "unknown") in [
        (rule, severity) for rule, severity, _, _ in found
    ]
    missing = EXTENDS.replace("base.yaml", "nowhere.yaml")
    found = judged(
        release_pair,
        {"docker-compose.yml": EXTENDS, "base.yaml": BASE},
        {"docker-compose.yml": missing},
    )
    assert ("deployment-compose-reference-unread", "unknown", "docker-compose.yml", 5) in found


def test_an_unchanged_stack_with_includes_is_quiet(release_pair: Pair) -> None:
    old = {"docker-compose.yml": INCLUDE, "db.yaml": BASE, "base.yaml": BASE}
    assert judged(release_pair, old, {"README.md": "changed\n"}) == []


def test_pgdata_set_by_an_env_file_is_read(release_pair: Pair) -> None:
    compose = BASE.replace("    volumes:", "    env_file: db.env\n    volumes:")
    old = {"docker-compose.yml": compose, "db.env": "PGDATA=/var/lib/postgresql/data\n"}
    moved = {"db.env": "PGDATA=/var/lib/postgresql/data/pgdata\n"}
    found = judged(release_pair, old, moved)
    assert rules_of(found) == [("deployment-data-directory-moved", "db.env")]
    assert judged(release_pair, old, {"db.env": "PGDATA=/var/lib/postgresql/data\nTZ=UTC\n"}) == []


# class 2: nested interpolation


NESTED = """\
services:
  db:
    image: postgres:${PG_TAG:-${PG_MAJOR:-15}}
    volumes:
      - pgdata:/var/lib/postgresql/data
"""


def test_a_nested_default_is_resolved(release_pair: Pair) -> None:
    old = {"docker-compose.yml": NESTED}
    found = judged(release_pair, old, {"docker-compose.yml": NESTED.replace(":-15}", ":-16}")})
    assert found == [("deployment-stateful-major-changed", "breaking", "docker-compose.yml", 3)]
    same = judged(release_pair, old, {"docker-compose.yml": NESTED.replace("PG_TAG", "PG_V")})
    assert same == []


def test_an_unresolvable_version_that_changes_is_unknown(release_pair: Pair) -> None:
    bare = NESTED.replace("${PG_TAG:-${PG_MAJOR:-15}}", "${PG_TAG:-${PG_MAJOR}}")
    found = judged(
        release_pair,
        {"docker-compose.yml": bare},
        {"docker-compose.yml": bare.replace("PG_MAJOR", "PG_RELEASE")},
    )
    assert found == [
        ("deployment-required-env-added", "breaking", "docker-compose.yml", 3),
        ("deployment-stateful-version-unreadable", "unknown", "docker-compose.yml", 3),
    ]


# class 3: Helm values-*.yaml

CHART = "apiVersion: v2\nname: app\nversion: 1.0.0\n"
VALUES = """\
image:
  repository: example/app
  tag: "1.0"
postgresql:
  image:
    repository: bitnami/postgresql
    tag: 15.4.0
persistence:
  enabled: false
"""
PRODUCTION = """\
postgresql:
  image:
    tag: 15.4.0
persistence:
  enabled: true
  size: 50Gi
"""
HELM = {
    "chart/Chart.yaml": CHART,
    "chart/values.yaml": VALUES,
    "chart/values-production.yaml": PRODUCTION,
    "chart/ci/test-values.yaml": PRODUCTION,
}


def test_a_major_bump_in_values_production_is_breaking(release_pair: Pair) -> None:
    bumped = {"chart/values-production.yaml": PRODUCTION.replace("15.4.0", "16.1.0")}
    found = judged(release_pair, HELM, bumped)
    assert found == [
        ("deployment-stateful-major-changed", "breaking", "chart/values-production.yaml", 3)
    ]


def test_persistence_dropped_from_values_production_is_breaking(release_pair: Pair) -> None:
    dropped = {"chart/values-production.yaml": PRODUCTION.split("persistence:")[0]}
    found = judged(release_pair, HELM, dropped)
    assert found == [("deployment-value-removed", "breaking", "chart/values-production.yaml", 4)]


def test_ci_values_stay_aside(release_pair: Pair) -> None:
    ci = {"chart/ci/test-values.yaml": PRODUCTION.replace("15.4.0", "16.1.0").split("persist")[0]}
    assert judged(release_pair, HELM, ci) == []
    same = {"chart/values-production.yaml": PRODUCTION.replace("50Gi", "60Gi")}
    assert judged(release_pair, HELM, same) == []


# class 4: data moved, wiped or switched off

DB = """\
services:
  app:
    image: example/app:1.0.0
  db:
    image: postgres:16.1
    environment:
      POSTGRES_DB: app
    volumes:
      - pgdata:/var/lib/postgresql/data
volumes:
  pgdata:
"""


def edited(old: str, new: str) -> dict[str, str | None]:
    assert old in DB, old
    return {"docker-compose.yml": DB.replace(old, new)}


def test_pgdata_moved_under_the_same_volume_is_breaking(release_pair: Pair) -> None:
    moved = edited(
        "POSTGRES_DB: app", "POSTGRES_DB: app\n      PGDATA: /var/lib/postgresql/data/pgdata"
    )
    found = judged(release_pair, {"docker-compose.yml": DB}, moved)
    assert found == [("deployment-data-directory-moved", "breaking", "docker-compose.yml", 8)]
    listed = edited("POSTGRES_DB: app", "POSTGRES_DB: app\n      PGDATA: /var/lib/postgresql/data")
    assert judged(release_pair, {"docker-compose.yml": DB}, listed) == []


def test_pgdata_in_list_form_is_read(release_pair: Pair) -> None:
    old = DB.replace("      POSTGRES_DB: app\n", "      - POSTGRES_DB=app\n")
    new = old.replace("- POSTGRES_DB=app", "- POSTGRES_DB=app\n      - PGDATA=/srv/pg")
    found = judged(release_pair, {"docker-compose.yml": old}, {"docker-compose.yml": new})
    assert rules_of(found) == [("deployment-data-directory-moved", "docker-compose.yml")]


def test_a_command_that_removes_the_data_folder_is_breaking(release_pair: Pair) -> None:
    wipe = edited(
        "    volumes:\n      - pgdata",
        '    command: sh -c "rm -rf /var/lib/postgresql/data/* && exec docker-entrypoint.sh'
        ' postgres"\n    volumes:\n      - pgdata',
    )
    found = judged(release_pair, {"docker-compose.yml": DB}, wipe)
    assert found == [("deployment-data-wiped", "breaking", "docker-compose.yml", 8)]
    entry = edited(
        "    volumes:\n      - pgdata",
        '    entrypoint: ["/bin/sh", "-c", "rm -rf $$PGDATA; docker-entrypoint.sh postgres"]'
        "\n    volumes:\n      - pgdata",
    )
    found = judged(release_pair, {"docker-compose.yml": DB}, entry)
    assert rules_of(found) == [("deployment-data-wiped", "docker-compose.yml")]


def test_a_command_that_tunes_the_server_is_quiet(release_pair: Pair) -> None:
    tuned = edited(
        "    volumes:\n      - pgdata",
        "    command: postgres -c max_connections=200\n    volumes:\n      - pgdata",
    )
    assert judged(release_pair, {"docker-compose.yml": DB}, tuned) == []
    cleans = edited(
        "    volumes:\n      - pgdata",
        '    command: sh -c "rm -rf /tmp/cache && exec docker-entrypoint.sh postgres"\n'
        "    volumes:\n      - pgdata",
    )
    assert judged(release_pair, {"docker-compose.yml": DB}, cleans) == []


def test_a_service_switched_off_by_profiles_is_breaking(release_pair: Pair) -> None:
    off = edited(
        "    image: postgres:16.1\n", '    image: postgres:16.1\n    profiles: ["never"]\n'
    )
    found = judged(release_pair, {"docker-compose.yml": DB}, off)
    assert found == [("deployment-service-disabled", "breaking", "docker-compose.yml", 6)]


def test_profiles_kept_or_on_a_new_service_are_quiet(release_pair: Pair) -> None:
    old = DB.replace(
        "    image: example/app:1.0.0\n", "    image: example/app:1.0.0\n    profiles: [web]\n"
    )
    kept = old.replace("[web]", '["web", "all"]')
    assert judged(release_pair, {"docker-compose.yml": old}, {"docker-compose.yml": kept}) == []
    added = DB.replace(
        "volumes:\n  pgdata:",
        "  tools:\n    image: example/t:1\n    profiles: [tools]\nvolumes:\n  pgdata:",
    )
    assert judged(release_pair, {"docker-compose.yml": DB}, {"docker-compose.yml": added}) == []


def test_the_report_stays_checked_with_an_unreadable_include(release_pair: Pair) -> None:
    remote = INCLUDE.replace("db.yaml", "https://example.com/db.yaml")
    found = report(
        release_pair,
        {"docker-compose.yml": INCLUDE, "db.yaml": BASE},
        {"docker-compose.yml": remote},
    )
    assert found.checked


def test_an_env_file_the_repository_does_not_ship_is_the_operators(release_pair: Pair) -> None:
    """`env_file: .env` made by operators from an example is not a file the release hides."""
    compose = DB.replace("    environment:", "    env_file: [.env, /etc/app.env]\n    environment:")
    bumped = compose.replace("postgres:16.1", "postgres:16.2")
    found = judged(release_pair, {"docker-compose.yml": compose}, {"docker-compose.yml": bumped})
    assert found == [("deployment-stateful-updated", "advisory", "docker-compose.yml", 5)]


def test_an_included_file_that_appears_is_read_though_the_compose_file_is_the_same(
    release_pair: Pair,
) -> None:
    appeared = report(release_pair, {"docker-compose.yml": INCLUDE}, {"db.yaml": BASE})
    assert "db.yaml" in appeared.coverage.new and "db.yaml" not in appeared.coverage.old
    assert [f.rule for f in appeared.findings] == []  # a new service starts empty
    gone = judged(release_pair, {"docker-compose.yml": INCLUDE, "db.yaml": BASE}, {"db.yaml": None})
    assert ("deployment-compose-reference-unread", "unknown", "docker-compose.yml", 2) in gone


def test_files_that_include_each_other_are_read_once_and_named(release_pair: Pair) -> None:
    loop_a = "include: [b.yaml]\nservices:\n  db:\n    image: postgres:15.4\n"
    loop_b = "include: [docker-compose.yml]\nservices:\n  cache:\n    image: redis:7.2\n"
    old = {"docker-compose.yml": loop_a, "b.yaml": loop_b}
    found = judged(release_pair, old, {"b.yaml": loop_b.replace("7.2", "8.0")})
    assert ("deployment-stateful-major-changed", "breaking", "b.yaml", 4) in found
    assert ("deployment-compose-reference-unread", "unknown", "b.yaml", 1) in found


def test_a_service_extending_one_of_the_same_file_takes_its_image(release_pair: Pair) -> None:
    same = (
        "services:\n  base:\n    image: postgres:15.4\n    profiles: [base]\n"
        "  db:\n    extends: base\n    volumes: [pgdata:/var/lib/postgresql/data]\n"
    )
    found = judged(
        release_pair,
        {"docker-compose.yml": same},
        {"docker-compose.yml": same.replace("15.4", "16.1")},
    )
    assert [(rule, line) for rule, _, _, line in found] == [
        ("deployment-stateful-major-changed", 3),
        ("deployment-stateful-major-changed", 3),
    ]
