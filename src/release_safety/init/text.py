"""The settings `release-safety init` writes, as TOML text, from what `init.survey` found: each
entry with a one-line comment saying why, and each surface with nothing found declared absent
with a placeholder reason the maintainer must replace (a hollow reason, so an unedited file
keeps that surface unknown). Pure: text in, text out."""

from __future__ import annotations

import json
from collections.abc import Sequence

from release_safety.contract.kinds import Surface
from release_safety.contract.reports import SETTINGS_KEYS
from release_safety.init.survey import Survey, Taken
from release_safety.settings.model import (
    DEFAULT_MCP_SNAPSHOTS,
    DEFAULT_REST_SPECS,
    ConfigSource,
    RouteSource,
)

PYPROJECT_TABLE = "tool.release-safety"

PLACEHOLDER = "TODO: write why the service has no {what} (operators read this reason)"
"""The reason init writes for a surface it found nothing for: hollow (`settings/reasons.py`) until
the maintainer writes the real one."""


def toml_string(value: str) -> str:
    """A TOML string: literal (`'...'`) for a pattern with backslashes, else basic."""
    if "\\" in value and "'" not in value and value.isprintable():
        return f"'{value}'"
    return json.dumps(value, ensure_ascii=False)


def _list(values: Sequence[str]) -> str:
    return "[" + ", ".join(toml_string(v) for v in values) + "]"


def _comments(taken: Sequence[Taken], lead: str = "") -> list[str]:
    return [f"# {lead}{t.value}: {t.why}" for t in taken]


def _absent(surface: Surface, why: str) -> list[str]:
    return [
        f"# nothing found: {why}. Replace the TODO with the real reason (or remove `absent` "
        "and name the files): until then this surface is unknown",
        f"absent = {toml_string(PLACEHOLDER.format(what=SETTINGS_KEYS[surface][2]))}",
    ]


def settings_text(found: Survey, commit: str, table: bool = False) -> str:
    """The settings file (`table`: the `[tool.release-safety]` table of pyproject.toml)."""
    name = "pyproject.toml [tool.release-safety]" if table else ".release-safety.toml"
    tags = found.tags
    top = [
        f"# {name}, written by `release-safety init` from {commit[:12]}: each choice says why.",
        "# Check each one, write the reasons marked TODO, then commit the file.",
        "",
        f"# {tags.why}",
        f"tag_pattern = {toml_string(tags.pattern)}",
    ]
    if found.floor is not None:
        top += [f"# {found.floor.why}", f'floor_version = "{found.floor.value}"']
    top += [
        f"# {folder}/: left out everywhere below, another project's code (go.mod replaces a "
        f"module with ./{folder})"
        for folder in found.vendored
    ]
    sections: list[tuple[str, list[str]]] = []
    for source, why in found.migrations:
        body = [f"# {why}", f"path = {toml_string(source.path)}"]
        if source.pattern is not None:
            body.append(f"pattern = {toml_string(source.pattern)}")
        if source.exclude is not None:
            body.append(f"exclude = {toml_string(source.exclude)}")
        body += [f'format = "{source.format}"', f"database = {toml_string(source.database)}"]
        if source.dialect is not None:  # what the tool's config or the names say
            body.append(f'dialect = "{source.dialect}"')
        sections.append(("[migrations.sources]", body))
    notes = [
        f"# {folder}: left out, no `//go:embed` of the code names it (the binary runs the "
        "migrations it embeds)"
        for folder in found.not_embedded
    ]
    if found.code_migrations:
        code = found.code_migrations
        shown = ", ".join(code[:2]) + (f" and {len(code) - 2} more" if len(code) > 2 else "")
        notes.append(
            f"# {len(code)} migration(s) written in code ({shown}): no source reads them, and "
            "a release that adds or edits one is `migration-not-read` (unknown) until reviewed"
            + ("" if found.migrations else "; not declared absent: they are there")
        )
    if not found.migrations and not found.code_migrations:
        why = "no SQL or knex migration in a folder named `migrations`"
        notes += _absent("migrations", why)
    if notes:
        sections.append(("migrations", notes))
    sections.append(("rest", _rest(found)))
    if found.mcp:
        mcp = [*_comments(found.mcp), f"snapshots = {_list([t.value for t in found.mcp])}"]
    else:
        mcp = _absent("mcp", f"no MCP tool snapshot ({', '.join(DEFAULT_MCP_SNAPSHOTS)})")
    sections.append(("mcp", mcp))
    left = _comments(found.config_left, "left out, ")
    if found.config:
        config = [f"# {source.path}: {why}" for source, why in found.config]
        entries = [f"  {_config_entry(source)}," for source, _ in found.config]
        config += [*left, "sources = [", *entries, "]"]
    else:
        why = "no env template, config schema or code of the service that reads the environment"
        config = [*left, *_absent("config", why)]
    sections.append(("config", config))
    sections.append(("deployment", _deployment(found)))
    return _render(top, sections, PYPROJECT_TABLE if table else None)


