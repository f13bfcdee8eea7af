"""Where a shipped migration was edited: the line of the statement its first change falls in
(the changed line itself outside SQL, or before the first statement)."""

from __future__ import annotations

import difflib

from release_safety.surfaces.migrations.sql.sqlfile import split_sql


def edited_line(old: str, new: str, *, sql: bool) -> int:
    """The 1-based line in `new` of the statement the first changed line belongs to."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    first = next((j1 for tag, _, _, j1, _ in matcher.get_opcodes() if tag != "equal"), None)
    if first is None:
        return 1  # the same lines: only line endings or a final newline changed
    line = min(first + 1, max(len(new_lines), 1))
    if not sql:
        return line
    try:
        starts = [s.line for s in split_sql(new)]
    except ValueError:
        return line
    return max((start for start in starts if start <= line), default=line)
