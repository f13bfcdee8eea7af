"""Environment reads of the TypeScript / JavaScript files of one ref that go through the
repository's own reader functions, resolved across files.

- A function whose parameter names an env read (`process.env[key]`), or is passed as the name
  to another reader, is a reader, through any depth of wrappers and across files (imports,
  `export function`, arrow functions, methods of an object or a class: `config.get('X')`,
  `this.get('X')`). Each call with a string literal, or a `const` of the file or of an
  imported module, is a read of that variable.
- Its default: a `||` / `??` operand beside the call (`getInt('X') || 5000`), or the one the
  reader applies (`process.env[key] ?? fallback`, a parameter given at the call or the
  parameter's own default, `(key, d = 'x')`). A reader that throws or exits the process when
  the value is unset (`if (!value) throw ...`) makes the variable required.
- A `process.env[expr]` whose name cannot be followed, and a reader called with a name that
  is not a literal or a constant, are `Gap`s; a config library the surface does not model
  (node-config, nconf, rc, dotenv-extended), when a source imports it, is a blocking `Gap`
  naming it. env-var, convict and @nestjs/config are `tslibs`'s.

Each file's facts are taken once per blob id; literal `process.env.X` reads and env schemas
are `typescript.parse`'s.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, partial
from itertools import repeat

from tree_sitter import Node

from release_safety.code.memo import Memo
from release_safety.code.parsers import tree
from release_safety.code.syntax import call_arguments, node_text
from release_safety.code.tsnodes import (
    WRAPPERS,
    is_process_env,
    key_name,
    literal_of,
    written,
)
from release_safety.git.snapshot import Snapshot
from release_safety.surfaces.config.reads import EnvRead, Gap
from release_safety.surfaces.config.tslibs import MODELLED, library_reads
from release_safety.surfaces.config.typescript import site_of, throws

UNMODELLED = {
    "config": "node-config",
    "nconf": "nconf",
    "rc": "rc",
    "dotenv-extended": "dotenv-extended",
}
"""Config libraries whose reads the surface does not model: module name -> shown name."""

_FUNCTIONS = {"function_declaration", "function_expression", "arrow_function", "method_definition"}


@dataclass(frozen=True)
class Arg:
    """A call's argument as the resolver needs it: a `literal` (its value), a `param` of the
    enclosing function (its index), a `name` (an identifier the file does not define), or
    `other` (its source text)."""

    kind: str
    value: str


@dataclass(frozen=True)
class Site:
    """A call, or a `process.env[expr]` read (`callee` empty), in a function (`within`)."""

    callee: tuple[str, ...]
    args: tuple[Arg, ...]
    line: int
    within: str | None
    default: Arg | None
    text: str
    assigned: str | None = None
    """Where the value goes (the assigned name or object key): a rename usually keeps it."""


@dataclass(frozen=True)
class Func:
    key: str
    params: tuple[str, ...]
    param_defaults: tuple[str | None, ...]
    throws: bool
    line: int
    fallback: int | None = None
    """The parameter it returns when its first parameter, a value, is unset
    (`envPositiveInteger(value, fallback)`: `Number(value) || fallback`)."""


@dataclass
class Facts:
    """What one file says that the resolver needs (no tree nodes: kept per blob id)."""

    funcs: dict[str, Func] = field(default_factory=dict)
    sites: list[Site] = field(default_factory=list)
    consts: dict[str, str] = field(default_factory=dict)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    libraries: list[tuple[str, int]] = field(default_factory=list)
    direct: list[EnvRead | Gap] = field(default_factory=list)
    """What the config libraries `tslibs` models read."""


@dataclass(frozen=True)
class Reader:
    """A function reading the variable named by its parameter `name`; `default` is a
    `literal` or the `param` holding it."""

    path: str
    func: Func
    name: int
    default: Arg | None
    required: bool


_FACTS: Memo[tuple[str, str], Facts] = Memo(65536)


@dataclass(frozen=True)
class Resolved:
    """The reads and gaps of one ref's files (path, what), and the files parsed for them, in
    the order of the files given: the others cannot change the answer."""

    located: list[tuple[str, EnvRead | Gap]]
    parsed: tuple[str, ...]


def reads(snapshot: Snapshot, files: Mapping[str, tuple[str, str]]) -> Resolved:
    """The reads through reader functions and the gaps of the files (path -> (dialect, blob
    id)) of one ref, parsing only the files an environment read can be reached from: those
    whose text can start one (`may_read`), and those the resolver then asks for (a module
    they import, every file naming a reader function or a function an env read is passed to)."""
    texts = dict(snapshot.read_each(list(files)))
    texts = {path: texts.get(path, b"") for path in files}  # no blob: nothing to read
    reading = [path for path in files if may_read(texts[path])]
    resolver = _Resolver(files, texts)
    located = resolver.run([path for path in reading if _unasked(texts[path], *files[path])])
    parsed = {*reading, *resolver.facts}
    return Resolved(located, tuple(path for path in files if path in parsed))


_LIBRARIES = tuple(
    f"{quote}{module}{quote}".encode()
    for module in sorted({*UNMODELLED, *MODELLED})
    for quote in "'\"`"
)
"""A config library's name as an import names it (`'config'`), lower-cased."""

