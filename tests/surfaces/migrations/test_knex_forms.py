# ruff: noqa: E501 - migration sources and expected SQL are data
"""How a knex migration is read: which function is `up`, the transaction flag, constants and
templates, conditions and loops, dynamic SQL, lines, and files that cannot be read."""

from __future__ import annotations

import pytest
import sqlglot

from release_safety.surfaces.migrations.frameworks.knex import extract_knex
from release_safety.surfaces.migrations.sql.statements import Statement

ADD_ICON = 'alter table "projects" add column "icon" text'


def sqls(text: str, path: str = "20240101000000_x.ts") -> list[str | None]:
    return [s.sql for s in extract_knex(text, path).statements]


UP_FORMS = {
    "export_async_function": (
        "import { Knex } from 'knex';\n"
        "export async function up(knex: Knex): Promise<void> {\n"
        "    await knex.schema.alterTable('projects', (t) => { t.text('icon'); });\n"
        "}\n"
        "export async function down(knex: Knex): Promise<void> {\n"
        "    await knex.schema.dropTable('projects');\n"
        "}\n",
        "20240101000000_a.ts",
    ),
    "export_const_arrow_block": (
        "export const up = async (db: Knex) => {\n"
        "    await db.schema.alterTable('projects', (t) => t.text('icon'));\n"
        "};\n",
        "20240101000000_b.ts",
    ),
    "export_const_arrow_expression": (
        "export const up = (knex: Knex) =>\n"
        "    knex.schema.alterTable('projects', (t) => { t.text('icon'); });\n",
        "20240101000000_c.ts",
    ),
    "exports_up_function": (
        "exports.up = function (knex) {\n"
        "  return knex.schema.table('projects', function (t) { t.text('icon'); });\n"
        "};\n"
        "exports.down = function (knex) { return knex.schema.dropTable('projects'); };\n",
        "20240101000000_d.js",
    ),
    "module_exports_up_property": (
        "module.exports.up = async (knex) => {\n"
        "  await knex.schema.table('projects', (t) => { t.text('icon'); });\n"
        "};\n",
        "20240101000000_e.js",
    ),
    "module_exports_shorthand": (
        "async function up(knex) {\n"
        "  await knex.schema.table('projects', (t) => { t.text('icon'); });\n"
        "}\n"
        "async function down(knex) { await knex.schema.dropTable('projects'); }\n"
        "module.exports = { up, down };\n",
        "20240101000000_f.js",
    ),
    "module_exports_method": (
        "module.exports = {\n"
        "  async up(knex) { await knex.schema.table('projects', (t) => { t.text('icon'); }); },\n"
        "  async down(knex) { await knex.schema.dropTable('projects'); },\n"
        "};\n",
        "20240101000000_g.js",
    ),
    "export_clause": (
        "async function up(knex: Knex) {\n"
        "    await knex.schema.alterTable('projects', (t) => { t.text('icon'); });\n"
        "}\n"
        "async function down(knex: Knex) {}\n"
        "export { up, down };\n",
        "20240101000000_h.ts",
    ),
    "this_in_table_callback": (
        "exports.up = function (knex) {\n"
        "  return knex.schema.table('projects', function () { this.text('icon'); });\n"
        "};\n",
        "20240101000000_i.js",
    ),
}


@pytest.mark.parametrize("form", sorted(UP_FORMS))
def test_up_is_found_in_every_export_form_and_down_is_not_run(form: str) -> None:
    text, path = UP_FORMS[form]
    result = extract_knex(text, path)
    assert [s.sql for s in result.statements] == [ADD_ICON]
    assert result.transactional is True


CONFIG_FORMS = {
    "export_const": ("export const config = { transaction: false };\n", False),
    "exports_config": ("exports.config = { transaction: false };\n", False),
    "transaction_true": ("export const config = { transaction: true };\n", True),
    "no_config": ("", True),
}


