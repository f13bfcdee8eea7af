"""Snapshot pairs for the MCP tests: the cases of `fixtures/mcp/cases.yaml`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "mcp"


def load_cases() -> list[dict[str, Any]]:
    cases = yaml.safe_load((FIXTURES / "cases.yaml").read_text(encoding="utf-8"))
    assert isinstance(cases, list)
    return cases


def snapshot(*tools: dict[str, Any]) -> str:
    """A committed snapshot of `tools` (sorted, keys sorted, as the service writes it)."""
    body = {"schemaVersion": "1", "tools": sorted(tools, key=lambda t: t["name"])}
    return json.dumps(body, indent=2, sort_keys=True) + "\n"


def tool(name: str = "run_sql", **fields: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}, "outputSchema": None, **fields}


def build_pair(case: dict[str, Any]) -> tuple[str, str]:
    """The two snapshot texts of a case."""
    if "tools" in case:
        old, new = ([tool(**t) for t in side] for side in case["tools"])
    else:
        old, new = ([tool(**side)] for side in case["tool"])
    return snapshot(*old), snapshot(*new)
