"""The settings surface: every key judged both ways (narrowing is unknown, the rest advisory)."""

from __future__ import annotations

import pytest

from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.atref import SettingsAt
from release_safety.settings.model import parse_settings
from release_safety.surfaces.settingsdiff import analyse, diff_settings, key_line

FILES = {
    "openapi.yaml": "x",
    "db/migrations/001.sql": "x",
    ".env.example": "A=1",
    "deploy/docker-compose.yml": "services: {}",
}
OLD = MemorySnapshot(FILES, ref="v1")
NEW = MemorySnapshot(FILES, ref="v2")
ABSENT = 'absent = "the service exposes no such thing to anyone"'


def at(text: str | None) -> SettingsAt:
    settings = parse_settings(text or "", "x.toml")
    return SettingsAt(settings, "test", text)


def judged(before: str | None, after: str) -> list[tuple[str, str]]:
    findings = diff_settings(at(before), at(after), [OLD, NEW])
    return [(f.rule, f.message) for f in findings]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ("", "", []),
        (
            '[rest]\nspecs = ["openapi.yaml"]\n',
            '[rest]\nspecs = ["openapi.yaml", "admin.yaml"]\n',
            [("settings-changed", "key 'rest.specs': now also reads admin.yaml")],
        ),
        (
            '[rest]\nspecs = ["openapi.yaml", "admin.yaml"]\n',
            '[rest]\nspecs = ["openapi.yaml"]\n',
            [("settings-narrowed", "key 'rest.specs': no longer reads admin.yaml")],
        ),
        (
            "",
            '[rest]\nspecs = ["openapi.yaml"]\n',
            [
                (
                    "settings-changed",
                    "key 'rest.specs': set for the first time; it finds everything discovery found",
                )
            ],
        ),
        (
            "",
            '[config]\nsources = ["src/config.ts"]\n',
            [
                (
                    "settings-narrowed",
                    "key 'config.sources': discovery found v1:.env.example, v2:.env.example, "
                    "the new settings do not",
                )
            ],
        ),
        (
            '[[migrations.sources]]\npath = "db/migrations"\n',
            '[[migrations.sources]]\npath = "db/migrations"\nexclude = "0042_.*"\n',
            [
                (
                    "settings-narrowed",
                    "key 'migrations.sources': no longer reads "
                    "{path='db/migrations', pattern='.*\\\\.sql', format='sql'}",
                ),
                (
                    "settings-changed",
                    "key 'migrations.sources': now also reads {path='db/migrations', "
                    "pattern='.*\\\\.sql', exclude='0042_.*', format='sql'}",
                ),
            ],
        ),
        (
            '[config]\nsources = ["src/**/*.go"]\n',
            '[config]\nsources = [{path = "src/**/*.go", exclude = ["src/gen/**"]}]\n',
            [
                (
                    "settings-narrowed",
                    "key 'config.sources': reads less: src/**/*.go -> "
                    "{path='src/**/*.go', exclude=['src/gen/**']}",
                )
            ],
        ),
        (
            '[config]\nsources = [{path = "src/**/*.go", exclude = ["src/gen/**"]}]\n',
            '[config]\nsources = [{path = "src/**/*.go", exclude = ["src/gen/**", "src/x/**"]}]\n',
            [
                (
                    "settings-narrowed",
                    "key 'config.sources': reads less: {path='src/**/*.go', "
                    "exclude=['src/gen/**']} -> {path='src/**/*.go', "
                    "exclude=['src/gen/**', 'src/x/**']}",
                )
            ],
        ),
        (
            '[config]\nsources = [{path = "src/**/*.go", exclude = ["src/gen/**"]}]\n',
            '[config]\nsources = ["src/**/*.go"]\n',
            [
                (
                    "settings-changed",
                    "key 'config.sources': reads more: {path='src/**/*.go', "
                    "exclude=['src/gen/**']} -> src/**/*.go",
                )
            ],
        ),
        (
            '[config]\nsources = ["src/**/*.go"]\n',
            '[config]\nsources = ["src/**/*.go", {path = "app.toml", env_prefix = "APP_"}]\n',
            [
                (
                    "settings-changed",
                    "key 'config.sources': now also reads {path='app.toml', env_prefix='APP_'}",
                )
            ],
        ),
        (
            '[config]\nsources = [{path = "d.env", defaults = true}]\n',
            '[config]\nsources = ["d.env"]\n',
            [
                (
                    "settings-narrowed",
                    "key 'config.sources': reads less: {path='d.env', defaults=True} -> d.env",
                )
            ],
        ),
        (
            '[config]\nsources = ["d.env"]\n',
            '[config]\nsources = [{path = "d.env", defaults = true}]\n',
            [
                (
                    "settings-changed",
                    "key 'config.sources': reads more: d.env -> {path='d.env', defaults=True}",
                )
            ],
        ),
        (
            '[config]\nsources = [{path = "a.toml", env_prefix = "APP_"}]\n',
            '[config]\nsources = [{path = "a.toml", env_prefix = "SVC_"}]\n',
            [
                (
                    "settings-narrowed",
                    "key 'config.sources': reads less: {path='a.toml', env_prefix='APP_'} -> "
                    "{path='a.toml', env_prefix='SVC_'}",
                )
            ],
        ),
        ('[config]\nsources = ["a.go"]\n', '[config]\nsources = [{path = "a.go"}]\n', []),
        (
            "",
            '[config]\nrenames = {DATABASE_HOST = "DB_HOST"}\n',
            [
                (
                    "settings-changed",
                    "key 'config.renames': {} -> {'DATABASE_HOST': 'DB_HOST'}",
                )
            ],
        ),
        (
            '[rest]\nspecs = ["openapi.yaml"]\n',
            f"[rest]\n{ABSENT}\n",
            [
                (
                    "settings-narrowed",
                    "key 'rest.absent': declared absent: the service exposes "
                    "no such thing to anyone",
                ),
            ],
        ),
        (
            f"[mcp]\n{ABSENT}\n",
            '[mcp]\nsnapshots = ["mcp.json"]\n',
            [
                ("settings-changed", "key 'mcp.absent': no longer declared absent"),
                (
                    "settings-changed",
                    "key 'mcp.snapshots': now reads mcp.json (the section was declared absent)",
                ),
            ],
        ),
        (
            "",
            '[deployment]\nsources = ["deploy/docker-compose.yml"]\n',
            [
                (
                    "settings-changed",
                    "key 'deployment.sources': set for the first time; it finds everything "
                    "discovery found",
                )
            ],
        ),
        (
            "",
            '[deployment]\nsources = ["charts/*/Chart.yaml"]\n',
            [
                (
                    "settings-narrowed",
                    "key 'deployment.sources': discovery found v1:deploy/docker-compose.yml, "
                    "v2:deploy/docker-compose.yml, the new settings do not",
                )
            ],
        ),
        (
            '[deployment]\nsources = ["deploy/docker-compose.yml", "Dockerfile"]\n',
            '[deployment]\nsources = ["deploy/docker-compose.yml"]\n',
            [("settings-narrowed", "key 'deployment.sources': no longer reads Dockerfile")],
        ),
        (
            "",
            f"[deployment]\n{ABSENT}\n",
            [
                (
                    "settings-narrowed",
                    "key 'deployment.absent': declared absent: the service exposes "
                    "no such thing to anyone",
                ),
            ],
        ),
        (
            f"[deployment]\n{ABSENT}\n",
            '[deployment]\nsources = ["deploy/docker-compose.yml"]\n',
            [
                ("settings-changed", "key 'deployment.absent': no longer declared absent"),
                (
                    "settings-changed",
                    "key 'deployment.sources': now reads deploy/docker-compose.yml (the section "
                    "was declared absent)",
                ),
            ],
        ),
        (
            "",
            "postgres_version = 12\n",
            [("settings-narrowed", "key 'postgres_version': 15 -> 12")],
        ),
        (
            "",
            "tag_pattern = '^release-(?P<version>.+)$'\n",
            [
                (
                    "settings-narrowed",
                    "key 'tag_pattern': '^v?(?P<version>\\\\d+\\\\.\\\\d+\\\\.\\\\d+)$' -> "
                    "'^release-(?P<version>.+)$'",
                )
            ],
        ),
        (
            "",
            '[migrations]\nplaceholders = {"${schema}" = "app"}\n',
            [("settings-narrowed", "key 'migrations.placeholders': {} -> {'${schema}': 'app'}")],
        ),
        (
            "",
            '[migrations]\nserver_timezone = "Europe/Paris"\n',
            [("settings-narrowed", "key 'migrations.server_timezone': 'UTC' -> 'Europe/Paris'")],
        ),
        (
            "",
            "[declarations]\nannotations = false\n",
            [("settings-narrowed", "key 'declarations.annotations': True -> False")],
        ),
        (
            "[rest]\nexternal_refs = true\n",
            "",
            [("settings-narrowed", "key 'rest.external_refs': True -> False")],
        ),
        (
            "",
            "[rest]\nexternal_refs = true\n",
            [("settings-changed", "key 'rest.external_refs': False -> True")],
        ),
        (
            "",
            '[overrides]\nfile = "ops/overrides.json"\n',
            [
                (
                    "settings-narrowed",
                    "key 'overrides.file': 'release-safety.overrides.json' -> 'ops/overrides.json'",
                )
            ],
        ),
        (
            '[rules]\noff = ["create-index-non-concurrently"]\n',
            '[rules]\noff = ["blocking-table-lock"]\n',
            [
                ("settings-narrowed", "key 'rules.off': turned off blocking-table-lock"),
                (
                    "settings-changed",
                    "key 'rules.off': turned back on create-index-non-concurrently",
                ),
            ],
        ),
        (
            '[deployment]\nstateless = ["ghcr.io/acme/cache"]\n',
            '[deployment]\nstateless = ["ghcr.io/acme/worker"]\nexclude = ["ops/**"]\n',
            [
                ("settings-narrowed", "key 'deployment.exclude': now leaves out ops/**"),
                (
                    "settings-narrowed",
                    "key 'deployment.stateless': now leaves out ghcr.io/acme/worker",
                ),
                (
                    "settings-changed",
                    "key 'deployment.stateless': no longer leaves out ghcr.io/acme/cache",
                ),
            ],
        ),
        (
            "",
            '[[migrations.exclude]]\npath = "vendor/lib/migrations/*.sql"\n'
            'reason = "the vendored library migrates its own database, not ours"\n',
            [
                (
                    "settings-narrowed",
                    "key 'migrations.exclude': now leaves out "
                    '{"path": "vendor/lib/migrations/*.sql", "reason": "the vendored library '
                    'migrates its own database, not ours"}',
                ),
            ],
        ),
        (
            "",
            'floor_version = "1.0.0"\nindex_url = "https://example.com/i.json"\n',
            [
                ("settings-changed", "key 'floor_version': None -> '1.0.0'"),
                ("settings-changed", "key 'index_url': None -> 'https://example.com/i.json'"),
            ],
        ),
    ],
)
def test_every_key_is_judged(before: str, after: str, expected: list[tuple[str, str]]) -> None:
    assert sorted(judged(before, after)) == sorted(expected)


