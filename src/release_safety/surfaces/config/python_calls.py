"""What one Python module says about reader functions, for `python_resolve` to follow across
files: its module-level functions (parameters, their default values, whether the body stops
the program), every call that may reach one (with its arguments, the function it sits in, a
default given by `or`), the names it imports and its string constants.

An environment read whose name is not a literal (`os.getenv(name)`, `os.environ[key]`) is kept
as a call of the built-in getter (`ENV_GET`, `ENV_ITEM`): a wrapper is then a function whose
parameter reaches a getter, and a read nothing resolves is a computed name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import release_safety.surfaces.config.python_src as python_src
from release_safety.code.pysource import segment

ENV_GET = "<os.getenv>"
ENV_ITEM = "<os.environ[]>"
_STOPS = {"exit", "abort", "fail", "panic"}


@dataclass(frozen=True)
class Value:
    """An argument as written: a literal's text (`literal`, with `text` of a string), a bare
    name (a parameter or a constant), and its source text."""

    text: str
    literal: str | None = None
    string: bool = False
    name: str | None = None
    affix: tuple[str, str] = ("", "")
    """Literal text before and after `name` (`prefix + "_URL"`, `f"{name}_FILE"`)."""

    @property
    def shown(self) -> str | None:
        """As a default: the literal, or the text; None for `None` (no default)."""
        if self.text == "None" and self.literal is None:
            return None
        return self.literal if self.literal is not None else self.text


@dataclass(frozen=True)
class Call:
    """A call of a function named `callee` (`("env_int",)`, `("util", "env_int")`)."""

    callee: tuple[str, ...]
    args: tuple[Value, ...]
    keywords: tuple[tuple[str, Value], ...]
    line: int
    scope: str | None
    """The module-level function the call is in (None at module level or in a method)."""
    params: tuple[str, ...]
    """The parameters of the function the call is in, any function."""
    orelse: Value | None = None
    site: str | None = None

    def arg(self, index: int, keyword: str) -> Value | None:
        """The argument given at position `index` or as `keyword`."""
        if index < len(self.args):
            return self.args[index]
        return dict(self.keywords).get(keyword)


@dataclass(frozen=True)
class Function:
    params: tuple[str, ...]
    defaults: tuple[Value | None, ...]
    stops: bool
    """The body raises or exits when a value it read is unset (`if v is None: raise ..`)."""
    guards: tuple[tuple[str, Value | None], ...] = ()
    """Names it tests against the environment before reading them, with what it gives when
    they are unset: `if key not in os.environ: return default`,
    `os.environ[key] if key in os.environ else d`."""


@dataclass
class Module:
    calls: list[Call] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """Local name -> (module as written, with its leading dots; the symbol, None for a module)."""
    constants: dict[str, str] = field(default_factory=dict)


def value(node: ast.expr, text: str) -> Value:
    source = segment(text, node) or ast.dump(node)
    if isinstance(node, ast.Constant) and node.value is not None:
        literal = node.value if isinstance(node.value, str) else source
        return Value(source, str(literal), isinstance(node.value, str))
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return Value(source, source)
    parts = _parts(node)
    names = [part for part in parts if isinstance(part, ast.Name)]
    strings = [p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]
    if len(names) == 1 and len(parts) > 1 and len(strings) == len(parts) - 1:
        at = parts.index(names[0])
        return Value(source, name=names[0].id, affix=("".join(strings[:at]), "".join(strings[at:])))
    return Value(source, name=node.id if isinstance(node, ast.Name) else None)


def _parts(node: ast.expr) -> list[ast.expr]:
    """The operands of a string built by `+` or an f-string, in order."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [*_parts(node.left), *_parts(node.right)]
    if isinstance(node, ast.JoinedStr):
        return [
            v.value
            if isinstance(v, ast.FormattedValue) and not v.format_spec and v.conversion == -1
            else v
            for v in node.values
        ]
    return [node]


def callee(node: ast.expr) -> tuple[str, ...] | None:
    """`f` -> ("f",), `a.f` -> ("a", "f"); None for anything else."""
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id, node.attr
    return None


