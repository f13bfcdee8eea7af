"""The Ruby reader: calls, arguments, blocks, constants and the value of literals, as a Rails
migration writes them."""

from __future__ import annotations

from tree_sitter import Node

from release_safety.code import ruby
from release_safety.code.jsvalues import Unknown
from release_safety.code.literals import Symbol

MIGRATION = b"""\
class AddName < ActiveRecord::Migration[7.1]
  TABLE = :users
  disable_ddl_transaction!

  def change
    add_column TABLE, :name, :string, default: "x", null: false
    add_index :users, [:a, :b], algorithm: :concurrently, :name => 'idx'
    create_table :accounts do |t|
      t.string "email", limit: 3
    end
    execute <<~SQL
      UPDATE users
        SET a = 1
    SQL
  end
end
"""


def _class(source: bytes) -> Node:
    root = ruby.parse(source)
    assert not root.has_error
    return root.named_children[0]


def _method_calls(source: bytes) -> list[Node]:
    method = next(s for s in ruby.statements(_class(source)) if s.type == "method")
    return ruby.statements(method)


def test_calls_arguments_and_keywords_are_read() -> None:
    constants = ruby.constants(ruby.parse(MIGRATION))
    add_column, add_index, create_table, execute = _method_calls(MIGRATION)
    positional, keywords = ruby.arguments(add_column)
    assert ruby.call_name(add_column) == "add_column"
    assert [ruby.evaluate(arg, constants) for arg in positional] == [
        Symbol("users"),
        Symbol("name"),
        Symbol("string"),
    ]
    assert {k: ruby.evaluate(v) for k, v in keywords.items()} == {"default": "x", "null": False}
    _, index_keywords = ruby.arguments(add_index)
    assert {k: ruby.evaluate(v) for k, v in index_keywords.items()} == {
        "algorithm": Symbol("concurrently"),
        "name": "idx",
    }
    block = ruby.block(create_table)
    assert block is not None and ruby.block_parameters(block) == ["t"]
    (column,) = ruby.statements(block)
    target = ruby.receiver(column)
    assert ruby.call_name(column) == "string" and target is not None
    assert ruby.evaluate(ruby.arguments(execute)[0][0]) == "UPDATE users\n  SET a = 1\n"


def test_a_class_level_call_without_arguments_is_a_call() -> None:
    first = next(s for s in ruby.statements(_class(MIGRATION)) if s.type != "assignment")
    assert ruby.call_name(first) == "disable_ddl_transaction!"


def _value(expression: str, names: dict[str, object] | None = None) -> object:
    root = ruby.parse(f"x = {expression}\n".encode())
    assert not root.has_error, expression
    right = root.named_children[0].child_by_field_name("right")
    assert right is not None
    return ruby.evaluate(right, names)


def test_literals_evaluate_as_ruby_does() -> None:
    assert _value('"tab\\tend"') == "tab\tend"
    assert _value("'it\\'s \\n'") == "it's \\n"
    assert _value("%w[a b]") == ["a", "b"]
    assert _value("%i[a b]") == [Symbol("a"), Symbol("b")]
    assert _value(':"quoted sym"') == Symbol("quoted sym")
    assert _value('{a: 1, "b" => 2.5, :c => nil}') == {"a": 1, "b": 2.5, "c": None}
    assert _value("0x1F") == 31 and _value("1_000") == 1000 and _value("-3") == -3
    assert _value('"a" "b"') == "ab" and _value('"a" + "b"') == "ab"
    assert _value('"  a   b ".squish') == "a b"
    assert _value('"users".to_sym') == Symbol("users")


def test_heredocs_keep_or_strip_indentation_by_their_kind() -> None:
    assert _value("<<~SQL\n    one\n      two\n  SQL") == "one\n  two\n"
    assert _value("<<-SQL\n  one\n  SQL") == "  one\n"
    assert _value("<<~'RAW'\n  a\\nb\n  RAW") == "a\\nb\n"
    assert _value("<<-SQL.squish\n  UPDATE a\n  SET b = 1\n  SQL") == "UPDATE a SET b = 1"


def test_what_runs_is_unknown_naming_it() -> None:
    interpolated = _value('"a #{name}"')
    assert isinstance(interpolated, Unknown) and "#{name}" in interpolated.reason
    constant = _value("Foo::BAR")
    assert isinstance(constant, Unknown) and "Foo::BAR" in constant.reason
    call = _value("User.table_name")
    assert isinstance(call, Unknown) and "User.table_name" in call.reason
    assert _value("[1, compute]") == Unknown("the variable compute")
    assert _value("name", {"name": "users"}) == "users"


def test_a_constant_assigned_twice_is_unknown() -> None:
    found = ruby.constants(ruby.parse(b"A = 1\nB = A\nA = 2\ndef m\n  C = 3\nend\n"))
    assert found["B"] == 1 and isinstance(found["A"], Unknown) and "C" not in found
