"""The `release-safety` command line: click commands, nothing else.

Commands are imported only when invoked (`COMMANDS` maps each name to `module:attribute`), so
a quick command such as `upgrade-check` does not pay for the SQL and OpenAPI analysers.
Each command returns its exit code; `run` turns errors into one line (or a JSON object when
`--json` was asked for) and the exit code the conventions give them.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Sequence
from itertools import pairwise

import click

from release_safety import __version__
from release_safety.errors import InputError, ReleaseSafetyError

# Commands, one line per command: name -> "module:click command".
COMMANDS = {
    "backfill": "release_safety.commands.backfill:backfill_command",
    "check-pr": "release_safety.commands.checkpr:check_pr",
    "contract-check": "release_safety.commands.evaluator:contract_check",
    "demo": "release_safety.commands.demo:demo",
    "diff-openapi": "release_safety.commands.rest:diff_openapi",
    "generate": "release_safety.commands.core:generate",
    "index": "release_safety.commands.core:index",
    "lint-migrations": "release_safety.commands.migrations:lint_migrations",
    "rules": "release_safety.commands.core:rules",
    "schema": "release_safety.commands.core:schema",
    "serve-evaluator": "release_safety.commands.evaluator:serve_evaluator",
    "upgrade-check": "release_safety.commands.upgrade:upgrade_check",
    "upgrade-plan": "release_safety.commands.upgrade:upgrade_plan",
    "validate": "release_safety.commands.core:validate",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="release-safety")
def cli() -> None:
    """Is upgrading to a release safe to roll, and why."""


def _report_error(kind: str, message: str, code: int, as_json: bool) -> int:
    if as_json:
        click.echo(json.dumps({"error": {"kind": kind, "message": message, "exitCode": code}}))
    else:
        click.echo(f"release-safety: {message}", err=True)
    return code


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on `argv` and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args or "--format=json" in args or ("--format", "json") in pairwise(args)
    try:
        result = cli.main(args=args, prog_name="release-safety", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        return _report_error("aborted", "aborted", 3, as_json)
    except click.ClickException as exc:
        return _report_error("usage", exc.format_message(), InputError.exit_code, as_json)
    except ReleaseSafetyError as exc:
        return _report_error(exc.kind, exc.message, exc.exit_code, as_json)
    return int(result or 0)


def main() -> None:
    # The CLI loads no pydantic plugins unless asked to: the entry-point scan costs every
    # command tens of milliseconds (set PYDANTIC_DISABLE_PLUGINS yourself to choose).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    sys.exit(run())
