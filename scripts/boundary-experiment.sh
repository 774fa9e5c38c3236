#!/usr/bin/env bash
# The boundary experiment of BENCHMARKS.md: builds a copy of the crate whose bindings also offer
# checkToolCall, label, toolManifest and runtimeDiagnostic with serde-wasm-bindgen
# (`json_compatible`, plain objects) instead of JSON text (js/bench/boundary/*.rs appended to the
# copy), then times both forms of each function in Node and in headless Chromium on the same
# inputs (js/bench/boundary.mjs) and records the size of that build. Writes target/bench/boundary.json.
# Run by scripts/bench.sh after scripts/build-pkg.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
out="$PWD/$target/bench"
work="$PWD/$target/boundary"
mkdir -p "$out"
rm -rf "$work/crate" "$work/pkg"
mkdir -p "$work/crate" "$work/pkg/node" "$work/pkg/web"
cp -r Cargo.toml Cargo.lock build.rs src benches examples "$work/crate/"
cp -r fuzz "$work/crate/" 2>/dev/null || true
cat js/bench/boundary/swb.rs >> "$work/crate/src/edge/wasm.rs"
(
  cd "$work/crate"
  cargo add --quiet serde-wasm-bindgen@0.6.5 --optional
  sed -i 's/^wasm = \[\(.*\)\]/wasm = [\1, "dep:serde-wasm-bindgen"]/' Cargo.toml
  CARGO_TARGET_DIR="$work/target" cargo build --quiet --release --target wasm32-unknown-unknown --no-default-features --features wasm --lib
)
built="$work/target/wasm32-unknown-unknown/release/netaclaw_tool_policy.wasm"
wasm-bindgen --target web --out-dir "$work/pkg/web" --out-name netaclaw_tool_policy "$built"
wasm-bindgen --target nodejs --out-dir "$work/pkg/node" --out-name netaclaw_tool_policy "$built"
scripts/wasm-opt.sh "$work/pkg/web/netaclaw_tool_policy_bg.wasm" "$work/pkg/web/netaclaw_tool_policy_bg.wasm"
cp "$work/pkg/web/netaclaw_tool_policy_bg.wasm" "$work/pkg/node/netaclaw_tool_policy_bg.wasm"
printf '{ "type": "module" }\n' > "$work/pkg/web/package.json"
node js/bench/boundary.mjs --swb "$work/pkg" --inputs "$out/inputs.json" --out "$out/boundary.json" > /dev/null
