"""The config rules: data in the catalogue, and the rendering of each variable change into a
finding and, for the artifact, a `config.changes[]` entry."""

from __future__ import annotations

import re

from release_safety.contract.model import (
    ConfigChange,
    ConfigDefaultChanged,
    ConfigRemoved,
    ConfigRenamed,
)
from release_safety.contract.reports import Finding, Rule, register
from release_safety.surfaces.config.diff import Delta, DeltaKind, Var
from release_safety.surfaces.config.sources import source_kind

RULES: dict[DeltaKind, Rule] = {
    "removed": register(
        Rule(
            id="config-var-removed",
            surface="config",
            severity="breaking",
            title="An environment variable is no longer read",
            why=(
                "Deployments still set it and expect it to matter; a setting that silently "
                "stops working changes behaviour."
            ),
            unsafe="`process.env.CACHE_TTL` disappears from the code.",
            safe="Keep reading it (deprecated) for a release, or declare the break.",
        )
    ),
    "renamed": register(
        Rule(
            id="config-var-renamed",
            surface="config",
            severity="breaking",
            title="An environment variable was renamed without a fallback",
            why="Deployments set the old name; the new release ignores it and runs on defaults.",
            unsafe="`process.env.DB_HOST` becomes `process.env.DATABASE_HOST`.",
            safe="Read the new name and fall back to the old: "
            "`process.env.DATABASE_HOST ?? process.env.DB_HOST`.",
        )
    ),
    "renamed-with-fallback": register(
        Rule(
            id="config-var-renamed-with-fallback",
            surface="config",
            severity="advisory",
            title="An environment variable was renamed; the old name is still read",
            why="Existing deployments keep working; operators should move to the new name.",
            unsafe="",
            safe="`process.env.DATABASE_HOST ?? process.env.DB_HOST`",
        )
    ),
    "default-changed": register(
        Rule(
            id="config-default-changed",
            surface="config",
            severity="breaking",
            title="An environment variable's default changed",
            why="Deployments that rely on the default change behaviour without any edit. An "
            "empty default where there was none is no change: an unset variable reads as empty.",
            unsafe="`process.env.POOL_SIZE || 10` becomes `|| 50`.",
            safe="Keep the default, or declare the change and tell operators to pin the value.",
        )
    ),
    "default-added": register(
        Rule(
            id="config-default-added",
            surface="config",
            severity="advisory",
            title="A required environment variable gained a default",
            why="Every deployment already sets it, so nothing changes; it is now optional.",
            unsafe="",
            safe="`os.environ['REGION']` becomes `os.getenv('REGION', 'eu')`.",
        )
    ),
    "became-required": register(
        Rule(
            id="config-var-became-required",
            surface="config",
            severity="breaking",
            title="An optional environment variable became required",
            why="Deployments that never set it fail at start-up.",
            unsafe="`os.getenv('REGION')` becomes `os.environ['REGION']`.",
            safe="Give it a default, or declare the break with a required stop.",
        )
    ),
    "added-required": register(
        Rule(
            id="config-required-var-added",
            surface="config",
            severity="breaking",
            title="A new environment variable is required at start-up",
            why="No existing deployment sets it: the new release does not start.",
            unsafe="`const key = process.env.SIGNING_KEY!`",
            safe="Give it a default (`process.env.SIGNING_KEY ?? generated`), or declare it.",
        )
    ),
    "added-optional": register(
        Rule(
            id="config-optional-var-added",
            surface="config",
            severity="advisory",
            title="A new optional environment variable",
            why="Existing deployments run on its default; worth a line in the release notes.",
            unsafe="",
            safe="`process.env.FEATURE_X ?? 'off'`",
        )
    ),
    "required-unlisted": register(
        Rule(
            id="config-required-var-unlisted",
            surface="config",
            severity="advisory",
            title="A required environment variable is missing from the example file",
            why="Operators copy the example file; a variable the code requires and the example "
            "does not list is found at start-up, as a failure.",
            unsafe="`os.environ['SIGNING_KEY']` read; `.env.example` does not list it.",
            safe="List it in the example file (`SIGNING_KEY=`).",
        )
    ),
}


