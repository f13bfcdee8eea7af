"""The declarations surface's rules."""

from __future__ import annotations

from release_safety.contract.reports import Rule, register

DECLARED_BREAK = register(
    Rule(
        id="declared-break",
        surface="declarations",
        severity="breaking",
        title="An engineer declared a break",
        why="A declared break is final: the previous release's running code or its clients break, "
        "so the release cannot roll.",
        unsafe="-- release-safety: breaking(required-stop) drops users.legacy_id after the "
        "two-release deprecation",
        safe="Expand and contract: keep the old shape until no supported release reads it.",
    )
)
MALFORMED = register(
    Rule(
        id="declaration-malformed",
        surface="declarations",
        severity="unknown",
        title="A break annotation does not follow the grammar",
        why="A declaration that cannot be read may be hiding a break or a required stop.",
        unsafe="// release-safety: braking drops the v1 export endpoint for old clients",
        safe="// release-safety: breaking drops the v1 export endpoint for old clients",
    )
)
HOLLOW = register(
    Rule(
        id="declaration-hollow-reason",
        surface="declarations",
        severity="unknown",
        title="A declared break gives no real reason",
        why="Operators read the reason to plan an upgrade; a placeholder tells them nothing.",
        unsafe="# release-safety: breaking tbd",
        safe="# release-safety: breaking renames the queue table; workers of the previous "
        "release stop consuming jobs",
    )
)
REGISTRY_MALFORMED = register(
    Rule(
        id="declaration-registry-malformed",
        surface="declarations",
        severity="unknown",
        title="The declarations registry cannot be read",
        why="Declarations in a file that does not parse, or entries of the wrong shape, cannot be "
        "counted.",
        unsafe='{"declarations": {"drop-legacy-id": {"reason": "...", "requiredStop": "yes"}}}',
        safe='{"declarations": {"drop-legacy-id": {"reason": "...", "requiredStop": true}}}',
    )
)
ID_REMOVED = register(
    Rule(
        id="declaration-id-removed",
        surface="declarations",
        severity="unknown",
        title="A registry declaration was removed",
        why="Declaration ids are append-only: removing one rewrites the record of a released "
        "break.",
        safe="Leave released declarations in place; declare new breaks under new ids.",
    )
)
ID_EDITED = register(
    Rule(
        id="declaration-id-edited",
        surface="declarations",
        severity="unknown",
        title="A registry declaration was edited",
        why="Declaration ids are append-only: editing one changes the record of a released break "
        "(adding a missing releasedIn is the one allowed edit).",
        safe="Declare the new or corrected break under a new id.",
    )
)
DUPLICATE = register(
    Rule(
        id="declaration-duplicate",
        surface="declarations",
        severity="unknown",
        title="A new registry declaration repeats an old one",
        why="A new id with the reason and stop of a released declaration re-declares an old break "
        "instead of describing this release's.",
        safe="Describe the new break in its own words, or drop the copy.",
    )
)
NO_EXTERNAL_CALLERS = register(
    Rule(
        id="declared-no-external-callers",
        surface="declarations",
        severity="advisory",
        title="A declared change reaches no external caller",
        why="A registry entry with impact kind no-external-callers records a change behind a flag "
        "or used only by first-party clients: worth knowing, not a break.",
    )
)
ACKNOWLEDGEMENT_MISPLACED = register(
    Rule(
        id="acknowledgement-misplaced",
        surface="declarations",
        severity="advisory",
        title="An acknowledgement outside a migration file has no effect",
        why="Acknowledgements accept a migration rule's finding on the statement that follows "
        "them; anywhere else nothing reads them.",
        unsafe="# release-safety: acknowledge(blocking-table-lock) in a Python module",
        safe="Put the acknowledgement in the migration, right above the statement.",
    )
)
