"""The MCP surface: the committed tool snapshot at both refs, compared tool by tool with
JSON-Schema reasoning (inputs may widen, outputs may narrow)."""

from __future__ import annotations

from collections import OrderedDict

from release_safety.findings import SurfaceReport, not_checked
from release_safety.settings import Settings
from release_safety.snapshot import Snapshot
from release_safety.surfaces.mcp.load import SnapshotError, ToolSnapshot, find, parse
from release_safety.surfaces.mcp.rules import diff_tools

__all__ = ["analyse"]

_CACHE_SIZE = 64
_CACHE: OrderedDict[tuple[str, str], ToolSnapshot | SnapshotError] = OrderedDict()


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
    """Compare the MCP tool snapshot of `old` with that of `new`."""
    candidates = settings.mcp.snapshots
    new_path = find(new, candidates)
    old_path = find(old, candidates) if old is not None else None
    if new_path is None:
        if old is not None and old_path is not None:
            reason = f"{old_path} present at {old.ref} but no snapshot at {new.ref}"
            return not_checked("mcp", reason, old_path)
        return SurfaceReport(surface="mcp", checked=True)
    parsed: dict[str, ToolSnapshot] = {}
    for label, snapshot, path in (("old", old, old_path), ("new", new, new_path)):
        if snapshot is None or path is None:
            continue
        result = _parse(snapshot, path)
        if isinstance(result, SnapshotError):
            return not_checked("mcp", f"{path} at {snapshot.ref}: {result}", path)
        parsed[label] = result
    if "old" not in parsed or parsed["old"] is parsed["new"]:
        return SurfaceReport(surface="mcp", checked=True)  # first snapshot, or the same blob
    findings = diff_tools(parsed["old"], parsed["new"])
    return SurfaceReport(
        surface="mcp", checked=True, findings=sorted(findings, key=lambda f: f.sort_key())
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
