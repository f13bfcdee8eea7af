# ruff: noqa: E501 - expected SQL and migration bodies are data; knex emits them on one line
"""knex migration extraction: the SQL knex 3's PostgreSQL dialect sends for a migration's `up`.

The expected SQL of the fixtures under `fixtures/knex/` was produced by running each migration's
`up` with knex 3.3.0 (`client: 'pg'`) against a recording connection, so the strings are knex's
own; the differences from that recording are deliberate: reads (`select`) are not statements,
guarded and conditional bodies are assumed to run, a raw text with several statements is split.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot

from release_safety.surfaces.migrations.frameworks.knex import extract_knex

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "knex"

EXPECTED: dict[str, tuple[bool, list[tuple[int, str | None]]]] = {
    "20240101120000_create_scheduler_log.ts": (
        True,
        [
            (
                7,
                'create table "scheduler_log" ("job_id" varchar(255) not null, "scheduler_uuid" uuid, "created_at" timestamp not null default CURRENT_TIMESTAMP, "status" varchar(255) not null, "details" jsonb null)',
            ),
            (
                11,
                'alter table "scheduler_log" add constraint "scheduler_log_scheduler_uuid_foreign" foreign key ("scheduler_uuid") references "scheduler" ("scheduler_uuid") on delete CASCADE',
            ),
            (20, 'create index "scheduler_log_job_id_index" on "scheduler_log" ("job_id")'),
        ],
    ),
    "20240102120000_chart_views.ts": (
        True,
        [
            (
                7,
                'alter table "saved_queries" add constraint "saved_queries_saved_query_uuid_unique" unique ("saved_query_uuid")',
            ),
            (
                9,
                'create table "analytics_chart_views" ("user_uuid" uuid null, "context" jsonb, "timestamp" timestamp not null default CURRENT_TIMESTAMP)',
            ),
            (
                13,
                'alter table "analytics_chart_views" add constraint "analytics_chart_views_user_uuid_foreign" foreign key ("user_uuid") references "users" ("user_uuid") on delete SET NULL',
            ),
        ],
    ),
    "20240103120000_validation_reset.ts": (
        True,
        [
            (6, 'delete from "validations" where "error_type" is null'),
            (9, 'alter table "validations" alter column "error_type" drop default'),
            (9, 'alter table "validations" alter column "error_type" drop not null'),
            (
                9,
                'alter table "validations" alter column "error_type" type varchar(255) using ("error_type"::varchar(255))',
            ),
            (9, 'alter table "validations" alter column "error_type" set not null'),
            (10, 'alter table "validations" drop column "dimension_name"'),
        ],
    ),
    "20240104120000_tile_size.ts": (
        True,
        [
            (6, 'update "dashboard_tiles" set "x_offset" = "x_offset" * 3, "width" = "width" * 3'),
        ],
    ),
    "20240105120000_email_domain_projects.ts": (
        True,
        [
            (
                7,
                'create table "organization_allowed_email_domain_projects" ("uuid" uuid not null default uuid_generate_v4(), "allowed_email_domains_uuid" uuid not null, "role" text not null default \'viewer\', constraint "organization_allowed_email_domain_projects_pkey" primary key ("uuid"))',
            ),
            (
                15,
                'alter table "organization_allowed_email_domain_projects" add constraint "organization_allowed_email_domain_projects_allowed_email_domains_uuid_foreign" foreign key ("allowed_email_domains_uuid") references "organization_allowed_email_domains" ("allowed_email_domains_uuid") on delete CASCADE',
            ),
            (
                21,
                'alter table "organization_allowed_email_domain_projects" add constraint "organization_allowed_email_domain_projects_role_foreign" foreign key ("role") references "project_membership_roles" ("role") on delete RESTRICT',
            ),
            (
                26,
                'alter table "organization_allowed_email_domain_projects" add constraint "organization_allowed_email_domain_projects_project_uuid_allowed_email_domains_uuid_unique" unique ("project_uuid", "allowed_email_domains_uuid")',
            ),
            (
                35,
                'insert into "organization_allowed_email_domain_projects" ("allowed_email_domains_uuid", "project_uuid")\n                     select $1, $2 where exists (select 1 from projects where project_uuid = $3)',
            ),
            (45, 'alter table "organization_allowed_email_domains" drop column "project_uuids"'),
        ],
    ),
    "20240106120000_job_steps.ts": (
        True,
        [
            (8, 'alter table "jobs" alter column "project_uuid" drop default'),
            (8, 'alter table "jobs" alter column "project_uuid" drop not null'),
            (
                8,
                'alter table "jobs" alter column "project_uuid" type uuid using ("project_uuid"::uuid)',
            ),
            (
                11,
                'create table "job_steps" ("step_id" INTEGER PRIMARY KEY GENERATED ALWAYS AS IDENTITY, "job_uuid" uuid not null, "step_status" text not null)',
            ),
            (
                19,
                'alter table "job_steps" add constraint "job_steps_job_uuid_foreign" foreign key ("job_uuid") references "jobs" ("job_uuid") on delete CASCADE',
            ),
            (
                23,
                'alter table "job_steps" add constraint "job_steps_job_uuid_step_type_unique" unique ("job_uuid", "step_type")',
            ),
        ],
    ),
    "20240107120000_interactive_viewer_role.ts": (
        True,
        [
            (7, 'insert into "project_membership_roles" ("role") values ($1)'),
            (8, 'insert into "organization_membership_roles" ("role") values ($1)'),
        ],
    ),
    "20240108120000_concurrent_index.ts": (
        False,
        [
            (
                9,
                "CREATE INDEX CONCURRENTLY IF NOT EXISTS scheduler_log_job_id_idx ON scheduler_log (job_id)",
            ),
        ],
    ),
    "20240109120000_js_style.js": (
        False,
        [
            (
                5,
                'alter table "dashboards" add column "slug" varchar(100) not null default \'\', add column "is_private" boolean default \'0\', add column "views" integer default \'0\'',
            ),
        ],
    ),
    "20240110120000_module_exports.js": (
        True,
        [
            (8, 'alter table "users" add column "last_name" varchar(255)'),
            (7, 'alter table "users" rename "name" to "first_name"'),
            (10, 'update "users" set "last_name" = $1'),
        ],
    ),
    "20240111120000_multi_raw.ts": (
        True,
        [
            (5, "ALTER TABLE saved_queries ADD COLUMN slug text"),
            (6, "UPDATE saved_queries SET slug = 'x'"),
            (7, "ALTER TABLE saved_queries ALTER COLUMN slug SET NOT NULL"),
        ],
    ),
    "20240112120000_loops.ts": (
        True,
        [
            (8, 'alter table "saved_queries" add column "deleted_at" timestamp null'),
            (9, 'create index "saved_queries_deleted_at_index" on "saved_queries" ("deleted_at")'),
            (8, 'alter table "dashboards" add column "deleted_at" timestamp null'),
            (9, 'create index "dashboards_deleted_at_index" on "dashboards" ("deleted_at")'),
            (8, 'alter table "spaces" add column "deleted_at" timestamp null'),
            (9, 'create index "spaces_deleted_at_index" on "spaces" ("deleted_at")'),
            (15, 'update "projects" set "slug" = $1 where "project_uuid" = $2'),
            (19, "ANALYZE saved_queries"),
            (19, "ANALYZE dashboards"),
            (19, "ANALYZE spaces"),
        ],
    ),
    "20240113120000_dynamic.ts": (
        True,
        [
            (9, None),
            (10, None),
        ],
    ),
    "20240114120000_guards.ts": (
        True,
        [
            (
                7,
                'create table "pinned_list" ("pinned_list_uuid" uuid default uuid_generate_v4(), "project_id" integer not null, "created_at" timestamptz not null default CURRENT_TIMESTAMP, "updated_at" timestamptz not null default CURRENT_TIMESTAMP, constraint "pinned_list_pkey" primary key ("pinned_list_uuid"))',
            ),
            (
                9,
                'alter table "pinned_list" add constraint "pinned_list_project_id_foreign" foreign key ("project_id") references "projects" ("project_id") on delete CASCADE',
            ),
            (15, 'alter table "projects" drop column "pinned"'),
        ],
    ),
    "20240115120000_enum_alter.ts": (
        True,
        [
            (5, 'alter table "scheduler" alter column "format" drop default'),
            (5, 'alter table "scheduler" alter column "format" drop not null'),
            (
                5,
                "alter table \"scheduler\" alter column \"format\" type text check (\"format\" in ('csv', 'image', 'gsheets')) using (\"format\"::text::text check (\"format\" in ('csv', 'image', 'gsheets')))",
            ),
            (5, 'alter table "scheduler" alter column "format" set default \'image\''),
            (5, 'alter table "scheduler" alter column "format" set not null'),
            (6, 'alter table "scheduler" alter column "row_count" drop default'),
            (
                6,
                'alter table "scheduler" alter column "row_count" type bigint using ("row_count"::bigint)',
            ),
            (7, 'alter table "scheduler" alter column "ratio" drop default'),
            (7, 'alter table "scheduler" alter column "ratio" drop not null'),
            (7, 'alter table "scheduler" alter column "ratio" set default \'0\''),
            (10, 'alter table "scheduler" alter column "message" drop not null'),
            (11, 'alter table "scheduler" alter column "name" set not null'),
            (12, 'alter table "scheduler" drop constraint "scheduler_user_uuid_foreign"'),
            (
                13,
                'alter table "scheduler" add constraint "scheduler_user_fk" foreign key ("user_uuid") references "users" ("user_uuid") on delete SET NULL',
            ),
            (14, 'drop index "scheduler_created_at_index"'),
            (15, 'alter table "scheduler" drop constraint "scheduler_name_project_uuid_unique"'),
            (16, 'alter table "scheduler" drop constraint "scheduler_pkey"'),
            (
                17,
                'alter table "scheduler" add constraint "scheduler_pkey" primary key ("scheduler_uuid")',
            ),
        ],
    ),
    "20240116120000_with_schema.ts": (
        True,
        [
            (6, 'create schema if not exists "analytics"'),
            (
                7,
                'create table "analytics"."events" ("event_id" bigserial primary key, "name" text not null, "tags" text[], "at" timestamptz(3) default CURRENT_TIMESTAMP(3))',
            ),
            (9, 'create index "events_name_index" on "analytics"."events" ("name")'),
            (14, 'drop index "analytics"."events_name_index"'),
            (16, 'alter table "analytics"."events" rename to "event_log"'),
            (17, 'delete from "analytics"."event_log" where "at" < now() - interval \'90 days\''),
        ],
    ),
    "20240117120000_transaction.ts": (
        True,
        [
            (5, 'update "spaces" set "is_private" = $1 where "space_id" in ($2, $3, $4)'),
            (6, 'alter table "spaces" alter column "is_private" drop default'),
            (6, 'alter table "spaces" alter column "is_private" drop not null'),
            (
                6,
                'alter table "spaces" alter column "is_private" type boolean using ("is_private"::boolean)',
            ),
            (6, 'alter table "spaces" alter column "is_private" set not null'),
        ],
    ),
    "20240118120000_helpers.ts": (
        True,
        [
            (
                13,
                'alter table "warehouse_credentials" add column "name" text, add column "size" integer',
            ),
            (20, "UPDATE warehouse_credentials SET name = 'default'"),
        ],
    ),
    "20240119120000_then_chain.js": (
        True,
        [
            (
                4,
                'create table "sessions" ("sid" varchar(255) not null, "sess" json not null, "expired" timestamp not null, constraint "sessions_pkey" primary key ("sid"))',
            ),
            (7, 'create index "sessions_expired_index" on "sessions" ("expired")'),
        ],
    ),
    "20240120120000_native_enum.ts": (
        True,
        [
            (6, "create type \"query_status\" as enum ('ready', 'error')"),
            (
                6,
                'create table "query_history" ("query_uuid" uuid default (gen_random_uuid()), "status" "query_status" not null, "ms" real, "cost" double precision, "sql" text, "rows" integer check ("rows" > 0), constraint "query_history_pkey" primary key ("query_uuid"), constraint rows_non_negative check ("rows" >= 0))',
            ),
            (6, 'comment on column "query_history"."sql" is \'compiled SQL\''),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_statements_and_lines(name: str) -> None:
    path = FIXTURES / name
    result = extract_knex(path.read_text(), str(path))
    transactional, expected = EXPECTED[name]
    assert result.transactional is transactional
    assert [(s.line, s.sql) for s in result.statements] == expected


def test_every_fixture_is_listed() -> None:
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(EXPECTED)


# knex emits these as they are although PostgreSQL rejects them (an enum column altered in
# place puts its CHECK inside the type); everything else it sends must parse.
KNEX_INVALID = ("::text::text check",)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_sql_parses_as_postgres(name: str) -> None:
    path = FIXTURES / name
    for statement in extract_knex(path.read_text(), str(path)).statements:
        if statement.sql is None or any(k in statement.sql for k in KNEX_INVALID):
            continue
        parsed = sqlglot.parse(statement.sql, read="postgres")
        assert len(parsed) == 1 and parsed[0] is not None, statement.sql
