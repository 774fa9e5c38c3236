#!/usr/bin/env bash
# Usage: scripts/drop-dead-table-entries.sh <module.wasm> <glue.js>... (rewrites the module in place;
# run before wasm-opt, on wasm-bindgen's output, which keeps the name section).
#
# Dead entries of the function table. Linking js-sys (tsify's `js` feature depends on it) keeps, for
# every closure type its declarations name, wasm-bindgen's invoke shim in the table (the address was
# taken by a describe function that wasm-bindgen then removed), plus js-sys's own future wakers: nothing
# calls them, since neither glue hands a closure to JavaScript (checked below) and the crate does not
# use js-sys. Each such entry becomes one function that traps, the table keeping its indices, so that
# wasm-opt drops the shims (821 bytes gzip -9 of the package's .wasm).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" -ge 2 ] || { echo "usage: scripts/drop-dead-table-entries.sh <module.wasm> <glue.js>..." >&2; exit 2; }
wasm="$1"
bin="${WASM_OPT:-js/node_modules/.bin/wasm-opt}"
WASM_DIS="$(dirname "$bin")/wasm-dis"
WASM_AS="$(dirname "$bin")/wasm-as"
if grep -q -E 'makeMutClosure|makeClosure|CLOSURE_DTORS' "${@:2}"; then
  echo "drop-dead-table-entries: a glue hands closures to JavaScript; the closure shims are live, keep them" >&2
  exit 1
fi
features="--enable-bulk-memory --enable-reference-types --enable-multivalue --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals"
wat="$(mktemp -d)/module.wat"
"$WASM_DIS" "$wasm" -o "$wat"
node - "$wat" <<'EOF'
const fs = require('fs');
const file = process.argv[2];
const lines = fs.readFileSync(file, 'utf8').split('\n');
const at = lines.findIndex((l) => l.startsWith(' (elem $0 (table $0) '));
if (at < 0 || lines.findIndex((l, i) => i > at && l.startsWith(' (elem ')) >= 0) throw new Error('drop-dead-table-entries: expected one element segment');
const dead = /\$(wasm_bindgen::convert::closures::_::invoke|js_sys::[A-Za-z_:]+)::h[0-9a-f]+(?=[ )])/g;
// The `Display` of a `RefCell` borrow error prints the panic of a double borrow. When the module's
// only such panic is in js-sys's future waker (dropped above), nothing formats one, and their entries
// only keep `Formatter::pad` and its character counting (about 1.4 KB) alive: they are dropped too.
// A module with such a panic anywhere else (another build, e.g. the boundary experiment's) keeps them.
const borrowError = /\$"<core\[[0-9a-f]+\]::cell::Borrow(?:Mut)?Error as core\[[0-9a-f]+\]::fmt::Display>::fmt"/g;
let caller = '';
let borrowPanicElsewhere = '';
for (const line of lines) {
  if (line.startsWith(' (func ')) caller = line;
  else if (/call \$"?core\[[0-9a-f]+\]::cell::panic_already/.test(line) && !caller.startsWith(' (func $js_sys::')) {
    borrowPanicElsewhere ||= caller.slice(0, 120);
  }
}
if (borrowPanicElsewhere) console.log(`drop-dead-table-entries: RefCell borrow errors kept, a borrow panic is in ${borrowPanicElsewhere.trim()}`);
const dropped = borrowPanicElsewhere ? dead : new RegExp(`${dead.source}|${borrowError.source}`, 'g');
const count = (lines[at].match(dropped) || []).length;
lines[at] = lines[at].replace(dropped, '$__dead_table_entry');
lines.splice(at + 1, 0, ' (func $__dead_table_entry\n  (unreachable)\n )');
fs.writeFileSync(file, lines.join('\n'));
console.log(`drop-dead-table-entries: ${count} dead table entries replaced by one trapping function`);
EOF
"$WASM_AS" "$wat" -o "$wasm" $features
rm -r "$(dirname "$wat")"