_OPENINGS = re.compile(b"|".join(re.escape(word) for word in (b"env", *_LIBRARIES)))
"""What every read the readers model starts from, lower-cased: `env` (`process.env`, `Bun.env`,
`import.meta.env`, `Deno.env`, `cleanEnv`, `createEnv`), or a config library imported by name."""


def may_read(text: bytes) -> bool:
    """Whether a source may read the environment itself: it holds one of `_OPENINGS`. A file
    without any still reads through a reader function it calls (found by the resolver)."""
    return _OPENINGS.search(text.lower()) is not None


_UNASKED: Memo[tuple[str, str], bool] = Memo(65536)


def _unasked(text: bytes, dialect: str, blob: str) -> bool:
    """Whether a file's facts add to the answer before any other file asks for them: it
    imports a config library, indexes the environment with a computed name, or passes an env
    read to a function first (`positive(process.env.TTL)`). Its other facts (functions,
    constants, calls) matter to a file that imports it, names one of its functions, or
    is a reader's caller: the resolver asks for those."""
    lowered = text.lower()
    if any(library in lowered for library in _LIBRARIES):
        return True
    return _UNASKED.get((dialect, blob), partial(_env_sites, text, dialect))


def _env_sites(text: bytes, dialect: str) -> bool:
    """Whether a site `_facts` keeps may hold an env read: `process.env[...]` by a computed
    name, or an env read as an argument of a call (`_site`: the first, through wrappers)."""
    root = tree(dialect, text).root_node
    for found in re.finditer(rb"env", text):
        name = root.named_descendant_for_byte_range(found.start(), found.end())
        env = name.parent if name is not None else None
        if env is None or env.parent is None or not is_process_env(env):
            continue
        read = env.parent
        index = read.child_by_field_name("index")
        if read.type == "subscript_expression" and literal_of(index) is None:
            return True
        while read.parent is not None and read.parent.type in WRAPPERS:
            read = read.parent
        if read.parent is not None and read.parent.type == "arguments":
            return True
    return False


