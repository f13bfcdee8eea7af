"""Spec errors: what a document gets wrong about JSON Schema or OpenAPI, reported, not judged.

A spec error is no contract change: the element that has it is unconstrained in that version
and never compared, so introducing a typo is no break and fixing one is none either. Each error
the revision brings (one the base did not have) is a `spec-invalid` advisory.
"""

from __future__ import annotations

from dataclasses import dataclass

from release_safety.contract.finding import Rule, register


class SpecError(Exception):
    """The document cannot be read or compared at all; the message is the reason."""


@dataclass(frozen=True, order=True, slots=True)
class SpecIssue:
    """One spec error: `owner` is the JSON pointer of the named schema or path item it was
    found in, `token` the offending text (a key, a type name, a scheme name)."""

    owner: str
    token: str
    message: str


SPEC_INVALID = register(
    Rule(
        id="spec-invalid",
        surface="all",
        severity="advisory",
        title="The revision brings a spec error",
        why=(
            "A `type` that is not a JSON Schema type (`jsonb`), a key that is not a keyword"
            " (`min` for `minimum`), or a security requirement naming a scheme that"
            " `components.securitySchemes` does not define constrains nothing: the element is"
            " unconstrained in that version and its changes are not judged, so the typo hides"
            " whatever it was meant to say."
        ),
        unsafe="`type: jsonb`, `min_items: 1`, `security: [{bearerAuht: []}]`",
        safe="Fix the spec error; fixing it is not reported as a contract change either.",
    )
)


def token_line(text: str, line: int, token: str) -> int:
    """The first line from `line` (1-based) on whose text holds `token`, else `line`."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return line
    found = text.find(token, start)
    return line if found < 0 else line + text.count("\n", start, found)
