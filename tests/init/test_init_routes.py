"""`init` on a service without an OpenAPI document writes `[rest] routes` from the frameworks
its dependency files name and the routes their readers read (Next.js app router, Express,
FastAPI), with what was read; only a service with no spec and no route gets the absent TODO.
The file, its TODO reasons filled in and committed, judges a route removal as breaking."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder
from release_safety.settings.model import RouteSource, load_settings

MakeRepo = Callable[[str], RepoBuilder]
REASONS = {
    "MCP server": "the service exposes no MCP server; agents use the REST API",
    "environment configuration": "all configuration comes from the database",
    "deployment descriptors": "operators run the binary from their own manifests",
    "REST API": "the service has no HTTP API; it is a queue worker",
    "database migrations": "the service keeps its state in files, not a database",
}
TODO = "TODO: write why the service has no {} (operators read this reason)"

NEXT = {
    "package.json": '{"dependencies": {"next": "14.2.3", "react": "18.3.1"}}\n',
    "next.config.js": "module.exports = { output: 'standalone' };\n",
    "src/app/page.tsx": "export default function Home() { return null; }\n",
    "src/app/api/websites/[websiteId]/route.ts": (
        "export async function GET() { return Response.json({}); }\n"
        "export async function DELETE() { return new Response(null); }\n"
    ),
    "src/app/api/(auth)/me/route.ts": "export async function GET() { return Response.json({}); }\n",
}
EXPRESS_APP = (
    "const express = require('express');\nconst users = require('./users');\n"
    "const app = express();\napp.use('/api/users', users);\n"
    "app.get('/health', (req, res) => res.send('ok'));\napp.listen(3000);\n"
)
EXPRESS_USERS = (
    "const { Router } = require('express');\nconst router = Router();\n"
    "router.get('/', list);\nrouter.delete('/:id', remove);\nmodule.exports = router;\n"
)
EXPRESS = {
    "server/package.json": '{"name": "svc", "dependencies": {"express": "^4.19.2"}}\n',
    "server/src/app.js": EXPRESS_APP,
    "server/src/users.js": EXPRESS_USERS,
}
FASTAPI_MAIN = (
    "from fastapi import FastAPI\n\nfrom app.routers import items\n\napp = FastAPI()\n"
    'app.include_router(items.router, prefix="/api/items")\n\n\n'
    '@app.get("/health")\ndef health(): ...\n'
)
FASTAPI_ITEMS = (
    "from fastapi import APIRouter\n\nrouter = APIRouter()\n\n\n"
    '@router.get("/{item_id}")\ndef get_item(item_id: int): ...\n\n\n'
    '@router.delete("/{item_id}")\ndef delete_item(item_id: int): ...\n'
)
FASTAPI = {
    "requirements.txt": "fastapi==0.110.0\nuvicorn==0.29.0\n",
    "app/__init__.py": "",
    "app/main.py": FASTAPI_MAIN,
    "app/routers/__init__.py": "",
    "app/routers/items.py": FASTAPI_ITEMS,
}


def _init(repo: RepoBuilder) -> str:
    assert run(["init", "--repo", str(repo.path)]) == 0
    return (repo.path / ".release-safety.toml").read_text()


def _rest_table(text: str) -> str:
    return text.split("\n[rest]\n", 1)[1].split("\n[", 1)[0]


def _adopt(repo: RepoBuilder) -> None:
    """The file init wrote, its TODO reasons filled in, committed."""
    text = (repo.path / ".release-safety.toml").read_text()
    for what, reason in REASONS.items():
        text = text.replace(TODO.format(what), reason)
    assert "TODO: " not in text, text
    repo.write(".release-safety.toml", text).commit("adopt release-safety")


def _judge(repo: RepoBuilder, tmp_path: Path, tag: str) -> tuple[object, list[str]]:
    """The verdict of `tag` and the rules of its findings that are not advisories."""
    out, evidence = tmp_path / "a.json", tmp_path / "e.json"
    args = ["generate", "--repo", str(repo.path), "--to", tag, "--out", str(out)]
    assert run([*args, "--evidence", str(evidence)]) == 0
    verdict = json.loads(out.read_text())["compatibility"]["rollingUpdateSafe"]
    found = json.loads(evidence.read_text())["findings"]
    return verdict, sorted(f["rule"] for f in found if f["severity"] != "advisory")


def _without(files: dict[str, str], path: str, route: str, instead: str = "") -> dict[str, str]:
    """The next release's change to `path`: one route taken out."""
    assert route in files[path]
    return {path: files[path].replace(route, instead)}


