"""`upgrade-check` without click: its options, the index they name, and the plain `--json` call.

The options are defined once here (`INDEX_OPTIONS`); `commands/upgrade.py` builds the click
options of `upgrade-check` and `upgrade-plan` from them. A call of the plain form
`upgrade-check --from V --to V --json [--index S] [--offline] [--index-sha256 H]` (each option
once, as separate words, no value starting with `-`) is answered here without importing click,
about a quarter of the process; `quick_check` returns None for anything else (help, another
spelling, a missing option, text output) and click parses it as always. The answer and the exit
code are the same either way: both run `check_json`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Sequence

    from release_safety.upgrade.span import Releases

# Every command's `run` asks `quick_check` first: the reading and the evaluation are imported
# by the functions that do them, so another command pays for none of it.


class Option(NamedTuple):
    """One option of the upgrade commands: its name, parameter, metavar (None for a flag)."""

    name: str
    parameter: str
    metavar: str | None
    help: str
    required: bool = False


INDEX_OPTIONS = (
    Option("--from", "from_version", "VERSION", "The running version.", required=True),
    Option("--to", "to_version", "VERSION", "The target version.", required=True),
    Option("--json", "as_json", None, "Print one JSON object."),
    Option(
        "--index",
        "index_source",
        "PATH|URL",
        "The index; default: index_url, else index_path, of .release-safety.toml.",
    ),
    Option("--offline", "offline", None, "Answer from the cached copy of a URL."),
    Option("--index-sha256", "index_sha256", "HEX", "Accept only these exact bytes."),
)
_BY_NAME = {option.name: option for option in INDEX_OPTIONS}


def default_index_source() -> str:
    """`index_url`, else `index_path`, from `.release-safety.toml` in the current folder."""
    # deferred: building the settings models costs start-up time that `--index` does not need
    from pathlib import Path

    from release_safety.settings.model import load_settings

    settings = load_settings(Path("."), None)
    return settings.index_url or settings.index_path


def load_releases(
    from_version: str,
    to_version: str,
    index_source: str | None,
    offline: bool,
    index_sha256: str | None,
) -> Releases:
    """Check the arguments first (exit 2), then fetch and validate the index (exit 3)."""
    from release_safety.contract.versions import Version
    from release_safety.upgrade.indexsource import check_pin, load_index
    from release_safety.upgrade.span import Releases

    Version.parse(from_version)
    Version.parse(to_version)
    check_pin(index_sha256)
    source = index_source or default_index_source()
    return Releases.of(load_index(source, offline=offline, sha256=index_sha256))


def check_json(
    from_version: str,
    to_version: str,
    index_source: str | None,
    offline: bool,
    index_sha256: str | None,
) -> tuple[str, int]:
    """What `upgrade-check --json` prints, and its exit code (0 only when proven safe)."""
    from release_safety.common.jsonio import dumps
    from release_safety.upgrade.span import evaluate_span

    releases = load_releases(from_version, to_version, index_source, offline, index_sha256)
    result = evaluate_span(releases, from_version, to_version)
    return dumps(result.to_json_data()), 0 if result.safe else 1


def plain_json_call(args: Sequence[str]) -> dict[str, str | bool] | None:
    """The parameters of a plain `upgrade-check ... --json` call, or None for any other call."""
    if not args or args[0] != "upgrade-check":
        return None
    found: dict[str, str | bool] = {}
    words = iter(args[1:])
    for word in words:
        option = _BY_NAME.get(word)
        if option is None or option.parameter in found:
            return None
        if option.metavar is None:
            found[option.parameter] = True
            continue
        value = next(words, None)
        if value is None or value.startswith("-"):
            return None
        found[option.parameter] = value
    required = all(option.parameter in found for option in INDEX_OPTIONS if option.required)
    return found if required and found.get("as_json") else None


def quick_check(args: Sequence[str]) -> int | None:
    """Answer a plain `upgrade-check --json` call (printing it), or None to leave it to click.
    Errors are raised as the click command raises them."""
    call = plain_json_call(args)
    if call is None:
        return None
    text, code = check_json(
        str(call["from_version"]),
        str(call["to_version"]),
        str(call["index_source"]) if "index_source" in call else None,
        bool(call.get("offline", False)),
        str(call["index_sha256"]) if "index_sha256" in call else None,
    )
    sys.stdout.write(text)
    sys.stdout.flush()
    return code
