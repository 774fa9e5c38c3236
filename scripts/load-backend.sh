#!/usr/bin/env bash
# The backend under load for longer than the test command (js/backend/test/load.test.js): concurrent
# sub-agent batches and concurrent chat sessions against the scripted model, on SQLite and on MariaDB.
# Prints the figures the test prints (latency percentiles per operation, rows, wall time).
# Usage: scripts/load-backend.sh [ROUNDS] [BATCHES] [SESSIONS] [TURNS]   (defaults 5, 20, 50, 3)
set -euo pipefail
cd "$(dirname "$0")/../js/backend"

rounds="${1:-5}"
batches="${2:-20}"
sessions="${3:-50}"
turns="${4:-3}"

npm run --silent build
start=$(date +%s)
set +e
LOAD_ROUNDS="$rounds" LOAD_BATCHES="$batches" LOAD_SESSIONS="$sessions" LOAD_TURNS="$turns" \
  nice node --test --test-reporter=spec test/load.test.js 2>&1 |
  grep -E '^\s*(✔|✖|ℹ|▶)|Error' | grep -vE 'ℹ (suites|cancelled|skipped|todo|duration_ms)'
status=${PIPESTATUS[0]}
set -e
echo "load: ${rounds} round(s) of ${batches} batches and ${sessions} sessions × ${turns} turn(s), $(( $(date +%s) - start )) s, exit ${status}"
exit "$status"
