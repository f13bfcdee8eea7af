"""The environment variables the Go files of one ref read, resolved across files.

- `os.Getenv` / `os.LookupEnv` with a literal, a constant of the same package (any file of the
  folder) or of an imported package of the repository (`common.CoreURL`);
- `os.ExpandEnv("${HOME}/x")`: each variable a literal names (text known only at run time,
  such as a config file's contents, is a gap);
- wrappers: a function of the repository that passes one of its parameters to a getter (or to
  another wrapper) is a getter too (`getEnv("X", "d")`, `utils.ReadEnv(key)`); a parameter it
  returns or assigns when the variable is unset is the default, and a wrapper that stops the
  program (`panic`, `log.Fatal`) makes the variable required;
- a getter fed a struct field (`os.LookupEnv(item.EnvKey)`) reads every name a keyed literal
  gives that field (`{Name: ..., EnvKey: "X", DefaultValue: "d"}`, the default from a key
  named `Default*`);
- kelseyhightower/envconfig (`Process(prefix, &spec)`: field names upper-cased, nested structs
  prefixed with the field's key, embedded structs flattened, `split_words`, `envconfig`,
  `default`, `required`, `ignored`; the `envconfig` name alone is read as a fallback);
- caarlos0/env (`env:"X"`, `envDefault`, `envPrefix` on nested structs, `Options{Prefix}`,
  `required` / `notEmpty`) and alecthomas/kong (`kong.Parse(&cli)`: `env:"X,Y"`, `default`,
  `required`, `envprefix` on nested structs); a field whose type decodes itself (a `Decode`,
  `Set`, `UnmarshalText` or `UnmarshalBinary` method: envconfig's `Decoder` / `Setter`,
  `encoding.TextUnmarshaler`) is one variable, not its fields; every variable a loader call
  gives names it (`via`), so a loader lost at once is one finding;
- spf13/viper (`SetEnvPrefix`, `SetEnvKeyReplacer`, `AutomaticEnv` with the keys `Get*` and
  `SetDefault` name, `BindEnv`, `SetDefault` defaults);
- urfave/cli flags (`EnvVars: []string{"X", "Y"}`, v3 `Sources: cli.EnvVars("X")`, v1
  `EnvVar: "X,Y"`; `Value` the default, `Required`).

What it cannot follow is a `Gap` beside the reads: a getter fed a name it cannot resolve,
struct tags no loader call among the sources reaches (their prefix is unknown), a koanf or
ory/x configx loader whose config file or JSON Schema is not among the sources (blocking: the
way out is the settings entry that names it), a viper config file not among the sources, and
any call into a config library not modelled (blocking, naming it).

Test helpers read the tests' configuration, not the service's: a function that takes a
`*testing.T` (or `TB`, `B`, `F`), and a file that starts test containers (dockertest,
testcontainers: a mail-catcher client) are left out.

Only files that mention what is sought are parsed: a file's identifiers are indexed once per
blob id, and its facts (`go_src`) parsed once per blob id, when a search needs them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from dataclasses import replace as replaced
from functools import cached_property, partial

import release_safety.surfaces.config.go_environ as go_environ
import release_safety.surfaces.config.go_src as go_src
from release_safety.code.memo import Memo
from release_safety.git.snapshot import Snapshot
from release_safety.surfaces.config.go_src import (
    LIBRARIES,
    Arg,
    Call,
    Field,
    GoFacts,
    LibCall,
    TypeRef,
)
from release_safety.surfaces.config.reads import EnvRead, Gap, SourceError

_TOKENS: Memo[str, tuple[frozenset[bytes], bool]] = Memo(65536)
"""Per blob id: the file's identifiers, and whether it has `env` / `envconfig` struct tags."""
_FACTS: Memo[str, GoFacts | SourceError] = Memo(65536)
_WORD_BYTES = bytes(
    c if chr(c).isascii() and (chr(c).isalnum() or c == 95) else 32 for c in range(256)
)
"""Every byte that cannot be part of an identifier becomes a space."""
_MARKERS = (
    *(
        b"Getenv",
        b"LookupEnv",
        b"Environ",
        b"envconfig",
        b"viper",
        b"caarlos0",
        b"urfave",
        b"alecthomas",
    ),
    *(marker.encode() for _, marker in LIBRARIES.values()),
)
"""Words of the files that read the environment or import a config library."""
_DECODERS = frozenset({"Decode", "Set", "UnmarshalText", "UnmarshalBinary"})
"""Methods by which a type parses its own variable (envconfig's `Decoder`, `Setter`,
`encoding.TextUnmarshaler`, `encoding.BinaryUnmarshaler`)."""
_TEST_SUPPORT = ("github.com/ory/dockertest", "github.com/testcontainers/")
"""Imports that make a file that is not a `_test.go` file a test helper (a mail-catcher client
started in a container): what it reads is the tests' configuration, not the service's.
`testing` or testify alone are not enough: services keep `MustNew(t, ...)` helpers beside
their config loader."""
_EXPANDED = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
"""A variable `os.ExpandEnv` substitutes: `${NAME}` or `$NAME`."""
_KOANF_SEPARATOR = re.compile(r'"(_+)"\s*,\s*"\."')
_KOANF_PREFIX = re.compile(r'Prefix:\s*"([^"]*)"')
_GETTERS = {"Getenv": 0, "LookupEnv": 0}
_WORDS = re.compile("([^A-Z]+|[A-Z]+[^A-Z]+|[A-Z]+)")
_ACRONYM = re.compile("([A-Z]+)([A-Z][^A-Z]+)")
_REPLACER = re.compile(r'"((?:[^"\\]|\\.)*)"\s*,\s*"((?:[^"\\]|\\.)*)"')
_BUILTIN = frozenset(
    {
        *("any", "bool", "byte", "error", "float32", "float64", "int", "int8", "int16", "int32"),
        *("int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr"),
    }
)