@pytest.mark.parametrize("form", sorted(CONFIG_FORMS))
def test_transaction_flag(form: str) -> None:
    config, transactional = CONFIG_FORMS[form]
    text = (
        config + "export async function up(knex) {\n"
        "  await knex.raw('CREATE INDEX CONCURRENTLY projects_icon_idx ON projects (icon)');\n"
        "}\n"
    )
    result = extract_knex(text, "20240101000000_x.ts")
    assert result.transactional is transactional
    assert [s.sql for s in result.statements] == [
        "CREATE INDEX CONCURRENTLY projects_icon_idx ON projects (icon)"
    ]


def test_config_inside_module_exports_object() -> None:
    text = (
        "module.exports = {\n"
        "  config: { transaction: false },\n"
        "  up: (knex) => knex.raw('DROP INDEX CONCURRENTLY IF EXISTS old_idx'),\n"
        "};\n"
    )
    result = extract_knex(text, "20240101000000_x.js")
    assert result.transactional is False
    assert [s.sql for s in result.statements] == ["DROP INDEX CONCURRENTLY IF EXISTS old_idx"]


def test_explicit_transaction_in_a_migration_without_one_is_begin_commit() -> None:
    text = (
        "export const config = { transaction: false };\n"
        "export async function up(knex: Knex) {\n"
        "    await knex.transaction(async (trx) => {\n"
        "        await trx('spaces').update({ is_private: true });\n"
        "    });\n"
        "    await knex.raw('CREATE INDEX CONCURRENTLY s_idx ON spaces (is_private)');\n"
        "}\n"
    )
    result = extract_knex(text, "20240101000000_x.ts")
    assert [(s.line, s.sql) for s in result.statements] == [
        (3, "BEGIN"),
        (4, 'update "spaces" set "is_private" = $1'),
        (3, "COMMIT"),
        (6, "CREATE INDEX CONCURRENTLY s_idx ON spaces (is_private)"),
    ]


def test_transaction_inside_the_migration_transaction_adds_nothing() -> None:
    text = (
        "export async function up(knex: Knex) {\n"
        "    await knex.transaction(async (trx) => {\n"
        "        await trx('spaces').del();\n"
        "    });\n"
        "}\n"
    )
    assert sqls(text) == ['delete from "spaces"']


# -- constants, templates, concatenation ------------------------------------------------------


def test_templates_resolve_through_module_constants_and_helpers() -> None:
    text = (
        "import { Knex } from 'knex';\n"
        "const SCHEMA = 'public';\n"
        "const TABLE = `${SCHEMA}.saved_queries`;\n"
        "const COLUMNS = ['a', 'b'] as const;\n"
        "enum Kind { Chart = 'chart', Table = 'table' }\n"
        "const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');\n"
        "export async function up(knex: Knex): Promise<void> {\n"
        "    await knex.raw(`CREATE INDEX idx ON ${TABLE} (${COLUMNS.join(', ')})`);\n"
        "    await knex.raw('UPDATE ' + TABLE + ' SET kind = ' + `'${Kind.Chart}'`);\n"
        "    await knex.raw(`ALTER TABLE ${TABLE} ADD CONSTRAINT k CHECK (kind IN (${quoted(Object.values(Kind))}))`);\n"
        "    await knex.raw(`SELECT ${COLUMNS.length + 1}`.toUpperCase());\n"
        "}\n"
    )
    assert sqls(text) == [
        "CREATE INDEX idx ON public.saved_queries (a, b)",
        "UPDATE public.saved_queries SET kind = 'chart'",
        "ALTER TABLE public.saved_queries ADD CONSTRAINT k CHECK (kind IN ('chart', 'table'))",
        "SELECT 3",
    ]


def test_local_constants_and_string_building_in_up() -> None:
    text = (
        "export async function up(knex) {\n"
        "    const table = 'dashboards';\n"
        "    let sql = `ALTER TABLE ${table}`;\n"
        "    sql += ' ADD COLUMN slug text';\n"
        '    await knex.raw(sql + ";");\n'
        "}\n"
    )
    assert sqls(text) == ["ALTER TABLE dashboards ADD COLUMN slug text"]


