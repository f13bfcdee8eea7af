"""`init` fits the releases it will judge: one source per migrations root, the places a project
used at older releases kept beside HEAD's, releases on a maintenance branch read where they
are; the file it writes, committed at HEAD, judges each of them with exit 0."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

MakeRepo = Callable[[str], RepoBuilder]
REASONS = {
    "MCP server": "the service exposes no MCP server; agents use the REST API",
    "environment configuration": "all configuration comes from the database",
    "deployment descriptors": "operators run the binary from their own manifests",
    "REST API": "the service has no HTTP API; it is a queue worker",
    "database migrations": "the service keeps its state in files, not a database",
}


def _fill_reasons(repo: RepoBuilder) -> str:
    """The file init wrote, with each TODO replaced by a reason, committed at HEAD."""
    path = repo.path / ".release-safety.toml"
    text = path.read_text()
    for what, reason in REASONS.items():
        text = text.replace(
            f"TODO: write why the service has no {what} (operators read this reason)", reason
        )
    assert "TODO: " not in text, text
    repo.write(".release-safety.toml", text).commit("adopt release-safety")
    return text


def _generate_all(repo: RepoBuilder, tmp_path: Path, tags: list[str]) -> dict[str, object]:
    verdicts = {}
    for tag in tags:
        out = tmp_path / f"{tag}.json"
        code = run(["generate", "--repo", str(repo.path), "--to", tag, "--out", str(out)])
        assert code == 0, tag
        verdicts[tag] = json.loads(out.read_text())["compatibility"]["rollingUpdateSafe"]
    return verdicts


def test_one_source_per_migrations_root_for_folder_per_migration_tools(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("folders")
    up = "CREATE TABLE t{n} (id int);\n"
    files = {
        f"migrations/2024-0{n}-01-000000_t{n}/{name}": (
            up if name == "up.sql" else "DROP;\n"
        ).format(n=n)
        for n in range(1, 6)
        for name in ("up.sql", "down.sql")
    }
    files["prisma/migrations/20240101000000_init/migration.sql"] = "CREATE TABLE p (id int);\n"
    repo.release("1.0.0", files, prefix="v")
    repo.release("1.1.0", {"migrations/2024-09-01-000000_t9/up.sql": up.format(n=9)}, prefix="v")
    assert run(["init", "--repo", str(repo.path)]) == 0
    text = (repo.path / ".release-safety.toml").read_text()
    assert text.count("[[migrations.sources]]") == 2
    assert 'path = "migrations"\n' in text and 'path = "prisma/migrations"\n' in text
    assert (
        "# 6 diesel migration(s) (2024-01-01-000000_t1/up.sql .. 2024-09-01-000000_t9/up.sql), "
        "run in folder-name order (up.sql; down.sql never runs)"
    ) in text
    assert 'format = "diesel"' in text and 'format = "prisma"' in text
    _fill_reasons(repo)
    assert _generate_all(repo, tmp_path, ["v1.1.0"]) == {"v1.1.0": True}  # down.sql not run


def test_migrations_that_moved_folders_get_both_places(
    make_repo: MakeRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo("moved")
    repo.release("1.0.0", {"db/migrations/001_a.sql": "CREATE TABLE a (id int);\n"}, prefix="v")
    repo.release("1.1.0", {"db/migrations/002_b.sql": "CREATE TABLE b (id int);\n"}, prefix="v")
    repo.move("db/migrations/001_a.sql", "server/migrations/001_a.sql")
    repo.move("db/migrations/002_b.sql", "server/migrations/002_b.sql")
    repo.release("2.0.0", {"server/migrations/003_c.sql": "CREATE TABLE c (id int);\n"}, prefix="v")
    assert run(["init", "--repo", str(repo.path)]) == 0
    text = (repo.path / ".release-safety.toml").read_text()
    assert 'path = "db/migrations"\n' in text and 'path = "server/migrations"\n' in text
    assert "at v1.1.0 (not at HEAD)" in text
    assert 'floor_version = "1.0.0"' in text
    capsys.readouterr()
    _fill_reasons(repo)
    verdicts = _generate_all(repo, tmp_path, ["v1.0.0", "v1.1.0", "v2.0.0"])
    assert verdicts == {"v1.0.0": True, "v1.1.0": True, "v2.0.0": True}


def test_releases_on_a_maintenance_branch_are_read_where_they_are(
    make_repo: MakeRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default branch is the next major (migrations under `server/`); every release tag is
    on `release/1.x`, which keeps them under `db/`."""
    repo = make_repo("maint")
    repo.release("1.0.0", {"db/migrations/001_a.sql": "CREATE TABLE a (id int);\n"}, prefix="v")
    repo.git("checkout", "-q", "-b", "release/1.x")
    repo.release("1.0.1", {"db/migrations/002_b.sql": "CREATE TABLE b (id int);\n"}, prefix="v")
    repo.release("1.0.2", {"README.md": "fix\n"}, prefix="v")
    repo.git("checkout", "-q", "main")
    repo.move("db/migrations/001_a.sql", "server/migrations/001_a.sql")
    repo.write("server/migrations/002_c.sql", "CREATE TABLE c (id int);\n").commit("next major")
    assert run(["init", "--repo", str(repo.path)]) == 0
    err = capsys.readouterr().err
    assert "  v1.0.2: 1.0.2: " in err and "exit 2" not in err
    text = (repo.path / ".release-safety.toml").read_text()
    assert 'path = "db/migrations"\n' in text and 'path = "server/migrations"\n' in text
    assert 'floor_version = "1.0.0"' in text
    _fill_reasons(repo)
    verdicts = _generate_all(repo, tmp_path, ["v1.0.0", "v1.0.1", "v1.0.2"])
    assert verdicts["v1.0.1"] is True and verdicts["v1.0.2"] is True


