"""The deployment rules: what a release does to the services around the application."""

from __future__ import annotations

from release_safety.contract.reports import Rule, Severity, register


def _rule(
    id: str, severity: Severity, title: str, why: str, unsafe: str = "", safe: str = ""
) -> Rule:
    return register(
        Rule(
            id=id,
            surface="deployment",
            severity=severity,
            title=title,
            why=why,
            unsafe=unsafe,
            safe=safe,
        )
    )


MAJOR_CHANGED = _rule(
    "deployment-stateful-major-changed",
    "breaking",
    "A bundled stateful component moves to another major version",
    "A database, cache or index keeps its data on disk in a format of its major version: the "
    "new one upgrades it (pg_upgrade, a dump and restore, a reindex) while nothing may use it, "
    "and the previous release cannot run against the upgraded data.",
    "image: postgres:15.6 -> postgres:18.1 (or `postgresql18-server`, "
    '`ENTRYPOINT ["/docker-entrypoint.sh", "15", "18"]`)',
    "Ship the upgrade as its own release with the Recreate strategy and a documented stop, or "
    "keep the major version and bump only minor and patch versions.",
)
ENGINE_CHANGED = _rule(
    "deployment-stateful-engine-changed",
    "breaking",
    "A bundled stateful component is replaced by another product",
    "The new product takes over data another one wrote (Redis by Valkey, MySQL by MariaDB): "
    "the two never run side by side on it, and the switch happens while the service is down.",
    "image: redis:7.2 -> valkey/valkey:8",
    "Switch in a release of its own with the Recreate strategy, and say how data moves.",
)
REPLACED = _rule(
    "deployment-stateful-replaced",
    "unknown",
    "A bundled stateful component is replaced by something the tool cannot name",
    "The service that held the data now runs an image or package of no known kind: whether "
    "it reads the same data cannot be told.",
    "image: postgres:15 -> registry.example.com/db:2",
    "Keep a recognisable image name, or declare the change.",
)
VERSION_UNREADABLE = _rule(
    "deployment-stateful-version-unreadable",
    "unknown",
    "A bundled stateful component changed, and its version cannot be read",
    "`latest`, a digest alone or a placeholder says nothing about the major version: the "
    "change may be a major upgrade.",
    "image: postgres:${PG_TAG} (no default), postgres:latest -> postgres@sha256:...",
    "Pin a version tag (`postgres:16.4`); compose defaults (`${PG_TAG:-16.4}`) are read.",
)
UPDATED = _rule(
    "deployment-stateful-updated",
    "advisory",
    "A bundled stateful component gets a minor or patch version (or a new digest)",
    "Minor versions keep the data format; the container restarts with the new image.",
    "",
    "image: postgres:16.3 -> postgres:16.4",
)
ADDED = _rule(
    "deployment-stateful-added",
    "advisory",
    "A stateful component appears",
    "New installs and upgrades start it empty; nothing of the previous release depends on it.",
)
COMPONENT_REMOVED = _rule(
    "deployment-stateful-component-removed",
    "breaking",
    "A bundled stateful component is no longer built",
    "The previous release's installs keep its data; the new release has no component that "
    "reads it, and no volume of a new component says it takes the data over.",
    "make/redis/Dockerfile removed",
    "Keep the component for a release, or move its data in a documented stop.",
)
SERVICE_REMOVED = _rule(
    "deployment-service-removed",
    "breaking",
    "A compose service is removed",
    "Operators' overrides and scripts name the service, the previous release's containers "
    "call it, and its state is left behind.",
    "services: {app, db, cache} -> services: {app, db}",
    "Keep the service (idle) for a release, or declare the removal with a required stop.",
)
SERVICE_RENAMED = _rule(
    "deployment-service-renamed",
    "breaking",
    "A compose service is renamed",
    "Compose starts a new container beside the old one's orphaned volumes and host name; "
    "the previous release's containers still call the old name.",
    "services: {cache: redis:7} -> services: {redis: redis:7}",
    "Keep the name; add a network alias for the new one.",
)
CHART_REMOVED = _rule(
    "deployment-chart-removed",
    "breaking",
    "A Helm chart the previous release shipped is gone",
    "Installs made with the chart have no chart to upgrade with.",
)
VOLUME_REMOVED = _rule(
    "deployment-volume-removed",
    "breaking",
    "A volume or a service's writable mount is removed",
    "The data stays on the host, but the new release starts without it: an empty database or "
    "store, and no way back for the previous release's data.",
    "volumes: [pgdata:/var/lib/postgresql/data] -> (none)",
    "Keep the volume; read-only and tmpfs mounts hold no state and are not judged.",
)
MOUNT_CHANGED = _rule(
    "deployment-volume-mount-changed",
    "breaking",
    "A volume is mounted at another path, or another volume at the same path",
    "The component looks for its data where the previous release did not put it.",
    "pgdata:/var/lib/postgresql/data -> pgdata:/var/lib/postgresql",
    "Keep the mount path; move data with an explicit, documented step.",
)
DATA_MOVED = _rule(
    "deployment-data-directory-moved",
    "breaking",
    "A database's data folder moves inside its volume",
    "The volume stays mounted, but the server looks elsewhere in it (`PGDATA`): it finds no "
    "cluster, starts an empty one, and the previous release's data is left beside it.",
    "environment: {PGDATA: /var/lib/postgresql/data/pgdata} (was the default)",
    "Keep `PGDATA` where the data is, or move the files in a documented required stop.",
)
DATA_WIPED = _rule(
    "deployment-data-wiped",
    "breaking",
    "A service's entrypoint or command removes its data folder",
    "The override runs on every start: the data the previous release wrote to the mounted "
    "folder is deleted before the server reads it.",
    'command: sh -c "rm -rf /var/lib/postgresql/data/* && docker-entrypoint.sh postgres"',
    "Remove only caches and temporary files (`rm -rf /tmp/cache`); data folders are kept.",
)
SERVICE_DISABLED = _rule(
    "deployment-service-disabled",
    "breaking",
    "A compose service is switched off by profiles",
    "A service given `profiles` is no longer started by `docker compose up`: installs lose it "
    "like a removed service, and its volume is orphaned.",
    'profiles: ["never"] on service db',
    "Keep the service without profiles for a release, or declare the removal with a required "
    "stop; a new service may come with profiles.",
)
REFERENCE_UNREAD = _rule(
    "deployment-compose-reference-unread",
    "unknown",
    "A compose file pulls in a file the tool cannot read",
    "Compose runs the services of an `include:`, an `extends: {file:}` and an `env_file:` as "
    "its own: one that is remote, outside the repository or missing may change anything.",
    "include: [oci://registry.example.com/stack/db:1]",
    "Keep the included files in the repository, next to the compose file.",
)
REQUIRED_ENV = _rule(
    "deployment-required-env-added",
    "breaking",
    "A compose file needs a new variable that has no default",
    "Existing installs do not set it: compose refuses to start (`${VAR:?}`) or passes an "
    "empty value.",
    "environment: {SECRET_KEY: ${SECRET_KEY:?set it}}",
    "Give it a default (`${SECRET_KEY:-}` with a generated fallback in the application).",
)
DEPENDENCY_MAJOR = _rule(
    "deployment-chart-dependency-major-changed",
    "breaking",
    "A Helm chart dependency moves to another major version",
    "A chart's major version is its promise of breaking changes: values renamed, workloads "
    "replaced, and for a database subchart (bitnami/postgresql) often a new major database.",
    "dependencies: [{name: postgresql, version: 12.12.10}] -> version: 15.5.0",
    "Upgrade the dependency in its own release with upgrade notes and the Recreate strategy.",
)
DEPENDENCY_REMOVED = _rule(
    "deployment-chart-dependency-removed",
    "breaking",
    "A Helm chart dependency is removed",
    "`helm upgrade` deletes the dependency's workloads; installs that used it lose the service.",
)
VALUE_REMOVED = _rule(
    "deployment-value-removed",
    "breaking",
    "A Helm value is removed",
    "Operators' values files and `--set` flags still set it; the chart silently ignores it, "
    "like an environment variable no longer read.",
    "values.yaml: persistence.size removed",
    "Keep reading the old value for a release (`default .Values.old .Values.new`).",
)
VALUE_RENAMED = _rule(
    "deployment-value-renamed",
    "breaking",
    "A Helm value is renamed",
    "Operators set the old name; the new release ignores it and runs on the new default.",
    "values.yaml: redis.host -> cache.host",
    "Read the new name and fall back to the old one in the templates.",
)
STRATEGY_RECREATE = _rule(
    "deployment-strategy-recreate",
    "breaking",
    "The chart's upgrade mode or update strategy becomes Recreate",
    "The chart itself stops every pod before starting the new ones: the release is not "
    "rolled, whatever the other surfaces say (docs/contract.md#verdict-rules, rule 8).",
    "upgrade.mode: RollingUpdate -> Recreate",
)
STRATEGY_CHANGED = _rule(
    "deployment-strategy-changed",
    "advisory",
    "The chart's upgrade mode or update strategy changes",
    "Worth a line in the upgrade notes; only a change to Recreate stops the service.",
)
UNCATALOGUED_MAJOR = _rule(
    "deployment-uncatalogued-major-changed",
    "unknown",
    "An image the catalogue does not know keeps data and moves to another major version",
    "The service mounts a volume or a data directory, so it may keep data on disk in a format "
    "of its major version; the tool cannot tell whether the new major reads it in place.",
    "image: example/ledger:1.4 -> example/ledger:2.0, volumes: [ledger:/var/lib/ledger]",
    "Name the image in `[deployment] stateless` if its data survives majors, or acknowledge "
    "the release in the overrides file.",
)
DESCRIPTOR_KIND_UNKNOWN = _rule(
    "deployment-descriptor-kind-unknown",
    "unknown",
    "A file named as a deployment descriptor is of no kind the tool reads",
    "Neither its name nor its content says compose file, Helm chart or Dockerfile: what it "
    "deploys cannot be read.",
    'sources = ["deploy/stack.txt"]',
    'Say its kind: [[deployment.sources]] path = "deploy/stack.txt", kind = "compose".',
)
