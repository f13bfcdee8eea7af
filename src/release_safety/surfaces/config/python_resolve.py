"""The environment variables the Python files of one ref read, resolved across files.

- the reads `python_src` finds in each file (literal names, pydantic-settings) and those of
  the config libraries `python_libs` models (environs, django-environ, dynaconf);
- reader functions: a module-level function of the repository whose parameter reaches
  `os.getenv` / `os.environ.get` / `os.environ[...]`, or another reader, through any depth of
  wrappers and across files (`from .util import env_int`, `import app.util as u`, re-exports
  of a package's `__init__.py`), is a reader; each call with a literal or a module constant
  (of the file or imported) is a read of that variable. Its default is what the call gives for
  the parameter that reaches the getter's default (or that parameter's own default value,
  `def env_int(name, default=5)`), else a literal the reader passes, and `reader("X") or 5000`
  overrides both; a reader reached by `os.environ[...]`, or whose body raises or exits, makes a
  variable without default required;
- a read whose name cannot be followed (an f-string, a loop variable, a reader called with
  something else than a literal or constant, a getter in a method) is a `Gap` of its file.

Imported modules are looked up among every Python file of the ref, parsed only when an
import is followed; each file is parsed once per blob id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import partial

import release_safety.surfaces.config.python_calls as python_calls
import release_safety.surfaces.config.python_libs as python_libs
import release_safety.surfaces.config.python_src as python_src
import release_safety.surfaces.config.structured as structured
from release_safety.code.memo import Memo
from release_safety.git.snapshot import Snapshot
from release_safety.surfaces.config.python_calls import ENV_GET, ENV_ITEM, Call, Module, Value
from release_safety.surfaces.config.reads import EnvRead, Gap, Reading, SourceError

_DEPTH = 16
"""Wrappers of wrappers followed at most this deep; re-exports followed at most this far."""


@dataclass(frozen=True)
class PyFile:
    reads: tuple[EnvRead | Gap, ...]
    module: Module
    settings_files: tuple[python_libs.SettingsFiles, ...]


_FACTS: Memo[tuple[str, str], PyFile | SourceError] = Memo(65536)
"""Per (path, blob id): a file's facts (its gaps name the file)."""


@dataclass(frozen=True)
class Reader:
    """A function reading the variable named by parameter `name`: its default is the argument
    given for parameter `default` (an index), a literal (a string), or none."""

    params: tuple[str, ...]
    name: int
    default: int | str | None
    required: bool
    defaults: tuple[Value | None, ...] = ()
    affix: tuple[str, str] = ("", "")
    """Text the reader puts before and after the name it is given (`os.getenv(s + "_FILE")`)."""


_BUILTIN = {
    ENV_GET: (Reader(("key", "default"), 0, 1, False),),
    ENV_ITEM: (Reader(("key",), 0, None, True),),
}


def _facts(data: bytes, path: str) -> PyFile:
    tree, text = python_src.syntax_tree(data)
    libraries = python_libs.read(tree, text, path)
    found: list[EnvRead | Gap] = [*python_src.reads(tree, text), *libraries.reads]
    return PyFile(tuple(found), python_calls.module(tree, text), tuple(libraries.files))