def test_escapes_in_literals_are_decoded() -> None:
    text = (
        "export async function up(knex) {\n"
        "    await knex.raw('SELECT \\'it\\'\\'s\\' AS \\u0061');\n"
        "    await knex.raw(\"SELECT E'a\\\\nb'\");\n"
        "}\n"
    )
    assert sqls(text) == ["SELECT 'it''s' AS a", "SELECT E'a\\nb'"]


# -- dynamic SQL -------------------------------------------------------------------------------


def test_imported_names_make_dynamic_statements_with_the_reason() -> None:
    text = (
        "import { Knex } from 'knex';\n"
        "import { DashboardsTableName } from '../entities/dashboards';\n"
        "export async function up(knex: Knex): Promise<void> {\n"
        "    await knex.schema.alterTable(DashboardsTableName, (t) => { t.text('slug'); });\n"
        "    await knex.raw(`UPDATE ${DashboardsTableName} SET slug = ''`);\n"
        "    await knex(DashboardsTableName).update({ slug: 'x' });\n"
        "}\n"
    )
    statements = extract_knex(text, "20240101000000_x.ts").statements
    assert [(s.sql, s.line) for s in statements] == [(None, 4), (None, 5), (None, 6)]
    for statement in statements:
        assert statement.reason is not None
        assert "'DashboardsTableName' is imported from '../entities/dashboards'" in statement.reason


def test_required_names_make_dynamic_statements() -> None:
    text = (
        "const { TABLES } = require('../constants');\n"
        "exports.up = async (knex) => {\n"
        "  await knex.schema.dropTable(TABLES.old);\n"
        "};\n"
    )
    [statement] = extract_knex(text, "20240101000000_x.js").statements
    assert (statement.sql, statement.line) == (None, 3)
    assert "imported from '../constants'" in (statement.reason or "")


def test_sql_built_from_query_results_is_dynamic() -> None:
    text = (
        "export async function up(knex: Knex) {\n"
        "    const rows = await knex('projects').select('project_uuid');\n"
        "    const ids = rows.map((r) => `'${r.project_uuid}'`).join(',');\n"
        "    await knex.raw(`DELETE FROM spaces WHERE project_uuid NOT IN (${ids})`);\n"
        "}\n"
    )
    [statement] = extract_knex(text, "20240101000000_x.ts").statements
    assert statement.sql is None and statement.line == 4
    assert statement.reason is not None and statement.reason.startswith("dynamic SQL")


def test_knex_handed_to_an_imported_helper_is_dynamic() -> None:
    text = (
        "import { migrateCharts } from '../utils/charts';\n"
        "export async function up(knex: Knex) {\n"
        "    await migrateCharts(knex, 'saved_queries');\n"
        "}\n"
    )
    assert extract_knex(text, "20240101000000_x.ts").statements == [
        Statement(
            None,
            3,
            "dynamic SQL: knex is passed to migrateCharts, which is not defined in this file",
        )
    ]


def test_local_helpers_are_followed_with_their_arguments() -> None:
    text = (
        "const addFlag = async (knex: Knex, table: string, column = 'is_deleted') => {\n"
        "    await knex.schema.alterTable(table, (t) => {\n"
        "        t.boolean(column).notNullable().defaultTo(false);\n"
        "    });\n"
        "};\n"
        "export async function up(knex: Knex) {\n"
        "    await addFlag(knex, 'spaces');\n"
        "    await addFlag(knex, 'dashboards', 'is_hidden');\n"
        "}\n"
    )
    assert sqls(text) == [
        'alter table "spaces" add column "is_deleted" boolean not null default \'0\'',
        'alter table "dashboards" add column "is_hidden" boolean not null default \'0\'',
    ]


