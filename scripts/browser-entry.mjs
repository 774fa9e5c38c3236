// Writes the package's browser entry, pkg/browser.mjs, from wasm-bindgen's web glue: one ES module
// that holds the glue, instantiates the `.wasm` once (top-level await, streaming compile) and exports
// the API. A page that imports it unbundled makes two requests, the entry and the `.wasm` (which a
// preload hint starts at once), instead of three one after another (entry, then glue, then `.wasm`).
// Bundlers still find the `.wasm` through `new URL('./web/…', import.meta.url)` and emit it as an asset.
// Usage: node scripts/browser-entry.mjs <web glue .js> <out .mjs> (run by scripts/build-pkg.sh)
import fs from 'node:fs';
import { fail, once as onceIn, selfContained } from './glue-text.mjs';

const [glueFile, outFile] = process.argv.slice(2);
if (!glueFile || !outFile) {
  console.error('usage: node scripts/browser-entry.mjs <web glue .js> <out .mjs>');
  process.exit(2);
}
const glue = fs.readFileSync(glueFile, 'utf8');

const once = (text, from, to) => onceIn('browser-entry', glueFile, text, from, to);

// The glue must load nothing but its `.wasm`: no import, no other use of its own URL.
let entry = selfContained('browser-entry', glueFile, glue);
if (glue.split('import.meta.url').length !== 2) fail('browser-entry', glueFile, 'expected one use of import.meta.url');
// The entry sits one folder above the glue; the `.wasm` stays in web/, the one file both entries load.
entry = once(entry, "new URL('netaclaw_tool_policy_bg.wasm', import.meta.url)", "new URL('./web/netaclaw_tool_policy_bg.wasm', import.meta.url)");
// The same exports as `export * from` the glue (its named exports; the init function is not one),
// then the module instantiates itself before any importer runs.
entry = once(entry, 'export { initSync, __wbg_init as default };', 'export { initSync };\n\nawait __wbg_init();');
const header = [
  '// @netaclaw/tool-policy for browsers and bundlers: wasm-bindgen\'s web glue and the entry in one module,',
  '// written by scripts/build-pkg.sh (scripts/browser-entry.mjs). It instantiates ./web/netaclaw_tool_policy_bg.wasm',
  '// once with top-level await (compiled while it streams in) and exports the API.',
  '',
].join('\n');
fs.writeFileSync(outFile, header + entry);
