"""`release-safety init` on real repositories built in tmp_path: the settings it writes from
what discovery finds, that they load, and the verdict of the latest release with them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder
from release_safety.init.survey import infer_tags
from release_safety.settings.model import load_settings

MakeRepo = Callable[[str], RepoBuilder]

SPEC = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /users:
    get:
      responses:
        '200': {description: users}
"""
INIT = "CREATE TABLE users (id bigint PRIMARY KEY, name text);\n"
ADD = "ALTER TABLE users ADD COLUMN email text;\n"
COMPOSE = "services:\n  app:\n    image: example/svc:1.0\n"
DEV_COMPOSE = "services:\n  mailhog:\n    image: mailhog/mailhog:v1.0.1\n"
MCP_REASON = "the service exposes no MCP server; agents use the REST API"


def service(make_repo: MakeRepo, prefix: str = "v") -> RepoBuilder:
    """SQL migrations, an OpenAPI document, an env template, a compose file and a dev one."""
    repo = make_repo("svc")
    files = {
        "db/migrations/001_init.sql": INIT,
        "api/openapi.yaml": SPEC,
        ".env.example": "PORT=8080\nDATABASE_URL=\n",
        "docker-compose.yml": COMPOSE,
        "docker-compose.dev.yml": DEV_COMPOSE,
    }
    repo.release("1.0.0", files, prefix=prefix)
    repo.release("1.1.0", {"db/migrations/002_email.sql": ADD}, prefix=prefix)
    return repo


def init(repo: RepoBuilder, *args: str) -> int:
    return run(["init", "--repo", str(repo.path), *args])


def settings_file(repo: RepoBuilder) -> str:
    return (repo.path / ".release-safety.toml").read_text()


def generate(repo: RepoBuilder, tmp_path: Path, config: Path) -> tuple[int, Any]:
    out = tmp_path / "artifact.json"
    args = ["generate", "--repo", str(repo.path), "--to", "v1.1.0", "--out", str(out)]
    code = run([*args, "--config", str(config), "--evidence", str(tmp_path / "ev.json")])
    found = json.loads((tmp_path / "ev.json").read_text()) if code == 0 else None
    return code, found