def test_data_dependent_loop_keeps_the_statement_shape() -> None:
    text = (
        "export async function up(knex: Knex) {\n"
        "    const charts = await knex('saved_queries').select('id', 'config');\n"
        "    for (const chart of charts) {\n"
        "        await knex('saved_queries')\n"
        "            .update({ config: JSON.stringify(chart.config) })\n"
        "            .where('id', chart.id);\n"
        "    }\n"
        "    await Promise.all(charts.map((c) => knex('chart_views').where('chart_id', c.id).del()));\n"
        "}\n"
    )
    statements = extract_knex(text, "20240101000000_x.ts").statements
    assert [(s.line, s.sql) for s in statements] == [
        (5, 'update "saved_queries" set "config" = $1 where "id" = $2'),
        (8, 'delete from "chart_views" where "chart_id" = $1'),
    ]
    assert statements[0].reason == "inside a loop over charts; runs once per item"
    assert (
        statements[1].reason == "inside a callback given to .map(); runs as often as it is called"
    )


def test_loop_over_a_constant_list_is_unrolled() -> None:
    text = (
        "const TABLES = ['spaces', 'dashboards'];\n"
        "export async function up(knex: Knex) {\n"
        "    for (const table of TABLES) {\n"
        "        await knex(table).whereNull('project_id').del();\n"
        "    }\n"
        "    TABLES.forEach((table, index) => knex.raw(`ANALYZE ${table} -- ${index}`));\n"
        "}\n"
    )
    statements = extract_knex(text, "20240101000000_x.ts").statements
    assert [(s.sql, s.reason) for s in statements] == [
        ('delete from "spaces" where "project_id" is null', None),
        ('delete from "dashboards" where "project_id" is null', None),
        ("ANALYZE spaces -- 0", None),
        ("ANALYZE dashboards -- 1", None),
    ]


# -- conditions ---------------------------------------------------------------------------------


def test_guards_and_conditions_run_both_ways_with_a_note() -> None:
    text = (
        "export async function up(knex: Knex) {\n"
        "    if (await knex.schema.hasColumn('projects', 'icon')) {\n"
        "        return;\n"
        "    }\n"
        "    if (process.env.FAST) {\n"
        "        await knex.raw('SELECT 1');\n"
        "    } else {\n"
        "        await knex.raw('SELECT 2');\n"
        "    }\n"
        "    if (false) {\n"
        "        await knex.raw('SELECT 3');\n"
        "    }\n"
        "    await knex.schema.alterTable('projects', (t) => { t.text('icon'); });\n"
        "}\n"
    )
    statements = extract_knex(text, "20240101000000_x.ts").statements
    assert [(s.line, s.sql, s.reason) for s in statements] == [
        (6, "SELECT 1", "runs only if (process.env.FAST)"),
        (8, "SELECT 2", "runs only if not (process.env.FAST)"),
        (13, ADD_ICON, None),
    ]


def test_has_table_guard_is_noted_and_assumed_to_run() -> None:
    text = (
        "export async function up(knex: Knex) {\n"
        "    const exists = await knex.schema.withSchema('ee').hasTable('embed');\n"
        "    if (!exists) {\n"
        "        await knex.schema.withSchema('ee').createTable('embed', (t) => {\n"
        "            t.uuid('project_uuid').primary();\n"
        "        });\n"
        "    }\n"
        "}\n"
    )
    assert extract_knex(text, "20240101000000_x.ts").statements == [
        Statement(
            'create table "ee"."embed" ("project_uuid" uuid, constraint "embed_pkey" primary key ("project_uuid"))',
            4,
            "guarded by knex.schema.hasTable('embed'); assumed to run",
        )
    ]


# -- lines ------------------------------------------------------------------------------------


