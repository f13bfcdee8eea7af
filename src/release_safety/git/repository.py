"""Git access: refs and release tags, changed paths, commit dates, and batched blob reads.

What is judged is what git stores, never what the repository's own configuration makes git
show: every git process runs with replace objects ignored (`GIT_NO_REPLACE_OBJECTS`) and no
repository-configured command (`core.fsmonitor`); a short name that two refs give different
commits (`refs/v1.1.0` beside the tag `v1.1.0`) is refused, and so is a shallow or grafted
history, whose earlier releases git cannot show.

Blobs are read through one long-lived `git cat-file --batch` process and kept in a byte-bounded
cache keyed by blob id, so a blob is read once per run; diffs between commits come from one
long-lived `git diff-tree --stdin` process, and the tree of a commit diffed against one whose
tree is known is that tree with the diff applied (consecutive releases: no process at all).
"""

from __future__ import annotations

import contextlib
import difflib
import os
import select
import subprocess
import sys
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from release_safety.common.errors import CheckError, InputError
from release_safety.common.localfile import MAX_FILE_BYTES
from release_safety.contract.versions import TagPattern, Version
from release_safety.git.snapshot import Change, ChangeStatus, Snapshot, compare_trees

_STATUS: dict[str, ChangeStatus] = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "T": "modified",
}
# Bytes an empty pipe always takes without blocking (every earlier request was answered).
_PIPE_HOLDS = getattr(select, "PIPE_BUF", 512)  # POSIX guarantees at least 512
# `git diff-tree --stdin` as a long-lived reader of raw diffs (no rename pairing)
_DIFF_TREE = ("--stdin", "-r", "--raw", "--no-abbrev", "--no-renames", "-z", "--always")
# Tree-entry modes of files (100644, 100755); links (120000) and submodules are not files.
_FILE_MODES = frozenset({"100"})


GIT_ENV = {
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "core.fsmonitor",
    "GIT_CONFIG_VALUE_0": "false",
}
"""Set on every git process: the objects as stored, no repository-configured command."""
_QUALIFIED = ("refs/{}", "refs/tags/{}", "refs/heads/{}", "refs/remotes/{}")
"""The full refs git's short-name lookup tries (gitrevisions(7)), for ambiguity checks."""


def _located(path: Path) -> tuple[Path, Path]:
    """The repository at `path` (not one it lies inside): its work tree, or its git folder
    when it is bare, and its git folder; CheckError when there is none."""
    command = ["git", "-C", str(path), "rev-parse", "--is-bare-repository", "--absolute-git-dir"]
    command.append("--show-prefix")
    try:
        done = subprocess.run(command, env=_git_env(), capture_output=True, check=False)
    except OSError as exc:  # no such folder
        raise CheckError(f"{path}: not a git repository") from exc
    lines = done.stdout.decode("utf-8", errors="surrogateescape").splitlines()
    if done.returncode != 0 or len(lines) < 2 or (len(lines) > 2 and lines[2]):
        raise CheckError(f"{path}: not a git repository")  # none, or a folder inside one
    git_dir = Path(lines[1])
    if lines[0] == "true":
        return git_dir, git_dir
    return (git_dir.parent if path == git_dir else path), git_dir


def _git_env() -> dict[str, str]:
    """This process's environment with GIT_ENV over it (for the long-lived git processes)."""
    return {**os.environ, **GIT_ENV}


@dataclass(frozen=True)
class ReleaseTag:
    """A tag that names a release, with the commit it points at and that commit's date."""

    version: Version
    tag: str
    commit: str
    date: str


def _warn(message: str) -> None:
    sys.stderr.write(f"release-safety: warning: {message}\n")


def _shown(text: str) -> str:
    """A name for a message, cut short when it is absurdly long."""
    return repr(text) if len(text) <= 80 else f"{text[:40]!r}... ({len(text)} characters)"


