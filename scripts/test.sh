#!/usr/bin/env bash
# Runs every test: native Rust, the package in Node and in headless Chrome, the backend on SQLite and
# MariaDB (on the system's Node 20 and on Node 24), and the pages end to end; first, the formatters' and
# the linter's check (scripts/format.sh). Installs what is missing first (scripts/setup.sh --test).
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --test || { echo "test.sh: setup failed" >&2; exit 1; }

passed=0; failed=0; failures=""
expected_files="js/test/schema-reference.test.mjs js/test/mcp-corpus.test.mjs scripts/size-check.sh scripts/check-no-rules.mjs scripts/check-no-rules.test.mjs scripts/layers.mjs scripts/layers.test.mjs scripts/check-sleeps.mjs js/package.json js/backend/package.json www/package.json tests/web.rs scripts/test-backend-node24.sh scripts/format.sh biome.jsonc rustfmt.toml"
suite() {
  local name="$1"; shift
  printf '\n==== %s\n' "$name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failures="$failures\n  - $name"; fi
}
# A suite whose files are missing fails (naming them) rather than being skipped.
present() {
  local missing="" f
  for f in "$@"; do [ -e "$f" ] || missing="$missing $f"; done
  [ -z "$missing" ] || { echo "test.sh: expected suite files are missing:$missing" >&2; return 1; }
}

suite "style: cargo fmt and Biome" scripts/format.sh --check
suite "native: cargo test" cargo test --locked
suite "native: cargo clippy" cargo clippy --locked --all-targets -- -D warnings
suite "package: build (cargo, wasm-bindgen, wasm-opt)" scripts/build-pkg.sh
suite "package: size budget" scripts/size-check.sh
suite "package: Node tests" npm --prefix js test
# The runner stops a browser run after WASM_BINDGEN_TEST_TIMEOUT seconds (20 by default): the vectors take
# about 20 s in one browser on a busy machine, so the suites give them 300.
suite "package: headless Chrome (wasm-bindgen-test)" env WASM_BINDGEN_TEST_TIMEOUT=300 CHROMEDRIVER=/usr/bin/chromedriver \
  wasm-pack test --headless --chrome -- --features wasm --test web
suite "package: headless Firefox (wasm-bindgen-test)" env WASM_BINDGEN_TEST_TIMEOUT=300 GECKODRIVER="$(command -v geckodriver)" \
  wasm-pack test --headless --firefox -- --features wasm --test web
suite "pages and backend: no rule restated (the check, and its test on planted literals)" \
  bash -c 'node --test scripts/check-no-rules.test.mjs && node scripts/check-no-rules.mjs'
suite "backend and pages: layers and import cycles (the check, and its test on planted imports)" \
  bash -c 'node --test scripts/layers.test.mjs && node scripts/layers.mjs'
suite "tests: none asserts after a fixed sleep (the check, and its test on planted sleeps)" \
  bash -c 'node scripts/check-sleeps.mjs --self-test && node scripts/check-sleeps.mjs'
suite "backend: SQLite and MariaDB (Node $(node --version))" env REQUIRE_MARIADB=1 REQUIRE_REDIS=1 npm --prefix js/backend test
suite "backend: SQLite and MariaDB (Node 24)" env REQUIRE_MARIADB=1 REQUIRE_REDIS=1 scripts/test-backend-node24.sh
suite "pages: vue-tsc" npm --prefix www run typecheck
suite "pages: end to end in headless Chromium" npm --prefix www run test:e2e

suite "every expected suite is present" present $expected_files

printf '\n==== summary\n'
[ -n "$failures" ] && printf 'failed suites:%b\n' "$failures"
echo "suites: $passed passed, $failed failed"
[ "$failed" = 0 ]
