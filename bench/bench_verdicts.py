"""How decisive the verdicts are on real repositories, release by release.

    python bench/bench_verdicts.py --svix /path/to/svix.git --harbor /path/to/harbor.git \
        [--last 20] [--also harbor:v2.8.1 --also svix:v1.77.0]

The repositories are public ones brought with the search tool's `fetch` (bare git
directories); they are cloned to a temporary folder here and never committed. Each of the last
N release tags is generated as a release pipeline would (`release-safety generate --to TAG`,
whole process, with the settings a user would write: `SETTINGS` of bench_backfill.py, passed
with `--config`), and one Markdown row per release says the verdict, what it rests on (the
rule ids of the decision's findings, with the file of each breaking one), which surfaces were
checked, and the wall time. `--also NAME:TAG` adds older releases worth a look.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_backfill import SETTINGS, clone


def release_tags(repo: Path, settings: Path, last: int) -> list[str]:
    """The newest `last` release tags, oldest first, as the tool orders them."""
    from release_safety.git.repository import GitRepo
    from release_safety.settings.model import load_settings

    repository = GitRepo(repo)
    try:
        tags = repository.release_tags(load_settings(repo, settings).tags)
    finally:
        repository.close()
    return [t.tag for t in tags[-last:]]


def generate(repo: Path, tag: str, settings: Path, folder: Path) -> tuple[dict[str, Any], float]:
    evidence = folder / f"{tag}.evidence.json"
    command = [sys.executable, "-m", "release_safety", "generate", "--repo", str(repo)]
    command += ["--to", tag, "--config", str(settings), "--out", str(folder / f"{tag}.json")]
    command += ["--evidence", str(evidence)]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=os.environ)
    return json.loads(evidence.read_text()), time.perf_counter() - start


def row(tag: str, evidence: dict[str, Any], seconds: float) -> str:
    verdict = evidence["rollingUpdateSafe"]
    shown = {True: "true", False: "**false**", "unknown": "unknown"}[verdict]
    because = evidence["because"]
    rules = Counter(f["rule"] for f in because)
    reasons = ", ".join(f"`{rule}`" + (f" ×{n}" if n > 1 else "") for rule, n in rules.items())
    files = sorted({f["file"].rsplit("/", 1)[-1] for f in because if f["severity"] == "breaking"})
    if files:
        reasons += " (" + ", ".join(files[:3]) + (" …" if len(files) > 3 else "") + ")"
    unchecked = [s["surface"] for s in evidence["surfaces"] if not s["checked"]]
    return (
        f"| {tag} | {shown} | {reasons or '–'} | {', '.join(unchecked) or 'all checked'} "
        f"| {seconds:.1f} s |"
    )


def bench(name: str, source: Path, last: int, also: list[str], folder: Path) -> list[str]:
    repo = clone(source, folder)
    settings = folder / "settings.toml"
    settings.write_text(SETTINGS[name])
    os.environ["RELEASE_SAFETY_CACHE_DIR"] = str(folder / "cache")
    lines = [
        f"### {name}: the last {last} releases",
        "",
        "| release | verdict | rests on | not checked | wall |",
        "| --- | --- | --- | --- | --- |",
    ]
    verdicts: Counter[str] = Counter()
    newest = release_tags(repo, settings, last)
    for tag in [*also, *newest]:
        evidence, seconds = generate(repo, tag, settings, folder)
        if tag in newest:
            verdicts[str(evidence["rollingUpdateSafe"])] += 1
        lines.append(row(tag, evidence, seconds))
        print(lines[-1], file=sys.stderr, flush=True)  # progress
    decided = verdicts["True"] + verdicts["False"]
    lines += [
        "",
        f"Decisive over the last {last}: {decided} of {sum(verdicts.values())} "
        f"(true {verdicts['True']}, false {verdicts['False']}, unknown {verdicts['unknown']}).",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--svix", type=Path, help="bare git directory of svix/svix-webhooks")
    parser.add_argument("--harbor", type=Path, help="bare git directory of goharbor/harbor")
    parser.add_argument("--last", type=int, default=20)
    parser.add_argument("--also", action="append", default=[], help="NAME:TAG, e.g. svix:v1.77.0")
    args = parser.parse_args()
    report: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-verdicts-") as tmp:
        for name, source in (("harbor", args.harbor), ("svix", args.svix)):
            if source is not None:
                folder = Path(tmp) / name
                folder.mkdir()
                also = [a.split(":", 1)[1] for a in args.also if a.startswith(f"{name}:")]
                report += [*bench(name, source, args.last, also, folder), ""]
    print("\n".join(report))


if __name__ == "__main__":
    main()
