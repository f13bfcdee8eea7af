"""`Declared`: a TypeScript source's constants and functions by name, looked up from the text
when asked, the last of a name as a walk in document order meets them."""

from __future__ import annotations

from release_safety.code.parsers import parse
from release_safety.code.syntax import node_text
from release_safety.code.tsnodes import Declared

SOURCE = b"""\
const TTL = 60;
let name;
function build() {
  const TTL = 'inner';
  return TTL;
}
const { a, b } = load();
const TTL_MAX = TTL * 2;
"""


def declared() -> Declared:
    return Declared(parse("ts", SOURCE), SOURCE)


def test_the_last_declaration_of_a_name_wins_and_a_longer_name_is_not_it() -> None:
    consts = declared()
    assert node_text(consts["TTL"]) == "'inner'"
    assert node_text(consts["TTL_MAX"]) == "TTL * 2"


def test_a_function_is_itself_and_a_declaration_without_value_is_nothing() -> None:
    consts = declared()
    assert consts["build"].type == "function_declaration"
    assert "name" not in consts and consts.get("") is None
    assert "TTL" in consts and "missing" not in consts


def test_its_names_are_those_a_walk_would_record() -> None:
    assert list(declared()) == ["TTL", "build", "{ a, b }", "TTL_MAX"]
    assert len(declared()) == 4
