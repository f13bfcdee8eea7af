"""Annotation comments between two tagged releases: counted once, malformed and hollow flagged."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from declaration_repos import PairBuilder

from release_safety.contract.model import DeclaredBreak
from release_safety.git.snapshot import MemorySnapshot
from release_safety.release.verdict import decide
from release_safety.settings.model import DeclarationSettings, Settings
from release_safety.surfaces import annotations, declarations
from release_safety.surfaces.comments import syntax_for

REASON = "drops users.legacy_id after the two-release deprecation"
MIGRATION = "db/migrations/20250110120000_drop_legacy.sql"
DROP_SQL = (
    f"-- release-safety: breaking(required-stop) {REASON}\n"
    "ALTER TABLE users DROP COLUMN legacy_id;\n"
)


def test_a_new_annotation_is_a_declared_break_with_file_line_and_stop(
    release_pair: PairBuilder,
) -> None:
    pair = release_pair({}, {MIGRATION: "BEGIN;\n" + DROP_SQL + "COMMIT;\n"})
    report = pair.analyse()
    assert report.checked
    assert report.declared == [
        DeclaredBreak(file=MIGRATION, line=2, reason=REASON, requiredStop=True)
    ]
    [finding] = report.findings
    assert (finding.rule, finding.severity, finding.file, finding.line, finding.message) == (
        "declared-break",
        "breaking",
        MIGRATION,
        2,
        REASON,
    )


def test_an_annotation_without_options_asks_for_no_stop(release_pair: PairBuilder) -> None:
    text = "# release-safety: breaking removes the FOO_MODE variable read by old workers\n"
    report = release_pair({}, {"app/settings.py": text}).analyse()
    assert [(d.line, d.requiredStop) for d in report.declared] == [(1, False)]


def test_an_annotation_present_at_the_old_ref_is_not_counted_again(
    release_pair: PairBuilder,
) -> None:
    pair = release_pair({MIGRATION: DROP_SQL}, {MIGRATION: "-- reformatted\n\n" + DROP_SQL})
    report = pair.analyse()
    assert report.declared == []
    assert report.findings == []


def test_an_annotation_in_an_unchanged_file_is_not_counted(release_pair: PairBuilder) -> None:
    pair = release_pair({MIGRATION: DROP_SQL}, {"app/other.py": "x = 1\n"})
    assert pair.analyse().declared == []


def test_an_annotation_moved_to_another_file_is_not_counted(release_pair: PairBuilder) -> None:
    moved = "db/migrations/archive/20250110120000_drop_legacy.sql"
    pair = release_pair({MIGRATION: DROP_SQL}, move=[(MIGRATION, moved)])
    assert pair.analyse().declared == []


def test_a_second_identical_annotation_is_new(release_pair: PairBuilder) -> None:
    pair = release_pair({MIGRATION: DROP_SQL}, {MIGRATION: DROP_SQL + "\n" + DROP_SQL})
    assert [d.line for d in pair.analyse().declared] == [4]


def test_an_edited_reason_counts_as_a_new_declaration(release_pair: PairBuilder) -> None:
    edited = DROP_SQL.replace("two-release", "three-release")
    pair = release_pair({MIGRATION: DROP_SQL}, {MIGRATION: edited})
    assert [d.reason for d in pair.analyse().declared] == [REASON.replace("two", "three")]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("-- release-safety: braking drops the legacy_id column for old workers\n", "braking"),
        ("-- release-safety: breaking(stop) drops the legacy_id column for old workers\n", "stop"),
        ("-- release-safety: breaking(required-stop drops the column for workers\n", "not closed"),
        ("-- release-safety: breaking\n", "reason is missing"),
        ("-- Release-Safety: breaking drops the legacy_id column for workers\n", "marker"),
        ("-- release_safety: breaking drops the legacy_id column for workers\n", "marker"),
        ("-- release-safety:breaking drops the legacy_id column for workers\n", "space after"),
        ("-- release-safety: breaking(required-stop)drops the column for workers\n", "space"),
    ],
)
def test_a_malformed_annotation_is_an_unknown_finding_with_file_and_line(
    release_pair: PairBuilder, text: str, problem: str
) -> None:
    report = release_pair({}, {MIGRATION: "SELECT 1;\n" + text}).analyse()
    assert report.declared == []
    [finding] = report.findings
    assert (finding.rule, finding.severity, finding.file, finding.line) == (
        "declaration-malformed",
        "unknown",
        MIGRATION,
        2,
    )
    assert problem in finding.message


def test_a_malformed_annotation_already_released_is_not_reported_again(
    release_pair: PairBuilder,
) -> None:
    bad = "-- release-safety: braking drops the legacy_id column for old workers\n"
    report = release_pair({MIGRATION: bad}, {MIGRATION: bad + "SELECT 1;\n"}).analyse()
    assert report.findings == []


@pytest.mark.parametrize(
    "reason",
    [
        "todo",
        "TBD",
        "breaking change",
        "n/a",
        "This is a breaking change",
        "Breaking change, see PR #1234 for the details",
        "TODO: write down what breaks and for whom",
        "<operator-facing reason> goes in this place",
        "supercalifragilisticexpialidocious-break",
    ],
)
def test_a_hollow_reason_is_declared_and_flagged_unknown(
    release_pair: PairBuilder, reason: str
) -> None:
    text = f"// release-safety: breaking(required-stop) {reason}\nexport const x = 1;\n"
    report = release_pair({}, {"src/api.ts": text}).analyse()
    assert [(d.reason, d.requiredStop) for d in report.declared] == [(reason, True)]
    hollow = [f for f in report.findings if f.rule == "declaration-hollow-reason"]
    assert [(f.severity, f.file, f.line) for f in hollow] == [("unknown", "src/api.ts", 1)]


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("db/m.sql", f"SELECT 1; -- release-safety: breaking {REASON}\n", 1),
        ("db/m.sql", f"/*\n  release-safety: breaking {REASON}\n*/\n", 2),
        ("app/m.py", f"x = 1\n# release-safety: breaking {REASON}\n", 2),
        ("src/m.ts", f"call(); // release-safety: breaking {REASON}\n", 1),
        ("src/m.go", f"/**\n * release-safety: breaking {REASON}\n */\n", 2),
        ("src/m.rs", f"fn f<'a>(x: &'a str) {{}} /// release-safety: breaking {REASON}\n", 1),
        ("docs/m.md", f"# Title\n\n<!-- release-safety: breaking {REASON} -->\n", 3),
        ("chart/values.yaml", f"image: x  # release-safety: breaking {REASON}\n", 1),
        ("chart/values.yaml", f"note: don't  # release-safety: breaking {REASON}\n", 1),
        ("scripts/m.lua", f"--[[ release-safety: breaking {REASON} ]]\n", 1),
        ("Dockerfile", f"FROM x\n# release-safety: breaking {REASON}\n", 2),
        ("src/m.hs", f"{{- release-safety: breaking {REASON} -}}\n", 1),
        ("conf/app.ini", f"; release-safety: breaking {REASON}\n", 1),
        ("src/App.vue", f"<template>\n<!-- release-safety: breaking {REASON} -->\n", 2),
        ("notes.unknownext", f"text\n  # release-safety: breaking {REASON}\n", 2),
    ],
)
def test_every_comment_syntax_declares(
    release_pair: PairBuilder, path: str, text: str, line: int
) -> None:
    report = release_pair({}, {path: text}).analyse()
    assert [(d.file, d.line, d.reason) for d in report.declared] == [(path, line, REASON)]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("src/m.ts", f'const s = "// release-safety: breaking {REASON}";\n'),
        ("app/m.py", f'doc = """\n# release-safety: breaking {REASON}\n"""\n'),
        ("db/m.sql", f"SELECT '-- release-safety: breaking {REASON}';\n"),
        ("docs/m.md", f"```sql\n-- release-safety: breaking {REASON}\n```\n"),
        ("docs/m.md", f"```html\n<!-- release-safety: breaking {REASON} -->\n```\n"),
        ("docs/m.md", f"Write `<!-- release-safety: breaking {REASON} -->` above it.\n"),
        ("scripts/run.sh", f"echo a#release-safety: breaking {REASON}\n"),
        ("src/m.ts", f"// see the release-safety: breaking docs about {REASON}\n"),
    ],
)
def test_marker_outside_a_comment_or_not_opening_it_is_ignored(
    release_pair: PairBuilder, path: str, text: str
) -> None:
    report = release_pair({}, {path: text}).analyse()
    assert report.declared == [] and report.findings == []


