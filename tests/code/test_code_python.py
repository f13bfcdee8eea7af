"""The Python reader: literals, a list's items each on its own, imports and the repository's
classes they name (re-exports followed), without importing anything."""

from __future__ import annotations

import ast

from release_safety.code import python
from release_safety.code.jsvalues import Unknown


def _expr(text: str) -> ast.expr:
    statement = ast.parse(text).body[0]
    assert isinstance(statement, ast.Expr)
    return statement.value


def test_literals_evaluate_and_what_runs_is_unknown_naming_it() -> None:
    assert python.evaluate(_expr("{'a': (1, -2.5), 'b': ['x' 'y', None]}")) == {
        "a": (1, -2.5),
        "b": ["xy", None],
    }
    assert python.evaluate(_expr("TABLE + '_id'"), {"TABLE": "users"}) == "users_id"
    assert python.evaluate(_expr("f'{x}'")) == Unknown("the f-string `f'{x}'`")
    assert python.evaluate(_expr("settings.NAME")) == Unknown(
        "`settings.NAME`, computed at run time"
    )


def test_a_lists_items_keep_their_values_beside_one_computed_at_run_time() -> None:
    node = _expr("[swappable_dependency(settings.AUTH_USER_MODEL), ('shop', '0001')]")
    items = python.elements(node)
    assert items is not None and items[1] == ("shop", "0001")
    assert isinstance(items[0], Unknown)
    assert isinstance(python.evaluate(node), Unknown)


def test_a_class_is_found_through_imports_and_re_exports() -> None:
    files = {
        "app/types/__init__.py": "from app.types.guid import GUID\n",
        "app/types/guid.py": "class GUID:\n    impl = 'uuid'\n",
    }
    bound = python.imports(ast.parse("import app.types\nfrom app.types import GUID as G\n"))
    assert bound == {"app": "app", "G": "app.types.GUID"}
    for written in ("app.types.GUID", "G"):
        found = python.find_class(written, bound, files.get)
        assert found is not None and found[0].name == "GUID"
    assert python.find_class("sqlalchemy.Integer", bound, files.get) is None