def _rest(found: Survey) -> list[str]:
    left = _comments(found.rest_left, "left out, ")
    if found.rest:
        return [*_comments(found.rest), *left, f"specs = {_list([t.value for t in found.rest])}"]
    no_spec = f"no OpenAPI document ({', '.join(DEFAULT_REST_SPECS[:2])}, ...)"
    if found.routes:
        return [
            f"# {no_spec}: the routes the code registers are read and compared instead",
            *[f"# {source.path}: {why}" for source, why in found.routes],
            *left,
            "routes = [",
            *[f"  {_route_entry(source)}," for source, _ in found.routes],
            "]",
        ]
    return [*left, *_absent("rest", f"{no_spec}, and no route the code registers")]


def _deployment(found: Survey) -> list[str]:
    left = _comments(found.deployment_left, "excluded, ")
    if found.deployment_kept:
        values = [*found.deployment_globs, *(t.value for t in found.deployment_kept)]
        return [
            "# the default `sources` that find files at HEAD (they follow the files from release",
            "# to release and leave the developer-only ones out), and by name the ones the docs",
            "# give operators:",
            *_comments(found.deployment),
            *_comments(found.deployment_kept),
            *left,
            f"sources = {_list(values)}",
        ]
    if found.deployment:
        return [
            "# the default `sources` find these and leave the developer-only ones out (kept",
            "# unset, they follow the files from release to release; name them to narrow):",
            *_comments(found.deployment),
            *left,
        ]
    why = "no compose file, Helm chart or Dockerfile operators deploy with"
    return [*left, *_absent("deployment", why)]


def _config_entry(source: ConfigSource) -> str:
    """A config source as TOML: its path, or an inline table naming its kind and the files it
    leaves out."""
    if source.kind is None and not source.exclude:
        return toml_string(source.path)
    kind = f', kind = "{source.kind}"' if source.kind is not None else ""
    exclude = f", exclude = [{', '.join(map(toml_string, source.exclude))}]" * bool(source.exclude)
    return f"{{ path = {toml_string(source.path)}{kind}{exclude} }}"


def _route_entry(source: RouteSource) -> str:
    """A route source as TOML: its path, or an inline table with its framework and prefix."""
    options = source.model_dump(mode="json", exclude_defaults=True, exclude={"path"})
    if not options:
        return toml_string(source.path)
    shown = ", ".join(f"{key} = {toml_string(value)}" for key, value in options.items())
    return f"{{ path = {toml_string(source.path)}, {shown} }}"


def _render(top: list[str], sections: list[tuple[str, list[str]]], table: str | None) -> str:
    lines = list(top)
    if table is not None:
        lines.insert(3, f"[{table}]")
    for name, body in sections:
        array = name.startswith("[")
        header = name.strip("[]")
        full = f"{table}.{header}" if table else header
        lines += ["", f"[[{full}]]" if array else f"[{full}]", *body]
    return "\n".join(lines) + "\n"