def test_continuation_lines_extend_the_reason(release_pair: PairBuilder) -> None:
    text = (
        "-- release-safety: breaking(required-stop) drops users.legacy_id\n"
        "--   after the two-release deprecation\n"
        "-- Drop it now.\n"
        "/**\n"
        " * release-safety: breaking removes the v1 export endpoint\n"
        " * used by the old command-line client\n"
        " * @deprecated since 1.0\n"
        " */\n"
    )
    report = release_pair({}, {"db/m.sql": text}).analyse()
    assert [(d.line, d.reason) for d in report.declared] == [
        (1, REASON),
        (5, "removes the v1 export endpoint used by the old command-line client"),
    ]


def test_binary_files_are_skipped(release_pair: PairBuilder) -> None:
    data = b"\x00\x01-- release-safety: breaking " + REASON.encode() + b"\n"
    report = release_pair({}, {"assets/blob.sql": data}).analyse()
    assert report.declared == [] and report.findings == []


def test_annotations_can_be_turned_off(release_pair: PairBuilder) -> None:
    settings = Settings(declarations=DeclarationSettings(annotations=False))
    report = release_pair({}, {MIGRATION: DROP_SQL}).analyse(settings)
    assert report.declared == []


def test_first_release_counts_every_annotation() -> None:
    new = MemorySnapshot({MIGRATION: DROP_SQL, "README.md": "hello\n"})
    report = declarations.analyse(None, new, Settings())
    assert [d.file for d in report.declared] == [MIGRATION]


