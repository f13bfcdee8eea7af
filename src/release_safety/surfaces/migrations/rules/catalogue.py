# ruff: noqa: E501
"""Every migration rule: id, severity, title, why, unsafe and safe SQL, and its examples.

An example is a whole migration run on the verification schema (tables `users`, `orders`,
`staging`, the partitioned `events`, the view `active_users`, the materialized view
`user_counts`, the enums `mood` and `priority`, all with rows). `heavy` lists the flags
PostgreSQL shows for it (`l` locksTable, `r` rewritesTable, `s` scansTable); `error` means
PostgreSQL refuses it on a table with rows; `unknown` means the text cannot say. `tables` are
the tables the analysis reports; `unseen` are tables PostgreSQL locks that the text does not
name (an index's table, a materialized view's sources). The test suite runs every example with
`pg=True` on a real server and compares.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from release_safety.contract.finding import Rule, register
from release_safety.contract.kinds import Severity
from release_safety.surfaces.migrations.budget import (
    MAX_CPU_SECONDS,
    MAX_FILE_CHARS,
    MAX_STATEMENTS,
)
from release_safety.surfaces.migrations.rules.ids import RuleId


@dataclass(frozen=True)
class Example:
    """A migration, the flags PostgreSQL shows for it, the tables the analysis reports, and
    whether the rule it illustrates fires on it (`fires`) or stays quiet."""

    sql: str
    heavy: str = ""
    tables: tuple[str, ...] = ()
    unseen: tuple[str, ...] = ()
    pg: bool = True
    fires: bool = True
    shown: str | None = None
    """What the docs show, when the SQL itself is too long to print."""
    engine: str = "postgres"
    """The database engine the example runs on (its judge: `engines/`)."""

    def with_engine(self, engine: str) -> Example:
        return replace(self, engine=engine)


@dataclass(frozen=True)
class MigrationRule:
    """A rule with its examples. A `release` rule judges the release's list of migration
    files (one edited after it shipped), not a migration's SQL: it has no SQL examples."""

    rule: Rule
    examples: tuple[Example, ...] = ()
    release: bool = False

    @property
    def id(self) -> str:
        return self.rule.id


def _rule(
    id: str,
    severity: Severity,
    title: str,
    why: str,
    unsafe: str,
    safe: str,
    *examples: Example,
    release: bool = False,
) -> MigrationRule:
    rule = Rule(
        id=id,
        surface="migrations",
        severity=severity,
        title=title,
        why=why,
        unsafe=unsafe,
        safe=safe,
    )
    return MigrationRule(register(rule), examples, release)


E = Example
U = ("users",)
C = ("contacts",)


def Q(
    sql: str,
    heavy: str = "",
    tables: tuple[str, ...] = (),
    unseen: tuple[str, ...] = (),
    pg: bool = True,
) -> Example:
    """An example the rule stays quiet on."""
    return Example(sql, heavy, tables, unseen, pg, fires=False)


AEL_NOTE = "ACCESS EXCLUSIVE"

