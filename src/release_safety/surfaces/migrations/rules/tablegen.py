"""Writes `table.py`: each rule of the catalogue without its examples, as plain literals.

    python -m release_safety.surfaces.migrations.rules.tablegen

`tests/surfaces/migrations/test_rule_table.py` checks that the file is what `render` writes.
"""

from __future__ import annotations

from pathlib import Path

from release_safety.surfaces.migrations.rules.catalogue import CATALOGUE

TABLE = Path(__file__).with_name("table.py")
_HEADER = '''# ruff: noqa: E501
"""Each migration rule as the lint reports it: id, severity, title, why, unsafe and safe text
(`catalogue.py` without its examples, which a lint never reads, so it starts without them).

Generated from `catalogue.py` by `python -m release_safety.surfaces.migrations.rules.tablegen`;
`tests/surfaces/migrations/test_rule_table.py` checks it. Do not edit.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from release_safety.contract.kinds import Severity

# fmt: off
RULES: dict[str, tuple[Severity, str, str, str, str]] = {
'''


def render() -> str:
    """The text of `table.py`."""
    rows = [
        f"    {r.id!r}: {(r.severity, r.title, r.why, r.unsafe, r.safe)!r},\n"
        for r in (entry.rule for entry in CATALOGUE)
    ]
    return _HEADER + "".join(rows) + "}\n"


if __name__ == "__main__":
    TABLE.write_text(render(), encoding="utf-8")
