"""The schema a migration runs against, as the earlier migrations' text built it.

Tables (columns with type, nullability, default, identity), partitions, views, indexes and
their tables, constraints, domains with their constraints, enum types, sequences and
functions. Classification reads it and changes it statement by statement.

What the history could not say is recorded, never guessed: a statement whose effect is not
known (`taint`) makes every object it names unknown, and one that could have touched anything
(an unreadable file, dynamic SQL, a function of unknown body) makes the whole schema unknown.
Lookups then answer None, and the rule that needed the fact reports it as unknown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from release_safety.surfaces.migrations.coltypes import ColType, DomainFacts

TableKind = Literal["table", "partitioned", "view", "matview"]
ConstraintKind = Literal["check", "foreign", "primary", "unique", "exclude"]


@dataclass(frozen=True)
class Column:
    """A column: its type (None when not known), NOT NULL, default, identity."""

    type: ColType | None = None
    not_null: bool = False
    default: bool = False
    identity: bool = False


@dataclass
class Table:
    """A table, partitioned table, view or materialized view. `complete` is false when its
    columns are not all known (CREATE TABLE AS, a column list the text does not show)."""

    kind: TableKind = "table"
    columns: dict[str, Column] = field(default_factory=dict)
    complete: bool = True
    parent: str | None = None
    default_partition: bool = False

    def copy(self) -> Table:
        return Table(
            self.kind, dict(self.columns), self.complete, self.parent, self.default_partition
        )


@dataclass(frozen=True)
class Index:
    """An index: its table, plain columns (expression parts are left out), and whether it is
    unique (a primary key's or a unique constraint's index included)."""

    table: str
    columns: tuple[str, ...] = ()
    unique: bool = False


@dataclass(frozen=True)
class Constraint:
    """A table constraint. `not_null_of` names the column of a `CHECK (col IS NOT NULL)`."""

    kind: ConstraintKind
    columns: tuple[str, ...] = ()
    valid: bool = True
    references: str | None = None
    not_null_of: str | None = None


@dataclass(frozen=True)
class Domain:
    """A domain: its base type and constraints (NOT NULL, named CHECKs)."""

    base: ColType | None
    not_null: bool = False
    checks: frozenset[str] = frozenset()

    @property
    def facts(self) -> DomainFacts:
        return DomainFacts(self.base, self.not_null or bool(self.checks))


@dataclass(frozen=True)
class Function:
    """A function or procedure the migrations created: its body when it is a constant, its
    language and its declared volatility (`v`, `s` or `i`)."""

    body: str | None
    language: str = "sql"
    volatility: str = "v"


@dataclass
class Schema:
    """Every object the migrations created, by normalised name (`tokens.normalise`)."""

    tables: dict[str, Table] = field(default_factory=dict)
    indexes: dict[str, Index] = field(default_factory=dict)
    constraints: dict[tuple[str, str], Constraint] = field(default_factory=dict)
    domains: dict[str, Domain] = field(default_factory=dict)
    enums: set[str] = field(default_factory=set)
    sequences: set[str] = field(default_factory=set)
    functions: dict[str, Function] = field(default_factory=dict)
    unknown: str | None = None
    """Why nothing in the schema can be trusted (the first such reason)."""
    tainted: dict[str, str] = field(default_factory=dict)
    """Names a statement of unknown effect mentions, with the reason."""
    fresh: set[str] = field(default_factory=set)
    """Names created since the schema or the name became unknown: known again."""
    renamed: dict[str, str] = field(default_factory=dict)
    """The name a renamed table had before (new name -> old name)."""
    renamed_columns: dict[tuple[str, str], str] = field(default_factory=dict)
    """The name a renamed column had before ((table, new name) -> old name)."""
    mine: set[str] = field(default_factory=set, repr=False, compare=False)
    """Tables this schema may change in place; the others are shared with the schema it was
    copied from, and copied on their first change (`edit`)."""

    def copy(self) -> Schema:
        """A copy sharing the tables (each copied on its first change, `edit`)."""
        return Schema(
            tables=dict(self.tables),
            indexes=dict(self.indexes),
            constraints=dict(self.constraints),
            domains=dict(self.domains),
            enums=set(self.enums),
            sequences=set(self.sequences),
            functions=dict(self.functions),
            unknown=self.unknown,
            tainted=dict(self.tainted),
            fresh=set(self.fresh),
            renamed=dict(self.renamed),
            renamed_columns=dict(self.renamed_columns),
        )

    # --- what the history could not say ---------------------------------------------------

    def lose_everything(self, reason: str) -> None:
        """Nothing in the schema is known any more (the first reason is kept)."""
        if self.unknown is None:
            self.unknown = reason

    def taint(self, names: Iterable[str], reason: str) -> None:
        """Every object of these names is unknown from now on."""
        for name in names:
            self.tainted.setdefault(name, reason)

    def doubt(self, *names: str) -> str | None:
        """Why facts about these objects cannot be trusted, or None when they can."""
        for name in names:
            if name in self.fresh:
                continue
            if self.unknown is not None:
                return self.unknown
            if name in self.tainted:
                return self.tainted[name]
        return None

    def known_again(self, name: str) -> None:
        """The object was just created by a statement that was read: facts about it hold."""
        self.tainted.pop(name, None)
        if self.unknown is not None:
            self.fresh.add(name)

    # --- lookups: None when not known ------------------------------------------------------

    def table(self, name: str) -> Table | None:
        if self.doubt(name) is not None:
            return None
        return self.tables.get(name)

    def column(self, table: str, column: str) -> Column | None:
        found = self.table(table)
        if found is None or (column not in found.columns and not found.complete):
            return None
        return found.columns.get(column)

    def has_column(self, table: str, column: str) -> bool | None:
        """Whether the table has the column; None when the table is not fully known."""
        found = self.table(table)
        if found is None or (column not in found.columns and not found.complete):
            return None
        return column in found.columns

    def function(self, name: str) -> Function | None:
        return None if self.doubt(name) is not None else self.functions.get(name)

    def domain(self, name: str) -> Domain | None:
        return None if self.doubt(name) is not None else self.domains.get(name)

    def domain_facts(self, name: str) -> DomainFacts | None:
        domain = self.domain(name)
        return domain.facts if domain is not None else None

    def index_table(self, name: str) -> str | None:
        if self.doubt(name) is not None:
            return None
        index = self.indexes.get(name)
        return index.table if index is not None else None

    def indexed(self, table: str, column: str) -> bool | None:
        """Whether an index of the table covers the column; None when not known."""
        if self.doubt(table) is not None or table not in self.tables:
            return None
        return any(i.table == table and column in i.columns for i in self.indexes.values())

    def has_null_check(self, table: str, column: str, *, valid: bool) -> bool | None:
        """A `CHECK (column IS NOT NULL)` exists on the table (validated, with `valid`)."""
        if self.table(table) is None:
            return None
        return any(
            t == table and c.not_null_of == column and (c.valid or not valid)
            for (t, _), c in self.constraints.items()
        )

    def tables_with_domain(self, domain: str) -> list[str] | None:
        """Tables with a column of the domain (or of an array of it); None when not known."""
        if self.unknown is not None:
            return None
        found = []
        for name, table in self.tables.items():
            if table.kind not in ("table", "partitioned"):
                continue
            if any(c.type is not None and c.type.name == domain for c in table.columns.values()):
                found.append(name)
            elif not table.complete or name in self.tainted:
                return None
        return sorted(found)

    def partitions(self, parent: str) -> list[str]:
        return sorted(n for n, t in self.tables.items() if t.parent == parent)

    def root(self, name: str) -> str:
        """The root of a partition tree the table belongs to (itself when none)."""
        seen = {name}
        while (table := self.tables.get(name)) is not None and table.parent is not None:
            if table.parent in seen:
                break
            name = table.parent
            seen.add(name)
        return name

    # --- changes ---------------------------------------------------------------------------

    def add_table(self, name: str, table: Table) -> None:
        """A table (view, partition) the statement created, known whatever came before."""
        self.tables[name] = table
        self.mine.add(name)
        self.known_again(name)

    def edit(self, name: str) -> Table | None:
        """The table, to change in place (copied first when it is shared), or None."""
        found = self.tables.get(name)
        if found is not None and name not in self.mine:
            found = self.tables[name] = found.copy()
            self.mine.add(name)
        return found

    def set_column(self, table: str, column: str, **changes: object) -> None:
        """Change a known column's facts (nothing when the table or column is not known)."""
        if column in getattr(self.tables.get(table), "columns", ()):
            found = self.edit(table)
            assert found is not None
            found.columns[column] = replace(found.columns[column], **changes)  # type: ignore[arg-type]

    def drop_table(self, name: str) -> None:
        self.tables.pop(name, None)
        for index in [n for n, i in self.indexes.items() if i.table == name]:
            del self.indexes[index]
        for key in [k for k in self.constraints if k[0] == name]:
            del self.constraints[key]

    def rename_table(self, old: str, new: str) -> None:
        self.renamed[new] = old
        for (table, column), was in list(self.renamed_columns.items()):
            if table == old:
                self.renamed_columns[(new, column)] = was
        if old in self.tables:
            self.tables[new] = self.tables.pop(old)
            if old in self.mine:
                self.mine.add(new)
        for name in [n for n, i in self.indexes.items() if i.table == old]:
            self.indexes[name] = replace(self.indexes[name], table=new)
        for key, c in list(self.constraints.items()):
            if key[0] == old:
                del self.constraints[key]
                self.constraints[(new, key[1])] = c
        for key in [k for k, c in self.constraints.items() if c.references == old]:
            self.constraints[key] = replace(self.constraints[key], references=new)
        for name in [n for n, t in self.tables.items() if t.parent == old]:
            child = self.edit(name)
            assert child is not None
            child.parent = new
        if old in self.tainted:
            self.tainted[new] = self.tainted[old]
        if old in self.fresh:
            self.fresh.add(new)

    def rename_column(self, table: str, old: str, new: str) -> None:
        self.renamed_columns[(table, new)] = old
        found = self.edit(table)
        if found is not None and old in found.columns:
            found.columns = {new if n == old else n: c for n, c in found.columns.items()}
        for name in [n for n, i in self.indexes.items() if i.table == table and old in i.columns]:
            index = self.indexes[name]
            columns = tuple(new if c == old else c for c in index.columns)
            self.indexes[name] = replace(index, columns=columns)
        for key in [
            k
            for k, c in self.constraints.items()
            if k[0] == table and (old in c.columns or c.not_null_of == old)
        ]:
            c = self.constraints[key]
            self.constraints[key] = replace(
                c,
                columns=tuple(new if x == old else x for x in c.columns),
                not_null_of=new if c.not_null_of == old else c.not_null_of,
            )

    def drop_column(self, table: str, column: str) -> None:
        found = self.edit(table)
        if found is not None:
            found.columns.pop(column, None)
        for name in [
            n for n, i in self.indexes.items() if i.table == table and column in i.columns
        ]:
            del self.indexes[name]
        for key in [
            k
            for k, c in self.constraints.items()
            if k[0] == table and (column in c.columns or c.not_null_of == column)
        ]:
            del self.constraints[key]