def test_a_next_js_app_router_service_gets_its_routes_not_absent(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("next")
    repo.release("1.0.0", NEXT)
    repo.release("1.1.0", {"src/app/api/share/route.ts": "export function POST() {}\n"})
    path = "src/app/api/websites/[websiteId]/route.ts"
    dropped = _without(NEXT, path, "export async function DELETE", "async function DELETE")
    repo.release("1.2.0", dropped)
    text = _init(repo)
    rest = _rest_table(text)
    assert "absent" not in rest
    assert "# no OpenAPI document (" in rest
    assert (
        "# **: nextjs: 3 route(s) in 3 file(s) (src/app/api/(auth)/me/route.ts, "
        "src/app/api/share/route.ts, src/app/api/websites/[websiteId]/route.ts)"
    ) in rest
    assert 'routes = [\n  { path = "**", framework = "nextjs" },\n]' in rest
    settings = load_settings(repo.path, None)
    assert settings.rest.routes == (RouteSource(framework="nextjs"),)
    _adopt(repo)
    verdict, rules = _judge(repo, tmp_path, "1.2.0")
    assert (verdict, rules) == (False, ["route-removed"])


def test_an_express_service_gets_its_folder_and_framework(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("express")
    repo.release("1.0.0", EXPRESS)
    path = "server/src/users.js"
    repo.release("1.1.0", _without(EXPRESS, path, "router.delete('/:id', remove);\n"))
    text = _init(repo)
    rest = _rest_table(text)
    assert "absent" not in rest
    assert (
        "# server/**: express: 2 route(s) in 2 file(s) (server/src/app.js, server/src/users.js)"
    ) in rest
    assert '{ path = "server/**", framework = "express" },' in rest
    _adopt(repo)
    verdict, rules = _judge(repo, tmp_path, "1.1.0")
    assert (verdict, rules) == (False, ["route-removed"])


def test_a_fastapi_service_gets_its_routes_and_an_added_route_stays_safe(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    repo = make_repo("fastapi")
    repo.release("1.0.0", FASTAPI)
    added = FASTAPI_ITEMS + '\n\n@router.post("/")\ndef create(): ...\n'
    repo.release("1.1.0", {"app/routers/items.py": added})
    text = _init(repo)
    rest = _rest_table(text)
    assert "absent" not in rest
    assert "# **: fastapi: 4 route(s) in 2 file(s) (app/main.py, app/routers/items.py)" in rest
    _adopt(repo)
    verdict, rules = _judge(repo, tmp_path, "1.1.0")
    assert (verdict, rules) == (True, [])


def test_folders_missing_at_a_recent_release_widen_to_one_entry_for_the_whole_repository(
    make_repo: MakeRepo,
) -> None:
    repo = make_repo("moved")
    repo.release("1.0.0", {p.removeprefix("server/"): t for p, t in EXPRESS.items()})
    for path in EXPRESS:
        repo.delete(path.removeprefix("server/"))
    hooks = {
        "hooks/package.json": '{"name": "hooks", "dependencies": {"express": "^4.19.2"}}\n',
        "hooks/src/main.js": (
            "const express = require('express');\nconst app = express();\n"
            "app.post('/hooks/github', receive);\napp.listen(3001);\n"
        ),
    }
    repo.release("1.1.0", {**EXPRESS, **hooks})
    rest = _rest_table(_init(repo))
    assert 'routes = [\n  { path = "**", framework = "express" },\n]' in rest
    assert "# **: express: 4 route(s) in 3 file(s)" in rest


def test_a_service_with_no_http_api_still_gets_the_absent_todo(make_repo: MakeRepo) -> None:
    repo = make_repo("worker")
    worker = "from celery import Celery\n\napp = Celery('w')\n\n\n@app.task\ndef ping(): ...\n"
    client = "import httpx\n\n\ndef fetch():\n    return httpx.get('https://example.com/api')\n"
    files = {"requirements.txt": "celery==5.3.0\nhttpx==0.27\n", "worker/tasks.py": worker}
    repo.release("1.0.0", {**files, "worker/client.py": client})
    rest = _rest_table(_init(repo))
    assert "routes" not in rest.replace("no route the code registers", "")
    assert "and no route the code registers. Replace the TODO" in rest
    assert f'absent = "{TODO.format("REST API")}"' in rest


def test_a_framework_the_project_has_left_still_reads_the_releases_it_served(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    """Express until 1.1.0, FastAPI since 2.0.0: init recognises the frameworks of the releases
    it judges, not HEAD's only, so 1.1.0's removed Express route is found (with FastAPI's
    reader alone, 1.1.0 reads no route at all); the rewrite's own release is judged too."""
    repo = make_repo("rewritten")
    repo.release("1.0.0", EXPRESS)
    path = "server/src/users.js"
    repo.release("1.1.0", _without(EXPRESS, path, "router.delete('/:id', remove);\n"))
    for gone in EXPRESS:
        repo.delete(gone)
    repo.release("2.0.0", FASTAPI)
    rest = _rest_table(_init(repo))
    assert (
        "# **: express: 2 route(s) in 2 file(s) (server/src/app.js, server/src/users.js)"
        ", at 1.1.0 (not at HEAD)"
    ) in rest
    assert (  # server/ is gone at 2.0.0: the source is widened to hold there
        'routes = [\n  { path = "**", framework = "fastapi" },\n'
        '  { path = "**", framework = "express" },\n]'
    ) in rest
    _adopt(repo)
    assert _judge(repo, tmp_path, "1.1.0") == (False, ["route-removed"])
