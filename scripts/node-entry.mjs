// Writes the package's Node ES module entry, pkg/index.mjs, from wasm-bindgen's web glue, and makes the
// Node CommonJS glue (pkg/node/…) share its instance: `import` and `require` in one process get the same
// functions, classes and WebAssembly instance, whichever runs first.
//
// The entry is one module that holds the glue and instantiates ./web/netaclaw_tool_policy_bg.wasm itself
// (read with `fs`, taken from `process.getBuiltinModule` where Node has it): an `import` of the package
// links one module and loads no CommonJS. Whichever entry loads first stores its API object under a
// registered symbol on `globalThis` (non-writable), keyed by the package's version and the digest of the
// `.wasm`; the other entry finds it there and hands it out instead of instantiating a second copy. Two
// different builds never share: their keys differ.
// Usage: node scripts/node-entry.mjs <web glue .js> <node glue .js> <.wasm> <package.json> <out .mjs>
// (run by scripts/build-pkg.sh, after the .wasm is final)
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fail as failIn, once as onceIn, selfContained } from './glue-text.mjs';

const [webGlue, nodeGlue, wasmFile, packageFile, outFile] = process.argv.slice(2);
if (!outFile) {
  console.error('usage: node scripts/node-entry.mjs <web glue .js> <node glue .js> <.wasm> <package.json> <out .mjs>');
  process.exit(2);
}
const fail = (file, what) => failIn('node-entry', file, `${what}; wasm-bindgen's output changed shape`);
const once = (file, text, from, to) => onceIn('node-entry', file, text, from, to);

const { version } = JSON.parse(fs.readFileSync(packageFile, 'utf8'));
const digest = crypto.createHash('sha256').update(fs.readFileSync(wasmFile)).digest('hex').slice(0, 16);
const key = JSON.stringify(`@netaclaw/tool-policy ${version} ${digest}`);

// The ES entry: the web glue inside one function, its exports made plain declarations.
let glue = selfContained('node-entry', webGlue, fs.readFileSync(webGlue, 'utf8'));
glue = once(webGlue, glue, '\nexport { initSync, __wbg_init as default };\n', '\n');
const names = [...glue.matchAll(/^export (?:function|class) (\w+)\b/gm)].map((m) => m[1]);
if (names.length === 0) fail(webGlue, 'no exported function or class');
glue = glue.replace(/^export (function|class) /gm, '$1 ');
if (/^\s*export\b/m.test(glue)) fail(webGlue, 'an export the entry does not know');
const body = glue.trimEnd();
const entry = `// @netaclaw/tool-policy for Node as an ES module: wasm-bindgen's web glue and its instantiation in one
// module, written by scripts/build-pkg.sh (scripts/node-entry.mjs). \`import\` and \`require\` share one
// instance: whichever loads first keeps its API under the registered symbol below.
const key = Symbol.for(${key});

function load(fs) {
${body}

  initSync({ module: fs.readFileSync(new URL('./web/netaclaw_tool_policy_bg.wasm', import.meta.url)) });
  const api = { ${names.join(', ')} };
  Object.defineProperty(globalThis, key, { value: api });
  return api;
}

const api = globalThis[key] ?? load(process.getBuiltinModule?.('node:fs') ?? (await import('node:fs')));
export const { ${names.join(', ')} } = api;
export default api;
`;
// The CommonJS glue: the shared API when the ES entry loaded first; its own exports kept under the key
// once it has instantiated.
let cjs = fs.readFileSync(nodeGlue, 'utf8');
if (cjs.includes('Symbol.for(')) fail(nodeGlue, 'it already registers a symbol');
const first = cjs.indexOf('\n') + 1;
cjs = cjs.slice(0, first) +
  `const sharedKey = Symbol.for(${key});\n` +
  `if (globalThis[sharedKey] !== undefined) {\n    module.exports = globalThis[sharedKey];\n    return;\n}\n` +
  cjs.slice(first);
const start = 'wasm.__wbindgen_start();\n';
if (!cjs.endsWith(start)) fail(nodeGlue, `it does not end with ${JSON.stringify(start)}`);
cjs += 'Object.defineProperty(globalThis, sharedKey, { value: module.exports });\n';

// Both files are written once both are made: a glue of another shape leaves neither half-rewritten.
fs.writeFileSync(outFile, entry);
fs.writeFileSync(nodeGlue, cjs);
