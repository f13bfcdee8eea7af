"""Express, Fastify, Hono and Koa routes read from code: mounts across files, prefixes, gaps."""

from __future__ import annotations

from routes_pairs import Pair, judge, removed, rules

APP = """import express from 'express';
import users from './routes/users';
const app = express();
app.use('/api', users);
app.get('/health', (req, res) => res.send('ok'));
export default app;
"""
USERS = """import { Router } from 'express';
const router = Router();
router.get('/users/:id', getUser);
router.route('/users').get(listUsers).post(createUser);
export default router;
"""


def test_a_route_of_a_router_mounted_from_another_file_removed_is_breaking(
    release_pair: Pair,
) -> None:
    old = {"src/app.ts": APP, "src/routes/users.ts": USERS}
    new = {"src/routes/users.ts": USERS.replace("router.get('/users/:id', getUser);\n", "")}
    report = judge(release_pair, old, new)
    assert removed(report) == ["GET /api/users/:id"]
    finding = next(f for f in report.findings if f.rule == "route-removed")
    assert (finding.file, finding.line) == ("src/routes/users.ts", 3)
    assert "beside GET /api/users in src/routes/users.ts:3" in finding.message


def test_a_changed_mount_prefix_removes_every_route_under_it(release_pair: Pair) -> None:
    report = judge(
        release_pair,
        {"src/app.ts": APP, "src/routes/users.ts": USERS},
        {"src/app.ts": APP.replace("'/api'", "'/api/v2'")},
    )
    assert removed(report) == ["GET /api/users", "GET /api/users/:id", "POST /api/users"]


def test_routes_moved_between_files_with_renamed_parameters_are_nothing(
    release_pair: Pair,
) -> None:
    inline = APP.replace(
        "app.use('/api', users);",
        "app.get('/api/users/:userId', h);\napp.get('/api/users', h);\napp.post('/api/users', h);",
    )
    report = judge(
        release_pair,
        {"src/app.ts": APP, "src/routes/users.ts": USERS},
        {"src/app.ts": inline, "src/routes/users.ts": None},
    )
    assert report.checked and rules(report) == []


def test_an_added_route_is_quiet_and_a_client_call_is_no_route(release_pair: Pair) -> None:
    client = "import axios from 'axios';\nconst api = axios.create();\napi.get('/users');\n"
    old = {"src/app.ts": APP, "src/routes/users.ts": USERS, "src/client.ts": client}
    report = judge(release_pair, old, {"src/app.ts": APP + "app.delete('/x', h);\n"})
    assert report.checked and rules(report) == []
    assert "GET /users" not in report.coverage.understood
    assert "DELETE /x" in report.coverage.understood


def test_routes_from_a_loop_in_a_touched_file_are_unknown(release_pair: Pair) -> None:
    looped = APP + "for (const r of table) {\n  app.get(r.path, r.handler);\n}\n"
    report = judge(release_pair, {"src/app.ts": APP}, {"src/app.ts": looped})
    dynamic = [f for f in report.findings if f.rule == "route-registration-dynamic"]
    assert [(f.severity, f.file, f.line) for f in dynamic] == [("unknown", "src/app.ts", 8)]
    assert "routes from a loop" in dynamic[0].message
    assert (dynamic[0].hint or "").startswith("Write each route with a literal path")


FASTIFY = """import Fastify from 'fastify';
import items from './items';
const app = Fastify();
app.register(items, { prefix: '/v1' });
app.route({ method: ['GET', 'HEAD'], url: '/status', handler });
"""
PLUGIN = """import { FastifyInstance } from 'fastify';
export default async function items(app: FastifyInstance) {
  app.get('/items/:id', getItem);
  app.delete('/items/:id', deleteItem);
}
"""


def test_fastify_plugins_registered_under_a_prefix(release_pair: Pair) -> None:
    report = judge(
        release_pair,
        {"srv/main.ts": FASTIFY, "srv/items.ts": PLUGIN},
        {"srv/items.ts": PLUGIN.replace("  app.delete('/items/:id', deleteItem);\n", "")},
    )
    assert removed(report) == ["DELETE /v1/items/:id"]
    assert "HEAD /status" in report.coverage.understood


def test_hono_base_path_and_sub_apps(release_pair: Pair) -> None:
    hono = (
        "import { Hono } from 'hono';\nconst app = new Hono().basePath('/api');\n"
        "const books = new Hono();\nbooks.get('/', list).post('/', create);\n"
        "app.route('/books', books);\n"
    )
    report = judge(
        release_pair,
        {"src/index.ts": hono},
        {"src/index.ts": hono.replace(".post('/', create)", "")},
    )
    assert removed(report) == ["POST /api/books"]


def test_koa_router_prefix(release_pair: Pair) -> None:
    koa = (
        "import Koa from 'koa';\nimport Router from '@koa/router';\nconst app = new Koa();\n"
        "const router = new Router({ prefix: '/k' });\nrouter.get('/a', h);\nrouter.put('/a', h);\n"
        "app.use(router.routes());\n"
    )
    report = judge(
        release_pair, {"app.js": koa}, {"app.js": koa.replace("router.put('/a', h);\n", "")}
    )
    assert removed(report) == ["PUT /k/a"]


def test_a_configured_base_path_in_a_template_is_the_literal(release_pair: Pair) -> None:
    based = APP.replace("'/health'", "`${process.env.BASE}/health`").replace(
        "app.get(`${process.env.BASE}", "const base = process.env.BASE;\napp.get(`${base}"
    )
    report = judge(release_pair, {"src/app.ts": APP}, {"src/app.ts": based})
    assert report.checked and rules(report) == []
    looped = APP.replace("'/health'", "`${base}/${name}`")
    assert "route-registration-dynamic" in rules(
        judge(release_pair, {"src/app.ts": APP}, {"src/app.ts": looped})
    )


def test_routers_reached_through_re_exporting_modules(release_pair: Pair) -> None:
    server = (
        "const express = require('express');\nconst routes = require('./routes');\n"
        "const app = express();\napp.use('/api/v2', routes.api);\napp.use('/', routes.render);\n"
    )
    index = "module.exports = require('./routes');\n"
    table = (
        "const { Router } = require('express');\nconst links = require('./links');\n"
        "const api = Router();\napi.use('/links', links);\nconst render = Router();\n"
        "render.get('/login', h);\nmodule.exports = { api, render: render };\n"
    )
    links = (
        "const { Router } = require('express');\nconst router = Router();\n"
        "router.get('/', list);\nrouter.delete('/:id', remove);\nmodule.exports = router;\n"
    )
    old = {
        "server/server.js": server,
        "server/routes/index.js": index,
        "server/routes/routes.js": table,
        "server/routes/links.js": links,
    }
    new = {"server/routes/links.js": links.replace("router.delete('/:id', remove);\n", "")}
    report = judge(release_pair, old, new)
    assert removed(report) == ["DELETE /api/v2/links/:id"]
    assert {"GET /api/v2/links", "GET /login"} <= set(report.coverage.understood)
    typed = {
        "src/server.ts": APP.replace("'./routes/users'", "'./routes'"),
        "src/routes/index.ts": 'export { default } from "./users";\n',
        "src/routes/users.ts": USERS,
    }
    assert "GET /api/users/:id" in judge(release_pair, typed, {}).coverage.understood