def module(tree: ast.Module, text: str) -> Module:
    """The facts of one parsed module."""
    found = Module()
    names = python_src.Names(tree)
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, given = statement.targets[0], statement.value
            if (
                isinstance(target, ast.Name)
                and isinstance(given, ast.Constant)
                and isinstance(given.value, str)
            ):
                found.constants[target.id] = given.value
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            found.functions[statement.name] = _function(statement, names, text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            for alias in node.names:
                found.imports[alias.asname or alias.name] = (base, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                found.imports[local] = (alias.name if alias.asname else local, None)
    _Calls(found, names, text).visit(tree)
    return found


def _function(
    node: ast.FunctionDef | ast.AsyncFunctionDef, names: python_src.Names, text: str
) -> Function:
    positional = [*node.args.posonlyargs, *node.args.args]
    defaults: list[Value | None] = [None] * (len(positional) - len(node.args.defaults))
    defaults += [value(d, text) for d in node.args.defaults]
    kwonly = [value(d, text) if d is not None else None for d in node.args.kw_defaults]
    assigned = {
        target.id
        for n in ast.walk(node)
        for target in (
            n.targets
            if isinstance(n, ast.Assign)
            else [n.target]
            if isinstance(n, ast.NamedExpr)
            else []
        )
        if isinstance(target, ast.Name)
    }
    stops = any(
        isinstance(n, ast.If) and _unset(n.test) in assigned and any(map(_stop, n.body))
        for n in ast.walk(node)
    )
    return Function(
        tuple(a.arg for a in [*positional, *node.args.kwonlyargs]),
        (*defaults, *kwonly),
        stops,
        tuple(_guards(node, names, text)),
    )


def _guards(
    node: ast.FunctionDef | ast.AsyncFunctionDef, names: python_src.Names, text: str
) -> list[tuple[str, Value | None]]:
    found: list[tuple[str, Value | None]] = []
    for n in ast.walk(node):
        if not isinstance(n, ast.If | ast.IfExp):
            continue
        test = n.test
        if not (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.In | ast.NotIn)
            and names.is_environ(test.comparators[0])
        ):
            continue
        unset = n.orelse if isinstance(test.ops[0], ast.In) else n.body
        given: ast.expr | None = None
        if isinstance(unset, ast.expr):
            given = unset
        elif unset and isinstance(unset[0], ast.Return):
            given = unset[0].value
        found.append((test.left.id, value(given, text) if given is not None else None))
    return found


def _unset(test: ast.expr) -> str | None:
    """The name an `if` tests for being unset: `not v`, `v is None`, `v == ""`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand.id if isinstance(test.operand, ast.Name) else None
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is | ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value in (None, "")
    ):
        return test.left.id
    return None


def _stop(statement: ast.stmt) -> bool:
    """A statement that stops the program: `raise`, `sys.exit(..)`, `abort(..)`."""
    if isinstance(statement, ast.Raise):
        return True
    call = statement.value if isinstance(statement, ast.Expr) else None
    name = callee(call.func) if isinstance(call, ast.Call) else None
    return name is not None and name[-1] in _STOPS


class _Calls(ast.NodeVisitor):
    """Every call with arguments, with the function it is in."""

    def __init__(self, found: Module, names: python_src.Names, text: str) -> None:
        self.found = found
        self.names = names
        self.text = text
        self.scope: list[tuple[str | None, tuple[str, ...]]] = [(None, ())]
        self.orelse: dict[int, ast.expr] = {}
        self.sites: dict[int, str] = {}

    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        arguments = node.args
        params = tuple(
            a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        )
        top = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and len(self.scope) == 1
        name = node.name if top and not isinstance(node, ast.Lambda) else None
        self.scope.append((name, params))
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _enter

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append((None, ()))
        self.generic_visit(node)
        self.scope.pop()

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        if isinstance(node.op, ast.Or):
            for first, later in zip(node.values, node.values[1:], strict=False):
                self.orelse[id(first)] = later
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        site = segment(self.text, node.targets[0])
        if site:
            for child in ast.walk(node.value):
                self.sites.setdefault(id(child), site)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        site = segment(self.text, node.target)
        if site and node.value is not None:
            for child in ast.walk(node.value):
                self.sites.setdefault(id(child), site)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = callee(node.func)
        args = [value(a, self.text) for a in node.args]
        keywords = [(k.arg, value(k.value, self.text)) for k in node.keywords if k.arg]
        if self.names.is_getenv(node.func) and node.args:
            name = (ENV_GET,)
            keywords = [(("default" if k == "value" else k), v) for k, v in keywords]
            if args[0].string:
                name = None  # a literal name: read by python_src
        if name is not None and (args or keywords):
            self._add(node, name, args, keywords)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Load) and self.names.is_environ(node.value):
            key = value(node.slice, self.text)
            if not key.string:
                self._add(node, (ENV_ITEM,), [key], [])
        self.generic_visit(node)

    def _add(
        self,
        node: ast.expr,
        name: tuple[str, ...],
        args: list[Value],
        keywords: list[tuple[str, Value]],
    ) -> None:
        scope, params = self.scope[-1]
        later = self.orelse.get(id(node))
        self.found.calls.append(
            Call(
                name,
                tuple(args),
                tuple(keywords),
                node.lineno,
                scope,
                params,
                value(later, self.text) if later is not None else None,
                self.sites.get(id(node)),
            )
        )
