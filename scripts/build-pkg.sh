#!/usr/bin/env bash
# Builds the npm package in pkg/: the browser/bundler entry pkg/browser.mjs (the web glue and the
# entry in one module), the Node ES entry pkg/index.mjs (likewise one module), the Node (CommonJS) glue
# in pkg/node, and one .wasm
# (pkg/web/netaclaw_tool_policy_bg.wasm) that both load, optimized for size with binaryen's wasm-opt;
# then prints its size.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_OPT="${WASM_OPT:-js/node_modules/.bin/wasm-opt}"
[ -x "$WASM_OPT" ] || { echo "build-pkg: $WASM_OPT is missing; run scripts/setup.sh (it installs js/ with binaryen)" >&2; exit 1; }

wasm=pkg/web/netaclaw_tool_policy_bg.wasm
for target in nodejs web; do
  out=pkg/node; [ "$target" = web ] && out=pkg/web
  wasm-pack build --release --target "$target" --out-dir "$out" --out-name netaclaw_tool_policy --no-pack -- --features wasm
  rm -f "$out/.gitignore"
done

# Both glues are generated from the same compiled module: one .wasm is shipped, the web build's.
cmp -s pkg/node/netaclaw_tool_policy_bg.wasm "$wasm" || { echo "build-pkg: the node and web builds made different .wasm files" >&2; exit 1; }
rm -f pkg/node/netaclaw_tool_policy_bg.wasm pkg/node/netaclaw_tool_policy_bg.wasm.d.ts
node - pkg/node/netaclaw_tool_policy.js <<'EOF'
// The Node glue reads the .wasm next to it; point it at the web build's copy.
const fs = require('fs');
const file = process.argv[2];
const text = fs.readFileSync(file, 'utf8');
const from = '`${__dirname}/netaclaw_tool_policy_bg.wasm`';
const to = "require('path').join(__dirname, '..', 'web', 'netaclaw_tool_policy_bg.wasm')";
if (text.split(from).length !== 2) throw new Error(`build-pkg: ${file} does not load the .wasm as expected`);
fs.writeFileSync(file, text.replace(from, to));
EOF
# The glue's JavaScript snippet (`inline_js` in src/edge/wasm.rs: the package's own few functions) goes
# into the glue itself: no extra module to fetch in a browser, and CommonJS has no `export` to require.
# The glue imports it by name (`{ f }`) and, for the functions the module imports directly, as a
# namespace (`import1`); both become the functions defined in the glue.
for glue in pkg/node/netaclaw_tool_policy.js pkg/web/netaclaw_tool_policy.js; do
  node - "$glue" <<'EOF'
