import itertools
import os
import subprocess
from collections.abc import Callable

import pytest

from release_safety.common.errors import CheckError, InputError
from release_safety.contract.versions import TagPattern
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import Change, MemorySnapshot, changes_between, compare_trees


def test_release_tags_sorted_numerically_and_filtered(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    builder = make_repo("r")
    for tag in ["0.2155.9", "v0.2155.10", "0.2155.11-rc.1", "pr-123"]:
        builder.commit(tag)
        builder.tag(tag)
    builder.commit("annotated")
    builder.tag("v0.2156.0", annotated=True)
    tags = GitRepo(builder.path).release_tags(TagPattern())
    assert [t.tag for t in tags] == ["0.2155.9", "v0.2155.10", "v0.2156.0"]
    assert tags[-1].commit == builder.git("rev-parse", "HEAD")
    assert tags[0].date == "2025-01-07T09:00:00Z"


def test_changed_paths_statuses_including_renames(make_repo: Callable[[str], RepoBuilder]) -> None:
    builder = make_repo("r")
    body = "\n".join(f"line {i}" for i in range(40)) + "\n"
    builder.write("keep.txt", "same\n").write("edit.txt", "one\n").write("gone.txt", "bye\n")
    builder.write("old/name.sql", body)
    builder.commit("first")
    builder.tag("1.0.0")
    builder.write("edit.txt", "two\n").delete("gone.txt").write("new.txt", "hi\n")
    builder.move("old/name.sql", "new/name.sql")
    builder.commit("second")
    builder.tag("1.1.0")
    repo = GitRepo(builder.path)
    assert repo.changed_paths("1.0.0", "1.1.0") == [
        Change("modified", "edit.txt"),
        Change("deleted", "gone.txt"),
        Change("added", "new.txt"),
        Change("renamed", "new/name.sql", "old/name.sql"),
    ]


def test_snapshot_reads_blobs_once(make_repo: Callable[[str], RepoBuilder]) -> None:
    builder = make_repo("r")
    builder.write("a.txt", "alpha\n").write("dir/b.txt", "beta\n").commit("c")
    repo = GitRepo(builder.path)
    snap = repo.snapshot("HEAD")
    assert list(snap.paths()) == ["a.txt", "dir/b.txt"]
    assert snap.read("dir/b.txt") == b"beta\n"
    assert snap.read("dir/b.txt") == b"beta\n"
    assert (repo.blobs.misses, repo.blobs.hits) == (1, 1)
    memory = MemorySnapshot({"a.txt": "alpha\n"})
    assert memory.blob_id("a.txt") == snap.blob_id("a.txt")
    with pytest.raises(KeyError):
        snap.read("missing")


def test_changes_between_snapshots_by_content() -> None:
    old = MemorySnapshot({"a": "1", "b": "2", "c": "3"})
    new = MemorySnapshot({"a": "1", "b": "22", "d": "4"})
    assert changes_between(old, new) == [
        Change("modified", "b"),
        Change("deleted", "c"),
        Change("added", "d"),
    ]
    assert changes_between(None, new) == [Change("added", p) for p in ("a", "b", "d")]


def test_errors(tmp_path: object, make_repo: Callable[[str], RepoBuilder]) -> None:
    with pytest.raises(CheckError, match="not a git repository"):
        GitRepo(str(tmp_path))
    builder = make_repo("r")
    builder.commit("c")
    with pytest.raises(InputError, match="no such ref"):
        GitRepo(builder.path).resolve("v9.9.9")


def test_git_diff_agrees_with_comparing_trees(make_repo: Callable[[str], RepoBuilder]) -> None:
    builder = make_repo("r")
    builder.write("a.txt", "1").write("b/c.txt", "2").write("d.txt", "3").commit("one")
    builder.tag("1.0.0")
    builder.write("a.txt", "changed").delete("d.txt").write("b/e.txt", "4").commit("two")
    repo = GitRepo(builder.path)
    old, new = repo.snapshot("1.0.0"), repo.snapshot("HEAD")
    assert new.blob_id("d.txt") is None and old.blob_id("d.txt") is not None
    expected = compare_trees(MemorySnapshot({p: old.read(p) for p in old.paths()}), new)
    assert (
        changes_between(old, new)
        == expected
        == [
            Change("modified", "a.txt"),
            Change("added", "b/e.txt"),
            Change("deleted", "d.txt"),
        ]
    )


NAMES = [
    *("plain.txt", "dir/sub/deep.sql", "with space.md", "-dash.yaml", "glob[*]?.json", "é.env"),
    *("new\nline.sql", "ends\n", 'quote".txt', "tab\there", "dir\n/esc\x1b.sql"),
]
"""Odd names, and names git lists quoted unless `-z` is used (controls, a quote)."""


def test_ids_a_diff_names_are_the_ids_git_looks_up(make_repo: Callable[[str], RepoBuilder]) -> None:
    """Blob ids learnt from a diff, ids read from folder trees and `git rev-parse` agree, for
    odd names, executables, deletions and links (a link is not a file)."""
    builder = make_repo("r")
    for name in NAMES:
        builder.write(name, f"one {name}\n")
    builder.write("gone.txt", "bye\n").write("tool.sh", "#!/bin/sh\n")
    (builder.path / "link.txt").symlink_to("plain.txt")
    builder.commit("one")
    builder.tag("1.0.0")
    for name in NAMES[::2]:
        builder.write(name, f"two {name}\n")
    (builder.path / "tool.sh").chmod(0o755)
    builder.delete("gone.txt").delete("link.txt").write("link.txt", "now a file\n")
    (builder.path / "new-link").symlink_to("tool.sh")
    builder.commit("two")
    paths = [*NAMES, "gone.txt", "tool.sh", "link.txt", "new-link", "absent.txt", "dir/absent"]
    learnt = GitRepo(builder.path)
    old, new = learnt.snapshot("1.0.0"), learnt.snapshot("HEAD")
    assert {c.path for c in changes_between(old, new)} >= {*NAMES[::2], "gone.txt", "tool.sh"}
    looked_up = GitRepo(builder.path)
    for ref, snapshot in (("1.0.0", old), ("HEAD", new)):
        fresh = looked_up.snapshot(ref)
        for path in paths:
            kind = builder.git("ls-tree", ref, "--", path).split(" ")[0]
            expected = builder.git("rev-parse", f"{ref}:{path}") if kind[:3] == "100" else None
            assert snapshot.blob_id(path) == fresh.blob_id(path) == expected, (ref, path)
    assert new.blob_id("link.txt") is not None and old.blob_id("link.txt") is None


def test_a_diff_started_early_is_the_same_diff(make_repo: Callable[[str], RepoBuilder]) -> None:
    builder = make_repo("r")
    builder.write("a.txt", "1").write("b.txt", "2").commit("one")
    first = builder.git("rev-parse", "HEAD")
    builder.write("a.txt", "3").delete("b.txt").write("c.txt", "4").commit("two")
    second = builder.git("rev-parse", "HEAD")
    early, late = GitRepo(builder.path), GitRepo(builder.path)
    early.start_diff(first, second)
    assert early.diff(first, second) == late.diff(first, second)
    early.start_diff(first, "0" * 40)
    with pytest.raises(CheckError, match="git diff failed"):
        early.diff(first, "0" * 40)
    early.start_diff(second, first)
    early.close()  # a diff never collected is stopped


def test_a_tree_listed_early_is_the_tree_git_lists(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    """`start_tree` lets git list a tree in the background: the same files, an error only when
    the tree is asked, collected before a fork (`settle`), stopped by `close`."""
    builder = make_repo("r")
    files = {f"dir{i % 7}/file{i}.txt": str(i) for i in range(3000)}  # more than a pipe holds
    for path, text in files.items():
        builder.write(path, text)
    commit = builder.commit("many")
    early, late = GitRepo(builder.path), GitRepo(builder.path)
    early.start_tree(commit)
    assert early.tree(commit) == late.tree(commit) and len(late.tree(commit)) == 3000
    early.start_tree("0" * 40)
    with pytest.raises(CheckError, match="git ls-tree failed"):
        early.tree("0" * 40)
    settled = GitRepo(builder.path)
    settled.start_tree(commit)
    settled.settle()
    assert not settled._listing and settled.has_tree(commit)
    descriptors = len(os.listdir("/proc/self/fd"))
    stopped = GitRepo(builder.path)
    stopped.start_tree(commit)
    stopped.close()  # a listing never collected is stopped, its files closed
    assert len(os.listdir("/proc/self/fd")) <= descriptors
    for repo in (early, late, settled):
        repo.close()


def test_diffs_started_and_never_collected_do_not_pile_up(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    builder = make_repo("r")
    commits = [builder.write("a.txt", str(i)).commit(str(i)) for i in range(24)]
    repo = GitRepo(builder.path)
    repo.start_diff(commits[0], commits[1])  # git's long-lived readers start here
    descriptors = len(os.listdir("/proc/self/fd"))
    for old, new in itertools.permutations(commits, 2):  # 552 diffs: 1,104 pipes, were each kept
        repo.start_diff(old, new)
    assert len(os.listdir("/proc/self/fd")) <= descriptors + 4
    assert repo.diff(commits[22], commits[23]) == [Change("modified", "a.txt")]
    repo.close()


def test_refs_resolve_to_commits(make_repo: Callable[[str], RepoBuilder]) -> None:
    builder = make_repo("r")
    first = builder.write("a.txt", "1").commit("one")
    builder.tag("v1.0.0", annotated=True)
    second = builder.write("a.txt", "2").commit("two")
    repo = GitRepo(builder.path)
    assert repo.resolve("v1.0.0") == repo.resolve(first[:10]) == repo.resolve("HEAD~1") == first
    assert repo.resolve("main") == second
    blob = builder.git("rev-parse", "HEAD:a.txt")
    for bad in (blob, "HEAD:a.txt", "nope"):
        with pytest.raises(InputError, match="no such ref"):
            repo.resolve(bad)


def test_reading_each_file_streams_and_survives_a_stream_left_unfinished(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    builder = make_repo("r")
    files = {f"f{i}.txt": f"content {i % 3}\n" * (i * 5000 + 1) for i in range(6)}
    for path, text in files.items():
        builder.write(path, text)
    builder.commit("c")
    repo = GitRepo(builder.path)
    snapshot = repo.snapshot("HEAD")
    stream = snapshot.read_each([*files, "absent.txt"])
    assert next(stream) == ("f0.txt", files["f0.txt"].encode())
    stream.close()  # git was still answering: its process is stopped, the next read starts anew
    assert snapshot.read("f5.txt") == files["f5.txt"].encode()
    got = dict(snapshot.read_each([*files, "absent.txt"]))
    assert got == {path: text.encode() for path, text in files.items()}


def test_a_tree_derived_from_a_diff_is_the_tree_git_lists(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    """Consecutive releases: the new tree is the old one with the diff applied, no `ls-tree`;
    additions, edits, deletions, an executable bit, a link and a file turned into a link."""
    builder = make_repo("service")
    builder.write("a.sql", "1").write("b/c.sql", "2").write("b/d.sql", "3").write("e.sh", "4")
    first = builder.release("1.0.0")
    builder.write("a.sql", "changed").delete("b/c.sql").write("b/new/f.sql", "5")
    os.chmod(builder.path / "e.sh", 0o755)
    (builder.path / "link").symlink_to("a.sql")
    builder.delete("b/d.sql")
    (builder.path / "b/d.sql").symlink_to("../a.sql")
    second = builder.release("1.1.0")
    repo, fresh = GitRepo(builder.path), GitRepo(builder.path)
    try:
        old, new = repo.resolve(first), repo.resolve(second)
        repo.tree(old)
        repo.start_diff(old, new)
        derived = repo.tree(new)
        assert derived == fresh.tree(new)
        assert sorted(derived) == ["a.sql", "b/new/f.sql", "e.sh"]
    finally:
        repo.close()
        fresh.close()


def test_commit_date_is_the_committer_date_in_utc(make_repo: Callable[[str], RepoBuilder]) -> None:
    builder = make_repo("dated")
    builder.release("1.0.0", {"a.txt": "one"})
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2020-01-01T00:00:00+00:00",
        "GIT_COMMITTER_DATE": "2024-03-05T23:30:15+02:00",
    }
    message = "a message\n\ncommitter someone <x@y> 1 +0000 in the body is not the header"
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", message],
        cwd=builder.path,
        env=env,
        check=True,
    )
    builder.tag("v2")
    repo = GitRepo(builder.path)
    try:
        assert repo.commit_date("v2") == "2024-03-05T21:30:15Z"
        assert repo.commit_date("1.0.0") == "2025-01-07T09:00:00Z"
    finally:
        repo.close()


def test_merge_base_and_unrelated_histories(make_repo: Callable[[str], RepoBuilder]) -> None:
    builder = make_repo("forked")
    fork = builder.release("1.0.0", {"a.txt": "one"})
    builder.git("checkout", "-q", "-b", "feature")
    builder.write("b.txt", "two").commit("feature work")
    builder.git("checkout", "-q", "--orphan", "elsewhere")
    builder.write("c.txt", "three").commit("unrelated root")
    repo = GitRepo(builder.path)
    try:
        assert repo.merge_base("main", "feature") == fork
        with pytest.raises(InputError, match="no common ancestor"):
            repo.merge_base("feature", "elsewhere")
    finally:
        repo.close()


def test_the_repository_is_the_folder_given_not_one_around_it(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    builder = make_repo("around")
    builder.release("1.0.0", {"src/a.txt": "one"})
    with pytest.raises(CheckError, match="not a git repository"):
        GitRepo(builder.path / "src")
    bare = builder.path.parent / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(builder.path), str(bare)], check=True)
    repo = GitRepo(bare)
    try:
        assert repo.path == bare
        assert [tag.tag for tag in repo.release_tags(TagPattern())] == ["1.0.0"]
    finally:
        repo.close()
