"""The release before the first release of `tag_pattern`: the nearest earlier version tag.

A release is judged against the highest release tag below it. When no tag of `tag_pattern` is
below it (the pattern was introduced, or changed, at this release), it is judged against the
nearest earlier tag that is a version (`1.2.3` or `v1.2.3`, the default pattern) reachable from
it, as `git describe --tags` finds it, even outside the pattern, with an advisory saying so.
When there is none, it is the first release: nothing ran before it, so no previous code can
break and nothing is judged as new (the release is compared with itself); the advisory
`no-previous-release` says so, and its verdict follows from its own surfaces, `true` when each
is checked, as GitLab's upgrade path starts at the first version without a stop before it.
"""

from __future__ import annotations

from release_safety.contract.finding import Finding, Rule, register
from release_safety.contract.release import Release
from release_safety.contract.versions import TagPattern, Version
from release_safety.git.repository import GitRepo, ReleaseTag

PREVIOUS_OUTSIDE_PATTERN = register(
    Rule(
        id="previous-release-outside-pattern",
        surface="release",
        severity="advisory",
        title="The release is judged against an earlier tag outside `tag_pattern`",
        why="No release tag of `tag_pattern` is below the release; rather than judge the whole "
        "history as new, it is judged against the nearest earlier version tag, as "
        "`git describe --tags` finds it.",
    )
)
NO_PREVIOUS_RELEASE = register(
    Rule(
        id="no-previous-release",
        surface="release",
        severity="advisory",
        title="The first release: nothing ran before it",
        why="No earlier tag names a version, so no previous release's code runs beside it "
        "during an upgrade; nothing is judged as new (an install starts from nothing).",
    )
)


def earlier_tag(repo: GitRepo, commit: str, version: Version | None) -> ReleaseTag | None:
    """The nearest version tag reachable from `commit` (not on it), below `version`."""
    candidates = {
        t.tag: t
        for t in repo.release_tags(TagPattern())
        if t.commit != commit and (version is None or t.version < version)
    }
    name = repo.nearest_tag(commit, list(candidates))
    return candidates[name] if name is not None else None


def judged_against(release: Release, pattern: str, file: str, line: int) -> list[Finding]:
    """The advisory saying what the release was judged against, when it is not the release
    tag below it (`release.previous_tag` set, or no previous ref); the settings `file` and the
    `line` of `tag_pattern` locate it."""
    if release.from_ref is None:
        message = (
            f"{release.version} is the first release: no earlier tag names a version, so no "
            "previous release runs beside it; nothing was judged as new"
        )
        return [_finding(NO_PREVIOUS_RELEASE, message, file, line)]
    if release.previous_tag is None:
        return []
    message = (
        f"no tag of tag_pattern `{pattern}` is below {release.version}: judged against "
        f"{release.previous_tag} ({release.previous_version}), the nearest earlier version tag"
    )
    hint = (
        f"If {release.previous_tag} is a release of this service, widen `tag_pattern` so it "
        "matches it; the index then lists it as a release too."
    )
    return [_finding(PREVIOUS_OUTSIDE_PATTERN, message, file, line, hint)]


def _finding(rule: Rule, message: str, file: str, line: int, hint: str | None = None) -> Finding:
    return Finding(
        rule=rule.id,
        severity=rule.severity,
        surface="release",
        file=file,
        line=line,
        message=message,
        hint=hint,
    )