const fs = require('fs');
const path = require('path');
const file = process.argv[2];
let text = fs.readFileSync(file, 'utf8');
const spec = String.raw`(\./snippets/[\w.-]+/inline0\.js)`;
const named = new RegExp(String.raw`^(?:const \{ [\w, ]+ \} = require\(String\.raw\`${spec}\`\);|import \{ [\w, ]+ \} from '${spec}';)$`, 'm');
const whole = new RegExp(String.raw`^(?:const (import\d+) = require\("${spec}"\);|import \* as (import\d+) from "${spec}";?)$`, 'm');
const at = text.match(named) ?? text.match(whole);
if (!at) throw new Error(`build-pkg: ${file}: no snippet import found`);
const snippet = at.slice(1).find((s) => s && s.startsWith('./snippets/'));
const code = fs.readFileSync(path.join(path.dirname(file), snippet), 'utf8');
if (/\b(import|require)\b/.test(code)) throw new Error(`build-pkg: ${file}: the snippet is not plain functions`);
const names = [...code.matchAll(/^export function (\w+)\(/gm)].map((m) => m[1]);
const functions = code.replace(/^export function /gm, 'function ').trimEnd();
let defined = false;
for (;;) {
  const n = text.match(named), w = text.match(whole);
  if (n) {
    text = text.replace(n[0], () => (defined ? '' : functions));
    defined = true;
  } else if (w) {
    text = text.replace(w[0], () => `const ${w[1] ?? w[3]} = { ${names.join(', ')} };`);
  } else break;
}
if (!defined) text = functions + '\n' + text;
// `ToolCallChecker.checkText` is the snippet's `checkTextOf`, which writes the strings into wasm
// memory itself and calls the exports `checkText` (their byte lengths in, where the answer's fields
// are out) and `room` directly: the generated methods calling those exports go, so that nothing else
// can (what the export reads must be the UTF-8 the snippet wrote).
const generated = /^    checkText\(name, argumentsJson\) \{\n(?:        .*\n)+?    \}\n/m;
const room = /^    \/\*\*\n(?:     \*.*\n)+?     \*\/\n    room\(size\) \{\n(?:        .*\n)+?    \}\n/m;
if (!generated.test(text) || !room.test(text) || !names.includes('checkTextOf') || !/\bfunction takeFromExternrefTable0\(/.test(text)) throw new Error(`build-pkg: ${file}: ToolCallChecker's checkText and room not found as expected`);
text = text.replace(generated, () => '    checkText(name, argumentsJson) {\n        return checkTextOf(this, name, argumentsJson);\n    }\n').replace(room, '');
if (/\btoolcallchecker_(checkText|room)\(this/.test(text)) throw new Error(`build-pkg: ${file}: a method still calls checkText's exports`);
// What is left names the snippet only as a key of the import object.
for (const line of text.split('\n')) {
  if (line.includes('snippets/') && !/^\s*"\.\/snippets\/[\w.-]+\/inline0\.js": import\d+,$/.test(line)) throw new Error(`build-pkg: ${file}: unexpected snippet reference: ${line}`);
}
fs.writeFileSync(file, text);
EOF
  rm -rf "$(dirname "$glue")/snippets"
done

# The types declare `[Symbol.dispose]` only where the consumer's TypeScript library knows it: a
# consumer targeting es2022 without `esnext.disposable` would otherwise fail (TS2550). The method
# stays at runtime wherever the JavaScript engine has `Symbol.dispose`; `free()` is always declared.
for dts in pkg/node/netaclaw_tool_policy.d.ts pkg/web/netaclaw_tool_policy.d.ts; do
  node - "$dts" <<'EOF'
const fs = require('fs');
const file = process.argv[2];
const text = fs.readFileSync(file, 'utf8');
const lines = text.split('\n');
const kept = lines.filter((l) => l.trim() !== '[Symbol.dispose](): void;');
// One declaration per class (each has free()); anything else means the generated shape changed.
if (lines.length - kept.length !== text.split('free(): void;').length - 1) throw new Error(`build-pkg: ${file}: [Symbol.dispose] declarations not one per class`);
fs.writeFileSync(file, kept.join('\n'));
EOF
done

# The function table's entries nothing can call point at one trapping function, so that wasm-opt
# drops what they held (scripts/drop-dead-table-entries.sh says which and why).
scripts/drop-dead-table-entries.sh "$wasm" pkg/web/netaclaw_tool_policy.js pkg/node/netaclaw_tool_policy.js

# The browser entry is one module (the web glue with its init), so that an unbundled import is one
# module request beside the .wasm rather than entry, then glue, then .wasm.
node scripts/browser-entry.mjs pkg/web/netaclaw_tool_policy.js pkg/browser.mjs

# -Oz to a fixed point; the name, producers and target-features sections are of no use past
# wasm-bindgen (the release profile keeps symbols so that wasm-bindgen can read the features).
# The module owns its memory: it starts zeroed, and Rust lays out nothing in its first KiB.
# Only small functions are inlined into their single caller (-ocimfs): inlining every such function
# builds a few huge functions with hundreds of locals, whose unique local indices compress worse
# under gzip than the calls they save (14 gave the smallest gzip of 10-30 on this module).
"$WASM_OPT" -Oz --converge -ocimfs 14 --low-memory-unused --zero-filled-memory \
  --strip-debug --strip-producers --strip-target-features \
  --enable-bulk-memory --enable-reference-types --enable-multivalue \
  --enable-nontrapping-float-to-int --enable-sign-ext \
  "$wasm" -o "$wasm"
# The Node ES entry is one module too (the web glue, instantiated from the .wasm read with fs), sharing
# its instance with the CommonJS glue through a symbol keyed by the final .wasm's digest.
node scripts/node-entry.mjs pkg/web/netaclaw_tool_policy.js pkg/node/netaclaw_tool_policy.js "$wasm" pkg/package.json pkg/index.mjs
printf '{ "type": "commonjs" }\n' > pkg/node/package.json
printf '{ "type": "module", "sideEffects": false }\n' > pkg/web/package.json

raw=$(wc -c < "$wasm"); gz=$(gzip -9 -c "$wasm" | wc -c)
echo "size: $wasm $raw bytes, $gz bytes gzip -9"
