"""Adoption on a real history (issue 42): `init` on a service nobody here ran the tool on, the
TODO reasons filled in and the file committed at HEAD, then `generate` on each of its last
releases with no `--config`, as a maintainer adopting the tool runs them.

    python bench/bench_adoption.py [--last 15] [--json results.json] [SERVICE ...]

Each service is a public repository brought with the search tool's `fetch` (a bare git directory
under /work/.mirror), cloned without a checkout to a temporary folder, never committed, removed
at the end. `release-safety init --releases LAST` runs in the clone as a subprocess; the TODO
reasons it leaves are replaced with the ones a maintainer would write (`SERVICES`), nothing else
is edited, and the file is committed at HEAD of the clone (git plumbing: the clone has no
checkout). Every release is then judged by `generate --to TAG` in a new process, one after the
other (the machine's cores are shared): the settings each is judged with are the adopting ones,
committed at HEAD, since no release has a file of its own. One Markdown table per service.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

from first_day import MIRRORS, cli, decisive, fill, release_rows, releases, summary

SERVICES: dict[str, dict[str, Any]] = {
    "lemmy": {
        "mirror": "LemmyNet+lemmy",
        "language": "Rust, diesel migrations, releases on the 0.19 maintenance branch",
        "reasons": {
            "MCP server": "Lemmy exposes no MCP server; clients use its HTTP API through "
            "lemmy-js-client",
            "REST API": "the HTTP API is defined by Rust types in crates/api and published as "
            "lemmy-js-client; no OpenAPI document is committed to diff",
            "deployment descriptors": "operators deploy with the lemmy-ansible repository or "
            "their own compose files; the ones here are for development",
        },
    },
    "umami": {
        "mirror": "umami-software+umami",
        "language": "TypeScript, prisma migrations moved from db/postgresql to prisma/",
        "reasons": {
            "MCP server": "umami exposes no MCP server; clients use its REST API and the "
            "tracker script",
            "REST API": "the API routes are Next.js route handlers; no OpenAPI document is "
            "committed to diff",
        },
    },
    "mealie": {
        "mirror": "mealie-recipes+mealie",
        "language": "Python, FastAPI, Alembic migrations",
        "reasons": {
            "MCP server": "mealie exposes no MCP server; clients use its REST API",
            "REST API": "FastAPI generates the OpenAPI document at runtime; none is committed",
        },
    },
    "miniflux": {
        "mirror": "miniflux+v2",
        "language": "Go, migrations as SQL in Go code",
        "reasons": {
            "MCP server": "miniflux exposes no MCP server; clients use its REST API",
            "REST API": "the REST API is documented on miniflux.app; no OpenAPI document is "
            "committed to diff",
            "database migrations": "schema migrations are Go functions in "
            "internal/database/migrations.go, applied by the binary at start",
        },
    },
}


def git(clone: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(clone), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {args[0]}: {done.stderr.strip()}")
    return done.stdout.strip()


def commit_at_head(clone: Path, name: str, text: str) -> None:
    """Commit `name` at HEAD of a clone without a checkout (its index read from HEAD)."""
    source = clone / name
    source.write_text(text)
    blob = git(clone, "hash-object", "-w", str(source))
    source.unlink()
    git(clone, "read-tree", "HEAD")
    git(clone, "update-index", "--add", "--cacheinfo", f"100644,{blob},{name}")
    tree = git(clone, "write-tree")
    env = "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"
    commit = git(clone, *env, "commit-tree", tree, "-p", "HEAD", "-m", "adopt release-safety")
    git(clone, "update-ref", "HEAD", commit)


def judge(clone: Path, tag: str, folder: Path) -> dict[str, Any]:
    """One release judged with the settings committed at HEAD: exit code, verdict, findings."""
    evidence = folder / f"{tag}.evidence.json"
    start = time.perf_counter()
    done = cli(
        *("generate", "--repo", str(clone), "--to", tag),
        *("--out", str(folder / f"{tag}.json"), "--evidence", str(evidence)),
    )
    row: dict[str, Any] = {"tag": tag, "code": done.returncode}
    row["seconds"] = round(time.perf_counter() - start, 1)
    row["settings"] = next(
        (line for line in done.stderr.splitlines() if "settings:" in line), ""
    ).removeprefix("release-safety: warning: ")
    if done.returncode != 0 or not evidence.exists():
        row["verdict"] = "error"
        row["error"] = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return row
    found = json.loads(evidence.read_text())
    findings = found["findings"]
    verdict = found["rollingUpdateSafe"]
    row["verdict"] = {True: "true", False: "false"}.get(verdict, "unknown")
    row["counts"] = dict(Counter(f["severity"] for f in findings))
    row["because"] = [f"{f['rule']}: {f['message']}"[:160] for f in found["because"]][:4]
    row["unknown_rules"] = dict(Counter(f["rule"] for f in findings if f["severity"] == "unknown"))
    row["breaking_rules"] = dict(
        Counter(f["rule"] for f in findings if f["severity"] == "breaking")
    )
    row["notes"] = sum(1 for f in findings if f["rule"] == "settings-entry-not-in-span")
    return row


def run_service(name: str, last: int) -> dict[str, Any]:
    service = SERVICES[name]
    with tempfile.TemporaryDirectory(prefix="adoption-") as work:
        folder = Path(work)
        clone = folder / "clone"
        mirror = MIRRORS / service["mirror"] / "repo"
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(clone)], check=True)
        start = time.perf_counter()
        done = cli("init", "--repo", str(clone), "--releases", str(last))
        result: dict[str, Any] = {"service": name, "language": service["language"]}
        result |= {"init_code": done.returncode}
        result["init_seconds"] = round(time.perf_counter() - start, 1)
        result["init_releases"] = [
            line.strip() for line in done.stderr.splitlines() if line.startswith("  ")
        ]
        if done.returncode != 0:
            result["init_error"] = done.stderr.strip().splitlines()[-1:]
            return result
        written = (clone / ".release-safety.toml").read_text()
        (clone / ".release-safety.toml").unlink()
        text, left = fill(written, service["reasons"])
        result |= {"written": written, "todo_left": left, "lines": len(written.splitlines())}
        commit_at_head(clone, ".release-safety.toml", text)
        read = tomllib.loads(text)
        result["floor"] = read.get("floor_version")
        result["sources"] = [s["path"] for s in read.get("migrations", {}).get("sources", [])]
        tags = releases(clone, read["tag_pattern"], last)
        result["rows"] = [judge(clone, tag, folder) for tag in tags]
        return result


def table(result: dict[str, Any]) -> str:
    lines = [
        f"### {result['service']} ({result['language']})",
        "",
        f"init: exit {result['init_code']} in {result['init_seconds']} s; "
        f"{result.get('lines', 0)} lines; floor {result.get('floor')}; migrations sources "
        f"{', '.join(f'`{s}`' for s in result.get('sources', [])) or 'none'}; TODOs left "
        f"unfilled: {', '.join(result.get('todo_left', [])) or 'none'}",
        "",
    ]
    if "init_error" in result:
        return "\n".join([*lines, f"init error: {result['init_error']}", ""])
    rows = result.get("rows", [])
    lines += release_rows(rows, ("why (first reasons)", "span notes"), _reasons)
    exit2 = sum(1 for r in rows if r["code"] == 2)
    lines += ["", f"decisive: {decisive(rows)} of {len(rows)}; exit 2: {exit2}", ""]
    return "\n".join(lines)


def _reasons(row: dict[str, Any]) -> tuple[str, str]:
    return "; ".join(row["because"]).replace("|", "\\|") or "—", row["notes"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("services", nargs="*", default=list(SERVICES))
    parser.add_argument("--last", type=int, default=15)
    parser.add_argument("--json", type=Path, help="Also write every result to this file.")
    args = parser.parse_args()
    results = []
    for name in args.services:
        result = run_service(name, args.last)
        results.append(result)
        print(table(result), flush=True)
        print(f"{name} done", file=sys.stderr, flush=True)
    print(summary(results, args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
