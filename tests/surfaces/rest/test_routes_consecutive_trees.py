"""The service's own files a route source names are kept per tree, and a release's tree takes
the previous release's answer with the paths the diff names asked again (as a backfill walks
releases): a file added, removed, or moved into a vendored or test place is seen as it is at
each tree, as when the tree is read whole."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.surfaces.rest.routes.read import own_code, own_files, read_routes

HANDLER = """package %s

import "net/http"

func Register(mux *http.ServeMux) {
\tmux.HandleFunc("GET /%s", handle)
}
"""


def test_each_tree_reads_the_routes_of_its_own_files(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    builder = make_repo("repo")
    builder.write("api/kept.go", HANDLER % ("api", "kept"))
    builder.write("api/gone.go", HANDLER % ("api", "gone"))
    builder.write("api/vendored.go", HANDLER % ("api", "vendored"))
    builder.release("1.0.0", prefix="v")
    builder.write("api/added.go", HANDLER % ("api", "added"))
    builder.write("api/added_test.go", HANDLER % ("api", "tested"))
    builder.delete("api/gone.go")
    builder.move("api/vendored.go", "vendor/lib/vendored.go")
    builder.release("1.1.0", prefix="v")
    repo = GitRepo(builder.path)
    try:
        old, new = repo.snapshot("v1.0.0"), repo.snapshot("v1.1.0")
        before = read_routes(old, [])  # the first tree, read whole
        repo.diff(old.commit, new.commit)  # the next release's tree is known from it
        assert new.changed_from() is not None
        after = read_routes(new, [])
        found, whole = own_files(new, "**"), own_code(new.paths())
    finally:
        repo.close()
    assert sorted(r.path for r in before.routes) == ["/gone", "/kept", "/vendored"]
    assert sorted(r.path for r in after.routes) == ["/added", "/kept"]
    assert found == whole == sorted(after.files) == ["api/added.go", "api/kept.go"]