@dataclass(frozen=True)
class Wrapper:
    """A function that reads the variable named by its parameter `name`."""

    name: int
    default: int | None
    required: bool


class GoRepo:
    """The Go files of one ref, indexed lazily."""

    def __init__(self, snapshot: Snapshot, blobs: Mapping[str, str]) -> None:
        self.snapshot = snapshot
        self.paths = list(blobs)
        self.blobs = dict(blobs)
        missing = [p for p in self.paths if self.blobs[p] not in _TOKENS]
        for path, data in snapshot.read_each(missing):
            _TOKENS.get(self.blobs[path], partial(_index, data))
        self._folder_of: dict[str, str | None] = {}
        self.folders: dict[str, list[str]] = {}
        for path in self.paths:
            self.folders.setdefault(path.rpartition("/")[0], []).append(path)

    def tokens(self, path: str) -> frozenset[bytes]:
        return _TOKENS.peek(self.blobs[path])[0]

    def tagged(self, path: str) -> bool:
        return _TOKENS.peek(self.blobs[path])[1]

    def facts(self, path: str) -> GoFacts:
        """The file's facts (SourceError naming the file when it does not parse)."""

        def parse() -> GoFacts | SourceError:
            try:
                return go_src.parse(self.snapshot.read(path))
            except SourceError as exc:
                return exc

        found = _FACTS.get(self.blobs[path], parse)
        if isinstance(found, SourceError):
            raise SourceError(found.message, found.line, path)
        return found

    def mentioning(self, words: Iterable[str], folder: str | None = None) -> list[str]:
        """The files (of `folder`, or all) whose identifiers include one of `words`."""
        wanted = {w.encode() for w in words}
        pool = self.folders.get(folder, []) if folder is not None else self.paths
        return [p for p in pool if wanted & self.tokens(p)]

    @cached_property
    def seeds(self) -> list[str]:
        """Files that read the environment or configure a library that does."""
        marks = set(_MARKERS)
        return [p for p in self.paths if self.tagged(p) or marks & self.tokens(p)]

    def folder_of(self, import_path: str) -> str | None:
        """The repository folder an import path names (the longest folder it ends with)."""
        if import_path not in self._folder_of:
            parts = import_path.split("/")
            tails = ("/".join(parts[i:]) for i in range(len(parts)))
            self._folder_of[import_path] = next((t for t in tails if t in self.folders), None)
        return self._folder_of[import_path]


def _index(data: bytes) -> tuple[frozenset[bytes], bool]:
    """The file's words (identifiers, and numbers), and whether it has env struct tags."""
    words = frozenset(data.translate(_WORD_BYTES).split())
    return words, b'envconfig:"' in data or b'env:"' in data


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


