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

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet

from release_safety.common.value import HashableValue, Value
from release_safety.surfaces.migrations.schema.coltypes import ColType, DomainFacts

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any, Final, Literal

    TableKind = Literal["table", "partitioned", "view", "matview"]
    ConstraintKind = Literal["check", "foreign", "primary", "unique", "exclude"]


class Column(HashableValue):
    """A column: its type (None when not known), NOT NULL, default, identity; `value` the
    default when it is a constant (a SQL literal), `allowed` the values its CHECKs list (SQL
    literals; None when no CHECK lists them)."""

    FIELDS = ("type", "not_null", "default", "identity", "value", "allowed")

    type: Final[ColType | None]
    not_null: Final[bool]
    default: Final[bool]
    identity: Final[bool]
    value: Final[str | None]
    allowed: Final[frozenset[str] | None]

    def __init__(
        self,
        type: ColType | None = None,
        not_null: bool = False,
        default: bool = False,
        identity: bool = False,
        value: str | None = None,
        allowed: frozenset[str] | None = None,
    ) -> None:
        self.type = type
        self.not_null = not_null
        self.default = default
        self.identity = identity
        self.value = value
        self.allowed = allowed


class Table(Value):
    """A table, partitioned table, view or materialized view. `complete` is false when its
    columns are not all known (CREATE TABLE AS, a column list the text does not show)."""

    FIELDS = ("kind", "columns", "complete", "parent", "default_partition")

    kind: TableKind
    columns: dict[str, Column]
    complete: bool
    parent: str | None
    default_partition: bool

    def __init__(
        self,
        kind: TableKind = "table",
        columns: dict[str, Column] | None = None,
        complete: bool = True,
        parent: str | None = None,
        default_partition: bool = False,
    ) -> None:
        self.kind = kind
        self.columns = {} if columns is None else columns
        self.complete = complete
        self.parent = parent
        self.default_partition = default_partition

    def copy(self) -> Table:
        return Table(
            self.kind, dict(self.columns), self.complete, self.parent, self.default_partition
        )


class Index(HashableValue):
    """An index: its table, plain columns (expression parts are left out), and whether it is
    unique (a primary key's or a unique constraint's index included)."""

    FIELDS = ("table", "columns", "unique")

    table: Final[str]
    columns: Final[tuple[str, ...]]
    unique: Final[bool]

    def __init__(self, table: str, columns: tuple[str, ...] = (), unique: bool = False) -> None:
        self.table = table
        self.columns = columns
        self.unique = unique


class Constraint(HashableValue):
    """A table constraint. `not_null_of` names the column of a `CHECK (col IS NOT NULL)`;
    `allowed` the values a CHECK lists for its one column."""

    FIELDS = ("kind", "columns", "valid", "references", "not_null_of", "allowed")

    kind: Final[ConstraintKind]
    columns: Final[tuple[str, ...]]
    valid: Final[bool]
    references: Final[str | None]
    not_null_of: Final[str | None]
    allowed: Final[frozenset[str] | None]

    def __init__(
        self,
        kind: ConstraintKind,
        columns: tuple[str, ...] = (),
        valid: bool = True,
        references: str | None = None,
        not_null_of: str | None = None,
        allowed: frozenset[str] | None = None,
    ) -> None:
        self.kind = kind
        self.columns = columns
        self.valid = valid
        self.references = references
        self.not_null_of = not_null_of
        self.allowed = allowed


class Domain(HashableValue):
    """A domain: its base type and constraints (NOT NULL, named CHECKs)."""

    FIELDS = ("base", "not_null", "checks")

    base: Final[ColType | None]
    not_null: Final[bool]
    checks: Final[frozenset[str]]

    def __init__(
        self, base: ColType | None, not_null: bool = False, checks: frozenset[str] = frozenset()
    ) -> None:
        self.base = base
        self.not_null = not_null
        self.checks = checks

    @property
    def facts(self) -> DomainFacts:
        return DomainFacts(self.base, self.not_null or bool(self.checks))


