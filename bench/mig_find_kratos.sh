#!/usr/bin/env bash
# Run `generate` on ory/kratos releases with popx settings and with discovery alone.
# Usage: bench/mig_find_kratos.sh FROM TO   (the mirror comes from the search tool's fetch)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
git clone -q /work/.mirror/ory+kratos/repo "$work/kratos"
cat > "$work/popx.toml" <<'TOML'
[[migrations.sources]]
path = "persistence/sql/migrations/sql"
format = "popx"
TOML
for settings in popx discovery; do
  config=()
  [ "$settings" = popx ] && config=(--config "$work/popx.toml")
  PYTHONPATH="$root/src" "$root/.venv/bin/release-safety" generate --repo "$work/kratos" \
    --from "$1" --to "$2" "${config[@]}" --out - --evidence "$work/$settings.json" \
    | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sys.argv[1], json.dumps({k: d[k] for k in d if k in ("safe","upgradeSafe","verdict")}))' "$settings" || true
  python3 - "$work/$settings.json" <<'PY'
import json, sys, collections
data = json.load(open(sys.argv[1]))
found = [f for f in json.dumps(data) and data.get("findings", []) if f.get("surface") == "migrations"]
print(" migrations findings:", dict(collections.Counter((f["rule"], f["severity"]) for f in found)))
PY
done
rm -rf "$work"