def test_raw_text_with_several_statements_is_split_with_lines() -> None:
    text = (
        "const DROP = `DROP VIEW a;\nDROP VIEW b;`;\n"
        "export async function up(knex: Knex) {\n"
        "    await knex.raw(\n"
        "        `\n"
        "        ALTER TABLE a ADD COLUMN x int;\n"
        "        -- backfill; with a semicolon in a comment\n"
        "        UPDATE a SET x = 1 WHERE note = 'a;b';\n"
        "        `,\n"
        "    );\n"
        "    await knex.raw(DROP);\n"
        "}\n"
    )
    statements = extract_knex(text, "20240101000000_x.ts").statements
    assert [(s.line, s.sql) for s in statements] == [
        (6, "ALTER TABLE a ADD COLUMN x int"),
        (8, "UPDATE a SET x = 1 WHERE note = 'a;b'"),
        (11, "DROP VIEW a"),
        (11, "DROP VIEW b"),
    ]
    parsed = [sqlglot.parse_one(s.sql or "", read="postgres") for s in statements]
    assert [type(p).__name__ for p in parsed] == ["Alter", "Update", "Drop", "Drop"]


def test_lines_follow_each_call_in_the_table_callback() -> None:
    text = (
        "export async function up(knex: Knex) {\n"
        "    await knex.schema.alterTable('jobs', (t) => {\n"
        "        t.dropColumn('old');\n"
        "        t\n"
        "            .uuid('project_uuid')\n"
        "            .references('project_uuid')\n"
        "            .inTable('projects');\n"
        "        t.text('note').nullable().alter();\n"
        "        t.index(['project_uuid']);\n"
        "    });\n"
        "}\n"
    )
    statements = extract_knex(text, "20240101000000_x.ts").statements
    assert [(s.line, s.sql) for s in statements] == [
        (5, 'alter table "jobs" add column "project_uuid" uuid'),
        (8, 'alter table "jobs" alter column "note" drop default'),
        (8, 'alter table "jobs" alter column "note" drop not null'),
        (8, 'alter table "jobs" alter column "note" type text using ("note"::text)'),
        (3, 'alter table "jobs" drop column "old"'),
        (
            6,
            'alter table "jobs" add constraint "jobs_project_uuid_foreign" foreign key '
            '("project_uuid") references "projects" ("project_uuid")',
        ),
        (9, 'create index "jobs_project_uuid_index" on "jobs" ("project_uuid")'),
    ]


# -- what cannot be read ------------------------------------------------------------------------


def test_unparseable_file_is_one_unknown_statement() -> None:
    text = "export async function up(knex: Knex) {\n    await knex.raw('x'\n"
    result = extract_knex(text, "20240101000000_x.ts")
    assert len(result.statements) == 1
    statement = result.statements[0]
    assert statement.sql is None and statement.line == 1
    assert statement.reason is not None and "does not parse" in statement.reason


def test_file_without_up_is_one_unknown_statement() -> None:
    result = extract_knex("export const down = async () => {};\n", "20240101000000_x.ts")
    assert result.statements == [Statement(None, 1, "no up function found")]


def test_typescript_only_syntax_in_a_js_file_does_not_parse() -> None:
    text = "exports.up = async (knex: Knex): Promise<void> => {};\n"
    [statement] = extract_knex(text, "20240101000000_x.js").statements
    assert statement.sql is None and "does not parse" in (statement.reason or "")


def test_unknown_builder_methods_are_dynamic_not_dropped() -> None:
    text = (
        "export async function up(knex: Knex) {\n"
        "    await knex.schema.alterTable('t', (t) => { t.text('a'); t.jsonPath('b'); });\n"
        "    await knex.schema.createView('v', (view) => { view.as(knex('t')); });\n"
        "    await knex('t').join('u', 'u.id', 't.u_id').update({ a: 1 });\n"
        "}\n"
    )
    statements = extract_knex(text, "20240101000000_x.ts").statements
    assert [(s.line, s.sql is None) for s in statements] == [
        (2, False),
        (2, True),
        (3, True),
        (4, True),
    ]
    assert statements[1].reason == "dynamic SQL: table.jsonPath() is not translated"
    assert statements[2].reason == "knex.schema.createView() is not translated"
    assert statements[3].reason == "dynamic data change: query methods join are not translated"