class _Resolver:
    def __init__(self, repo: GoRepo) -> None:
        self.repo = repo
        self.wrappers: dict[tuple[str, str], Wrapper] = {}
        self._imports: dict[str, dict[str, str]] = {}
        self.reads: list[tuple[str, EnvRead | Gap]] = []

    # names -----------------------------------------------------------------------------

    def imports(self, path: str) -> dict[str, str]:
        if path not in self._imports:
            self._imports[path] = dict(self.repo.facts(path).imports)
        return self._imports[path]

    def test_helper(self, path: str) -> bool:
        """A file that imports test support (`_TEST_SUPPORT`)."""
        return any(i.startswith(_TEST_SUPPORT) for i in self.imports(path).values())

    def target_folder(self, path: str, qualifier: str | None) -> str | None:
        """The folder a call's or type's qualifier names (the file's own when None)."""
        if qualifier is None:
            return _folder(path)
        imported = self.imports(path).get(qualifier)
        return self.repo.folder_of(imported) if imported else None

    def constant(self, folder: str, name: str) -> str | None:
        for path in self.repo.mentioning([name], folder):
            value = dict(self.repo.facts(path).consts).get(name)
            if value is not None:
                return value
        return None

    def value(self, path: str, arg: Arg) -> tuple[str | None, str | None]:
        """(value, site) of a name argument: a literal, or a constant (its site)."""
        kind, text = arg
        if kind == "str":
            return text, None
        if kind == "ident":
            folder = _folder(path)
            return self.constant(folder, text), f"{folder}#const {text}"
        if kind == "sel":
            qualifier, _, name = text.partition(".")
            imported = self.imports(path).get(qualifier)
            found = self.repo.folder_of(imported) if imported else None
            if found is not None:
                return self.constant(found, name), f"{found}#const {name}"
        return None, None

    def default(self, path: str, arg: Arg | None) -> str | None:
        if arg is None:
            return None
        value, _ = self.value(path, arg)
        return value if value is not None else arg[1]

    # getters and wrappers ----------------------------------------------------------------

    def getter(self, path: str, call: Call) -> Wrapper | None:
        """What a call reads with, when it reads the environment."""
        imports = self.imports(path)
        if call.qualifier is not None and imports.get(call.qualifier) == "os":
            index = _GETTERS.get(call.name)
            return Wrapper(index, None, False) if index is not None else None
        folder = self.target_folder(path, call.qualifier)
        return self.wrappers.get((folder, call.name)) if folder is not None else None

    def find_wrappers(self) -> None:
        """Functions that pass a parameter to a getter, to a fixpoint (wrappers of wrappers)."""
        files = list(self.repo.seeds)
        done: set[str] = set()
        while files:
            for path in files:
                done.add(path)
                facts = self.repo.facts(path)
                functions = {name: (params, stops) for name, params, stops in facts.functions}
                for call in facts.calls:
                    self._wrapper_from(path, call, functions)
            names = {name for _, name in self.wrappers}
            files = [p for p in self.repo.mentioning(names) if p not in done]

    def _wrapper_from(
        self, path: str, call: Call, functions: dict[str, tuple[tuple[str, ...], bool]]
    ) -> None:
        if call.enclosing not in functions:
            return
        params, stops = functions[call.enclosing]
        inner = self.getter(path, call)
        if inner is None or inner.name >= len(call.args):
            return
        kind, text = call.args[inner.name]
        if kind != "ident" or text not in params:
            return
        default = None
        fallback = call.default
        if inner.default is not None and inner.default < len(call.args):
            fallback = call.args[inner.default]
        if fallback is not None and fallback[0] == "ident" and fallback[1] in params:
            default = params.index(fallback[1])
        key = (_folder(path), call.enclosing)
        self.wrappers.setdefault(key, Wrapper(params.index(text), default, stops or inner.required))

    def calls(self) -> None:
        """Every read through a getter or a wrapper."""
        names = {name for _, name in self.wrappers} | set(_GETTERS) | {"ExpandEnv"}
        fields: dict[str, tuple[str, Call, Arg]] = {}
        for path in self.repo.mentioning(names):
            facts = self.repo.facts(path)
            wrapped = {
                name: params
                for name, params, _ in facts.functions
                if (_folder(path), name) in self.wrappers
            }
            chains: dict[int, str] = {}
            for call in sorted(facts.calls, key=lambda c: c.chain or (0, 0)):
                if call.enclosing in facts.tests:
                    continue
                if (
                    call.name == "ExpandEnv"
                    and self.imports(path).get(call.qualifier or "") == "os"
                ):
                    self.reads += [(path, read) for read in _expanded(call)]
                    continue
                how = self.getter(path, call)
                if how is None or how.name >= len(call.args):
                    continue
                arg = call.args[how.name]
                if arg[0] == "ident" and arg[1] in wrapped.get(call.enclosing or "", ()):
                    continue  # the wrapper's own read of its parameter
                if arg[0] == "sel" and arg[1].partition(".")[0] not in self.imports(path):
                    fields.setdefault(arg[1].partition(".")[2], (path, call, arg))
                    continue
                name, const_site = self.value(path, arg)
                if not name:
                    self.reads.append((path, _computed(call, arg)))
                    continue
                given = call.args[how.default] if how.default is not None else None
                if how.default is not None and how.default >= len(call.args):
                    given = None
                default = self.default(path, given or call.default)
                fallback_for = None
                if call.chain is not None:
                    group = call.chain[0]
                    fallback_for = chains.setdefault(group, name)
                    fallback_for = None if fallback_for == name else fallback_for
                self.reads.append(
                    (
                        path,
                        EnvRead(
                            name=name,
                            line=call.line,
                            default=default,
                            required=how.required and default is None,
                            site=const_site or call.site,
                            fallback_for=fallback_for,
                        ),
                    )
                )
        if fields:
            self.keyed(fields)

    def keyed(self, fields: dict[str, tuple[str, Call, Arg]]) -> None:
        """Names given to the struct fields getters are fed (`{EnvKey: "X"}`); a field no
        literal names is a gap at the read."""
        named: set[str] = set()
        for path in self.repo.mentioning(fields):
            for literal in self.repo.facts(path).keyed:
                values = dict(literal.fields)
                for field in sorted(fields.keys() & values.keys()):
                    name, _ = self.value(path, values[field])
                    if not name:
                        continue
                    named.add(field)
                    others = [(k, a) for k, a in literal.fields if k != field]
                    default = next(
                        (self.default(path, a) for k, a in others if k.startswith("Default")),
                        None,
                    )
                    site = next((f"{k}={a[1]}" for k, a in others if a[0] != "expr"), None)
                    read = EnvRead(name=name, line=literal.line, default=default, site=site)
                    self.reads.append((path, read))
        for field in sorted(fields.keys() - named):
            path, call, arg = fields[field]
            self.reads.append((path, _computed(call, arg)))

    # structs ------------------------------------------------------------------------------

    def struct(self, path: str, ref: TypeRef) -> tuple[str, str, tuple[Field, ...]] | None:
        """(file, type name, fields) of a struct type of the repository."""
        if ref.inline is not None:
            return path, "", ref.inline
        if ref.qualifier is None and ref.name in _BUILTIN:
            return None
        folder = self.target_folder(path, ref.qualifier)
        if folder is None:
            return None
        for candidate in self.repo.mentioning([ref.name], folder):
            fields = dict(self.repo.facts(candidate).structs).get(ref.name)
            if fields is not None:
                return candidate, ref.name, fields
        return None

    def decodes(self, path: str, ref: TypeRef) -> bool:
        """Whether a type of the repository parses its own variable (a `_DECODERS` method)."""
        folder = self.target_folder(path, ref.qualifier) if ref.inline is None else None
        return folder is not None and any(
            (ref.name, method) in self.repo.facts(candidate).methods
            for candidate in self.repo.mentioning([ref.name], folder)
            for method in _DECODERS
        )

    def binds(self) -> None:
        """Structs filled by `envconfig.Process`, `env.Parse` or `kong.Parse`; tagged structs
        no call reaches are gaps (their prefix is unknown), not variables."""
        reached: set[tuple[str, str]] = set()
        for path in self.repo.seeds:
            for bind in self.repo.facts(path).binds:
                found = self.struct(path, bind.target) if bind.target else None
                if found is None:
                    self.reads.append((path, _unfilled(bind)))
                    continue
                prefix = self.default(path, bind.prefix) or ""
                walk = _WALKS[bind.library]
                via = f"{bind.call} at {path}:{bind.line}"
                for file, read in walk(self, found, prefix, found[1], Walked(frozenset(), reached)):
                    self.reads.append((file, replaced(read, via=via)))
        nested: set[tuple[str, str]] = set()
        tagged = [p for p in self.repo.seeds if self.repo.tagged(p)]
        for path in tagged:
            for _, fields in self.repo.facts(path).structs:
                for field in fields:
                    inner = self.struct(path, field.type) if field.type else None
                    if inner is not None and inner[1]:
                        nested.add((inner[0], inner[1]))
        for path in tagged:
            for name, fields in self.repo.facts(path).structs:
                first = next((f for f in fields if f.tag("env") or f.tag("envconfig")), None)
                if (path, name) in reached or (path, name) in nested or first is None:
                    continue
                self.reads.append((path, _unreached(name, first)))

    def flags(self) -> None:
        """urfave/cli flags that name environment variables."""
        for path in self.repo.seeds:
            for flag in self.repo.facts(path).flags:
                names = [n for n in (self.value(path, arg)[0] for arg in flag.names) if n]
                if len(names) < len(flag.names):
                    self.reads.append((path, _computed_flag(flag.line, flag.names)))
                if not names:
                    continue
                default = self.default(path, flag.value)
                site = f"--{flag.name}" if flag.name else None
                required = flag.required and default is None
                self.reads.append((path, EnvRead(names[0], flag.line, default, required, site)))
                self.reads += [
                    (path, EnvRead(n, flag.line, default, site=site, fallback_for=names[0]))
                    for n in names[1:]
                ]

    # config libraries ---------------------------------------------------------------------

    def libraries(self, sources: frozenset[str]) -> None:
        """koanf and configx loaders (their file, or a blocking gap naming the settings entry
        that adds it), and a blocking gap per file calling a library not modelled."""
        configx: list[tuple[str, Call]] = []
        for path in self.repo.seeds:
            facts = self.repo.facts(path)
            by_library: dict[str, list[LibCall]] = {}
            for lib in (c for c in facts.libraries if c.call.enclosing not in facts.tests):
                by_library.setdefault(lib.library, []).append(lib)
            for library, found in sorted(by_library.items()):
                if library == "github.com/ory/x/configx":
                    loaders = (lib.call for lib in found if lib.call.name in ("New", "NewCustom"))
                    configx += [(path, call) for call in loaders]
                elif library == "github.com/knadh/koanf":
                    self.reads += [(path, g) for g in self._koanf(path, found, sources)]
                else:
                    first = min(found, key=lambda lib: lib.call.line).call
                    self.reads.append((path, _unmodelled(LIBRARIES[library][0], first)))
        self._configx(configx, sources)

    def environ(self) -> None:
        """The variables each `os.Environ()` the program reads takes, when its scan matches
        the key with a literal set (`go_environ`), else a blocking gap."""
        for path in self.repo.seeds:
            facts = self.repo.facts(path)
            for line, enclosing in facts.environ:
                if enclosing not in facts.tests:
                    files = self.repo.folders[_folder(path)]
                    self.reads += go_environ.reads(
                        self.repo.snapshot, self.repo.blobs, files, path, line
                    )

    def _configx(self, found: list[tuple[str, Call]], sources: frozenset[str]) -> None:
        """configx loaders: the JSON Schema each loads must be a source. A schema the resolver
        cannot follow (`t.ConfigSchema`) is blocking only when no loader of the ref names one
        (else it is most likely the same schema handed on)."""
        schemas = [
            (path, call, self.embedded(path, call.args[1]) if len(call.args) > 1 else None)
            for path, call in found
        ]
        named = any(schema for _, _, schema in schemas)
        for path, call, schema in schemas:
            if schema is not None and _among(schema, sources):
                continue
            shown = schema or "<the JSON Schema it loads>"
            entry = (
                f'{{ path = "{shown}", kind = "jsonschema", env_prefix = "", env_separator = "_" }}'
            )
            loads = (
                f"configx.{call.name}: ory/x configx loads the configuration from the JSON Schema"
            )
            if schema is None:
                given = call.args[1][1] if len(call.args) > 1 else "no schema"
                what = f"{loads} `{given}`, which the resolver cannot follow"
                way_out = f"pass it a `//go:embed` variable, or add `{entry}` to `config.sources`"
            else:
                what = f"{loads} {schema} (keys `a.b.c` from env vars `A_B_C`), not a source"
                way_out = f"add `{entry}` to `config.sources`"
            gap = Gap(call.line, what, way_out, blocking=schema is not None or not named)
            self.reads.append((path, gap))

    def _koanf(self, path: str, found: list[LibCall], sources: frozenset[str]) -> list[Gap]:
        imports = self.imports(path)
        provider = [lib.call for lib in found if lib.call.name.startswith("Provider")]
        envs = [c for c in provider if "/providers/env" in imports.get(c.qualifier or "", "")]
        files = [c for c in provider if "/providers/file" in imports.get(c.qualifier or "", "")]
        prefix, separator = "", "_"
        for call in envs:
            text = " ".join(a[1] for a in call.args)
            first = call.args[0] if call.args else None
            written = _KOANF_PREFIX.search(text)
            if written is not None:
                prefix = written[1]
            elif first is not None and first[0] == "str" and first[1] != ".":
                prefix = first[1]
            joined = _KOANF_SEPARATOR.search(text)
            separator = joined[1] if joined is not None else separator
        env = f', env_prefix = "{prefix}", env_separator = "{separator}"' if envs else ""
        gaps = []
        for call in files:
            named = self.value(path, call.args[0])[0] if call.args else None
            if named is not None and _among(named, sources):
                continue
            shown = named or "<the config file it loads>"
            what = (
                f"{call.qualifier}.{call.name}: koanf loads the configuration file {shown}"
                + (f" and env vars `{prefix}A{separator}B` for its keys `a.b`" if envs else "")
                + ", not among `config.sources`"
            )
            way_out = f'add `{{ path = "{shown}"{env} }}` to `config.sources`'
            gaps.append(Gap(call.line, what, way_out, blocking=True))
        if envs and not files:
            call = envs[0]
            what = (
                f"{call.qualifier}.{call.name}: koanf maps env vars `{prefix}A{separator}B` to "
                "keys `a.b`, and no config file among its loaders lists the keys"
            )
            way_out = (
                "add the file that lists the keys (the defaults file or JSON Schema) to "
                f'`config.sources` with `env_prefix = "{prefix}", env_separator = '
                f'"{separator}"`'
            )
            gaps.append(Gap(call.line, what, way_out, blocking=True))
        return gaps

    def embedded(self, path: str, arg: Arg) -> str | None:
        """The file a `//go:embed` variable (`embedx.ConfigSchema`, `schema`) holds."""
        qualifier, _, name = arg[1].rpartition(".") if arg[0] == "sel" else ("", "", arg[1])
        folder = self.target_folder(path, qualifier or None)
        if arg[0] not in ("ident", "sel") or folder is None:
            return None
        for candidate in self.repo.mentioning([name], folder):
            file = dict(self.repo.facts(candidate).embeds).get(name)
            if file is not None:
                return f"{folder}/{file}" if folder else file
        return None

    # viper --------------------------------------------------------------------------------

    def viper(self, sources: frozenset[str]) -> None:
        by_folder: dict[str, list[tuple[str, Call]]] = {}
        for path in self.repo.seeds:
            for call in self.repo.facts(path).viper:
                by_folder.setdefault(_folder(path), []).append((path, call))
        for folder, calls in sorted(by_folder.items()):
            self.reads += _viper(self, folder, calls, sources)


