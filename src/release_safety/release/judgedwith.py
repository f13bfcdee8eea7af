"""Which settings judged a release, said wherever they are not the release's own committed ones:
the adopting settings for a release older than the settings file, the defaults when there are
none at all, or a `--config` file (`settings/atref.py` decides which)."""

from __future__ import annotations

from release_safety.contract.finding import Finding, Rule, register
from release_safety.settings.atref import SettingsAt
from release_safety.settings.file import finding_file

SETTINGS_ADOPTED = register(
    Rule(
        id="settings-adopted",
        surface="settings",
        severity="advisory",
        title="The release is judged with settings it did not commit",
        why="A release older than the settings file is judged with the settings the maintainer "
        "adopted the tool with (the working tree's, else HEAD's), or with the file given with "
        "`--config`; the artifact's notes, the evidence and stderr say which, so a verdict "
        "never rests on settings nobody sees.",
        safe="Nothing to do: the adopting settings are the maintainer's best knowledge of where "
        "each surface was; a source that did not exist yet at a release is a coverage note.",
    )
)
SETTINGS_DEFAULTS = register(
    Rule(
        id="settings-defaults",
        surface="settings",
        severity="advisory",
        title="The release is judged with the default settings",
        why="Neither the release nor the working tree nor HEAD has a settings file: every "
        "surface is found by the default discovery. Said, so that defaults are never silent.",
        safe="Run `release-safety init` and commit the file it writes.",
    )
)


def judged_with(current: SettingsAt) -> Finding | None:
    """The advisory naming the settings a release is judged with when they are not its own
    committed ones (`settings: .release-safety.toml at HEAD (v2.0.0 has none)`); None when
    they are."""
    if current.adopted_for is not None:
        rule, hint = (
            SETTINGS_ADOPTED,
            (
                "Commit the settings file so later releases carry their own; "
                f"{current.adopted_for} stays judged with the adopting settings."
            ),
        )
    elif current.where.startswith("--config "):
        rule, hint = SETTINGS_ADOPTED, None
    elif current.where.startswith("defaults "):
        rule, hint = SETTINGS_DEFAULTS, "Run `release-safety init` and commit the file it writes."
    else:
        return None
    file = finding_file(current.settings.origin) if current.path else None
    return rule.finding("settings", f"settings: {current.where}", file, hint=hint)
