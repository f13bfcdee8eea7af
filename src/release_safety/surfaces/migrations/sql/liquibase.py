"""Liquibase formatted SQL: a file whose first line is `--liquibase formatted sql`, cut into
`--changeset author:id [attributes]` sections. Its `--rollback` lines (and `/* liquibase
rollback */` blocks) are SQL comments, so they never run forward; a changeset with
`runInTransaction:false` runs outside a transaction."""

from __future__ import annotations

import re

_HEADER = re.compile(r"\A\s*--\s*liquibase\s+formatted\s+sql\b", re.IGNORECASE)
# Compiled when first used (`re` keeps it): read only in Liquibase formatted SQL.
_OUTSIDE = r"(?im)^--\s*changeset\s[^\n]*\brunInTransaction:\s*false\b"


def formatted(text: str) -> bool:
    """True for Liquibase formatted SQL."""
    return _HEADER.match(text) is not None


def in_transaction(text: str) -> bool:
    """False when a changeset of the file runs outside a transaction."""
    return re.search(_OUTSIDE, text) is None
