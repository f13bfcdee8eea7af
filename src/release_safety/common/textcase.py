"""Lowering text the same way compiled (mypyc) or not."""

from __future__ import annotations

from collections.abc import Callable

_CPYTHON_LOWER: Callable[[str], str] = str.lower


def lower(text: str) -> str:
    """`text.lower()`, the same compiled or not: mypyc's own lowers a word-final 'Σ' to 'σ'
    where CPython gives 'ς', so text that is not ASCII goes to CPython's (every module setup.py
    compiles lowers through this; a test holds them to it)."""
    return text.lower() if text.isascii() else _CPYTHON_LOWER(text)
