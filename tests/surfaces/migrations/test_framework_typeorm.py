"""TypeORM migrations read as TypeORM runs them: the SQL `up` sends through
`queryRunner.query` (checked against fixtures/frameworks/typeorm, captured from TypeORM
itself), in a transaction unless `transaction = false`; the real CLI on real git
repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from codereleases import ABSENT, captured, judged

from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.typeorm import extract_typeorm

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/typeorm/migrations"


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.js")))
def test_the_sql_is_the_sql_typeorm_sends(name: str) -> None:
    text = (FIXTURES / f"{name}.sql").read_text()
    expected = captured(FIXTURES / f"{name}.sql")
    extracted = extract_typeorm((FIXTURES / f"{name}.js").read_text(), f"migrations/{name}.js")
    assert [s.sql or f"unknown: {s.reason}" for s in extracted.statements] == expected
    assert extracted.transactional is not text.startswith("-- no transaction")


def _migration(body: str, head: str = "") -> str:
    return (
        'import { MigrationInterface, QueryRunner, Table } from "typeorm";\n\n'
        "export class Change1700000000009 implements MigrationInterface {\n"
        f"{head}"
        "    public async up(queryRunner: QueryRunner): Promise<void> {\n"
        f"{body}"
        "    }\n\n"
        "    public async down(queryRunner: QueryRunner): Promise<void> {\n"
        '        await queryRunner.query(`DROP TABLE "user"`);\n'
        "    }\n"
        "}\n"
    )


SETTINGS = ABSENT
INIT = _migration(
    '        await queryRunner.query(`CREATE TABLE "user" ("id" SERIAL NOT NULL, '
    '"name" character varying, "email" character varying)`);\n'
)
ADDED = "src/migrations/1700000000009-Change.ts"
CASES = {
    # found by the default discovery; a dropped column is breaking, at its line
    "drop": ('        await queryRunner.query(`ALTER TABLE "user" DROP COLUMN "name"`);\n', False),
    "add": ('        await queryRunner.query(`ALTER TABLE "user" ADD "age" integer`);\n', True),
    # a Table builder, and a query computed at run time: unknown, naming them
    "builder": (
        "        await queryRunner.addColumn('user', new TableColumn({ name: 'x' }));\n",
        "unknown",
    ),
    "computed": (
        '        await queryRunner.query(`ALTER TABLE "${table}" DROP COLUMN "x"`);\n',
        "unknown",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_typeorm_migration_is_judged_by_its_queries(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, case: str
) -> None:
    body, safe = CASES[case]
    first = {".release-safety.toml": SETTINGS, "src/migrations/1700000000000-Init.ts": INIT}
    found = judged(make_repo, tmp_path, case, first, {ADDED: _migration(body)})
    assert found["rollingUpdateSafe"] == safe, found["because"]
    if safe is not True:
        [finding] = found["because"]
        assert (finding["file"], finding["line"]) == (ADDED, 5)
    if case == "builder":
        assert "queryRunner.addColumn('user'" in found["because"][0]["message"]
