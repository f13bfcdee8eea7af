"""Timestamps as integer milliseconds since the epoch (UTC), parsed and printed."""

from __future__ import annotations

import re
from datetime import UTC, datetime

MINUTE_MS = 60_000
_RELATIVE = re.compile(r"^now(?:([+-])(\d+)(s|m|h|d))?$")
_UNIT_MS = {"s": 1_000, "m": MINUTE_MS, "h": 60 * MINUTE_MS, "d": 1_440 * MINUTE_MS}


def parse_instant(text: str) -> int:
    """An ISO-8601 date-time with an offset (or `Z`) as epoch milliseconds."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"not an ISO-8601 date-time: {text!r}") from exc
    if moment.tzinfo is None:
        raise ValueError(f"date-time without a UTC offset: {text!r}")
    return round(moment.timestamp() * 1000)


def parse_time(text: str, now_ms: int) -> int:
    """An ISO-8601 date-time, or a time relative to the clock: `now`, `now-90s`, `now-5m`,
    `now-2h`, `now-3d`, `now+1d`."""
    relative = _RELATIVE.match(text)
    if relative:
        sign, amount, unit = relative.groups()
        if not amount:
            return now_ms
        offset = int(amount) * _UNIT_MS[unit]
        return now_ms - offset if sign == "-" else now_ms + offset
    return parse_instant(text)


def format_time(ms: int) -> str:
    """Epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def now_ms() -> int:
    """The real clock in epoch milliseconds."""
    return round(datetime.now(tz=UTC).timestamp() * 1000)