def test_nothing_is_written_when_the_latest_release_would_exit_2(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two API documents at the latest release, neither named: discovery cannot choose
    (`discovery-ambiguous`, exit 2 in `generate`); init names them both, so it holds."""
    repo = make_repo("two")
    spec = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"
    repo.release("1.0.0", {"a/openapi.yaml": spec, "b/openapi.yaml": spec}, prefix="v")
    assert run(["init", "--repo", str(repo.path)]) == 0
    assert (
        'specs = ["a/openapi.yaml", "b/openapi.yaml"]'
        in (repo.path / ".release-safety.toml").read_text()
    )


def test_non_service_code_is_left_out_with_why_and_a_documented_compose_file_is_kept(
    make_repo: MakeRepo,
) -> None:
    repo = make_repo("own")
    reads = "const port = process.env.PORT;\n"
    compose = "services:\n  app:\n    image: example/app:1.0\n"
    files = {
        "server/index.ts": reads,
        "server/seed.ts": "const url = process.env.DATABASE_URL;\n",
        "acceptance/runner.ts": "const env = { ...process.env };\n",
        "cypress/docker-compose.yml": compose,
        "compose.example.yml": compose,
        "docker-compose.dev.yml": compose,
        "README.md": "Download `compose.example.yml`, rename it, and run `docker compose up`.\n",
    }
    repo.release("1.0.0", files, prefix="v")
    assert run(["init", "--repo", str(repo.path)]) == 0
    text = (repo.path / ".release-safety.toml").read_text()
    assert '{ path = "server/**/*.ts", exclude = ["server/seed.ts"] }' in text
    assert "# left out, server/seed.ts: seed data for development" in text
    assert (
        "# left out, acceptance/runner.ts: an end-to-end or acceptance test suite, not the "
        "service" in text
    )
    assert "cypress/docker-compose.yml" not in text  # skipped like a test folder
    assert "# compose.example.yml: named in the project's docs for operators" in text
    assert '"compose.example.yml"]' in text
    assert "# excluded, docker-compose.dev.yml:" in text  # not named in the docs
    _fill_reasons(repo)
    out = repo.path.parent / "a.json"
    code = run(["generate", "--repo", str(repo.path), "--to", "v1.0.0", "--out", str(out)])
    assert code == 0


def test_a_next_js_server_config_is_the_services_configuration(make_repo: MakeRepo) -> None:
    repo = make_repo("next")
    files = {
        "src/lib/db.ts": "const url = process.env.DATABASE_URL;\n",
        "next.config.js": "const corsMaxAge = process.env.CORS_MAX_AGE;\n",
        "jest.config.js": "const ci = process.env.CI;\n",
        "build.js": "const out = process.env.OUT_DIR;\n",
    }
    repo.release("1.0.0", files, prefix="v")
    assert run(["init", "--repo", str(repo.path)]) == 0
    text = (repo.path / ".release-safety.toml").read_text()
    assert '"next.config.js"' in text and '"src/**/*.ts"' in text
    assert "jest.config.js" not in text and '"build.js"' not in text


def test_a_seed_script_under_a_source_glob_is_left_out_of_it(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    """umami v3.0.2: `scripts/seed/index.ts` requires DATABASE_URL; init said it left it out
    and then wrote `**/*.ts` (code in several folders), which read it. The glob excludes the
    folders of what init does not take (a seed folder, a top tools folder): a release that
    changes only the seed script is safe; a change in the service's code is not."""
    repo = make_repo("seeded")
    files = {
        "src/index.ts": "const port = process.env.PORT || '3000';\n",
        "lib/db.ts": "export const pool = Number(process.env.POOL) || 5;\n",
        "tools/build.ts": "const out = process.env.OUT_DIR;\n",
        "src/api/scripts/route.ts": "export const off = process.env.NO_TELEMETRY || '';\n",
        "scripts/seed/index.ts": "const url = process.env.DATABASE_URL || 'postgres://';\n",
    }
    repo.release("1.0.0", files, prefix="v")
    required = "const url = process.env.DATABASE_URL;\nif (!url) throw new Error('no url');\n"
    repo.release("1.1.0", {"scripts/seed/index.ts": required}, prefix="v")
    repo.release("1.2.0", {"src/index.ts": "const port = process.env.PORT!;\n"}, prefix="v")
    assert run(["init", "--repo", str(repo.path)]) == 0
    text = (repo.path / ".release-safety.toml").read_text()
    assert "# left out, scripts/seed/index.ts: seed data for development" in text
    # a seed folder and a top tooling folder; a route in a `scripts` folder of the code is read
    assert '{ path = "**/*.ts", exclude = ["scripts/seed/**", "tools/**"] }' in text
    _fill_reasons(repo)
    assert _generate_all(repo, tmp_path, ["v1.1.0", "v1.2.0"]) == {
        "v1.1.0": True,
        "v1.2.0": False,
    }


def test_config_code_in_a_language_head_no_longer_has_is_a_source(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    """The service was JavaScript until 2.0.0 and is TypeScript since: init reads the kinds of
    the releases it judges, not HEAD's only, so the JavaScript releases are judged on their
    own configuration (1.1.0 drops a variable: unsafe) and the rewrite that keeps every
    variable is safe."""
    repo = make_repo("rewritten")
    js = "const port = process.env.PORT || 3000;\nconst t = process.env.TIMEOUT || 5;\n"
    repo.release("1.0.0", {"server/index.js": js}, prefix="v")
    repo.release(
        "1.1.0", {"server/index.js": "const port = process.env.PORT || 3000;\n"}, prefix="v"
    )
    repo.delete("server/index.js")
    ts = "export const port = process.env.PORT || 3000;\n"
    repo.release("2.0.0", {"server/index.ts": ts}, prefix="v")
    assert run(["init", "--repo", str(repo.path)]) == 0
    text = (repo.path / ".release-safety.toml").read_text()
    assert (
        "# server/**/*.js: js code that reads the environment or a config loader: "
        "server/index.js, at v1.1.0 and maybe before (not at HEAD)"
    ) in text
    assert '"server/**/*.js",' in text and '"server/**/*.ts",' in text
    _fill_reasons(repo)
    assert _generate_all(repo, tmp_path, ["v1.1.0", "v2.0.0"]) == {
        "v1.1.0": False,
        "v2.0.0": True,
    }