def test_findings_point_at_the_key_in_the_new_settings() -> None:
    text = 'floor_version = "1.0.0"\n\n[rest]\n# the public API\nspecs = ["openapi.yaml"]\n'
    assert key_line(text, "rest.specs") == 5
    assert key_line(text, "floor_version") == 1
    assert key_line(text, "rest.absent") == 3  # not written: its table
    assert key_line(text, "mcp.snapshots") == 1  # no table: the file
    assert key_line("[[migrations.sources]]\npath = 'x'\n", "migrations.sources") == 1


def test_no_previous_settings_is_no_diff_and_an_unreadable_one_is_unknown() -> None:
    current = at("")
    assert analyse(None, current, None, NEW).findings == []
    report = analyse(None, current, OLD, NEW, problem="the previous release's settings: bad")
    assert [(f.rule, f.severity) for f in report.findings] == [("settings-unreadable", "unknown")]
    assert report.checked is True


REASON = "the reporting replica runs PostgreSQL 10 until the cluster moves in 2027"


@pytest.mark.parametrize(
    ("written", "line"),
    [
        (f'[[accept]]\nkey = "postgres_version"\nreason = "{REASON}"\n', 2),
        (f'accept = [{{key = "postgres_version", reason = "{REASON}"}}]\n', 2),
    ],
)
def test_an_acceptance_is_found_at_its_line_however_it_is_written(written: str, line: int) -> None:
    [finding] = diff_settings(at(""), at("postgres_version = 10\n" + written), [OLD, NEW])
    assert (finding.severity, finding.acknowledged) == (
        "advisory",
        f".release-safety.toml:{line}: {REASON}",
    )


