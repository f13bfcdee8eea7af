"""The MCP surface: the committed tool snapshot at both refs, compared tool by tool with
JSON-Schema reasoning (inputs may widen, outputs may narrow)."""

from __future__ import annotations

from collections import OrderedDict

from release_safety.discovery import declared_absent, locate, reason_of
from release_safety.findings import Coverage, Finding, SurfaceReport, not_checked_finding
from release_safety.settings import DEFAULT_MCP_SNAPSHOTS, Settings
from release_safety.snapshot import Snapshot
from release_safety.surfaces.mcp.load import SnapshotError, ToolSnapshot, parse
from release_safety.surfaces.mcp.rules import diff_tools

__all__ = ["analyse"]

_CACHE_SIZE = 64
_CACHE: OrderedDict[tuple[str, str], ToolSnapshot | SnapshotError] = OrderedDict()


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
    """Compare every configured (or the one discovered) MCP tool snapshot at both refs."""
    mcp = settings.mcp
    if mcp.absent is not None:
        return declared_absent(SurfaceReport, "mcp", mcp.absent, new, DEFAULT_MCP_SNAPSHOTS)
    explicit = settings.explicitly_set("mcp", "snapshots")
    docs = locate("mcp", "mcp.snapshots", mcp.snapshots, explicit, DEFAULT_MCP_SNAPSHOTS, old, new)
    problems, found = list(docs.problems), list(docs.notes)
    read_old: dict[str, str | None] = {}
    read_new: dict[str, str | None] = {}
    for before, path in docs.pairs:
        read_new[path] = new.blob_id(path)
        parsed_new = _parse(new, path)
        if isinstance(parsed_new, SnapshotError):
            problems.append(not_checked_finding("mcp", f"{path} at {new.ref}: {parsed_new}", path))
            continue
        if before is None or old is None:
            continue
        read_old[before] = old.blob_id(before)
        parsed_old = _parse(old, before)
        if isinstance(parsed_old, SnapshotError):
            reason = f"{before} at {old.ref}: {parsed_old}"
            problems.append(not_checked_finding("mcp", reason, before))
        elif parsed_old is not parsed_new:  # the same blob cannot differ
            prefix = f"{path}: " if len(docs.pairs) > 1 else ""
            found += [
                f.model_copy(update={"message": prefix + f.message})
                for f in diff_tools(parsed_old, parsed_new)
            ]
    return SurfaceReport(
        surface="mcp",
        checked=not problems,
        reason=reason_of(problems),
        findings=sorted([*problems, *found], key=Finding.sort_key),
        coverage=Coverage.of(docs.tried, read_old, read_new),
    )


def _parse(snapshot: Snapshot, path: str) -> ToolSnapshot | SnapshotError:
    """The parsed snapshot, once per (path, blob id): a backfill reads the same blob often."""
    key = (path, snapshot.blob_id(path) or "")
    cached = _CACHE.get(key)
    if cached is None:
        try:
            cached = parse(path, snapshot.read(path))
        except SnapshotError as exc:
            cached = exc
        _CACHE[key] = cached
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    _CACHE.move_to_end(key)
    return cached
