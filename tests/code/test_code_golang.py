"""Go string literals and constant string expressions as the Go specification reads them."""

from __future__ import annotations

import pytest
from tree_sitter import Node

from release_safety.code.golang import string_expression, string_value
from release_safety.code.jsvalues import Unknown
from release_safety.code.parsers import parse


def _expression(source: str) -> Node:
    """The expression of `var x = <source>` in a Go file."""
    root = parse("go", f"package p\n\nvar x = {source}\n".encode())
    spec = root.named_children[1].named_children[0]
    value = spec.child_by_field_name("value")
    assert value is not None
    return value.named_children[0]


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ('"a\\tb\\n"', "a\tb\n"),
        ('"\\x41\\u00e9\\U0001F600\\101\\"\\\\"', 'A\u00e9\U0001f600A"\\'),
        ("`C:\\path\\n`", "C:\\path\\n"),  # no escapes in a raw string
        ("`a\r\nb`", "a\nb"),  # Go drops a raw string's carriage returns
    ],
)
def test_a_string_literal_is_its_value(source: str, value: str) -> None:
    assert string_value(_expression(source)) == value


def test_a_string_expression_of_literals_and_bound_names_is_known() -> None:
    node = _expression('("ALTER TABLE " + `t`) + suffix')
    assert string_expression(node, {"suffix": " ADD c int"}) == "ALTER TABLE t ADD c int"


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ('fmt.Sprintf("DROP TABLE %s", t)', '`fmt.Sprintf("DROP TABLE %s", t)`'),
        ('"DROP TABLE " + table', "`table`"),
        ("42", "`42`"),
    ],
)
def test_anything_else_is_unknown_naming_the_construct(source: str, named: str) -> None:
    found = string_expression(_expression(source), {})
    assert isinstance(found, Unknown) and found.reason.startswith(named)
    assert string_value(_expression(source)) is None
