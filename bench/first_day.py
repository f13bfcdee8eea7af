"""The first day with a real repository: `init`, the TODO reasons filled in, then `generate` on
each of the last releases, as a new user runs them (docs/benchmarks/first-day.md).

    python bench/first_day.py [--last 10] [--json results.json] [--keep DIR] [SERVICE ...]

Each service's repository is a public one brought with the search tool's `fetch` (a bare git
directory under /work/.mirror); it is cloned to a temporary folder, never committed, and removed
at the end. `release-safety init` runs in the clone as a subprocess; the settings it wrote are
moved outside the clone with the reasons a maintainer would write in place of each TODO
(`SERVICES`), and every release is judged with them through `--config` (the same settings at
every release, as a file outside the repository is). Releases run one after the other (the
machine's cores are shared). One Markdown table per service: tag, verdict, exit code, counts
of findings by severity, the rule ids of the unknown findings, and whether each unknown
carries a way out (a non-empty hint). `--keep DIR` copies each service's settings, artifacts
and evidence to DIR/SERVICE, to compare two builds byte for byte (`diff -r`; run one of them
with `PYTHONPATH` at the other's `src`).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

MIRRORS = Path("/work/.mirror")
TODO = re.compile(
    r'"TODO: write why the service has no (?P<what>[^"(]+?) \(operators read this reason\)"'
)

SERVICES: dict[str, dict[str, Any]] = {
    "kratos": {
        "mirror": "ory+kratos",
        "language": "Go",
        "reasons": {
            "MCP server": "Kratos exposes no MCP server; clients and agents use its public "
            "and admin REST APIs",
            "deployment descriptors": "operators deploy Kratos with the Helm charts of the "
            "ory/k8s repository or their own manifests; none ship in this repository",
        },
    },
    "harbor": {
        "mirror": "goharbor+harbor",
        "language": "Go",
        "reasons": {
            "MCP server": "Harbor exposes no MCP server; clients use the v2.0 REST API and "
            "the OCI registry API",
            "deployment descriptors": "operators install Harbor with the offline installer, "
            "whose prepare step generates docker-compose.yml, or the goharbor/harbor-helm "
            "chart kept in another repository",
        },
    },
    "kutt": {
        "mirror": "thedevs-network+kutt",
        "language": "TypeScript/JavaScript (knex)",
        "reasons": {
            "REST API": "the REST API is described in JavaScript (docs/api/api.js) rendered "
            "into the docs site; no OpenAPI document is committed to diff",
            "MCP server": "kutt exposes no MCP server; its clients are the web UI and the "
            "REST API with an API key",
        },
    },
    "svix": {
        "mirror": "svix+svix-webhooks",
        "language": "Rust",
        "reasons": {
            "MCP server": "svix-server exposes no MCP server; clients use the REST API "
            "described in server/openapi.json",
        },
    },
    "paperless": {
        "mirror": "paperless-ngx+paperless-ngx",
        "language": "Python",
        "reasons": {
            "database migrations": "schema changes are Django migrations in Python, run by "
            "the container at start; reviewed by hand, not read by this tool",
            "REST API": "the Django REST Framework schema is generated at runtime by "
            "drf-spectacular; no OpenAPI document is committed to diff",
            "MCP server": "paperless-ngx exposes no MCP server; clients use the REST API "
            "and the web UI",
        },
    },
}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`release-safety ARGS` as a user runs it: a new process."""
    command = [sys.executable, "-m", "release_safety", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def releases(clone: Path, pattern: str, last: int) -> list[str]:
    """The last release tags the pattern names, oldest first (sorted by version)."""
    regex = re.compile(pattern)
    tags = subprocess.run(
        ["git", "-C", str(clone), "tag", "--list"], capture_output=True, text=True, check=True
    ).stdout.split()
    named = [(m["version"], t) for t in tags if (m := regex.match(t))]
    named.sort(key=lambda item: tuple(int(part) for part in item[0].split(".")))
    return [tag for _, tag in named[-last:]]


def fill(text: str, reasons: dict[str, str]) -> tuple[str, list[str]]:
    """The settings with each TODO the service has a reason for replaced; the TODOs left."""
    left: list[str] = []

    def replace(match: re.Match[str]) -> str:
        what = match["what"]
        if what not in reasons:
            left.append(what)
            return match[0]
        return json.dumps(reasons[what])

    return TODO.sub(replace, text), left


def judge(clone: Path, settings: Path, tag: str, folder: Path) -> dict[str, Any]:
    """One release: the exit code, the verdict and the findings of its evidence."""
    evidence = folder / f"{tag}.evidence.json"
    start = time.perf_counter()
    done = cli(
        *("generate", "--repo", str(clone), "--to", tag, "--config", str(settings)),
        *("--out", str(folder / f"{tag}.json"), "--evidence", str(evidence)),
    )
    row: dict[str, Any] = {"tag": tag, "code": done.returncode, "seconds": 0.0}
    row["seconds"] = round(time.perf_counter() - start, 1)
    if done.returncode != 0 or not evidence.exists():
        row["verdict"] = "error"
        row["error"] = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return row
    found = json.loads(evidence.read_text())
    findings = found["findings"]
    unknown = [f for f in findings if f["severity"] == "unknown"]
    unknown += [f for f in found["because"] if f["severity"] == "unknown" and f not in unknown]
    verdict = found["rollingUpdateSafe"]
    row["verdict"] = {True: "true", False: "false"}.get(verdict, "unknown")
    row["counts"] = dict(Counter(f["severity"] for f in findings))
    row["unknown_rules"] = dict(Counter(f["rule"] for f in unknown))
    row["unknown_with_way_out"] = sum(1 for f in unknown if (f.get("hint") or "").strip())
    row["unknown_total"] = len(unknown)
    row["breaking_rules"] = dict(
        Counter(f["rule"] for f in findings if f["severity"] == "breaking")
    )
    return row


def run_service(name: str, last: int, keep: Path | None = None) -> dict[str, Any]:
    service = SERVICES[name]
    with tempfile.TemporaryDirectory(prefix="first-day-") as work:
        folder = Path(work)
        clone = folder / "clone"
        mirror = MIRRORS / service["mirror"] / "repo"
        # no checkout: the commands read git, and a mirror may lack its largest blobs
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(clone)], check=True)
        start = time.perf_counter()
        done = cli("init", "--repo", str(clone))
        init_seconds = round(time.perf_counter() - start, 1)
        result: dict[str, Any] = {"service": name, "language": service["language"]}
        result |= {"init_code": done.returncode, "init_seconds": init_seconds}
        result["init_output"] = done.stdout
        if done.returncode != 0:
            result["init_error"] = done.stderr.strip()
            return result
        written = (clone / ".release-safety.toml").read_text()
        result["written"] = written
        text, left = fill(written, service["reasons"])
        result["todo_left"] = left
        (clone / ".release-safety.toml").unlink()  # the clone stays as fetched
        settings = folder / "settings.toml"
        settings.write_text(text)
        read = tomllib.loads(text)
        result["floor"] = read.get("floor_version")
        tags = releases(clone, read["tag_pattern"], last)
        result["rows"] = [judge(clone, settings, tag, folder) for tag in tags]
        if keep is not None:  # the settings, artifacts and evidence, to compare two builds
            (keep / name).mkdir(parents=True, exist_ok=True)
            for path in [settings, *folder.glob("*.json")]:
                shutil.copyfile(path, keep / name / path.name)
        return result


