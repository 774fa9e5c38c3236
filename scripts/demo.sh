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

# Example data, unless the caller chose otherwise (an empty value turns an example off).
demo="$PWD/scripts/demo"
export NETACLAW_CATALOG_FILE="${NETACLAW_CATALOG_FILE-$demo/catalog.json}"
export NETACLAW_SEED_FILE="${NETACLAW_SEED_FILE-$demo/agents.json}"
export NETACLAW_MCP_SEED_FILE="${NETACLAW_MCP_SEED_FILE-$demo/mcp-servers.json}"
if [ -n "$NETACLAW_SEED_FILE" ]; then
  # the example skill, where the backend looks for skills (NETACLAW_SKILLS_DIR, else <DATA_DIR>/skills;
  # relative paths are the backend's, which runs in js/backend)
  skills="${NETACLAW_SKILLS_DIR:-${DATA_DIR:-data}/skills}"
  case "$skills" in /*) ;; *) skills="js/backend/$skills" ;; esac
  mkdir -p "$skills"
  for s in "$demo"/skills/*/; do
    [ -e "$skills/$(basename "$s")" ] || cp -r "$s" "$skills/"
  done
fi
exec npm --prefix js/backend start