class _Resolver:
    """Each file's facts are taken when first asked for: the files given to `run`, the modules
    they import, and every file whose text names a function the answer depends on (a reader,
    or a function an env read is passed to), so the answer is the one every file's facts give."""

    def __init__(self, files: Mapping[str, tuple[str, str]], texts: Mapping[str, bytes]) -> None:
        self.files = files
        self.texts = texts
        self.facts: dict[str, Facts] = {}
        self.by_key: dict[str, list[str]] = {}
        self.searched: set[str] = set()
        self.readers: dict[tuple[str, str], Reader] = {}

    def load(self, path: str) -> Facts:
        """The facts of a file of the ref (taken once per blob id)."""
        found = self.facts.get(path)
        if found is None:
            dialect, blob = self.files[path]
            data = self.texts.get(path, b"")
            found = _FACTS.get((dialect, blob), partial(_facts, data, dialect))
            self.facts[path] = found
            for key in found.funcs:
                self.by_key.setdefault(key, []).append(path)
        return found

    def defining(self, key: str) -> list[str]:
        """Every file of the ref that defines a function `key`: each file whose text names
        all of its parts is parsed (a definition names them)."""
        if key not in self.searched:
            self.searched.add(key)
            for path in _naming(self.texts, key):
                self.load(path)
        return self.by_key.get(key, [])

    def run(self, first: list[str]) -> list[tuple[str, EnvRead | Gap]]:
        """What the files say, with the files `first` and each file asked for parsed: again
        until no answer asks for a file not yet parsed."""
        for path in first:
            self.load(path)
        while True:
            parsed = len(self.facts)
            self.readers = {}
            self._find_readers()
            for key in {key for _, key in self.readers}:
                self.defining(key)  # every caller of a reader names it
            if len(self.facts) > parsed:
                continue
            found = self.located()
            if len(self.facts) == parsed:
                return found

    def parsed(self) -> list[tuple[str, Facts]]:
        """The files parsed, in the order given."""
        return [(path, self.facts[path]) for path in self.files if path in self.facts]

    def module(self, path: str, spec: str) -> str | None:
        """The file of the ref a relative import names."""
        if not spec.startswith("."):
            return None
        base = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
        stem = base.rsplit(".", 1)[0] if base.endswith((".js", ".mjs", ".cjs")) else base
        for candidate in (base, stem):
            for suffix in ("", ".ts", ".tsx", ".mts", ".js", ".mjs", ".cjs", "/index.ts"):
                if candidate + suffix in self.files:
                    return candidate + suffix
        return None

    def function(
        self, path: str, callee: tuple[str, ...], within: str | None, readers: bool = False
    ) -> tuple[str, str] | None:
        """The (file, key) of the function a call names, when the ref defines it; with
        `readers`, None for a function no reader shares the name of, found elsewhere than in
        the file and the module it imports (what that call reads is nothing then)."""
        if not callee:
            return None
        head, last = callee[0], callee[-1]
        imports = self.facts[path].imports
        if len(callee) == 1:
            key = head
        elif head == "this" and within is not None and "." in within:
            key = f"{within.rsplit('.', 1)[0]}.{last}"
        else:
            key = f"{callee[-2]}.{last}"
        if key in self.facts[path].funcs:
            return path, key
        local = callee[-2] if len(callee) > 1 else head
        if local in imports:
            spec, imported = imports[local]
            target = self.module(path, spec)
            named = local if imported == "default" else imported
            wanted = last if imported == "*" else named if len(callee) == 1 else f"{named}.{last}"
            if target is not None and wanted in self.load(target).funcs:
                return target, wanted
            key = wanted
        if readers and all(known != key for _, known in self.readers):
            return None
        found = self.defining(key)
        return (found[0], key) if len(found) == 1 else None

    def constant(self, path: str, name: str) -> str | None:
        """A string `const` of the file, or of the module it imports the name from."""
        found = self.facts[path].consts.get(name)
        if found is not None or name not in self.facts[path].imports:
            return found
        spec, imported = self.facts[path].imports[name]
        target = self.module(path, spec)
        return None if target is None else self.load(target).consts.get(imported)

    def _find_readers(self) -> None:
        for path, found in self.parsed():
            for site in found.sites:
                func = found.funcs.get(site.within or "")
                if site.callee or func is None or site.args[0].kind != "param":
                    continue
                default = site.default if site.default and site.default.kind != "other" else None
                self._add(path, func, int(site.args[0].value), default, func.throws)
        for _ in range(16):
            grown = False
            for path, found in self.parsed():
                for site in found.sites:
                    func = found.funcs.get(site.within or "")
                    reader = self._reader(path, site)
                    if func is None or reader is None or (path, func.key) in self.readers:
                        continue
                    arg = site.args[reader.name] if reader.name < len(site.args) else None
                    if arg is None or arg.kind != "param":
                        continue
                    default = self._default(site, reader)
                    required = (reader.required or func.throws) and default is None
                    grown |= self._add(path, func, int(arg.value), default, required)
            if not grown:
                return

    def _add(self, path: str, func: Func, name: int, default: Arg | None, required: bool) -> bool:
        if (path, func.key) in self.readers:
            return False
        self.readers[path, func.key] = Reader(path, func, name, default, required)
        return True

    def _reader(self, path: str, site: Site) -> Reader | None:
        target = self.function(path, site.callee, site.within, readers=True)
        return None if target is None else self.readers.get(target)

    def _default(self, site: Site, reader: Reader) -> Arg | None:
        """The default a call gives: beside it, else the reader's (a literal, or the
        argument or parameter default of the parameter that holds it)."""
        if site.default is not None:
            return site.default
        if reader.default is None or reader.default.kind != "param":
            return reader.default
        index = int(reader.default.value)
        if index < len(site.args):
            return site.args[index]
        given = reader.func.param_defaults[index] if index < len(reader.func.params) else None
        return None if given is None else Arg("literal", given)

    def located(self) -> list[tuple[str, EnvRead | Gap]]:
        found: list[tuple[str, EnvRead | Gap]] = []
        for path, facts in self.parsed():
            for library, line in facts.libraries:
                found.append((path, _library_gap(path, library, line)))
            found += [(path, item) for item in facts.direct]
            for site in facts.sites:
                found += [(path, item) for item in self._site(path, site)]
        return found

    def _valued(self, path: str, site: Site) -> list[EnvRead | Gap]:
        """`envPositiveInteger(process.env.X, 30_000)`: X's default is the argument the
        function falls back to (the read itself is `typescript.parse`'s)."""
        target = self.function(path, site.callee, site.within)
        func = self.facts[target[0]].funcs[target[1]] if target else None
        if func is None or func.fallback is None or site.args[0].kind != "env":
            return []
        given = site.args[func.fallback] if func.fallback < len(site.args) else None
        default = given.value if given is not None and given.kind == "literal" else None
        if given is None:
            default = func.param_defaults[func.fallback]
        if default is None:
            return []
        return [EnvRead(site.args[0].value, site.line, default=default, site=site.assigned)]

    def _site(self, path: str, site: Site) -> list[EnvRead | Gap]:
        if site.callee and site.args and site.args[0].kind == "env":
            return self._valued(path, site)
        reader = self._reader(path, site) if site.callee else None
        if site.callee and reader is None:
            return []
        index = reader.name if reader is not None else 0
        arg = site.args[index] if index < len(site.args) else Arg("other", "")
        if arg.kind == "param" and (path, site.within or "") in self.readers:
            return []
        name = arg.value if arg.kind == "literal" else None
        if arg.kind == "name":
            name = self.constant(path, arg.value)
        if name is None:
            return [_gap(site, reader, arg)]
        default = self._default(site, reader) if reader is not None else site.default
        shown = None if default is None else default.value
        within = self.facts[path].funcs.get(site.within or "")
        if default is not None and default.kind == "param" and within is not None:
            shown = within.params[int(default.value)]  # a parameter's value: as written
        via = None if reader is None else f"{reader.func.key} at {reader.path}:{reader.func.line}"
        required = reader is not None and reader.required and shown is None
        return [
            EnvRead(
                name=name,
                line=site.line,
                default=shown,
                required=required,
                site=site.assigned,
                via=via,
            )
        ]


