"""The tables of a simple data statement, read from its tokens without loading sqlglot.

A statement of this small grammar (no parentheses but an `EXISTS (subquery)`, no joins,
aliases, functions or keywords as names) gets the references sqlglot's syntax tree gives it;
anything else is None and read from the tree:

    UPDATE name SET column = operand [, ...] [WHERE condition]
    DELETE FROM name [WHERE condition]
    SELECT item [, ...] [FROM name [WHERE condition]]
    item:      * | operand | [NOT] EXISTS ( SELECT ... )
    condition: comparison [AND comparison ...]
    comparison: operand (= | <> | != | < | > | <= | >=) operand | operand IS [NOT] NULL
    operand:   column | t.column | 'string' | number | NULL | TRUE | FALSE

`tests/surfaces/migrations/test_simpledata.py` compares both readings on every SQL text of the
suite, the benchmark's files and generated statements.
"""

from __future__ import annotations

import re
from typing import Final

from release_safety.common.textcase import lower
from release_safety.common.value import HashableValue
from release_safety.surfaces.migrations.sql.tokens import Tok, normalise


class Reference(HashableValue):
    """A table a data statement names: `write` the statement that changes it (UPDATE,
    DELETE, INSERT; None for a read), `pinned` the columns its WHERE sets to literals (None
    without a WHERE, or for a read that is not the only table of its SELECT)."""

    FIELDS = ("table", "write", "pinned")

    table: Final[str]
    write: Final[str | None]
    pinned: Final[frozenset[str] | None]

    def __init__(self, table: str, write: str | None, pinned: frozenset[str] | None) -> None:
        self.table = table
        self.write = write
        self.pinned = pinned


