#!/usr/bin/env bash
# Fresh installs side by side: the core (`pip install .`), the core with the evaluator extra,
# the Action's locked install, and optionally the core of another commit (BASE=REF, e.g. a
# commit before the evaluator extra), each from `git archive` of HEAD (or BASE). Prints packages
# installed (pip itself not counted), the size of site-packages and the wall time of each.
# Every venv is new; pip's cache is off.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

measure() {  # label, source tree, pip arguments...
  local label="$1" tree="$2"; shift 2
  python3 -m venv "$work/$label"
  local start end
  start=$(date +%s.%N)
  (cd "$tree" && "$work/$label/bin/python" -m pip install -q --no-cache-dir "$@" 2>/dev/null)
  end=$(date +%s.%N)
  local count size
  count=$("$work/$label/bin/python" -m pip list --format=freeze 2>/dev/null | grep -vc '^pip==')
  size=$(du -sm "$work/$label"/lib/python3*/site-packages | cut -f1)
  printf '%-16s %4s packages %5s MB %6s s\n' "$label" "$count" "$size" \
    "$(python3 -c "print(f'{$end - $start:.1f}')")"
  rm -rf "${work:?}/$label"
}

mkdir "$work/head"
git -C "$here" archive HEAD | tar -x -C "$work/head"
echo "load: $(uptime | sed 's/.*load average: //')"
if [ -n "${BASE:-}" ]; then
  mkdir "$work/base"
  git -C "$here" archive "$BASE" | tar -x -C "$work/base"
  measure base-core "$work/base" .
fi
measure core "$work/head" .
measure core+evaluator "$work/head" '.[evaluator]'
measure action-lock "$work/head" --require-hashes -r requirements.lock
echo "load: $(uptime | sed 's/.*load average: //')"
