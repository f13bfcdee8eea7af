"""Every migration rule id, as a named constant: the classifier names rules only through these
(a misspelt name fails mypy), and the catalogue gives each exactly one entry.

Strings on a plain class, not an `enum.StrEnum`: building the enum's members cost a one-file
lint a twentieth of its start."""

from __future__ import annotations

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final


class RuleId:
    """The id of each migration rule (the id users see and acknowledge)."""

    # breaking: the previous release's code stops working
    DROP_TABLE: Final = "drop-table"
    DROP_COLUMN: Final = "drop-column"
    RENAME_TABLE: Final = "rename-table"
    RENAME_COLUMN: Final = "rename-column"
    DROP_VIEW: Final = "drop-view"
    RENAME_VIEW: Final = "rename-view"
    DROP_TYPE: Final = "drop-type"
    RENAME_TYPE: Final = "rename-type"
    RENAME_ENUM_VALUE: Final = "rename-enum-value"
    SET_SCHEMA: Final = "set-schema"
    RENAME_SCHEMA: Final = "rename-schema"
    DROP_SCHEMA: Final = "drop-schema"
    DROP_OBJECT: Final = "drop-object"
    SET_NOT_NULL: Final = "set-not-null"
    ADD_NOT_NULL_COLUMN_WITHOUT_DEFAULT: Final = "add-not-null-column-without-default"
    ADD_PRIMARY_KEY_NULLABLE_COLUMN: Final = "add-primary-key-nullable-column"
    DROP_DEFAULT_NOT_NULL_COLUMN: Final = "drop-default-not-null-column"
    DROP_IDENTITY: Final = "drop-identity"
    CHANGE_COLUMN_TYPE: Final = "change-column-type"
    CHECK_REJECTS_OLD_WRITES: Final = "check-rejects-old-writes"
    ENABLE_ROW_LEVEL_SECURITY: Final = "enable-row-level-security"
    REVOKE_PRIVILEGES: Final = "revoke-privileges"
    TERMINATE_SESSIONS: Final = "terminate-sessions"
    TRIGGER_REFUSES_WRITES: Final = "trigger-refuses-writes"
    ALTER_SEQUENCE: Final = "alter-sequence"
    # breaking: traffic stops while the migration works
    BLOCKING_TABLE_LOCK: Final = "blocking-table-lock"
    MYSQL_BLOCKS_WRITES: Final = "mysql-blocks-writes"
    MYSQL_TABLE_REBUILD: Final = "mysql-table-rebuild"
    ENGINE_HEAVINESS_UNKNOWN: Final = "engine-heaviness-unknown"
    # advisory
    TABLE_REWRITE: Final = "table-rewrite"
    CREATE_INDEX_NON_CONCURRENTLY: Final = "create-index-non-concurrently"
    REINDEX_NON_CONCURRENTLY: Final = "reindex-non-concurrently"
    ADD_CONSTRAINT_VALIDATING: Final = "add-constraint-validating"
    ADD_UNIQUE_CONSTRAINT_BUILDS_INDEX: Final = "add-unique-constraint-builds-index"
    ADD_PRIMARY_KEY: Final = "add-primary-key"
    DROP_DEFAULT: Final = "drop-default"
    DROP_NOT_NULL: Final = "drop-not-null"
    REFRESH_MATERIALIZED_VIEW: Final = "refresh-materialized-view"
    TRUNCATE_TABLE: Final = "truncate-table"
    FULL_TABLE_DATA_CHANGE: Final = "full-table-data-change"
    LOCK_HELD_DURING_WORK: Final = "lock-held-during-work"
    LOCK_TIMEOUT_MISSING: Final = "lock-timeout-missing"
    CANNOT_RUN_IN_TRANSACTION: Final = "cannot-run-in-transaction"
    ACKNOWLEDGEMENT_UNUSED: Final = "acknowledgement-unused"
    # unknown: the text cannot say
    ACKNOWLEDGEMENT_INVALID: Final = "acknowledgement-invalid"
    SCHEMA_FACT_UNKNOWN: Final = "schema-fact-unknown"
    TRIGGER_DISABLED: Final = "trigger-disabled"
    ROW_POLICY_CHANGED: Final = "row-policy-changed"
    MIGRATION_STATEMENT_UNKNOWN: Final = "migration-statement-unknown"
    MIGRATION_UNPARSEABLE: Final = "migration-unparseable"
    MIGRATION_OVER_BUDGET: Final = "migration-over-budget"
    # the release's migration files themselves
    SHIPPED_MIGRATION_EDITED: Final = "shipped-migration-edited"
    SHIPPED_MIGRATION_DELETED: Final = "shipped-migration-deleted"
    MIGRATION_NOT_READ: Final = "migration-not-read"
