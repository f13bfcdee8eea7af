"""Every migration rule id, as a typed constant: the classifier names rules only through these
(a misspelt member fails mypy), and the catalogue gives each exactly one entry."""

from __future__ import annotations

from enum import StrEnum


class RuleId(StrEnum):
    """The id of a migration rule (its value is the id users see and acknowledge)."""

    # breaking: the previous release's code stops working
    DROP_TABLE = "drop-table"
    DROP_COLUMN = "drop-column"
    RENAME_TABLE = "rename-table"
    RENAME_COLUMN = "rename-column"
    DROP_VIEW = "drop-view"
    RENAME_VIEW = "rename-view"
    DROP_TYPE = "drop-type"
    RENAME_TYPE = "rename-type"
    RENAME_ENUM_VALUE = "rename-enum-value"
    SET_SCHEMA = "set-schema"
    RENAME_SCHEMA = "rename-schema"
    DROP_SCHEMA = "drop-schema"
    DROP_OBJECT = "drop-object"
    SET_NOT_NULL = "set-not-null"
    ADD_NOT_NULL_COLUMN_WITHOUT_DEFAULT = "add-not-null-column-without-default"
    ADD_PRIMARY_KEY_NULLABLE_COLUMN = "add-primary-key-nullable-column"
    DROP_DEFAULT_NOT_NULL_COLUMN = "drop-default-not-null-column"
    DROP_IDENTITY = "drop-identity"
    CHANGE_COLUMN_TYPE = "change-column-type"
    CHECK_REJECTS_OLD_WRITES = "check-rejects-old-writes"
    ENABLE_ROW_LEVEL_SECURITY = "enable-row-level-security"
    REVOKE_PRIVILEGES = "revoke-privileges"
    TERMINATE_SESSIONS = "terminate-sessions"
    TRIGGER_REFUSES_WRITES = "trigger-refuses-writes"
    ALTER_SEQUENCE = "alter-sequence"
    # breaking: traffic stops while the migration works
    BLOCKING_TABLE_LOCK = "blocking-table-lock"
    MYSQL_BLOCKS_WRITES = "mysql-blocks-writes"
    MYSQL_TABLE_REBUILD = "mysql-table-rebuild"
    ENGINE_HEAVINESS_UNKNOWN = "engine-heaviness-unknown"
    # advisory
    TABLE_REWRITE = "table-rewrite"
    CREATE_INDEX_NON_CONCURRENTLY = "create-index-non-concurrently"
    REINDEX_NON_CONCURRENTLY = "reindex-non-concurrently"
    ADD_CONSTRAINT_VALIDATING = "add-constraint-validating"
    ADD_UNIQUE_CONSTRAINT_BUILDS_INDEX = "add-unique-constraint-builds-index"
    ADD_PRIMARY_KEY = "add-primary-key"
    DROP_DEFAULT = "drop-default"
    DROP_NOT_NULL = "drop-not-null"
    REFRESH_MATERIALIZED_VIEW = "refresh-materialized-view"
    TRUNCATE_TABLE = "truncate-table"
    FULL_TABLE_DATA_CHANGE = "full-table-data-change"
    LOCK_HELD_DURING_WORK = "lock-held-during-work"
    LOCK_TIMEOUT_MISSING = "lock-timeout-missing"
    CANNOT_RUN_IN_TRANSACTION = "cannot-run-in-transaction"
    ACKNOWLEDGEMENT_UNUSED = "acknowledgement-unused"
    # unknown: the text cannot say
    ACKNOWLEDGEMENT_INVALID = "acknowledgement-invalid"
    SCHEMA_FACT_UNKNOWN = "schema-fact-unknown"
    TRIGGER_DISABLED = "trigger-disabled"
    ROW_POLICY_CHANGED = "row-policy-changed"
    MIGRATION_STATEMENT_UNKNOWN = "migration-statement-unknown"
    MIGRATION_UNPARSEABLE = "migration-unparseable"
    MIGRATION_OVER_BUDGET = "migration-over-budget"
    # the release's migration files themselves
    SHIPPED_MIGRATION_EDITED = "shipped-migration-edited"
    SHIPPED_MIGRATION_DELETED = "shipped-migration-deleted"
    MIGRATION_NOT_READ = "migration-not-read"
