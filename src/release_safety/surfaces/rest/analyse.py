"""The surface entry point: find the documents at both refs, load (memoised per blob, in
`documents.py`), compare."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from release_safety.contract.reports import Finding, SurfaceReport
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import DEFAULT_REST_SPECS, RouteSource, Settings
from release_safety.surfaces.discovery import (
    DocumentError,
    Sought,
    declared_absent,
    document_surface,
    matched,
    tried,
)
from release_safety.surfaces.rest.documents import compare_documents, load_api
from release_safety.surfaces.rest.load import SpecError
from release_safety.surfaces.rest.normalise import Api
from release_safety.surfaces.rest.routes.judge import spec_drift
from release_safety.surfaces.rest.routes.read import read_routes
from release_safety.surfaces.rest.routes.surface import found_any, routes_contradict, routes_report


def _load(snapshot: Snapshot, path: str, external: bool, previous: Api | None) -> Api:
    blob = snapshot.blob_id(path)
    if not external:
        return load_api(snapshot.read(path), blob, previous=previous)

    def fetch(name: str) -> bytes | None:
        return snapshot.read(name) if snapshot.blob_id(name) is not None else None

    return load_api(
        snapshot.read(path),
        f"{blob}+external",
        fetch,
        posixpath.dirname(path),
        snapshot.blob_id,
    )


# A `$ref` whose target does not start with `#` (another file). A false match only costs a parse.
_FILE_REF = re.compile(rb"\$ref[\"']?\s*+:\s*+(?![\"']?#)")


def _unchanged(old: Snapshot, old_path: str, new: Snapshot, new_path: str, external: bool) -> bool:
    """The same bytes at both refs, and no reference to another file that may have changed:
    the described API cannot have changed, so the document need not be parsed."""
    if external or old.blob_id(old_path) != new.blob_id(new_path):
        return False
    return _FILE_REF.search(new.read(new_path)) is None


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
    """The REST report between two refs: every configured (or the one discovered) OpenAPI
    document compared with its version at the previous ref (a document new at this ref cannot
    break anything; `old` None is a first release), its operations cross-checked with the
    routes the code registers; without a document, those routes compared."""
    rest = settings.rest
    if rest.absent is not None:
        report = declared_absent(
            SurfaceReport,
            "rest",
            rest.absent,
            new,
            DEFAULT_REST_SPECS,
            settings.origin,
            settings.absent_line("rest"),
            old,
        )
        return routes_contradict(report, old, new, rest.routes, settings.origin)

    def compare(
        old: Snapshot | None, old_path: str | None, new: Snapshot, new_path: str
    ) -> list[Finding]:
        if old is None or old_path is None:
            return []
        return _compare(old, old_path, new, new_path, rest.external_refs)

    explicit = settings.explicitly_set("rest", "specs")
    routes_set = settings.explicitly_set("rest", "routes")
    sought = Sought("rest", "rest.specs", rest.specs, explicit, DEFAULT_REST_SPECS, settings.origin)
    # the earlier ref first: the later one's matches then follow from its changed paths alone
    if explicit or matched(old, rest.specs) or matched(new, rest.specs):
        report = document_surface(sought, old, new, compare)
        return _with_drift(report, new, rest.routes, rest.external_refs)
    new_routes = read_routes(new, rest.routes)
    old_routes = read_routes(old, rest.routes) if old is not None else None
    if routes_set or found_any(new_routes) or found_any(old_routes):
        looked = tried("rest.specs", rest.specs)
        return routes_report(
            old, new, old_routes, new_routes, rest.routes, routes_set, settings.origin, looked
        )
    return document_surface(sought, old, new, compare)


def _with_drift(
    report: SurfaceReport, new: Snapshot, sources: Sequence[RouteSource], external: bool
) -> SurfaceReport:
    """The report with the spec drift the code's routes show at the new ref (advisories)."""
    specs = [path for path, _ in report.coverage.new.items()]
    if not report.checked or len(specs) != 1:
        return report
    routes = read_routes(new, sources).routes
    if not routes:
        return report
    try:
        api = _load(new, specs[0], external, None)
    except SpecError:
        return report
    operations = [(op.method, op.path) for op in api.operations.values()]
    drift = spec_drift(routes, operations, api.servers, specs[0])
    findings = sorted([*report.findings, *drift], key=Finding.sort_key)
    return report.model_copy(update={"findings": findings})


def _compare(
    old: Snapshot, old_path: str, new: Snapshot, new_path: str, external: bool
) -> list[Finding]:
    """The findings between a document at two refs; DocumentError when it cannot be read."""
    if _unchanged(old, old_path, new, new_path, external):
        return []
    apis: list[Api] = []
    for snapshot, path in ((old, old_path), (new, new_path)):
        try:
            previous = apis[0] if apis else None
            apis.append(_load(snapshot, path, external, previous))
        except SpecError as exc:
            raise DocumentError(f"{path} at {snapshot.ref}: {exc}", path) from exc
    try:
        return compare_documents(apis[0], apis[1], old_path, new_path)
    except SpecError as exc:
        raise DocumentError(f"{new_path} at {new.ref}: {exc}", new_path) from exc
