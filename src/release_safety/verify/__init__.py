"""`verify-migrations`: a release's migrations run on a real PostgreSQL, observed statement by
statement (locks, rewrites, scans, lock hold times, a second session blocked or not) and
compared with the static flags the migrations surface gave them.

`server.py` the throwaway server, `database.py` the workspace on it or on a `--database-url`,
`plan.py` the files to replay and observe, `replay.py`, `seed.py`, `observe.py`, `compare.py`
(pure), `rules.py` the findings' rules, `run.py` the whole of it for one release.
"""

DEFAULT_ROWS = 100_000
"""Rows seeded into each table the migrations touch (`--rows`)."""