# sqlglot 30's PostgreSQL keywords (its tokenizer's single words, and the words its parser
# reads as functions without parentheses): never a name here.
RESERVED = frozenset(
    """
    ALL ALTER ANALYZE AND ANTI ANY APPLY ARRAY AS ASC ASOF AUTOINCREMENT AUTO_INCREMENT BEGIN
    BETWEEN BIGDECIMAL BIGINT BIGNUM BIGNUMERIC BIGSERIAL BINARY BIT BLOB BOOL BOOLEAN BPCHAR
    BYTE BYTEA CACHE CALL CASE CHAR CHARACTER CLOB COLLATE COLUMN COMMENT COMMIT
    CONNECT_BY_ROOT CONSTRAINT COPY CREATE CROSS CSTRING CUBE CURRENT_CATALOG CURRENT_DATE
    CURRENT_SCHEMA CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER DATABASE DATE DATEMULTIRANGE
    DATERANGE DATETIME DEC DECFLOAT DECIMAL DECIMAL128 DECIMAL256 DECIMAL32 DECIMAL64 DECLARE
    DEFAULT DELETE DESC DESCRIBE DISTINCT DO DOUBLE DROP ELSE END ENUM ESCAPE EXCEPT EXEC
    EXECUTE EXISTS EXPLAIN FALSE FETCH FILE FILTER FIRST FIXED FLOAT FLOAT4 FLOAT8 FOR FORMAT
    FROM FULL FUNCTION GEOGRAPHY GEOMETRY GLOB GRANT HAVING HSTORE HUGEINT IF ILIKE IN INDEX
    INET INNER INOUT INSERT INT INT1 INT128 INT16 INT2 INT256 INT32 INT4 INT4MULTIRANGE
    INT4RANGE INT64 INT8 INT8MULTIRANGE INT8RANGE INTEGER INTERSECT INTERVAL INTO IS ISNULL
    JOIN JSON JSONB KEEP KILL LATERAL LEFT LIKE LIMIT LIST LOAD LOCALTIME LOCALTIMESTAMP LOCK
    LONG LONGBLOB LONGTEXT LONGVARCHAR MAP MEDIUMBLOB MEDIUMINT MEDIUMTEXT MERGE MONEY NAME
    NAMESPACE NATURAL NCHAR NEXT NOT NOTNULL NULL NULLABLE NUMBER NUMERIC NUMMULTIRANGE
    NUMRANGE NVARCHAR NVARCHAR2 OBJECT OFFSET OID ON ONLY OPERATOR OPTIMIZE OR ORDINALITY OUT
    OUTER OVER OVERLAPS OVERWRITE PARTITION PARTITIONED_BY PERCENT PIVOT POINT PRAGMA PREPARE
    PROCEDURE QUALIFY RANGE REAL RECURSIVE REF REFERENCES REFRESH REGCLASS REGCOLLATION
    REGCONFIG REGDICTIONARY REGEXP REGNAMESPACE REGOPER REGOPERATOR REGPROC REGPROCEDURE
    REGROLE REGTYPE REINDEX RENAME REPLACE RESET RETURNING REVOKE RIGHT RLIKE ROLLBACK ROLLUP
    ROW ROWS SCHEMA SELECT SEMI SEQUENCE SERIAL SESSION SESSION_USER SET SETTINGS SHORT SHOW
    SMALLINT SMALLSERIAL SOME STR STRAIGHT_JOIN STRING STRUCT TABLE TABLESAMPLE TEMP TEMPORARY
    TEXT THEN TIME TIMESTAMP TIMESTAMPLTZ TIMESTAMPNTZ TIMESTAMPTZ TIMESTAMP_LTZ TIMESTAMP_NTZ
    TIMETZ TIME_NS TINYBLOB TINYINT TINYTEXT TRIGGER TRUE TRUNCATE TSMULTIRANGE TSRANGE
    TSTZMULTIRANGE TSTZRANGE TYPE UHUGEINT UINT UINT128 UINT256 UNCACHE UNION UNIQUE UNKNOWN
    UNNEST UNPIVOT UPDATE USE USING UUID VACUUM VALUES VARBINARY VARCHAR VARCHAR2 VARIADIC
    VARIANT VECTOR VIEW VOLATILE WHEN WHERE WINDOW WITH XML XOR
    """.split()  # noqa: SIM905
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_COMPARISONS = frozenset({"=", "<>", "!=", "<", ">", "<=", ">="})
_CONSTANTS = frozenset({"NULL", "TRUE", "FALSE"})


class _NotSimple(Exception):
    """The statement is outside the grammar."""


def references(sql: str, toks: list[Tok]) -> list[Reference] | None:
    """The tables a simple data statement reads and writes (see the module), or None when the
    statement is not one of the grammar."""
    reader = _Reader(sql, toks)
    try:
        found = reader.statement()
    except _NotSimple:
        return None
    return found if reader.i == len(toks) and len(found) <= 1 else None


class _Reader:
    def __init__(self, sql: str, toks: list[Tok]) -> None:
        self.sql = sql
        self.toks = toks
        self.i = 0

    def key(self) -> str:
        return self.toks[self.i].key if self.i < len(self.toks) else ""

    def accept(self, key: str) -> bool:
        if self.key() == key:
            self.i += 1
            return True
        return False

    def expect(self, key: str) -> None:
        if not self.accept(key):
            raise _NotSimple

    def statement(self) -> list[Reference]:
        if self.accept("UPDATE"):
            table = self.name()
            self.expect("SET")
            self.assignment()
            while self.accept(","):
                self.assignment()
            return [Reference(table, "UPDATE", self.where())]
        if self.accept("DELETE"):
            self.expect("FROM")
            table = self.name()
            return [Reference(table, "DELETE", self.where())]
        return self.select()

    def select(self) -> list[Reference]:
        self.expect("SELECT")
        found = self.item()
        while self.accept(","):
            found += self.item()
        if not self.accept("FROM"):
            return found
        table = self.name()
        return [*found, Reference(table, None, self.where())]

    def item(self) -> list[Reference]:
        if self.accept("*"):
            return []
        negated = self.accept("NOT")
        if self.accept("EXISTS"):
            self.expect("(")
            found = self.select()
            self.expect(")")
            return found
        if negated:
            raise _NotSimple
        self.operand()
        return []

    def assignment(self) -> None:
        self.part()
        self.expect("=")
        self.operand()

    def where(self) -> frozenset[str] | None:
        if not self.accept("WHERE"):
            return None
        pinned = self.comparison()
        while self.accept("AND"):
            pinned |= self.comparison()
        return pinned

    def comparison(self) -> frozenset[str]:
        """One comparison: the column it sets to a literal, if it does."""
        column = self.operand()
        if self.accept("IS"):
            self.accept("NOT")
            self.expect("NULL")
            return frozenset()
        operator = self.key()
        if operator not in _COMPARISONS:
            raise _NotSimple
        self.i += 1
        literal = self.operand() == ""
        return frozenset({column}) if operator == "=" and column and literal else frozenset()

    def operand(self) -> str | None:
        """A column (its name, lowered), a literal (""), or NULL, TRUE, FALSE (None)."""
        if self.i >= len(self.toks):
            raise _NotSimple
        tok = self.toks[self.i]
        if tok.kind == "number" or (tok.kind == "string" and self.sql[tok.start] == "'"):
            self.i += 1
            return ""
        if tok.kind == "word" and tok.up in _CONSTANTS:
            self.i += 1
            return None
        column = self.part()
        if self.accept("."):
            column = self.part()
        return lower(column)

    def part(self) -> str:
        """A name or a part of a qualified one: a word that is no keyword, or quoted."""
        if self.i >= len(self.toks):
            raise _NotSimple
        tok = self.toks[self.i]
        if tok.kind == "ident" and tok.text:
            self.i += 1
            return tok.text
        if tok.kind == "word" and tok.up not in RESERVED and _NAME.match(tok.text):
            self.i += 1
            return lower(tok.text)
        raise _NotSimple

    def name(self) -> str:
        parts = [self.part()]
        if self.accept("."):
            parts.append(self.part())
        return normalise(parts)
