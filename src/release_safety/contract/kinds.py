"""The values a finding's severity and surface take, as `typing.Literal` types.

Apart from `finding` so that a lint, which never needs them at run time, does not import
`typing` (about a sixth of a one-file lint's start): `finding` imports them for mypy alone,
and gives them to pydantic when a report model first reads a finding.
"""

from __future__ import annotations

from typing import Literal

Severity = Literal["breaking", "unknown", "advisory"]
Surface = Literal[
    "migrations", "rest", "mcp", "config", "deployment", "declarations", "overrides", "settings"
]