def table(result: dict[str, Any]) -> str:
    lines = [
        f"### {result['service']} ({result['language']})",
        "",
        f"init: exit {result['init_code']} in {result['init_seconds']} s; floor "
        f"{result.get('floor')}; TODOs left unfilled: "
        f"{', '.join(result.get('todo_left', [])) or 'none'}",
        "",
    ]
    rows = result.get("rows", [])
    lines += release_rows(rows, ("unknown rules", "way out"), _unknowns)
    lines += ["", f"decisive: {decisive(rows)} of {len(rows)}", ""]
    return "\n".join(lines)


def _unknowns(row: dict[str, Any]) -> tuple[str, str]:
    rules = ", ".join(f"`{r}` {n}" for r, n in sorted(row["unknown_rules"].items())) or "—"
    return rules, f"{row['unknown_with_way_out']}/{row['unknown_total']}"


def release_rows(
    rows: list[dict[str, Any]],
    middle: tuple[str, str],
    cells: Callable[[dict[str, Any]], tuple[object, object]],
) -> list[str]:
    """A service's releases as a Markdown table: tag, verdict, exit code, finding counts, the
    two columns `middle` names (`cells` of each row) and the seconds it took."""
    lines = [
        f"| tag | verdict | exit | breaking / unknown / advisory | {middle[0]} | {middle[1]} | s |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        if row["verdict"] == "error":
            lines.append(f"| {row['tag']} | error | {row['code']} | {row['error']} | | | |")
            continue
        counts = row["counts"]
        shown = " / ".join(str(counts.get(k, 0)) for k in ("breaking", "unknown", "advisory"))
        every = [row["tag"], row["verdict"], row["code"], shown, *cells(row), row["seconds"]]
        lines.append("| " + " | ".join(str(c) for c in every) + " |")
    return lines


def decisive(rows: list[dict[str, Any]]) -> int:
    """How many releases got `true` or `false`."""
    return sum(1 for r in rows if r["verdict"] in ("true", "false"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("services", nargs="*", default=list(SERVICES))
    parser.add_argument("--last", type=int, default=10)
    parser.add_argument("--json", type=Path, help="Also write every result to this file.")
    parser.add_argument("--keep", type=Path, help="Copy each service's files to DIR/SERVICE.")
    args = parser.parse_args()
    results = []
    for name in args.services:
        result = run_service(name, args.last, args.keep)
        results.append(result)
        print(table(result), flush=True)
    print(summary(results, args.json))
    return 0


def summary(results: list[dict[str, Any]], out: Path | None) -> str:
    """The line over every service's releases (decisive ones, exit codes); the results also
    written to `out` as JSON when given."""
    if out:
        out.write_text(json.dumps(results, indent=1) + "\n")
    rows = [r for result in results for r in result.get("rows", [])]
    codes = Counter(r["code"] for r in rows)
    return (
        f"all: {decisive(rows)} of {len(rows)} decisive; exit codes {dict(sorted(codes.items()))}"
    )


if __name__ == "__main__":
    sys.exit(main())
