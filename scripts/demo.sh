#!/usr/bin/env bash
# The main job: builds the package and the pages, then starts the backend on its embedded SQLite
# default, serving the pages at / and printing the URL and the admin token. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build-pkg.sh
npm --prefix www run build
export PORT="${PORT:-7001}"
exec npm --prefix js/backend start
