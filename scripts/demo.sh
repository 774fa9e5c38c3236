#!/usr/bin/env bash
# The main job: builds the package and the pages, then starts the backend on its embedded SQLite
# default, serving the pages at / and printing the URL and the admin token. Ctrl-C stops it.
# On a database without agents it adds the example agents of scripts/demo/ (README: "the demo").
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build-pkg.sh
npm --prefix www run build
export PORT="${PORT:-7001}"

# The backend's state lives outside the checkout (js/backend/src/config/settings.ts: a workspace root may not reach
# it): data in <state>/data, the pages served from <state>/pages, where the build just made is copied
# (unless STATIC_DIR names the caller's own folder, which is served as it is).
case "${XDG_DATA_HOME:-}" in /*) state="$XDG_DATA_HOME/netaclaw" ;; *) state="$HOME/.local/share/netaclaw" ;; esac
if [ -z "${STATIC_DIR:-}" ]; then
  export STATIC_DIR="$state/pages"
  mkdir -p "$state"
  rm -rf "$STATIC_DIR.new"
  cp -r www/dist "$STATIC_DIR.new"
  rm -rf "$STATIC_DIR"
  mv "$STATIC_DIR.new" "$STATIC_DIR"
fi

# Example data, unless the caller chose otherwise (an empty value turns an example off).
demo="$PWD/scripts/demo"
export NETACLAW_CATALOG_FILE="${NETACLAW_CATALOG_FILE-$demo/catalog.json}"
export NETACLAW_SEED_FILE="${NETACLAW_SEED_FILE-$demo/agents.json}"
export NETACLAW_MCP_SEED_FILE="${NETACLAW_MCP_SEED_FILE-$demo/mcp-servers.json}"
# Without a model channel the agents converse with the built-in demonstration model (README "the demo
# without a key"); a channel configured on the Model channels page or by NETACLAW_MODEL_* replaces it.
export NETACLAW_DEMO_MODEL="${NETACLAW_DEMO_MODEL-1}"
if [ -n "$NETACLAW_SEED_FILE" ]; then
  # the example skill, where the backend looks for skills (NETACLAW_SKILLS_DIR, else <DATA_DIR>/skills, DATA_DIR
  # defaulting to <state>/data; relative paths are the backend's, which runs in js/backend)
  skills="${NETACLAW_SKILLS_DIR:-${DATA_DIR:-$state/data}/skills}"
  case "$skills" in /*) ;; *) skills="js/backend/$skills" ;; esac
  mkdir -p "$skills"
  for s in "$demo"/skills/*/; do
    [ -e "$skills/$(basename "$s")" ] || cp -r "$s" "$skills/"
  done
fi
exec npm --prefix js/backend start
