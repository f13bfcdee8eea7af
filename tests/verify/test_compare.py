"""Static flags against what PostgreSQL did: a static rule deliberately made wrong is caught as
`static-missed` (breaking), an over-cautious one is `static-heavier` (advisory), what cannot
run is `unverified` (never agreement), and the release where both agree has no finding."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from verifying import INIT, release_repo, url, verify

from release_safety.contract.model import Heaviness
from release_safety.contract.reports import MigrationsReport
from release_safety.contract.verification import Verification
from release_safety.git.builder import RepoBuilder
from release_safety.verify import plan as plan_module
from release_safety.verify.database import Target
from release_safety.verify.run import Where


def _rules(v: Verification) -> list[tuple[str, str | None]]:
    return [(f.rule, f.file) for f in v.findings]


def _wrong(flag: bool | str) -> Callable[..., MigrationsReport]:
    """The migrations surface with every file's flags replaced: a rule deliberately wrong."""
    real = plan_module.analyse

    def analyse(*args: object) -> MigrationsReport:
        report = real(*args)  # type: ignore[arg-type]
        for file in report.files:
            file.heaviness = Heaviness(locksTable=flag, rewritesTable=flag, scansTable=flag)
        return report

    return analyse


@pytest.fixture
def where(admin: Target) -> Where:
    return Where(database_url=url(admin))


REWRITE = {"migrations/0002_age.up.sql": "ALTER TABLE users ALTER COLUMN age TYPE bigint;\n"}


def test_agreement_has_no_finding(tmp_path: Path, where: Where) -> None:
    v = verify(release_repo(tmp_path, REWRITE), where)
    (file,) = v.files
    assert (
        file.static
        == file.observed
        == Heaviness(locksTable=True, rewritesTable=True, scansTable=True)
    )
    assert v.agree and v.findings == []
    assert v.seeded == {"users": 500}


def test_a_static_rule_made_wrong_is_static_missed(
    tmp_path: Path, where: Where, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan_module, "analyse", _wrong(False))
    v = verify(release_repo(tmp_path, REWRITE), where)
    assert not v.agree
    missed = [f for f in v.findings if f.rule == "static-missed"]
    assert {f.severity for f in missed} == {"breaking"}
    assert len(missed) == 3  # locks, rewrites and scans, each on users
    assert all(f.file == "migrations/0002_age.up.sql" and f.line == 1 for f in missed)
    assert "static rule that read this statement is wrong" in missed[0].message


def test_an_over_cautious_rule_is_an_advisory(
    tmp_path: Path, where: Where, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan_module, "analyse", _wrong(True))
    light = {"migrations/0002_note.up.sql": "ALTER TABLE users ADD COLUMN note text;\n"}
    v = verify(release_repo(tmp_path, light), where)
    heavier = [f for f in v.findings if f.rule == "static-heavier"]
    assert {f.severity for f in heavier} == {"advisory"}
    assert len(heavier) == 3 and not any(f.rule == "static-missed" for f in v.findings)


def test_a_static_unknown_is_neither_missed_nor_heavier(
    tmp_path: Path, where: Where, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan_module, "analyse", _wrong("unknown"))
    v = verify(release_repo(tmp_path, REWRITE), where)
    assert v.findings == [] and v.agree


def test_what_cannot_run_is_unverified_and_stops_the_files_after_it(
    tmp_path: Path, where: Where
) -> None:
    files = {
        "migrations/0002_ext.up.sql": "CREATE EXTENSION no_such_extension;\n",
        "migrations/0003_age.up.sql": REWRITE["migrations/0002_age.up.sql"],
    }
    v = verify(release_repo(tmp_path, files), where)
    assert _rules(v) == [
        ("unverified", "migrations/0002_ext.up.sql"),
        ("unverified", "migrations/0003_age.up.sql"),
    ]
    assert {f.severity for f in v.findings} == {"unknown"}
    first, second = v.files
    assert first.observed is None and "no_such_extension" in (first.unverified or "")
    assert second.observed is None and "earlier migration failed" in (second.unverified or "")
    assert not v.agree


def test_a_foreign_key_child_is_seeded_after_its_parent(tmp_path: Path, where: Where) -> None:
    files = {
        "migrations/0002_fk.up.sql": "ALTER TABLE orders ADD CONSTRAINT positive "
        "CHECK (amount >= 0);\n"
    }
    v = verify(release_repo(tmp_path, files), where)
    assert v.seeded == {"orders": 500, "users": 500} and v.seedFailed == {}
    (file,) = v.files
    assert file.observed == Heaviness(locksTable=True, rewritesTable=False, scansTable=True)
    assert v.agree


def test_the_tools_history_table_exists_before_the_replay(tmp_path: Path, where: Where) -> None:
    # golang-migrate creates schema_migrations itself; harbor's 2.0.0 migration alters it
    builder = RepoBuilder(tmp_path / "tool")
    init = INIT + "ALTER TABLE schema_migrations ADD COLUMN data_version int;\n"
    builder.release("1.0.0", {"migrations/0001_init.up.sql": init}, prefix="v")
    builder.release("1.1.0", REWRITE, prefix="v")
    v = verify(builder.path, where)
    assert v.replayProblems == [] and v.agree


def test_a_migration_on_another_engine_is_unverified_never_run(
    tmp_path: Path, where: Where
) -> None:
    settings = '[[migrations.sources]]\npath = "migrations"\ndialect = "sqlite"\n'
    builder = RepoBuilder(tmp_path / "sqlite")
    builder.release(
        "1.0.0",
        {".release-safety.toml": settings, "migrations/0001_init.up.sql": INIT},
        prefix="v",
    )
    builder.release("1.1.0", REWRITE, prefix="v")
    v = verify(builder.path, where)
    (file,) = v.files
    assert file.observed is None and "runs on SQLite" in (file.unverified or "")
    assert [f.rule for f in v.findings] == ["unverified"]
