"""Findings as annotations: the level each is shown at, and GitHub workflow commands.

Light on purpose (no analyser is imported), so the commands that print findings load fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from release_safety.contract.finding import Finding
from release_safety.contract.kinds import Severity

if TYPE_CHECKING:
    from release_safety.release.pullrequest import GateResult

Level = Literal["error", "warning", "note"]
LEVELS: dict[Severity, Level] = {"breaking": "error", "unknown": "warning", "advisory": "note"}
"""A finding's level (SARIF's names) by its severity, where no gate decides it."""


@dataclass(frozen=True)
class Shown:
    """A finding and the level it is shown at (the severity's, unless a gate decides)."""

    finding: Finding
    level: Level

    @classmethod
    def of(cls, findings: Sequence[Finding]) -> list[Shown]:
        return [cls(f, LEVELS[f.severity]) for f in findings]


def gate_shown(result: GateResult) -> list[Shown]:
    """The pull-request gate's findings at its levels: undeclared breaks and problems are
    errors, warnings warnings, declared breaks, acknowledgements and added overrides notes."""
    return [
        *(Shown(f, "error") for f in [*result.uncovered, *result.problems]),
        *(Shown(f, "warning") for f in result.warnings),
        *(Shown(c.finding, "note") for c in result.covered),
        *(Shown(f, "note") for f in [*result.acknowledged, *result.overrides_added]),
    ]


@dataclass(frozen=True)
class Annotation:
    """One workflow command: level, the finding it shows."""

    level: str
    finding: Finding

    @classmethod
    def of(cls, shown: Shown) -> Annotation:
        return cls("notice" if shown.level == "note" else shown.level, shown.finding)

    def command(self) -> str:
        f = self.finding
        props = [f"file={_property(f.file)}"] if f.file else []
        if f.file and f.line:
            props.append(f"line={f.line}")
        props.append(f"title={_property(f'release-safety {f.rule}')}")
        text = f.message + (f"\n{f.hint}" if f.hint else "")
        return f"::{self.level} {','.join(props)}::{_data(text)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