def _split_words(name: str) -> str:
    words: list[str] = []
    for match in _WORDS.findall(name):
        acronym = _ACRONYM.fullmatch(match)
        words += [acronym[1], acronym[2]] if acronym else [match]
    return "_".join(words) if words else name


def _true(value: str | None) -> bool:
    return (value or "").lower() in ("1", "t", "true")


Found = tuple[str, str, tuple[Field, ...]]
"""A struct of the repository: (file, type name, fields)."""


@dataclass(frozen=True)
class Walked:
    """The structs a walk is inside (a recursive type stops there), and every struct any walk
    reached (those are not read again as written)."""

    ancestors: frozenset[tuple[str, str]]
    reached: set[tuple[str, str]]

    def into(self, found: Found) -> Walked:
        self.reached.add((found[0], found[1]))
        return Walked(self.ancestors | {(found[0], found[1])}, self.reached)


def _nest(resolver: _Resolver, found: Found, field: Field, walked: Walked) -> Found | None:
    """The struct a field holds, unless it is one being walked (a recursive type) or its type
    parses its own variable."""
    inner = resolver.struct(found[0], field.type) if field.type else None
    if inner is None or (inner[0], inner[1]) in walked.ancestors:
        return None
    if field.type is not None and resolver.decodes(found[0], field.type):
        return None
    return inner


