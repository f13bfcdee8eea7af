"""`surfaces/migrations/schema/pgcatalog.py` is what the suite's PostgreSQL says (volatility of its
functions, binary-coercible casts, length coercions, btree operator classes)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pgcatalog_gen import TARGET, source

from release_safety.surfaces.migrations.schema import pgcatalog


def test_the_catalogue_is_regenerated_from_the_server_unchanged(pg_dsn: str) -> None:
    text = source(pg_dsn)
    if f"MAJOR = {pgcatalog.MAJOR}\n" not in text:
        pytest.skip(f"the suite's server is not PostgreSQL {pgcatalog.MAJOR}")
    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", f"--stdin-filename={TARGET}", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert formatted == TARGET.read_text(encoding="utf-8")
