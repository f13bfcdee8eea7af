"""Files the service runs besides its sources, read as configuration with them: a
`next.config.{js,mjs,cjs,ts}` and a `gunicorn_conf.py` / `gunicorn.conf.py` at the repository
root or in a folder above a matched source, and the shell scripts a Dockerfile's `ENTRYPOINT` or
`CMD` runs (`/app/docker/entry.sh` is the repository's `docker/entry.sh`; a name alone, the one
script of that name), of Dockerfiles outside test, example and vendored folders with no
developer word (`dev`, `ci`) in their path. Only added where the sources match a file: they
complete a reading, never replace one. The keys of a Next.js config's `env` are build-time
values inlined into the bundle, not variables operators set (`build_time`)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from functools import partial

from tree_sitter import Node

from release_safety.code.memo import Memo, per_tree
from release_safety.code.parsers import parser
from release_safety.code.syntax import node_text
from release_safety.code.tsnodes import key_name
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import DEVELOPER_WORDS, ConfigSource
from release_safety.surfaces.discovery import names

NEXT_CONFIGS = tuple(f"next.config.{ext}" for ext in ("js", "mjs", "cjs", "ts"))
RUN_CONFIGS = (*NEXT_CONFIGS, "gunicorn_conf.py", "gunicorn.conf.py")
DOCKERFILE_NAME = re.compile(r"(?:[Dd]ockerfile|Containerfile)(?:[.-].+)?|.+\.[Dd]ockerfile")
"""The names of Dockerfiles (`Dockerfile.prod`, `dockerfile`, `app.Dockerfile`,
`Containerfile`): the deployment surface reads them, and the scripts they run are read here."""
_RUNS = re.compile(r"^\s*(?:ENTRYPOINT|CMD)\s+(.*)$", re.IGNORECASE | re.MULTILINE)
_SCRIPT = re.compile(r"[\w./-]+\.sh\b")


def _folders(paths: Iterable[str]) -> set[str]:
    """The root and every folder above a path."""
    found = {""}
    for folder in {path.rpartition("/")[0] for path in paths}:
        while folder not in found:  # its folders are in already when it is
            found.add(folder)
            folder = folder.rpartition("/")[0]
    return found


def _run_configs(snapshot: Snapshot) -> list[str]:
    """The tree's files named as a run config (`RUN_CONFIGS`), by folder then name's rank."""
    rank = {name: i for i, name in enumerate(RUN_CONFIGS)}
    parts = [p.rpartition("/") for p in snapshot.paths() if p.endswith(RUN_CONFIGS)]
    found = [(f, rank[name], f"{f}{slash}{name}") for f, slash, name in parts if name in rank]
    return [path for _, _, path in sorted(found)]


_RUN_CONFIGS: Memo[tuple[str, str], list[str]] = Memo(8)
"""`_run_configs` per tree: consecutive releases share a tree."""
_SCRIPTS: Memo[tuple[str, str], list[str]] = Memo(8)
"""`_scripts` per tree."""
_DOCKERFILE_GLOBS = ("**/[Dd]ockerfile*", "**/*.[Dd]ockerfile", "**/Containerfile*")
_WORD = re.compile(r"[-_./]")


def _dockerfiles(snapshot: Snapshot) -> list[str]:
    """The Dockerfiles that build the service: outside vendored, test, example and hidden
    folders (discovery's), and no developer word in the path (`Dockerfile.dev`, `ci/`). Each
    path is asked its name first: a Dockerfile's holds `ockerfile` or `Containerfile`, and the
    globs are asked of those paths alone."""
    globs = [names(glob) for glob in _DOCKERFILE_GLOBS]
    return [
        p
        for p in snapshot.paths()
        if ("ockerfile" in p or "Containerfile" in p)
        and DOCKERFILE_NAME.fullmatch(posixpath.basename(p))
        and not DEVELOPER_WORDS.intersection(_WORD.split(p.lower()))
        and any(named(p) for named in globs)
    ]


def _scripts(snapshot: Snapshot) -> list[str]:
    """The repository's shell scripts a Dockerfile's ENTRYPOINT or CMD names."""
    scripts: list[str] = per_tree(_SCRIPTS, snapshot.tree_key(), "", partial(_run, snapshot))
    return list(scripts)


def _run(snapshot: Snapshot) -> list[str]:
    """`_scripts` itself."""
    scripts = {p for p in snapshot.paths() if p.endswith(".sh")}
    by_base: dict[str, list[str]] = {}
    for script in scripts:
        by_base.setdefault(posixpath.basename(script), []).append(script)
    found: list[str] = []
    for dockerfile in _dockerfiles(snapshot):
        text = snapshot.read(dockerfile).decode("utf-8", errors="replace")
        for named in (m for line in _RUNS.findall(text) for m in _SCRIPT.findall(line)):
            tail = named.lstrip("./")
            parts = tail.split("/")  # the scripts the name ends with, at a folder's start
            by_path = [s for i in range(len(parts)) if (s := "/".join(parts[i:])) in scripts]
            by_name = by_base.get(posixpath.basename(tail), [])
            chosen = max(by_path, key=len) if by_path else by_name[0] if len(by_name) == 1 else None
            if chosen is not None and chosen not in found:
                found.append(chosen)
    return found


def runtime_files(
    snapshot: Snapshot | None, matched: Mapping[str, ConfigSource]
) -> dict[str, ConfigSource]:
    """The files the service runs that the sources did not match, each as its own source."""
    if snapshot is None or not matched:
        return {}
    found: dict[str, ConfigSource] = {}
    folders = _folders(matched)
    tree = snapshot.tree_key()
    for path in per_tree(_RUN_CONFIGS, tree, "", partial(_run_configs, snapshot)):
        if path.rpartition("/")[0] in folders and path not in matched:
            found[path] = ConfigSource(path=path)
    for script in _scripts(snapshot):
        if script not in matched:
            found[script] = ConfigSource(path=script)
    return found


def build_time(snapshot: Snapshot, paths: Iterable[str]) -> frozenset[str]:
    """The keys of the `env` object of each Next.js config among `paths` (`env: { KEY: value }`
    and shorthand `env: { basePath }`)."""
    keys: set[str] = set()
    for path in (p for p in paths if posixpath.basename(p) in NEXT_CONFIGS):
        dialect = "ts" if path.endswith(".ts") else "js"
        tree = parser(dialect).parse(snapshot.read(path))
        stack: list[Node] = [tree.root_node]
        while stack:
            node = stack.pop()
            if node.type == "pair" and node_text(node.child_by_field_name("key")) == "env":
                value = node.child_by_field_name("value")
                if value is not None and value.type == "object":
                    keys |= {_env_key(entry) for entry in value.named_children}
            stack.extend(node.named_children)
    return frozenset(k for k in keys if k)


def _env_key(entry: Node) -> str:
    """The key an entry of an `env` object sets (empty for a spread or a comment)."""
    if entry.type == "pair":
        return key_name(entry.child_by_field_name("key"))
    return node_text(entry) if entry.type == "shorthand_property_identifier" else ""
