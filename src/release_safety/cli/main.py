"""The `release-safety` command line: the commands' table, and running one.

Commands are imported only when invoked (`COMMANDS` maps each name to `module:attribute`; the
click group is `commands/group.py`), so a quick command such as `upgrade-check` does not pay
for the SQL and OpenAPI analysers, and the plain `--json` calls of `upgrade-check` and
`lint-migrations` (and its plain text, uncoloured) are answered without click at all
(`upgrade/check.py`, `cli/lint.py`). Each
command returns its exit code; `run` turns errors into one line (or a JSON object when `--json`
was asked for) and the exit code the conventions give them; anything unexpected is exit 3
("could not check") the same way, never a traceback and never the "unsafe" code 1.
"""

from __future__ import annotations

import gc
import io
import os
import sys
from collections.abc import Sequence
from itertools import pairwise

from release_safety.cli.table import COMMANDS
from release_safety.common.errors import (
    CheckError,
    InputError,
    ReleaseSafetyError,
    output_refused,
)
from release_safety.common.noplugins import skip_loader

MAX_DETAIL = 300
"""Characters of an unexpected error's text that reach the one-line report."""


def _report_error(kind: str, message: str, code: int, as_json: bool | str) -> int:
    """Print an error as one line on standard error, and also as the JSON object `--json`
    asks for or, under `--format sarif` (`as_json` is then the command's name), as a SARIF log
    whose invocation failed (code scanning shows why no result came)."""
    message = " ".join(message.split())  # one line, whatever the message held
    if isinstance(as_json, str):
        from release_safety.cli.render.formats import sarif_error

        sys.stdout.write(sarif_error(as_json, message, code))
        print(f"release-safety: {message}", file=sys.stderr)
    elif as_json:
        import json  # deferred: `--help` and `--version` need no JSON

        print(json.dumps({"error": {"kind": kind, "message": message, "exitCode": code}}))
    else:
        print(f"release-safety: {message}", file=sys.stderr)
    return code


BROKEN_PIPE = 141
"""The exit code when the reader of standard output has gone (`| head`): 128 + SIGPIPE, what a
shell reports for a command SIGPIPE ended, never the "unsafe" code 1."""


class _ClosedOutput(io.TextIOBase):
    """Standard output when its descriptor was closed (`>&-`): Python would drop every write
    silently, so the first one fails (could not check, exit 3) as `ls >&-` does."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            raise CheckError("standard output is closed: the answer cannot be written")
        return 0


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on `argv` and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json: bool | str = (
        "--json" in args or "--format=json" in args or ("--format", "json") in pairwise(args)
    )
    if not as_json and ("--format=sarif" in args or ("--format", "sarif") in pairwise(args)):
        as_json = args[0] if args[0] in COMMANDS else "release-safety"
    if sys.stdout is None:
        # Descriptor 1 is held by the null device, so no file opened later takes it; errors
        # go to standard error alone.
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        sys.stdout, as_json = _ClosedOutput(), False
    try:
        code = _answer(args, as_json)
        sys.stdout.flush()  # a reader gone shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        _discard_output()
        return BROKEN_PIPE
    except OSError as exc:  # standard output cannot take the answer (`>/dev/full`)
        return _output_failed(exc)


def _discard_output() -> None:
    """What is left in standard output's buffer goes to the null device, so the interpreter's
    last flush cannot fail."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _output_failed(exc: OSError) -> int:
    """Standard output refused a write: `cannot write`, as a file `--out` names that refuses
    one, on standard error alone."""
    _discard_output()
    error = output_refused(exc)
    return _report_error(error.kind, error.message, error.exit_code, False)


def _stdout_refuses() -> OSError | None:
    """The error standard output gives when it is asked to take what it holds, if any."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        return exc
    return None


def _answer(args: list[str], as_json: bool | str) -> int:
    try:
        quick = _quick(args)
        return _run_click(args, as_json) if quick is None else quick
    except BrokenPipeError:
        raise
    except ReleaseSafetyError as exc:
        return _report_error(exc.kind, exc.message, exc.exit_code, as_json)
    except Exception as exc:  # anything unexpected: could not check, never "unsafe" (1)
        refused = _stdout_refuses() if isinstance(exc, OSError) and not exc.filename else None
        if refused is not None:
            return _output_failed(refused)
        detail = str(exc)[:MAX_DETAIL] or "no detail"
        return _report_error("internal", f"unexpected {type(exc).__name__}: {detail}", 3, as_json)


def _quick(args: list[str]) -> int | None:
    """The answer of a plain call one of the click-free paths takes (`--version`,
    `upgrade/check.py`, `cli/lint.py`, `cli/openapi.py`), or None to leave the call to click;
    only that path's module is imported."""
    if args == ["--version"]:  # the line click's version option prints, without click
        from release_safety import version_line

        print(version_line())
        return 0
    if args[:1] == ["upgrade-check"]:
        from release_safety.upgrade.check import quick_check

        return quick_check(args)
    if args[:1] == ["lint-migrations"]:
        from release_safety.cli.lint import quick_lint

        return quick_lint(args)
    if args[:1] == ["diff-openapi"]:
        from release_safety.cli.openapi import quick_diff

        return quick_diff(args)
    return None


def _run_click(args: list[str], as_json: bool | str) -> int:
    import click

    from release_safety.cli.commands.group import cli

    try:
        result = cli.main(args=args, prog_name="release-safety", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        return _report_error("aborted", "aborted", 3, as_json)
    except click.ClickException as exc:
        return _report_error("usage", exc.format_message(), InputError.exit_code, as_json)
    except SystemExit:
        # click's one exit outside standalone mode: a broken pipe, which it makes `exit(1)`
        raise BrokenPipeError from None
    return int(result or 0)


def main() -> None:
    # The CLI loads no pydantic plugins unless asked to: the entry-point scan costs every
    # command tens of milliseconds (set PYDANTIC_DISABLE_PLUGINS yourself to choose).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    skip_loader()  # so pydantic need not import importlib.metadata to find none
    once = sys.argv[1:2] in (["lint-migrations"], ["diff-openapi"], ["generate"])
    if once:
        # A lint allocates a schema per file and leaves no cycles: the cyclic collector would
        # walk the growing heap for nothing (5 % of a 2,000-file run), and it ends in os._exit.
        # So does `diff-openapi`: two documents' values and schemas, kept to the end. And so
        # does `generate`, one release: the collector's passes over the imported modules and
        # the two trees, and the interpreter's teardown, cost a Go service's release a sixth
        # of its CPU time; they would free under a megabyte.
        gc.disable()
    code = run()
    if once:
        _exit_at_once(code)
    sys.exit(code)


def _exit_at_once(code: int) -> None:
    """End a lint (or one release's `generate`) without tearing the interpreter down: freeing
    every file's statements and schemas one object at a time costs a 2,000-file run 3 to 5 % of
    its time, and a lint leaves nothing to clean up (no thread, no atexit hook; mypy ends the
    same way); `generate` has closed its git readers, reaped its child, stopped any server
    `--verify` started and written its files before `run` returns. The output is flushed
    first; a reader that has gone leaves the ending to `sys.exit`, as before."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        return
    os._exit(code)
