#!/usr/bin/env bash
# The size budget of the package: fails when its .wasm (one file, pkg/web/, loaded by the Node and
# the web entries alike) is larger than the budget once compressed with gzip -9, or when the package
# ships more than that one .wasm. Run after scripts/build-pkg.sh.
# SIZE_BUDGET=<bytes> overrides the budget (default 65536, 64 KiB).
set -euo pipefail
cd "$(dirname "$0")/.."

budget="${SIZE_BUDGET:-65536}"
status=0
wasms=$(find pkg -name '*.wasm' -not -path '*/node_modules/*' | sort)
if [ "$wasms" != "pkg/web/netaclaw_tool_policy_bg.wasm" ]; then
  echo "size-check: the package must hold exactly one .wasm, pkg/web/netaclaw_tool_policy_bg.wasm; found: ${wasms:-none}" >&2
  exit 1
fi
for f in $wasms; do
  if [ ! -f "$f" ]; then
    echo "size-check: $f is missing; run scripts/build-pkg.sh first" >&2
    exit 1
  fi
  raw=$(wc -c < "$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  if [ "$gz" -le "$budget" ]; then
    echo "size-check: ok      $f: $raw bytes, $gz bytes gzip -9 (budget $budget, $((budget - gz)) to spare)"
  else
    echo "size-check: TOO BIG $f: $raw bytes, $gz bytes gzip -9 (budget $budget, over by $((gz - budget)))" >&2
    status=1
  fi
done
exit "$status"
