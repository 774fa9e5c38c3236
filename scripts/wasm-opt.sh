#!/usr/bin/env bash
# binaryen's wasm-opt with the package's flags, the one place they are written (scripts/build-pkg.sh and
# the bench's scripts/boundary-experiment.sh run it). Usage: scripts/wasm-opt.sh <in.wasm> <out.wasm>
#
# -Oz to a fixed point; the name, producers and target-features sections are of no use past
# wasm-bindgen (the release profile keeps symbols so that wasm-bindgen can read the features).
# The module owns its memory: it starts zeroed, and Rust lays out nothing in its first KiB.
# Functions of up to 30 bytes are inlined into their single caller (-ocimfs 30), and functions of up to
# 16 bytes into every caller (-aimfs 16): V8 compiles a function of the module when it is first called,
# at a cost per function as well as per byte, so a first call that runs fewer functions compiles less
# (`runtimeDiagnostic({})`: 222 functions rather than 295, about 7% fewer instructions in all, for 983
# bytes gzip). Inlining every single-caller function builds a few huge functions with hundreds of
# locals, whose unique local indices compress worse under gzip than the calls they save (at 50 bytes:
# about 1 KB more), and whose compilation takes longer; beyond 16 bytes the inlining into every caller
# costs more bytes than it saves instructions (docs/architecture.md, "The first call").
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" = 2 ] || { echo "usage: scripts/wasm-opt.sh <in.wasm> <out.wasm>" >&2; exit 2; }
WASM_OPT="${WASM_OPT:-js/node_modules/.bin/wasm-opt}"
[ -x "$WASM_OPT" ] || { echo "wasm-opt.sh: $WASM_OPT is missing; run scripts/setup.sh (it installs js/ with binaryen)" >&2; exit 1; }
exec "$WASM_OPT" -Oz --converge -ocimfs 30 -aimfs 16 --low-memory-unused --zero-filled-memory \
  --strip-debug --strip-producers --strip-target-features \
  --enable-bulk-memory --enable-reference-types \
  --enable-nontrapping-float-to-int --enable-sign-ext \
  "$1" -o "$2"
