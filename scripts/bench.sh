#!/usr/bin/env bash
# Regenerates BENCHMARKS.md: builds the package, then runs the native benchmarks (criterion,
# benches/policy.rs), the Node benchmarks (with Cedar's package beside ours for cold start) and the
# same in headless Chromium (js/bench/), on the same inputs, the boundary experiment
# (scripts/boundary-experiment.sh) and the runtime's own costs (js/bench/runtime.cjs), and writes
# the tables; the sandbox network's proxy latency (js/backend/bench/net-proxy.cjs) is printed and kept in
# target/bench/net-proxy.json (BENCHMARKS.md "Sandbox network" is written by hand from it), and so are what a
# session costs (js/bench/session-cost.cjs → target/bench/session-cost.json) and the scale-out load test
# (js/backend/bench/load.cjs: 200 chat turns across 3 instances on MariaDB + Redis → target/bench/scale-load.json;
# BENCHMARKS.md "Scale-out" is written by hand from both). Takes a few minutes; run it on an otherwise idle machine.
# BENCH_SKIP_BUILD=1 reuses the package already in pkg/.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
out="$target/bench"
mkdir -p "$out"

# The machine is shared: its load average when the run starts and when it ends goes into the report.
load() { cut -d' ' -f1-3 /proc/loadavg; }
# The machine's CPU time so far (user, nice, system, idle, iowait, irq, softirq, steal, in ticks): the
# share of the run's time the host gave to other machines (steal) goes into the report.
cpu_times() { awk '/^cpu / { printf "[%s,%s,%s,%s,%s,%s,%s,%s]", $2, $3, $4, $5, $6, $7, $8, $9 }' /proc/stat; }
start_load="$(load)"
start_cpu="$(cpu_times)"
[ "${BENCH_SKIP_BUILD:-0}" = 1 ] || scripts/build-pkg.sh
[ -d js/node_modules/playwright-core ] && [ -d js/node_modules/@cedar-policy/cedar-wasm ] || npm --prefix js ci

{
  printf '{ "files": ['
  sep=''
  for f in pkg/web/netaclaw_tool_policy_bg.wasm; do
    printf '%s{ "file": "%s", "raw": %s, "gzip": %s }' "$sep" "$f" "$(wc -c < "$f")" "$(gzip -9 -c "$f" | wc -c)"
    sep=', '
  done
  printf '] }\n'
} > "$out/size.json"

echo "bench: native (criterion)"
BENCH_INPUTS_OUT="$PWD/$out/inputs.json" cargo bench --bench policy
echo "bench: Node"
node js/bench/node.mjs --inputs "$out/inputs.json" --out "$out/node.json" > /dev/null
echo "bench: headless Chromium"
# First visits of a page bundled as www need www's Vite, and the backend's compiled page files
# (js/backend/dist/http/pagefiles.js), which serve the pages as the backend does.
[ -d www/node_modules/vite ] || npm --prefix www ci
[ -d js/backend/node_modules ] || npm --prefix js/backend ci
npm --prefix js/backend run build > /dev/null
node js/bench/browser.mjs --inputs "$out/inputs.json" --out "$out/browser.json" > /dev/null
echo "bench: the boundary, JSON text against serde-wasm-bindgen"
scripts/boundary-experiment.sh
echo "bench: the runtime's own costs (js/backend's compiled runtime, built above)"
node js/bench/runtime.cjs --out "$out/runtime.json" > /dev/null
echo "bench: the sandbox network's proxy, one HTTPS connection on loopback against a direct one"
node js/backend/bench/net-proxy.cjs --rounds 50 --out "$out/net-proxy.json"
echo "bench: what a session costs, a worker beside a bare Node process"
node js/bench/session-cost.cjs --runs 5 --out "$out/session-cost.json"
echo "bench: the scale-out load test, 200 chat turns across 3 instances (MariaDB + Redis)"
node js/backend/bench/load.cjs --turns 200 --instances 3 --out "$out/scale-load.json"
printf '{ "start": "%s", "end": "%s", "cpuStart": %s, "cpuEnd": %s }\n' "$start_load" "$(load)" "$start_cpu" "$(cpu_times)" > "$out/load.json"
node js/bench/report.mjs --dir "$out" --criterion "$target/criterion" --out BENCHMARKS.md
