"""The MCP surface: the committed tool snapshot at both refs, compared tool by tool with
JSON-Schema reasoning (inputs may widen, outputs may narrow)."""

from __future__ import annotations

from collections import OrderedDict

from release_safety.contract.reports import Finding, SurfaceReport
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import DEFAULT_MCP_SNAPSHOTS, Settings
from release_safety.surfaces.discovery import (
    DocumentError,
    Sought,
    declared_absent,
    document_surface,
)
from release_safety.surfaces.mcp.load import SnapshotError, ToolSnapshot, parse
from release_safety.surfaces.mcp.rules import diff_tools

__all__ = ["analyse"]

_CACHE_SIZE = 64
_CACHE: OrderedDict[tuple[str, str], ToolSnapshot | SnapshotError] = OrderedDict()


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
    """Compare every configured (or the one discovered) MCP tool snapshot at both refs."""
    mcp = settings.mcp
    if mcp.absent is not None:
        return declared_absent(
            SurfaceReport,
            "mcp",
            mcp.absent,
            new,
            DEFAULT_MCP_SNAPSHOTS,
            settings.origin,
            settings.absent_line("mcp"),
            old,
        )
    explicit = settings.explicitly_set("mcp", "snapshots")
    sought = Sought(
        "mcp", "mcp.snapshots", mcp.snapshots, explicit, DEFAULT_MCP_SNAPSHOTS, settings.origin
    )
    return document_surface(sought, old, new, _compare)


def _compare(
    old: Snapshot | None, old_path: str | None, new: Snapshot, new_path: str
) -> list[Finding]:
    """The changes between two snapshots; a snapshot new at this ref is only parsed."""
    parsed_new = _read(new, new_path)
    if old is None or old_path is None:
        return []
    parsed_old = _read(old, old_path)
    if parsed_old is parsed_new:  # the same blob cannot differ
        return []
    return diff_tools(parsed_old, parsed_new)


def _read(snapshot: Snapshot, path: str) -> ToolSnapshot:
    parsed = _parse(snapshot, path)
    if isinstance(parsed, SnapshotError):
        raise DocumentError(f"{path} at {snapshot.ref}: {parsed}", path)
    return parsed


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
