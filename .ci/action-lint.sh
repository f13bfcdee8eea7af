#!/usr/bin/env bash
# Lint the GitHub Action and the workflows, offline: the vendored GitHub schemas
# (check-jsonschema), zizmor with no findings, pinned `uses:`, no `${{ }}` inside `run:`, and
# shellcheck on every `run:` body of action.yml and the workflows.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-.venv/bin/python}"
bin="$(dirname "$python")"
workflows=(.github/workflows/*.yml)

echo "== check-jsonschema (vendored GitHub schemas)"
"$bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"

echo "== zizmor (offline)"
"$bin/zizmor" --offline --no-progress action.yml "${workflows[@]}"

echo "== run: bodies (pins, no expressions, shellcheck)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$python" - "$scratch" action.yml "${workflows[@]}" <<'PY'
"""Write each `run:` body to its own script; refuse expressions in them and unpinned actions."""
import re
import sys
from pathlib import Path

import yaml

scratch, files = Path(sys.argv[1]), sys.argv[2:]
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
problems = []


def steps_of(document):
    if "runs" in document:
        yield "runs", document["runs"].get("steps", [])
    for name, job in (document.get("jobs") or {}).items():
        yield name, job.get("steps", [])


for file in files:
    document = yaml.safe_load(Path(file).read_text(encoding="utf-8"))
    for job, steps in steps_of(document):
        for number, step in enumerate(steps, start=1):
            where = f"{file}: {job} step {number} ({step.get('name') or step.get('id') or ''})"
            uses = step.get("uses")
            if uses and not uses.startswith(("./", "docker://")) and not PINNED.match(uses):
                problems.append(f"{where}: `uses: {uses}` is not pinned to a full commit SHA")
            body = step.get("run")
            if body is None:
                continue
            if "${{" in body:
                problems.append(f"{where}: `${{{{ }}}}` inside run:, pass it through env:")
            shell = step.get("shell", "bash")
            if shell != "bash":
                problems.append(f"{where}: shell {shell!r}; only bash bodies are linted")
            name = f"{Path(file).stem}-{job}-{number}.sh"
            (scratch / name).write_text(f"#!/usr/bin/env bash\n{body}", encoding="utf-8")
for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
shellcheck --shell=bash "$scratch"/*.sh
echo "action-lint: ok"
