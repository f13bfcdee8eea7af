"""The click group of `release-safety`: commands imported on first use, listed without that."""

from __future__ import annotations

import importlib

import click

from release_safety import __version__, compiled
from release_safety.cli import COMMANDS


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

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [  # click's own shortening, of the help written here
            (name, click.Command(name, help=short_help).get_short_help_str(limit))
            for name, (_, short_help) in sorted(COMMANDS.items())
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    f"{__version__} (migration lint: {'compiled' if compiled() else 'pure Python'})",
    prog_name="release-safety",
)
def cli() -> None:
    """Is upgrading to a release safe to roll, and why."""
