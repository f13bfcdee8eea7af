"""Every language of the code layer parses with its own grammar, one parser each."""

from __future__ import annotations

import pytest

from release_safety.code import parsers

SOURCES = {
    "ts": b"const a: number = 1;\n",
    "tsx": b"const a = <div>{1}</div>;\n",
    "js": b"module.exports = { a: 1 };\n",
    "go": b"package main\nfunc main() {}\n",
    "rust": b"fn main() { let a: u8 = 1; }\n",
    "ruby": b"add_column :users, :name, :string\n",
    "elixir": b"defmodule A do\n  def f, do: :ok\nend\n",
}


@pytest.mark.parametrize("name", sorted(parsers.LANGUAGES))
def test_each_language_parses_its_own_source(name: str) -> None:
    assert not parsers.parse(name, SOURCES[name]).has_error
    assert parsers.parser(name) is parsers.parser(name)


def test_another_languages_source_is_a_syntax_error() -> None:
    assert parsers.parse("go", SOURCES["ruby"]).has_error
