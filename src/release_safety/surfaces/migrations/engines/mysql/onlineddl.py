"""InnoDB online DDL, as the MySQL 8.0 manual's tables give it (section "Online DDL Operations",
https://dev.mysql.com/doc/refman/8.0/en/innodb-online-ddl-operations.html): per ALTER TABLE
operation, whether it runs INSTANT, INPLACE (else as a table COPY), whether it rebuilds the
table, whether concurrent DML is permitted and whether it only modifies metadata.

Each row is the manual's, named as the manual names it; `operation` maps one ALTER action
(sqlglot's tree) to its row. MariaDB's InnoDB follows the same rows for what is modelled here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One operation of the manual's tables."""

    name: str
    instant: bool
    in_place: bool
    rebuilds: bool
    concurrent_dml: bool
    metadata_only: bool

    @property
    def algorithm(self) -> str:
        return "INSTANT" if self.instant else "INPLACE" if self.in_place else "COPY"

    @property
    def scans(self) -> bool:
        """Work in proportion to the rows: a rebuild, a copy or an index build."""
        return not self.instant and not self.metadata_only


def _row(name: str, flags: str) -> Row:
    """A row from the manual's five Yes/No columns, written as five letters (Y/N)."""
    instant, in_place, rebuilds, dml, metadata = (letter == "Y" for letter in flags)
    return Row(name, instant, in_place, rebuilds, dml, metadata)


ROWS = {
    row.name: row
    for row in (
        # Table 17.15 Online DDL Support for Index Operations
        _row("Creating or adding a secondary index", "NYNYN"),
        _row("Dropping an index", "NYNYY"),
        _row("Renaming an index", "NYNYY"),
        _row("Adding a FULLTEXT index", "NYNNN"),
        _row("Adding a SPATIAL index", "NYNNN"),
        # Table 17.16 Online DDL Support for Primary Key Operations
        _row("Adding a primary key", "NYYYN"),
        _row("Dropping a primary key", "NNYNN"),
        # Table 17.17 Online DDL Support for Column Operations
        _row("Adding a column", "YYNYY"),
        _row("Dropping a column", "YYYYN"),
        _row("Renaming a column", "YYNYY"),
        _row("Reordering columns", "YYYYN"),
        _row("Setting a column default value", "YYNYY"),
        _row("Changing the column data type", "NNYNN"),
        _row("Extending VARCHAR column size", "NYNYY"),
        _row("Dropping the column default value", "YYNYY"),
        _row("Making a column NULL", "NYYYN"),
        _row("Making a column NOT NULL", "NYYYN"),
        _row("Adding an auto-increment column", "NYYNN"),
        # Table 17.19 Online DDL Support for Foreign Key Operations
        _row("Adding a foreign key constraint", "NYNYY"),
        _row("Dropping a foreign key constraint", "NYNYY"),
        # Table 17.20 Online DDL Support for Table Operations
        _row("Renaming a table", "YYNYY"),
        _row("Converting a character set", "NNYNN"),
        _row("Rebuilding a table with the FORCE option", "NYYYN"),
        _row("Changing the ROW_FORMAT", "NYYYN"),
    )
}
"""The manual's rows this reader maps statements to."""
