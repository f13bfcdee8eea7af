"""Reading a compose file as compose runs it: its services (image, writable mounts, environment,
entrypoint and command, profiles), named volumes, the variables it needs with no default, and
the files it pulls in: the top-level `include:` (a path, a list, or `{path: ...}`), a service's
`extends:` (`{file, service}` or a service of the same file) and `env_file:`.

Interpolation follows compose: `${VAR:-default}` and `${VAR-default}` read the default (itself
interpolated), `${VAR:?error}` and `${VAR}` / `$VAR` with no default need the variable set
(unless the `.env` file beside the compose file sets it), `$$` is a literal dollar. Short
(`pgdata:/data:ro`) and long (`{type, source, target, read_only}`) volume syntaxes are read;
read-only and tmpfs mounts hold no state and are left out. An extending service keeps what
it sets and takes the rest from the service it extends (mounts merged by target, environment
by name). A file `include:` or `extends:` pulls in that is not in the repository (missing,
remote, outside it) is recorded as unread, with where it is named; an `env_file` the
repository does not hold is the operator's own (a `.env` made from an example) and not read.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from release_safety.common.yamltree import Path, Tree, YamlError, load_yaml
from release_safety.surfaces.config import dotenv
from release_safety.surfaces.config.reads import SourceError
from release_safety.surfaces.deployment.imageref import Image, parse_image
from release_safety.surfaces.deployment.interpolation import interpolate, needed

Read = Callable[[str], str | None]
"""The text of a file of the repository, None when it has none at that path."""

MAX_DEPTH = 8
"""How deep includes and extends are followed; deeper is unread."""


class ComposeError(Exception):
    """The document is not a compose file; the message says why."""


@dataclass(frozen=True)
class Written:
    """A value and where it is written."""

    value: str
    file: str
    line: int


@dataclass(frozen=True)
class Mount:
    """A writable mount of a service: the volume or host path (None: anonymous) and where."""

    source: str | None
    target: str
    file: str
    line: int


@dataclass(frozen=True)
class Service:
    """A service as compose runs it; `file` and `line` say where it is declared, `image_file`
    and `image_line` where its image is written (a file it extends, perhaps)."""

    name: str
    file: str
    line: int
    image: Image | None
    image_file: str
    image_line: int
    build: str | None
    mounts: tuple[Mount, ...]
    environment: Mapping[str, Written] = field(default_factory=dict)
    entrypoint: Written | None = None
    command: Written | None = None
    profiles: Written | None = None


@dataclass(frozen=True)
class Unread:
    """A file compose pulls in that the tool cannot read: as written, why, and where named."""

    reference: str
    why: str
    file: str
    line: int


@dataclass(frozen=True)
class ComposeFile:
    """A compose file at one ref with what it pulls in: services, named volumes (name -> docker
    name where written), the variables it needs with no default (name -> where first needed),
    the files it read besides itself, and those it could not read."""

    path: str
    services: dict[str, Service]
    volumes: dict[str, Written]
    required: dict[str, Written]
    files: tuple[str, ...] = ()
    unread: tuple[Unread, ...] = ()


def _strings(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))


def _mount(entry: Any, defaults: Mapping[str, str], file: str, line: int) -> Mount | None:
    if isinstance(entry, dict):
        if entry.get("type") == "tmpfs" or str(entry.get("read_only")).lower() == "true":
            return None
        named, path = entry.get("source"), entry.get("target")
        if not isinstance(path, str):
            return None
        return Mount(
            interpolate(named, defaults) if isinstance(named, str) else None, path, file, line
        )
    if not isinstance(entry, str):
        return None
    parts = interpolate(entry, defaults).split(":")
    source: str | None = None
    if len(parts) == 1 or (len(parts) == 2 and not parts[1].startswith("/")):
        target, mode = parts[0], ":".join(parts[1:])  # `/data` or `/data:ro`: anonymous
    else:
        source, target, mode = parts[0], parts[1], ":".join(parts[2:])
    if "ro" in mode.split(","):
        return None
    return Mount(source, target, file, line)


def _words(value: Any) -> str | None:
    """An entrypoint or command as one text (a list's items joined by spaces)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(str(item) for item in value)
    return None


def _listed(value: Any) -> list[str]:
    """A value compose takes as a string or a list of strings."""
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


@dataclass
class _Reading:
    """One compose file read with what it pulls in."""

    read: Read
    defaults: Mapping[str, str]
    trees: dict[str, Tree] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    unread: list[Unread] = field(default_factory=list)
    stack: list[tuple[str, str]] = field(default_factory=list)

    def missing(self, reference: str, why: str, file: str, line: int) -> None:
        self.unread.append(Unread(reference, why, file, line))

    def resolve(self, reference: str, file: str, line: int, record: bool = True) -> str | None:
        """The repository path `reference` (written in `file`) names; None (recorded as
        unread, unless not `record`) when it names none."""
        text = interpolate(reference, self.defaults)
        why = None
        path = posixpath.normpath(posixpath.join(posixpath.dirname(file), text))
        if "://" in text or text.startswith("git@"):
            why = "a remote file"
        elif text.startswith(("/", "~")) or "$" in text:
            why = "a path the repository does not fix"
        elif path.startswith("../") or path == "..":
            why = "outside the repository"
        if why is not None and record:
            self.missing(reference, why, file, line)
        return None if why is not None else path

    def tree(self, path: str, named_in: str, line: int, reference: str) -> Tree | None:
        """The YAML at `path`; None (recorded as unread) when the repository has no such file."""
        if path in self.trees:
            return self.trees[path]
        text = self.read(path)
        if text is None:
            self.missing(reference, "no such file in the repository", named_in, line)
            return None
        try:
            tree = load_yaml(text)
        except YamlError as exc:
            raise ComposeError(f"{path} (pulled in by {named_in}): {exc}") from exc
        if not isinstance(tree.data, dict):
            raise ComposeError(f"{path} (pulled in by {named_in}): not a compose file")
        self.trees[path] = tree
        self.files.add(path)
        return tree

    def environment(
        self, spec: dict[str, Any], file: str, tree: Tree, name: str
    ) -> dict[str, Written]:
        """A service's environment: its `env_file`s in order, then `environment`."""
        found: dict[str, Written] = {}
        entries = spec.get("env_file")
        for i, entry in enumerate(entries if isinstance(entries, list) else [entries]):
            line = tree.line("services", name, "env_file", i)
            reference = entry.get("path") if isinstance(entry, dict) else entry
            if not isinstance(reference, str):
                continue
            path = self.resolve(reference, file, line, record=False)
            text = self.read(path) if path is not None else None
            if path is None or text is None:  # not shipped: the operator's own (`.env`)
                continue
            self.files.add(path)
            try:
                reads = dotenv.parse(text)
            except SourceError as exc:
                raise ComposeError(f"{path} (env_file of {file}): {exc}") from exc
            found.update({r.name: Written(r.default or "", path, r.line) for r in reads})
        listed = spec.get("environment")
        if isinstance(listed, dict):
            for key, value in listed.items():
                text = "" if value is None else interpolate(str(value), self.defaults)
                found[str(key)] = Written(
                    text, file, tree.line("services", name, "environment", key)
                )
        elif isinstance(listed, list):
            for i, item in enumerate(listed):
                key, _, value = str(item).partition("=")
                line = tree.line("services", name, "environment", i)
                found[key] = Written(interpolate(value, self.defaults), file, line)
        return found

    def own(self, name: str, spec: dict[str, Any], file: str, tree: Tree) -> Service:
        """The service as its own entry writes it."""
        image_text = spec.get("image")
        image = (
            parse_image(interpolate(image_text, self.defaults))
            if isinstance(image_text, str)
            else None
        )
        build = spec.get("build")
        context = build.get("context") if isinstance(build, dict) else build
        mounts = [
            _mount(entry, self.defaults, file, tree.line("services", name, "volumes", i))
            for i, entry in enumerate(spec.get("volumes") or [])
        ]

        def written(key: str, text: str | None) -> Written | None:
            if text is None:
                return None
            return Written(interpolate(text, self.defaults), file, tree.line("services", name, key))

        profiles = _listed(spec.get("profiles"))
        return Service(
            name=name,
            file=file,
            line=tree.line("services", name),
            image=image,
            image_file=file,
            image_line=tree.line("services", name, "image"),
            build=context if isinstance(context, str) else None,
            mounts=tuple(m for m in mounts if m is not None),
            environment=self.environment(spec, file, tree, name),
            entrypoint=written("entrypoint", _words(spec.get("entrypoint"))),
            command=written("command", _words(spec.get("command"))),
            profiles=written("profiles", ", ".join(profiles)) if profiles else None,
        )

    def service(self, name: str, spec: Any, file: str, tree: Tree) -> Service:
        """The service with what it extends."""
        spec = spec if isinstance(spec, dict) else {}
        local = self.own(name, spec, file, tree)
        extends = spec.get("extends")
        extends = {"service": extends} if isinstance(extends, str) else extends
        if not isinstance(extends, dict) or not isinstance(extends.get("service"), str):
            return local
        line = tree.line("services", name, "extends")
        reference = extends.get("file")
        base_file: str | None = file
        base_tree: Tree | None = tree
        if isinstance(reference, str):
            base_file = self.resolve(reference, file, line)
            base_tree = self.tree(base_file, file, line, reference) if base_file else None
        if base_file is None or base_tree is None:
            return local
        base_name = extends["service"]
        services = base_tree.data.get("services")
        base_spec = services.get(base_name) if isinstance(services, dict) else None
        written = f"{reference or base_file}: {base_name}"
        if not isinstance(base_spec, dict):
            self.missing(written, f"{base_file} has no service `{base_name}`", file, line)
            return local
        if (base_file, base_name) in self.stack or len(self.stack) >= MAX_DEPTH:
            self.missing(written, "extends itself or nests too deep", file, line)
            return local
        self.stack.append((base_file, base_name))
        base = self.service(base_name, base_spec, base_file, base_tree)
        self.stack.pop()
        return _extended(base, local, spec)

    def file(self, path: str, tree: Tree, found: ComposeFile) -> None:
        """Add the services, volumes and needed variables of `path` and what it includes (the
        including file's entries win)."""
        data = tree.data
        for i, entry in enumerate(_listed_includes(data.get("include"))):
            line = tree.line("include", i)
            for reference in _listed(entry.get("path") if isinstance(entry, dict) else entry):
                target = self.resolve(reference, path, line)
                included = self.tree(target, path, line, reference) if target else None
                if target is None or included is None:
                    continue
                if (target, "") in self.stack or len(self.stack) >= MAX_DEPTH:
                    self.missing(reference, "includes itself or nests too deep", path, line)
                    continue
                self.stack.append((target, ""))
                self.file(target, included, found)
                self.stack.pop()
        services = data.get("services")
        for name, spec in (services if isinstance(services, dict) else {}).items():
            found.services[name] = self.service(name, spec, path, tree)
        for name, spec in (data.get("volumes") or {}).items():
            docker_name = spec.get("name") if isinstance(spec, dict) else None
            found.volumes[name] = Written(
                str(docker_name or name), path, tree.line("volumes", name)
            )
        for where, text in _strings(data, ()):
            for variable in needed(text, self.defaults):
                found.required.setdefault(variable, Written(variable, path, tree.line(*where)))


def _listed_includes(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if value is not None else []


def _extended(base: Service, local: Service, spec: dict[str, Any]) -> Service:
    """`local` (whose entry is `spec`) over the service it extends."""
    targets = {m.target for m in local.mounts}
    own_image = "image" in spec or "build" in spec
    return replace(
        local,
        image=local.image if own_image else base.image,
        image_file=local.image_file if own_image else base.image_file,
        image_line=local.image_line if own_image else base.image_line,
        build=local.build if own_image else base.build,
        mounts=(*(m for m in base.mounts if m.target not in targets), *local.mounts),
        environment={**base.environment, **local.environment},
        entrypoint=local.entrypoint if "entrypoint" in spec else base.entrypoint,
        command=local.command if "command" in spec else base.command,
        profiles=local.profiles if "profiles" in spec else base.profiles,
    )


def parse_compose(
    path: str, tree: Tree, defaults: Mapping[str, str], read: Read | None = None
) -> ComposeFile:
    """The compose file in `tree` with what it pulls in through `read`; `defaults` are the
    variables of the `.env` file beside it."""
    data = tree.data
    if not isinstance(data, dict) or not isinstance(data.get("services", 0), dict | None):
        raise ComposeError("not a compose file: no `services` mapping")
    reading = _Reading(read or (lambda _: None), defaults, stack=[(path, "")])
    found = ComposeFile(path, {}, {}, {})
    reading.file(path, tree, found)
    return replace(found, files=tuple(sorted(reading.files - {path})), unread=tuple(reading.unread))
