#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/ for SECONDS each (default 300), then prints runs, execs/s and
# findings per target. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]; JOBS=2 runs two targets at a time.
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# New inputs go to fuzz/work/<target>/ (not committed); the committed seeds in fuzz/corpus/<target>/ are
# read only. A crash leaves its input in fuzz/artifacts/<target>/ and makes the script exit non-zero.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-300}"
[ $# -gt 0 ] && shift
jobs="${JOBS:-1}"
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

cargo +nightly fuzz build -O || exit 1

run_one() {
  local t="$1" log="fuzz/work/$1.log"
  mkdir -p "fuzz/work/$t" "fuzz/corpus/$t"
  local extra=()
  [ -f "fuzz/dict/$t.dict" ] && extra+=("-dict=fuzz/dict/$t.dict")
  cargo +nightly fuzz run -O "$t" "fuzz/work/$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -len_control=0 -print_final_stats=1 "${extra[@]}" \
    >"$log" 2>&1
  echo $? >"fuzz/work/$t.status"
}

running=0
for t in "${targets[@]}"; do
  echo "fuzz: $t for ${seconds}s"
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

failed=0
printf '\n%-26s %12s %10s %8s %s\n' target runs execs/s corpus result
for t in "${targets[@]}"; do
  log="fuzz/work/$t.log"
  runs=$(grep -oE 'stat::number_of_executed_units: +[0-9]+' "$log" | awk '{print $2}' | tail -1)
  rate=$(grep -oE 'stat::average_exec_per_sec: +[0-9]+' "$log" | awk '{print $2}' | tail -1)
  corpus=$(find "fuzz/work/$t" -type f | wc -l)
  status=$(cat "fuzz/work/$t.status" 2>/dev/null || echo 1)
  if [ "$status" = 0 ]; then
    result="no findings"
  else
    result="FAILED (see $log and fuzz/artifacts/$t/)"
    failed=1
  fi
  printf '%-26s %12s %10s %8s %s\n' "$t" "${runs:-?}" "${rate:-?}" "$corpus" "$result"
done
exit "$failed"