def _naming(texts: Mapping[str, bytes], key: str) -> list[str]:
    """The files whose text holds every part of a function key (`Owner.name`) as a word."""
    parts = [(part.encode(), _word(part)) for part in key.split(".")]
    return [
        path
        for path, text in texts.items()
        if all(raw in text and word.search(text) for raw, word in parts)
    ]


@cache
def _word(part: str) -> re.Pattern[bytes]:
    """`part` not inside a longer name (bounded only where it starts or ends with a name's
    character: a key may be written `[Symbol.iterator]` or `'quoted'`)."""
    before = rb"(?<![\w$])" if re.match(r"[\w$]", part[:1]) else b""
    after = rb"(?![\w$])" if re.match(r"[\w$]", part[-1:]) else b""
    return re.compile(before + re.escape(part.encode()) + after)


def _gap(site: Site, reader: Reader | None, arg: Arg) -> Gap:
    if reader is None:
        return Gap(
            site.line,
            f"`{site.text}`: a computed name the tool cannot follow",
            f"Read the variable by its name (`process.env.NAME`), or index `process.env` "
            f"with a string `const` or a parameter of a function called with literal names, "
            f"instead of `{arg.value}`.",
        )
    callee = ".".join(site.callee)
    return Gap(
        site.line,
        f"`{site.text}`: {reader.func.key} ({reader.path}:{reader.func.line}) reads an "
        f"environment variable, and this call names it with `{arg.value}`, not a literal",
        f"Call {callee} with the variable's name as a string literal or a `const` "
        f"(`{callee}('NAME')`), so each variable it reads is named where it is read.",
    )


