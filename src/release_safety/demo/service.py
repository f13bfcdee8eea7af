"""The demo's sample service: eleven releases, four safe, one unsafe per kind of break and
one unknown (a config read the tool cannot follow).

Each release is the set of files it writes (and deletes) on top of the one before; the
OpenAPI document and the MCP snapshot are built from small Python structures so every
release's edit is visible here.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

import yaml


@dataclass(frozen=True)
class DemoRelease:
    version: str
    story: str
    files: dict[str, str]
    deletes: tuple[str, ...] = field(default_factory=tuple)


_LAST_LOGIN = {"lastLoginAt": {"type": "string", "format": "date-time"}}


def _user_schema(extra: dict[str, Any] | None = None, drop: str | None = None) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "id": {"type": "string", "format": "uuid"},
        "email": {"type": "string"},
        "displayName": {"type": "string"},
        "role": {"type": "string", "enum": ["viewer", "editor", "admin"]},
        **(extra or {}),
    }
    properties.pop(drop or "", None)
    required = [name for name in ("id", "email", "role") if name in properties]
    return {"type": "object", "required": required, "properties": properties}


def _openapi(users: dict[str, Any], extra_paths: dict[str, Any] | None = None) -> str:
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Sample service", "version": "1"},
        "paths": {
            "/api/v1/users": {
                "get": {
                    "operationId": "listUsers",
                    "parameters": [
                        {"name": "page", "in": "query", "schema": {"type": "integer"}},
                    ],
                    "responses": {
                        "200": {
                            "description": "users",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "array",
                                        "items": {"$ref": "#/components/schemas/User"},
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/api/v1/users/{userId}": {
                "get": {
                    "operationId": "getUser",
                    "parameters": [
                        {
                            "name": "userId",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ],
                    "responses": {
                        "200": {
                            "description": "one user",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/User"}
                                }
                            },
                        },
                        "404": {"description": "no such user"},
                    },
                }
            },
            **(extra_paths or {}),
        },
        "components": {"schemas": {"User": users}},
    }
    return yaml.safe_dump(document, sort_keys=False)


_PROJECTS_PATH = {
    "/api/v1/projects": {
        "get": {
            "operationId": "listProjects",
            "responses": {
                "200": {
                    "description": "projects",
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "uuid": {"type": "string"},
                                        "name": {"type": "string"},
                                    },
                                },
                            }
                        }
                    },
                }
            },
        }
    }
}

_TOOLS: list[dict[str, Any]] = [
    {
        "name": "list_projects",
        "description": "List the projects you can see.",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": None,
    },
    {
        "name": "run_sql",
        "description": "Run a read-only SQL query.",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "required": ["sql"],
            "properties": {
                "sql": {"type": "string"},
                "limit": {"type": "integer", "maximum": 5000},
            },
        },
        "outputSchema": None,
    },
]


def _mcp(tools: list[dict[str, Any]]) -> str:
    ordered = sorted(tools, key=lambda t: t["name"])
    return json.dumps({"schemaVersion": "1", "tools": ordered}, indent=2, sort_keys=True) + "\n"


def _tools_with(name: str, change: dict[str, Any]) -> list[dict[str, Any]]:
    tools = copy.deepcopy(_TOOLS)
    for tool in tools:
        if tool["name"] == name:
            tool.update(change)
    return tools


_RUN_SQL_CAPPED = _tools_with(
    "run_sql", {"description": "Run a read-only SQL query (max 5000 rows)."}
)
_RUN_SQL_LIMIT_REQUIRED = _tools_with(
    "run_sql",
    {
        "description": "Run a read-only SQL query (max 5000 rows).",
        "inputSchema": {
            "type": "object",
            "required": ["sql", "limit"],
            "properties": {
                "sql": {"type": "string"},
                "limit": {"type": "integer", "maximum": 5000},
            },
        },
    },
)


_ENV = """# Sample service configuration
DATABASE_URL=postgres://localhost:5432/sample
PORT=8080
LOG_LEVEL=info
"""

_ENV_SWEEP = _ENV + "# Optional: seconds between cache sweeps\nCACHE_SWEEP_SECONDS=300\n"

_SERVER_TS = """export const config = {
  databaseUrl: process.env.DATABASE_URL,
  port: Number(process.env.PORT || '8080'),
  logLevel: process.env.LOG_LEVEL ?? 'info',
};
"""


_SERVER_TS_FEATURES = """const FEATURES = ['SEARCH', 'EXPORT'];

export const config = {
  databaseUrl: process.env.DATABASE_URL,
  port: Number(process.env.PORT || '8080'),
  logLevel: process.env.LOG_LEVEL ?? 'warn',
  features: Object.fromEntries(FEATURES.map((f) => [f, process.env[`FEATURE_${f}`] === 'on'])),
};
"""


def _compose(postgres: str) -> str:
    return f"""services:
  app:
    image: example/sample-service:${{VERSION:-latest}}
    environment:
      DATABASE_URL: postgres://sample:${{POSTGRES_PASSWORD:-sample}}@db:5432/sample
    depends_on: [db]
  db:
    image: postgres:{postgres}
    environment:
      POSTGRES_PASSWORD: ${{POSTGRES_PASSWORD:-sample}}
    volumes:
      - pgdata:/var/lib/postgresql/data