def in_pyproject(text: str) -> SettingsAt:
    settings = parse_settings(text, "pyproject.toml", table=True)
    assert settings is not None
    return SettingsAt(settings.read_from("pyproject.toml"), "test", text)


@pytest.mark.parametrize(
    ("before", "after", "undo"),
    [
        ("", "postgres_version = 10\n", "set `postgres_version` back to its previous value"),
        (
            "",
            '[deployment]\nexclude = ["x.yml"]\n',
            "take the new entries out of `deployment.exclude`",
        ),
        (
            '[rest]\nspecs = ["openapi.yaml"]\n',
            f"[rest]\n{ABSENT}\n",
            "point `rest.specs` at the surface's documents rather than declaring it absent",
        ),
    ],
)
def test_a_narrowing_says_how_to_accept_it_or_undo_it_for_its_key(
    before: str, after: str, undo: str
) -> None:
    [narrowed] = diff_settings(at(before), at(after), [OLD, NEW])
    assert narrowed.hint is not None and narrowed.hint.endswith(f"; else {undo}.")


def test_an_acceptance_in_pyproject_is_named_as_pyproject_writes_it() -> None:
    narrower = "[tool.release-safety]\npostgres_version = 10\n"
    entry = f'\n[[tool.release-safety.accept]]\nkey = "postgres_version"\nreason = "{REASON}"\n'
    [accepted] = diff_settings(at(""), in_pyproject(narrower + entry), [OLD, NEW])
    assert (accepted.severity, accepted.acknowledged) == ("advisory", f"pyproject.toml:4: {REASON}")
    [narrowed] = diff_settings(at(""), in_pyproject(narrower), [OLD, NEW])
    assert narrowed.severity == "unknown"
    assert narrowed.hint is not None
    assert (
        'accept it in pyproject.toml: [[tool.release-safety.accept]] key = "postgres_version"'
        in (narrowed.hint)
    )
