"""A knex migration that runs the service's own code (directus' `ItemsService`,
`SettingsService`): the SQL that code sends is not read, so the migration is not weighed as
if it sent none. The real CLI on real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

SETTINGS = (
    "[[migrations.sources]]\n"
    'path = "api/src/database/migrations"\n'
    "pattern = '\\d+[A-Z]-[^.]+\\.ts'\n"
    'format = "knex"\n'
    '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    '[rest]\nabsent = "the worker has no HTTP API at all, only a queue"\n'
    '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    '[deployment]\nabsent = "operators run the worker from their own manifests; none ship"\n'
)
FOLDER = "api/src/database/migrations"
INIT = (
    "import type { Knex } from 'knex';\n"
    "export async function up(knex: Knex): Promise<void> {\n"
    "\tawait knex.schema.createTable('directus_users', (table) => {\n"
    "\t\ttable.uuid('id').primary();\n"
    "\t\ttable.string('status');\n"
    "\t});\n"
    "}\n"
)
HEAD = (
    "import type { Knex } from 'knex';\n"
    "import { ItemsService } from '../../services/items.js';\n"
    "import { SettingsService } from '../../services/settings.js';\n"
    "import { getSchema } from '../../utils/get-schema.js';\n"
    "import * as utils from '../../utils/get-schema.js';\n"
    "import { useLogger } from '../../logger/index.js';\n"
    "export async function up(knex: Knex): Promise<void> {\n"
)
MIGRATIONS = {
    # knex handed to a constructor inside an object: the service runs SQL with it
    "knex-in-a-constructor": (
        "\tconst service = new ItemsService('directus_users', { knex, schema: {} });\n"
        "\tservice.updateByQuery({}, { status: 'active' });\n",
        8,
        "knex is passed to new ItemsService",
    ),
    # no knex handed over: the service's own connection
    "awaited-service-method": (
        "\tconst settings = new SettingsService({ schema: {} });\n"
        "\tawait settings.setOwner({ project_owner: 'a@b.c' });\n",
        9,
        "awaits settings.setOwner, code of '../../services/settings.js'",
    ),
    "awaited-namespace-member": (
        "\tconst schema = await utils.getSchema();\n",
        8,
        "awaits utils.getSchema, code of '../../utils/get-schema.js'",
    ),
    "awaited-helper": (
        "\tconst schema = await getSchema();\n",
        8,
        "awaits getSchema, code of '../../utils/get-schema.js'",
    ),
}


def _generate(repo: RepoBuilder, tmp_path: Path, to: str) -> dict:
    evidence = tmp_path / f"{to}.evidence.json"
    args = ["generate", "--repo", str(repo.path), "--to", to, "--out", str(tmp_path / "a.json")]
    assert run([*args, "--evidence", str(evidence)]) == 0
    return json.loads(evidence.read_text())


def _repo(make_repo: Callable[[str], RepoBuilder], name: str) -> RepoBuilder:
    repo = make_repo(name)
    files = {".release-safety.toml": SETTINGS, f"{FOLDER}/20240101A-init.ts": INIT}
    repo.release("1.0.0", files)
    return repo


SERVICES = {
    "api/src/services/items.ts": "export class ItemsService {\n\tasync updateByQuery() {}\n}\n",
    "api/src/services/settings.ts": "export class SettingsService {\n\tasync setOwner() {}\n}\n",
    "api/src/utils/get-schema.ts": "export async function getSchema() {\n\treturn {};\n}\n",
    "api/src/logger/index.ts": "export const useLogger = () => console;\n",
}
"""The service's code the migrations import, as TypeScript sources (imported as `.js`, as
TypeScript's ES modules write it) or as the JavaScript a build makes of them; read for their
constants: they export none."""
MODULES = {
    "ts": SERVICES,
    "js": {path.removesuffix(".ts") + ".js": text for path, text in SERVICES.items()},
    "missing": {},
}


@pytest.mark.parametrize("modules", sorted(MODULES))
@pytest.mark.parametrize("case", sorted(MIGRATIONS))
def test_a_migration_running_the_services_code_is_unknown(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, case: str, modules: str
) -> None:
    body, line, reason = MIGRATIONS[case]
    repo = _repo(make_repo, case)
    path = f"{FOLDER}/20240201A-{case}.ts"
    # the text differs per variant: a file's statements are remembered per blob in a process
    text = HEAD + body + f"}}\n// the service's modules: {modules}\n"
    repo.release("1.1.0", {path: text, **MODULES[modules]})
    evidence = _generate(repo, tmp_path, "1.1.0")
    assert evidence["rollingUpdateSafe"] == "unknown"
    [finding] = evidence["because"]
    assert (finding["rule"], finding["file"], finding["line"]) == (
        "migration-statement-unknown",
        path,
        line,
    )
    assert reason in finding["message"]


def test_the_services_code_not_awaited_and_given_no_knex_changes_nothing(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """A logger, or a service built and left unused, sends no SQL: the release stays `true`."""
    repo = _repo(make_repo, "logger")
    body = (
        "\tconst logger = useLogger();\n"
        "\tlogger.info('adding a note');\n"
        "\tawait knex.schema.alterTable('directus_users', (table) => {\n"
        "\t\ttable.string('note').nullable();\n"
        "\t});\n"
    )
    repo.release("1.1.0", {f"{FOLDER}/20240201A-note.ts": HEAD + body + "}\n", **SERVICES})
    evidence = _generate(repo, tmp_path, "1.1.0")
    assert evidence["rollingUpdateSafe"] is True
    assert [f["rule"] for f in evidence["findings"] if f["severity"] != "advisory"] == []


def test_a_constant_imported_as_js_is_read_from_its_typescript_source(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """TypeScript's ES modules import `../constants.js`, which the build makes of
    `constants.ts`: the table name is read from the source the repository holds."""
    repo = _repo(make_repo, "constants")
    migration = (
        "import type { Knex } from 'knex';\n"
        "import { USERS } from '../constants.js';\n"
        "export async function up(knex: Knex): Promise<void> {\n"
        "\tawait knex.schema.alterTable(USERS, (table) => {\n"
        "\t\ttable.dropColumn('status');\n"
        "\t});\n"
        "}\n"
    )
    path = f"{FOLDER}/20240201A-drop-status.ts"
    constants = {"api/src/database/constants.ts": "export const USERS = 'directus_users';\n"}
    repo.release("1.1.0", {path: migration, **constants})
    evidence = _generate(repo, tmp_path, "1.1.0")
    assert evidence["rollingUpdateSafe"] is False
    assert [(f["rule"], f["file"], f["line"]) for f in evidence["because"]] == [
        ("drop-column", path, 5)
    ]
    assert "directus_users.status" in evidence["because"][0]["message"]
