"""Every unknown says how to resolve it, for its surface and its case: the settings key and a
value to write, the acknowledgement, or the change to make to the file it names."""

from __future__ import annotations

import re
from collections.abc import Callable

from release_safety.contract.finding import Finding
from release_safety.contract.reports import RULES
from release_safety.git.repository import GitSnapshot
from release_safety.release.generate import run_surfaces
from release_safety.release.verdict import decide
from release_safety.settings.model import Settings, parse_settings

Pair = Callable[[dict[str, str | None], dict[str, str | None]], tuple[GitSnapshot, GitSnapshot]]

GO = 'package main\n\nimport "os"\n\nfunc main() { _ = os.Getenv("PORT") }\n'
SPEC = (
    '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": '
    '{"responses": {"200": {"description": "ok"}}}}}}'
)
SECTIONS = ("migrations", "rest", "mcp", "config", "deployment", "declarations", "overrides")
SETTINGS_KEY = re.compile(r"\[\[?([a-z]+)(?:\.[a-z]+)?\]\]? [a-z_]+")
ACKNOWLEDGE = re.compile(r"acknowledge\([a-z-]+\)")
CHANGE = re.compile(r"\b(?:Restore|Write|Correct|Fix|Read|Point|Pin|Name|Generate|Make|Put|Say)\b")


def _unknowns(
    pair: Pair, old: dict[str, str | None], new: dict[str, str | None], toml: str = ""
) -> list[Finding]:
    before, after = pair(old, new)
    settings = parse_settings(toml, ".release-safety.toml") if toml else Settings()
    assert settings is not None
    reports = run_surfaces(before, after, settings, "1.0.1", catch_input=True)
    return [f for f in decide(reports).reasons if f.severity == "unknown"]


def _assert_way_out(finding: Finding) -> None:
    """The hint is a settings key of the finding's own surface, an acknowledgement or a
    concrete change; never the rule's catalogue text when the catalogue names a case."""
    hint = finding.hint or ""
    keys = {m.group(1) for m in SETTINGS_KEY.finditer(hint)}
    assert keys or ACKNOWLEDGE.search(hint) or CHANGE.search(hint), finding
    others = keys - {finding.surface}
    assert not others & set(SECTIONS), (finding.rule, finding.surface, hint)


def test_a_go_service_without_mcp_is_told_to_declare_mcp_absent(release_pair: Pair) -> None:
    files: dict[str, str | None] = {"main.go": GO, "api/openapi.json": SPEC}
    unknowns = _unknowns(release_pair, files, {**files, "main.go": GO + "// v2\n"})
    by_surface = {f.surface: f for f in unknowns if f.rule == "surface-not-checked"}
    mcp = by_surface["mcp"].hint or ""
    assert '[mcp] absent = "<why this service has no MCP server>"' in mcp
    assert "[mcp] snapshots" in mcp and "parses" not in mcp
    assert '[deployment] absent = "<why' in (by_surface["deployment"].hint or "")
    for finding in unknowns:
        _assert_way_out(finding)


def test_the_rest_declared_absent_finding_speaks_of_rest(release_pair: Pair) -> None:
    toml = '[rest]\nabsent = "the service serves no HTTP API, only a CLI"\n'
    files: dict[str, str | None] = {"main.go": GO, ".release-safety.toml": toml}
    before, after = release_pair(files, files)
    settings = parse_settings(toml, ".release-safety.toml")
    assert settings is not None
    reports = run_surfaces(before, after, settings, "1.0.1")
    rest = next(r for r in reports if r.surface == "rest")
    declared = next(f for f in rest.findings if f.rule == "surface-declared-absent")
    assert "[rest] absent" in (declared.hint or "") and "[mcp]" not in (declared.hint or "")


def test_an_unreadable_document_names_the_file_and_the_parse_error(release_pair: Pair) -> None:
    files: dict[str, str | None] = {"api/openapi.json": SPEC}
    unknowns = _unknowns(release_pair, files, {"api/openapi.json": SPEC[:40]})
    rest = next(f for f in unknowns if f.surface == "rest")
    assert rest.file == "api/openapi.json"
    assert (rest.hint or "").startswith("Fix api/openapi.json so it reads (")
    assert "absent" not in (rest.hint or "")


def test_every_unknown_of_the_cases_carries_a_way_out(release_pair: Pair) -> None:
    """A corpus of releases that leave a surface unknown, each finding's hint checked; the
    corpus fires the rules listed, so a rule that stops firing is noticed."""
    toml = (
        '[rest]\nspecs = ["api/opnapi.json"]\n'
        '[mcp]\nabsent = "the service runs no MCP server for agents"\n'
    )
    cases: list[tuple[dict[str, str | None], dict[str, str | None], str]] = [
        ({"main.go": GO}, {"main.go": GO + "//\n"}, ""),
        ({"api/openapi.json": SPEC}, {"api/openapi.json": "{"}, ""),
        ({"api/openapi.json": SPEC}, {"api/openapi.json": None}, ""),
        ({"a/openapi.json": SPEC}, {"a/openapi.json": SPEC, "b/openapi.json": SPEC}, ""),
        ({"api/openapi.json": SPEC}, {"api/openapi.json": SPEC, "mcp-tools.json": "[]"}, toml),
        (
            {"db/migrations/001_a.sql": "CREATE TABLE t (id int);"},
            {"db/migrations/001_a.sql": "CREATE TABLE t (id bigint);"},
            "",
        ),
        (
            {"db/migrations/001_a.sql": "CREATE TABLE t (id int);"},
            {"db/migrations/001_a.sql": None, "db/migrations/002_b.sql": "SELECT 1;"},
            "",
        ),
        (
            {"compose.yaml": "services:\n  db:\n    image: postgres:15\n"},
            {"compose.yaml": "services:\n  db:\n    image: postgres:latest\n"},
            "",
        ),
    ]
    registry = "release-safety.declarations.json"
    reason = "Drops users.legacy_id; releases before 1.4 still read it."
    declared = f'{{"declarations": {{"drop-legacy": {{"reason": "{reason}"}}}}}}'
    edited = declared.replace("1.4", "1.5")
    cases += [
        ({registry: declared}, {registry: '{"declarations": {}}'}, ""),
        ({registry: declared}, {registry: edited}, ""),
        ({registry: declared}, {registry: '{"declarations": ['}, ""),
    ]
    fired: set[str] = set()
    for old, new, settings in cases:
        for finding in _unknowns(release_pair, old, new, settings):
            _assert_way_out(finding)
            assert finding.hint != RULES[finding.rule].safe or not RULES[finding.rule].unsafe
            fired.add(finding.rule)
    registered = {r.id for r in RULES.values() if r.severity == "unknown"}
    expected = {
        "surface-not-checked",
        "settings-path-unmatched",
        "discovery-ambiguous",
        "absent-contradicted",
        "shipped-migration-edited",
        "shipped-migration-deleted",
        "deployment-stateful-version-unreadable",
        "declaration-id-removed",
        "declaration-id-edited",
        "declaration-registry-malformed",
    }
    assert expected <= fired <= registered, fired