def test_a_service_gets_each_surface_with_why_mcp_absent_and_the_dev_compose_excluded(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = service(make_repo)
    assert init(repo) == 0
    text = settings_file(repo)
    assert "tag_pattern = '^v(?P<version>\\d+\\.\\d+\\.\\d+)$'" in text
    assert 'floor_version = "1.0.0"' in text
    assert "# 2 sql migration(s) (001_init.sql .. 002_email.sql), run in file-name order" in text
    assert 'path = "db/migrations"\n' in text and 'format = "sql"\n' in text
    assert "# api/openapi.yaml: an OpenAPI document" in text
    assert 'specs = ["api/openapi.yaml"]' in text
    assert "# .env.example: an env template: the variable names operators set" in text
    assert "# docker-compose.yml: a compose file operators deploy with" in text
    assert "# excluded, docker-compose.dev.yml: developer-only: `dev` in its path" in text
    assert 'absent = "TODO: write why the service has no MCP server' in text
    # the file loads with the settings loader and says what it was read for
    settings = load_settings(repo.path, None)
    assert settings.migrations.sources[0].path == "db/migrations"
    assert settings.rest.specs == ("api/openapi.yaml",)
    assert [s.path for s in settings.config.sources] == [".env.example"]
    assert not settings.explicitly_set("deployment", "sources")  # the defaults find them
    assert settings.mcp.absent is not None and settings.mcp.absent.startswith("TODO")
    out = capsys.readouterr().out
    assert "wrote .release-safety.toml" in out
    assert (
        "v1.1.0 (from v1.0.0), judged with .release-safety.toml: rollingUpdateSafe = unknown" in out
    )


def test_a_knex_service_gets_a_knex_source(make_repo: MakeRepo) -> None:
    repo = make_repo("knex")
    knex = "exports.up = (knex) => knex.schema.createTable('links', (t) => { t.increments(); });\n"
    knex += "exports.down = (knex) => knex.schema.dropTable('links');\n"
    files = {
        "server/migrations/20200211220920_init.js": knex,
        "server/env.js": "module.exports = { port: process.env.PORT || 3000 };\n",
        "regen.py": "import os\nprint(os.environ['TOKEN'])\n",
    }
    repo.release("2.0.0", files, prefix="")
    assert init(repo) == 0
    text = settings_file(repo)
    assert "[migrations]" not in text  # knex files are read, not migrations written in code
    assert 'sources = [\n  "server/**/*.js",\n]' in text  # a root script is not the service
    assert "# 1 knex migration(s) (20200211220920_init.js .. 20200211220920_init.js)" in text
    assert 'path = "server/migrations"\nformat = "knex"\n' in text
    assert load_settings(repo.path, None).migrations.sources[0].format == "knex"
    assert "tag_pattern = '^(?P<version>\\d+\\.\\d+\\.\\d+)$'" in text


@pytest.mark.parametrize(
    ("tags", "pattern", "why"),
    [
        (["v1.0.0", "v1.1.0", "v1.2.0-rc.1"], r"^v(?P<version>\d+\.\d+\.\d+)$", "2 of the tags"),
        (["1.0.0", "1.1.0"], r"^(?P<version>\d+\.\d+\.\d+)$", "2 of the tags are `1.2.3`"),
        (["1.0.0", "v1.1.0"], r"^v?(?P<version>\d+\.\d+\.\d+)$", "are `1.2.3` and `v1.2.3`"),
        (
            ["server-v1.0.0", "server-v1.1.0", "bridge-v1.0.0"],
            r"^server\-v(?P<version>\d+\.\d+\.\d+)$",
            "`bridge-vX.Y.Z` (1) are not releases",
        ),
        ([], r"^v?(?P<version>\d+\.\d+\.\d+)$", "no tag ends with a version yet"),
    ],
)
def test_the_tag_pattern_is_the_one_the_tags_use(tags: list[str], pattern: str, why: str) -> None:
    found, said = infer_tags(tags)
    assert found == pattern
    assert why in said


def test_a_repository_without_tags_gets_the_default_pattern_and_no_verdict(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo("untagged")
    repo.write("db/migrations/001_init.sql", INIT).commit("first")
    assert init(repo) == 0
    text = settings_file(repo)
    assert "# no tag ends with a version yet" in text and "floor_version" not in text
    assert "no release tag yet: tag a release" in capsys.readouterr().out


def test_init_never_overwrites_without_force_and_dry_run_writes_nothing(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = service(make_repo)
    assert init(repo, "--dry-run") == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# .release-safety.toml, written by `release-safety init`")
    assert "rollingUpdateSafe = unknown" in captured.err  # the verdict goes aside
    assert not (repo.path / ".release-safety.toml").exists()
    (repo.path / ".release-safety.toml").write_text("# mine\n")
    assert init(repo) == 2
    error = capsys.readouterr().err
    assert error == "release-safety: .release-safety.toml: already exists; --force replaces it\n"
    assert settings_file(repo) == "# mine\n"
    assert init(repo, "--force") == 0
    assert settings_file(repo).startswith("# .release-safety.toml, written by")


def test_pyproject_gets_the_table_beside_what_it_holds(make_repo: MakeRepo) -> None:
    repo = service(make_repo)
    pyproject = repo.path / "pyproject.toml"
    pyproject.write_text(
        '[project]\nname = "svc"\n\n[tool.release-safety]\nfloor_version = "1.0.0"\n'
    )
    assert init(repo, "--pyproject") == 2
    assert init(repo, "--pyproject", "--force") == 0
    text = pyproject.read_text()
    assert text.startswith('[project]\nname = "svc"\n\n# pyproject.toml [tool.release-safety]')
    assert text.count("[tool.release-safety]\n") == 1
    assert "[[tool.release-safety.migrations.sources]]" in text
    assert not (repo.path / ".release-safety.toml").exists()
    settings = load_settings(repo.path, None)
    assert settings.origin.endswith("pyproject.toml")
    assert settings.rest.specs == ("api/openapi.yaml",)


def test_the_placeholder_keeps_the_surface_unknown_until_the_reason_is_written(
    make_repo: MakeRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = service(make_repo)
    assert init(repo) == 0
    out = capsys.readouterr().out
    assert "unknown surface-absent-reason-hollow .release-safety.toml:" in out
    assert "way out: write the reason in .release-safety.toml [mcp] absent" in out
    written = tmp_path / "outside.toml"  # kept outside the repository, as --config takes it
    shutil.copy(repo.path / ".release-safety.toml", written)
    code, evidence = generate(repo, tmp_path, written)
    assert code == 0
    assert evidence["rollingUpdateSafe"] == "unknown"
    [held] = [f for f in evidence["findings"] if f["severity"] == "unknown"]
    assert held["rule"] == "surface-absent-reason-hollow"
    # A file outside the repository has no repository path: named by its label, at no line.
    assert (held["file"], held["line"]) == (None, None)
    label = "--config outside.toml (outside the repository)"
    assert held["hint"].startswith(f"write the reason in {label} [mcp] absent")
    filled = written.read_text().replace(
        "TODO: write why the service has no MCP server (operators read this reason)", MCP_REASON
    )
    written.write_text(filled)
    code, evidence = generate(repo, tmp_path, written)
    assert code == 0
    assert evidence["rollingUpdateSafe"] is True
    assert [f["rule"] for f in evidence["findings"] if f["severity"] != "advisory"] == []


def test_a_release_that_breaks_is_false_with_the_filled_settings(
    make_repo: MakeRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo("breaks")
    files = {"db/migrations/001_init.sql": INIT, "api/openapi.yaml": SPEC}
    repo.release("1.0.0", files, prefix="v")
    drop = "ALTER TABLE users DROP COLUMN name;\n"
    repo.release("1.1.0", {"db/migrations/002_drop.sql": drop}, prefix="v")
    assert init(repo) == 0
    out = capsys.readouterr().out
    assert "rollingUpdateSafe = false" in out
    assert "breaking drop-column db/migrations/002_drop.sql:1: " in out
    assert "way out: write the reason in .release-safety.toml [config] absent" in out
    text = settings_file(repo)
    for what, reason in {
        "MCP tools": MCP_REASON,
        "configuration": "configuration is compiled in; operators set nothing at all",
        "deployment descriptors": "operators deploy with their own manifests; none ship here",
    }.items():
        text = text.replace(
            f"TODO: write why the service has no {what} (operators read this reason)", reason
        )
    written = tmp_path / "filled.toml"
    written.write_text(text)
    code, evidence = generate(repo, tmp_path, written)
    assert code == 0
    assert evidence["rollingUpdateSafe"] is False
    breaking = [
        (f["rule"], f["file"], f["line"])
        for f in evidence["findings"]
        if f["severity"] == "breaking"
    ]
    assert ("drop-column", "db/migrations/002_drop.sql", 1) in breaking


def test_a_hollow_absent_reason_is_unknown_at_its_line_not_bad_settings(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("hollow")
    settings = '# the settings\n[mcp]\nabsent = "n/a"\n'
    repo.release("1.0.0", {".release-safety.toml": settings, "api/openapi.yaml": SPEC}, "v")
    repo.release("1.1.0", prefix="v")
    out = tmp_path / "a.json"
    args = ["generate", "--repo", str(repo.path), "--to", "v1.1.0", "--out", str(out)]
    assert run([*args, "--evidence", str(tmp_path / "ev.json")]) == 0
    found = json.loads((tmp_path / "ev.json").read_text())["findings"]
    [hollow] = [f for f in found if f["rule"] == "surface-absent-reason-hollow"]
    assert (hollow["file"], hollow["line"], hollow["severity"]) == (
        ".release-safety.toml",
        3,
        "unknown",
    )
    assert (
        "the reason of [mcp] absent is hollow (shorter than 24 characters): 'n/a'"
        in hollow["message"]
    )


def test_migrations_in_code_are_named_beside_the_absent_placeholder(make_repo: MakeRepo) -> None:
    repo = make_repo("goose")
    goose = (
        'package migrations\n\nimport "github.com/pressly/goose/v3"\n\n'
        "func init() { goose.AddMigration(up, nil) }\n"
    )
    files = {"app/migrations/20240101120000_backfill.go": goose, "app/main.go": "package main\n"}
    repo.release("1.0.0", files, prefix="v")
    assert init(repo) == 0
    text = settings_file(repo)
    assert (
        "# 1 migration(s) written in code (app/migrations/20240101120000_backfill.go): no source "
        "reads them, and a release that adds or edits one is `migration-not-read` (unknown) "
        "until reviewed; declaring the surface absent leaves them unjudged"
    ) in text
    assert 'absent = "TODO: write why the service has no database migrations' in text


def test_django_migrations_are_a_django_source(make_repo: MakeRepo) -> None:
    repo = make_repo("django")
    django = (
        "from django.db import migrations\n\n\nclass Migration(migrations.Migration):\n    pass\n"
    )
    files = {"app/docs/migrations/0001_initial.py": django, "app/docs/models.py": "x = 1\n"}
    repo.release("1.0.0", files, prefix="v")
    assert init(repo) == 0
    assert (
        "# 1 django migration(s) (0001_initial.py .. 0001_initial.py), run in the order of the "
        "apps' dependency graph against one database\n"
        'path = "app/docs/migrations"\nformat = "django"\n'
    ) in settings_file(repo)


def test_the_floor_is_the_oldest_release_every_entry_names_a_file_at(make_repo: MakeRepo) -> None:
    repo = make_repo("floor")
    repo.release("1.0.0", {"db/migrations/001_init.sql": INIT}, prefix="v")
    repo.release("1.1.0", {"api/openapi.yaml": SPEC}, prefix="v")
    repo.release("1.2.0", {"db/migrations/002_email.sql": ADD}, prefix="v")
    assert init(repo) == 0
    text = settings_file(repo)
    assert (
        "# v1.1.0: rest.specs 'api/openapi.yaml' names nothing at v1.0.0, so older releases "
        'need their own settings; backfill judges from here\nfloor_version = "1.1.0"\n'
    ) in text


def test_a_go_module_replaced_by_a_local_folder_is_vendored_code(make_repo: MakeRepo) -> None:
    repo = make_repo("vendored")
    gomod = "module example.com/svc\n\nreplace (\n\tgithub.com/ory/x => ./oryx\n)\n"
    files = {
        "go.mod": gomod,
        "persistence/migrations/001_init.sql": INIT,
        "oryx/networkx/migrations/001_networks.sql": "CREATE TABLE networks (id int);\n",
        "oryx/api/openapi.yaml": SPEC,
    }
    repo.release("1.0.0", files, prefix="v")
    assert init(repo) == 0
    text = settings_file(repo)
    assert "# oryx/: left out everywhere below, another project's code" in text
    assert 'path = "persistence/migrations"' in text and "oryx/networkx" not in text
    assert 'absent = "TODO: write why the service has no REST API' in text


def test_a_go_binary_runs_the_migrations_it_embeds(make_repo: MakeRepo) -> None:
    repo = make_repo("embeds")
    embed = 'package sql\n\nimport "embed"\n\n//go:embed migrations/sql/*.sql\nvar m embed.FS\n'
    files = {
        "persistence/sql/persister.go": embed,
        "persistence/sql/migrations/sql/001_init.sql": INIT,
        "persistence/sql/migrations/legacy/001_old.sql": "CREATE TABLE old (id int);\n",
    }
    repo.release("1.0.0", files, prefix="v")
    assert init(repo) == 0
    text = settings_file(repo)
    assert 'path = "persistence/sql/migrations/sql"' in text
    assert (
        "[migrations]\n# persistence/sql/migrations/legacy: left out, no `//go:embed` of the code "
        "names it (the binary runs the migrations it embeds)\n"
    ) in text
    assert [s.path for s in load_settings(repo.path, None).migrations.sources] == [
        "persistence/sql/migrations/sql"
    ]
