"""Which web frameworks a repository uses, from its dependency files, for `init` to write
`[rest] routes`: each framework the route readers read, with the folder whose dependencies
name it."""

from __future__ import annotations

import posixpath
import re

from release_safety.settings.model import RouteFramework, RouteSource, skipped
from release_safety.surfaces.rest.routes.model import Files

_DEPENDENCIES: dict[str, tuple[tuple[str, RouteFramework], ...]] = {
    "package.json": (
        ('"next"', "nextjs"),
        ('"express"', "express"),
        ('"fastify"', "fastify"),
        ('"hono"', "hono"),
        ('"koa"', "koa"),
        ('"@koa/router"', "koa"),
        ('"@nestjs/core"', "nestjs"),
    ),
    "go.mod": (
        ("github.com/go-chi/chi", "chi"),
        ("github.com/gin-gonic/gin", "gin"),
        ("github.com/labstack/echo", "echo"),
        ("github.com/gorilla/mux", "gorilla"),
    ),
    "Cargo.toml": (("axum", "axum"), ("actix-web", "actix-web")),
    "requirements.txt": (("fastapi", "fastapi"), ("flask", "flask"), ("django", "django")),
    "pyproject.toml": (("fastapi", "fastapi"), ("flask", "flask"), ("django", "django")),
}


def recognise(snapshot: Files) -> list[RouteSource]:
    """A route source per framework a dependency file names (its folder's code), sorted."""
    found: set[tuple[str, RouteFramework]] = set()
    for path in snapshot.paths():
        name = posixpath.basename(path)
        if name not in _DEPENDENCIES or skipped("**", path):
            continue
        text = snapshot.read(path).decode("utf-8", errors="replace").lower()
        folder = posixpath.dirname(path)
        for marker, framework in _DEPENDENCIES[name]:
            bounded = "" if marker.startswith('"') else r"\b"
            if re.search(bounded + re.escape(marker.lower()) + bounded, text):
                found.add((folder, framework))
    return [
        RouteSource(path=f"{folder}/**" if folder else "**", framework=framework)
        for folder, framework in sorted(found)
    ]
