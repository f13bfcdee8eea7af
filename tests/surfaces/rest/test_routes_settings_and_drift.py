"""`[rest] routes` settings, discovery without a spec, and the spec drift the routes show."""

from __future__ import annotations

import json

from routes_pairs import Pair, judge, rules

APP = "import express from 'express';\nconst app = express();\napp.get('/api/pets', list);\n"
SPEC = json.dumps(
    {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://example.com/api"}],
        "paths": {
            "/pets": {"get": {"responses": {"200": {"description": "ok"}}}},
            "/owners": {"get": {"responses": {"200": {"description": "ok"}}}},
        },
    }
)


def test_with_a_spec_the_routes_show_drift_as_advisories_and_the_spec_stays_the_contract(
    release_pair: Pair,
) -> None:
    old = {"src/app.ts": APP, "openapi.json": SPEC}
    new = {"src/app.ts": APP + "app.post('/api/pets', create);\napp.get('/api/pets', list);\n"}
    report = judge(release_pair, old, new)
    drift = sorted((f.severity, f.file, f.message) for f in report.findings)
    assert drift == [
        (
            "advisory",
            "openapi.json",
            "GET /owners is described in openapi.json but no route the code registers serves it",
        ),
        (
            "advisory",
            "src/app.ts",
            "POST /api/pets is served by the code but not described in openapi.json",
        ),
    ]
    removed = judge(release_pair, old, {"src/app.ts": APP.replace("/api/pets", "/api/cats")})
    assert "route-removed" not in rules(removed)


def test_a_spec_with_no_drift_is_quiet(release_pair: Pair) -> None:
    both = APP + "app.get('/api/owners', owners);\n"
    report = judge(release_pair, {"src/app.ts": both, "openapi.json": SPEC}, {"README.md": "x\n"})
    assert report.checked and rules(report) == []


def test_a_route_source_that_matches_nothing_is_a_settings_error(release_pair: Pair) -> None:
    toml = '[rest]\nroutes = ["srv/**"]\n'
    report = judge(release_pair, {"src/app.ts": APP}, {"README.md": "y\n"}, toml)
    assert not report.checked
    assert rules(report) == ["settings-path-unmatched"]


def test_a_framework_named_in_the_settings_reads_only_that_framework(release_pair: Pair) -> None:
    go = 'package main\n\nfunc main() {\n\thttp.HandleFunc("GET /go", h)\n}\n'
    toml = '[rest]\nroutes = [{path = "src/**", framework = "express", prefix = "/v1"}]\n'
    report = judge(release_pair, {"src/app.ts": APP, "main.go": go}, {"main.go": None}, toml)
    assert report.checked and rules(report) == []
    assert list(report.coverage.understood) == ["GET /v1/api/pets"]


def test_no_spec_and_no_route_is_still_not_checked(release_pair: Pair) -> None:
    report = judge(release_pair, {"main.py": "print(1)\n"}, {"main.py": "print(2)\n"})
    assert not report.checked
    assert (report.reason or "").startswith("no document found")


def test_init_recognises_the_frameworks_from_the_dependencies() -> None:
    from release_safety.git.snapshot import MemorySnapshot
    from release_safety.surfaces.rest.routes.recognise import recognise

    snapshot = MemorySnapshot(
        {
            "web/package.json": '{"dependencies": {"next": "14.2.0", "react": "18"}}',
            "api/go.mod": "module x\n\nrequire github.com/go-chi/chi/v5 v5.0.0\n",
            "node_modules/express/package.json": '{"name": "express"}',
            "package.json": '{"devDependencies": {"nextra": "1"}}',
        }
    )
    assert [s.describe() for s in recognise(snapshot)] == [
        "{path='api/**', framework='chi'}",
        "{path='web/**', framework='nextjs'}",
    ]


def test_narrowing_the_route_sources_is_a_settings_finding() -> None:
    from release_safety.git.snapshot import MemorySnapshot
    from release_safety.settings.atref import SettingsAt
    from release_safety.settings.model import parse_settings
    from release_safety.surfaces.settingsdiff import diff_settings

    files = {"api/app.ts": APP, "web/app/api/a/route.ts": "export function GET() {}\n"}
    refs = [MemorySnapshot(files, ref="v1"), MemorySnapshot(files, ref="v2")]

    def at(text: str) -> SettingsAt:
        return SettingsAt(parse_settings(text, "x.toml"), "test", text)

    narrowed = diff_settings(at(""), at('[rest]\nroutes = ["api/**"]\n'), refs)
    assert [(f.rule, f.severity) for f in narrowed] == [("settings-narrowed", "unknown")]
    assert "web/app/api/a/route.ts" in narrowed[0].message
    more = '[rest]\nroutes = ["api/**", "web/**"]\n'
    wider = diff_settings(at('[rest]\nroutes = ["api/**"]\n'), at(more), refs)
    assert [f.rule for f in wider] == ["settings-changed"]


def test_every_route_gone_at_once_is_not_checked_rather_than_breaking(release_pair: Pair) -> None:
    elysia = "import { Elysia } from 'elysia';\nnew Elysia().get('/api/pets', list).listen(3000);\n"
    report = judge(release_pair, {"src/app.ts": APP}, {"src/app.ts": elysia})
    assert not report.checked and rules(report) == ["surface-not-checked"]
    assert "no route read at v1.0.1, where v1.0.0 has 1" in (report.reason or "")
    assert "[rest] routes" in (report.findings[0].hint or "")


def test_the_drift_is_kept_and_made_again_when_the_routes_or_the_document_change() -> None:
    """A backfill asks the drift of the same routes and document release after release: the
    answer is kept, and a changed route, operation or server is judged again, not answered
    from what was kept."""
    from release_safety.surfaces.rest.routes.judge import spec_drift
    from release_safety.surfaces.rest.routes.model import Route

    routes = [Route("GET", "/api/pets", "src/app.ts", 3)]
    operations = [("get", "/pets")]
    servers = ["https://example.com/api"]
    assert spec_drift(routes, operations, servers, "openapi.json") == []
    assert spec_drift(routes, iter(operations), servers, "openapi.json") == []
    added = [*routes, Route("POST", "/api/pets", "src/app.ts", 4)]
    assert [f.message for f in spec_drift(added, operations, servers, "openapi.json")] == [
        "POST /api/pets is served by the code but not described in openapi.json"
    ]
    more = [*operations, ("get", "/owners")]
    assert [f.message for f in spec_drift(routes, more, servers, "openapi.json")] == [
        "GET /owners is described in openapi.json but no route the code registers serves it"
    ]
    moved = spec_drift(routes, operations, ["https://example.com/v2"], "openapi.json")
    assert len(moved) == 2
    assert spec_drift(routes, operations, servers, "openapi.json") == []
