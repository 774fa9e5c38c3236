#!/usr/bin/env bash
# The size budget of the package: fails when its WebAssembly module is larger than the budget once
# compressed with gzip -9. The module is shipped beside each glue (pkg/node/ for `require` and
# `import` in Node, pkg/web/ for browsers and bundlers); the two files must be the same bytes, and no
# other .wasm may be shipped. Run after scripts/build-pkg.sh.
# SIZE_BUDGET=<bytes> overrides the budget (default 131072 bytes, 128 KiB: the JSON Schema validator with
# its linear-time pattern engine, and the rule model, live within it; 98304, 96 KiB, before).
set -euo pipefail
cd "$(dirname "$0")/.."

budget="${SIZE_BUDGET:-131072}"
expected="pkg/node/netaclaw_tool_policy_bg.wasm
pkg/web/netaclaw_tool_policy_bg.wasm"
wasms=$(find pkg -name '*.wasm' -not -path '*/node_modules/*' | sort)
if [ "$wasms" != "$expected" ]; then
  echo "size-check: the package must hold exactly pkg/node/netaclaw_tool_policy_bg.wasm and pkg/web/netaclaw_tool_policy_bg.wasm; found: ${wasms:-none} (run scripts/build-pkg.sh first)" >&2
  exit 1
fi
if ! cmp -s pkg/node/netaclaw_tool_policy_bg.wasm pkg/web/netaclaw_tool_policy_bg.wasm; then
  echo "size-check: pkg/node/ and pkg/web/ hold different modules; the package ships one module" >&2
  exit 1
fi
f=pkg/web/netaclaw_tool_policy_bg.wasm
raw=$(wc -c < "$f")
gz=$(gzip -9 -c "$f" | wc -c)
if [ "$gz" -le "$budget" ]; then
  echo "size-check: ok      $f: $raw bytes, $gz bytes gzip -9 (budget $budget, $((budget - gz)) to spare)"
else
  echo "size-check: TOO BIG $f: $raw bytes, $gz bytes gzip -9 (budget $budget, over by $((gz - budget)))" >&2
  exit 1
fi
