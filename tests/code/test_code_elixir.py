"""The Elixir reader: calls, keyword arguments, `do` blocks, module attributes and the value of
literals, as an Ecto migration writes them."""

from __future__ import annotations

from tree_sitter import Node

from release_safety.code import elixir
from release_safety.code.jsvalues import Unknown
from release_safety.code.literals import Symbol

MIGRATION = b'''\
defmodule MyApp.Repo.Migrations.AddName do
  use Ecto.Migration
  @disable_ddl_transaction true
  @table "users"

  def change do
    alter table(:users) do
      add :name, :string, default: "x", null: false
    end
    create index(:users, [:a, :b], concurrently: true)
    execute """
      UPDATE users
        SET a = '\\\\n'
    """
    execute @table
    repo().query!("SELECT 1")
  end
end
'''


def _module_body() -> Node | None:
    root = elixir.parse(MIGRATION)
    assert not root.has_error
    return elixir.do_block(root.named_children[0])


def test_calls_blocks_and_attributes_are_read() -> None:
    body = _module_body()
    attributes = elixir.attributes(body)
    assert attributes == {"disable_ddl_transaction": True, "table": "users"}
    change = next(s for s in elixir.statements(body) if elixir.call_name(s) == "def")
    alter, create, execute, execute_attribute, query = elixir.statements(elixir.do_block(change))
    (table,), _ = elixir.arguments(alter)
    assert elixir.call_name(table) == "table"
    assert [elixir.evaluate(a) for a in elixir.arguments(table)[0]] == [Symbol("users")]
    (add,) = elixir.statements(elixir.do_block(alter))
    positional, keywords = elixir.arguments(add)
    assert [elixir.evaluate(a) for a in positional] == [Symbol("name"), Symbol("string")]
    assert {k: elixir.evaluate(v) for k, v in keywords.items()} == {"default": "x", "null": False}
    (index,), _ = elixir.arguments(create)
    index_args, index_keywords = elixir.arguments(index)
    assert [elixir.evaluate(a) for a in index_args] == [Symbol("users"), [Symbol("a"), Symbol("b")]]
    assert elixir.evaluate(index_keywords["concurrently"]) is True
    assert elixir.evaluate(elixir.arguments(execute)[0][0]) == "  UPDATE users\n    SET a = '\\n'\n"
    scope = {f"@{k}": v for k, v in attributes.items()}
    assert elixir.evaluate(elixir.arguments(execute_attribute)[0][0], scope) == "users"
    assert elixir.call_name(query) == "repo().query!"


def _value(expression: str) -> object:
    root = elixir.parse(f"x = {expression}\n".encode())
    assert not root.has_error, expression
    right = root.named_children[0].child_by_field_name("right")
    assert right is not None
    return elixir.evaluate(right)


def test_literals_evaluate_as_elixir_does() -> None:
    assert _value('"tab\\tend"') == "tab\tend"
    assert _value("~S(raw \\n)") == "raw \\n"
    assert _value("~s(esc \\t)") == "esc \t"
    assert _value(':"quoted atom"') == Symbol("quoted atom")
    assert _value("[a: 1, b: nil]") == {"a": 1, "b": None}
    assert _value("%{a: 1.5}") == {"a": 1.5}
    assert _value("-1_000") == -1000
    assert _value('"a" <> "b"') == "ab"


def test_what_runs_is_unknown_naming_it() -> None:
    interpolated = _value('"a #{name}"')
    assert isinstance(interpolated, Unknown) and "#{name}" in interpolated.reason
    attribute = _value("@missing")
    assert attribute == Unknown("the module attribute @missing")
    call = _value("Application.get_env(:app, :table)")
    assert isinstance(call, Unknown) and "Application.get_env" in call.reason
    assert isinstance(_value("~r/re/"), Unknown)
