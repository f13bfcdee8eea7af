# ruff: noqa: E501
"""A corpus of migrations shaped like the ones real self-hosted services ship (registries,
webhook dispatchers, auth servers, chat and analytics back ends), written for the fixture
schema of `pgprobe.py`. Each is a whole migration file; `breaks` says whether it breaks the
previous release's running code or blocks its traffic (a lock of SHARE or stronger on a table
with rows while every row is read or rewritten): such a migration must never be judged safe.

The test (`test_migration_corpus.py`) runs every one on PostgreSQL and scores the analysis per
flag.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    sql: str
    breaks: bool


CORPUS: tuple[Case, ...] = (
    # --- new tables, indexes and keys --------------------------------------------------------
    Case(
        "create_audit_log",
        """CREATE TABLE IF NOT EXISTS audit_log (
    id SERIAL PRIMARY KEY NOT NULL,
    user_id bigint REFERENCES users (id) ON DELETE CASCADE,
    operation varchar(255) NOT NULL,
    resource text,
    op_time timestamp DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX audit_log_op_time ON audit_log (op_time);
CREATE INDEX audit_log_user ON audit_log (user_id);""",
        False,
    ),
    Case(
        "create_webhook_tables",
        """CREATE TABLE endpoint (
  id text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  url text NOT NULL,
  disabled boolean NOT NULL DEFAULT false,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE TABLE message_attempt (
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES endpoint (id),
  status smallint NOT NULL,
  response_status_code smallint,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX message_attempt_endpoint_idx ON message_attempt (endpoint_id, created_at DESC);""",
        False,
    ),
    Case(
        "create_sessions_with_enum",
        """CREATE TYPE aal_level AS ENUM ('aal1', 'aal2', 'aal3');
CREATE TABLE sessions (
    id uuid NOT NULL PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NULL,
    updated_at timestamptz NULL,
    aal aal_level NULL,
    not_after timestamptz
);
CREATE INDEX IF NOT EXISTS sessions_user_id_idx ON sessions (user_id);
COMMENT ON TABLE sessions IS 'Stores session data associated to a user.';""",
        False,
    ),
    Case(
        "index_on_existing_table",
        "CREATE INDEX orders_amount_idx ON orders (amount);",
        True,
    ),
    Case(
        "index_concurrently",
        "CREATE INDEX CONCURRENTLY IF NOT EXISTS users_region_idx ON users (region);",
        False,
    ),
    Case(
        "unique_index_concurrently_then_constraint",
        """CREATE UNIQUE INDEX CONCURRENTLY contacts_email_uq ON contacts (email);
ALTER TABLE contacts ADD CONSTRAINT contacts_email_key UNIQUE USING INDEX contacts_email_uq;""",
        False,
    ),
    Case(
        "partial_and_expression_indexes",
        """CREATE INDEX users_lower_email ON users (lower(email));
CREATE INDEX users_active ON users (created_at) WHERE status = 'active';""",
        True,
    ),
    Case(
        "unique_constraint_in_place",
        "ALTER TABLE orders ADD CONSTRAINT orders_user_note_key UNIQUE (user_id, id);",
        True,
    ),
    Case(
        "drop_and_recreate_index_concurrently",
        """DROP INDEX CONCURRENTLY IF EXISTS orders_user_id_idx;
CREATE INDEX CONCURRENTLY orders_user_id_idx ON orders (user_id, id);""",
        False,
    ),
    Case(
        "reindex_table",
        "REINDEX TABLE orders;",
        True,
    ),
    Case(
        "reindex_index_concurrently",
        "REINDEX INDEX CONCURRENTLY orders_user_id_idx;",
        False,
    ),
    # --- columns --------------------------------------------------------------------------------
    Case(
        "add_nullable_columns",
        """ALTER TABLE users ADD COLUMN IF NOT EXISTS phone text NULL DEFAULT NULL;
ALTER TABLE users ADD COLUMN IF NOT EXISTS phone_confirmed_at timestamptz NULL DEFAULT NULL;""",
        False,
    ),
    Case(
        "add_column_constant_default",
        "ALTER TABLE orders ADD COLUMN currency varchar(3) NOT NULL DEFAULT 'EUR';",
        False,
    ),
    Case(
        "add_column_volatile_default",
        "ALTER TABLE orders ADD COLUMN uid uuid NOT NULL DEFAULT gen_random_uuid();",
        True,
    ),
    Case(
        "add_column_now_default",
        "ALTER TABLE contacts ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();",
        False,
    ),
    Case(
        "add_serial_column",
        "ALTER TABLE staging ADD COLUMN seq serial;",
        True,
    ),
    Case(
        "add_identity_column",
        "ALTER TABLE staging ADD COLUMN row_id bigint GENERATED ALWAYS AS IDENTITY;",
        True,
    ),
    Case(
        "add_stored_generated_column",
        "ALTER TABLE orders ADD COLUMN amount_cents bigint GENERATED ALWAYS AS (amount * 100) STORED;",
        True,
    ),
    Case(
        "add_domain_column_checked",
        "ALTER TABLE orders ADD COLUMN billing_email email_address;",
        True,
    ),
    Case(
        "add_domain_column_plain",
        "ALTER TABLE orders ADD COLUMN channel label;",
        False,
    ),
    Case(
        "new_not_null_column_loses_its_default",
        "ALTER TABLE staging ADD COLUMN source text NOT NULL DEFAULT 'import';\n"
        "ALTER TABLE staging ALTER COLUMN source DROP DEFAULT;",
        True,
    ),
    Case(
        "add_column_with_check",
        "ALTER TABLE orders ADD COLUMN quantity int DEFAULT 1 CHECK (quantity > 0);",
        True,
    ),
    Case(
        "add_column_with_fk_no_default",
        "ALTER TABLE staging ADD COLUMN user_id bigint REFERENCES users (id);",
        False,
    ),
    Case(
        "add_column_then_backfill",
        """ALTER TABLE users ADD COLUMN is_sso_user boolean;
UPDATE users SET is_sso_user = false;""",
        True,
    ),
    Case(
        "add_column_commit_then_backfill",
        """ALTER TABLE users ADD COLUMN is_anonymous boolean;
COMMIT;
UPDATE users SET is_anonymous = false WHERE is_anonymous IS NULL;""",
        False,
    ),
    Case(
        "drop_column",
        "ALTER TABLE users DROP COLUMN IF EXISTS age;",
        True,
    ),
    Case(
        "rename_column",
        "ALTER TABLE orders RENAME COLUMN note TO comment;",
        True,
    ),
    Case(
        "rename_table",
        "ALTER TABLE staging RENAME TO import_rows;",
        True,
    ),
    Case(
        "set_not_null_directly",
        "ALTER TABLE users ALTER COLUMN email SET NOT NULL;",
        True,
    ),
    Case(
        "set_not_null_on_not_null_column",
        "ALTER TABLE contacts ALTER COLUMN code SET NOT NULL;",
        False,
    ),
    Case(
        "drop_not_null",
        "ALTER TABLE orders ALTER COLUMN user_id DROP NOT NULL;",
        False,
    ),
    Case(
        "set_default",
        "ALTER TABLE users ALTER COLUMN status SET DEFAULT 'active';",
        False,
    ),
    Case(
        "drop_default_nullable",
        "ALTER TABLE contacts ALTER COLUMN note DROP DEFAULT;",
        False,
    ),
    Case(
        "drop_default_not_null",
        "ALTER TABLE contacts ALTER COLUMN score DROP DEFAULT;",
        True,
    ),
    Case(
        "drop_identity",
        "ALTER TABLE contacts ALTER COLUMN id DROP IDENTITY IF EXISTS;",
        True,
    ),
    Case(
        "set_and_drop_default",
        """ALTER TABLE staging ALTER COLUMN id SET DEFAULT 0;
ALTER TABLE staging ALTER COLUMN id DROP DEFAULT;""",
        False,
    ),
    # --- type changes -------------------------------------------------------------------------
    Case(
        "varchar_widen",
        "ALTER TABLE users ALTER COLUMN name TYPE varchar(255);",
        False,
    ),
    Case(
        "varchar_to_text",
        "ALTER TABLE contacts ALTER COLUMN code TYPE text;",
        False,
    ),
    Case(
        "varchar_narrow",
        "ALTER TABLE contacts ALTER COLUMN code TYPE varchar(10);",
        True,
    ),
    Case(
        "int_to_bigint",
        "ALTER TABLE users ALTER COLUMN age TYPE bigint;",
        True,
    ),
    Case(
        "numeric_precision_up",
        "ALTER TABLE orders ALTER COLUMN amount TYPE numeric(16,2);",
        False,
    ),
    Case(
        "numeric_scale_change",
        "ALTER TABLE orders ALTER COLUMN amount TYPE numeric(12,3);",
        True,
    ),
    Case(
        "text_to_jsonb",
        "ALTER TABLE orders ALTER COLUMN note TYPE jsonb USING to_jsonb(note);",
        True,
    ),
    Case(
        "timestamp_to_timestamptz_utc",
        "ALTER TABLE contacts ALTER COLUMN seen TYPE timestamptz;",
        True,
    ),
    Case(
        "timestamp_to_timestamptz_other_zone",
        "SET TimeZone TO 'Asia/Tokyo';\nALTER TABLE contacts ALTER COLUMN seen TYPE timestamptz;",
        True,
    ),
    Case(
        "timestamptz_precision",
        "ALTER TABLE users ALTER COLUMN created_at TYPE timestamptz(3);",
        True,
    ),
    Case(
        "enum_to_text",
        "ALTER TABLE users ALTER COLUMN mood TYPE text;",
        True,
    ),
    Case(
        "domain_to_base",
        "ALTER TABLE contacts ALTER COLUMN email TYPE text;",
        False,
    ),
    Case(
        "text_to_domain_checked",
        "ALTER TABLE orders ALTER COLUMN note TYPE email_address USING NULL;",
        True,
    ),
    # --- constraints ---------------------------------------------------------------------------
    Case(
        "fk_validating",
        "ALTER TABLE orders ADD CONSTRAINT orders_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id);",
        True,
    ),
    Case(
        "fk_not_valid_then_validate",
        """ALTER TABLE orders ADD CONSTRAINT orders_user_id_fkey FOREIGN KEY (user_id)
  REFERENCES users (id) ON DELETE CASCADE NOT VALID;
COMMIT;
ALTER TABLE orders VALIDATE CONSTRAINT orders_user_id_fkey;""",
        False,
    ),
    Case(
        "check_validating",
        "ALTER TABLE orders ADD CONSTRAINT orders_amount_positive CHECK (amount >= 0);",
        True,
    ),
    Case(
        "check_not_valid",
        "ALTER TABLE orders ADD CONSTRAINT orders_amount_positive CHECK (amount >= 0) NOT VALID;",
        False,
    ),
    Case(
        "check_not_null_not_valid",
        "ALTER TABLE users ADD CONSTRAINT users_status_nn CHECK (status IS NOT NULL) NOT VALID;",
        True,
    ),
    Case(
        "drop_constraint",
        "ALTER TABLE contacts DROP CONSTRAINT IF EXISTS contacts_tag_nn;",
        False,
    ),
    Case(
        "rename_constraint",
        "ALTER TABLE orders RENAME CONSTRAINT orders_pkey TO orders_pk;",
        False,
    ),
    Case(
        "primary_key_on_nullable",
        "ALTER TABLE staging ADD CONSTRAINT staging_pkey PRIMARY KEY (id);",
        True,
    ),
    Case(
        "exclusion_constraint",
        "ALTER TABLE orders ADD CONSTRAINT orders_no_dup EXCLUDE USING btree (id WITH =);",
        True,
    ),
    # --- views, functions, triggers, policies ---------------------------------------------------
    Case(
        "replace_view",
        "CREATE OR REPLACE VIEW active_users AS SELECT id, email, region FROM users WHERE region = 'eu';",
        False,
    ),
    Case(
        "materialized_view_refresh",
        "REFRESH MATERIALIZED VIEW user_counts;",
        True,
    ),
    Case(
        "materialized_view_refresh_concurrently",
        "REFRESH MATERIALIZED VIEW CONCURRENTLY user_counts;",
        True,
    ),
    Case(
        "trigger_function_and_trigger",
        """CREATE OR REPLACE FUNCTION set_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.note := coalesce(NEW.note, '');
  RETURN NEW;
END;
$$;
DROP TRIGGER IF EXISTS orders_set_updated ON orders;
CREATE TRIGGER orders_set_updated BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION set_updated();""",
        False,
    ),
    Case(
        "rls_and_policy",
        """CREATE POLICY users_own ON users USING (id > 0);
ALTER TABLE users ENABLE ROW LEVEL SECURITY;""",
        True,
    ),
    Case(
        "grant_and_comment",
        """GRANT SELECT ON users TO PUBLIC;
COMMENT ON COLUMN users.email IS 'Login e-mail';""",
        False,
    ),
    Case(
        "revoke",
        "REVOKE ALL ON staging FROM PUBLIC;",
        True,
    ),
    Case(
        "sql_function_called",
        """CREATE FUNCTION archive_staging() RETURNS void LANGUAGE sql AS $$
  DELETE FROM staging WHERE at < date '2000-01-01';
$$;
SELECT archive_staging();""",
        False,
    ),
    Case(
        "plpgsql_function_with_ddl_called",
        """CREATE OR REPLACE FUNCTION add_orders_index() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  CREATE INDEX IF NOT EXISTS orders_note_idx ON orders (note);
END
$$;
SELECT add_orders_index();
DROP FUNCTION add_orders_index();""",
        True,
    ),
    # --- enums ---------------------------------------------------------------------------------
    Case(
        "enum_add_value",
        "ALTER TYPE mood ADD VALUE IF NOT EXISTS 'calm';",
        False,
    ),
    Case(
        "enum_rename_value",
        "ALTER TYPE priority RENAME VALUE 'high' TO 'urgent';",
        True,
    ),
    Case(
        "create_enum_guarded",
        """DO $$ BEGIN
    CREATE TYPE factor_type AS ENUM ('totp', 'webauthn');
EXCEPTION
    WHEN duplicate_object THEN null;
END $$;""",
        False,
    ),
    # --- data ----------------------------------------------------------------------------------
    Case(
        "seed_rows",
        """INSERT INTO staging (id, kind, at) VALUES (9001, 'seed', '2026-01-01'), (9002, 'seed', NULL);
INSERT INTO orders (id, user_id, amount) VALUES (90001, 1, 10.5);""",
        False,
    ),
    Case(
        "update_by_key",
        "UPDATE users SET status = 'disabled' WHERE id = 7;",
        False,
    ),
    Case(
        "update_filtered",
        "UPDATE orders SET note = 'refund' WHERE amount = 0;",
        False,
    ),
    Case(
        "delete_orphans",
        """DELETE FROM orders
    WHERE id IN (SELECT o.id FROM orders o
        LEFT JOIN users u ON o.user_id = u.id
        WHERE u.id IS NULL);""",
        False,
    ),
    Case(
        "update_from_join",
        "UPDATE orders SET note = u.region FROM users u WHERE orders.user_id = u.id;",
        False,
    ),
    Case(
        "insert_select",
        "INSERT INTO staging (id, kind, at) SELECT id + 10000, 'user', current_date FROM users WHERE age > 80;",
        False,
    ),
    Case(
        "truncate_staging",
        "TRUNCATE TABLE staging;",
        False,
    ),
    Case(
        "lock_then_backfill",
        """LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE;
UPDATE orders SET note = 'x' WHERE note IS NULL;""",
        True,
    ),
    # --- DO blocks -----------------------------------------------------------------------------
    Case(
        "do_rename_duplicates",
        """DO $$
BEGIN
    WHILE EXISTS (SELECT count(*) FROM staging GROUP BY kind, id HAVING count(*) > 1) LOOP
        UPDATE staging AS s SET kind = s.kind || '_' || v.seq
        FROM (SELECT id, row_number() OVER (PARTITION BY kind ORDER BY id) AS seq FROM staging) AS v
        WHERE s.id = v.id AND v.seq > 1;
    END LOOP;
END $$;""",
        False,
    ),
    Case(
        "do_loop_per_row",
        """DO $$
DECLARE
    o RECORD;
    total numeric;
BEGIN
    FOR o IN SELECT * FROM orders WHERE amount = 0
    LOOP
      SELECT sum(amount) INTO total FROM orders WHERE user_id = o.user_id;
      UPDATE orders SET note = total::text WHERE id = o.id;
    END LOOP;
END $$;""",
        False,
    ),
    Case(
        "do_guarded_return",
        """DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM staging WHERE kind = 'marker') THEN
        RETURN;
    END IF;
    INSERT INTO staging (id, kind) VALUES (777, 'marker');
END $$;""",
        False,
    ),
    Case(
        "do_guarded_column",
        """DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                 WHERE table_name = 'orders' AND column_name = 'shipped') THEN
    ALTER TABLE orders ADD COLUMN shipped boolean DEFAULT false;
  END IF;
END $$;""",
        False,
    ),
    Case(
        "do_execute_constant",
        """DO $$
BEGIN
  EXECUTE 'CREATE INDEX IF NOT EXISTS staging_at_idx ON staging (at)';
END $$;""",
        True,
    ),
    Case(
        "do_raise_notice",
        """DO $$
DECLARE n int := (SELECT count(*) FROM users);
BEGIN
  RAISE NOTICE 'users: %', n;
END $$;""",
        False,
    ),
    # --- partitions ----------------------------------------------------------------------------
    Case(
        "new_partition",
        "CREATE TABLE IF NOT EXISTS events_2027 PARTITION OF events FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');",
        False,
    ),
    Case(
        "new_partition_with_default",
        "CREATE TABLE logs_2040 PARTITION OF logs FOR VALUES FROM ('2040-01-01') TO ('2041-01-01');",
        True,
    ),
    Case(
        "detach_partition_concurrently",
        "ALTER TABLE events DETACH PARTITION events_2024 CONCURRENTLY;",
        True,
    ),
    Case(
        "attach_partition_prepared",
        """CREATE TABLE events_2030 (LIKE events INCLUDING DEFAULTS);
ALTER TABLE events_2030 ADD CONSTRAINT events_2030_bound CHECK (at >= '2030-01-01' AND at < '2031-01-01');
ALTER TABLE events ATTACH PARTITION events_2030 FOR VALUES FROM ('2030-01-01') TO ('2031-01-01');""",
        False,
    ),
    Case(
        "index_on_partitioned",
        "CREATE INDEX events_kind_idx ON events (kind);",
        True,
    ),
    # --- maintenance ---------------------------------------------------------------------------
    Case(
        "vacuum_analyze",
        "VACUUM ANALYZE orders;",
        False,
    ),
    Case(
        "vacuum_full",
        "VACUUM FULL staging;",
        True,
    ),
    Case(
        "cluster",
        "CLUSTER orders USING orders_pkey;",
        True,
    ),
    Case(
        "set_storage_params",
        "ALTER TABLE orders SET (autovacuum_vacuum_scale_factor = 0.01);",
        False,
    ),
    Case(
        "set_unlogged",
        "ALTER TABLE staging SET UNLOGGED;",
        True,
    ),
    Case(
        "statistics",
        "ALTER TABLE users ALTER COLUMN region SET STATISTICS 1000;\nANALYZE users;",
        False,
    ),
    # --- mixed, many statements --------------------------------------------------------------
    Case(
        "release_bundle_safe",
        """SET lock_timeout = '5s';
CREATE TABLE IF NOT EXISTS flow_state (
  id uuid PRIMARY KEY,
  user_id bigint NULL,
  auth_code text NOT NULL,
  created_at timestamptz NULL
);
CREATE INDEX IF NOT EXISTS idx_auth_code ON flow_state (auth_code);
ALTER TABLE users ADD COLUMN IF NOT EXISTS banned_until timestamptz NULL;
COMMENT ON TABLE flow_state IS 'stores metadata for pkce logins';""",
        False,
    ),
    Case(
        "release_bundle_heavy",
        """ALTER TABLE orders ADD COLUMN IF NOT EXISTS vendor_type varchar(16);
UPDATE orders SET vendor_type = 'x' FROM users WHERE orders.user_id = users.id;
ALTER TABLE orders ALTER COLUMN vendor_type SET NOT NULL;
ALTER TABLE users ADD COLUMN IF NOT EXISTS update_time timestamp;""",
        True,
    ),
    Case(
        "release_bundle_drop_and_create",
        """DROP TABLE IF EXISTS staging;
CREATE TABLE staging (id bigint PRIMARY KEY, kind text NOT NULL, at date);
CREATE INDEX staging_kind ON staging (kind);""",
        True,
    ),
    Case(
        "create_and_fill_new_table",
        """CREATE TABLE user_regions AS SELECT id, region FROM users;
ALTER TABLE user_regions ADD PRIMARY KEY (id);
CREATE INDEX user_regions_region ON user_regions (region);""",
        False,
    ),
    Case(
        "rename_via_view",
        """ALTER TABLE staging RENAME TO imports;
CREATE VIEW staging AS SELECT * FROM imports;""",
        False,
    ),
    Case(
        "explicit_transactions",
        """BEGIN;
ALTER TABLE users ADD COLUMN locale text;
COMMIT;
BEGIN;
UPDATE users SET locale = 'en' WHERE id = 1;
COMMIT;""",
        False,
    ),
    Case(
        "drop_view_and_matview",
        """DROP VIEW IF EXISTS active_users;
DROP MATERIALIZED VIEW IF EXISTS user_counts;""",
        True,
    ),
    Case(
        "set_schema",
        """CREATE SCHEMA IF NOT EXISTS archive;
ALTER TABLE staging SET SCHEMA archive;""",
        True,
    ),
    Case(
        "sequence_bookkeeping",
        """CREATE SEQUENCE IF NOT EXISTS invoice_number_seq START 1000;
SELECT setval('invoice_number_seq', 2000);
ALTER SEQUENCE invoice_number_seq RESTART WITH 3000;""",
        False,
    ),
    Case(
        "domain_not_null_set",
        "ALTER DOMAIN email_address SET NOT NULL;",
        True,
    ),
    Case(
        "domain_validate",
        """ALTER DOMAIN label ADD CONSTRAINT label_short CHECK (length(VALUE) < 50) NOT VALID;
COMMIT;
ALTER DOMAIN label VALIDATE CONSTRAINT label_short;""",
        True,
    ),
    Case(
        "pk_using_index_not_null",
        """ALTER TABLE staging ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX CONCURRENTLY staging_id_key ON staging (id);""",
        True,
    ),
    Case(
        "add_check_and_set_not_null_together",
        "ALTER TABLE orders ADD CONSTRAINT orders_note_nn CHECK (note IS NOT NULL) NOT VALID, "
        "ALTER COLUMN amount SET DEFAULT 0;",
        True,
    ),
    Case(
        "ctas_with_no_data",
        "CREATE TABLE users_backup AS SELECT * FROM users WITH NO DATA;",
        False,
    ),
    Case(
        "select_into_temp",
        """CREATE TEMP TABLE tmp_ids AS SELECT id FROM orders WHERE amount > 490;
DELETE FROM orders WHERE id IN (SELECT id FROM tmp_ids) AND amount > 495;""",
        False,
    ),
    # --- shapes that need care -------------------------------------------------------------
    Case(
        "check_on_new_column_same_statement",
        "ALTER TABLE users ADD COLUMN score int, ADD CONSTRAINT users_score_check CHECK (score > 0);",
        True,
    ),
    Case(
        "text_to_bounded_varchar",
        "ALTER TABLE orders ALTER COLUMN note SET DATA TYPE varchar(500);",
        True,
    ),
    Case(
        "unique_index_if_not_exists_existing",
        "CREATE UNIQUE INDEX IF NOT EXISTS users_pkey ON users (id);",
        False,
    ),
    Case(
        "alter_only_and_if_exists",
        """ALTER TABLE ONLY users ADD CONSTRAINT users_age_check CHECK (age >= 0) NOT VALID;
ALTER TABLE IF EXISTS users ADD COLUMN nickname text;""",
        False,
    ),
    Case(
        "quoted_identifiers",
        'ALTER TABLE "users" ADD COLUMN "DisplayName" text;\nCREATE INDEX "users_DisplayName" ON "users" ("DisplayName");',
        True,
    ),
    Case(
        "gin_expression_index",
        "CREATE INDEX users_name_fts ON users USING gin (to_tsvector('english', coalesce(name, '')));",
        True,
    ),
    Case(
        "using_cast_to_same_target",
        "ALTER TABLE users ALTER COLUMN status TYPE varchar(20) USING status::varchar(20);",
        True,
    ),
    Case(
        "type_change_on_partitioned",
        "ALTER TABLE events ALTER COLUMN kind TYPE varchar(50);",
        True,
    ),
    Case(
        "add_column_current_date_not_null",
        "ALTER TABLE orders ADD COLUMN created date DEFAULT CURRENT_DATE NOT NULL;",
        False,
    ),
    Case(
        "update_with_subquery",
        "UPDATE users SET status = 'big' WHERE id IN (SELECT user_id FROM orders WHERE amount > 490);",
        False,
    ),
    Case(
        "delete_using",
        "DELETE FROM staging USING users WHERE staging.id = users.id AND users.age > 85;",
        False,
    ),
    Case(
        "insert_select_same_table",
        "INSERT INTO staging (id, kind, at) SELECT id + 100000, kind, at FROM staging WHERE id < 10;",
        False,
    ),
    Case(
        "cte_move_rows",
        """WITH moved AS (DELETE FROM staging WHERE at < '2000-01-01' RETURNING id, kind, at)
INSERT INTO events (id, kind, at) SELECT id, kind, at FROM moved;""",
        False,
    ),
    Case(
        "default_and_not_null_together",
        "ALTER TABLE users ALTER COLUMN age SET DEFAULT 0, ALTER COLUMN age SET NOT NULL;",
        True,
    ),
    Case(
        "timestamp_precision_down",
        "ALTER TABLE contacts ALTER COLUMN seen SET DATA TYPE timestamp(0);",
        True,
    ),
    Case(
        "timestamptz_using_at_time_zone",
        "ALTER TABLE contacts ALTER COLUMN seen TYPE timestamptz USING seen AT TIME ZONE 'UTC';",
        True,
    ),
    Case(
        "session_settings_first",
        """SET statement_timeout = 0;
SELECT pg_advisory_xact_lock(42);
ALTER TABLE orders ADD COLUMN archived boolean DEFAULT false;""",
        False,
    ),
    Case(
        "comments_with_semicolons",
        """-- step 1; add the column
/* then; index it */
ALTER TABLE staging ADD COLUMN batch int; -- trailing; comment
COMMENT ON COLUMN staging.batch IS 'import batch; set by the loader';""",
        False,
    ),
    Case(
        "function_with_tagged_body",
        """CREATE OR REPLACE FUNCTION touch_orders() RETURNS trigger AS $body$
BEGIN
  NEW.note := 'touched';
  RETURN NEW;
END;
$body$ LANGUAGE plpgsql;""",
        False,
    ),
    Case(
        "generated_tsvector",
        "ALTER TABLE users ADD COLUMN search tsvector GENERATED ALWAYS AS "
        "(to_tsvector('simple', coalesce(name, ''))) STORED;",
        True,
    ),
    Case(
        "swap_column",
        """ALTER TABLE staging ADD COLUMN id2 bigint;
UPDATE staging SET id2 = id;
ALTER TABLE staging DROP COLUMN id;
ALTER TABLE staging RENAME COLUMN id2 TO id;""",
        True,
    ),
    Case(
        "new_partitioned_table",
        """CREATE TABLE shards (id int, v text) PARTITION BY LIST (id);
CREATE TABLE shards_1 PARTITION OF shards FOR VALUES IN (1);
CREATE INDEX shards_v ON shards (v);""",
        False,
    ),
    Case(
        "replace_primary_key",
        "ALTER TABLE users DROP CONSTRAINT users_pkey, ADD PRIMARY KEY (id, email);",
        True,
    ),
    Case(
        "add_existing_column_if_not_exists",
        "ALTER TABLE orders ADD COLUMN IF NOT EXISTS note text;",
        False,
    ),
    Case(
        "create_existing_index_if_not_exists",
        "CREATE INDEX IF NOT EXISTS orders_user_id_idx ON orders (user_id);",
        False,
    ),
    Case(
        "drop_missing_table",
        "DROP TABLE IF EXISTS never_created;",
        False,
    ),
    Case(
        "index_metadata",
        """COMMENT ON INDEX orders_user_id_idx IS 'by user';
ALTER TABLE orders REPLICA IDENTITY FULL;
ALTER TABLE orders ALTER COLUMN note SET STORAGE EXTERNAL;
ALTER TABLE users ALTER COLUMN name SET COMPRESSION pglz;""",
        False,
    ),
    Case(
        "materialized_view_with_data",
        "CREATE MATERIALIZED VIEW IF NOT EXISTS order_counts AS SELECT user_id, count(*) FROM orders GROUP BY user_id WITH DATA;",
        False,
    ),
    Case(
        "rename_materialized_view",
        "ALTER MATERIALIZED VIEW user_counts RENAME TO region_counts;",
        True,
    ),
    Case(
        "primary_key_on_partitioned",
        "ALTER TABLE events ADD CONSTRAINT events_pk PRIMARY KEY (id, at);",
        True,
    ),
    Case(
        "do_labels_nested_blocks",
        """DO $do$
<<outer>>
DECLARE
  n int;
BEGIN
  SELECT count(*) INTO n FROM orders WHERE id = 3;
  BEGIN
    UPDATE orders SET note = 'checked' WHERE id = 3;
  EXCEPTION WHEN others THEN
    RAISE NOTICE 'skipped';
  END;
  CASE WHEN n > 0 THEN
    PERFORM pg_sleep(0);
  ELSE
    NULL;
  END CASE;
END outer
$do$;""",
        False,
    ),
    Case(
        "do_language_first",
        "DO LANGUAGE plpgsql $$ BEGIN UPDATE staging SET kind = 'k2' WHERE id = 1; END $$;",
        False,
    ),
    Case(
        "collation_no_index",
        'ALTER TABLE staging ALTER COLUMN kind TYPE text COLLATE "C";',
        False,
    ),
    Case(
        "collation_with_index",
        'ALTER TABLE contacts ALTER COLUMN code TYPE varchar(20) COLLATE "C";',
        True,
    ),
)
