"""The `release-safety` command line: click commands, nothing else.

Each command returns its exit code; `run` turns errors into one line (or a JSON object when
`--json` was asked for) and the exit code the conventions give them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

import click

from release_safety import __version__
from release_safety.commands import core
from release_safety.commands import demo as demo_command
from release_safety.commands import upgrade
from release_safety.errors import InputError, ReleaseSafetyError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
    as_json = "--json" in args
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
    sys.exit(run())


# Commands, one line per area (each module defines its click commands).
cli.add_command(core.generate)
cli.add_command(core.index)
cli.add_command(core.schema)
cli.add_command(core.validate)
cli.add_command(core.rules)
cli.add_command(demo_command.demo)
cli.add_command(upgrade.upgrade_check)
cli.add_command(upgrade.upgrade_plan)
