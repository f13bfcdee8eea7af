"""The click group of `release-safety`: commands imported on first use, listed without that."""

from __future__ import annotations

import difflib
import importlib
import textwrap

import click

from release_safety import __version__, version_line
from release_safety.cli.table import COMMANDS


class LazyGroup(click.Group):
    """A group whose commands are imported on first use; its help lists them without that."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name][0].split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and name not in COMMANDS and not name.startswith("-"):
            near = difflib.get_close_matches(name, COMMANDS, n=3, cutoff=0.6)
            hint = f" Did you mean {' or '.join(near)}?" if near else ""
            ctx.fail(f"No such command {name!r}.{hint} (release-safety --help lists them)")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, short_help) for name, (_, short_help) in sorted(COMMANDS.items())]
        first = max(len(name) for name, _ in rows) + 2
        with formatter.section("Commands"):  # whole, wrapped between words: never cut short
            indent = " " * formatter.current_indent
            room = max(formatter.width - formatter.current_indent - first, 20)
            for name, short_help in rows:
                lines = textwrap.wrap(short_help, room, break_on_hyphens=False)
                formatter.write(f"{indent}{name.ljust(first)}{lines[0]}\n")
                for line in lines[1:]:
                    formatter.write(f"{indent}{' ' * first}{line}\n")


EXIT_CODES = """\b
Exit codes (every command):
  0  safe / nothing at the level that fails
  1  unsafe: a breaking or unknown finding, a failed gate, a span not proven safe
  2  bad input: a missing file or ref, bad settings, a wrong option
  3  could not check: git, I/O, a closed standard output or an unexpected error
  141  the reader of standard output has gone (`| head`), as SIGPIPE ends a command

\b
Examples:
  release-safety lint-migrations db/migrations
  release-safety check-pr --base main --head HEAD
  release-safety upgrade-check --from 1.4.0 --to 1.6.0 --index release-safety-index.json

Each command's --help gives its options, an example and its own exit codes."""


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=EXIT_CODES,
)
@click.version_option(__version__, message=version_line())
def cli() -> None:
    """Is upgrading to a release safe to roll, and why."""
