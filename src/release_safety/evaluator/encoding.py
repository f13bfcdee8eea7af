"""JSON as bytes: orjson, with the standard library for integers orjson cannot hold."""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any) -> bytes:
    """Compact JSON, UTF-8, key order kept; integers past 64 bits are written exactly too."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