volumes:
  pgdata:
"""


SETTINGS = """# Where the sample service keeps its surfaces (migrations, openapi.yaml,
# mcp-tools.json and docker-compose.yml are found by the defaults).
[config]
sources = [".env.example", "src/config.ts"]
"""

OVERRIDES = (
    json.dumps(
        {
            "versions": {
                "1.5.0": {
                    "minPreviousVersion": "1.4.0",
                    "note": "installs before 1.4.0 must run its legacy_code drop first",
                }
            }
        },
        indent=2,
    )
    + "\n"
)

RELEASES: tuple[DemoRelease, ...] = (
    DemoRelease(
        "1.0.0",
        "first release: users and projects tables, two endpoints, two MCP tools",
        {
            "migrations/0001_init.up.sql": """CREATE TABLE users (
    id uuid PRIMARY KEY,
    email text NOT NULL UNIQUE,
    display_name text,
    role text NOT NULL DEFAULT 'viewer'
);
CREATE TABLE projects (
    id serial PRIMARY KEY,
    uuid uuid NOT NULL,
    name text NOT NULL,
    legacy_code text
);
""",
            "migrations/0001_init.down.sql": "DROP TABLE projects;\nDROP TABLE users;\n",
            "openapi.yaml": _openapi(_user_schema()),
            "mcp-tools.json": _mcp(_TOOLS),
            ".env.example": _ENV,
            "docker-compose.yml": _compose("15.6-alpine"),
            ".release-safety.toml": SETTINGS,
            "src/config.ts": _SERVER_TS,
        },
    ),
    DemoRelease(
        "1.1.0",
        "additive: nullable column, concurrent index, new endpoint",
        {
            "migrations/0002_add_last_login.up.sql": """SET lock_timeout = '5s';
ALTER TABLE users ADD COLUMN last_login_at timestamptz;
""",
            "migrations/0003_index_projects_name.up.sql": """-- no transaction: CONCURRENTLY
CREATE INDEX CONCURRENTLY IF NOT EXISTS projects_name_idx ON projects (name);
""",
            "openapi.yaml": _openapi(_user_schema(_LAST_LOGIN), _PROJECTS_PATH),
        },
    ),
    DemoRelease(
        "1.2.0",
        "a required response field (role) removed with no declaration",
        {
            "openapi.yaml": _openapi(_user_schema(_LAST_LOGIN, drop="role"), _PROJECTS_PATH),
        },
    ),
    DemoRelease(
        "1.3.0",
        "a constraint added NOT VALID, validated later; an optional env var; PostgreSQL 15.6 to "
        "15.8",
        {
            "migrations/0004_projects_name_check.up.sql": """SET lock_timeout = '5s';
ALTER TABLE projects ADD CONSTRAINT projects_name_not_blank CHECK (name <> '') NOT VALID;
""",
            "migrations/0005_projects_name_check_validate.up.sql": """-- its own transaction: the
-- scan runs under SHARE UPDATE EXCLUSIVE, which lets reads and writes go on
ALTER TABLE projects VALIDATE CONSTRAINT projects_name_not_blank;
""",
            ".env.example": _ENV_SWEEP,
            "docker-compose.yml": _compose("15.8-alpine"),
        },
    ),
    DemoRelease(
        "1.4.0",
        "a column dropped, declared as a break with a required stop",
        {
            "migrations/0006_drop_legacy_code.up.sql": """-- release-safety: breaking(required-stop)
--   drops projects.legacy_code; release 1.3.0 already stopped reading it
ALTER TABLE projects DROP COLUMN legacy_code;
""",
        },
    ),
    DemoRelease(
        "1.5.0",
        "tool descriptions edited, a new table, a maintainer's minimum previous version",
        {
            "migrations/0007_audit_log.up.sql": """CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    user_id uuid REFERENCES users (id),
    action text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
""",
            "mcp-tools.json": _mcp(_RUN_SQL_CAPPED),
            "release-safety.overrides.json": OVERRIDES,
        },
    ),
    DemoRelease(
        "1.6.0",
        "the bundled PostgreSQL moved from 15 to 16",
        {"docker-compose.yml": _compose("16.4-alpine")},
    ),
    DemoRelease(
        "1.7.0",
        "the run_sql MCP tool's limit input became required",
        {"mcp-tools.json": _mcp(_RUN_SQL_LIMIT_REQUIRED)},
    ),
    DemoRelease(
        "1.8.0",
        "quieter logs: LOG_LEVEL's default changed from info to warn",
        {
            ".env.example": _ENV_SWEEP.replace("LOG_LEVEL=info", "LOG_LEVEL=warn"),
            "src/config.ts": _SERVER_TS.replace("'info'", "'warn'"),
        },
    ),
    DemoRelease(
        "1.9.0",
        "an index for the admin page's role filter, built without CONCURRENTLY",
        {
            "migrations/0008_users_role_idx.up.sql": (
                "CREATE INDEX users_role_idx ON users (role);\n"
            ),
        },
    ),
    DemoRelease(
        "1.10.0",
        "feature flags read through a computed name (FEATURE_${f}) the tool cannot follow",
        {"src/config.ts": _SERVER_TS_FEATURES},
    ),
)