CATALOGUE: tuple[MigrationRule, ...] = (
    # --- breaking: the previous release's code stops working -------------------------------
    _rule(
        RuleId.DROP_TABLE,
        "breaking",
        "A table (or partition) is dropped",
        "The previous release still reads and writes it until it is gone from every pod.",
        "DROP TABLE staging;",
        "Stop using the table in one release; drop it in a later one.",
        E("DROP TABLE staging", "", ("staging",)),
        E("DROP TABLE IF EXISTS staging, orders CASCADE", "", ("orders", "staging")),
        E("ALTER TABLE events DETACH PARTITION events_2024", "", ("events", "events_2024")),
        E("ALTER TABLE staging NO INHERIT users", "", ("staging", "users"), pg=False),
        Q("CREATE TABLE scratch (id int);\nDROP TABLE scratch", "", ("scratch",)),
        # the earlier migrations never made it: old code cannot use it (DROP ... CREATE)
        Q("DROP TABLE IF EXISTS never_made", "", ("never_made",), pg=False),
        E("DROP TABLE IF EXISTS users", "", U, pg=False).with_engine("mysql"),
        Q("DROP TABLE IF EXISTS never_made", "", ("never_made",), pg=False).with_engine("mysql"),
    ),
    _rule(
        RuleId.DROP_COLUMN,
        "breaking",
        "A column is dropped",
        "Old code still selects or inserts the column; its queries fail once it is gone.",
        "ALTER TABLE users DROP COLUMN age;",
        "Stop reading and writing the column one release before dropping it.",
        E("ALTER TABLE users DROP COLUMN age", "", U),
        E("ALTER TABLE users DROP COLUMN IF EXISTS age CASCADE", "", U),
        E(
            "ALTER TABLE users ADD COLUMN a text, ADD COLUMN b int DEFAULT 0, DROP COLUMN age",
            "",
            U,
        ),
        E("ALTER TABLE events DROP COLUMN kind", "", ("events",)),
        Q(
            "CREATE TABLE scratch (id int, tmp text);\nALTER TABLE scratch DROP COLUMN tmp",
            "",
            ("scratch",),
        ),
        Q(
            "ALTER TABLE users ADD COLUMN scratch text;\nALTER TABLE users DROP COLUMN scratch",
            "",
            U,
        ),
    ),
    _rule(
        RuleId.RENAME_TABLE,
        "breaking",
        "A table is renamed",
        "Old code queries the old name.",
        "ALTER TABLE staging RENAME TO imports;",
        "Create the new table (or a view under the new name), move code, drop the old later.",
        E("ALTER TABLE staging RENAME TO staging_old", "", ("staging",)),
        Q(
            "CREATE TABLE scratch (id int);\nALTER TABLE scratch RENAME TO scratch2",
            "",
            ("scratch", "scratch2"),
        ),
    ),
    _rule(
        RuleId.RENAME_COLUMN,
        "breaking",
        "A column is renamed",
        "Old code selects and inserts the old column name.",
        "ALTER TABLE users RENAME COLUMN name TO full_name;",
        "Add the new column, write both, backfill, switch reads, drop the old one later.",
        E("ALTER TABLE users RENAME COLUMN name TO full_name", "", U),
        E("ALTER TABLE users RENAME name TO display_name", "", U),
        Q(
            "ALTER TABLE users ADD COLUMN nick text;\nALTER TABLE users RENAME COLUMN nick TO nickname",
            "",
            U,
        ),
    ),
    _rule(
        RuleId.DROP_VIEW,
        "breaking",
        "A view or materialized view is dropped",
        "Old code still queries it.",
        "DROP VIEW active_users;",
        "Stop using the view one release before dropping it.",
        E("DROP VIEW active_users", "", ("active_users",)),
        E("DROP MATERIALIZED VIEW user_counts", "", ("user_counts",)),
        E("DROP VIEW IF EXISTS active_users CASCADE", "", ("active_users",)),
        Q(
            "CREATE VIEW recent_users AS SELECT id FROM users;\nDROP VIEW recent_users",
            "",
            ("recent_users", "users"),
        ),
    ),
    _rule(
        RuleId.RENAME_VIEW,
        "breaking",
        "A view is renamed",
        "Old code queries the old name.",
        "ALTER VIEW active_users RENAME TO live_users;",
        "Create the new view beside the old one; drop the old one a release later.",
        E("ALTER VIEW active_users RENAME TO live_users", "", ("active_users",)),
        Q(
            "CREATE VIEW recent_users AS SELECT id FROM users;\n"
            "ALTER VIEW recent_users RENAME TO new_users",
            "",
            ("new_users", "recent_users", "users"),
        ),
    ),
    _rule(
        RuleId.DROP_TYPE,
        "breaking",
        "A type or domain is dropped or loses an attribute",
        "Old code casts to the type or relies on its shape.",
        "DROP TYPE priority;",
        "Stop using the type one release before dropping it.",
        E("DROP TYPE priority", "", ()),
        E("DROP TYPE IF EXISTS priority", "", ()),
        Q("CREATE TYPE level AS ENUM ('low');\nDROP TYPE level", "", ()),
    ),
    _rule(
        RuleId.RENAME_TYPE,
        "breaking",
        "A type is renamed",
        "Old code casts to the old name.",
        "ALTER TYPE priority RENAME TO level;",
        "Create the new type, migrate columns, drop the old type later.",
        E("ALTER TYPE priority RENAME TO level", "", ()),
        Q("CREATE TYPE level AS ENUM ('low');\nALTER TYPE level RENAME TO tier", "", ()),
    ),
    _rule(
        RuleId.RENAME_ENUM_VALUE,
        "breaking",
        "An enum value is renamed",
        "Old code writes the old label and gets `invalid input value for enum`.",
        "ALTER TYPE mood RENAME VALUE 'sad' TO 'unhappy';",
        "Add the new value, move rows and code to it, stop using the old one.",
        E("ALTER TYPE mood RENAME VALUE 'sad' TO 'unhappy'", "", ()),
        Q("ALTER TYPE mood ADD VALUE 'calm'", "", ()),
        Q(
            "CREATE TYPE level AS ENUM ('low');\nALTER TYPE level RENAME VALUE 'low' TO 'lo'",
            "",
            (),
        ),
    ),
    _rule(
        RuleId.SET_SCHEMA,
        "breaking",
        "A table, view or type moves to another schema",
        "Old code finds it by its old qualified name or search path.",
        "ALTER TABLE staging SET SCHEMA archive;",
        "Leave the object where it is, or expose it under the old name during the rollout.",
        E(
            "CREATE SCHEMA IF NOT EXISTS archive;\nALTER TABLE staging SET SCHEMA archive",
            "",
            ("staging",),
        ),
        Q(
            "CREATE SCHEMA IF NOT EXISTS archive;\nCREATE TABLE scratch (id int);\n"
            "ALTER TABLE scratch SET SCHEMA archive",
            "",
            ("scratch",),
        ),
        E("ALTER SEQUENCE invoice_numbers SET SCHEMA legacy", "", ()),
        E("ALTER FUNCTION full_name(text, text) SET SCHEMA legacy", "", ()),
    ),
    _rule(
        RuleId.RENAME_SCHEMA,
        "breaking",
        "A schema is renamed",
        "Every qualified name old code uses in that schema breaks.",
        "ALTER SCHEMA app RENAME TO core;",
        "Keep the schema name; move objects one by one with compatible views.",
        E("ALTER SCHEMA legacy RENAME TO legacy_old", "", ()),
        Q("CREATE SCHEMA reporting;\nALTER SCHEMA reporting RENAME TO reports", "", ()),
    ),
    _rule(
        RuleId.DROP_SCHEMA,
        "breaking",
        "A schema is dropped",
        "Everything old code uses in it disappears.",
        "DROP SCHEMA legacy CASCADE;",
        "Empty the schema over releases first; drop it once nothing uses it.",
        E("DROP SCHEMA legacy CASCADE", "", ()),
        Q("CREATE SCHEMA reporting;\nDROP SCHEMA reporting", "", ()),
    ),
    _rule(
        RuleId.DROP_OBJECT,
        "breaking",
        "An object old code may use is dropped",
        "A sequence, function, procedure, foreign table, extension (its types and functions, "
        "and with CASCADE the columns of those types), foreign server, database, or "
        "everything a role owns: old code calling `nextval`, the function or the table fails.",
        "DROP SEQUENCE invoice_numbers;",
        "Ship a release whose code no longer uses it; drop it in the release after that.",
        E("DROP SEQUENCE invoice_numbers", "", ()),
        E("DROP FUNCTION full_name(text, text)", "", ()),
        E("DROP FOREIGN TABLE IF EXISTS remote_users", "", ("remote_users",), pg=False),
        E("DROP EXTENSION IF EXISTS citext CASCADE", "", (), pg=False),
        E("DROP OWNED BY reporting_role", "", (), pg=False),
        Q("CREATE SEQUENCE fresh_numbers;\nDROP SEQUENCE fresh_numbers", "", ()),
        E(
            "CREATE OR REPLACE FUNCTION full_name(first text, last text) RETURNS text "
            "LANGUAGE sql AS 'SELECT last';\nDROP FUNCTION full_name(text, text)",
            "",
            (),
        ),
        Q(
            "CREATE FUNCTION shout(t text) RETURNS text LANGUAGE sql AS 'SELECT upper(t)';\n"
            "DROP FUNCTION shout(text)",
            "",
            (),
        ),
        E("ALTER FUNCTION full_name(text, text) RENAME TO display_name", "", ()),
        E("DROP ROLE IF EXISTS previous_release_app", "", ()),
        E("DROP COLLATION IF EXISTS german_phonebook", "", ()),
        Q("DROP PUBLICATION IF EXISTS changes", "", ()),
    ),
    _rule(
        RuleId.SET_NOT_NULL,
        "breaking",
        "A column becomes NOT NULL",
        "Old code that omits the column inserts NULL and fails; without a validated CHECK "
        "(col IS NOT NULL) the statement also reads every row under ACCESS EXCLUSIVE.",
        "ALTER TABLE users ALTER COLUMN email SET NOT NULL;",
        "Ship code that always writes the column first; then ADD CONSTRAINT ... CHECK (email IS "
        "NOT NULL) NOT VALID, VALIDATE CONSTRAINT in its own transaction, then SET NOT NULL "
        "(PostgreSQL 12+ skips the scan).",
        E("ALTER TABLE users ALTER COLUMN email SET NOT NULL", "ls", U),
        E("ALTER TABLE users ALTER email SET NOT NULL, ALTER name SET NOT NULL", "ls", U),
        E(
            "ALTER TABLE users ADD CONSTRAINT users_email_nn CHECK (email IS NOT NULL) NOT VALID;\n"
            "COMMIT;\nALTER TABLE users VALIDATE CONSTRAINT users_email_nn;\nCOMMIT;\n"
            "ALTER TABLE users ALTER COLUMN email SET NOT NULL",
            "s",
            U,
        ),
        E(
            "ALTER TABLE users ADD CONSTRAINT users_email_nn CHECK (email IS NOT NULL);\n"
            "ALTER TABLE users ALTER COLUMN email SET NOT NULL",
            "ls",
            U,
        ),
        E(
            "ALTER TABLE users ADD CONSTRAINT users_email_nn CHECK (email IS NOT NULL) NOT VALID, "
            "ALTER COLUMN email SET NOT NULL",
            "ls",
            U,
        ),
        E("ALTER DOMAIN label SET NOT NULL", "ls", C),
        Q("ALTER TABLE contacts ALTER COLUMN tag SET NOT NULL", "", C),
        Q("ALTER TABLE contacts ALTER COLUMN code SET NOT NULL", "", C),
        Q(
            "ALTER TABLE contacts ALTER COLUMN code DROP NOT NULL;\n"
            "ALTER TABLE contacts ALTER COLUMN code SET NOT NULL",
            "ls",
            C,
        ),
        Q(
            "ALTER TABLE users ADD COLUMN tier text DEFAULT 'free';\n"
            "ALTER TABLE users ALTER COLUMN tier SET NOT NULL",
            "ls",
            U,
        ),
    ),
    _rule(
        RuleId.ADD_NOT_NULL_COLUMN_WITHOUT_DEFAULT,
        "breaking",
        "A NOT NULL column is added without a default",
        "Old code inserts rows without the column and fails; on a table with rows the "
        "statement itself fails.",
        "ALTER TABLE users ADD COLUMN plan text NOT NULL;",
        "Add it with a constant DEFAULT (no rewrite since PostgreSQL 11), or nullable first.",
        E("ALTER TABLE users ADD COLUMN plan text NOT NULL", "error", U),
        E("ALTER TABLE users ADD COLUMN plan_id int NOT NULL", "error", U),
        Q("ALTER TABLE users ADD COLUMN plan text NOT NULL DEFAULT 'free'", "", U),
    ),
    _rule(
        RuleId.ADD_PRIMARY_KEY_NULLABLE_COLUMN,
        "breaking",
        "A primary key is added on a nullable column",
        "A primary key makes its columns NOT NULL: old code that leaves them out fails.",
        "ALTER TABLE staging ADD COLUMN code text;\nALTER TABLE staging ADD PRIMARY KEY (code);",
        "Fill the column and make code always write it before adding the key.",
        E("ALTER TABLE staging ADD PRIMARY KEY (id)", "ls", ("staging",)),
        E(
            "CREATE UNIQUE INDEX CONCURRENTLY staging_id_idx ON staging (id);\n"
            "ALTER TABLE staging ADD PRIMARY KEY USING INDEX staging_id_idx",
            "ls",
            ("staging",),
        ),
        Q(
            "CREATE UNIQUE INDEX CONCURRENTLY contacts_code_key ON contacts (code);\n"
            "ALTER TABLE contacts DROP CONSTRAINT contacts_pkey, "
            "ADD PRIMARY KEY USING INDEX contacts_code_key",
            "s",
            ("contacts",),
        ),
        Q(
            "ALTER TABLE staging ADD COLUMN code text;\nALTER TABLE staging ADD PRIMARY KEY (code)",
            "error",
            ("staging",),
        ),
    ),
    _rule(
        RuleId.DROP_DEFAULT_NOT_NULL_COLUMN,
        "breaking",
        "The default of a NOT NULL column is dropped",
        "Old code that omits the column relied on the default; its inserts now fail.",
        "ALTER TABLE users ALTER COLUMN tier DROP DEFAULT;",
        "Ship code that always writes the column first, then drop the default.",
        E("ALTER TABLE users ALTER COLUMN created_at DROP DEFAULT", "", U),
        E("ALTER TABLE contacts ALTER COLUMN score DROP DEFAULT", "", C),
        E(
            "ALTER TABLE users ADD COLUMN tier text NOT NULL DEFAULT 'free';\n"
            "ALTER TABLE users ALTER COLUMN tier DROP DEFAULT",
            "",
            U,
        ),
        Q(
            "ALTER TABLE users ADD COLUMN tier text DEFAULT 'free';\n"
            "ALTER TABLE users ALTER COLUMN tier DROP DEFAULT",
            "",
            U,
        ),
        Q("ALTER TABLE contacts ALTER COLUMN note DROP DEFAULT", "", C),
        E(
            "ALTER TABLE contacts ALTER COLUMN score DROP DEFAULT;\nCOMMIT;\n"
            "ALTER TABLE contacts ALTER COLUMN score DROP NOT NULL",
            "",
            C,
        ),
        Q(
            "ALTER TABLE contacts ALTER COLUMN score DROP DEFAULT;\n"
            "ALTER TABLE contacts ALTER COLUMN score DROP NOT NULL;\n"
            "ALTER TABLE contacts ALTER COLUMN score TYPE integer USING (score::integer)",
            "",
            C,
        ),
        Q(
            "ALTER TABLE contacts ALTER COLUMN score DROP DEFAULT;\n"
            "ALTER TABLE contacts ALTER COLUMN score SET DEFAULT 1",
            "",
            C,
        ),
    ),
    _rule(
        RuleId.CHANGE_COLUMN_TYPE,
        "breaking",
        "A column changes type",
        "Old code sends parameters and reads values of the old type: a narrower or different "
        "type rejects them. Unless the change is a known binary-compatible widening the table is "
        "also rewritten under ACCESS EXCLUSIVE (the analysis cannot see the old type, so it "
        "reports the rewrite).",
        "ALTER TABLE users ALTER COLUMN age TYPE bigint;",
        "Add a column of the new type, write both, backfill in batches, switch, drop the old.",
        Q("ALTER TABLE users ALTER COLUMN age TYPE bigint", "lrs", U),
        E("ALTER TABLE users ALTER COLUMN age SET DATA TYPE numeric(12,2)", "lrs", U),
        E("ALTER TABLE orders ALTER COLUMN amount TYPE numeric(12,4)", "lrs", ("orders",)),
        E("ALTER TABLE users ALTER COLUMN status TYPE varchar(10)", "lrs", U),
        Q("ALTER TABLE users ALTER COLUMN mood TYPE text", "lrs", U),
        Q("ALTER TABLE users ADD COLUMN a text, ALTER COLUMN age TYPE bigint", "lrs", U),
        E("ALTER TABLE events ALTER COLUMN id TYPE numeric", "lrs", ("events",)),
        E("ALTER TABLE users ALTER COLUMN age TYPE text", "lrs", U),
        E("ALTER TABLE users ALTER COLUMN status TYPE int USING status::int", "error", U),
        E("ALTER TABLE orders ALTER COLUMN user_id TYPE int", "lrs", ("orders",)),
        E("ALTER TABLE users ALTER COLUMN name TYPE varchar(20)", "lrs", U),
        Q("ALTER TABLE users ALTER COLUMN name TYPE varchar(200)", "", U),
        Q("ALTER TABLE members ALTER COLUMN id TYPE varchar(36)", "lrs", ("members",)),
        Q("ALTER TABLE members ALTER COLUMN id TYPE text", "lrs", ("members",)),
        Q("ALTER TABLE contacts ALTER COLUMN seen TYPE timestamptz", "ls", C),
    ),
    _rule(
        RuleId.CHECK_REJECTS_OLD_WRITES,
        "breaking",
        "A CHECK rejects what the previous release's code writes",
        "A CHECK applies to new writes at once (NOT VALID only skips the existing rows): one "
        "that rejects the column's default fails old inserts that leave the column out, and "
        "one that allows fewer values than before fails old code writing the values dropped.",
        "ALTER TABLE members ADD CONSTRAINT members_plan_check CHECK (plan IN ('pro', 'team')) NOT VALID;",
        "Ship code that stops writing the values (and writes the column) first; narrow the CHECK "
        "a release later.",
        E(
            "ALTER TABLE members ADD CONSTRAINT members_plan_check CHECK (plan IN ('pro', 'team')) NOT VALID",
            "",
            ("members",),
        ),
        E(
            "ALTER TABLE members DROP CONSTRAINT members_kind_check, "
            "ADD CONSTRAINT members_kind_check CHECK (kind IN ('a', 'b'))",
            "ls",
            ("members",),
        ),
        E(
            "ALTER TABLE members ADD CONSTRAINT members_nick_check CHECK ((nick)::text <> 'x'::text) NOT VALID",
            "",
            ("members",),
        ),
        Q(
            "ALTER TABLE members ADD CONSTRAINT members_plan_check CHECK (plan = ANY (ARRAY['free'::text, 'pro'::text]))",
            "ls",
            ("members",),
        ),
        Q(
            "ALTER TABLE members DROP CONSTRAINT members_kind_check, "
            "ADD CONSTRAINT members_kind_check CHECK (kind IN ('a', 'b', 'c', 'd'))",
            "ls",
            ("members",),
        ),
        Q(
            "ALTER TABLE members ADD CONSTRAINT members_nick_check CHECK (length(nick) < 9)",
            "ls",
            ("members",),
        ),
    ),
    _rule(
        RuleId.REVOKE_PRIVILEGES,
        "breaking",
        "Privileges are revoked",
        "Old code running as that role loses access mid-rollout.",
        "REVOKE INSERT ON users FROM app;",
        "Revoke only after no released code needs the privilege.",
        E("REVOKE INSERT ON users FROM PUBLIC", "", ()),
        E("REVOKE ALL ON orders FROM PUBLIC", "", ()),
        Q("GRANT SELECT ON users TO PUBLIC", "", ()),
        E("ALTER TABLE orders OWNER TO CURRENT_USER", "", ("orders",)),
        E("ALTER FUNCTION full_name(text, text) OWNER TO CURRENT_USER", "", ()),
    ),
    _rule(
        RuleId.TERMINATE_SESSIONS,
        "breaking",
        "A migration ends other sessions or cancels their queries",
        "pg_terminate_backend() closes the connections it selects and pg_cancel_backend() "
        "cancels their running statements: the previous release's pods lose their "
        "connections (and the transactions open on them) or see their queries fail mid-rollout.",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid();",
        "Let the migration wait for its locks under lock_timeout, fail and be retried, instead "
        "of ending the sessions that hold them.",
        E(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'previous-release' AND pid <> pg_backend_pid()",
            "",
            (),
        ),
        E(
            "SELECT pg_catalog.pg_cancel_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'previous-release'",
            "",
            (),
        ),
        Q("SELECT pid, state FROM pg_stat_activity WHERE application_name = 'previous-release'"),
    ),
    _rule(
        RuleId.TRIGGER_REFUSES_WRITES,
        "breaking",
        "A new trigger on a table old code writes may refuse its writes",
        "A trigger whose function raises an exception aborts the statement that fired it, and "
        "a BEFORE row trigger that returns NULL skips the row: the previous release's inserts "
        "and updates, written before the trigger existed, fail or vanish mid-rollout. So does "
        "an existing trigger function replaced (CREATE OR REPLACE) by one that refuses. The "
        "function is read from the body the migrations gave it; a trigger whose function they "
        "do not show is `schema-fact-unknown`.",
        "CREATE TRIGGER users_email_required BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION users_email_required();",
        "Create the trigger in the release after the one whose code meets what it demands.",
        E(
            "CREATE FUNCTION users_email_required() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            "BEGIN\n  IF NEW.email IS NULL THEN\n    RAISE EXCEPTION 'email required';\n"
            "  END IF;\n  RETURN NEW;\nEND $$;\n"
            "CREATE TRIGGER users_email_required BEFORE INSERT OR UPDATE ON users\n"
            "  FOR EACH ROW EXECUTE FUNCTION users_email_required()",
            "",
            U,
        ),
        E(
            "CREATE FUNCTION orders_frozen() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            "BEGIN\n  RETURN NULL;\nEND $$;\n"
            "CREATE TRIGGER orders_frozen BEFORE INSERT ON orders\n"
            "  FOR EACH ROW EXECUTE FUNCTION orders_frozen()",
            "",
            ("orders",),
        ),
        Q(
            "CREATE FUNCTION users_touched() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            "BEGIN\n  NEW.created_at := now();\n  RAISE NOTICE 'touched %', NEW.id;\n"
            "  RETURN NEW;\nEND $$;\n"
            "CREATE TRIGGER users_touched BEFORE UPDATE ON users\n"
            "  FOR EACH ROW EXECUTE FUNCTION users_touched()",
            "",
            U,
        ),
        Q(
            "CREATE TABLE teams (id bigint PRIMARY KEY, name text);\n"
            "CREATE FUNCTION teams_named() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            "BEGIN\n  RAISE EXCEPTION 'name required';\nEND $$;\n"
            "CREATE TRIGGER teams_named BEFORE INSERT ON teams\n"
            "  FOR EACH ROW EXECUTE FUNCTION teams_named()",
            "",
            ("teams",),
        ),
    ),
    _rule(
        RuleId.ALTER_SEQUENCE,
        "breaking",
        "A sequence old code draws from is restarted, renamed or bounded",
        "RESTART hands out ids the table already holds (old code's inserts fail on the "
        "primary key), a new name fails old code's `nextval('name')`, and MAXVALUE, MINVALUE "
        "or AS a smaller type can make its next nextval fail.",
        "ALTER SEQUENCE invoice_numbers RESTART;",
        "Restart it past every id it gave (RESTART WITH a value above max(id)) and keep its "
        "name and bounds until no released code uses them.",
        E("ALTER SEQUENCE invoice_numbers RESTART", "", ()),
        E("ALTER SEQUENCE invoice_numbers RENAME TO invoice_ids", "", ()),
        E("ALTER SEQUENCE IF EXISTS invoice_numbers MAXVALUE 1000", "", ()),
        Q("ALTER SEQUENCE invoice_numbers OWNED BY orders.id", "", ("orders",)),
        Q("ALTER SEQUENCE invoice_numbers CACHE 10", "", ()),
        Q("CREATE SEQUENCE ticket_numbers;\nALTER SEQUENCE ticket_numbers RESTART", "", ()),
    ),
    _rule(
        RuleId.DROP_IDENTITY,
        "breaking",
        "An identity column stops generating its values",
        "DROP IDENTITY removes the default old code relies on when it inserts without the "
        "column: the column stays NOT NULL, so those inserts fail.",
        "ALTER TABLE contacts ALTER COLUMN id DROP IDENTITY;",
        "Keep the identity until no released code inserts without the column; or set a default "
        "from a sequence in the same statement.",
        E("ALTER TABLE contacts ALTER COLUMN id DROP IDENTITY", "", C),
        E("ALTER TABLE contacts ALTER COLUMN id DROP IDENTITY IF EXISTS", "", C),
        Q(
            "ALTER TABLE users ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY;\n"
            "ALTER TABLE users ALTER COLUMN id DROP IDENTITY",
            "",
            U,
        ),
    ),
    _rule(
        RuleId.ENABLE_ROW_LEVEL_SECURITY,
        "breaking",
        "Row level security is turned on for a table",
        "From then on a role that does not own the table (or FORCE: any role) sees and writes "
        "only the rows a policy admits; without a policy for the role old code's queries "
        "return nothing and its writes fail.",
        "ALTER TABLE users ENABLE ROW LEVEL SECURITY;",
        "Create the policies old code's role needs first (or make sure it owns the table and "
        "bypasses RLS), then acknowledge the finding with that reason.",
        E("ALTER TABLE users ENABLE ROW LEVEL SECURITY", "", U),
        E("ALTER TABLE users FORCE ROW LEVEL SECURITY", "", U),
        Q("ALTER TABLE users DISABLE ROW LEVEL SECURITY", "", U),
        Q(
            "CREATE TABLE teams (id bigint PRIMARY KEY, owner text);\n"
            "ALTER TABLE teams ENABLE ROW LEVEL SECURITY",
            "",
            ("teams",),
        ),
    ),
    # --- breaking: traffic stops while the migration works --------------------------------
    _rule(
        RuleId.BLOCKING_TABLE_LOCK,
        "breaking",
        "A table that existed at the previous release is locked while every row is rewritten or "
        "read",
        "The migration holds a lock that blocks writes (SHARE or stronger; ACCESS EXCLUSIVE also "
        "blocks reads) for as long as work proportional to the table's rows takes: an index "
        "build, a validating constraint, a rewrite, a backfill in the same transaction. During "
        "a rolling update the previous release's pods queue behind it and time out: that is not "
        "safe to roll. This is the locksTable fact of the artifact; CONCURRENTLY, NOT VALID and "
        "brief metadata-only locks do not raise it. A table created earlier in the same release "
        "has no rows yet and does not count. For a table known to be small, acknowledge the "
        "finding inline, with a reason (see Acknowledgements). "
        "LOCK TABLE in such a mode raises it too (the lock is taken to be held to commit, for "
        "as long as the rest of the transaction takes), and so does a wait (pg_sleep) while "
        "one is held.",
        "CREATE INDEX users_email_idx ON users (email);",
        "Do the work without the blocking lock: CREATE INDEX CONCURRENTLY, ADD CONSTRAINT ... "
        "NOT VALID then VALIDATE CONSTRAINT, a new column backfilled in batches instead of a "
        "rewrite; or ship the migration in a release operators upgrade with Recreate.",
        E("CREATE INDEX users_email_idx ON users (email)", "ls", U),
        E(
            "-- release-safety: acknowledge(blocking-table-lock): users holds about 200 rows, "
            "one per operator\nCREATE INDEX users_email_idx ON users (email)",
            "ls",
            U,
        ),
        E("ALTER TABLE users ADD CONSTRAINT users_age_check CHECK (age >= 0)", "ls", U),
        E("ALTER TABLE users ALTER COLUMN age TYPE bigint", "lrs", U),
        E("ALTER TABLE users ADD COLUMN tier text;\nUPDATE users SET tier = 'free'", "ls", U),
        Q("CREATE INDEX CONCURRENTLY users_email_idx ON users (email)", "s", U),
        Q("ALTER TABLE users ADD CONSTRAINT users_age_check CHECK (age >= 0) NOT VALID", "", U),
        Q(
            "CREATE TABLE teams (id bigserial PRIMARY KEY, name text);\n"
            "CREATE INDEX teams_name_idx ON teams (name)",
            "",
            ("teams",),
        ),
        E("LOCK TABLE users IN ACCESS EXCLUSIVE MODE", "l", U),
        E("LOCK TABLE orders IN SHARE MODE;\nSELECT pg_sleep(0.01)", "l", ("orders",)),
        E("ALTER TABLE users ADD COLUMN tier text;\nSELECT pg_sleep(0.01)", "l", U),
        E(
            "DO $$\nBEGIN\n  LOCK TABLE users IN SHARE MODE;\n  PERFORM pg_sleep(0.01);\nEND $$",
            "l",
            U,
        ),
        Q("LOCK TABLE users IN ROW EXCLUSIVE MODE", "", U),
        Q("LOCK TABLE users IN ACCESS SHARE MODE;\nSELECT pg_sleep(0.01)", "", U),
        Q("ALTER TABLE users ADD COLUMN tier text;\nCOMMIT;\nSELECT pg_sleep(0.01)", "", U),
    ),
    _rule(
        RuleId.MYSQL_BLOCKS_WRITES,
        "breaking",
        "MySQL/MariaDB (InnoDB) does not permit concurrent writes while the table is altered",
        "The MySQL 8.0 manual's online DDL tables (InnoDB and Online DDL, Online DDL Operations) "
        "list, per ALTER TABLE operation, whether it runs INSTANT, INPLACE or as a table COPY "
        "and whether concurrent DML is permitted. Changing a column's data type, dropping the "
        "primary key, adding a FULLTEXT or SPATIAL index, adding an AUTO_INCREMENT column and "
        "converting the character set do not permit it: the previous release's writes wait for "
        "the whole table to be copied or indexed, and time out mid-rollout.",
        "ALTER TABLE users MODIFY COLUMN age BIGINT;",
        "Add a new column, backfill it in batches and switch over in a later release, or run the "
        "change with an online schema tool (gh-ost, pt-online-schema-change).",
        E("ALTER TABLE users MODIFY COLUMN age BIGINT", "lrs", U, pg=False, engine="mysql"),
        Q("ALTER TABLE users ADD INDEX users_age (age)", "s", U, pg=False).with_engine("mysql"),
    ),
    _rule(
        RuleId.MYSQL_TABLE_REBUILD,
        "advisory",
        "MySQL/MariaDB (InnoDB) rebuilds the table, writes permitted",
        "The manual's online DDL tables mark some in-place operations as rebuilding the table "
        "while concurrent DML stays permitted (adding a primary key, dropping or reordering "
        "columns, making a column NULL or NOT NULL, FORCE, ROW_FORMAT): the copy takes time "
        "and disk in proportion to the table, and replicas apply it after the primary.",
        "ALTER TABLE users ADD PRIMARY KEY (id);",
        "Expect the rebuild's time and disk; on a large table run it with an online schema tool "
        "or outside the release.",
        E("ALTER TABLE users ADD PRIMARY KEY (id)", "rs", U, pg=False, engine="mysql"),
        Q("ALTER TABLE users RENAME INDEX a TO b", "", U, pg=False).with_engine("mysql"),
    ),
    _rule(
        RuleId.ENGINE_HEAVINESS_UNKNOWN,
        "unknown",
        "What the statement locks or rewrites on this database engine is not modelled",
        "Locks, rewrites and scans are modelled for PostgreSQL (from its lock table) and for "
        "MySQL/MariaDB InnoDB (from the manual's online DDL tables). For SQLite, ClickHouse, "
        "CockroachDB, SQL Server and others the breaking rules are judged (a column or table "
        "dropped or renamed, NOT NULL without a default, a type changed) but whether a change "
        "to an existing table blocks traffic is not known; no PostgreSQL lock rule is applied "
        "to them.",
        "ALTER TABLE events ADD COLUMN region String;  -- ClickHouse",
        "Check how the engine runs the statement on a table of production size, then "
        "acknowledge it above the statement with what you found.",
        E(
            "ALTER TABLE events ADD COLUMN region String",
            "unknown",
            ("events",),
            pg=False,
            engine="clickhouse",
        ),
        Q(
            "CREATE MATERIALIZED VIEW mv TO agg AS SELECT a FROM events", "", ("mv",), pg=False
        ).with_engine("clickhouse"),
    ),
    # --- advisory: heavy or risky for traffic, compatible for old code --------------------
    _rule(
        RuleId.TABLE_REWRITE,
        "advisory",
        "The table is rewritten",
        "Every row is copied to new storage under ACCESS EXCLUSIVE: reads and writes wait for "
        "the whole copy. Volatile defaults, identity, serial and stored generated columns, most "
        "type changes, SET LOGGED/UNLOGGED, SET TABLESPACE, CLUSTER and VACUUM FULL do this.",
        "ALTER TABLE users ADD COLUMN token uuid DEFAULT gen_random_uuid();",
        "Add the column without a default (or with a constant one), backfill in batches, then "
        "set the default.",
        E("ALTER TABLE users ADD COLUMN token uuid DEFAULT gen_random_uuid()", "lrs", U),
        E("ALTER TABLE users ADD COLUMN score float8 DEFAULT random()", "lrs", U),
        E("ALTER TABLE users ADD COLUMN seen_at timestamptz DEFAULT clock_timestamp()", "lrs", U),
        E("ALTER TABLE users ADD COLUMN seq bigserial", "lrs", U),
        E("ALTER TABLE users ADD COLUMN n int GENERATED ALWAYS AS IDENTITY", "lrs", U),
        E("ALTER TABLE users ADD COLUMN age2 int GENERATED ALWAYS AS (age * 2) STORED", "lrs", U),
        E("ALTER TABLE users ALTER COLUMN age TYPE text USING age::text", "lrs", U),
        E('ALTER TABLE users ALTER COLUMN age TYPE integer USING ("age"::integer + 0)', "lrs", U),
        E('ALTER TABLE users ALTER COLUMN mood TYPE mood USING ("mood"::text::mood)', "lrs", U),
        Q('ALTER TABLE users ALTER COLUMN age TYPE integer USING ("age"::integer)', "", U),
        Q("ALTER TABLE users ALTER COLUMN name TYPE varchar(50) USING (name::varchar(50))", "", U),
        E("ALTER TABLE users SET UNLOGGED", "lrs", U),
        E("CLUSTER users USING users_pkey", "lrs", U),
        E("VACUUM FULL orders", "lrs", ("orders",)),
        E("VACUUM (FULL) users", "lrs", U),
        E("ALTER TABLE events ADD COLUMN uid uuid DEFAULT gen_random_uuid()", "lrs", ("events",)),
        E(
            "CREATE SEQUENCE ticket_seq;\nALTER TABLE orders ADD COLUMN ticket bigint DEFAULT nextval('ticket_seq')",
            "lrs",
            ("orders",),
        ),
        Q("ALTER TABLE users ADD COLUMN nickname text", "", U),
        Q("ALTER TABLE users ADD COLUMN active boolean NOT NULL DEFAULT true", "", U),
        Q("ALTER TABLE users ADD COLUMN joined timestamptz DEFAULT now()", "", U),
        Q(
            "ALTER TABLE users ADD COLUMN joined_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP",
            "",
            U,
        ),
        Q("ALTER TABLE users ADD COLUMN tags text[] DEFAULT '{}'", "", U),
        Q("ALTER TABLE users ADD COLUMN meta jsonb NOT NULL DEFAULT '{}'::jsonb", "", U),
        Q("ALTER TABLE users ADD COLUMN plan text NOT NULL DEFAULT 'free'", "", U),
        Q("ALTER TABLE users ADD COLUMN IF NOT EXISTS level int DEFAULT 1", "", U),
        Q("ALTER TABLE users ADD COLUMN day date DEFAULT CURRENT_DATE", "", U),
        Q("ALTER TABLE users ADD COLUMN label varchar(20) DEFAULT lower('X')", "", U),
        Q("ALTER TABLE events ADD COLUMN source text DEFAULT 'web'", "", ("events",)),
        Q("ALTER TABLE users ADD COLUMN x text DEFAULT my_default()", "unknown", U, pg=False),
        E("ALTER TABLE users ADD COLUMN n int GENERATED BY DEFAULT AS IDENTITY", "lrs", U),
        E("ALTER TABLE users ADD COLUMN contact email_address", "lrs", U),
        E("ALTER TABLE users ADD COLUMN contact email_address DEFAULT 'a@b'", "lrs", U),
        Q("ALTER TABLE users ADD COLUMN topic label", "", U),
        Q("ALTER TABLE contacts ALTER COLUMN seen TYPE timestamptz", "ls", C),
        E(
            "SET TimeZone = 'Europe/Paris';\nALTER TABLE contacts ALTER COLUMN seen TYPE timestamptz",
            "lrs",
            C,
        ),
        Q("ALTER TABLE users ALTER COLUMN name TYPE varchar(100)", "", U),
        Q("ALTER TABLE users ALTER COLUMN name TYPE text", "", U),
        Q("ALTER TABLE orders ALTER COLUMN amount TYPE numeric(12,2)", "", ("orders",)),
        E("ALTER TABLE orders ALTER COLUMN amount TYPE numeric(12,4)", "lrs", ("orders",)),
        Q("ALTER TABLE contacts ALTER COLUMN tag TYPE text", "ls", C),
        Q("ALTER TABLE contacts ALTER COLUMN phone TYPE varchar", "", C),
        E("ALTER TABLE contacts ALTER COLUMN phone TYPE email_address", "lrs", C),
    ),
    _rule(
        RuleId.CANNOT_RUN_IN_TRANSACTION,
        "breaking",
        "A statement that cannot run in a transaction runs inside one",
        "CREATE INDEX CONCURRENTLY, DROP INDEX CONCURRENTLY, REINDEX CONCURRENTLY and VACUUM "
        "refuse to run in a transaction block: after an explicit BEGIN, or in a file its tool "
        "wraps in a transaction (goose, dbmate and sql-migrate up sections without their "
        "marker, knex without `config.transaction = false`), the migration fails and the "
        "release cannot roll out.",
        "-- migrate:up\nCREATE INDEX CONCURRENTLY users_status_idx ON users (status);",
        "-- migrate:up transaction:false\nCREATE INDEX CONCURRENTLY users_status_idx ON "
        "users (status);",
        E(
            "BEGIN;\nCREATE INDEX CONCURRENTLY users_status_idx ON users (status);\nCOMMIT;",
            "error",
            U,
        ),
        Q(
            "BEGIN;\nSET lock_timeout = '1s';\nALTER TABLE users ADD COLUMN nickname text;\n"
            "COMMIT;\nCREATE INDEX CONCURRENTLY users_nickname_idx ON users (nickname);",
            "s",
            U,
        ),
    ),
    _rule(
        RuleId.CREATE_INDEX_NON_CONCURRENTLY,
        "advisory",
        "An index is built without CONCURRENTLY",
        "CREATE INDEX holds a SHARE lock for the whole build: every write to the table waits.",
        "CREATE INDEX users_status_idx ON users (status);",
        "CREATE INDEX CONCURRENTLY users_status_idx ON users (status); -- outside a transaction",
        E("CREATE INDEX users_status_idx ON users (status)", "ls", U),
        E("CREATE UNIQUE INDEX orders_id_note_idx ON orders (id, note)", "ls", ("orders",)),
        E("CREATE INDEX users_lower_email_idx ON users (lower(email))", "ls", U),
        E("CREATE INDEX users_active_idx ON users (created_at) WHERE status = 'active'", "ls", U),
        E("CREATE INDEX users_name_hash ON users USING hash (name)", "ls", U),
        E("CREATE INDEX IF NOT EXISTS users_age_idx ON users (age DESC NULLS LAST)", "ls", U),
        E("CREATE INDEX events_at_idx ON events (at)", "ls", ("events",)),
        E("CREATE INDEX ON orders (amount)", "ls", ("orders",)),
        Q("CREATE INDEX CONCURRENTLY users_status_idx ON users (status)", "s", U),
        Q(
            "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS orders_id_note_idx ON orders (id, note)",
            "s",
            ("orders",),
        ),
        Q(
            "CREATE TABLE audit (id bigint, at timestamptz);\nCREATE INDEX audit_at_idx ON audit (at)",
            "",
            ("audit",),
        ),
        Q("DROP INDEX orders_user_id_idx", "", ("orders",)),
        Q("DROP INDEX CONCURRENTLY orders_user_id_idx", "", ("orders",)),
        Q("DROP INDEX IF EXISTS orders_user_id_idx", "", ("orders",)),
        Q("ALTER INDEX orders_user_id_idx RENAME TO orders_user_idx", "", ()),
    ),
    _rule(
        RuleId.REINDEX_NON_CONCURRENTLY,
        "advisory",
        "Indexes are rebuilt without CONCURRENTLY",
        "REINDEX holds a SHARE lock on the table while it reads every row: writes wait.",
        "REINDEX TABLE users;",
        "REINDEX TABLE CONCURRENTLY users; -- outside a transaction",
        E("REINDEX TABLE users", "ls", U),
        Q("REINDEX TABLE CONCURRENTLY users", "s", U),
        E("REINDEX INDEX users_pkey", "ls", U),
        E("REINDEX INDEX orders_user_id_idx", "ls", ("orders",)),
    ),
    _rule(
        RuleId.ADD_CONSTRAINT_VALIDATING,
        "advisory",
        "A constraint is added and validated in one step",
        "Adding a CHECK or FOREIGN KEY reads every row while holding a lock that blocks writes "
        "(ACCESS EXCLUSIVE for CHECK, SHARE ROW EXCLUSIVE on both tables for a foreign key).",
        "ALTER TABLE orders ADD CONSTRAINT orders_user_fk FOREIGN KEY (user_id) REFERENCES users;",
        "ADD CONSTRAINT ... NOT VALID, then VALIDATE CONSTRAINT in a later transaction (it takes "
        "only SHARE UPDATE EXCLUSIVE).",
        E(
            "ALTER TABLE orders ADD CONSTRAINT orders_user_fk FOREIGN KEY (user_id) REFERENCES users (id)",
            "ls",
            ("orders", "users"),
        ),
        E(
            "ALTER TABLE orders ADD FOREIGN KEY (user_id) REFERENCES users",
            "ls",
            ("orders", "users"),
        ),
        Q(
            "ALTER TABLE orders ADD CONSTRAINT orders_user_fk FOREIGN KEY (user_id) REFERENCES users (id) NOT VALID",
            "",
            ("orders", "users"),
        ),
        Q(
            "ALTER TABLE orders ADD CONSTRAINT orders_user_fk FOREIGN KEY (user_id) REFERENCES users (id) NOT VALID;\n"
            "COMMIT;\nALTER TABLE orders VALIDATE CONSTRAINT orders_user_fk",
            "s",
            ("orders", "users"),
        ),
        Q(
            "ALTER TABLE orders ADD CONSTRAINT orders_user_fk FOREIGN KEY (user_id) REFERENCES users (id) NOT VALID;\n"
            "ALTER TABLE orders VALIDATE CONSTRAINT orders_user_fk",
            "ls",
            ("orders", "users"),
        ),
        E("ALTER TABLE users ADD CONSTRAINT users_age_check CHECK (age >= 0)", "ls", U),
        E("ALTER TABLE users ADD CHECK (age < 200)", "ls", U),
        Q("ALTER TABLE users ADD CONSTRAINT users_age_check CHECK (age >= 0) NOT VALID", "", U),
        Q(
            "ALTER TABLE users ADD CONSTRAINT users_age_check CHECK (age >= 0) NOT VALID;\n"
            "COMMIT;\nALTER TABLE users VALIDATE CONSTRAINT users_age_check",
            "s",
            U,
        ),
        E("ALTER TABLE users ADD COLUMN score int CHECK (score > 0)", "ls", U),
        Q(
            "ALTER TABLE users ADD COLUMN best_order bigint REFERENCES orders (id)",
            "",
            ("orders", "users"),
        ),
        E(
            "ALTER TABLE users ADD COLUMN best_order bigint DEFAULT 1 REFERENCES orders (id)",
            "ls",
            ("orders", "users"),
        ),
        E("ALTER TABLE users ADD COLUMN u int UNIQUE", "ls", U),
        E(
            "ALTER TABLE events ADD CONSTRAINT events_kind_check CHECK (kind <> '')",
            "ls",
            ("events",),
        ),
        Q(
            "CREATE TABLE teams (id bigserial PRIMARY KEY, name text NOT NULL);\n"
            "ALTER TABLE teams ADD CONSTRAINT teams_name_check CHECK (name <> '')",
            "",
            ("teams",),
        ),
        E(
            "ALTER DOMAIN email_address ADD CONSTRAINT email_short CHECK (length(VALUE) < 200)",
            "ls",
            C,
        ),
        Q(
            "ALTER DOMAIN email_address ADD CONSTRAINT email_short CHECK (length(VALUE) < 200) NOT VALID",
            "",
            (),
        ),
    ),
    _rule(
        RuleId.ADD_UNIQUE_CONSTRAINT_BUILDS_INDEX,
        "advisory",
        "A UNIQUE, PRIMARY KEY or EXCLUDE constraint builds its index in place",
        "The index build reads every row under ACCESS EXCLUSIVE: reads and writes wait.",
        "ALTER TABLE users ADD CONSTRAINT users_email_key UNIQUE (email);",
        "CREATE UNIQUE INDEX CONCURRENTLY users_email_idx ON users (email); then ALTER TABLE "
        "users ADD CONSTRAINT users_email_key UNIQUE USING INDEX users_email_idx;",
        E("ALTER TABLE users ADD CONSTRAINT users_email_key UNIQUE (email)", "ls", U),
        E("ALTER TABLE orders ADD UNIQUE (id, user_id)", "ls", ("orders",)),
        E(
            "ALTER TABLE users ADD CONSTRAINT users_id_excl EXCLUDE USING btree (id WITH =)",
            "ls",
            U,
        ),
        Q(
            "CREATE UNIQUE INDEX CONCURRENTLY users_email_idx ON users (email);\n"
            "ALTER TABLE users ADD CONSTRAINT users_email_key UNIQUE USING INDEX users_email_idx",
            "s",
            U,
        ),
    ),
    _rule(
        RuleId.ADD_PRIMARY_KEY,
        "advisory",
        "A primary key is added",
        "The key's index is built under ACCESS EXCLUSIVE, and columns that were nullable become "
        "NOT NULL (old code leaving them out would then fail).",
        "ALTER TABLE staging ADD PRIMARY KEY (id);",
        "Build a unique index CONCURRENTLY, make sure the columns are NOT NULL, then ADD "
        "PRIMARY KEY USING INDEX.",
        E("ALTER TABLE staging ADD PRIMARY KEY (id)", "ls", ("staging",)),
        E("ALTER TABLE staging ADD CONSTRAINT staging_pk PRIMARY KEY (id, at)", "ls", ("staging",)),
        Q(
            "CREATE TABLE scratch (id int);\nALTER TABLE scratch ADD PRIMARY KEY (id)",
            "",
            ("scratch",),
        ),
    ),
    _rule(
        RuleId.DROP_DEFAULT,
        "advisory",
        "A column default is dropped",
        "Old code that omits a nullable column relied on the default and now stores NULL "
        "(judged on the column its transaction commits: knex's `.alter()` drops the default and "
        "NOT NULL together); a NOT NULL column's is drop-default-not-null-column.",
        "ALTER TABLE users ALTER COLUMN created_at DROP DEFAULT;",
        "Ship code that always writes the column first, then drop the default.",
        E("ALTER TABLE contacts ALTER COLUMN note DROP DEFAULT", "", C),
        E(
            "ALTER TABLE contacts ALTER COLUMN score DROP DEFAULT;\n"
            "ALTER TABLE contacts ALTER COLUMN score DROP NOT NULL;\n"
            "ALTER TABLE contacts ALTER COLUMN score TYPE integer USING (score::integer)",
            "",
            C,
        ),
        Q("ALTER TABLE users ALTER COLUMN email DROP DEFAULT", "", U),
    ),
    _rule(
        RuleId.DROP_NOT_NULL,
        "advisory",
        "A NOT NULL column becomes nullable",
        "Old code reads the column as never NULL; once the new code leaves it NULL, the old "
        "code's reads meet values it does not handle (during the rollout, or after a rollback).",
        "ALTER TABLE contacts ALTER COLUMN code DROP NOT NULL;",
        "Make sure the previous release reads NULL safely before the new code writes one; "
        "write a value until no old pod is left.",
        E("ALTER TABLE contacts ALTER COLUMN code DROP NOT NULL", "", C),
        E(
            "ALTER TABLE contacts ALTER COLUMN code DROP NOT NULL;\nCOMMIT;\n"
            "ALTER TABLE contacts ALTER COLUMN code SET NOT NULL",
            "ls",
            C,
        ),
        Q(
            "ALTER TABLE contacts ALTER COLUMN code DROP NOT NULL;\n"
            "ALTER TABLE contacts ALTER COLUMN code SET NOT NULL",
            "ls",
            C,
        ),
        Q("ALTER TABLE users ALTER COLUMN email DROP NOT NULL", "", U),
    ),
    _rule(
        RuleId.REFRESH_MATERIALIZED_VIEW,
        "advisory",
        "A materialized view is refreshed in the migration",
        "REFRESH rewrites the view under ACCESS EXCLUSIVE (readers wait); CONCURRENTLY keeps "
        "readers going but still reads every row under an EXCLUSIVE lock.",
        "REFRESH MATERIALIZED VIEW user_counts;",
        "Refresh outside the migration (a job), CONCURRENTLY, with a unique index on the view.",
        E("REFRESH MATERIALIZED VIEW user_counts", "lrs", ("user_counts",), ("users",)),
        E("REFRESH MATERIALIZED VIEW CONCURRENTLY user_counts", "ls", ("user_counts",), ("users",)),
        Q("REFRESH MATERIALIZED VIEW user_counts WITH NO DATA", "", ("user_counts",)),
    ),
    _rule(
        RuleId.TRUNCATE_TABLE,
        "advisory",
        "A table is truncated",
        "TRUNCATE empties the table under ACCESS EXCLUSIVE; old code sees its data vanish.",
        "TRUNCATE staging;",
        "Delete the rows a release after code stops needing them, in batches if large.",
        E("TRUNCATE staging", "", ("staging",)),
        E("TRUNCATE TABLE staging, orders RESTART IDENTITY", "", ("orders", "staging")),
        Q("CREATE TABLE scratch (id int);\nTRUNCATE scratch", "", ("scratch",)),
    ),
    _rule(
        RuleId.FULL_TABLE_DATA_CHANGE,
        "advisory",
        "Every row of a table is changed in the migration",
        "An UPDATE or DELETE of every row (or a filtered one that reads every row) holds row "
        "locks on all of them until commit and bloats the table; inside a transaction that also "
        "holds a strong lock it blocks the table for the whole backfill.",
        "UPDATE users SET status = 'active';",
        "Backfill in batches outside the schema migration, or in small transactions.",
        E("UPDATE users SET status = 'active'", "s", U),
        Q("UPDATE users SET status = 'active' WHERE status IS NULL", "s", U),
        Q("UPDATE users SET status = 'vip' WHERE id = 42", "", U),
        Q("UPDATE orders SET note = 'x' WHERE id IN (1, 2, 3)", "", ("orders",)),
        Q("DELETE FROM orders WHERE amount < 0", "s", ("orders",)),
        E("DELETE FROM orders", "s", ("orders",)),
        Q("INSERT INTO orders (id, user_id, amount) VALUES (100000, 1, 5)", "", ("orders",)),
        Q(
            "INSERT INTO staging (id, kind, at) SELECT id, status, current_date FROM users",
            "s",
            ("staging", "users"),
        ),
        E("UPDATE events SET kind = 'x'", "s", ("events",)),
        E("DO $$ BEGIN UPDATE users SET status = 'x'; END $$", "s", U),
        Q("UPDATE users SET name = upper(name) WHERE age > 30", "s", U),
        Q(
            "WITH old AS (SELECT id FROM users WHERE age > 80) "
            "DELETE FROM orders WHERE user_id IN (SELECT id FROM old)",
            "s",
            ("orders", "users"),
        ),
        Q("SELECT backfill_users()", "unknown", (), pg=False),
    ),
    _rule(
        RuleId.LOCK_HELD_DURING_WORK,
        "advisory",
        "A lock that blocks traffic is held while later statements read or change every row",
        "Locks are kept until commit: a brief ACCESS EXCLUSIVE (say, ADD COLUMN) followed by a "
        "backfill or an index build in the same transaction blocks the table for all of it.",
        "ALTER TABLE users ADD COLUMN tier text;\nUPDATE users SET tier = 'free';",
        "Commit between the schema change and the data change (separate migrations or "
        "transactions).",
        E("ALTER TABLE users ADD COLUMN tier text;\nUPDATE users SET tier = 'free'", "ls", U),
        E("LOCK TABLE users IN SHARE MODE;\nUPDATE users SET status = 'x'", "ls", U),
        E("LOCK TABLE users;\nSELECT count(*) FROM users", "ls", U),
        Q("UPDATE users SET status = 'x';\nALTER TABLE users ADD COLUMN tier text", "s", U),
        Q(
            "ALTER TABLE users ADD COLUMN tier text;\nCOMMIT;\nUPDATE users SET tier = 'free'",
            "s",
            U,
        ),
        Q("BEGIN;\nALTER TABLE users ADD COLUMN tier text;\nCOMMIT;", "", U),
        Q(
            "CREATE TABLE teams (id bigserial PRIMARY KEY, name text NOT NULL);\n"
            "ALTER TABLE users ADD COLUMN team_id bigint REFERENCES teams (id);\n"
            "CREATE INDEX users_team_idx ON users (team_id)",
            "ls",
            ("teams", "users"),
        ),
        Q(
            "SET lock_timeout = '3s';\nALTER TABLE users ADD COLUMN plan text;\n"
            "CREATE INDEX CONCURRENTLY users_plan_idx ON users (plan)",
            "s",
            U,
        ),
        Q(
            "LOCK TABLE orders IN ROW EXCLUSIVE MODE;\nDELETE FROM orders WHERE note IS NULL",
            "s",
            ("orders",),
        ),
        E(
            "ALTER TABLE staging ADD COLUMN seen boolean;\nINSERT INTO orders (id, user_id) SELECT id + 100000, 1 FROM staging",
            "ls",
            ("orders", "staging"),
        ),
    ),
    _rule(
        RuleId.LOCK_TIMEOUT_MISSING,
        "advisory",
        "A lock that blocks traffic is requested without lock_timeout",
        "Even a metadata-only ACCESS EXCLUSIVE waits behind long queries, and every query "
        "arriving meanwhile queues behind it: the table stalls.",
        "ALTER TABLE users ADD COLUMN nickname text;",
        "SET lock_timeout = '5s'; first, and retry the migration on timeout.",
        Q("SET lock_timeout = '5s';\nALTER TABLE users ADD COLUMN nickname text", "", U),
        Q(
            "SET LOCAL lock_timeout TO '2s';\nALTER TABLE users ALTER COLUMN email SET DEFAULT 'none'",
            "",
            U,
        ),
        E("ALTER TABLE users ALTER COLUMN created_at DROP NOT NULL", "", U),
        Q("ALTER TABLE users ALTER COLUMN email SET STATISTICS 500", "", U),
        E("ALTER TABLE users ALTER COLUMN email SET STORAGE EXTERNAL", "", U),
        Q("ALTER TABLE users SET (fillfactor = 70)", "", U),
        Q("ALTER TABLE users RESET (fillfactor)", "", U),
        E("ALTER TABLE users REPLICA IDENTITY FULL", "", U),
        E("ALTER TABLE users ENABLE ROW LEVEL SECURITY", "", U),
        E("CREATE POLICY own_rows ON users USING (id > 0)", "", U),
        E("ALTER TABLE orders RENAME CONSTRAINT orders_pkey TO orders_pk", "", ("orders",)),
        Q("ALTER TABLE users CLUSTER ON users_pkey", "", U),
        E("ALTER TABLE users ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY", "", U),
        E("ALTER TABLE users DISABLE TRIGGER USER", "", U),
        Q("COMMENT ON TABLE users IS 'people'", "", U),
        Q("COMMENT ON COLUMN users.email IS 'login'", "", U),
        Q("GRANT SELECT ON users TO PUBLIC", "", ()),
        E(
            "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "NEW.created_at := now(); RETURN NEW; END $$;\n"
            "CREATE TRIGGER users_touch BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION touch()",
            "",
            U,
        ),
        E(
            "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;\n"
            "CREATE TRIGGER users_touch BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION touch();\n"
            "COMMIT;\nDROP TRIGGER IF EXISTS users_touch ON users",
            "",
            U,
        ),
        E(
            "CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')",
            "",
            ("events", "events_2026"),
        ),
        Q(
            "ALTER TABLE events ATTACH PARTITION staging FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')",
            "ls",
            ("events", "staging"),
        ),
        E("ALTER TABLE events ADD COLUMN source text", "", ("events",)),
    ),
    _rule(
        RuleId.ACKNOWLEDGEMENT_UNUSED,
        "advisory",
        "An acknowledgement matches no finding",
        "The statement after it raises none of the rules it names: it is stale or misplaced.",
        "-- release-safety: acknowledge(blocking-table-lock): audit_log holds about 200 rows\n"
        "CREATE INDEX CONCURRENTLY audit_log_at_idx ON audit_log (at);",
        "Place it right above the statement whose finding it accepts, or remove it.",
        E(
            "-- release-safety: acknowledge(blocking-table-lock): users holds about 200 rows\n"
            "CREATE INDEX CONCURRENTLY users_email_idx ON users (email)",
            "s",
            U,
        ),
        Q(
            "-- release-safety: acknowledge(blocking-table-lock): users holds about 200 rows\n"
            "CREATE INDEX users_email_idx ON users (email)",
            "ls",
            U,
        ),
    ),
    _rule(
        RuleId.ACKNOWLEDGEMENT_INVALID,
        "unknown",
        "An acknowledgement cannot be applied",
        "It is malformed, names a rule that does not exist (or cannot be acknowledged), or gives "
        "a hollow reason: it acknowledges nothing, and the finding it meant stays.",
        "-- release-safety: acknowledge(blocking-table-lock): ok\n"
        "CREATE INDEX users_email_idx ON users (email);",
        "-- release-safety: acknowledge(blocking-table-lock): users holds one row per "
        "operator, about 40 rows",
        E(
            "-- release-safety: acknowledge(blocking-table-lock): ok\n"
            "CREATE INDEX users_email_idx ON users (email)",
            "ls",
            U,
        ),
        E(
            "-- release-safety: acknowledge(no-such-rule): users holds about 200 rows here\n"
            "CREATE INDEX users_email_idx ON users (email)",
            "ls",
            U,
        ),
        Q(
            "-- release-safety: acknowledge(blocking-table-lock): users holds about 200 rows\n"
            "CREATE INDEX users_email_idx ON users (email)",
            "ls",
            U,
        ),
    ),
    _rule(
        RuleId.TRIGGER_DISABLED,
        "unknown",
        "A trigger on a table old code writes stops running",
        "DISABLE TRIGGER and DROP TRIGGER stop what the trigger did for the previous release's "
        "writes (a timestamp kept, an audit row, a derived column; DISABLE TRIGGER ALL or "
        "SYSTEM also the foreign keys' checks). Whether old code relies on it the text cannot "
        "say.",
        "ALTER TABLE users DISABLE TRIGGER ALL;",
        "Keep the trigger until no released code relies on it; acknowledge the finding with "
        "why none does.",
        E("ALTER TABLE users DISABLE TRIGGER ALL", "", U),
        E("DROP TRIGGER IF EXISTS users_audit ON users", "", U, pg=False),
        Q(
            "CREATE FUNCTION users_audit() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            "BEGIN\n  RETURN NEW;\nEND $$;\n"
            "CREATE TRIGGER users_audit AFTER INSERT ON users\n"
            "  FOR EACH ROW EXECUTE FUNCTION users_audit();\nCOMMIT;\n"
            "DROP TRIGGER users_audit ON users",
            "",
            U,
        ),
        Q("ALTER TABLE users ENABLE TRIGGER ALL", "", U),
        Q(
            "CREATE TABLE teams (id bigint PRIMARY KEY);\nALTER TABLE teams DISABLE TRIGGER ALL",
            "",
            ("teams",),
        ),
    ),
    _rule(
        RuleId.ROW_POLICY_CHANGED,
        "unknown",
        "A row level security policy of a table old code uses changes",
        "A policy dropped or altered, or a RESTRICTIVE one added, changes the rows the "
        "previous release's role sees and may write once row level security is on: its "
        "queries may return fewer rows and its writes fail. Whether its role is covered the "
        "text cannot say. A new permissive policy only admits more rows.",
        "DROP POLICY users_own ON users;",
        "Keep a policy admitting what old code's role needs until no released code needs it; "
        "acknowledge the finding with that reason.",
        E("DROP POLICY IF EXISTS users_own ON users", "", U, pg=False),
        E("ALTER POLICY users_own ON users USING (region = 'eu')", "", U, pg=False),
        E("CREATE POLICY users_eu ON users AS RESTRICTIVE USING (region = 'eu')", "", U),
        Q("CREATE POLICY users_eu ON users USING (region = 'eu')", "", U),
        Q(
            "CREATE POLICY users_all ON users USING (true);\n"
            "ALTER POLICY users_all ON users USING (region = 'eu');\n"
            "DROP POLICY users_all ON users",
            "",
            U,
        ),
        Q(
            "CREATE POLICY users_all ON users USING (true);\n"
            "ALTER POLICY users_all ON users RENAME TO users_every",
            "",
            U,
        ),
    ),
    _rule(
        RuleId.SCHEMA_FACT_UNKNOWN,
        "unknown",
        "A fact about the schema a rule needs is not known",
        "Whether the statement breaks old code, rewrites or reads the table depends on the "
        "schema it runs against (a column's type, nullability or default; an index's table; the "
        "tables using a domain), and the earlier migrations do not say: one of them could not be "
        "read, runs dynamic SQL, or the object was created outside the migrations.",
        "DO $$ BEGIN EXECUTE format('ALTER TABLE %I ADD COLUMN tier text', 'users'); END $$;\n"
        "ALTER TABLE users ALTER COLUMN tier TYPE varchar(10);",
        "Write schema changes as plain SQL in migrations, so the schema can be replayed.",
        E(
            "DO $$ BEGIN EXECUTE format('ALTER TABLE %I ADD COLUMN tier text', 'users'); END $$;\n"
            "ALTER TABLE users ALTER COLUMN tier TYPE varchar(10)",
            "unknown",
            U,
        ),
        Q(
            "ALTER TABLE users ADD COLUMN tier text;\n"
            "ALTER TABLE users ALTER COLUMN tier TYPE varchar(10)",
            "lrs",
            U,
        ),
    ),
    _rule(
        RuleId.MIGRATION_STATEMENT_UNKNOWN,
        "unknown",
        "A statement could not be classified",
        "Dynamic SQL, a DO block that runs code the text does not show, a call to a function of "
        "unknown effect or a statement the analysis does not read: its locks, rewrites and scans "
        "are unknown. A statement PostgreSQL's grammar refuses (a first word it has no command "
        "for; a column definition whose type, constraint or DEFAULT expression it cannot read, "
        "`ADD COLUMN x int NOT NULL DEFAULT;`; an ALTER TABLE action `DROP`, `ALTER COLUMN`, "
        "`RENAME`, a CREATE INDEX it cannot read) is a syntax error worded as PostgreSQL words it, "
        "at the line and column it gives: the migration stops there.",
        "DO $$ BEGIN EXECUTE 'ALTER TABLE ' || tbl || ' ADD COLUMN x int'; END $$;",
        "Write the statement as plain SQL in the migration.",
        E(
            "DO $$ BEGIN EXECUTE format('ALTER TABLE users ADD COLUMN %I int', 'x'); END $$",
            "unknown",
            (),
        ),
        Q("DO $$ BEGIN EXECUTE 'ALTER TABLE users ADD COLUMN x int'; END $$", "", U),
        Q(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM users WHERE id = -1) THEN RETURN; END IF; "
            "UPDATE orders SET note = 'x' WHERE id = 1; END $$",
            "",
            ("orders", "users"),
        ),
        E("CALL backfill()", "unknown", (), pg=False),
    ),
    _rule(
        RuleId.MIGRATION_UNPARSEABLE,
        "unknown",
        "A migration file could not be read",
        "An unterminated quote or comment, or a knex file whose statements cannot be extracted: "
        "nothing about it is known.",
        "ALTER TABLE users ADD COLUMN note text DEFAULT 'unterminated;",
        "Fix the file so it parses.",
        E("ALTER TABLE users ADD COLUMN note text DEFAULT 'unterminated;", "error", ()),
        Q("ALTER TABLE users ADD COLUMN note text DEFAULT 'terminated';", "", U),
    ),
    _rule(
        RuleId.MIGRATION_OVER_BUDGET,
        "unknown",
        "A migration file is beyond the bounds of what is analysed",
        f"A file over {MAX_FILE_CHARS:,} characters or {MAX_STATEMENTS:,} statements, or one "
        f"whose classification takes more than {MAX_CPU_SECONDS:.0f} s of CPU time, is not "
        "analysed: nothing about it is known (see Bounds). Huge seed data does not belong in a "
        "schema migration.",
        "A 10 MB migration of 300,000 INSERT statements.",
        "Load bulk data outside the schema migration (COPY from a file, a job), or split it.",
        E(
            "-- " + "x" * MAX_FILE_CHARS + "\nSELECT 1",
            "unknown",
            (),
            shown=f"-- (a comment of {MAX_FILE_CHARS:,} characters)\nSELECT 1",
        ),
        Q("-- a short comment\nSELECT 1", "", ()),
    ),
    _rule(
        RuleId.SHIPPED_MIGRATION_EDITED,
        "unknown",
        "A migration that already shipped was edited",
        "Installs that ran the old text never run the new one: the schema now depends on "
        "which release an install came from, and the edit itself is never analysed as a step.",
        "Editing 20240101000000_add_users.ts after it was released.",
        "Leave shipped migrations as they are; write a new migration for the change.",
        release=True,
    ),
    _rule(
        RuleId.SHIPPED_MIGRATION_DELETED,
        "unknown",
        "A migration that already shipped was deleted",
        "Migration tools record applied files by name; a deleted one can make an upgrade "
        "refuse to start, and a fresh install no longer builds the same schema.",
        "git rm migrations/0042_add_index.sql after it was released.",
        "Keep shipped migrations; squash only with a documented minimum previous version.",
        release=True,
    ),
    _rule(
        RuleId.MIGRATION_NOT_READ,
        "unknown",
        "A migration written in code was added",
        "The migration tool runs it (goose runs `<version>_name.go` beside its SQL files, "
        "Flyway `V<n>__name.java`), but it is code, not SQL or knex: what it locks, rewrites, "
        "scans or changes under the previous release's code is unknown, and so is the schema "
        "after it.",
        "migrations/20260814121501_backfill_triggered_at.go, a goose migration in Go.",
        "Write the schema change as a SQL migration; run a data backfill as a job of the new "
        "release, after the rollout, in batches.",
        release=True,
    ),
)

