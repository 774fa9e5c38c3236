#!/usr/bin/env bash
# Builds the npm package in pkg/: the Node (CommonJS) build in pkg/node and the browser/bundler build
# in pkg/web, each optimized for size with binaryen's wasm-opt, then prints their sizes.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_OPT="${WASM_OPT:-js/node_modules/.bin/wasm-opt}"
[ -x "$WASM_OPT" ] || { echo "build-pkg: $WASM_OPT is missing; run scripts/setup.sh (it installs js/ with binaryen)" >&2; exit 1; }

for target in nodejs web; do
  out=pkg/node; [ "$target" = web ] && out=pkg/web
  wasm-pack build --release --target "$target" --out-dir "$out" --out-name netaclaw_tool_policy --no-pack -- --features wasm
  rm -f "$out/.gitignore"
  # -Oz to a fixed point; the name, producers and target-features sections are of no use past
  # wasm-bindgen (the release profile keeps symbols so that wasm-bindgen can read the features).
  # The module owns its memory: it starts zeroed, and Rust lays out nothing in its first KiB.
  # Only small functions are inlined into their single caller (-ocimfs): inlining every such function
  # builds a few huge functions with hundreds of locals, whose unique local indices compress worse
  # under gzip than the calls they save.
  "$WASM_OPT" -Oz --converge -ocimfs 14 --low-memory-unused --zero-filled-memory \
    --strip-debug --strip-producers --strip-target-features \
    --enable-bulk-memory --enable-reference-types --enable-multivalue \
    --enable-nontrapping-float-to-int --enable-sign-ext \
    "$out/netaclaw_tool_policy_bg.wasm" -o "$out/netaclaw_tool_policy_bg.wasm"
done
printf '{ "type": "commonjs" }\n' > pkg/node/package.json
printf '{ "type": "module", "sideEffects": false }\n' > pkg/web/package.json

for f in pkg/node/netaclaw_tool_policy_bg.wasm pkg/web/netaclaw_tool_policy_bg.wasm; do
  raw=$(wc -c < "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  echo "size: $f $raw bytes, $gz bytes gzip -9"
done
