"""Python sources, parsed with `ast`: `os.environ["X"]` (required), `os.environ.get("X", d)`,
`os.getenv("X", d)`, `os.environ.setdefault("X", d)`, with `import os as o`,
`from os import environ, getenv` aliases, and `or` chains (`os.getenv("A") or "d"`).

A default that is itself an env read is a fallback (`os.getenv("NEW", os.getenv("OLD"))`); the
outer variable's default is then the innermost literal. Non-literal defaults are kept as their
source text. Keys that are not string literals name no variable and are skipped.

pydantic-settings: every field of a `BaseSettings` class (or of a subclass in the module) is a
variable `env_prefix` + the field name, upper-cased (`model_config = SettingsConfigDict(...)`
or a `class Config`), or its `alias` / `validation_alias` (no prefix; with `AliasChoices`, the
first name is read and the others are fallbacks). A field without a default (or with
`Field(...)`) is required. With `env_nested_delimiter`, a field holding a `BaseModel` of the
module is also read key by key (`APP_DB__HOST`). The module is read, never imported.
"""

from __future__ import annotations

import ast

from release_safety.code.pysource import segment
from release_safety.surfaces.config.reads import EnvRead, SourceError

_GETTERS = {"get", "setdefault"}


class Names:
    """How this module spells `os`, `os.environ` and `os.getenv`."""

    def __init__(self, tree: ast.Module) -> None:
        self.os = {"os"}
        self.environ: set[str] = set()
        self.getenv: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                self.os |= {a.asname or a.name for a in node.names if a.name == "os"}
            elif isinstance(node, ast.ImportFrom) and node.module == "os":
                for alias in node.names:
                    if alias.name == "environ":
                        self.environ.add(alias.asname or alias.name)
                    elif alias.name == "getenv":
                        self.getenv.add(alias.asname or alias.name)

    def is_environ(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.environ
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "environ"
            and isinstance(node.value, ast.Name)
            and node.value.id in self.os
        )

    def is_getenv(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.getenv
        if not isinstance(node, ast.Attribute):
            return False
        if node.attr == "getenv":
            return isinstance(node.value, ast.Name) and node.value.id in self.os
        return node.attr in _GETTERS and self.is_environ(node.value)


def syntax_tree(data: bytes) -> tuple[ast.Module, str]:
    """A module's syntax tree and text (SourceError when it does not parse)."""
    text = data.decode("utf-8", errors="replace")
    try:
        return ast.parse(text), text
    except SyntaxError as exc:
        raise SourceError(f"syntax error: {exc.msg}", exc.lineno or 1) from exc
    except (ValueError, RecursionError, MemoryError) as exc:
        raise SourceError(f"not parseable: {type(exc).__name__}") from exc


def reads(tree: ast.Module, text: str) -> list[EnvRead]:
    """The env reads of a parsed module whose names are literals."""
    names = Names(tree)
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    result: list[EnvRead] = _settings_classes(tree, text)
    consumed: set[ast.AST] = set()
    for node in ast.walk(tree):
        if node in consumed:
            continue
        read = _read(node, names)
        if read is None:
            continue
        name, required, default_node = read
        fallback_nodes = _nested(default_node, names)
        later = _later_in_or(node, parents)
        for value in later:
            found = _read(value, names)
            if found is not None:
                fallback_nodes += [value, *_nested(found[2], names)]
        if later and _read(later[-1], names) is None:
            default_node = later[-1]
        elif fallback_nodes:
            default_node = fallback_nodes[-1]
        default = _default(default_node, names, text)
        site = _site(node, parents, text)
        result.append(
            EnvRead(
                name=name,
                line=getattr(node, "lineno", 1),
                default=default,
                required=required and default is None,
                site=site,
            )
        )
        for fallback in fallback_nodes:
            consumed.add(fallback)
            found = _read(fallback, names)
            if found is not None:
                result.append(
                    EnvRead(
                        name=found[0],
                        line=fallback.lineno,
                        default=default,
                        site=site,
                        fallback_for=name,
                    )
                )
    return sorted(set(result), key=lambda r: (r.line, r.name))


def _key(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _read(node: ast.AST, names: Names) -> tuple[str, bool, ast.expr | None] | None:
    """(name, required, default expression) when `node` reads one env variable."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and names.is_environ(node.value)
    ):
        key = _key(node.slice)
        return (key, True, None) if key else None
    if isinstance(node, ast.Call) and names.is_getenv(node.func) and node.args:
        key = _key(node.args[0])
        if not key:
            return None
        default = node.args[1] if len(node.args) > 1 else None
        for keyword in node.keywords:
            if keyword.arg in ("default", "value"):
                default = keyword.value
        return key, False, default
    return None


def _later_in_or(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[ast.expr]:
    """The operands after `node` in its `or` chain (`os.getenv("A") or os.getenv("B") or "d"`)."""
    parent = parents.get(node)
    if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.Or):
        values = parent.values
        return values[[id(v) for v in values].index(id(node)) + 1 :]
    return []


def _nested(node: ast.expr | None, names: Names) -> list[ast.expr]:
    """Env reads nested as defaults: `getenv("NEW", getenv("OLD", getenv("OLDER")))`."""
    found: list[ast.expr] = []
    while node is not None:
        read = _read(node, names)
        if read is None:
            break
        found.append(node)
        node = read[2]
    return found


def _default(node: ast.expr | None, names: Names, text: str) -> str | None:
    while node is not None:
        read = _read(node, names)
        if read is None:
            break
        node = read[2]
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        return None if node.value is None else str(node.value)
    return segment(text, node) or ast.dump(node)


def _site(node: ast.AST, parents: dict[ast.AST, ast.AST], text: str) -> str | None:
    current: ast.AST | None = node
    for _ in range(5):
        parent = parents.get(current) if current is not None else None
        if parent is None:
            return None
        if isinstance(parent, ast.Assign) and parent.targets:
            return segment(text, parent.targets[0])
        if isinstance(parent, ast.AnnAssign | ast.AugAssign):
            return segment(text, parent.target)
        if isinstance(parent, ast.keyword) and parent.arg:
            return parent.arg
        if isinstance(parent, ast.Dict) and current in parent.values:
            key = parent.keys[parent.values.index(current)]
            return segment(text, key) if key is not None else None
        current = parent
    return None


_NO_NAMES = Names(ast.Module(body=[], type_ignores=[]))
"""No `os` names: a field's default is never an env read."""


def _class_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _settings_classes(tree: ast.Module, text: str) -> list[EnvRead]:
    """The variables pydantic-settings classes read."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    kinds: dict[str, str] = {}

    def kind(name: str, seen: frozenset[str] = frozenset()) -> str:
        if name in ("BaseSettings", "BaseModel"):
            return name
        node = classes.get(name)
        if node is None or name in seen:
            return ""
        for base in node.bases:
            found = kind(_class_name(base), seen | {name})
            if found:
                return found
        return ""

    for name in classes:
        kinds[name] = kind(name)
    reads: list[EnvRead] = []
    for name, node in classes.items():
        if kinds[name] == "BaseSettings":
            options = _settings_options(node, classes)
            prefix = options.get("env_prefix", "")
            delimiter = options.get("env_nested_delimiter") or None
            reads += _fields(node, prefix, delimiter, classes, kinds, text, name)
    return reads


def _settings_options(node: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> dict[str, str]:
    """`env_prefix` and `env_nested_delimiter` of a class, inherited from module bases."""
    options: dict[str, str] = {}
    for base in node.bases:
        parent = classes.get(_class_name(base))
        if parent is not None and parent is not node:
            options.update(_settings_options(parent, classes))
    for statement in node.body:
        pairs: list[tuple[str, ast.expr]] = []
        config = (
            statement.value
            if isinstance(statement, ast.Assign | ast.AnnAssign)
            and _target_name(statement) == "model_config"
            else None
        )
        if isinstance(config, ast.Call):
            pairs = [(k.arg, k.value) for k in config.keywords if k.arg]
        elif isinstance(config, ast.Dict):
            pairs = [
                (key, v)
                for k, v in zip(config.keys, config.values, strict=True)
                if k is not None and (key := _key(k))
            ]
        elif isinstance(statement, ast.ClassDef) and statement.name == "Config":
            pairs = [
                (_target_name(s), s.value)
                for s in statement.body
                if isinstance(s, ast.Assign) and s.value is not None
            ]
        for key, value in pairs:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                options[key] = value.value
    return options


def _target_name(statement: ast.Assign | ast.AnnAssign) -> str:
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
    return target.id if isinstance(target, ast.Name) else ""


def _fields(
    node: ast.ClassDef,
    prefix: str,
    delimiter: str | None,
    classes: dict[str, ast.ClassDef],
    kinds: dict[str, str],
    text: str,
    site: str,
    depth: int = 0,
) -> list[EnvRead]:
    reads: list[EnvRead] = []
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        field = statement.target.id
        annotation = segment(text, statement.annotation) or ""
        if field.startswith("_") or field == "model_config" or "ClassVar" in annotation:
            continue
        names, default, required = _field_spec(statement.value, text)
        here = f"{site}.{field}"
        primary = names[0] if names else (prefix + field).upper()
        line = statement.lineno
        reads.append(EnvRead(primary, line, default, required, here))
        reads += [EnvRead(n.upper(), line, default, False, here, primary) for n in names[1:]]
        nested = classes.get(_class_name(statement.annotation))
        if delimiter and nested is not None and kinds.get(nested.name) and depth < 8:
            inner = f"{primary}{delimiter}"
            reads += _fields(nested, inner, delimiter, classes, kinds, text, here, depth + 1)
    return reads


def _field_spec(value: ast.expr | None, text: str) -> tuple[list[str], str | None, bool]:
    """(env names from an alias, default, required) of a field's value."""
    if value is None:
        return [], None, True
    if not (isinstance(value, ast.Call) and _class_name(value.func) == "Field"):
        return [], _default(value, _NO_NAMES, text), False
    keywords = {k.arg: k.value for k in value.keywords if k.arg}
    names: list[str] = []
    for key in ("validation_alias", "alias"):
        alias = keywords.get(key)
        if isinstance(alias, ast.Constant) and isinstance(alias.value, str):
            names = [alias.value]
        elif isinstance(alias, ast.Call) and _class_name(alias.func) == "AliasChoices":
            names = [
                a.value
                for a in alias.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
        if names:
            break
    given = value.args[0] if value.args else keywords.get("default")
    if given is None and "default_factory" in keywords:
        return names, segment(text, keywords["default_factory"]), False
    if given is None or (isinstance(given, ast.Constant) and given.value is Ellipsis):
        return names, None, True
    return names, _default(given, _NO_NAMES, text), False
