import re
from pathlib import Path

import pytest

from release_safety.common.errors import InputError
from release_safety.settings.model import MigrationSource, Settings, load_settings, parse_settings


@pytest.mark.parametrize(
    ("path", "format_", "edition"),
    [
        ("migrations/001_init.sql", "sql", "core"),
        ("db/migrations/001_users.up.sql", "sql", "core"),
        ("db/migrations/V3__add_index.sql", "sql", "core"),
        ("db/migrations/sub/folder/002.sql", "sql", "core"),
        ("ee/migrations/010_billing.sql", "sql", "ee"),
        ("packages/backend/src/database/migrations/20240101120000_add.ts", "knex", "core"),
        ("packages/backend/src/ee/database/migrations/20240101120000_add.js", "knex", "ee"),
    ],
)
def test_default_sources_claim(path: str, format_: str, edition: str) -> None:
    sources = [s for s in Settings().migrations.sources if s.matches(path)]
    assert [s.format for s in sources] == [format_]
    assert sources[0].edition_of(path) == edition


@pytest.mark.parametrize(
    "path",
    [
        "db/migrations/001_users.down.sql",
        "db/migrations/U3__add_index.sql",
        "src/schema.sql",
        "src/20240101120000_add.ts",
        "migrations/20240101120000_add.d.ts",
        "migrations/helper.ts",
    ],
)
def test_default_sources_ignore(path: str) -> None:
    assert not any(s.matches(path) for s in Settings().migrations.sources)


def test_configured_source_with_fixed_edition() -> None:
    settings = parse_settings(
        """
postgres_version = 13
floor_version = "0.1893.0"

[[migrations.sources]]
path = "packages/backend/src/database/migrations"
pattern = '\\d{14}_.*\\.ts'
format = "knex"
edition = "core"

[rest]
specs = ["packages/backend/src/generated/swagger.json"]
""",
        "x.toml",
    )
    assert settings.postgres_version == 13
    source = settings.migrations.sources[0]
    assert source.matches("packages/backend/src/database/migrations/20240101120000_a.ts")
    assert not source.matches("other/migrations/20240101120000_a.ts")
    assert settings.rest.specs == ("packages/backend/src/generated/swagger.json",)
    assert settings.explicitly_set("rest") and not settings.explicitly_set("mcp")


def test_the_floor_may_be_written_with_a_tags_v() -> None:
    assert parse_settings("floor_version = 'v0.1893.0'", "x.toml").floor_version == "0.1893.0"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("postgres_version = 'x'", "key 'postgres_version'"),
        ("[rest]\nspecz = []", "key 'rest.specz': unknown key"),
        ("colour = 1", "key 'colour': unknown key"),
        ("floor_version = '1.2'", "not a release version"),
        ("[[migrations.sources]]\npath='m'\nformat='yaml'", "key 'migrations.sources.0.format'"),
        ("[[migrations.sources]]\npath='m'\npattern='('", "key 'migrations.sources.0.pattern'"),
        ("tag_pattern = '^v(\\d+)$'", "named group"),
        ("not toml", "not valid TOML"),
    ],
)
def test_errors_name_file_and_key(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_settings(text, "repo/.release-safety.toml")
    assert re.match(r"repo/\.release-safety\.toml(, line \d+)?: ", caught.value.message)
    assert message in caught.value.message
    assert "\n" not in caught.value.message


def test_folder_glob_spans_folders() -> None:
    source = MigrationSource(path="services/*/db/**/migrations")
    assert source.matches("services/api/db/migrations/1.sql")
    assert source.matches("services/api/db/a/b/migrations/1.sql")
    assert not source.matches("services/api/x/db/migrations/1.sql")


def test_load_settings_reports_unreadable_files_in_one_line(tmp_path: Path) -> None:
    assert load_settings(tmp_path, None) == Settings()
    (tmp_path / ".release-safety.toml").write_bytes(b"postgres_version = 13\n# \xff\n")
    with pytest.raises(InputError, match=r"\.release-safety\.toml: settings are not UTF-8 text"):
        load_settings(tmp_path, None)
    with pytest.raises(InputError, match="cannot read settings"):
        load_settings(tmp_path, tmp_path / "missing.toml")


def test_whether_a_source_holds_a_folder_is_kept_per_source_path_and_folder() -> None:
    """The answer kept for one source path and folder never answers for another of either:
    the same folder under another source path, or another folder under the same."""
    db = MigrationSource(path="db/**/migrations")
    other = MigrationSource(path="server/migrations")
    for _ in range(2):  # asked again: the kept answers, the same
        assert db.holds("db/a/migrations/001.sql") and db.holds("db/migrations/x.sql")
        assert not other.holds("db/a/migrations/001.sql")
        assert other.holds("server/migrations/001.sql")
        assert not db.holds("server/migrations/001.sql")
        assert db.holds("db/a/migrations/sub/001.sql")  # a folder below it
        assert not db.holds("db/vendor/migrations/001.sql")  # in a skipped folder
        assert not db.holds("001.sql") and not db.holds_folder("")
    assert MigrationSource(path="db/**/migrations", format="goose").holds_folder("db/migrations")