def _envconfig(
    resolver: _Resolver, found: Found, prefix: str, site: str, walked: Walked
) -> Iterator[tuple[str, EnvRead]]:
    """kelseyhightower/envconfig's `gatherInfo`, statically."""
    path, _, fields = found
    walked = walked.into(found)
    for field in fields:
        name = field.name or (field.type.name if field.type else "")
        if not name or not name[0].isupper() or _true(field.tag("ignored")):
            continue
        alt = (field.tag("envconfig") or "").split(",")[0].upper()
        key = alt or (_split_words(name) if _true(field.tag("split_words")) else name)
        key = (f"{prefix}_{key}" if prefix else key).upper()
        here = f"{site}.{name}"
        inner = _nest(resolver, found, field, walked)
        if inner is not None:
            inner_prefix = prefix if field.name is None else key
            yield from _envconfig(resolver, inner, inner_prefix, here, walked)
            continue
        default = field.tag("default") or None
        required = _true(field.tag("required")) and default is None
        yield path, EnvRead(key, field.line, default, required, f"{path}#{here}")
        if alt and alt != key:
            yield path, EnvRead(alt, field.line, default, False, f"{path}#{here}", key)


def _caarlos0(
    resolver: _Resolver, found: Found, prefix: str, site: str, walked: Walked
) -> Iterator[tuple[str, EnvRead]]:
    """caarlos0/env's walk: `env` tags, `envPrefix` on nested structs (a bare `envconfig`
    tag is read the same way, without a prefix)."""
    path, _, fields = found
    walked = walked.into(found)
    for field in fields:
        name = field.name or (field.type.name if field.type else "")
        here = f"{site}.{name}"
        tag = field.tag("env")
        if tag is None:
            tag = field.tag("envconfig")
        if tag is None:
            inner = _nest(resolver, found, field, walked)
            if inner is not None:
                inner_prefix = prefix + (field.tag("envPrefix") or "")
                yield from _caarlos0(resolver, inner, inner_prefix, here, walked)
            continue
        variable, *options = tag.split(",")
        if not variable or variable == "-":
            continue
        default = field.tag("envDefault") or field.tag("default")
        required = bool({"required", "notEmpty"} & set(options)) or _true(field.tag("required"))
        read = EnvRead(
            prefix + variable, field.line, default, required and default is None, f"{path}#{here}"
        )
        yield path, read