class CountingSnapshot(MemorySnapshot):
    """A memory snapshot that counts how often each path is read."""

    def __init__(self, files: dict[str, str | bytes]) -> None:
        super().__init__(files)
        self.reads: dict[str, int] = {}

    def read(self, path: str) -> bytes:
        self.reads[path] = self.reads.get(path, 0) + 1
        return super().read(path)

    def read_each(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        return ((path, self.read(path)) for path in paths)


def test_a_blob_is_scanned_once_across_runs() -> None:
    unique = f"-- release-safety: breaking {REASON} (memo case)\n"
    old = MemorySnapshot({})
    new = CountingSnapshot({"a.sql": unique, "b.sql": unique})
    first = declarations.analyse(old, new, Settings())
    second = declarations.analyse(old, new, Settings())
    assert first == second and len(first.declared) == 2
    assert sum(new.reads.values()) == 1


def test_scan_finds_nothing_without_the_marker_text() -> None:
    assert annotations.scan(b"-- nothing to see\n", syntax_for("a.sql")) == ()


def test_the_verdict_is_false_for_a_declared_break_and_unknown_for_a_malformed_one(
    release_pair: PairBuilder,
) -> None:
    declared = release_pair({}, {MIGRATION: DROP_SQL}).analyse()
    assert decide([declared]).rolling_update_safe is False
    bad = "-- release-safety: breaking(stop) drops the legacy_id column for old workers\n"
    malformed = release_pair({}, {MIGRATION: bad}).analyse()
    assert decide([malformed]).rolling_update_safe == "unknown"
    nothing = release_pair({}, {MIGRATION: "SELECT 1;\n"}).analyse()
    assert nothing.checked and nothing.findings == [] and nothing.declared == []
