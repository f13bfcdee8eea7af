# ruff: noqa: E501 - expected SQL and migration bodies are data; knex emits them on one line
"""The schema builder and query builder calls, one by one: the SQL must be knex's own.

Each expected list is what knex 3.3.0 (`client: 'pg'`) sent for the same `up` body when run
against a recording connection; reads (`select`) are the one deliberate difference: they are not
statements of a migration.
"""

from __future__ import annotations

import pytest

from release_safety.surfaces.migrations.frameworks.knex import extract_knex


def migration(body: str) -> str:
    return (
        "import { Knex } from 'knex';\n\n"
        "export async function up(knex: Knex): Promise<void> {\n    " + body + "\n}\n"
    )


CASES: dict[str, tuple[str, list[str]]] = {
    "string_lengths": (
        "await knex.schema.createTable('t', (t) => { t.string('a'); t.string('b', 32); t.text('c'); t.uuid('d'); t.json('e'); t.jsonb('f'); });",
        [
            'create table "t" ("a" varchar(255), "b" varchar(32), "c" text, "d" uuid, "e" json, "f" jsonb)'
        ],
    ),
    "numeric_types": (
        "await knex.schema.createTable('t', (t) => { t.increments(); t.integer('a'); t.bigInteger('b'); t.bigint('b2'); t.smallint('c'); t.tinyint('d'); t.float('e', 5, 2); t.double('f'); t.decimal('g'); t.decimal('h', 12, 4); t.decimal('i', null); });",
        [
            'create table "t" ("id" serial primary key, "a" integer, "b" bigint, "b2" bigint, "c" smallint, "d" smallint, "e" real, "f" double precision, "g" decimal(8, 2), "h" decimal(12, 4), "i" decimal)'
        ],
    ),
    "date_types": (
        "await knex.schema.createTable('t', (t) => { t.date('a'); t.datetime('b'); t.timestamp('c'); t.timestamp('d', { useTz: false }); t.timestamp('e', true); t.timestamp('f', { precision: 6 }); t.time('g'); t.timestamps(); });",
        [
            'create table "t" ("a" date, "b" timestamptz, "c" timestamptz, "d" timestamp, "e" timestamp, "f" timestamptz(6), "g" time, "created_at" timestamptz, "updated_at" timestamptz)'
        ],
    ),
    "timestamps_variants": (
        "await knex.schema.createTable('t', (t) => { t.timestamps(false, true, true); }); await knex.schema.alterTable('u', (t) => { t.timestamps({ useTimestamps: true, defaultToNow: true }); });",
        [
            'create table "t" ("createdAt" timestamptz not null default CURRENT_TIMESTAMP, "updatedAt" timestamptz not null default CURRENT_TIMESTAMP)',
            'alter table "u" add column "created_at" timestamptz not null default CURRENT_TIMESTAMP, add column "updated_at" timestamptz not null default CURRENT_TIMESTAMP',
        ],
    ),
    "bool_defaults": (
        "await knex.schema.createTable('t', (t) => { t.boolean('a').defaultTo(true); t.boolean('b').defaultTo(false); t.boolean('c').defaultTo('false'); t.boolean('d').notNullable().defaultTo(0); });",
        [
            'create table "t" ("a" boolean default \'1\', "b" boolean default \'0\', "c" boolean default \'0\', "d" boolean not null default \'0\')'
        ],
    ),
    "other_defaults": (
        "await knex.schema.createTable('t', (t) => { t.integer('a').defaultTo(0); t.string('b').defaultTo(\"it's\"); t.string('c').defaultTo(null); t.jsonb('d').defaultTo({}); t.jsonb('e').defaultTo([]); t.json('f').defaultTo('{}'); t.timestamp('g').defaultTo(knex.raw('now()')); t.uuid('h').defaultTo(knex.raw('gen_random_uuid()')); t.text('i').defaultTo('a\\\\b'); });",
        [
            'create table "t" ("a" integer default \'0\', "b" varchar(255) default \'it\'\'s\', "c" varchar(255) default null, "d" jsonb default \'{}\', "e" jsonb default \'[]\', "f" json default \'{}\', "g" timestamptz default now(), "h" uuid default gen_random_uuid(), "i" text default E\'a\\\\b\')'
        ],
    ),
    "add_nullable_column": (
        "await knex.schema.alterTable('projects', (t) => { t.text('icon'); });",
        ['alter table "projects" add column "icon" text'],
    ),
    "add_not_null_with_default": (
        "await knex.schema.alterTable('projects', (t) => { t.boolean('archived').notNullable().defaultTo(false); });",
        ['alter table "projects" add column "archived" boolean not null default \'0\''],
    ),
    "add_not_null_no_default": (
        "await knex.schema.alterTable('projects', (t) => { t.integer('size').notNullable(); });",
        ['alter table "projects" add column "size" integer not null'],
    ),
    "column_index_unique_primary": (
        "await knex.schema.alterTable('t', (t) => { t.string('a').index(); t.string('b').unique(); t.string('c').index('c_idx', 'hash'); t.string('d').unique({ indexName: 'd_uniq' }); });",
        [
            'alter table "t" add column "a" varchar(255), add column "b" varchar(255), add column "c" varchar(255), add column "d" varchar(255)',
            'create index "t_a_index" on "t" ("a")',
            'alter table "t" add constraint "t_b_unique" unique ("b")',
            'create index "c_idx" on "t" using hash ("c")',
            'alter table "t" add constraint "d_uniq" unique ("d")',
        ],
    ),
    "table_index_forms": (
        "await knex.schema.alterTable('t', (t) => { t.index(['a', 'b']); t.index('c', 'named_idx'); t.index(['d'], undefined, { indexType: 'unique' }); t.index(['e'], 'e_gin', { storageEngineIndexType: 'gin' }); t.index(['f'], 'f_partial', { predicate: knex.whereNotNull('f') }); });",
        [
            'create index "t_a_b_index" on "t" ("a", "b")',
            'create index "named_idx" on "t" ("c")',
            'create unique index "t_d_index" on "t" ("d")',
            'create index "e_gin" on "t" using gin ("e")',
            'create index "f_partial" on "t" ("f") where "f" is not null',
        ],
    ),
    "unique_forms": (
        "await knex.schema.alterTable('t', (t) => { t.unique(['a', 'b']); t.unique(['c'], 'c_key'); t.unique(['d'], { indexName: 'd_key', useConstraint: false }); t.unique(['e'], { predicate: knex.whereNull('deleted_at') }); t.unique(['f'], { deferrable: 'deferred' }); });",
        [
            'alter table "t" add constraint "t_a_b_unique" unique ("a", "b")',
            'alter table "t" add constraint "c_key" unique ("c")',
            'create unique index "d_key" on "t" ("d")',
            'create unique index "t_e_unique" on "t" ("e") where "deleted_at" is null',
            'alter table "t" add constraint "t_f_unique" unique ("f") deferrable initially deferred',
        ],
    ),
    "drops": (
        "await knex.schema.alterTable('t', (t) => { t.dropColumn('a'); t.dropColumns('b', 'c'); t.dropColumns(['d', 'e']); t.dropIndex(['a', 'b']); t.dropIndex([], 'named'); t.dropUnique(['c']); t.dropUnique([], 'c_key'); t.dropForeign(['d']); t.dropForeign('e', 'e_fk'); t.dropPrimary('t_pk'); t.dropTimestamps(); t.dropTimestamps(true); });",
        [
            'alter table "t" drop column "a"',
            'alter table "t" drop column "b", drop column "c"',
            'alter table "t" drop column "d", drop column "e"',
            'drop index "t_a_b_index"',
            'drop index "named"',
            'alter table "t" drop constraint "t_c_unique"',
            'alter table "t" drop constraint "c_key"',
            'alter table "t" drop constraint "t_d_foreign"',
            'alter table "t" drop constraint "e_fk"',
            'alter table "t" drop constraint "t_pk"',
            'alter table "t" drop column "created_at", drop column "updated_at"',
            'alter table "t" drop column "createdAt", drop column "updatedAt"',
        ],
    ),
    "if_exists_drops": (
        "await knex.schema.alterTable('t', (t) => { t.dropPrimaryIfExists(); t.dropUniqueIfExists(['a']); t.dropForeignIfExists(['b']); });",
        [
            'alter table "t" drop constraint if exists "t_pkey"',
            'alter table "t" drop constraint if exists "t_a_unique"',
            'alter table "t" drop constraint if exists "t_b_foreign"',
        ],
    ),
    "renames": (
        "await knex.schema.alterTable('t', (t) => { t.renameColumn('old', 'new'); }); await knex.schema.renameTable('t', 't2');",
        ['alter table "t" rename "old" to "new"', 'alter table "t" rename to "t2"'],
    ),
    "nullable_changes": (
        "await knex.schema.alterTable('t', (t) => { t.setNullable('a'); t.dropNullable('b'); });",
        [
            'alter table "t" alter column "a" drop not null',
            'alter table "t" alter column "b" set not null',
        ],
    ),
    "alter_column_forms": (
        "await knex.schema.alterTable('t', (t) => { t.string('a', 500).alter(); t.text('b').notNullable().alter(); t.integer('c').nullable().defaultTo(5).alter(); t.bigInteger('d').alter({ alterNullable: false }); t.timestamp('e', { useTz: true }).defaultTo(knex.fn.now()).alter({ alterType: false }); });",
        [
            'alter table "t" alter column "a" drop default',
            'alter table "t" alter column "a" drop not null',
            'alter table "t" alter column "a" type varchar(500) using ("a"::varchar(500))',
            'alter table "t" alter column "b" drop default',
            'alter table "t" alter column "b" drop not null',
            'alter table "t" alter column "b" type text using ("b"::text)',
            'alter table "t" alter column "b" set not null',
            'alter table "t" alter column "c" drop default',
            'alter table "t" alter column "c" drop not null',
            'alter table "t" alter column "c" type integer using ("c"::integer)',
            'alter table "t" alter column "c" set default \'5\'',
            'alter table "t" alter column "d" drop default',
            'alter table "t" alter column "d" type bigint using ("d"::bigint)',
            'alter table "t" alter column "e" drop default',
            'alter table "t" alter column "e" drop not null',
            'alter table "t" alter column "e" set default CURRENT_TIMESTAMP',
        ],
    ),
    "foreign_forms": (
        "await knex.schema.alterTable('t', (t) => { t.integer('a').references('id').inTable('users'); t.integer('b').references('users.id').onDelete('CASCADE').onUpdate('NO ACTION'); t.foreign('c').references('id').on('orgs'); t.foreign(['d', 'e'], 'de_fk').references(['x', 'y']).inTable('pairs'); t.integer('f').references('id').inTable('other').withKeyName('f_other_fk'); });",
        [
            'alter table "t" add column "a" integer, add column "b" integer, add column "f" integer',
            'alter table "t" add constraint "t_a_foreign" foreign key ("a") references "users" ("id")',
            'alter table "t" add constraint "t_b_foreign" foreign key ("b") references "users" ("id") on update NO ACTION on delete CASCADE',
            'alter table "t" add constraint "t_c_foreign" foreign key ("c") references "orgs" ("id")',
            'alter table "t" add constraint "de_fk" foreign key ("d", "e") references "pairs" ("x", "y")',
            'alter table "t" add constraint "f_other_fk" foreign key ("f") references "other" ("id")',
        ],
    ),
    "create_with_foreign_and_primary": (
        "await knex.schema.createTable('memberships', (t) => { t.uuid('user_uuid').notNullable().references('user_uuid').inTable('users').onDelete('CASCADE'); t.integer('org_id').notNullable().references('organization_id').inTable('organizations'); t.primary(['user_uuid', 'org_id']); });",
        [
            'create table "memberships" ("user_uuid" uuid not null, "org_id" integer not null, constraint "memberships_pkey" primary key ("user_uuid", "org_id"))',
            'alter table "memberships" add constraint "memberships_user_uuid_foreign" foreign key ("user_uuid") references "users" ("user_uuid") on delete CASCADE',
            'alter table "memberships" add constraint "memberships_org_id_foreign" foreign key ("org_id") references "organizations" ("organization_id")',
        ],
    ),
    "primary_named": (
        "await knex.schema.createTable('a', (t) => { t.integer('id'); t.primary(['id'], 'a_pk'); }); await knex.schema.alterTable('b', (t) => { t.primary(['id'], { constraintName: 'b_pk', deferrable: 'deferred' }); });",
        [
            'create table "a" ("id" integer, constraint "a_pk" primary key ("id"))',
            'alter table "b" add constraint "b_pk" primary key ("id") deferrable initially deferred',
        ],
    ),
    "checks": (
        "await knex.schema.createTable('t', (t) => { t.integer('a').checkPositive(); t.integer('b').checkNegative('b_neg'); t.string('c').checkIn(['x', 'y']); t.string('d').checkNotIn(['z']); t.integer('e').checkBetween([0, 10]); t.string('f').checkLength('<=', 20); t.string('g').checkRegex('[a-z]+'); t.check('?? < ??', ['a', 'e']); });",
        [
            'create table "t" ("a" integer check ("a" > 0), "b" integer constraint b_neg check ("b" < 0), "c" varchar(255) check ("c" in (\'x\',\'y\')), "d" varchar(255) check ("d" not in (\'z\')), "e" integer check ("e" between 0 and 10), "f" varchar(255) check (length("f") <= 20), "g" varchar(255) check ("g" ~ \'[a-z]+\'), check ("a" < "e"))'
        ],
    ),
    "alter_checks": (
        "await knex.schema.alterTable('t', (t) => { t.check('a > 0', [], 'a_pos'); t.check('b > 0'); t.integer('c').checkPositive().alter(); t.dropChecks(['a_pos', 'x']); });",
        [
            'alter table "t" alter column "c" drop default',
            'alter table "t" alter column "c" drop not null',
            'alter table "t" alter column "c" type integer using ("c"::integer)',
            'alter table "t" add constraint t_c_1 check("c" > 0)',
            'alter table "t" add constraint a_pos check(a > 0)',
            'alter table "t" add constraint "t"_1 check(b > 0)',
            'alter table "t" drop constraint a_pos, drop constraint x',
        ],
    ),
    "comments": (
        "await knex.schema.createTable('t', (t) => { t.comment('the table'); t.text('a').comment(\"a's value\"); t.text('b').comment(''); }); await knex.schema.alterTable('u', (t) => { t.comment('updated'); t.text('c').comment('new').alter(); });",
        [
            'create table "t" ("a" text, "b" text)',
            "comment on table \"t\" is 'the table'",
            "comment on column \"t\".\"a\" is 'a''s value'",
            'comment on column "t"."b" is NULL',
            'alter table "u" alter column "c" drop default',
            'alter table "u" alter column "c" drop not null',
            'alter table "u" alter column "c" type text using ("c"::text)',
            'comment on column "u"."c" is \'new\'',
            "comment on table \"u\" is 'updated'",
        ],
    ),
    "enums": (
        "await knex.schema.createTable('t', (t) => { t.enu('a', ['x', 'y']); t.enum('b', ['p', 'q']).notNullable().defaultTo('p'); t.enu('c', ['m', 'n'], { useNative: true, enumName: 'c_type' }); t.enu('d', null, { useNative: true, existingType: true, enumName: 'c_type' }); t.enu('e', ['u'], { useNative: true, enumName: 'e_type', schemaName: 'public' }); });",
        [
            'create type "public"."e_type" as enum (\'u\')',
            "create type \"c_type\" as enum ('m', 'n')",
            'create table "t" ("a" text check ("a" in (\'x\', \'y\')), "b" text check ("b" in (\'p\', \'q\')) not null default \'p\', "c" "c_type", "d" "c_type", "e" "public"."e_type")',
        ],
    ),
    "specific_types": (
        "await knex.schema.createTable('t', (t) => { t.specificType('a', 'text[]'); t.specificType('b', 'tsvector').notNullable(); t.specificType('c', 'INTEGER GENERATED ALWAYS AS IDENTITY'); t.binary('d'); t.point('e'); t.geometry('f'); t.bit('g', { length: 4 }); });",
        [
            'create table "t" ("a" text[], "b" tsvector not null, "c" INTEGER GENERATED ALWAYS AS IDENTITY, "d" bytea, "e" point, "f" geometry, "g" bit(4))'
        ],
    ),
    "increments_options": (
        "await knex.schema.createTable('a', (t) => { t.increments('a_id', { primaryKey: false }); t.bigIncrements('b_id'); }); await knex.schema.createTable('b', (t) => { t.increments('id'); t.string('code'); t.primary(['code']); });",
        [
            'create table "a" ("a_id" serial, "b_id" bigserial primary key)',
            'create table "b" ("id" serial, "code" varchar(255), constraint "b_pkey" primary key ("code"))',
        ],
    ),
    "uuid_primary": (
        "await knex.schema.createTable('t', (t) => { t.uuid('id', { primaryKey: true }).defaultTo(knex.fn.uuid()); });",
        ['create table "t" ("id" uuid primary key default (gen_random_uuid()))'],
    ),
    "create_if_not_exists_and_inherits": (
        "await knex.schema.createTableIfNotExists('a', (t) => { t.text('x'); }); await knex.schema.createTable('b', (t) => { t.inherits('a'); t.text('y'); });",
        ['create table if not exists "a" ("x" text)', 'create table "b" ("y" text) inherits ("a")'],
    ),
    "drop_tables": (
        "await knex.schema.dropTable('a'); await knex.schema.dropTableIfExists('b'); await knex.schema.withSchema('s').dropTable('c');",
        ['drop table "a"', 'drop table if exists "b"', 'drop table "s"."c"'],
    ),
    "schema_level": (
        "await knex.schema.createSchema('s'); await knex.schema.dropSchemaIfExists('old', true); await knex.schema.createExtension('pg_trgm'); await knex.schema.dropExtensionIfExists('hstore'); await knex.schema.dropView('v'); await knex.schema.dropMaterializedViewIfExists('mv'); await knex.schema.refreshMaterializedView('mv2'); await knex.schema.renameView('v1', 'v2');",
        [
            'create schema "s"',
            'drop schema if exists "old" cascade',
            'create extension "pg_trgm"',
            'drop extension if exists "hstore"',
            'drop view "v"',
            'drop materialized view if exists "mv"',
            'refresh materialized view "mv2"',
            'alter view "v1" rename to "v2"',
        ],
    ),
    "schema_chain": (
        "await knex.schema.dropTableIfExists('a').createTable('a', (t) => { t.increments(); }).raw('analyze a');",
        ['drop table if exists "a"', 'create table "a" ("id" serial primary key)', "analyze a"],
    ),
    "with_schema_table_ops": (
        "await knex.schema.withSchema('ee').alterTable('t', (t) => { t.integer('a').references('id').inTable('ee.users'); t.index(['a']); t.dropIndex(['b']); t.unique(['c']); t.text('d').comment('x'); });",
        [
            'alter table "ee"."t" add column "a" integer, add column "d" text',
            'comment on column "ee"."t"."d" is \'x\'',
            'alter table "ee"."t" add constraint "t_a_foreign" foreign key ("a") references "ee"."users" ("id")',
            'create index "t_a_index" on "ee"."t" ("a")',
            'drop index "ee"."t_b_index"',
            'alter table "ee"."t" add constraint "t_c_unique" unique ("c")',
        ],
    ),
    "schema_raw": (
        "await knex.schema.raw('ALTER TABLE t ADD COLUMN x int'); await knex.schema.raw('SELECT ?', [1]);",
        ["ALTER TABLE t ADD COLUMN x int", "SELECT $1"],
    ),
    "raw_bindings": (
        "await knex.raw('UPDATE ?? SET ?? = ? WHERE id = ?', ['t', 'a', 'v', 3]); await knex.raw('SELECT :col: FROM t WHERE id = :id AND x::text = :x', { col: 'name', id: 1, x: 'q' }); await knex.raw(\"SELECT '{}'::jsonb \\\\? 'k'\");",
        [
            'UPDATE "t" SET "a" = $1 WHERE id = $2',
            'SELECT "name" FROM t WHERE id = $1 AND x::text = $2',
            "SELECT '{}'::jsonb ? 'k'",
        ],
    ),
    "update_forms": (
        "await knex('t').update({ a: 1, b: null, c: knex.raw('now()') }); await knex('t').update('d', 'v').where('id', 2); await knex('t').where({ id: 1, e: null }).update({ f: false }); await knex('t').increment('n'); await knex('t').decrement({ m: 2 }).where('id', '>', 5);",
        [
            'update "t" set "a" = $1, "b" = $2, "c" = now()',
            'update "t" set "d" = $1 where "id" = $2',
            'update "t" set "f" = $1 where "id" = $2 and "e" is null',
            'update "t" set "n" = "n" + $1',
            'update "t" set "m" = "m" - $1 where "id" > $2',
        ],
    ),
    "where_forms": (
        "await knex('t').where('a', 1).orWhere('b', '<>', 2).whereNot('c', 3).whereIn('d', [1, 2]).whereNotIn('e', []).whereNull('f').orWhereNotNull('g').whereRaw('h = ?', [7]).whereBetween('i', [1, 2]).whereLike('j', '%x%').whereILike('k', 'y').del();",
        [
            'delete from "t" where "a" = $1 or "b" <> $2 and not "c" = $3 and "d" in ($4, $5) and 1 = $6 and "f" is null or "g" is not null and h = $7 and "i" between $8 and $9 and "j" like $10 and "k" ilike $11'
        ],
    ),
    "nested_where": (
        "await knex('t').where((qb) => { qb.where('a', 1).orWhere('b', 2); }).andWhere('c', 3).update({ d: 4 }); await knex('t').whereNot(function () { this.whereNull('x'); }).del();",
        [
            'update "t" set "d" = $1 where ("a" = $2 or "b" = $3) and "c" = $4',
            'delete from "t" where not ("x" is null)',
        ],
    ),
    "subquery_where": (
        "await knex('t').whereIn('id', knex('u').select('t_id').where('flag', true)).del(); await knex('t').whereExists(knex('u').select('id').whereRaw('u.t_id = t.id')).update({ used: true });",
        [
            'delete from "t" where "id" in (select "t_id" from "u" where "flag" = $1)',
            'update "t" set "used" = $1 where exists (select "id" from "u" where u.t_id = t.id)',
        ],
    ),
    "insert_forms": (
        "await knex('t').insert({ b: 2, a: 1 }); await knex('t').insert([{ a: 1 }, { a: 2, c: 3 }]); await knex('t').insert({ a: 1 }).onConflict('a').ignore(); await knex('t').insert({ a: 1, b: 2 }).onConflict(['a']).merge(); await knex('t').insert({ a: 1, b: 2 }).onConflict('a').merge(['b']); await knex('t').insert({ a: 1 }).returning('id');",
        [
            'insert into "t" ("a", "b") values ($1, $2)',
            'insert into "t" ("a", "c") values ($1, DEFAULT), ($2, $3)',
            'insert into "t" ("a") values ($1) on conflict ("a") do nothing',
            'insert into "t" ("a", "b") values ($1, $2) on conflict ("a") do update set "a" = excluded."a", "b" = excluded."b"',
            'insert into "t" ("a", "b") values ($1, $2) on conflict ("a") do update set "b" = excluded."b"',
            'insert into "t" ("a") values ($1) returning "id"',
        ],
    ),
    "insert_select": (
        "await knex('archive').insert(knex('t').select('a', 'b').where('old', true)); await knex.into('archive').insert(knex.select('*').from('t2'));",
        [
            'insert into "archive" select "a", "b" from "t" where "old" = $1',
            'insert into "archive" select * from "t2"',
        ],
    ),
    "delete_forms": (
        "await knex('t').del(); await knex('t').delete().where('a', 1); await knex.from('t').where('b', 2).del(); await knex.table('t').whereIn('c', [1]).delete();",
        [
            'delete from "t"',
            'delete from "t" where "a" = $1',
            'delete from "t" where "b" = $1',
            'delete from "t" where "c" in ($1)',
        ],
    ),
    "truncate": (
        "await knex('t').truncate();",
        ['truncate "t" restart identity'],
    ),
    "reads_emit_nothing": (
        "await knex('t').select('a'); await knex('t').first(); await knex('t').count('id'); await knex('t').where('a', 1).pluck('b');",
        [],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_sql_matches_knex(name: str) -> None:
    body, expected = CASES[name]
    result = extract_knex(migration(body), f"20240101000000_{name}.ts")
    assert [s.sql for s in result.statements] == expected
    assert all(s.reason is None for s in result.statements)
    assert all(s.line == 4 for s in result.statements)
