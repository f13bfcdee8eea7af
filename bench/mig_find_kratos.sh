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
  start=$(date +%s.%N)
  PYTHONPATH="$root/src" "$root/.venv/bin/release-safety" generate --repo "$work/kratos" \
    --from "$1" --to "$2" "${config[@]}" --out "$work/$settings-artifact.json" \
    --evidence "$work/$settings.json" >/dev/null || true
  echo "$settings: $(echo "$(date +%s.%N) - $start" | bc) s"
  python3 - "$work/$settings.json" <<'PY'
import collections, json, sys
evidence = json.load(open(sys.argv[1]))
(surface,) = [s for s in evidence["surfaces"] if s["surface"] == "migrations"]
print(" rollingUpdateSafe:", evidence["rollingUpdateSafe"], "matched:", surface["coverage"]["matched"])
found = [f for f in evidence["findings"] if f["surface"] == "migrations"]
print(" findings:", sorted(collections.Counter((f["rule"], f["severity"]) for f in found).items()))
for f in found:
    if f["severity"] == "unknown":
        print("  ", f["rule"], f["file"])
PY
done
rm -rf "$work"