NOT_UNDERSTOOD = register(
    Rule(
        id="config-read-not-understood",
        surface="config",
        severity="unknown",
        title="Configuration is read in a way the tool does not model",
        why="A variable read through a computed name, or a config library the tool does not "
        "model, may be removed or change its default without the tool seeing it: the surface "
        "is not understood, so it is not checked.",
        unsafe="`process.env[prefix + key]`; `k.Load(file.Provider(path), yaml.Parser())`",
        safe="Read the variable by a literal name, or name the variables' definition in "
        "`config.sources` (a schema, a defaults table, an `env_prefix`).",
    )
)
LOADER_LOST = register(
    Rule(
        id="config-loader-lost",
        surface="config",
        severity="unknown",
        title="Most of the variables the previous release resolved are gone at once",
        why="A loader that moved out of the sources, or lost its prefix, looks like hundreds "
        "of removals; the tool cannot tell that from a release that stopped reading them.",
        unsafe='`envconfig.Process("app", &cfg)` moves to a package outside the glob.',
        safe="Point `config.sources` at the loader's new place, or declare the break.",
    )
)
NOTHING_READ = register(
    Rule(
        id="config-nothing-read",
        surface="config",
        severity="unknown",
        title="The config sources read no variable",
        why="Files that read no variable prove nothing about the variables the service reads.",
        unsafe='`config.sources = ["src/**/*.ts"]` where the service reads its settings '
        "from a file outside the glob.",
        safe="Name the files that read the configuration, or declare config `absent` with a "
        "reason.",
    )
)


def _show(value: str | None) -> str:
    return "(none)" if value is None else f"`{value}`"


def message(delta: Delta) -> str:
    """The evidence line for one change."""
    name = delta.name
    before = delta.old.default if delta.old else None
    after = delta.new.default if delta.new else None
    where = delta.new or delta.old
    noun = "config key" if where is not None and where.key else "env var"
    texts: dict[DeltaKind, str] = {
        "removed": f"{noun} `{name}` removed (previous default {_show(before)})",
        "renamed": f"{noun} `{delta.previous_name}` renamed to `{name}` without fallback",
        "renamed-with-fallback": (
            f"{noun} `{delta.previous_name}` renamed to `{name}`; "
            f"`{delta.previous_name}` still read as a fallback"
        ),
        "default-changed": f"{noun} `{name}` default changed {_show(before)} → {_show(after)}",
        "default-added": f"{noun} `{name}` now has a default {_show(after)}",
        "became-required": f"{noun} `{name}` became required (no default)",
        "added-required": f"new {noun} `{name}` required at start-up with no default",
        "added-optional": f"new optional {noun} `{name}` (default {_show(after)})",
        "required-unlisted": f"{noun} `{name}` is required and no example file lists it",
    }
    return texts[delta.kind]


def finding(delta: Delta) -> Finding:
    """The finding for one change, placed at the variable's read (the old one when removed),
    with a way out written in the language of that file."""
    where = delta.new or delta.old
    file, line = (where.file, where.line) if where else (None, None)
    return RULES[delta.kind].finding("config", message(delta), file, line, hint=hint(delta))


