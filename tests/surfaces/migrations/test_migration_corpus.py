"""The corpus (`corpus.py`) on PostgreSQL: the analysis is scored per flag against what the
server does, never says "not held / not rewritten / not scanned" where PostgreSQL does it, and
never judges safe a migration that breaks the previous release."""

from __future__ import annotations

import pytest
from corpus import CORPUS, Case
from pgprobe import FIXTURE_SQL, Measured, Probe

from release_safety.surfaces.migrations.engines.postgres.heaviness import FileAnalysis
from release_safety.surfaces.migrations.lint import analyse_text, findings_of, schema_of
from release_safety.surfaces.migrations.reading import Reading

FLAGS = ("locks", "rewrites", "scans")
_RESULTS: dict[str, tuple[Measured, FileAnalysis]] = {}


def _run(case: Case, probe: Probe) -> tuple[Measured, FileAnalysis]:
    if case.name not in _RESULTS:
        reading = Reading(postgres_version=probe.major)
        history = schema_of(FIXTURE_SQL, reading)
        static = analyse_text(case.sql, f"{case.name}.sql", "sql", reading, history=history)
        _RESULTS[case.name] = (probe.run(case.sql), static)
    return _RESULTS[case.name]


def test_corpus_names_are_unique_and_many() -> None:
    names = [case.name for case in CORPUS]
    assert len(names) == len(set(names))
    assert len(names) >= 100


@pytest.mark.parametrize("case", CORPUS, ids=[case.name for case in CORPUS])
def test_corpus_migration(case: Case, probe: Probe) -> None:
    measured, static = _run(case, probe)
    for flag in FLAGS:
        shown, said = getattr(measured, flag), getattr(static, flag)
        assert not (shown and said is False), f"{flag}: PostgreSQL does it, the analysis says not"
    findings = findings_of(static, f"{case.name}.sql")
    safe = not any(f.severity in ("breaking", "unknown") for f in findings)
    if case.breaks or measured.locks:
        assert not safe, "a migration that breaks the previous release is judged safe"


def test_corpus_score_per_flag(probe: Probe, capsys: pytest.CaptureFixture[str]) -> None:
    """At least 97 % exact per flag (`unknown` counts as a miss)."""
    exact = dict.fromkeys(FLAGS, 0)
    for case in CORPUS:
        measured, static = _run(case, probe)
        for flag in FLAGS:
            exact[flag] += getattr(static, flag) is getattr(measured, flag)
    score = {flag: exact[flag] / len(CORPUS) for flag in FLAGS}
    with capsys.disabled():
        shown = ", ".join(f"{flag} {score[flag]:.1%}" for flag in FLAGS)
        print(f"\ncorpus of {len(CORPUS)} migrations, exact per flag: {shown}")
    assert min(score.values()) >= 0.97, score