class _Resolver:
    def __init__(self, snapshot: Snapshot, blobs: Mapping[str, str]) -> None:
        self.snapshot = snapshot
        self.blobs = dict(blobs)
        self.files: dict[str, PyFile] = {}
        self.readers: dict[tuple[str, str], frozenset[Reader]] = {}
        self._modules: dict[str, list[str]] | None = None
        for path in blobs:
            self._load(path)
        self._imported()

    def _imported(self) -> None:
        """Every module of the repository the sources import, transitively."""
        pending = list(self.files)
        seen = set(pending)
        while pending:
            path = pending.pop()
            module = self.files[path].module
            for written, symbol in module.imports.values():
                for name in (written, _join(written, symbol) if symbol else None):
                    target = self._module_path(path, name) if name else None
                    if target is not None and target not in seen:
                        seen.add(target)
                        pending.append(target)

    def _load(self, path: str) -> PyFile | None:
        if path in self.files:
            return self.files[path]
        blob = self.blobs.get(path) or self.snapshot.blob_id(path)
        if blob is None:
            return None
        found = _FACTS.get((path, blob), partial(_guarded, self.snapshot, path))
        if isinstance(found, SourceError):
            if path in self.blobs:
                raise SourceError(found.message, found.line, path)
            return None  # an imported file that does not parse: its readers stay unknown
        self.files[path] = found
        return found

    def _module_path(self, here: str, written: str) -> str | None:
        """The file of module `written` (`.util`, `app.util`) imported from `here`."""
        level = len(written) - len(written.lstrip("."))
        parts = [p for p in written[level:].split(".") if p]
        if level:
            base = here.split("/")[:-level]
            stems = ["/".join([*base, *parts])]
        else:
            stems = self._absolute(parts, here)
        for stem in stems:
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                if candidate.strip("/") and self._load(candidate.lstrip("/")) is not None:
                    return candidate.lstrip("/")
        return None

    def _absolute(self, parts: list[str], here: str) -> list[str]:
        """Folders a dotted module may live in: any folder of the ref ending with its path,
        nearest to `here` first."""
        if self._modules is None:
            self._modules = {}
            for path in self.snapshot.paths():
                if path.endswith(".py"):
                    stem = path[: -len("/__init__.py")] if path.endswith("/__init__.py") else path
                    stem = stem.removesuffix(".py")
                    self._modules.setdefault(stem.rpartition("/")[2], []).append(stem)
        if not parts:
            return []
        wanted = "/".join(parts)
        stems = [
            s for s in self._modules.get(parts[-1], []) if s == wanted or s.endswith("/" + wanted)
        ]
        return sorted(stems, key=lambda s: (-_shared(s, here), s))

    def function(
        self, path: str, callee: tuple[str, ...], depth: int = 0
    ) -> tuple[str, str] | None:
        """The (file, function) a call names, following imports and re-exports."""
        module = self.files[path].module
        if depth > _DEPTH:
            return None
        if len(callee) == 1:
            name = callee[0]
            if name in module.functions:
                return path, name
            imported = module.imports.get(name)
            if imported is None or imported[1] is None:
                return None
            target = self._module_path(path, imported[0])
            if target is None:
                return None
            return self.function(target, (imported[1],), depth + 1)
        imported = module.imports.get(callee[0])
        if imported is None:
            return None
        written = imported[0] if imported[1] is None else _join(imported[0], imported[1])
        target = self._module_path(path, written)
        return self.function(target, callee[1:], depth + 1) if target is not None else None

    def reader(self, path: str, callee: tuple[str, ...]) -> Iterable[Reader]:
        """The reads a call of `callee` makes (a function may read several variables)."""
        if callee[0] in _BUILTIN:
            return _BUILTIN[callee[0]]
        found = self.function(path, callee)
        return self.readers.get(found, ()) if found is not None else ()

    def constant(self, path: str, name: str, depth: int = 0) -> str | None:
        module = self.files[path].module
        if name in module.constants:
            return module.constants[name]
        imported = module.imports.get(name)
        if imported is None or imported[1] is None or depth > _DEPTH:
            return None
        target = self._module_path(path, imported[0])
        return self.constant(target, imported[1], depth + 1) if target is not None else None

    def find_readers(self) -> None:
        """Readers to a fixed point: a function becomes one when it passes a parameter to one."""
        for _ in range(_DEPTH):
            grown = False
            for path, facts in list(self.files.items()):
                for call in facts.module.calls:
                    if call.scope is None:
                        continue
                    known = self.readers.get((path, call.scope), frozenset())
                    made = {
                        found
                        for r in self.reader(path, call.callee)
                        if (found := self._wrapper(path, call, r)) is not None
                    } - known
                    if made:
                        self.readers[(path, call.scope)] = known | made
                        grown = True
            if not grown:
                return

    def _wrapper(self, path: str, call: Call, reader: Reader) -> Reader | None:
        if call.scope is None:
            return None
        key = call.arg(reader.name, reader.params[reader.name])
        if key is None or key.name not in call.params:
            return None
        function = self.files[path].module.functions[call.scope]
        if key.name not in function.params:
            return None
        default: int | str | None = None
        given = _given_default(call, reader)
        if call.orelse is not None:
            given = call.orelse
        if given is not None and given.name in function.params:
            default = function.params.index(given.name)
        elif given is not None:
            default = given.shown
        guard = dict(function.guards)
        if key.name in guard and default is None:
            given = guard[key.name]
            if given is not None and given.name in function.params:
                default = function.params.index(given.name)
            elif given is not None:
                default = given.shown
        required = default is None and key.name not in guard
        required = required and (reader.required or function.stops)
        affix = (key.affix[0] + reader.affix[0], reader.affix[1] + key.affix[1])
        index = function.params.index(key.name)
        return Reader(function.params, index, default, required, function.defaults, affix)

    def reads(self, path: str) -> Reading:
        facts = self.files[path]
        found: Reading = list(facts.reads)
        for call, reader in (
            (c, r) for c in facts.module.calls for r in self.reader(path, c.callee)
        ):
            key = call.arg(reader.name, reader.params[reader.name])
            if key is None:
                continue
            if key.name in call.params and (path, call.scope or "") in self.readers:
                continue  # the reader's own body
            name = key.literal if key.string else None
            if name is None and key.name is not None and key.name not in call.params:
                name = self.constant(path, key.name)
            if name is not None:
                name = key.affix[0] + reader.affix[0] + name + reader.affix[1] + key.affix[1]
            else:
                found.append(_computed(path, call, key))
                continue
            given = call.orelse or _given_default(call, reader)
            default = reader.default if isinstance(reader.default, str) else None
            if given is not None:
                default = given.shown
            found.append(
                EnvRead(name, call.line, default, reader.required and default is None, call.site)
            )
        return found