def test_runaway_evaluation_is_one_unknown_statement() -> None:
    text = (
        "function spin(n: number): number { return spin(n + 1); }\n"
        "export async function up(knex: Knex) {\n"
        "    await knex.raw(`SELECT ${spin(0)}`);\n"
        "}\n"
    )
    [statement] = extract_knex(text, "20240101000000_x.ts").statements
    assert statement.sql is None and statement.line == 1
    assert "too much evaluation" in (statement.reason or "")


def test_deep_nesting_is_one_unknown_statement() -> None:
    text = (
        "export async function up(knex) {\n  await knex.raw("
        + "(" * 5000
        + "'x'"
        + ")" * 5000
        + ");\n}\n"
    )
    [statement] = extract_knex(text, "20240101000000_x.js").statements
    assert statement.sql is None and statement.line == 1


# -- constants imported from other files of the repository --------------------------------------

ENTITIES = {
    "packages/backend/src/database/entities/dashboards.ts": (
        "import { Knex } from 'knex';\n"
        "import { SCHEMA } from './schema';\n"
        "export const DashboardsTableName = 'dashboards';\n"
        "export const DashboardTabsTableName = `${SCHEMA}.dashboard_tabs`;\n"
        "export const COLUMNS = ['name', 'slug'];\n"
        "export const slugify = (s: string) => s.toLowerCase();\n"
        "export type DbDashboard = { dashboard_id: number };\n"
    ),
    "packages/backend/src/database/entities/schema.ts": "export const SCHEMA = 'public';\n",
    "packages/backend/src/database/entities/loop.ts": (
        "import { B } from './loop';\nexport const A = 'a';\nexport const B2 = B;\n"
    ),
    "packages/backend/src/constants/index.js": "module.exports = { TABLE: 'spaces' };\n",
}
MIGRATION = "packages/backend/src/database/migrations/20240101000000_x.ts"


def read_module(path: str) -> str | None:
    return ENTITIES.get(path)


def test_imported_constants_resolve_through_read_module() -> None:
    text = (
        "import { Knex } from 'knex';\n"
        "import { DashboardsTableName, DashboardTabsTableName as Tabs, COLUMNS } from '../entities/dashboards';\n"
        "import * as entities from '../entities/dashboards';\n"
        "export async function up(knex: Knex): Promise<void> {\n"
        "    await knex.schema.alterTable(DashboardsTableName, (t) => { t.index(COLUMNS); });\n"
        "    await knex(Tabs).del();\n"
        "    await knex.raw(`ANALYZE ${entities.DashboardsTableName}`);\n"
        "}\n"
    )
    result = extract_knex(text, MIGRATION, read_module=read_module)
    assert [s.sql for s in result.statements] == [
        'create index "dashboards_name_slug_index" on "dashboards" ("name", "slug")',
        'delete from "public"."dashboard_tabs"',
        "ANALYZE dashboards",
    ]


def test_imported_functions_and_missing_files_stay_unknown() -> None:
    text = (
        "import { slugify } from '../entities/dashboards';\n"
        "import { ProjectsTableName } from '../entities/projects';\n"
        "import { A, B2 } from '../entities/loop';\n"
        "export async function up(knex: Knex) {\n"
        "    await knex.raw(`UPDATE x SET s = '${slugify('A')}'`);\n"
        "    await knex(ProjectsTableName).del();\n"
        "    await knex.raw(`SELECT '${A}', '${B2}'`);\n"
        "}\n"
    )
    statements = extract_knex(text, MIGRATION, read_module=read_module).statements
    assert [s.sql for s in statements] == [None, None, None]
    assert "'ProjectsTableName' is imported from '../entities/projects'" in (
        statements[1].reason or ""
    )


def test_required_constants_resolve_through_read_module() -> None:
    text = (
        "const { TABLE } = require('../../constants');\n"
        "exports.up = (knex) => knex(TABLE).where('id', 1).del();\n"
    )
    path = "packages/backend/src/database/migrations/20240101000000_x.js"
    assert [s.sql for s in extract_knex(text, path, read_module=read_module).statements] == [
        'delete from "spaces" where "id" = $1'
    ]
