"""Timestamps as integer microseconds since the epoch (UTC), parsed and printed.

Microseconds, not milliseconds: a time given with sub-millisecond digits keeps them, so a run
1 µs in the future stays out of scope and window edges fall where the data says. Digits past
the microsecond are dropped (Python's datetime keeps six).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache

MS_US = 1_000
MINUTE_US = 60_000_000
DAY_US = 1_440 * MINUTE_US
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_ONE_US = timedelta(microseconds=1)
_MIN_US = (datetime(1, 1, 2, tzinfo=UTC) - _EPOCH) // _ONE_US
_MAX_US = (datetime(9999, 12, 31, tzinfo=UTC) - _EPOCH) // _ONE_US
_RELATIVE = re.compile(r"^now(?:([+-])(\d{1,12})(s|m|h|d))?$")
_UNIT_US = {"s": 1_000_000, "m": MINUTE_US, "h": 60 * MINUTE_US, "d": DAY_US}


def _checked(us: int, text: str) -> int:
    if not _MIN_US <= us <= _MAX_US:
        raise ValueError(f"date-time out of range: {text!r}")
    return us


def parse_instant(text: str) -> int:
    """An ISO-8601 date-time with an offset (or `Z`) as epoch microseconds."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"not an ISO-8601 date-time: {text!r}") from exc
    if moment.tzinfo is None:
        raise ValueError(f"date-time without a UTC offset: {text!r}")
    return _checked((moment - _EPOCH) // _ONE_US, text)


def parse_time(text: str, now_us: int) -> int:
    """An ISO-8601 date-time, or a time relative to the clock: `now`, `now-90s`, `now-5m`,
    `now-2h`, `now-3d`, `now+1d`."""
    relative = _RELATIVE.match(text)
    if relative:
        sign, amount, unit = relative.groups()
        if not amount:
            return now_us
        offset = int(amount) * _UNIT_US[unit]
        return _checked(now_us - offset if sign == "-" else now_us + offset, text)
    return parse_instant(text)


def format_time(us: int) -> str:
    """Epoch microseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`, or `.mmmuuuZ` when the time has
    sub-millisecond digits (printed from tables of the pieces: a datetime per time was most of
    a load)."""
    seconds, micro = divmod(us, 1_000_000)
    days, second = divmod(seconds, 86_400)
    hour, second = divmod(second, 3_600)
    clock = f"{_date(days)}{_HOURS[hour]}{_MINUTES_SECONDS[second]}"
    if micro % MS_US:
        return f"{clock}{micro:06d}Z"
    return clock + _MILLISECONDS[micro // MS_US]


_HOURS = [f"T{hour:02d}:" for hour in range(24)]
_MINUTES_SECONDS = [f"{minute:02d}:{second:02d}." for minute in range(60) for second in range(60)]
_MILLISECONDS = [f"{millisecond:03d}Z" for millisecond in range(1_000)]


@lru_cache(maxsize=1_024)
def _date(days: int) -> str:
    return (_NAIVE_EPOCH + timedelta(days=days)).date().isoformat()


@lru_cache(maxsize=64)
def resolve(text: str, now_us: int) -> tuple[int, str]:
    """A time of the data as epoch microseconds and as printed. A run's times often repeat
    (results created, updated, processing started at one instant): the last few are kept."""
    moment = parse_time(text, now_us)
    return moment, format_time(moment)


def now_us() -> int:
    """The real clock in epoch microseconds."""
    return (datetime.now(tz=UTC) - _EPOCH) // _ONE_US