_READS = {
    "go": ('os.Getenv("{n}")', 'cmp.Or(os.Getenv("{n}"), "{d}")'),
    "python": ('os.environ.get("{n}")', 'os.getenv("{n}", "{d}")'),
    "rust": ('std::env::var("{n}")', 'std::env::var("{n}").unwrap_or_else(|_| "{d}".into())'),
    "js": ("process.env.{n}", "process.env.{n} ?? '{d}'"),
}
"""How each language reads a variable `n`, and reads it with a default `d`."""
_FALLBACKS = {
    "go": 'cmp.Or(os.Getenv("{n}"), os.Getenv("{o}"))',
    "python": 'os.environ.get("{n}") or os.environ.get("{o}")',
    "rust": 'std::env::var("{n}").or_else(|_| std::env::var("{o}"))',
    "js": "process.env.{n} ?? process.env.{o}",
}
"""How each language reads `n`, falling back to the old name `o`."""
_READER = re.compile(r"[A-Za-z_$][\w$.]*")


def _language(var: Var) -> str | None:
    """The language of the file defining the variable (None for a config or env file)."""
    kind = source_kind(var.file)
    return "js" if kind in ("ts", "tsx", "js") else kind if kind in _READS else None


def _spelled(var: Var, template: str, **names: str) -> str:
    """`template` for the variable's language, through the service's own reader function when
    a TypeScript / JavaScript variable is read through one (`getConfigFromEnv('X')`)."""
    text = template.format(**names)
    reader = (var.via or "").split(" at ")[0]
    if _language(var) == "js" and var.via and _READER.fullmatch(reader):
        for name in names.values():
            text = text.replace(f"process.env.{name}", f"{reader}('{name}')")
    return text


def hint(delta: Delta) -> str | None:
    """The way out of one change, for this variable, in its file's language."""
    var = delta.new or delta.old
    if var is None:
        return None
    name, old = delta.name, delta.previous_name or ""
    before = delta.old.default if delta.old else None
    after = delta.new.default if delta.new else None
    language = _language(var)
    if language is None:
        read = f"`{name}` in {var.file}"
        with_default = f"`{name}` with a value in {var.file}"
        fallback = f"`{old}` beside `{name}` in {var.file}"
    else:
        plain, defaulted = _READS[language]
        value = before if before is not None else "value"
        read = f"`{_spelled(var, plain, n=name)}`"
        with_default = f"`{_spelled(var, defaulted, n=name, d=value)}`"
        fallback = f"`{_spelled(var, _FALLBACKS[language], n=name, o=old)}`"
    texts: dict[DeltaKind, str] = {
        "removed": f"Keep reading {name} for one more release ({read}), deprecated, or "
        "declare the break so operators drop it knowingly.",
        "renamed": f"Read {name} and fall back to {old}: {fallback}; or declare the rename.",
        "renamed-with-fallback": f"Tell operators to move from {old} to {name} before a "
        "release drops the fallback.",
        "default-changed": f"Keep {name}'s default {_show(before)} ({with_default}), or "
        f"declare the change and tell operators to set {name}={before or ''} to keep "
        "today's behaviour.",
        "default-added": f"Note in the release that {name} now defaults to {_show(after)}.",
        "became-required": f"Give {name} a default ({with_default}), or declare the break "
        f"so operators set {name} before they roll.",
        "added-required": f"Give {name} a default ({with_default}), or declare the break so "
        f"operators set {name} before they roll.",
        "added-optional": f"Mention {name} (default {_show(after)}) in the release notes.",
        "required-unlisted": f"List `{name}=` in the example env file, so operators see it "
        "before start-up.",
    }
    return texts[delta.kind]


def change(delta: Delta) -> ConfigChange | None:
    """The artifact's `config.changes[]` entry, for removals, renames and default changes."""
    old = delta.old.default if delta.old else None
    new = delta.new.default if delta.new else None
    if delta.kind == "removed":
        return ConfigRemoved(type="removed", name=delta.name, previousDefault=old)
    if delta.kind in ("renamed", "renamed-with-fallback") and delta.previous_name:
        return ConfigRenamed(
            type="renamed", name=delta.name, previousName=delta.previous_name, defaultValue=new
        )
    if delta.kind == "default-changed":
        return ConfigDefaultChanged(
            type="defaultChanged", name=delta.name, previousDefault=old, defaultValue=new
        )
    return None
