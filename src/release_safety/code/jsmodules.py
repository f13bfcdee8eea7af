"""JavaScript / TypeScript relative imports: the files `import ... from "./x"` may name."""

from __future__ import annotations

import posixpath

_EXTENSIONS = ("", ".ts", ".js", ".cjs", "/index.ts", "/index.js")
_TYPED = {".js": ".ts", ".mjs": ".mts", ".cjs": ".cts"}
SCRIPTS = (".ts", ".js", ".cjs", ".mts", ".cts")


def module_candidates(importer: str, origin: str) -> list[str]:
    """The repository paths a relative import `origin` written in file `importer` may name, in
    the order they are tried (none for a package import)."""
    if not origin.startswith("."):
        return []
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), origin))
    stem, ext = posixpath.splitext(base)
    typed = [stem + _TYPED[ext]] if ext in _TYPED else []  # TypeScript's `./x.js` is x.ts
    return [*(base + ext for ext in _EXTENSIONS), *typed]
