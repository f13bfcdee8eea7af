"""A schema copy shares its collections and tables with the schema it was copied from until
either changes one (`Schema.copy`, `own_*`, `edit`): a migration never changes the schema an
earlier one left (an earlier History, the previous release's `before`). The names of each
table's indexes and constraints stay what a scan of the collections finds, in their order."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from test_lexer import TEST_SQL
from test_simpledata import _generate

from release_safety.surfaces.migrations.lint import History, _constant, apply, start
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.schema.model import Column, Constraint, Index, Schema, Table


def _assert_names_by_table(schema: Schema) -> None:
    """`index_names` and `constraint_names` hold what a scan of the collections finds."""
    indexes: dict[str, list[str]] = {}
    for name, index in schema.indexes.items():
        indexes.setdefault(index.table, []).append(name)
    constraints: dict[str, list[str]] = {}
    for table, name in schema.constraints:
        constraints.setdefault(table, []).append(name)
    assert {t: list(n) for t, n in schema.index_names.items()} == indexes
    assert {t: list(n) for t, n in schema.constraint_names.items()} == constraints


def _run_unchanged(texts: list[str]) -> History:
    """Apply the texts one after the other, each against the schema the ones before left,
    checking every earlier schema is exactly what it was."""
    reading = Reading()
    history = start(reading, Schema(unknown="unknown before the first"))
    earlier: list[tuple[History, str]] = []
    for k, text in enumerate(texts):
        if k % 25 == 0:  # a snapshot now and then (every table, column, index... in order)
            earlier.append((history, repr(history.schema)))
        _, history = apply(history, f"{k}.sql", "", _constant(text), "sql", reading, before=history)
        _assert_names_by_table(history.schema)
    for kept, snapshot in earlier:
        assert repr(kept.schema) == snapshot
        _assert_names_by_table(kept.schema)
    return history


def test_no_migration_of_the_suite_changes_an_earlier_schema() -> None:
    final = _run_unchanged(list(TEST_SQL))
    assert final.schema.tables and final.schema.indexes and final.schema.constraints


def test_no_migration_of_the_benchmark_changes_an_earlier_schema(tmp_path: Path) -> None:
    texts = [path.read_text() for path in _generate(tmp_path, 600)]
    final = _run_unchanged(texts)
    assert final.schema.renamed_columns and final.schema.enums and final.schema.fresh


def _previous_release_facts(schema: Schema, names: Iterable[str]) -> str:
    """What a PreviousRelease view reads, in full: tables with their columns, what is known
    (of `names`: each name `fresh` ever held)."""
    fresh = sorted(name for name in names if schema.is_fresh(name))
    return repr((schema.tables, schema.unknown, schema.tainted, fresh))


def test_a_handed_over_copy_keeps_what_the_previous_release_reads(tmp_path: Path) -> None:
    """`lint-migrations` keeps no earlier history: each file's schema is read only as the next
    file's previous release, so the next one changes the other collections in place; what that
    view reads stays as it was."""
    reading = Reading()
    history = History("", Schema(unknown="unknown before the first"))  # no key: not kept
    texts = [*TEST_SQL, *(path.read_text() for path in _generate(tmp_path, 300))]
    earlier: list[tuple[Schema, str]] = []
    names: set[str] = set()
    for k, text in enumerate(texts):
        if k % 25 == 0:  # the newest schema: its `fresh` is the set itself
            schema = history.schema
            earlier.append((schema, _previous_release_facts(schema, schema.fresh)))
        _, history = apply(history, f"{k}.sql", "", _constant(text), "sql", reading, before=history)
        _assert_names_by_table(history.schema)
        names |= history.schema.fresh
    assert names - history.schema.fresh  # names made unknown again since: some were
    for kept, snapshot in earlier:  # as the view reads them now, after the later files
        assert _previous_release_facts(kept, names) == snapshot
    assert earlier[-1][0].indexes is history.schema.indexes  # handed over, not copied
    assert earlier[-1][0].fresh is history.schema.fresh  # `fresh` too, its changes recorded


def test_a_copy_shares_every_collection_but_what_each_may_change() -> None:
    schema = Schema(unknown="u")  # a field the copy left out would be a new default, not it
    copied = schema.copy()
    for name in Schema.__annotations__:
        if name in ("mine", "owned"):
            assert getattr(copied, name) == set()
        else:
            assert getattr(copied, name) is getattr(schema, name), name


def test_a_copy_and_its_original_change_apart() -> None:
    original = Schema(unknown="u")
    original.add_table("t", Table(columns={"a": Column()}))
    original.put_index("t_a", Index("t", ("a",)))
    copied = original.copy()
    assert copied.tables is original.tables  # shared until one changes it

    copied.add_table("u", Table())
    copied.edit("t").columns["b"] = Column()  # type: ignore[union-attr]
    copied.pop_index("t_a")
    copied.known_again("u")
    copied.taint(["t"], "why")
    assert set(original.tables) == {"t"} and set(original.tables["t"].columns) == {"a"}
    assert set(original.indexes) == {"t_a"} and not original.tainted
    assert original.index_names == {"t": ("t_a",)} and not copied.index_names
    assert original.fresh == {"t"}

    original.rename_column("t", "a", "z")  # the original changing after the copy
    assert set(copied.tables["t"].columns) == {"a", "b"}
    assert not copied.renamed_columns and set(original.tables["t"].columns) == {"z"}


def test_names_by_table_follow_every_change() -> None:
    schema = Schema()
    schema.put_index("a", Index("t", ("x",)))
    schema.put_index("b", Index("u", ("x",)))
    schema.put_index("c", Index("t", ("y",)))
    schema.put_index("a", Index("u", ("x",)))  # the name moves to another table, in its place
    assert schema.index_names == {"t": ("c",), "u": ("a", "b")}
    schema.put_constraint("t", "k", Constraint("check", ("x",)))
    schema.put_constraint("u", "k", Constraint("check", ("y",)))
    schema.put_constraint("v", "fk", Constraint("foreign", ("x",), references="t"))
    schema.rename_table("t", "u")  # onto a table with indexes and a constraint of that name
    _assert_names_by_table(schema)
    assert schema.index_names == {"u": ("a", "b", "c")}
    assert schema.constraints[("v", "fk")].references == "u"
    schema.rename_column("u", "x", "z")
    schema.drop_column("u", "y")
    _assert_names_by_table(schema)
    assert schema.index_names == {"u": ("a", "b")} and schema.indexes["a"].columns == ("z",)
    schema.drop_table("u")
    _assert_names_by_table(schema)
    assert schema.index_names == {} and schema.constraint_names == {"v": ("fk",)}


def test_a_schema_that_handed_fresh_over_reads_it_as_it_left_it() -> None:
    """The copy changes `fresh` in place; the schema before it (and a copy of that) still
    reads the names it held, through two hand-overs."""
    first = Schema(unknown="u")
    first.known_again("a")
    first.known_again("b")  # `first` now changes its own `fresh`: the next one takes it over
    second = first.copy(hand_over=True)
    second.known_again("c")
    second.taint(["a"], "why")
    third = second.copy(hand_over=True)
    third.taint(["b"], "why")
    third.known_again("a")
    assert third.fresh is first.fresh == {"a", "c"}  # one set, changed in place
    assert [n for n in "abc" if first.is_fresh(n)] == ["a", "b"]
    assert [n for n in "abc" if second.is_fresh(n)] == ["b", "c"]
    assert first.doubt("a", "b") is None and first.doubt("c") == "u"
    assert second.doubt("a") == "why" and second.doubt("b", "c") is None
    assert first.copy().fresh == {"a", "b"} and second.copy().fresh == {"b", "c"}
