"""A synthetic service history for benchmarks, built with `git fast-import` in seconds.

`tags` releases; each adds `migrations_per_release` SQL migrations (a realistic mix: new tables,
added columns, indexes, backfills, constraints); every `spec_every`-th release edits a large
OpenAPI 3.0 document (about 4 MB) and the env example.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

STATEMENTS = (
    "ALTER TABLE {t} ADD COLUMN c{n} text;",
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS {t}_c{n}_idx ON {t} (id);",
    "ALTER TABLE {t} ADD COLUMN flag{n} boolean NOT NULL DEFAULT false;",
    "UPDATE {t} SET updated_at = now() WHERE id < 1000;",
    "ALTER TABLE {t} ADD CONSTRAINT {t}_chk{n} CHECK (id > 0) NOT VALID;",
    "CREATE TABLE t{n} (id bigserial PRIMARY KEY, name text NOT NULL,"
    " created_at timestamptz DEFAULT now());",
    "ALTER TABLE {t} ALTER COLUMN c{m} SET DEFAULT 'x';",
    "COMMENT ON TABLE {t} IS 'release {n}';",
)


def _resource(i: int, release: int) -> tuple[str, str]:
    """One resource's schema and path item as JSON fragments."""
    name = f"Resource{i}"
    props = {
        f"field{j}": {"type": "string", "description": f"Field {j} of {name}."} for j in range(12)
    }
    if i % 97 == release % 97:
        props[f"added{release}"] = {"type": "integer", "minimum": 0}
    schema = {"type": "object", "required": ["field0"], "properties": props}
    ref = {"$ref": f"#/components/schemas/{name}"}
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": ref}}}}
    item = {
        "get": {
            "operationId": f"get{name}",
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "responses": ok,
        },
        "put": {
            "operationId": f"put{name}",
            "requestBody": {"content": {"application/json": {"schema": ref}}},
            "responses": ok,
        },
    }
    return (
        f'   "{name}": ' + json.dumps(schema, indent=1).replace("\n", "\n   "),
        f'  "/api/v1/resources{i}/{{id}}": ' + json.dumps(item, indent=1).replace("\n", "\n  "),
    )


_BASE: dict[int, tuple[str, str]] = {}


def openapi_document(release: int, operations: int = 1850) -> str:
    """About 4 MB of OpenAPI 3.0 JSON, pretty-printed one space per level as generators write
    it; each release adds a field to a few schemas."""
    if not _BASE:
        _BASE.update({i: _resource(i, -1) for i in range(operations)})
    parts = [
        _resource(i, release) if i % 97 == release % 97 else _BASE[i] for i in range(operations)
    ]
    info = json.dumps({"title": "Synthetic", "version": str(release)})
    return (
        '{\n "openapi": "3.0.3",\n "info": '
        + info
        + ',\n "paths": {\n'
        + ",\n".join(p for _, p in parts)
        + '\n },\n "components": {\n  "schemas": {\n'
        + ",\n".join(s for s, _ in parts)
        + "\n  }\n }\n}\n"
    )


def _blob(data: str) -> bytes:
    raw = data.encode()
    return b"data %d\n" % len(raw) + raw + b"\n"


def build(
    path: Path, tags: int = 500, migrations_per_release: int = 4, spec_every: int = 5
) -> Path:
    """Build the repository at `path` (a new bare repository); returns its path."""
    rng = random.Random(7)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    stream = bytearray()
    when = 1_700_000_000
    counter = 0
    for release in range(tags):
        version = f"0.{2000 + release}.0"
        when += 3600 * 7
        stream += b"commit refs/heads/main\n"
        stream += b"committer Bench <bench@example.com> %d +0000\n" % when
        stream += _blob(f"release {version}")[:-1]
        for _ in range(migrations_per_release):
            counter += 1
            table = f"t{rng.randrange(max(counter - 1, 1)) + 1}" if counter > 1 else "t0"
            body = "\n".join(
                rng.choice(STATEMENTS).format(t=table, n=counter, m=max(counter - 1, 1))
                for _ in range(rng.randint(1, 3))
            )
            name = f"db/migrations/{counter:05}_step.up.sql"
            stream += b"M 100644 inline " + name.encode() + b"\n" + _blob(body + "\n")
        if release % spec_every == 0:
            stream += b"M 100644 inline openapi.json\n" + _blob(openapi_document(release))
            env = "\n".join(
                f"VAR_{i}=value{i if i != release % 40 else release}" for i in range(40)
            )
            stream += b"M 100644 inline .env.example\n" + _blob(env + "\n")
        stream += b"\n"
        tagger = f"tagger Bench <bench@example.com> {when} +0000\n"
        stream += f"tag v{version}\nfrom refs/heads/main\n{tagger}".encode()
        stream += _blob(f"release {version}")
    subprocess.run(["git", "fast-import", "--quiet"], input=bytes(stream), cwd=path, check=True)
    return path
