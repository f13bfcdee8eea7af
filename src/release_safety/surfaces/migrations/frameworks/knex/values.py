"""The JavaScript values a knex migration computes with, as plain Python data.

str, int, float, bool, None for null, lists and dicts stand for themselves; `UNDEFINED` is
JavaScript's undefined and `Unknown` a value only known when the migration runs. Here are
JavaScript's conversions (`String()`, `JSON.stringify`, truthiness, `parseInt`) and the
operators and string methods the interpreter evaluates on them. Using an `Unknown` where a
static value is needed raises `Dynamic`, which the caller turns into a statement without SQL.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


class _Undefined:
    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()


@dataclass(frozen=True)
class Unknown:
    """A value that is only known when the migration runs; `origin` names the repository
    module when the value is that module's code (or what it returned), which is not followed."""

    reason: str
    origin: str | None = None


class Dynamic(Exception):
    """A statement depends on a value known only at run time."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def known(value: object) -> object:
    """The value itself; raises Dynamic when it is not known statically."""
    if isinstance(value, Unknown):
        raise Dynamic(value.reason)
    return value


def js_str(value: object) -> str:
    """JavaScript's String(value) for the values this module models."""
    value = known(value)
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, int | float | str):
        return str(value)
    if isinstance(value, list):
        return ",".join("" if v is None or v is UNDEFINED else js_str(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    raise Dynamic(f"value {type(value).__name__} has no static text")


def json_stringify(value: object) -> str:
    """JavaScript's JSON.stringify for statically known values."""
    return json.dumps(_jsonable(value), separators=(",", ":"), ensure_ascii=False)


def _jsonable(value: object) -> object:
    value = known(value)
    if isinstance(value, list):
        return [None if v is UNDEFINED else _jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items() if v is not UNDEFINED}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise Dynamic(f"value {type(value).__name__} cannot be serialised statically")


def to_number(value: object, fallback: int) -> int:
    """knex `toNumber`: parseInt, or the fallback."""
    value = known(value)
    if value is None or value is UNDEFINED or isinstance(value, bool):
        return fallback
    match = re.match(r"\s*([+-]?\d+)", js_str(value))
    return int(match.group(1)) if match else fallback


def truthy(value: object) -> bool:
    if value is None or value is UNDEFINED:
        return False
    if isinstance(value, bool | int | float | str):
        return bool(value)
    return True


def unknown_part(value: object) -> object:
    return value if isinstance(value, Unknown) else Unknown("part of a value known at run time")


def is_plain(value: object) -> bool:
    return (
        value is None
        or value is UNDEFINED
        or isinstance(value, bool | int | float | str | list | dict)
    )


def binary(operator: str, left: object, right: object) -> object:
    if operator == "+":
        if isinstance(left, str) or isinstance(right, str):
            return js_str(left) + js_str(right)
        if is_number(left) and is_number(right):
            return left + right  # type: ignore[operator]
        raise Dynamic("addition of non-numbers")
    if operator in ("===", "=="):
        return left == right and type(left) is type(right)
    if operator in ("!==", "!="):
        return not (left == right and type(left) is type(right))
    if is_number(left) and is_number(right):
        a, b = float(left), float(right)  # type: ignore[arg-type]
        comparisons = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}
        if operator in comparisons:
            return comparisons[operator]
        arithmetic = {"-": a - b, "*": a * b}
        if operator in arithmetic:
            value = arithmetic[operator]
            return int(value) if value.is_integer() else value
    raise Dynamic(f"operator {operator}")


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def string_method(text: str, name: str, args: list[object]) -> object:
    strings = [a for a in args if isinstance(a, str)]
    if name == "toUpperCase":
        return text.upper()
    if name == "toLowerCase":
        return text.lower()
    if name == "trim":
        return text.strip()
    if name in ("replace", "replaceAll") and len(strings) == 2 and len(args) == 2:
        return text.replace(strings[0], strings[1], -1 if name == "replaceAll" else 1)
    if name == "split" and len(strings) == 1:
        return text.split(strings[0]) if strings[0] else list(text)
    if name == "concat" and all(is_plain(a) for a in args):
        return text + "".join(js_str(a) for a in args)
    if name in ("startsWith", "endsWith", "includes") and len(strings) == 1:
        check = {"startsWith": text.startswith, "endsWith": text.endswith}
        return check[name](strings[0]) if name in check else strings[0] in text
    return Unknown(f"string method .{name}()")


def builtin_call(name: str, args: list[object]) -> object:
    first = args[0] if args else UNDEFINED
    try:
        if name == "String":
            return js_str(first)
        if name == "Boolean" and is_plain(first):
            return truthy(first)
        if (
            name == "Number"
            and isinstance(first, int | float | str)
            and not isinstance(first, bool)
        ):
            number = float(first)
            return int(number) if number.is_integer() else number
    except (Dynamic, ValueError):
        pass
    return Unknown(f"{name}() of a run-time value")
