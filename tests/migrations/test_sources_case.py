"""Names matched as the tool's own rules would match them (issue 35 class 1): a migration whose
name or folder differs from the search only by case (`Migrations/`, `.UP.SQL`) is a migration
no source reads, `unknown`, never invisible."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.settings import Settings
from release_safety.snapshot import Snapshot
from release_safety.surfaces.migrations.analyse import analyse

Pair = Callable[[dict[str, str | None], dict[str, str | None]], tuple[Snapshot, Snapshot]]
INIT = "CREATE TABLE users (id int, email text);\n"
DROP = "ALTER TABLE users DROP COLUMN email;\n"


@pytest.mark.parametrize(
    "path", ["migrations/0002_drop.UP.SQL", "Migrations/0002_drop.sql", "db/MIGRATIONS/2.Sql"]
)
def test_a_migration_named_in_another_case_is_not_read_and_says_so(
    release_pair: Pair, path: str
) -> None:
    before, after = release_pair({"migrations/0001_init.sql": INIT}, {path: DROP})
    report = analyse(before, after, Settings())
    (finding,) = report.unknown()
    assert (finding.rule, finding.file, finding.line) == ("migration-not-read", path, 1)
    assert finding.hint is not None and "(?i)" in finding.hint
    assert [gap.file for gap in report.coverage.unmodelled] == [path]


def test_a_lower_case_migration_is_read_as_before(release_pair: Pair) -> None:
    before, after = release_pair({"migrations/0001_init.sql": INIT}, {"migrations/0002.sql": DROP})
    report = analyse(before, after, Settings())
    assert not report.unknown()
    assert [f.rule for f in report.breaking()] == ["drop-column"]
