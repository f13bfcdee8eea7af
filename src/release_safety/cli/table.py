"""The commands' table: each name, the module and click command it imports on first use, and
its short help (written here, so `--help` imports no command)."""

from __future__ import annotations

# Commands: name -> ("module:click command", its short help). The short help is written here
# so `--help` imports no command (a test keeps it equal to each command's docstring).
COMMANDS: dict[str, tuple[str, str]] = {
    "backfill": (
        "release_safety.cli.commands.backfill:backfill_command",
        "Backfill the index with every release tag from the floor up.",
    ),
    "check-pr": (
        "release_safety.cli.commands.checkpr:check_pr",
        "Fail when a breaking change of the pull request is not declared in it.",
    ),
    "contract-check": (
        "release_safety.cli.commands.evaluator:contract_check",
        "Check a running server against an OpenAPI document (exit 1 on any failure).",
    ),
    "demo": (
        "release_safety.cli.commands.demo:demo",
        "Build a sample service with tagged releases, then generate and index every release.",
    ),
    "diff-openapi": (
        "release_safety.cli.commands.rest:diff_openapi",
        "Breaking changes and advisories from BASE to REVISION (OpenAPI 3.0 / 3.1, Swagger 2.0).",
    ),
    "generate": (
        "release_safety.cli.commands.core:generate",
        "Write release-safety.json for one release, judged with the settings committed at --to "
        "(and, when they differ, with the previous release's as well).",
    ),
    "index": ("release_safety.cli.commands.documents:index", "Maintain release-safety-index.json."),
    "init": (
        "release_safety.cli.commands.init:init",
        "Write .release-safety.toml fitted to the last releases, each judged with it first.",
    ),
    "lint-migrations": (
        "release_safety.cli.commands.migrations:lint_migrations",
        "Lint SQL (.sql) and knex (.ts/.js) migration files: heaviness and compatibility.",
    ),
    "rules": ("release_safety.cli.commands.core:rules", "List every rule of every surface."),
    "schema": (
        "release_safety.cli.commands.documents:schema",
        "Print the JSON Schema of an artifact, index, evidence file or upgrade-check result.",
    ),
    "serve-evaluator": (
        "release_safety.cli.commands.evaluator:serve_evaluator",
        "Serve the reference query-history API over HTTP.",
    ),
    "upgrade-check": (
        "release_safety.cli.commands.upgrade:upgrade_check",
        "Is rolling from --from to --to in one hop proven safe? Exit 0 only when it is.",
    ),
    "upgrade-plan": (
        "release_safety.cli.commands.upgrade:upgrade_plan",
        "The route from --from to --to: hops, strategy per hop, deployment mapping.",
    ),
    "validate": (
        "release_safety.cli.commands.documents:validate",
        "Validate an artifact, index, evidence file or upgrade-check result against its schema "
        "(the kind is recognised from the document).",
    ),
    "verify-migrations": (
        "release_safety.cli.commands.verify:verify_migrations",
        "Run the release's migrations on a real PostgreSQL and show what it did.",
    ),
}
