"""A read kept in a `const` whose uses give it its default (umami v2.16.1 and v2.20.1:
`const corsMaxAge = process.env.CORS_MAX_AGE;` and, sixty lines on, `corsMaxAge || '86400'`):
the default is the one every use gives, so moving the read there changes nothing; a use that
gives none, or another default, leaves it without one or changes it."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.surfaces.config.reads import EnvRead
from release_safety.surfaces.config.typescript import parse

Seen = Callable[..., list[tuple[str, str]]]

INLINE = "export const maxAge = Number(process.env.CORS_MAX_AGE) || 86400;\n"
KEPT = (
    "const corsMaxAge = process.env.CORS_MAX_AGE;\n"
    "const other = 1;\n"
    "export default {\n"
    "  headers: [{ key: 'Access-Control-Max-Age', value: corsMaxAge || '86400' }],\n"
    "};\n"
)


def _defaults(source: str) -> dict[str, str | None]:
    return {r.name: r.default for r in parse(source.encode(), "ts") if isinstance(r, EnvRead)}


def test_the_default_every_use_gives_is_the_reads_default() -> None:
    assert _defaults(KEPT) == {"CORS_MAX_AGE": "86400"}
    twice = KEPT + "export const again = () => Number(corsMaxAge) ?? 86400;\n"
    assert _defaults(twice) == {"CORS_MAX_AGE": "86400"}


def test_an_empty_default_is_replaced_by_the_one_an_or_gives() -> None:
    """umami v3.0.0: `const corsMaxAge = process.env.CORS_MAX_AGE || ''` then
    `corsMaxAge || '86400'`: unset, the header is 86400; `??` keeps the empty string."""
    empty = KEPT.replace("process.env.CORS_MAX_AGE;", "process.env.CORS_MAX_AGE || '';")
    assert _defaults(empty) == {"CORS_MAX_AGE": "86400"}
    assert _defaults(empty.replace("corsMaxAge || '86400'", "corsMaxAge ?? '86400'")) == {
        "CORS_MAX_AGE": ""
    }
    assert _defaults(KEPT.replace("corsMaxAge || '86400'", "corsMaxAge ?? '86400'")) == {
        "CORS_MAX_AGE": "86400"
    }


def test_a_use_without_the_default_leaves_the_read_without_one() -> None:
    for use in (
        "if (corsMaxAge) { console.log('set'); }\n",
        "export const env = { corsMaxAge };\n",
        "export const fallback = process.env.OTHER || corsMaxAge;\n",
        "export const other2 = corsMaxAge || '3600';\n",
    ):
        assert _defaults(KEPT + use)["CORS_MAX_AGE"] is None, use
    exported = KEPT.replace("const corsMaxAge", "export const corsMaxAge")
    assert _defaults(exported)["CORS_MAX_AGE"] is None  # other modules use it as they like
    reassigned = KEPT.replace("const corsMaxAge", "let corsMaxAge")
    assert _defaults(reassigned)["CORS_MAX_AGE"] is None


def test_moving_a_default_into_a_kept_const_changes_nothing(seen: Seen) -> None:
    old = {"src/middleware.ts": INLINE}
    moved = {"src/middleware.ts": None, "src/next.config.ts": KEPT}
    assert seen(old, moved, ["src/**/*.ts"]) == []
    changed = {"src/middleware.ts": None, "src/next.config.ts": KEPT.replace("86400", "3600")}
    assert seen(old, changed, ["src/**/*.ts"]) == [
        ("config-default-changed", "env var `CORS_MAX_AGE` default changed `86400` → `3600`")
    ]