class Function(HashableValue):
    """A function or procedure the migrations created: its body when it is a constant, its
    language and its declared volatility (`v`, `s` or `i`)."""

    FIELDS = ("body", "language", "volatility")

    body: Final[str | None]
    language: Final[str]
    volatility: Final[str]

    def __init__(self, body: str | None, language: str = "sql", volatility: str = "v") -> None:
        self.body = body
        self.language = language
        self.volatility = volatility


class FreshChanges:
    """What the schema `fresh` was handed over to (`Schema.copy(hand_over=True)`) changed in
    the set it shares with the schema that handed it: each name it added or removed, with
    whether the set held it before; `later`, those of the next hand-over."""

    def __init__(self) -> None:
        self.held: dict[str, bool] = {}
        self.later: FreshChanges | None = None


def _names(changes: FreshChanges | None) -> list[str]:
    """The names changed in `fresh` by these changes and the later ones."""
    names: list[str] = []
    while changes is not None:
        names += changes.held
        changes = changes.later
    return names


class Schema(Value):
    """Every object the migrations created, by normalised name (`tokens.normalise`)."""

    FIELDS = (
        "tables",
        "indexes",
        "constraints",
        "domains",
        "enums",
        "sequences",
        "functions",
        "unknown",
        "tainted",
        "fresh",
        "renamed",
        "renamed_columns",
    )

    # The collections are read through these (read-only) types and changed through `own_*`:
    # a copy shares them with the schema it was copied from until either changes one.
    tables: Mapping[str, Table]
    indexes: Mapping[str, Index]
    constraints: Mapping[tuple[str, str], Constraint]
    domains: Mapping[str, Domain]
    enums: AbstractSet[str]
    sequences: AbstractSet[str]
    functions: Mapping[str, Function]
    unknown: str | None
    """Why nothing in the schema can be trusted (the first such reason)."""
    tainted: Mapping[str, str]
    """Names a statement of unknown effect mentions, with the reason."""
    fresh: AbstractSet[str]
    """Names created since the schema or the name became unknown: known again."""
    renamed: Mapping[str, str]
    """The name a renamed table had before (new name -> old name)."""
    renamed_columns: Mapping[tuple[str, str], str]
    """The name a renamed column had before ((table, new name) -> old name)."""
    index_names: Mapping[str, tuple[str, ...]]
    """The names of each table's indexes, in the order `indexes` holds them (derived from
    it: changed only with it, through `put_index` and `pop_index`)."""
    constraint_names: Mapping[str, tuple[str, ...]]
    """The names of each table's constraints, in the order `constraints` holds them (derived
    from it: changed only with it, through `put_constraint` and `pop_constraint`)."""
    mine: set[str]
    """Tables this schema may change in place; the others are shared with the schema it was
    copied from, and copied on their first change (`edit`)."""
    owned: set[str]
    """The collections this schema may change in place; the others may be shared with a copy
    (or the original), and are copied on their first change (`own_*`)."""

    def __init__(
        self,
        tables: Mapping[str, Table] | None = None,
        indexes: Mapping[str, Index] | None = None,
        constraints: Mapping[tuple[str, str], Constraint] | None = None,
        domains: Mapping[str, Domain] | None = None,
        enums: AbstractSet[str] | None = None,
        sequences: AbstractSet[str] | None = None,
        functions: Mapping[str, Function] | None = None,
        unknown: str | None = None,
        tainted: Mapping[str, str] | None = None,
        fresh: AbstractSet[str] | None = None,
        renamed: Mapping[str, str] | None = None,
        renamed_columns: Mapping[tuple[str, str], str] | None = None,
        index_names: Mapping[str, tuple[str, ...]] | None = None,
        constraint_names: Mapping[str, tuple[str, ...]] | None = None,
        mine: set[str] | None = None,
        owned: set[str] | None = None,
    ) -> None:
        self.tables = {} if tables is None else tables
        self.indexes = {} if indexes is None else indexes
        self.constraints = {} if constraints is None else constraints
        self.domains = {} if domains is None else domains
        self.enums = set() if enums is None else enums
        self.sequences = set() if sequences is None else sequences
        self.functions = {} if functions is None else functions
        self.unknown = unknown
        self.tainted = {} if tainted is None else tainted
        self.fresh = set() if fresh is None else fresh
        self.renamed = {} if renamed is None else renamed
        self.renamed_columns = {} if renamed_columns is None else renamed_columns
        self.index_names = {} if index_names is None else index_names
        self.constraint_names = {} if constraint_names is None else constraint_names
        self.mine = set() if mine is None else mine
        self.owned = set() if owned is None else owned
        self.handed: FreshChanges | None = None
        """Set once this schema handed `fresh` over: what the schemas after it changed in that
        set since (`is_fresh` reads it through them)."""
        self.recording: FreshChanges | None = None
        """Where this schema records its changes to a `fresh` it was handed over."""

    def copy(self, *, hand_over: bool = False) -> Schema:
        """A copy sharing every collection and table with this schema; whichever of the two
        changes one first changes its own copy (`own_*`, `edit`). With `hand_over`, the copy
        changes in place the collections a PreviousRelease view does not read: this schema is
        then read only as that view (the previous file's schema when the files before it are
        not kept, as `lint-migrations` reads them; each would otherwise copy the indexes, the
        constraints and the types every earlier file created). `fresh`, which that view reads,
        is handed over too when this schema may change it in place: the copy changes it in
        place and records what it changed, so this schema reads it as it was (`is_fresh`),
        where a copy of it per file would grow with the files before it."""
        fresh = self.fresh
        if self.handed is not None:  # as this schema reads it: the set has changed since
            fresh = {n for n in (*fresh, *_names(self.handed)) if self.is_fresh(n)}
        copied = Schema(  # every field but `mine`, `owned`, `handed` and `recording`
            self.tables,
            self.indexes,
            self.constraints,
            self.domains,
            self.enums,
            self.sequences,
            self.functions,
            self.unknown,
            self.tainted,
            fresh,
            self.renamed,
            self.renamed_columns,
            self.index_names,
            self.constraint_names,
        )
        if hand_over:
            copied.owned = set(_HANDED_OVER)
            if "fresh" in self.owned:
                copied.owned.add("fresh")
                copied.recording = self.handed = FreshChanges()
                if self.recording is not None:
                    self.recording.later = self.handed
                self.recording = None
        self.owned, self.mine = set(), set()
        return copied

    def _own(self, name: str) -> Any:
        """The collection `name`, copied first when it may be shared."""
        if name not in self.owned:
            setattr(self, name, getattr(self, name).copy())
            self.owned.add(name)
        return getattr(self, name)

    def own_tables(self) -> dict[str, Table]:
        return self._own("tables")  # type: ignore[no-any-return]

    def own_domains(self) -> dict[str, Domain]:
        return self._own("domains")  # type: ignore[no-any-return]

    def own_enums(self) -> set[str]:
        return self._own("enums")  # type: ignore[no-any-return]

    def own_sequences(self) -> set[str]:
        return self._own("sequences")  # type: ignore[no-any-return]

    def own_functions(self) -> dict[str, Function]:
        return self._own("functions")  # type: ignore[no-any-return]

    def own_tainted(self) -> dict[str, str]:
        return self._own("tainted")  # type: ignore[no-any-return]

    def _change_fresh(self, name: str, held: bool) -> None:
        """`name` added to `fresh` (`held`) or removed from it, recorded for the schema that
        handed it over."""
        fresh: set[str] = self._own("fresh")
        if self.recording is not None and name not in self.recording.held:
            self.recording.held[name] = name in fresh
        if held:
            fresh.add(name)
        else:
            fresh.discard(name)

    def is_fresh(self, name: str) -> bool:
        """Whether `name` is in `fresh` as this schema left it (the schemas it was handed over
        to since change the set in place, and record what the set held before)."""
        changes = self.handed
        while changes is not None:
            held = changes.held.get(name)
            if held is not None:
                return held
            changes = changes.later
        return name in self.fresh

    def own_renamed(self) -> dict[str, str]:
        return self._own("renamed")  # type: ignore[no-any-return]

    def own_renamed_columns(self) -> dict[tuple[str, str], str]:
        return self._own("renamed_columns")  # type: ignore[no-any-return]

    # --- indexes and constraints, with their names by table --------------------------------

    def indexes_of(self, table: str) -> list[Index]:
        """The table's indexes, in the order `indexes` holds them."""
        indexes = self.indexes
        return [indexes[name] for name in self.index_names.get(table, ())]

    def constraints_of(self, table: str) -> list[Constraint]:
        """The table's constraints, in the order `constraints` holds them."""
        constraints = self.constraints
        return [constraints[(table, name)] for name in self.constraint_names.get(table, ())]

    def put_index(self, name: str, index: Index) -> None:
        """Add the index, or replace the one of that name (keeping its place)."""
        was = self.indexes.get(name)
        self._own("indexes")[name] = index
        if was is None:
            _append(self._own("index_names"), index.table, name)
        elif was.table != index.table:
            _remove(self._own("index_names"), was.table, name)
            self._own("index_names")[index.table] = tuple(
                n for n, i in self.indexes.items() if i.table == index.table
            )

    def pop_index(self, name: str) -> Index | None:
        """Drop the index of that name: what it was, or None when there was none."""
        was = self.indexes.get(name)
        if was is not None:
            del self._own("indexes")[name]
            _remove(self._own("index_names"), was.table, name)
        return was

    def put_constraint(self, table: str, name: str, constraint: Constraint) -> None:
        """Add the table's constraint, or replace the one of that name (keeping its place)."""
        key = (table, name)
        known = key in self.constraints
        self._own("constraints")[key] = constraint
        if not known:
            _append(self._own("constraint_names"), table, name)

    def pop_constraint(self, table: str, name: str) -> Constraint | None:
        """Drop the table's constraint of that name: what it was, or None."""
        was = self.constraints.get((table, name))
        if was is not None:
            del self._own("constraints")[(table, name)]
            _remove(self._own("constraint_names"), table, name)
        return was

    # --- what the history could not say ---------------------------------------------------

    def lose_everything(self, reason: str) -> None:
        """Nothing in the schema is known any more (the first reason is kept)."""
        if self.unknown is None:
            self.unknown = reason

    def taint(self, names: Iterable[str], reason: str) -> None:
        """Every object of these names is unknown from now on (one created since the schema
        became unknown too: it is no longer known again)."""
        for name in names:
            if name in self.fresh:
                self._change_fresh(name, False)
            if name not in self.tainted:
                self.own_tainted()[name] = reason

    def doubt(self, *names: str) -> str | None:
        """Why facts about these objects cannot be trusted, or None when they can."""
        for name in names:
            if self.is_fresh(name):
                continue
            if name in self.tainted:
                return self.tainted[name]
            if self.unknown is not None:
                return self.unknown
        return None

    def known_again(self, name: str) -> None:
        """The object was just created by a statement that was read: facts about it hold."""
        if name in self.tainted:
            del self.own_tainted()[name]
        if self.unknown is not None and name not in self.fresh:
            self._change_fresh(name, True)

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
        return any(column in i.columns for i in self.indexes_of(table))

    def has_null_check(self, table: str, column: str, *, valid: bool) -> bool | None:
        """A `CHECK (column IS NOT NULL)` exists on the table (validated, with `valid`)."""
        if self.table(table) is None:
            return None
        return any(
            c.not_null_of == column and (c.valid or not valid) for c in self.constraints_of(table)
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
        self.own_tables()[name] = table
        self.mine.add(name)
        self.known_again(name)

    def edit(self, name: str) -> Table | None:
        """The table, to change in place (copied first when it is shared), or None."""
        found = self.tables.get(name)
        if found is not None and name not in self.mine:
            found = self.own_tables()[name] = found.copy()
            self.mine.add(name)
        return found

    def set_column(self, table: str, column: str, **changes: object) -> None:
        """Change a known column's facts (nothing when the table or column is not known)."""
        if column in getattr(self.tables.get(table), "columns", ()):
            found = self.edit(table)
            assert found is not None
            found.columns[column] = found.columns[column].replace(**changes)

    def drop_table(self, name: str) -> None:
        if name in self.tables:
            del self.own_tables()[name]
        for index in self.index_names.get(name, ()):
            self.pop_index(index)
        for constraint in self.constraint_names.get(name, ()):
            self.pop_constraint(name, constraint)

    def rename_table(self, old: str, new: str) -> None:
        self.own_renamed()[new] = old
        for (table, column), was in list(self.renamed_columns.items()):
            if table == old:
                self.own_renamed_columns()[(new, column)] = was
        if old in self.tables:
            tables = self.own_tables()
            tables[new] = tables.pop(old)
            if old in self.mine:
                self.mine.add(new)
        for name in self.index_names.get(old, ()):
            index = self.indexes[name]
            self.put_index(name, Index(new, index.columns, index.unique))
        for name in self.constraint_names.get(old, ()):
            moved = self.pop_constraint(old, name)
            assert moved is not None
            self.put_constraint(new, name, moved)
        for (table, name), c in list(self.constraints.items()):
            if c.references == old:
                moved = Constraint(c.kind, c.columns, c.valid, new, c.not_null_of, c.allowed)
                self.put_constraint(table, name, moved)
        for name in [n for n, t in self.tables.items() if t.parent == old]:
            child = self.edit(name)
            assert child is not None
            child.parent = new
        if old in self.tainted:
            self.own_tainted()[new] = self.tainted[old]
        if old in self.fresh:
            self._change_fresh(new, True)

    def rename_column(self, table: str, old: str, new: str) -> None:
        self.own_renamed_columns()[(table, new)] = old
        found = self.edit(table)
        if found is not None and old in found.columns:
            found.columns = {new if n == old else n: c for n, c in found.columns.items()}
        for name in self.index_names.get(table, ()):
            index = self.indexes[name]
            if old in index.columns:
                columns = tuple(new if c == old else c for c in index.columns)
                self.put_index(name, Index(index.table, columns, index.unique))
        for name in self.constraint_names.get(table, ()):
            c = self.constraints[(table, name)]
            if old in c.columns or c.not_null_of == old:
                self.put_constraint(
                    table,
                    name,
                    Constraint(
                        c.kind,
                        tuple(new if x == old else x for x in c.columns),
                        c.valid,
                        c.references,
                        new if c.not_null_of == old else c.not_null_of,
                        c.allowed,
                    ),
                )

    def drop_column(self, table: str, column: str) -> None:
        found = self.edit(table)
        if found is not None:
            found.columns.pop(column, None)
        for name in self.index_names.get(table, ()):
            if column in self.indexes[name].columns:
                self.pop_index(name)
        for name in self.constraint_names.get(table, ()):
            c = self.constraints[(table, name)]
            if column in c.columns or c.not_null_of == column:
                self.pop_constraint(table, name)


def _append(names: dict[str, tuple[str, ...]], table: str, name: str) -> None:
    names[table] = (*names.get(table, ()), name)


def _remove(names: dict[str, tuple[str, ...]], table: str, name: str) -> None:
    left = tuple(n for n in names[table] if n != name)
    if left:
        names[table] = left
    else:
        del names[table]


_HANDED_OVER = (frozenset(Schema.FIELDS) - {"tables", "unknown", "tainted", "fresh"}) | {
    "index_names",
    "constraint_names",
}
"""The collections a PreviousRelease view does not read (`doubt` reads `fresh` and `tainted`)."""
