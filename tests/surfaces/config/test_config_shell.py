"""The entrypoint scripts' reader: what a shell script reads from the environment."""

from __future__ import annotations

from release_safety.surfaces.config.shell import parse

SCRIPT = b"""#!/bin/sh
set -e
: "${APP_ENV:=production}"
WORKERS="${WEB_GUNICORN:-${WEB_CONCURRENCY:-4}}"
export LOG_LEVEL=info
echo "$LOG_LEVEL $HOME $1 $$ \\$ESCAPED '$QUOTED'" '$SINGLE'  # $COMMENTED
for f in /docker-entrypoint.d/*; do . "$f"; done
exec gunicorn -w "$WORKERS" --bind "0.0.0.0:${PORT?}" "${DATABASE_URL:?set it}" $EXTRA_ARGS
"""


def test_a_script_reads_what_it_does_not_set() -> None:
    found = {read.name: (read.line, read.default, read.required) for read in parse(SCRIPT)}
    assert found == {
        "APP_ENV": (3, "production", False),
        "WEB_GUNICORN": (4, "${WEB_CONCURRENCY:-4}", False),
        "WEB_CONCURRENCY": (4, "4", False),
        "QUOTED": (6, None, False),
        "PORT": (8, None, True),
        "DATABASE_URL": (8, None, True),
        "EXTRA_ARGS": (8, None, False),
    }
