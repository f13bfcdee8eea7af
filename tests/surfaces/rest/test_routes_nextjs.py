"""Next.js pages and app routers read as the REST surface of a service without a spec."""

from __future__ import annotations

from routes_pairs import Pair, judge, removed, rules

CONFIG = {
    "next.config.js": "module.exports = {}\n",
    "package.json": '{"dependencies": {"next": "14"}}',
}
HANDLER = "export default function handler(req, res) { res.json({}) }\n"
ROUTE = "export async function GET(req: Request) {\n  return Response.json({})\n}\n"
GET_POST = ROUTE + "export const POST = async (req: Request) => Response.json({})\n"


def test_a_move_from_pages_to_app_router_that_drops_one_route_finds_exactly_that_one(
    release_pair: Pair,
) -> None:
    old = {
        **CONFIG,
        "pages/api/websites/[id].ts": HANDLER,
        "pages/api/websites/index.ts": HANDLER,
        "pages/api/me.ts": HANDLER,
    }
    new = {
        "pages/api/websites/[id].ts": None,
        "pages/api/websites/index.ts": None,
        "pages/api/me.ts": None,
        "src/app/api/websites/[websiteId]/route.ts": GET_POST,
        "src/app/(auth)/api/websites/route.ts": ROUTE,
    }
    report = judge(release_pair, old, new)
    assert report.checked
    assert removed(report) == ["ANY /api/me"]
    finding = next(f for f in report.findings if f.rule == "route-removed")
    assert (finding.severity, finding.file, finding.line) == ("breaking", "pages/api/me.ts", 1)
    assert "expected at src/app/api/me/route.ts" in finding.message
    assert report.coverage.understood["GET /api/websites/[websiteId]"].startswith("src/app/")


def test_a_method_removed_from_an_app_route_is_breaking_and_one_added_is_quiet(
    release_pair: Pair,
) -> None:
    path = "app/api/items/[id]/route.ts"
    report = judge(release_pair, {**CONFIG, path: GET_POST}, {path: ROUTE})
    assert removed(report) == ["POST /api/items/[id]"]
    quiet = judge(release_pair, {**CONFIG, path: ROUTE}, {path: GET_POST})
    assert quiet.checked and rules(quiet) == []


def test_a_renamed_parameter_or_a_moved_route_group_is_nothing(release_pair: Pair) -> None:
    old = {**CONFIG, "app/api/w/[id]/route.ts": ROUTE}
    new = {"app/api/w/[id]/route.ts": None, "app/(v2)/api/w/[websiteId]/route.ts": ROUTE}
    report = judge(release_pair, old, new)
    assert report.checked and rules(report) == []


def test_a_catch_all_and_private_folders(release_pair: Pair) -> None:
    old = {
        **CONFIG,
        "app/api/auth/[...nextauth]/route.ts": GET_POST,
        "app/api/_lib/route.ts": ROUTE,
    }
    new = {"app/api/auth/[...nextauth]/route.ts": ROUTE, "app/api/_lib/route.ts": None}
    assert removed(judge(release_pair, old, new)) == ["POST /api/auth/[...nextauth]"]


def test_an_export_star_in_a_touched_route_file_is_unknown_and_quiet_when_untouched(
    release_pair: Pair,
) -> None:
    star = 'export * from "../../../lib/handlers"\n'
    old = {**CONFIG, "app/api/x/route.ts": ROUTE, "app/api/y/route.ts": star}
    report = judge(release_pair, old, {"app/api/y/route.ts": star + "// touched\n"})
    dynamic = [f for f in report.findings if f.rule == "route-registration-dynamic"]
    assert [(f.severity, f.file, f.line) for f in dynamic] == [("unknown", "app/api/y/route.ts", 1)]
    assert (dynamic[0].hint or "").startswith("Write the exports of app/api/y/route.ts by name")
    untouched = judge(release_pair, old, {"app/api/x/route.ts": ROUTE + "// touched\n"})
    assert rules(untouched) == []
    assert untouched.coverage.unmodelled[0].file == "app/api/y/route.ts"


def test_a_base_path_from_the_settings_prefixes_every_route(release_pair: Pair) -> None:
    toml = '[rest]\nroutes = [{path = "web", framework = "nextjs", prefix = "/console"}]\n'
    old = {
        "web/next.config.mjs": "export default {}\n",
        "web/app/api/a/route.ts": ROUTE,
        "web/app/api/b/route.ts": ROUTE,
    }
    report = judge(release_pair, old, {"web/app/api/a/route.ts": None}, toml)
    assert removed(report) == ["GET /console/api/a"]