def _library_gap(path: str, library: str, line: int) -> Gap:
    return Gap(
        line,
        f"the {library} config library is imported here, and its reads are not modelled",
        f"List the variables {library} reads, with their defaults, in an env example file "
        f"named in `config.sources`, and leave {path} out of the sources (`exclude`), or "
        "declare config `absent` with the reason.",
        blocking=True,
    )


def _facts(data: bytes, dialect: str) -> Facts:
    root = tree(dialect, data).root_node
    facts = Facts()
    if root.has_error:
        return facts  # typescript.parse reports the syntax error
    values: dict[str, Node] = {}
    pending: list[tuple[Node, Func | None, str | None]] = [(root, None, None)]
    while pending:
        node, func, owner = pending.pop()
        inner, inner_owner = func, owner
        kind = node.type
        if kind in _FUNCTIONS:
            inner = _function(node, owner)
            if inner.key:
                facts.funcs.setdefault(inner.key, inner)
        elif kind == "class_declaration":
            inner_owner = node_text(node.child_by_field_name("name"))
        elif kind == "variable_declarator":
            _declarator(node, facts)
            value = node.child_by_field_name("value")
            if value is not None:
                values.setdefault(node_text(node.child_by_field_name("name")), value)
            if value is not None and value.type == "object":
                inner_owner = node_text(node.child_by_field_name("name"))
        elif kind == "import_statement":
            _import(node, facts)
        elif kind == "call_expression" or kind == "subscript_expression":
            site = _site(node, inner)
            if site is not None:
                facts.sites.append(site)
        inside = [child for child in reversed(node.named_children) if child.named_child_count]
        if inside:  # a leaf (a name, a number) is none of the nodes above
            pending += zip(inside, repeat(inner), repeat(inner_owner))
    facts.direct = library_reads(root, facts.imports, values)
    return facts


def _function(node: Node, owner: str | None) -> Func:
    """A function with its key (`name`, `Owner.name`, empty for an anonymous function)."""
    name = node.child_by_field_name("name")
    key = node_text(name) if name is not None else ""
    parent = node.parent
    if not key and parent is not None and parent.type == "variable_declarator":
        key = node_text(parent.child_by_field_name("name"))
    elif not key and parent is not None and parent.type == "pair" and owner:
        key = node_text(parent.child_by_field_name("key"))
    if node.type == "method_definition" or (parent is not None and parent.type == "pair"):
        key = f"{owner}.{key}" if owner and key else ""
    params: list[str] = []
    defaults: list[str | None] = []
    formal = node.child_by_field_name("parameters")
    single = node.child_by_field_name("parameter")
    for param in formal.named_children if formal is not None else [single] if single else []:
        target: Node | None = param
        default: Node | None = None
        if param.type in ("required_parameter", "optional_parameter"):
            target, default = (
                param.child_by_field_name("pattern"),
                param.child_by_field_name("value"),
            )
        elif param.type == "assignment_pattern":
            target, default = param.child_by_field_name("left"), param.child_by_field_name("right")
        params.append(
            node_text(target) if target is not None and target.type == "identifier" else ""
        )
        defaults.append(None if default is None else written(default))
    body = node.child_by_field_name("body")
    line = node.start_point.row + 1
    fallback = _fallback(body, params)
    throws = any(params) and _unset_throws(body)  # read only of a reader: a named parameter
    return Func(key, tuple(params), tuple(defaults), throws, line, fallback)


def _fallback(body: Node | None, params: list[str]) -> int | None:
    """The parameter (not the first) a function uses when its value is unset: the right
    operand of `||` / `??`, a branch of a conditional, or what it returns alone."""
    found = None
    pending = [body] if body is not None and any(params[1:]) else []
    while pending:
        node = pending.pop()
        parent = node.parent
        if node.type == "identifier" and node_text(node) in params[1:] and parent is not None:
            right = parent.type == "binary_expression" and parent.child_by_field_name("right")
            used = (right == node and _logical(parent)) or parent.type in (
                "ternary_expression",
                "return_statement",
            )
            if used and node != parent.child_by_field_name("condition"):
                index = params.index(node_text(node))
                if found not in (None, index):
                    return None
                found = index
        pending += [child for child in node.named_children if child.type not in _FUNCTIONS]
    return found


