#!/usr/bin/env bash
# The formatters and linters that hold the code's style: `cargo fmt` (rustfmt.toml) for the crate and its
# fuzz targets (their own workspace), Biome (biome.jsonc) for the backend, the pages, their tests and the
# scripts. Biome is the pinned devDependency of js/package.json (`npm ci --prefix js`; scripts/setup.sh
# installs it).
#   scripts/format.sh [--check]   fails, naming the files, when any file is not formatted or a lint rule fails
#   scripts/format.sh --write     formats every file in place (lint findings are fixed by hand)
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:---check}"
case "$mode" in
  --check | --write) ;;
  *) echo "usage: scripts/format.sh [--check | --write]" >&2; exit 2 ;;
esac

biome=js/node_modules/.bin/biome
if [ ! -x "$biome" ]; then
  echo "format.sh: Biome is not installed (run: npm ci --prefix js)" >&2
  exit 1
fi

if [ "$mode" = --write ]; then
  cargo fmt --all
  cargo fmt --manifest-path fuzz/Cargo.toml
  "$biome" format --write .
  exit 0
fi

status=0
cargo fmt --all --check || { echo "format.sh: Rust code is not formatted (run scripts/format.sh --write)" >&2; status=1; }
cargo fmt --manifest-path fuzz/Cargo.toml --check || { echo "format.sh: the fuzz targets are not formatted (run scripts/format.sh --write)" >&2; status=1; }
# `biome ci`: formatting and lint, read-only; it reports every file that differs and every finding.
"$biome" ci --max-diagnostics=none . || { echo "format.sh: Biome found unformatted files or lint findings (format: scripts/format.sh --write; findings are fixed by hand)" >&2; status=1; }
exit "$status"
