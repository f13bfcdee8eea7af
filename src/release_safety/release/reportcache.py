"""An on-disk cache of surface reports, keyed by everything they are a function of.

A release's reports depend only on the two commits, the release version, the settings and the
analysers' code; the key hashes all of them, so a changed analyser or setting never reuses a
stale report. A repeated backfill (`--regenerate`) then reads reports instead of re-analysing.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from pydantic import ValidationError

from release_safety.common import jsonio
from release_safety.common.cachedir import cache_dir
from release_safety.common.errors import CheckError
from release_safety.contract.reports import (
    ConfigReport,
    DeclarationsReport,
    MigrationsReport,
    OverridesReport,
    SurfaceReport,
)

_KINDS: dict[str, type[SurfaceReport]] = {
    kind.__name__: kind
    for kind in (SurfaceReport, MigrationsReport, ConfigReport, DeclarationsReport, OverridesReport)
}


@cache
def code_fingerprint() -> str:
    """A hash of the package's own source: any change to an analyser changes every key."""
    root = Path(__file__).parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def report_key(settings: str, version: str, old: str | None, new: str) -> str:
    """The key of a release's reports: the code, the settings (as text: what they are, where
    they come from and how they fit the span, `generate.fitted_key`), the version and the two
    commits."""
    parts = [code_fingerprint(), settings, version, old or "-", new]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / "reports" / key[:2] / f"{key}.json"


def load(key: str) -> list[SurfaceReport] | None:
    """The cached reports, or None when absent or unreadable (then they are recomputed)."""
    try:
        rows = json.loads(_path(key).read_text(encoding="utf-8"))
        return [_KINDS[row["kind"]].model_validate(row["report"]) for row in rows]
    except (OSError, ValueError, KeyError, TypeError, ValidationError):
        return None


def store(key: str, reports: list[SurfaceReport]) -> None:
    """Keep the reports; a cache that cannot be written only costs speed."""
    rows = [{"kind": type(r).__name__, "report": r.model_dump(mode="json")} for r in reports]
    try:
        # a cache: a file lost to a crash is only recomputed, so it is never synced
        jsonio.write_atomic(_path(key), json.dumps(rows, separators=(",", ":")), durable=False)
    except CheckError:
        return
