"""Settings texts the release tests share: every surface but the one a test is about declared
absent, each with a reason that says something."""

REST = '[rest]\nabsent = "the service has no HTTP API; it is a queue worker"\n'
MCP = '[mcp]\nabsent = "the service exposes no MCP tools to agents"\n'
CONFIG = '[config]\nabsent = "all configuration comes from the database, not the environment"\n'
DEPLOYMENT = (
    '[deployment]\nabsent = "operators run the worker from their own manifests; the project '
    'ships none"\n'
)
MIGRATIONS = '[migrations]\nabsent = "its migrations are written in Python"\n'