def _kong(
    resolver: _Resolver, found: Found, prefix: str, site: str, walked: Walked
) -> Iterator[tuple[str, EnvRead]]:
    """alecthomas/kong's environment: `env:"X,Y"` (the first set wins), `default`, `required`,
    `envprefix` on nested structs (commands and embedded groups)."""
    path, _, fields = found
    walked = walked.into(found)
    for field in fields:
        here = f"{site}.{field.name or (field.type.name if field.type else '')}"
        tag = field.tag("env")
        if tag is None:
            inner = _nest(resolver, found, field, walked)
            if inner is not None:
                inner_prefix = prefix + (field.tag("envprefix") or "")
                yield from _kong(resolver, inner, inner_prefix, here, walked)
            continue
        names = [prefix + name for name in tag.split(",") if name]
        if not names:
            continue
        default = field.tag("default")
        required = field.tag("required") is not None and default is None
        yield path, EnvRead(names[0], field.line, default, required, f"{path}#{here}")
        for name in names[1:]:
            yield path, EnvRead(name, field.line, default, False, f"{path}#{here}", names[0])


Walk = Callable[[_Resolver, Found, str, str, Walked], Iterator[tuple[str, EnvRead]]]
_WALKS: dict[str, Walk] = {"envconfig": _envconfig, "env": _caarlos0, "kong": _kong}


