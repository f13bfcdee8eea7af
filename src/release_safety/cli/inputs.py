"""The documents a command reads by name: a file, `-` (standard input) or `REF:path` (the file as
committed at a git ref, as `git show REF:path` names it: the path is from the repository root).

An existing file wins over `REF:path` (a file named `main:openapi.yaml` is read as a file), and
on Windows a one-letter prefix is a drive (`C:\\specs\\a.yaml`), never a ref.
"""

from __future__ import annotations

import os
import posixpath
import sys
from functools import cache

from release_safety.common.errors import CheckError, InputError
from release_safety.common.localfile import read_regular, shown
from release_safety.common.value import HashableValue
from release_safety.settings.file import repository_root

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from pathlib import Path  # a lint of local files loads none
    from typing import Final

STDIN = "-"
STDIN_NAME = "<stdin>"


class Document(HashableValue):
    """What a command was given: the name it reports, the repository path when the document
    came from a ref, and the bytes."""

    FIELDS = ("name", "data", "repo_path")

    name: Final[str]
    data: Final[bytes]
    repo_path: Final[str | None]

    def __init__(self, name: str, data: bytes, repo_path: str | None = None) -> None:
        self.name = name
        self.data = data
        self.repo_path = repo_path

    @property
    def shown(self) -> str:
        """The name findings carry: the repository path for `REF:path`, else as given."""
        return self.repo_path or self.name

    def uri(self, root: Path | None) -> str | None:
        """The path from the repository root `root` (None for standard input)."""
        from pathlib import Path

        if self.repo_path is not None or self.name == STDIN_NAME:
            return self.repo_path
        if root is not None:
            try:
                return Path(self.name).resolve().relative_to(root).as_posix()
            except ValueError:
                pass
        return Path(self.name).as_posix()


def git_ref_path(spec: str) -> tuple[str, str] | None:
    """(ref, path) when `spec` is `REF:path` and not an existing file nor a Windows drive."""
    ref, colon, path = spec.partition(":")
    if not colon or not ref or not path:
        return None
    from pathlib import Path

    if Path(spec).exists():
        return None
    if os.name == "nt" and len(ref) == 1 and ref.isalpha():
        return None
    return ref, path


def read_document(spec: str, stdin_used: bool = False, stdin_name: str | None = None) -> Document:
    """The bytes `spec` names (standard input named `stdin_name` when given, as
    `--stdin-filepath` names it); a missing file or ref is bad input, an unreadable one
    exit 3."""
    if spec == STDIN:
        if stdin_used:
            raise InputError("`-` given twice: standard input can be read once")
        return Document(stdin_name or STDIN_NAME, sys.stdin.buffer.read())
    at_ref = git_ref_path(spec)
    if at_ref is None:
        return Document(spec, _read_file(spec))
    ref, path = at_ref[0], posixpath.normpath(at_ref[1].removeprefix("/"))
    if path == ".." or path.startswith("../"):
        raise InputError(f"{spec}: {path} is outside the repository (paths start at its root)")
    from pathlib import Path

    root = repository_root(Path.cwd())
    if root is None:
        raise InputError(f"{spec}: no such file, and not in a git repository to read {ref}:{path}")
    from release_safety.git.repository import GitRepo  # git only when a ref is read

    repo = GitRepo(root)
    try:
        snapshot = repo.snapshot(repo.resolve(ref))
        if snapshot.blob_id(path) is None:
            raise InputError(
                f"{spec}: no file {path} at {ref} (paths start at the repository root)"
            )
        return Document(spec, snapshot.read(path), path)
    finally:
        repo.close()


@cache
def _lexical_root(folder: str) -> str | None:
    """The repository holding `folder` (absolute) as written (its links not followed),
    resolved."""
    while not os.path.exists(os.path.join(folder, ".git")):
        if (parent := os.path.dirname(folder)) == folder:
            return None
        folder = parent
    return os.path.realpath(folder)


def refuse_link_out(path: str | Path) -> None:
    """InputError when `path` lies in a git repository but resolves outside it (a link, or a
    folder that is one): a pull request's link to `/proc/self/environ` or a runner's token
    is never read, so not a word of it can reach an annotation."""
    written = os.path.abspath(path)
    folder = os.path.dirname(written)
    root = _lexical_root(folder)
    if root is None:
        return
    if os.path.islink(written):
        real = os.path.realpath(written)
    else:  # the folder's links resolved once per folder, not once per file in it
        real = os.path.join(_real_folder(folder), os.path.basename(written))
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        outside = f"a link to {real}, outside the repository {root}: not read"
        raise InputError(f"{shown(path)}: {outside}")


@cache
def _real_folder(folder: str) -> str:
    return os.path.realpath(folder)


def _read_file(spec: str) -> bytes:
    """The file's bytes (`read_regular`: no pipe, device or file past the bound; never a file a
    link leads to outside the repository); errors name it as its `Path` shows it."""
    try:
        refuse_link_out(spec)
        return read_regular(spec)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
        raise InputError(f"{shown(spec)}: no such file") from exc
    except OSError as exc:
        raise CheckError(f"{shown(spec)}: cannot read: {exc.strerror or exc}") from exc
