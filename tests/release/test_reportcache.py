import json
import os
from pathlib import Path

from release_safety.contract.reports import Finding, MigrationsReport, SurfaceReport
from release_safety.release import reportcache
from release_safety.settings.atref import ReleaseSettings, SettingsAt
from release_safety.settings.model import Settings


def judged_with(settings: Settings, previous: Settings | None = None) -> str:
    before = SettingsAt(previous, "previous") if previous is not None else None
    return ReleaseSettings(SettingsAt(settings, "current"), before).key()


def test_round_trip_keeps_report_kinds() -> None:
    finding = Finding(
        rule="r", severity="advisory", surface="migrations", file="m.sql", line=3, message="m"
    )
    reports: list[SurfaceReport] = [
        MigrationsReport(surface="migrations", checked=True, findings=[finding]),
        SurfaceReport(surface="rest", checked=False, reason="unreadable"),
    ]
    key = reportcache.report_key(judged_with(Settings()), "1.0.0", "a" * 40, "b" * 40)
    assert reportcache.load(key) is None
    reportcache.store(key, reports)
    assert reportcache.load(key) == reports
    assert isinstance(reportcache.load(key)[0], MigrationsReport)  # type: ignore[index]
    stored = reportcache._path(key)
    assert [p.name for p in stored.parent.iterdir()] == [stored.name]  # renamed into place


def test_a_report_cut_short_is_recomputed_not_read() -> None:
    key = reportcache.report_key(judged_with(Settings()), "1.0.1", "a" * 40, "c" * 40)
    reportcache.store(key, [SurfaceReport(surface="rest", checked=True)])
    stored = reportcache._path(key)
    stored.write_text(stored.read_text()[:-3])
    assert reportcache.load(key) is None


def test_key_covers_settings_version_and_commits() -> None:
    base = reportcache.report_key(judged_with(Settings()), "1.0.0", None, "b" * 40)
    twelve = judged_with(Settings(postgres_version=12))
    assert base != reportcache.report_key(twelve, "1.0.0", None, "b" * 40)
    both = judged_with(Settings(), Settings(postgres_version=12))
    assert base != reportcache.report_key(both, "1.0.0", None, "b" * 40)
    same = judged_with(Settings(), Settings())
    assert base == reportcache.report_key(same, "1.0.0", None, "b" * 40)
    assert base != reportcache.report_key(judged_with(Settings()), "1.0.1", None, "b" * 40)
    assert base != reportcache.report_key(judged_with(Settings()), "1.0.0", "a" * 40, "b" * 40)


def test_a_corrupt_entry_is_recomputed_not_trusted() -> None:
    key = reportcache.report_key(judged_with(Settings()), "2.0.0", None, "c" * 40)
    reportcache.store(key, [SurfaceReport(surface="mcp", checked=True)])
    path = Path(os.environ["RELEASE_SAFETY_CACHE_DIR"]) / "reports" / key[:2] / f"{key}.json"
    path.write_text('[{"kind": "SurfaceReport", "report": {"surface": "nope"}}]')
    assert reportcache.load(key) is None


def test_a_cached_finding_that_is_not_one_is_recomputed_not_trusted() -> None:
    """Findings are plain classes; read back inside a report, pydantic still checks each
    one: an unknown key, a bad severity or a missing message is refused."""
    finding = Finding(rule="r", severity="breaking", surface="migrations", message="m", line=2)
    key = reportcache.report_key(judged_with(Settings()), "3.0.0", None, "d" * 40)
    reportcache.store(key, [SurfaceReport(surface="migrations", checked=True, findings=[finding])])
    assert reportcache.load(key) == [
        SurfaceReport(surface="migrations", checked=True, findings=[finding])
    ]
    path = reportcache._path(key)
    good = finding.to_dict()
    for bad in ({**good, "extra": 1}, {**good, "severity": "fatal"}, {"rule": "r"}):
        report = {"surface": "migrations", "checked": True, "findings": [bad]}
        path.write_text(json.dumps([{"kind": "SurfaceReport", "report": report}]))
        assert reportcache.load(key) is None


def test_a_finding_as_json_data_keeps_field_order() -> None:
    finding = Finding(rule="r", severity="unknown", surface="rest", message="m", hint="h")
    assert list(finding.to_dict()) == [
        "rule", "severity", "surface", "file", "line", "message", "hint", "acknowledged"
    ]  # fmt: skip
    assert finding.to_dict(omit_none=True) == {
        "rule": "r", "severity": "unknown", "surface": "rest", "message": "m", "hint": "h"
    }  # fmt: skip


def test_key_covers_where_the_settings_come_from() -> None:
    """The note naming the adopting settings is part of the reports: a release judged with
    HEAD's file and one with its own, the same settings, are two keys."""
    adopted = ReleaseSettings(SettingsAt(Settings(), ".release-safety.toml at HEAD (v1 has none)"))
    own = ReleaseSettings(SettingsAt(Settings(), ".release-safety.toml at v1"))
    assert adopted.key() != own.key()
