"""The environment variables the Rust files of one ref read through what one file alone cannot
say, from each file's `RustFacts`:

- reader functions: a function whose parameter reaches `std::env::var`, or another reader,
  through any depth of wrappers and across the files (`mod` / `use crate::...`: a call is
  matched by the function's name, in its own file first, else in the one file that defines
  it) is a reader; each call with a literal or a string constant (of its file, else the one
  the crate defines) is a read. Its default is what the call passes for the parameter that
  reaches `.unwrap_or(..)`, or a literal the reader gives, or `.unwrap_or(d)` on the call's
  result; `?`, `.unwrap()`, `.expect()` or a panic when unset make it required;
- a read whose name cannot be followed (`env::var(format!(..))`, a reader fed a variable) is a
  `Gap` of its file;
- envy (`envy::from_env::<Config>()`, `envy::prefixed("APP_").from_env::<Config>()`, or the
  type of the `let`): each field of the struct is `PREFIX` + its name (or `#[serde(rename)]`)
  upper-cased; `#[serde(default)]` / `default = "path"` (the function's literal when it
  returns one) is its default, an `Option` is optional, any other field required;
- config-rs `set_default("a.b", v)`: the default of `PREFIX` + `A` + separator + `B` when the
  file has one `Environment::with_prefix`;
- an unmodelled config crate the file uses is a blocking `Gap`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import release_safety.surfaces.config.structured as structured
from release_safety.surfaces.config.reads import EnvRead, Gap
from release_safety.surfaces.config.rust_src import ENV_VAR, Arg, RustCall, RustFacts

_DEPTH = 16


@dataclass(frozen=True)
class Reader:
    """A function reading the variable named by parameter `name`: its default is the argument
    for parameter `default` (an index), a literal (a string), or none."""

    name: int
    default: int | str | None
    required: bool


_BUILTIN = Reader(0, None, False)

Located = list[tuple[str, EnvRead | Gap]]


class _Crate:
    def __init__(self, facts: Mapping[str, RustFacts]) -> None:
        self.facts = facts
        self.defined: dict[str, list[str]] = {}
        self.consts: dict[str, set[str]] = {}
        for path, found in facts.items():
            for name, _, _ in found.functions:
                self.defined.setdefault(name, []).append(path)
            for name, value in found.consts:
                self.consts.setdefault(name, set()).add(value)
        self.readers: dict[tuple[str, str], Reader] = {}

    def function(self, path: str, name: str) -> tuple[str, str] | None:
        paths = self.defined.get(name, [])
        if path in paths:
            return path, name
        return (paths[0], name) if len(set(paths)) == 1 else None

    def reader(self, path: str, callee: str) -> Reader | None:
        if callee == ENV_VAR:
            return _BUILTIN
        found = self.function(path, callee)
        return self.readers.get(found) if found is not None else None

    def find_readers(self) -> None:
        for _ in range(_DEPTH):
            grown = False
            for path, found in self.facts.items():
                for call in found.calls:
                    if call.scope is None or (path, call.scope) in self.readers:
                        continue
                    made = self._wrapper(path, call)
                    if made is not None:
                        self.readers[(path, call.scope)] = made
                        grown = True
            if not grown:
                return

    def _wrapper(self, path: str, call: RustCall) -> Reader | None:
        reader = self.reader(path, call.callee)
        key = _arg(call, reader.name) if reader is not None else None
        if reader is None or key is None or key.ident not in call.params:
            return None
        default: int | str | None = None
        given = call.default or _given(call, reader)
        if given is not None and given.ident in call.params:
            default = call.params.index(given.ident)
        elif given is not None:
            default = _shown(given)
        elif isinstance(reader.default, str):
            default = reader.default
        required = default is None and (reader.required or call.required)
        return Reader(call.params.index(key.ident), default, required)

    def named(self, words: frozenset[str]) -> bool:
        """`words` name a reader function."""
        return any(name in words for _, name in self.readers)

    def constant(self, name: str) -> str | None:
        values = self.consts.get(name, set())
        return next(iter(values)) if len(values) == 1 else None

    def reads(self, path: str) -> Located:
        found: Located = []
        for call in self.facts[path].calls:
            reader = self.reader(path, call.callee)
            key = _arg(call, reader.name) if reader is not None else None
            if reader is None or key is None:
                continue
            if key.ident in call.params and (path, call.scope or "") in self.readers:
                continue  # the reader's own body
            name = key.string
            if name is None and key.ident is not None and key.ident not in call.params:
                name = self.constant(key.ident)
            if name is None:
                found.append((path, _computed(path, call, key)))
                continue
            given = call.default or _given(call, reader)
            default = _shown(given) if given is not None else None
            if given is None and isinstance(reader.default, str):
                default = reader.default
            required = default is None and (reader.required or call.required)
            found.append((path, EnvRead(name, call.line, default, required, call.site)))
        return found

    def envy(self, path: str) -> Located:
        found: Located = []
        for load in self.facts[path].envy:
            where = [
                p for p, f in self.facts.items() if any(n == load.struct for n, _ in f.structs)
            ]
            home = path if path in where else (where[0] if len(where) == 1 else None)
            if home is None:
                found.append((path, _no_struct(path, load.line, load.struct)))
                continue
            struct = dict(self.facts[home].structs)[load.struct]
            literals = {name: literal for name, _, literal in self.facts[home].functions}
            via = f"envy::from_env at {path}:{load.line}"
            for field in struct.fields:
                default = field.default or ("Default::default()" if struct.default else None)
                if default is not None and default in literals and literals[default] is not None:
                    default = literals[default]
                optional = re.match(r"(?:std::option::)?Option\s*<", field.kind) is not None
                variable = load.prefix + (field.rename or field.name).upper()
                site = f"{load.struct}.{field.name}"
                required = default is None and not optional
                found.append(
                    (home, EnvRead(variable, field.line, default, required, site, via=via))
                )
        return found

    def defaults(self, path: str) -> Located:
        found = self.facts[path]
        if len(found.loaders) != 1 or not found.defaults:
            return []
        loader = found.loaders[0]
        separator = loader.separator or "_"
        return [
            (
                path,
                EnvRead(
                    structured.name_of(tuple(key.split(".")), loader.prefix, separator),
                    line,
                    value,
                    site=key,
                ),
            )
            for key, value, line in found.defaults
        ]


def _arg(call: RustCall, index: int) -> Arg | None:
    return call.args[index] if index < len(call.args) else None


def _given(call: RustCall, reader: Reader) -> Arg | None:
    return _arg(call, reader.default) if isinstance(reader.default, int) else None


def _shown(arg: Arg) -> str:
    return arg.string if arg.string is not None else arg.literal or arg.text


def _computed(path: str, call: RustCall, key: Arg) -> Gap:
    shown = "env::var" if call.callee == ENV_VAR else call.callee
    return Gap(
        call.line,
        f"`{shown}({key.text})`: a variable read with a name that cannot be followed",
        f"Name the variable at {path}:{call.line} with a string literal or a `const` instead "
        f"of `{key.text}`, or leave {path} out of `config.sources` (an `exclude`) if it reads "
        "no setting of the service.",
    )


def _no_struct(path: str, line: int, struct: str) -> Gap:
    return Gap(
        line,
        f"envy loads `{struct}`, whose definition is not among the sources (or is not unique)",
        f"Add the file that defines `struct {struct}` to `config.sources` so its fields are "
        f"read as the variables envy loads at {path}:{line}.",
        blocking=True,
    )


def _unmodelled(path: str, crate: str, line: int) -> Gap:
    return Gap(
        line,
        f"the {crate} crate loads configuration here and is not modelled",
        f"The variables {crate} reads at {path}:{line} are out of sight: exclude {path} from "
        "`config.sources` and list the variables with their defaults in an env example file "
        "among them, or read them with std::env::var, clap, envy, figment or config-rs.",
        blocking=True,
    )


def _unparsed(path: str, line: int) -> Gap:
    return Gap(
        line,
        "the Rust parser cannot read this file, which names a reader function: its calls are "
        "not followed",
        f"If {path} reads no setting of the service, leave it out of `config.sources` (an "
        f"`exclude`); else rewrite the construct at line {line} the parser stops at.",
    )


def depended_on(facts: Mapping[str, RustFacts]) -> frozenset[str]:
    """The names through which a file that reads nothing by itself (`rust_src.scan`) could
    change what `reads` finds for these files: the reader functions (its calls of one are
    reads, its definition of one makes a call ambiguous), the names reads pass as keys (its
    constant of that name), the structs envy loads (its definition of one). A file naming none
    of them leaves the answer as it is, with or without its facts."""
    crate = _Crate(facts)
    crate.find_readers()
    names = {name for _, name in crate.readers}
    for path, found in facts.items():
        names |= {load.struct for load in found.envy}
        for call in found.calls:
            reader = crate.reader(path, call.callee)
            key = _arg(call, reader.name) if reader is not None else None
            if key is not None and key.ident is not None:
                names.add(key.ident)
    return frozenset(names)


def reads(facts: Mapping[str, RustFacts]) -> Located:
    """What the Rust files of one ref read through readers, envy and config-rs defaults, and
    the gaps they leave."""
    crate = _Crate(facts)
    crate.find_readers()
    found: Located = []
    for path in facts:
        found += crate.reads(path) + crate.envy(path) + crate.defaults(path)
        found += [(path, _unmodelled(path, name, line)) for name, line in facts[path].unmodelled]
        unparsed = facts[path].unparsed
        if unparsed is not None and crate.named(facts[path].words):
            found.append((path, _unparsed(path, unparsed)))
    return found