def _logical(node: Node) -> bool:
    return node_text(node.child_by_field_name("operator")) in ("||", "??")


def _unset_throws(body: Node | None) -> bool:
    """The body stops the program on a missing value: an `if` (not in a nested function)
    whose condition negates or compares with nothing, and whose consequence throws or exits."""
    pending = [body] if body is not None else []
    while pending:
        node = pending.pop()
        if node.type == "if_statement":
            condition = "".join(node_text(node.child_by_field_name("condition")).split())
            unset = "!" in condition.replace("!==", "").replace("!=", "") or any(
                word in condition for word in ("undefined", "null", "''", '""')
            )
            if unset and throws(node):
                return True
        pending += [child for child in node.named_children if child.type not in _FUNCTIONS]
    return False


def _declarator(node: Node, facts: Facts) -> None:
    """A string `const` (kept when the file gives the name one value), or a `require` of a
    config library."""
    name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    if name is None or value is None:
        return
    literal = literal_of(value)
    kept = literal if name.type == "identifier" and literal is not None else None
    if kept is not None and facts.consts.setdefault(node_text(name), kept) != kept:
        facts.consts[node_text(name)] = ""
    if (
        value.type == "call_expression"
        and node_text(value.child_by_field_name("function")) == "require"
    ):
        args = call_arguments(value)
        spec = literal_of(args[0]) if args else None
        if spec is not None:
            _imported(facts, spec, node.start_point.row + 1)
            if name.type == "identifier":
                facts.imports[node_text(name)] = (spec, "*")
            for entry in name.named_children if name.type == "object_pattern" else []:
                if entry.type == "shorthand_property_identifier_pattern":
                    facts.imports[node_text(entry)] = (spec, node_text(entry))
                elif entry.type == "pair_pattern":
                    imported = key_name(entry.child_by_field_name("key"))
                    facts.imports[node_text(entry.child_by_field_name("value"))] = (spec, imported)


def _import(node: Node, facts: Facts) -> None:
    spec = literal_of(node.child_by_field_name("source"))
    if spec is None:
        return
    _imported(facts, spec, node.start_point.row + 1)
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    for part in clause.named_children if clause is not None else []:
        if part.type == "identifier":
            facts.imports[node_text(part)] = (spec, "default")
        elif part.type == "namespace_import" and part.named_child_count:
            facts.imports[node_text(part.named_children[0])] = (spec, "*")
        for specifier in part.named_children if part.type == "named_imports" else []:
            imported = specifier.child_by_field_name("name")
            alias = specifier.child_by_field_name("alias") or imported
            facts.imports[node_text(alias)] = (spec, node_text(imported))


def _imported(facts: Facts, spec: str, line: int) -> None:
    library = UNMODELLED.get(spec)
    if library is not None and all(found != library for found, _ in facts.libraries):
        facts.libraries.append((library, line))


def _site(node: Node, func: Func | None) -> Site | None:
    """A call (with its callee's name parts) or a `process.env[expr]` read by a non-literal
    name; None for anything else."""
    line = node.start_point.row + 1
    if node.type == "subscript_expression":
        index = node.child_by_field_name("index")
        if not is_process_env(node.child_by_field_name("object")) or index is None:
            return None
        if literal_of(index) is not None:
            return None  # a literal name: typescript.parse reads it
        arg = _arg(index, func)
        return Site(
            (), (arg,), line, func.key if func else None, _beside(node, func), node_text(node)
        )
    callee = _callee(node.child_by_field_name("function"))
    if not callee:
        return None
    args = tuple(_arg(arg, func) for arg in call_arguments(node))
    text = node_text(node).split("\n")[0][:80]
    within = func.key if func else None
    if not args:  # no name given: a gap if it calls a reader, whose default is not asked
        return Site(callee, args, line, within, None, text)
    return Site(callee, args, line, within, _beside(node, func), text, site_of(node))


