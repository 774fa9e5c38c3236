#!/usr/bin/env bash
# Builds the npm package in pkg/ the ordinary way: one `cargo build` of the .wasm, wasm-bindgen's
# `--target nodejs` (the CommonJS glue, pkg/node/) and `--target web` (the browser and bundler glue,
# pkg/web/) on that same file, then binaryen's wasm-opt (scripts/wasm-opt.sh, the one place of its flags) on the
# module, which both glues then load: the same bytes are placed beside each glue. Nothing generated is
# edited. The entries (pkg/browser.mjs, pkg/index.cjs) and types (pkg/*.d.ts, pkg/*.d.mts) are
# hand-kept files that import the glue. Prints the module's size.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v wasm-bindgen >/dev/null || { echo "build-pkg: wasm-bindgen is missing; run scripts/setup.sh" >&2; exit 1; }

cargo build --locked --release --lib --target wasm32-unknown-unknown --no-default-features --features wasm
built=target/wasm32-unknown-unknown/release/netaclaw_tool_policy.wasm

rm -rf pkg/node pkg/web
wasm-bindgen --target nodejs --out-dir pkg/node --out-name netaclaw_tool_policy "$built"
wasm-bindgen --target web --out-dir pkg/web --out-name netaclaw_tool_policy "$built"
# The two targets differ in their glue only: both import the same functions into the same module.
cmp -s pkg/node/netaclaw_tool_policy_bg.wasm pkg/web/netaclaw_tool_policy_bg.wasm \
  || { echo "build-pkg: wasm-bindgen made different modules for the nodejs and web targets" >&2; exit 1; }

wasm=pkg/web/netaclaw_tool_policy_bg.wasm
scripts/wasm-opt.sh "$wasm" "$wasm"
cp "$wasm" pkg/node/netaclaw_tool_policy_bg.wasm
rm -f pkg/node/netaclaw_tool_policy_bg.wasm.d.ts pkg/web/netaclaw_tool_policy_bg.wasm.d.ts

printf '{ "type": "commonjs" }\n' > pkg/node/package.json
printf '{ "type": "module", "sideEffects": false }\n' > pkg/web/package.json

raw=$(wc -c < "$wasm"); gz=$(gzip -9 -c "$wasm" | wc -c)
echo "size: $wasm $raw bytes, $gz bytes gzip -9"
