"""`serve-evaluator` (the reference query-history API) and `contract-check` (schemathesis
against a running server)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import click

from release_safety.cli.commands.options import help_epilog
from release_safety.common.errors import InputError

EVALUATOR_MODULES = (
    "openapi_spec_validator",
    "schemathesis",
    "starlette",
    "uvicorn",
)
"""What the `evaluator` extra installs, by import name (only these two commands use them)."""


def require_evaluator_extra(command: str) -> None:
    """Exit 2 with the install command when the `evaluator` extra is not installed."""
    missing = [name for name in EVALUATOR_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise InputError(
            f"{command}: needs the evaluator extra ({', '.join(missing)} not installed):"
            " pip install 'release-safety[evaluator]'"
        )


@click.command(
    "serve-evaluator",
    epilog=help_epilog(
        ["release-safety serve-evaluator --port 8080"], ["0 stopped", "2 bad input"]
    ),
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--port",
    default=8080,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="TCP port to listen on.",
)
@click.option(
    "--data",
    "data_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Data set to load (JSON, see schemas/evaluator-data.schema.json); default: the seed.",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite database file (rebuilt from the data); default: in memory.",
)
@click.option("--now", help="Fix the server clock (ISO-8601 with offset); default: real time.")
@click.option("--print-openapi", is_flag=True, help="Print the OpenAPI document and exit.")
def serve_evaluator(
    host: str,
    port: int,
    data_file: Path | None,
    db: Path | None,
    now: str | None,
    print_openapi: bool,
) -> int:
    """Serve the reference query-history API over HTTP."""
    require_evaluator_extra("serve-evaluator")
    from release_safety.evaluator.openapi import openapi_text

    if print_openapi:
        click.echo(openapi_text(), nl=False)
        return 0
    from release_safety.evaluator.server import build_app, serve

    app = build_app(data_file, db, now)
    click.echo(f"evaluator listening on http://{host}:{port}", err=True)
    serve(app, host, port)
    return 0


@click.command(
    "contract-check",
    epilog=help_epilog(
        ["release-safety contract-check --spec openapi.yaml --base-url http://localhost:8080"],
        ["0 every check passed", "1 a check failed", "2 bad input"],
    ),
)
@click.option(
    "--spec",
    "spec_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="OpenAPI document to check the server against.",
)
@click.option("--base-url", required=True, help="Base URL of the running server.")
@click.option("--token", help="Personal access token, sent as 'Authorization: ApiKey <token>'.")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="Fix a parameter for every generated request, e.g. projectUuid=<uuid> (repeatable).",
)
@click.option(
    "--replay",
    is_flag=True,
    help="Also re-send the caller's history rows (needs --param projectUuid=...).",
)
@click.option(
    "--max-examples",
    default=25,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Examples schemathesis generates per operation.",
)
@click.option("--seed", default=1, show_default=True, type=int, help="Generation seed.")
@click.option(
    "--phases",
    default="examples,coverage,fuzzing",
    show_default=True,
    help="Schemathesis phases to run (comma-separated).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def contract_check(
    spec_file: Path,
    base_url: str,
    token: str | None,
    params: tuple[str, ...],
    replay: bool,
    max_examples: int,
    seed: int,
    phases: str,
    as_json: bool,
) -> int:
    """Check a running server against an OpenAPI document (exit 1 on any failure)."""
    require_evaluator_extra("contract-check")
    from release_safety.evaluator.contract import ContractRun, run_contract

    fixed: dict[str, str] = {}
    for item in params:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise InputError(f"--param {item!r}: expected NAME=VALUE")
        fixed[name] = value
    if replay and "projectUuid" not in fixed:
        raise InputError("--replay: needs --param projectUuid=<uuid> (the history's project)")
    result = run_contract(
        ContractRun(
            spec=spec_file,
            base_url=base_url.rstrip("/"),
            token=token,
            params=fixed,
            replay=replay,
            max_examples=max_examples,
            seed=seed,
            phases=phases,
        )
    )
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(result.to_text())
    return 0 if result.passed else 1