def _given_default(call: Call, reader: Reader) -> Value | None:
    """What a call gives for the reader's default parameter, or that parameter's own default."""
    if not isinstance(reader.default, int):
        return None
    index = reader.default
    given = call.arg(index, reader.params[index])
    if given is None and index < len(reader.defaults):
        given = reader.defaults[index]
    return given if given is not None and given.shown is not None else None


def _computed(path: str, call: Call, key: Value) -> Gap:
    shown = f"{call.callee[-1]}({key.text})" if call.callee[0] not in _BUILTIN else key.text
    where = "os.environ" if call.callee[0] in _BUILTIN else "a reader function"
    return Gap(
        call.line,
        f"`{shown}`: a variable read through {where} with a name that cannot be followed",
        f"Name the variable at {path}:{call.line} with a string literal or a module constant "
        f"instead of `{key.text}`, or leave {path} out of `config.sources` (an `exclude`) if it "
        "reads no setting of the service.",
    )


def _join(module: str, name: str) -> str:
    return module + name if module.endswith(".") else f"{module}.{name}"


def _shared(stem: str, here: str) -> int:
    count = 0
    for a, b in zip(stem.split("/"), here.split("/"), strict=False):
        if a != b:
            break
        count += 1
    return count


def _guarded(snapshot: Snapshot, path: str) -> PyFile | SourceError:
    try:
        return _facts(snapshot.read(path), path)
    except SourceError as exc:
        return exc


def imported(snapshot: Snapshot, blobs: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The files (path, blob id) of the repository the Python sources import, transitively,
    and the settings files their loaders name: what their reads depend on besides themselves."""
    resolver = _Resolver(snapshot, blobs)
    paths = {path for path in resolver.files if path not in blobs}
    for path in blobs:
        for loader in resolver.files[path].settings_files:
            paths |= {_settings_path(snapshot, path, written) or "" for written in loader.files}
    return tuple((path, snapshot.blob_id(path) or "") for path in sorted(paths - {""}))


def reads(snapshot: Snapshot, blobs: Mapping[str, str]) -> list[tuple[str, EnvRead | Gap]]:
    """Every env read and gap of the Python files at one ref (`blobs`: path -> blob id;
    SourceError naming the file when one of them does not parse)."""
    resolver = _Resolver(snapshot, blobs)
    resolver.find_readers()
    found = [(path, read) for path in blobs for read in resolver.reads(path)]
    for path in blobs:
        for loader in resolver.files[path].settings_files:
            found += _settings_files(snapshot, path, loader)
    return found


def _settings_files(
    snapshot: Snapshot, path: str, loader: python_libs.SettingsFiles
) -> list[tuple[str, EnvRead | Gap]]:
    """The keys of the files a dynaconf loader names, beside the code or at the root; a named
    file that is not in the repository is a gap (its keys are out of sight)."""
    found: list[tuple[str, EnvRead | Gap]] = []
    for written in loader.files:
        kind = structured.KINDS.get("." + written.rpartition(".")[2].lower())
        named = _settings_path(snapshot, path, written)
        if kind is None or named is None:
            found.append((path, _missing(path, loader, written)))
            continue
        data = snapshot.read(named)
        document = structured.load(data, kind)
        if loader.environments and isinstance(document, dict):
            document = {"default": document.get("default", {})}
            shown = structured.parse(data, document, True, loader.prefix, "__")
            strip = "DEFAULT__"
            reads = [_unlayered(r, loader.prefix or "", strip) for r in shown]
        else:
            reads = structured.parse(data, document, True, loader.prefix, "__")
        via = f"Dynaconf at {path}:{loader.line}"
        found += [(named, replace(r, via=via, key=loader.prefix is None)) for r in reads]
    return found


def _settings_path(snapshot: Snapshot, path: str, written: str) -> str | None:
    """A settings file named by the code at `path`: beside it, else at the root."""
    folder = path.rpartition("/")[0]
    places = [f"{folder}/{written}" if folder else written, written]
    return next((p for p in places if snapshot.blob_id(p) is not None), None)


def _unlayered(read: EnvRead, prefix: str, layer: str) -> EnvRead:
    name = read.name
    if name.startswith(prefix + layer):
        name = prefix + name[len(prefix + layer) :]
    return replace(read, name=name, site=read.site and read.site.removeprefix("default."))


def _missing(path: str, loader: python_libs.SettingsFiles, written: str) -> Gap:
    return Gap(
        loader.line,
        f"dynaconf settings file `{written}`: not found beside {path} or at the root, or not "
        "TOML, YAML or JSON",
        f"Add the file dynaconf loads at {path}:{loader.line} to `config.sources` with its "
        f'`env_prefix` (`{loader.prefix or ""}`) and `env_separator = "__"`.',
    )