def _computed(call: Call, arg: Arg) -> Gap:
    """A getter fed a name the resolver cannot follow."""
    shown = f"{call.qualifier}.{call.name}" if call.qualifier else call.name
    what = f"{shown}({arg[1]}): a computed variable name"
    way_out = (
        f"`{arg[1]}` is only known at run time: pass `{shown}` a string literal or a constant "
        f'(`{shown}("NAME")`), or list the variables it may name in an env example file '
        "among `config.sources`"
    )
    return Gap(call.line, what, way_out)


def _expanded(call: Call) -> list[EnvRead | Gap]:
    """`os.ExpandEnv("${HOME}/cache")`: each variable the literal names; a gap when the text
    is only known at run time (a config file's contents expanded)."""
    kind, text = call.args[0] if call.args else ("expr", "")
    if kind == "str":
        names = [braced or bare for braced, bare in _EXPANDED.findall(text)]
        return [EnvRead(name, call.line, site=call.site) for name in names]
    what = f"os.ExpandEnv({text}): env vars named inside text only known at run time"
    way_out = (
        f"list the variables `{text}` may name (`${{NAME}}`) in an env example file among "
        "`config.sources`, or add the file it expands as a source"
    )
    return [Gap(call.line, what, way_out)]


def _computed_flag(line: int, names: tuple[Arg, ...]) -> Gap:
    shown = ", ".join(text for kind, text in names if kind != "str")
    return Gap(
        line,
        f"urfave/cli flag: env var names not resolved ({shown})",
        f"name the flag's env vars with string literals or constants instead of {shown}",
    )


def _unreached(name: str, field: Field) -> Gap:
    """Struct tags no loader call among the sources reaches: the prefix is unknown."""
    what = (
        f"struct {name or '(inline)'}: env struct tags no loader call among the sources reaches "
        "(`envconfig.Process`, `env.Parse`, `kong.Parse`), so the variables' prefix is unknown"
    )
    way_out = (
        f"widen `config.sources` to the Go file that passes `{name or 'the struct'}` to its "
        "loader (the loader may have moved to another package)"
    )
    return Gap(field.line, what, way_out)


def _unfilled(bind: go_src.Bind) -> Gap:
    """A loader call whose struct is not among the sources (or not known where it is called:
    a loader wrapper handed `any`)."""
    target = bind.target
    named = f"{target.qualifier}.{target.name}" if target and target.qualifier else None
    named = named or (target.name if target else None)
    if named:
        what = f"{bind.call}: the struct it fills, {named}, is not among the sources"
        way_out = f"widen `config.sources` to the Go package that declares `{named}`"
    else:
        what = f"{bind.call}: the struct it fills is not known here (a loader handed `any`)"
        way_out = (
            f"call {bind.call} on the config struct itself (`&cfg` of a named struct type), "
            "or list the variables in an env example file among `config.sources`"
        )
    return Gap(bind.line, what, way_out, blocking=True)


def _unmodelled(library: str, call: Call) -> Gap:
    """A call into a config library the resolver does not model."""
    what = f"{call.qualifier}.{call.name}: the {library} config library is not modelled"
    way_out = (
        f"the variables {library} loads here are not known: list them (with their defaults) "
        "in an env example file among `config.sources`, then turn `config-read-not-understood` "
        "off in `[rules] off` for this service, or read them with a modelled loader "
        "(envconfig, caarlos0/env, viper, kong, urfave/cli)"
    )
    return Gap(call.line, what, way_out, blocking=True)