# Safe shapes with no rule of their own, confirmed on PostgreSQL all the same.
SAFE_EXAMPLES: tuple[Example, ...] = (
    E(
        "CREATE TABLE accounts (id bigserial PRIMARY KEY, user_id bigint NOT NULL REFERENCES users (id), name text)",
        "",
        ("accounts", "users"),
    ),
    E("CREATE TABLE accounts (LIKE users INCLUDING ALL)", "", ("accounts", "users")),
    E("CREATE TABLE user_copy AS SELECT * FROM users", "s", ("user_copy", "users")),
    E(
        "CREATE TABLE IF NOT EXISTS notes (id int PRIMARY KEY, body text NOT NULL DEFAULT '')",
        "",
        ("notes",),
    ),
    E(
        "CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 100",
        "",
        ("big_orders", "orders"),
    ),
    E(
        "CREATE OR REPLACE VIEW active_users AS SELECT id, email, name FROM users WHERE status = 'active'",
        "",
        ("active_users", "users"),
    ),
    E(
        "CREATE MATERIALIZED VIEW order_totals AS SELECT user_id, sum(amount) AS total FROM orders GROUP BY user_id",
        "s",
        ("order_totals", "orders"),
    ),
    E(
        "CREATE MATERIALIZED VIEW order_totals AS SELECT user_id FROM orders WITH NO DATA",
        "",
        ("order_totals", "orders"),
    ),
    E("CREATE TYPE level AS ENUM ('low', 'high')", "", ()),
    E("ALTER TYPE mood ADD VALUE 'calm'", "", ()),
    E("ALTER TYPE mood ADD VALUE IF NOT EXISTS 'calm' BEFORE 'sad'", "", ()),
    E("CREATE SEQUENCE invoice_seq START 100", "", ()),
    E("CREATE SCHEMA IF NOT EXISTS reporting", "", ()),
    E(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'level') THEN "
        "CREATE TYPE level AS ENUM ('low'); END IF; END $$",
        "",
        (),
    ),
    E(
        "DO $$ BEGIN ALTER TABLE users ADD COLUMN tier text; "
        "EXCEPTION WHEN duplicate_column THEN NULL; END $$",
        "",
        U,
    ),
    E(
        "CREATE TABLE teams (id bigserial PRIMARY KEY);\nALTER TABLE teams ADD COLUMN uid uuid DEFAULT gen_random_uuid()",
        "",
        ("teams",),
    ),
    E(
        "CREATE TABLE teams (id int);\nINSERT INTO teams VALUES (1);\nUPDATE teams SET id = 2",
        "",
        ("teams",),
    ),
    E("SELECT set_config('search_path', current_setting('search_path'), true)", "", ()),
)

BY_ID: dict[str, Rule] = {entry.id: entry.rule for entry in CATALOGUE}
BLOCKING_TABLE_LOCK = BY_ID[RuleId.BLOCKING_TABLE_LOCK]
ACKNOWLEDGEMENT_INVALID = BY_ID[RuleId.ACKNOWLEDGEMENT_INVALID]
ACKNOWLEDGEMENT_UNUSED = BY_ID[RuleId.ACKNOWLEDGEMENT_UNUSED]
SHIPPED_MIGRATION_EDITED = BY_ID[RuleId.SHIPPED_MIGRATION_EDITED]
SHIPPED_MIGRATION_DELETED = BY_ID[RuleId.SHIPPED_MIGRATION_DELETED]
MIGRATION_NOT_READ = BY_ID[RuleId.MIGRATION_NOT_READ]
