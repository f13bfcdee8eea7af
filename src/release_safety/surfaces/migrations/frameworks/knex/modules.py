"""Module loading: the constants a knex migration imports with a relative path, read from the
other files of the repository."""

from __future__ import annotations

import posixpath

from release_safety.surfaces.migrations.frameworks.knex.interpreter import (
    Interpreter,
    ReadModule,
    parse,
)
from release_safety.surfaces.migrations.frameworks.knex.values import Unknown, is_plain

MAX_IMPORT_DEPTH = 3


_EXTENSIONS = ("", ".ts", ".js", ".cjs", "/index.ts", "/index.js")
_TYPED = {".js": ".ts", ".mjs": ".mts", ".cjs": ".cts"}


class Modules:
    """Constants exported by the files a migration imports with a relative path, read through
    `read_module`; each file is evaluated once, imports of imports up to MAX_IMPORT_DEPTH."""

    def __init__(
        self, path: str, read_module: ReadModule | None, cache: dict[str, object] | None = None
    ) -> None:
        self.path = path
        self.read_module = read_module
        self.cache: dict[str, object] = {} if cache is None else cache
        self.depth = 0

    def exports_of(self, origin: str) -> dict[str, object] | None:
        """The plain values `origin` exports, or None when it cannot be read."""
        if self.read_module is None or not origin.startswith("."):
            return None
        base = posixpath.normpath(posixpath.join(posixpath.dirname(self.path), origin))
        stem, ext = posixpath.splitext(base)
        typed = [stem + _TYPED[ext]] if ext in _TYPED else []  # TypeScript's `./x.js` is x.ts
        for candidate in [*(base + ext for ext in _EXTENSIONS), *typed]:
            if candidate in self.cache:
                cached = self.cache[candidate]
                return cached if isinstance(cached, dict) else None
            text = (
                self.read_module(candidate)
                if candidate.endswith((".ts", ".js", ".cjs", ".mts", ".cts"))
                else None
            )
            if text is not None:
                self.cache[candidate] = None  # a cycle reads as unknown
                exports = self._evaluate(text, candidate)
                self.cache[candidate] = exports
                return exports
        return None

    def _evaluate(self, text: str, path: str) -> dict[str, object] | None:
        if self.depth >= MAX_IMPORT_DEPTH:
            return None
        source, root = parse(text, path)
        if root.has_error:
            return None
        modules = Modules(path, self.read_module, self.cache)
        modules.depth = self.depth + 1
        interpreter = Interpreter(source, modules)
        interpreter.run_module(root)
        return {name: _plain(value) for name, value in interpreter.exports.items()}


def _plain(value: object) -> object:
    """A constant usable outside its file (functions refer to their own file's text)."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if is_plain(value) or isinstance(value, Unknown):
        return value
    return Unknown("an imported value that is not a constant")