def _among(path: str, sources: frozenset[str]) -> bool:
    """Whether a file a loader names (relative to where the service runs) is a source."""
    named = path.removeprefix("./")
    return any(source == named or source.endswith("/" + named) for source in sources)


def _viper(
    resolver: _Resolver, folder: str, calls: list[tuple[str, Call]], sources: frozenset[str]
) -> list[tuple[str, EnvRead | Gap]]:
    """The variables one package's viper calls read, and a gap for a config file it reads
    (whose keys `AutomaticEnv` also reads from the environment) that is not a source."""
    prefix, automatic, replace = "", False, [("", "")]
    config: tuple[str, int, str | None] | None = None
    via: str | None = None
    defaults: dict[str, str] = {}
    keys: dict[str, tuple[str, int]] = {}
    bound: list[tuple[str, int, str, tuple[str, ...]]] = []
    for path, call in calls:
        values = [resolver.default(path, arg) or "" for arg in call.args]
        if call.name == "SetEnvPrefix" and values:
            prefix = values[0]
            via = f"viper.SetEnvPrefix at {path}:{call.line}"
        elif call.name == "AutomaticEnv":
            automatic = True
            via = via or f"viper.AutomaticEnv at {path}:{call.line}"
        elif call.name == "SetEnvKeyReplacer" and call.args:
            replace = _REPLACER.findall(call.args[0][1]) or replace
        elif call.name == "SetDefault" and len(values) >= 2:
            defaults[values[0]] = values[1]
            keys.setdefault(values[0], (path, call.line))
        elif call.name == "BindEnv" and values:
            bound.append((path, call.line, values[0], tuple(values[1:])))
        elif call.name.startswith("Get") and values and call.args[0][0] != "expr":
            keys.setdefault(values[0], (path, call.line))
        elif call.name in ("SetConfigFile", "SetConfigName") and values:
            file = values[0] if call.name == "SetConfigFile" else None
            config = (path, call.line, file or (config[2] if config else None))
        elif call.name == "ReadInConfig" and config is None:
            config = (path, call.line, None)

    def env(key: str) -> str:
        name = f"{prefix}_{key}" if prefix else key
        for old, new in replace:
            name = name.replace(old, new) if old else name
        return name.upper()

    reads: list[tuple[str, EnvRead | Gap]] = []
    if automatic and config is not None:
        path, line, file = config
        named = [n for _, c in calls if c.name == "SetConfigName" for n in c.args[:1]]
        stem = resolver.default(path, named[0]) if named else None
        found = (
            _among(file, sources)
            if file
            else any(s.rpartition("/")[2].partition(".")[0] == (stem or "config") for s in sources)
        )
        if not found:
            shown = file or f"{stem or 'config'}.yaml"
            named_prefix = f"{prefix.upper()}_" if prefix else ""
            what = (
                f"viper reads the config file {shown} and, with AutomaticEnv, its keys from env "
                "vars; the file is not among `config.sources`"
            )
            entry = f'{{ path = "{shown}", env_prefix = "{named_prefix}", env_separator = "_" }}'
            way_out = f"add `{entry}` to `config.sources`"
            reads.append((path, Gap(line, what, way_out, blocking=True)))
    explicit: set[str] = set()
    for path, line, key, names in bound:
        explicit.add(key)
        site = f"{folder}#viper {key}"
        primary = names[0] if names else env(key)
        reads.append((path, EnvRead(primary, line, defaults.get(key), site=site, via=via)))
        reads += [
            (path, EnvRead(n, line, defaults.get(key), site=site, fallback_for=primary, via=via))
            for n in names[1:]
        ]
    if automatic:
        for key, (path, line) in sorted(keys.items()):
            if key not in explicit:
                site = f"{folder}#viper {key}"
                reads.append((path, EnvRead(env(key), line, defaults.get(key), site=site, via=via)))
    return reads


def reads(
    snapshot: Snapshot, blobs: Mapping[str, str], sources: frozenset[str] = frozenset()
) -> list[tuple[str, EnvRead | Gap]]:
    """Every env read and gap of the Go files at one ref (`blobs`: path -> blob id; `sources`
    the other source files, which a loader's config file may be; SourceError naming the file
    when a file that had to be parsed does not parse)."""
    resolver = _Resolver(GoRepo(snapshot, blobs))
    resolver.find_wrappers()
    resolver.calls()
    resolver.binds()
    resolver.flags()
    resolver.viper(sources)
    resolver.libraries(sources)
    resolver.environ()
    found = {(path, read) for path, read in resolver.reads if not resolver.test_helper(path)}
    return sorted(found, key=_order)


def _order(item: tuple[str, EnvRead | Gap]) -> tuple[str, int, str]:
    path, read = item
    return path, read.line, read.name if isinstance(read, EnvRead) else read.what
