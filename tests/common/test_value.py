"""The value classes: shown, compared, hashed and copied as the dataclasses they replace."""

from __future__ import annotations

import dataclasses

import pytest

from release_safety.common.value import HashableValue, Value
from release_safety.contract.finding import Finding, Rule
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.schema.coltypes import ColType
from release_safety.surfaces.migrations.schema.model import (
    Column,
    Constraint,
    Domain,
    Function,
    Index,
    Schema,
    Table,
)


def _as_dataclass(value: Value) -> object:
    """The dataclass a value class stands for, holding the same field values."""
    fields = [(name, object) for name in value.FIELDS]
    made = dataclasses.make_dataclass(type(value).__qualname__, fields, eq=False)
    return made(*value.field_values())


def _schema() -> Schema:
    int4 = ColType("int4", (4,), False, True)
    column = Column(int4, True, True, False, "1", frozenset({"'a'"}))
    return Schema(
        tables={"t": Table("table", {"a": column}, True, "p", False)},
        indexes={"i": Index("t", ("a",), True)},
        constraints={("t", "c"): Constraint("check", ("a",), False, None, "a", frozenset({"1"}))},
        domains={"d": Domain(ColType("text"), True, frozenset({"x"}))},
        enums={"e"},
        functions={"f": Function("select 1", "sql", "i")},
        unknown="why",
        tainted={"x": "y"},
    )


def test_the_schema_digest_is_the_text_the_dataclasses_wrote() -> None:
    schema = _schema()
    table = schema.tables["t"]
    column = table.columns["a"]
    assert repr(column) == repr(_as_dataclass(column))
    assert repr(column.type) == "ColType(name='int4', mods=(4,), array=False, builtin=True)"
    assert repr(table).startswith("Table(kind='table', columns={'a': Column(type=ColType(")
    for value in (schema.indexes["i"], schema.constraints[("t", "c")], schema.functions["f"]):
        assert repr(value) == repr(_as_dataclass(value))
    shown = repr(schema)
    assert shown.startswith("Schema(tables={'t': Table(kind='table', ")
    assert shown.endswith("fresh=set(), renamed={}, renamed_columns={})")
    assert "index_names" not in shown and "mine" not in shown  # bookkeeping is not compared


def test_the_reading_cache_key_and_a_finding_are_shown_as_dataclasses() -> None:
    reading = Reading(16, {"${schema}": "public"}, "x", "UTC")
    assert reading.key() == repr(_as_dataclass(reading))
    assert reading.key().startswith("Reading(postgres_version=16, placeholders={'${schema}'")
    finding = Finding(rule="r", severity="unknown", surface="migrations", message="m")
    assert repr(finding) == repr(_as_dataclass(finding))
    rule = Rule("id", "migrations", "breaking", "title", "why")
    assert repr(rule) == "Rule(id='id', surface='migrations', severity='breaking', " + (
        "title='title', why='why', unsafe='', safe='')"
    )


def test_values_are_equal_by_class_and_fields() -> None:
    assert _schema() == _schema()
    assert Index("t", ("a",)) == Index("t", ("a",))
    assert Index("t", ("a",)) != Index("t", ("b",))
    assert Index("t") != ("t", (), False)  # not a tuple
    assert Column() != Domain(None)


def test_hashable_values_hash_by_fields_and_mutable_ones_do_not_hash() -> None:
    assert {Column(not_null=True), Column(not_null=True)} == {Column(not_null=True)}
    assert isinstance(Column(), HashableValue)
    for mutable in (Table(), Schema()):
        assert not isinstance(mutable, HashableValue)
        with pytest.raises(TypeError, match="unhashable"):
            hash(mutable)


def test_replace_changes_the_fields_named_and_keeps_the_others() -> None:
    column = Column(ColType("text"), not_null=True, value="'x'")
    changed = column.replace(not_null=False)
    assert changed == Column(ColType("text"), not_null=False, value="'x'")
    assert column.not_null  # the original is unchanged
    finding = Finding(rule="r", severity="breaking", surface="migrations", message="m", line=3)
    assert finding.replace(acknowledged="a:1: ok").acknowledged == "a:1: ok"
    assert finding.replace(acknowledged="a:1: ok").line == 3
    with pytest.raises(TypeError):
        column.replace(colour="red")


def test_a_value_pickled_comes_back_whole() -> None:
    """Pickled (a backfill's workers, the forked surface, the lint's read-ahead), a value keeps
    every attribute, in an interpreted subclass of the compiled base too (whose own state held
    none of them)."""
    import pickle

    from release_safety.cli.inputs import Document
    from release_safety.contract.finding import Finding
    from release_safety.surfaces.migrations.schema.model import Column

    document = Document("a.sql", b"SELECT 1;", None)
    finding = Finding(
        rule="drop-column",
        severity="breaking",
        surface="migrations",
        message="gone",
        file="a.sql",
        line=3,
    )
    column = Column(None, True, True, False, "0", None)
    for value in (document, finding, column):
        again = pickle.loads(pickle.dumps(value))
        assert again == value
        assert repr(again) == repr(value)
    assert pickle.loads(pickle.dumps(finding)).line == 3