def iso_utc(moment: datetime) -> str:
    """An ISO-8601 UTC timestamp with a `Z`, to the second."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class BlobCache:
    """Least-recently-used blob contents, bounded by total bytes."""

    def __init__(self, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._data: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self.hits = 0
        self.misses = 0

    def get(self, blob_id: str) -> bytes | None:
        data = self._data.get(blob_id)
        if data is None:
            self.misses += 1
            return None
        self.hits += 1
        self._data.move_to_end(blob_id)
        return data

    def put(self, blob_id: str, data: bytes) -> None:
        if blob_id in self._data or len(data) > self.max_bytes:
            return
        self._data[blob_id] = data
        self._size += len(data)
        while self._size > self.max_bytes:
            _, dropped = self._data.popitem(last=False)
            self._size -= len(dropped)


class CatFile:
    """One long-lived `git cat-file --batch` process; many ids are read in one round trip."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        self._process: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                ["git", "--git-dir", self.git_dir, "cat-file", "--batch"],
                env=_git_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=1 << 20,  # few, large reads of the answers
            )
        return self._process

    def objects(self, names: Sequence[str]) -> dict[str, tuple[str, str, bytes] | None]:
        """Each object name's id, type and bytes (None when git has no such object)."""
        return dict(self.stream(names))

    def stream(self, names: Sequence[str]) -> Iterator[tuple[str, tuple[str, str, bytes] | None]]:
        """`objects`, each handed over as git sends it. A request too long for the pipe to hold
        is written by a thread while answers are read, so neither pipe can fill up and stall;
        a stream left unfinished stops the process (the next request starts a new one). An
        object larger than `localfile.MAX_FILE_BYTES` is refused from its header, unread."""
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout
        request = "".join(f"{name}\n" for name in names).encode()

        def write() -> None:
            with contextlib.suppress(OSError):  # the process was stopped
                stdin.write(request)
                stdin.flush()

        writer = threading.Thread(target=write, daemon=True)
        if len(request) > _PIPE_HOLDS:
            writer.start()
        else:
            write()
        answered = 0
        try:
            for name in names:
                header = stdout.readline().split()
                if len(header) != 3:
                    if not header:
                        raise CheckError(f"git cat-file stopped while reading {name}")
                    answered += 1
                    yield name, None
                    continue
                size = int(header[2])
                if size > MAX_FILE_BYTES:  # known from git's header before a byte is read
                    raise CheckError(
                        f"blob {name}: {size:,} bytes, more than the {MAX_FILE_BYTES:,} read"
                    )
                data = stdout.read(size)
                stdout.read(1)
                answered += 1
                yield name, (header[0].decode(), header[1].decode(), data)
        finally:
            if answered < len(names):
                process.kill()
                process.wait()
                self._process = None
            if writer.is_alive():
                writer.join()

    def close(self) -> None:
        if self._process is not None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            self._process.wait()
            self._process = None


class DiffTree:
    """One long-lived `git diff-tree --stdin` process: the raw diff (no rename pairing) of a
    pair of commits is requested, git computes it while the caller works, and it is read when
    wanted. Each request is followed by an empty one (a commit against itself), whose header
    marks where the diff ends; at most one request is pending, so neither pipe fills up."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        self._process: subprocess.Popen[bytes] | None = None
        self.pending: tuple[str, str] | None = None
        self._buffer = bytearray()
        self._at = 0

    def request(self, old: str, new: str, key: tuple[str, str]) -> None:
        """Ask for the diff of two commit ids, known as `key` while it is pending; read it
        with `read` before the next request."""
        assert self.pending is None
        if self._process is None:
            self._process = subprocess.Popen(
                ["git", "--git-dir", self.git_dir, "diff-tree", *_DIFF_TREE],
                bufsize=0,  # one system call per write, and per read of what git has written
                env=_git_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        assert self._process.stdin is not None
        with contextlib.suppress(OSError):  # git ended: `read` says why
            self._process.stdin.write(f"{new} {old}\n{new} {new}\n".encode())
        self.pending = key

    def read(self) -> list[str]:
        """The pending diff's raw fields (`:<modes ids status>`, then the path), in git's order."""
        self.pending = None
        try:
            self._field()  # the request's header: the new commit
            fields: list[str] = []
            while (field := self._field()).startswith(":"):
                fields += [field, self._field()]
            return fields  # `field` was the empty request's header
        except CheckError:
            self.close()
            raise

    def _field(self) -> str:
        """The next NUL-terminated field git wrote."""
        assert self._process is not None and self._process.stdout is not None
        while (end := self._buffer.find(b"\0", self._at)) < 0:
            del self._buffer[: self._at]
            self._at = 0
            chunk = self._process.stdout.read(1 << 16)
            if not chunk:
                assert self._process.stderr is not None
                detail = self._process.stderr.read().decode(errors="replace").strip().splitlines()
                raise CheckError(f"git diff failed: {detail[-1] if detail else 'git ended'}")
            self._buffer += chunk
        field = self._buffer[self._at : end].decode(errors="surrogateescape")
        self._at = end + 1
        return field

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.communicate()
            self._process = None
        self.pending = None
        self._buffer.clear()
        self._at = 0


_INHERITED: list[tuple[CatFile, DiffTree]] = []
"""A forked child's inherited git readers (`GitRepo.own_processes`)."""


