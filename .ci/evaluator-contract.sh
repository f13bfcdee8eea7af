#!/usr/bin/env bash
# Contract check of the evaluator: serve the bundled seed with a fixed clock on a free loopback
# port, run schemathesis (through `release-safety contract-check`, fixed seed, bounded examples)
# plus the replay of the caller's history, stop the server, fail on any failure.
# Needs the project's venv python (with release-safety installed) first on PATH; it runs
# `python -m release_safety`.
set -euo pipefail

NOW="2026-11-20T12:00:00Z"
# Alice (admin of Jaffle Shop in the seed) and her project; see docs/evaluator.md.
TOKEN="ldpat_a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
PROJECT="38fe0cd9-1800-5781-80b3-bc8af3bee428"
SEED="${EVALUATOR_CONTRACT_SEED:-20261120}"
EXAMPLES="${EVALUATOR_CONTRACT_EXAMPLES:-5}"

PORT="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
BASE="http://127.0.0.1:${PORT}"
WORK="$(mktemp -d)"
SERVER_PID=""

cleanup() {
  if [[ -n "${SERVER_PID}" ]] && kill -0 "${SERVER_PID}" 2>/dev/null; then
    kill "${SERVER_PID}" 2>/dev/null || true
    wait "${SERVER_PID}" 2>/dev/null || true
  fi
  rm -rf "${WORK}"
}
trap cleanup EXIT INT TERM

python -m release_safety serve-evaluator --port "${PORT}" --now "${NOW}" >"${WORK}/server.log" 2>&1 &
SERVER_PID=$!

for _ in $(seq 1 100); do
  if python -c 'import sys, httpx; httpx.get(sys.argv[1], timeout=1)' "${BASE}/" 2>/dev/null; then
    break
  fi
  if ! kill -0 "${SERVER_PID}" 2>/dev/null; then
    echo "evaluator-contract: the server did not start:" >&2
    cat "${WORK}/server.log" >&2
    exit 3
  fi
  sleep 0.2
done

python -m release_safety serve-evaluator --print-openapi >"${WORK}/openapi.json"

status=0
python -m release_safety contract-check \
  --spec "${WORK}/openapi.json" \
  --base-url "${BASE}" \
  --token "${TOKEN}" \
  --param "projectUuid=${PROJECT}" \
  --replay \
  --seed "${SEED}" \
  --max-examples "${EXAMPLES}" || status=$?

if [[ ${status} -ne 0 ]]; then
  echo "evaluator-contract: FAILED (exit ${status})" >&2
  echo "--- server log ---" >&2
  tail -n 50 "${WORK}/server.log" >&2 || true
fi
exit "${status}"
