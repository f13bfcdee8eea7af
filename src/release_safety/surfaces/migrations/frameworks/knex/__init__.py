"""knex migrations (`.ts` / `.js`): the SQL statements their `up` function makes PostgreSQL run.

- `values`: the JavaScript value model;
- `interpreter`: tree-sitter's syntax tree of the file, run far enough to know which SQL knex
  sends;
- `modules`: constants imported from other files of the repository;
- `schema_builder`: the knex instance, `knex.schema`, query builders and `knex.raw`;
- `table_compiler`: a `createTable` / `alterTable` callback compiled to PostgreSQL statements;
- `sql`: quoting, literals and raw fragments as knex writes them.
"""

from __future__ import annotations

from tree_sitter import Node

from release_safety.surfaces.migrations.frameworks.knex.interpreter import (
    Closure,
    Interpreter,
    ReadModule,
    TooManySteps,
    parse,
)
from release_safety.surfaces.migrations.frameworks.knex.modules import Modules
from release_safety.surfaces.migrations.frameworks.knex.schema_builder import Knex
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

__all__ = ["ReadModule", "extract_knex"]


def extract_knex(text: str, path: str, *, read_module: ReadModule | None = None) -> Extracted:
    """The statements a knex migration's `up` runs, and whether they run in a transaction.

    `read_module`, when given, returns the text of another file of the repository by path (or
    None); relative imports are then resolved through it, and the constants they export
    (strings, numbers, lists and objects of them, such as table names) are used. Without it, or
    for anything else imported, the value is only known at run time.
    """
    try:
        return _extract(text, path, read_module)
    except Exception as exc:
        return Extracted([Statement(None, 1, f"knex migration not analysed: {_describe(exc)}")])


def _describe(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nesting too deep"
    if isinstance(exc, TooManySteps):
        return "too much evaluation (loops or recursion)"
    return f"{type(exc).__name__}: {exc}"


def _extract(text: str, path: str, read_module: ReadModule | None) -> Extracted:
    source, root = parse(text, path)
    if root.has_error:
        line = _first_error_line(root)
        return Extracted([Statement(None, 1, f"knex migration does not parse (line {line})")])
    interpreter = Interpreter(source, Modules(path, read_module))
    interpreter.run_module(root)
    config = interpreter.exports.get("config")
    transactional = not (isinstance(config, dict) and config.get("transaction") is False)
    up = interpreter.exports.get("up", interpreter.module.lookup_local("up"))
    if not isinstance(up, Closure):
        return Extracted([Statement(None, 1, "no up function found")], transactional)
    interpreter.transactional = transactional
    interpreter.execute(interpreter.invoke(up, [Knex()]))
    return Extracted(interpreter.statements, transactional, transactional)


def _first_error_line(node: Node) -> int:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR" or current.is_missing:
            return current.start_point[0] + 1
        stack.extend(reversed([c for c in current.children if c.has_error or c.is_missing]))
    return 1
