#!/usr/bin/env bash
# The runtime under hostile input for longer than the test command: the property test of tool arguments
# (js/backend/test/hostile.test.js) with many more cases, and the symlink race (test/race.test.js) with many
# more rounds. Prints the figures the tests print (cases, calls, denials; swaps; worker listings that
# showed an outside name). Usage: scripts/soak-runtime.sh [CASES] [SEED] [RACE_ROUNDS]
# (defaults 5000, 7, 1000). 20,000 cases and 1,500 rounds take a few minutes on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../js/backend"

cases="${1:-5000}"
seed="${2:-7}"
rounds="${3:-1000}"

npm run --silent build
start=$(date +%s)
HOSTILE_RUNS="$cases" HOSTILE_SEED="$seed" RACE_ROUNDS="$rounds" \
  nice node --test --test-reporter=spec test/hostile.test.js test/race.test.js 2>&1 |
  grep -E '^\s*(✔|✖|ℹ)' | grep -vE 'ℹ (suites|cancelled|skipped|todo|duration_ms)'
status=${PIPESTATUS[0]}
echo "soak: ${cases} cases (seed ${seed}), ${rounds} race rounds, $(( $(date +%s) - start )) s, exit ${status}"
exit "$status"