def _printed(command: str, done: subprocess.CompletedProcess[bytes]) -> str:
    """What a git command printed (its last newline left out); CheckError when it failed."""
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        shown = detail[-1] if detail else f"exit status {done.returncode}"
        raise CheckError(f"git {command} failed: {shown}")
    return done.stdout.decode("utf-8", errors="surrogateescape").removesuffix("\n")


_LS_TREE = ("ls-tree", "-r", "-z", "--full-tree")
"""Every file of a commit's tree (with `tree`'s reading of the entries)."""


class _Listing:
    """One git command run in the background, its output and errors in temporary files (a
    tree's listing is more than a pipe holds: git would wait for a reader)."""

    def __init__(self, args: Sequence[str], repo: GitRepo) -> None:
        self.args = list(args)
        # both closed by `output` or `stop`
        self.out, self.err = tempfile.TemporaryFile(), tempfile.TemporaryFile()  # noqa: SIM115
        command = ["git", "--git-dir", str(repo.git_dir), *args]
        try:
            self.process = subprocess.Popen(
                command, cwd=repo.path, env=_git_env(), stdout=self.out, stderr=self.err
            )
        except BaseException:
            self.out.close()
            self.err.close()
            raise

    def output(self) -> str:
        """What the command printed, once it ended; CheckError when it failed."""
        code = self.process.wait()
        with self.out, self.err:
            self.out.seek(0)
            self.err.seek(0)
            done = subprocess.CompletedProcess(self.args, code, self.out.read(), self.err.read())
        return _printed(self.args[0], done)

    def stop(self) -> None:
        """Stop the command and drop its output (never collected)."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.wait()
        self.out.close()
        self.err.close()


class GitRepo:
    """A local git repository, read-only."""

    def __init__(self, path: str | Path = ".") -> None:
        self.path, self.git_dir = _located(Path(os.path.abspath(os.path.expanduser(path))))
        self._refuse_partial_history()
        self.blobs = BlobCache()
        self.cat_file = CatFile(str(self.git_dir))
        self._trees: dict[str, dict[str, str]] = {}
        self._commits: set[str] = set()  # commit ids resolve() has seen
        self._diffs: dict[tuple[str, str], list[Change]] = {}
        self._changed_at: dict[tuple[str, str], dict[str, str | None]] = {}  # of each diff
        self._seen: OrderedDict[str, dict[str, str | None]] = OrderedDict()  # commit -> path ids
        self._folders: OrderedDict[tuple[str, str], dict[str, tuple[str, str]]] = OrderedDict()
        self.diff_tree = DiffTree(str(self.git_dir))
        self._listing: dict[str, _Listing] = {}  # commit -> its tree listed in the background

    def close(self) -> None:
        self.diff_tree.close()
        self.cat_file.close()
        for listing in self._listing.values():
            listing.stop()
        self._listing.clear()

    def settle(self) -> None:
        """Collect the diff and the trees git computes in the background, if some are pending
        (before a fork: the child reads git through processes of its own, and would not see
        them)."""
        if self.diff_tree.pending is not None:
            with contextlib.suppress(CheckError):  # said again when a surface asks for it
                self.diff(*self.diff_tree.pending)
        for commit in list(self._listing):
            with contextlib.suppress(CheckError):
                self.tree(commit)

    def own_processes(self) -> None:
        """In a forked child: git readers of its own. The parent's processes and their pipes
        are kept referenced, never used nor closed here (closing them would flush into them)."""
        _INHERITED.append((self.cat_file, self.diff_tree))
        self.cat_file = CatFile(str(self.git_dir))
        self.diff_tree = DiffTree(str(self.git_dir))

    def _refuse_partial_history(self) -> None:
        """A shallow or grafted history hides earlier releases and the migrations they
        shipped: a release judged on it would look new. Refused, with the fix."""
        git_dir = self.git_dir
        if (git_dir / "shallow").exists():
            raise CheckError(
                f"{self.path}: a shallow clone: earlier releases and their migrations are not "
                "there to compare; fetch the whole history (`git fetch --unshallow --tags`, or "
                "`fetch-depth: 0` with actions/checkout)"
            )
        if (git_dir / "info" / "grafts").exists():
            raise CheckError(
                f"{self.path}: .git/info/grafts rewrites the history git shows; remove it "
                "(or convert it with `git replace --convert-graft-file`, whose replacements "
                "release-safety ignores)"
            )

    def _git(self, *args: str) -> str:
        """What `git ARGS` printed (its last newline left out); CheckError when it fails."""
        return _printed(args[0], self._run(*args))

    def _run(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        command = ["git", "--git-dir", str(self.git_dir), *args]
        return subprocess.run(command, cwd=self.path, env=_git_env(), capture_output=True)

    def resolve(self, ref: str) -> str:
        """The commit id a ref names (through the cat-file process); an unknown ref is bad input.
        A commit id once resolved is not asked again (ids never move; names may)."""
        if ref in self._commits:
            return ref
        if not ref or any(c.isspace() or ord(c) < 32 for c in ref):
            raise InputError(f"{_shown(ref)}: not a ref or commit name (no spaces or controls)")
        name = f"{ref}^{{commit}}"
        qualified = [] if ref.startswith("refs/") else [q.format(ref) for q in _QUALIFIED]
        names = [name, *(f"{q}^{{commit}}" for q in qualified)]
        answers = self.cat_file.objects(names)
        found = answers.get(name)
        if found is None:
            near = self.close_refs(ref)
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            raise InputError(f"{ref!r}: no such ref or commit in {self.path}{hint}")
        others = [
            q for q in qualified if (a := answers.get(f"{q}^{{commit}}")) and a[0] != found[0]
        ]
        if others:
            raise InputError(
                f"{ref!r} is ambiguous in {self.path}: {' and '.join(others)} name another "
                f"commit than git's first match; name the ref in full (refs/tags/{ref}) or "
                "delete the stray ref"
            )
        if len(self._commits) >= 4096:
            self._commits.clear()
        self._commits.add(found[0])
        return found[0]

    def known_commits(self, *commits: str) -> None:
        """Ids git listed as commits (release tags, peeled): `resolve` takes them as they are."""
        if len(self._commits) + len(commits) > 4096:
            self._commits.clear()
        self._commits.update(commits)

    def close_refs(self, ref: str) -> list[str]:
        """Tags and branches whose names are close to `ref` (`1.6.0` finds `v1.6.0`)."""
        names = self._git("for-each-ref", "--format=%(refname:short)", "refs/tags", "refs/heads")
        return difflib.get_close_matches(ref, names.splitlines(), n=3, cutoff=0.8)

    def commit_date(self, ref: str) -> str:
        """The committer date of the commit a ref names, ISO-8601 UTC."""
        commit = self.resolve(ref)
        found = self.cat_file.objects([commit]).get(commit)
        for line in (found[2] if found is not None else b"").split(b"\n"):
            if not line:  # the headers end; the message follows
                break
            if line.startswith(b"committer "):
                stamp = line.rsplit(b" ", 2)[1]  # `committer NAME <MAIL> 1700000000 +0100`
                return iso_utc(datetime.fromtimestamp(int(stamp), UTC))
        raise CheckError(f"{ref}: git gave no committer date for commit {commit}")

    def merge_base(self, a: str, b: str) -> str:
        first, second = self.resolve(a), self.resolve(b)
        if self._run("merge-base", first, second).returncode == 1:  # git's "none"
            raise InputError(f"{a!r} and {b!r} have no common ancestor")
        return self._git("merge-base", first, second).split()[0]

    def tag_names(self) -> list[str]:
        """Every tag's name, sorted."""
        return sorted(self._git("for-each-ref", "--format=%(refname:strip=2)", "refs/tags").split())

    def release_tags(self, pattern: TagPattern) -> list[ReleaseTag]:
        """Tags that name releases, sorted by version (numeric per part); one tag per version.

        A tag the pattern matches that names no commit (a blob, a tree, a tag of a tag) or no
        readable version (a part too long) is skipped with a warning line on stderr.
        """
        fmt = "%00".join(
            [
                "%(refname:strip=2)",
                "%(objecttype)",
                "%(*objecttype)",
                "%(objectname)",
                "%(*objectname)",
                "%(committerdate:unix)",
                "%(*committerdate:unix)",
            ]
        )
        out = self._git("for-each-ref", f"--format={fmt}", "refs/tags")
        found: dict[Version, ReleaseTag] = {}
        for line in out.splitlines():
            name, kind, peeled_kind, obj, peeled, date, peeled_date = line.split("\0")
            text = pattern.version_text(name)
            if text is None:
                continue
            version = Version.maybe(text)
            commit, stamp = (peeled, peeled_date) if peeled else (obj, date)
            if version is None:
                _warn(f"tag {_shown(name)}: {_shown(text)} is not a release version; skipped")
                continue
            if (peeled_kind or kind) != "commit" or not stamp.isdigit():
                named = peeled_kind or kind
                _warn(f"tag {_shown(name)} names a {named}, not a commit; skipped")
                continue
            when = iso_utc(datetime.fromtimestamp(int(stamp), UTC))
            tag = ReleaseTag(version, name, commit, when)
            twin = found.get(version)
            if twin is not None and twin.commit != commit:
                first, second = sorted((twin.tag, name))
                raise InputError(
                    f"tags {first!r} and {second!r} both name release {version} at different "
                    "commits; delete the stray tag or narrow `tag_pattern`"
                )
            if twin is None or name < twin.tag:
                found[version] = tag
        return [found[v] for v in sorted(found)]

    def nearest_tag(self, commit: str, names: Sequence[str]) -> str | None:
        """Of the tags `names`, the one `git describe --tags` finds from `commit` (reachable,
        the fewest commits away); None when none is reachable."""
        if not names:
            return None
        matches = [f"--match={name}" for name in names]
        found = self._git("describe", "--tags", "--abbrev=0", "--always", *matches, commit)
        return found.strip() if found.strip() in names else None  # else a commit id

    def changed_paths(self, old: str, new: str) -> list[Change]:
        """Paths that differ between two refs, renames detected, sorted by path."""
        return self._changes(self.resolve(old), self.resolve(new), renames=True)

    def tree(self, commit: str) -> dict[str, str]:
        """Every file path of a commit with its blob id (submodules and links left out): the
        tree of a commit it was diffed against with that diff applied (consecutive releases:
        no process), else `git ls-tree`."""
        cached = self._trees.get(commit)
        if cached is not None:
            return cached
        files = self._derived_tree(commit)
        if files is None:
            listing = self._listing.pop(commit, None)
            listed = listing.output() if listing else self._git(*_LS_TREE, commit)
            files = {}
            for entry in listed.split("\0"):
                if not entry:
                    continue
                meta, path = entry.split("\t", 1)
                mode, kind, blob = meta.split(" ")
                if kind == "blob" and mode != "120000":
                    files[path] = blob
        if len(self._trees) >= 8:
            self._trees.pop(next(iter(self._trees)))
        self._trees[commit] = files
        return files

    def _derived_tree(self, commit: str) -> dict[str, str] | None:
        """The tree of a commit diffed (or being diffed) against one whose tree is known: that
        tree, with every path the diff names at `commit` set to its blob or removed."""
        for old in self._diffed_into(commit):
            if old in self._trees:
                files = dict(self._trees[old])
                for path, blob in self.changed_at(old, commit).items():
                    if blob is None:
                        files.pop(path, None)
                    else:
                        files[path] = blob
                return files
        return None

    def has_tree(self, commit: str) -> bool:
        """True when `tree(commit)` needs no `git ls-tree` (its tree, or the tree of a commit
        with a diff into it, is known)."""
        return commit in self._trees or any(old in self._trees for old in self._diffed_into(commit))

    def _diffed_into(self, commit: str) -> list[str]:
        """The commits with a diff into `commit` collected or under way."""
        pending = [self.diff_tree.pending] if self.diff_tree.pending else []
        return [old for old, new in [*self._diffs, *pending] if new == commit]

    def changed_at(self, old: str, new: str) -> dict[str, str | None]:
        """Every path the diff of two commits names, with its blob id at `new` (None when it
        is no file there); the diff is collected when it is under way."""
        self.diff(old, new)
        return self._changed_at[(old, new)]

    def base_of(self, commit: str) -> tuple[str, dict[str, str | None]] | None:
        """A commit the tree of `commit` is known relative to (a diff into it collected or
        under way), with the paths that differ: see `changed_at`."""
        olds = self._diffed_into(commit)
        return (olds[0], self.changed_at(olds[0], commit)) if olds else None

    def blob_id_at(self, commit: str, path: str) -> str | None:
        """The blob id of one file at a commit (None when absent; links and submodules are not
        files): as a diff of that commit named it, else from its folder's tree object.

        A tree names a blob even when the blob itself is missing (a partial clone): the id is
        returned and reading it fails later, so the path is never taken for absent.
        """
        seen = self._seen.get(commit)
        if seen is not None and path in seen:
            return seen[path]
        folder, _, name = path.rpartition("/")
        mode, listed = self._folder(commit, folder).get(name, ("", ""))
        return listed if mode[:3] in _FILE_MODES else None

    def _folder(self, commit: str, folder: str) -> dict[str, tuple[str, str]]:
        """A folder's entries (name -> mode, id) from its tree object, cached; {} when absent."""
        key = (commit, folder)
        cached = self._folders.get(key)
        if cached is not None:
            self._folders.move_to_end(key)
            return cached
        spec = f"{commit}:{folder}" if folder else f"{commit}^{{tree}}"
        if any(ord(c) < 32 for c in folder):  # cat-file reads a line: named by its tree's id
            parent, _, name = folder.rpartition("/")
            mode, spec = self._folder(commit, parent).get(name, ("", ""))
            spec = spec if mode == "40000" else ""
        found = self.cat_file.objects([spec])[spec] if spec else None
        data = found[2] if found is not None and found[1] == "tree" else b""
        entries: dict[str, tuple[str, str]] = {}
        width = len(commit) // 2  # 20 bytes for SHA-1 ids, 32 for SHA-256
        at = 0
        while data and at < len(data):
            space = data.index(b" ", at)
            nul = data.index(b"\0", space)
            name = data[space + 1 : nul].decode("utf-8", errors="surrogateescape")
            entries[name] = (data[at:space].decode(), data[nul + 1 : nul + 1 + width].hex())
            at = nul + 1 + width
        self._folders[key] = entries
        while len(self._folders) > 256:
            self._folders.popitem(last=False)
        return entries

    def start_tree(self, commit: str) -> None:
        """Let git list the tree of the commit `commit` in the background while the caller
        works; `tree` collects it (unless the tree is known or follows from a diff)."""
        if commit not in self._listing and not self.has_tree(commit):
            self._listing[commit] = _Listing([*_LS_TREE, commit], self)

    def start_diff(self, old: str, new: str) -> None:
        """Let git compute `diff(old, new)` in the background while the caller works (a diff
        started before and not collected yet is collected first)."""
        key = (old, new)
        if key in self._diffs or key == self.diff_tree.pending:
            return
        if self.diff_tree.pending is not None:
            self.diff(*self.diff_tree.pending)
        try:
            old_commit, new_commit = self._commits_of(old, new)
        except CheckError:
            return  # said when the diff is collected
        self.diff_tree.request(old_commit, new_commit, key)

    def _commits_of(self, *refs: str) -> list[str]:
        """The commit ids refs name, for git diff-tree (which would skip a tree or a blob)."""
        try:
            return [self.resolve(ref) for ref in refs]
        except InputError as exc:
            raise CheckError(f"git diff failed: {exc.message}") from exc

    def diff(self, old: str, new: str) -> list[Change]:
        """Added, modified and deleted paths between two commits (no rename pairing)."""
        key = (old, new)
        cached = self._diffs.get(key)
        if cached is not None:
            return cached
        if len(self._diffs) >= 16:
            self._changed_at.pop(next(iter(self._diffs)), None)
            self._diffs.pop(next(iter(self._diffs)))
        self._diffs[key] = self._changes(old, new, renames=False)
        return self._diffs[key]

    def _changes(self, old: str, new: str, renames: bool) -> list[Change]:
        """`git diff --raw` between two commits as changes, sorted by path; with `renames` a
        rename is one change (a copy counts as an addition). The blob ids it names at either
        commit are remembered, so the surfaces need not look them up again."""
        if renames:
            raw = self._git("diff", "--raw", "--no-abbrev", "-M", "-z", old, new)
            fields = raw.split("\0")[:-1]
        else:
            self._commits_of(old, new)
            if self.diff_tree.pending != (old, new):
                self.start_diff(old, new)
            fields = self.diff_tree.read()
        before, after = self._ids_seen(old), self._ids_seen(new)
        changed: dict[str, str | None] = {}  # every path the diff names, as it is at `new`
        if not renames:
            self._changed_at[(old, new)] = changed
        changes: list[Change] = []
        i = 0
        while i < len(fields):
            old_mode, new_mode, old_id, new_id, status = fields[i].lstrip(":").split(" ")
            code = status[:1]
            if code in ("R", "C"):
                old_path, path = fields[i + 1], fields[i + 2]
                i += 3
                renamed = code == "R"
                changes.append(
                    Change("renamed", path, old_path) if renamed else Change("added", path)
                )
            else:
                old_path = path = fields[i + 1]
                i += 2
                if code not in _STATUS:
                    continue
                changes.append(Change(_STATUS[code], path))
            before[old_path] = old_id if old_mode[:3] in _FILE_MODES else None
            after[path] = changed[path] = new_id if new_mode[:3] in _FILE_MODES else None
        return sorted(changes, key=lambda c: c.path)

    def _ids_seen(self, commit: str) -> dict[str, str | None]:
        """The blob ids diffs named at a commit (a few recent commits are kept)."""
        seen = self._seen.setdefault(commit, {})
        self._seen.move_to_end(commit)
        while len(self._seen) > 32:
            self._seen.popitem(last=False)
        return seen

    def read_blob(self, blob_id: str) -> bytes:
        """A blob's bytes, through the persistent cat-file process and the cache."""
        return self.read_blobs([blob_id])[blob_id]

    def read_blobs(self, blob_ids: Sequence[str]) -> dict[str, bytes]:
        """Many blobs' bytes: cached ones from the cache, the rest in one round trip."""
        return dict(self.read_each(blob_ids))

    def read_each(self, blob_ids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        """Each blob with its bytes: cached ones first, then the rest in one round trip, each
        handed over as git sends it (git inflates the next ones meanwhile)."""
        wanted: list[str] = []
        for blob in dict.fromkeys(blob_ids):
            data = self.blobs.get(blob)
            if data is None:
                wanted.append(blob)
            else:
                yield blob, data
        for blob, got in self.cat_file.stream(wanted) if wanted else ():
            if got is None:
                raise CheckError(f"cannot read blob {blob}: git does not have it")
            self.blobs.put(blob, got[2])
            yield blob, got[2]

    def snapshot(self, ref: str) -> GitSnapshot:
        return GitSnapshot(self, ref)


class GitSnapshot:
    """The tree of one commit, read lazily: single paths by id, the full listing on demand."""

    def __init__(self, repo: GitRepo, ref: str) -> None:
        self.repo = repo
        self._ref = ref
        self.commit = repo.resolve(ref)
        self._ids: dict[str, str | None] = {}
        self._paths: list[str] | None = None

    @property
    def ref(self) -> str:
        return self._ref

    def paths(self) -> Sequence[str]:
        if self._paths is None:
            self._paths = sorted(self.repo.tree(self.commit))
        return self._paths

    def blob_id(self, path: str) -> str | None:
        if self._paths is not None or self.repo.has_tree(self.commit):
            return self.repo.tree(self.commit).get(path)
        if path not in self._ids:
            self._ids[path] = self.repo.blob_id_at(self.commit, path)
        return self._ids[path]

    def read(self, path: str) -> bytes:
        blob = self.blob_id(path)
        if blob is None:
            raise KeyError(path)
        try:
            return self.repo.read_blob(blob)
        except CheckError as exc:  # named by its path: a blob id alone says little
            raise CheckError(f"{path} at {self.ref}: {exc.message}") from exc

    def read_each(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        by_id: dict[str, list[str]] = {}
        for path in paths:
            blob = self.blob_id(path)
            if blob is not None:
                by_id.setdefault(blob, []).append(path)
        for blob, data in self.repo.read_each(list(by_id)):
            for path in by_id[blob]:
                yield path, data

    def changes_since(self, old: Snapshot | None) -> list[Change]:
        if isinstance(old, GitSnapshot) and old.repo is self.repo:
            return self.repo.diff(old.commit, self.commit)
        return compare_trees(old, self)

    def tree_key(self) -> str | None:
        return self.commit

    def changed_from(self) -> tuple[str, Mapping[str, str | None]] | None:
        return self.repo.base_of(self.commit)