def _callee(node: Node | None) -> tuple[str, ...]:
    """`f`, `a.b`, `this.b` as name parts; empty for anything else."""
    if node is None:
        return ()
    if node.type == "identifier":
        return (node_text(node),)
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        head = _callee(obj) if obj is not None and obj.type != "this" else ("this",)
        return (*head, node_text(prop)) if head and prop is not None else ()
    return ()


def _arg(node: Node, func: Func | None) -> Arg:
    while node.type in WRAPPERS and node.named_child_count:
        node = node.named_children[0]
    literal = literal_of(node)
    if literal is not None:
        return Arg("literal", literal)
    env = _env_literal(node)
    if env is not None:
        return Arg("env", env)
    if node.type == "number":
        return Arg("literal", written(node))
    text = node_text(node)
    if node.type == "identifier" and func is not None and text in func.params:
        return Arg("param", str(func.params.index(text)))
    if node.type == "identifier":
        return Arg("name", text)
    return Arg("other", text)


def _env_literal(node: Node) -> str | None:
    """The variable `process.env.X` / `process.env['X']` names, else None."""
    if not is_process_env(node.child_by_field_name("object")):
        return None
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return node_text(prop) if prop is not None and prop.type == "property_identifier" else None
    return (
        literal_of(node.child_by_field_name("index"))
        if node.type == "subscript_expression"
        else None
    )


def _beside(node: Node, func: Func | None) -> Arg | None:
    """The default given to the read at `node` (through wrappers and single-argument calls:
    `Number(getEnv('X')) || 5000`): the last operand of its `||` / `??` chain, else, when it is
    kept in a variable, what the next statements use when that is unset (`value ?? d`,
    `value === undefined ? d : value`)."""
    while node.parent is not None:
        parent = node.parent
        if parent.type in WRAPPERS:
            node = parent
        elif parent.type == "arguments" and parent.named_children[:1] == [node]:
            if parent.parent is None or parent.parent.type != "call_expression":
                break
            node = parent.parent
        else:
            break
    default = _chained(node, func)
    declarator = node.parent
    if default is not None or declarator is None or declarator.type != "variable_declarator":
        return default
    name = node_text(declarator.child_by_field_name("name"))
    statement = declarator.parent
    for _ in range(3):
        statement = statement.next_named_sibling if statement is not None else None
        found = _unset_branch(statement, name, func) if statement is not None else None
        if found is not None:
            return found
    return None


def _chained(node: Node, func: Func | None) -> Arg | None:
    default = None
    while node.parent is not None and node.parent.type == "binary_expression":
        parent = node.parent
        operator = node_text(parent.child_by_field_name("operator"))
        right = parent.child_by_field_name("right")
        if operator not in ("||", "??") or parent.child_by_field_name("left") != node or not right:
            break
        default = _default_arg(right, func)
        node = parent
    return default


def _default_arg(node: Node, func: Func | None) -> Arg | None:
    """A default as an argument: a parameter, or the value as written (None for a call or an
    env read: a fallback read, not a default)."""
    found = _arg(node, func)
    if found.kind == "param":
        return found
    fallback = node.type == "call_expression" or "process.env" in node_text(node)
    return None if fallback else Arg("literal", written(node))


def _unset_branch(statement: Node, name: str, func: Func | None) -> Arg | None:
    """In `statement`, what replaces the variable `name` when it is unset: `name ?? d`,
    `name || d`, `name === undefined ? d : name`, `name ? name : d`."""
    pending = [statement]
    while pending:
        node = pending.pop()
        if node.type == "identifier" and node_text(node) == name:
            chained = _chained(node, func)
            if chained is not None:
                return chained
        if node.type == "ternary_expression":
            condition = node.child_by_field_name("condition")
            yes = node.child_by_field_name("consequence")
            no = node.child_by_field_name("alternative")
            if condition is not None and yes is not None and no is not None:
                if node_text(yes) == name and name in node_text(condition):
                    return _default_arg(no, func)
                if node_text(no) == name and name in node_text(condition):
                    return _default_arg(yes, func)
        pending += [child for child in node.named_children if child.type not in _FUNCTIONS]
    return None
