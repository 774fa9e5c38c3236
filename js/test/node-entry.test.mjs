// The Node ES module entry (pkg/index.mjs, written by scripts/node-entry.mjs): one module that loads no
// CommonJS, sharing one instance with `require` through a symbol keyed by the package's version and the
// digest of its `.wasm`, whichever entry loads first; another build is another instance; the build step
// refuses a glue it cannot handle and leaves nothing half-written.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib/static.mjs';

const PKG = join(ROOT, 'pkg');
const ENTRY = join(PKG, 'index.mjs');
const GLUE = join(PKG, 'node/netaclaw_tool_policy.js');
const WASM = join(PKG, 'web/netaclaw_tool_policy_bg.wasm');
const { version } = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
const KEY = `@netaclaw/tool-policy ${version} ${createHash('sha256').update(readFileSync(WASM)).digest('hex').slice(0, 16)}`;

/** Runs an ES module script in a fresh Node process; answers what it prints as JSON. */
function run(source) {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd: join(ROOT, 'js'), encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

test('an import of the package loads one module and no CommonJS file', () => {
  const loaded = run(`
    await import('@netaclaw/tool-policy');
    const { Module } = process.getBuiltinModule('node:module');
    console.log(JSON.stringify(Object.keys(Module._cache)));
  `);
  assert.deepEqual(loaded, []);
});

for (const first of ['import', 'require']) {
  test(`${first} first: the other entry gets the same instance, kept under the build's key`, () => {
    const answer = run(`
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      // Every WebAssembly instance made in this process is counted.
      let instances = 0;
      WebAssembly.Instance = new Proxy(WebAssembly.Instance, { construct: (target, args) => (instances++, Reflect.construct(target, args)) });
      const load = { import: () => import('@netaclaw/tool-policy').then((m) => m.default), require: async () => require('@netaclaw/tool-policy') };
      const a = await load[${JSON.stringify(first)}]();
      const b = await load[${JSON.stringify(first === 'import' ? 'require' : 'import')}]();
      const esm = await import('@netaclaw/tool-policy');
      const key = Symbol.for(${JSON.stringify(KEY)});
      const held = Object.getOwnPropertyDescriptor(globalThis, key);
      const engine = new esm.ToolPolicyEngine({});
      console.log(JSON.stringify({
        same: a === b,
        namedSame: Object.keys(b).every((k) => esm[k] === b[k]),
        classes: engine instanceof require('@netaclaw/tool-policy').ToolPolicyEngine,
        held: held && { same: held.value === a, writable: held.writable, configurable: held.configurable, enumerable: held.enumerable },
        keys: Object.keys(a).sort(),
        instances,
        answer: esm.label('reasons', 'unknown_tool', 'en') === require('@netaclaw/tool-policy').label('reasons', 'unknown_tool', 'en'),
      }));
    `);
    assert.deepEqual(answer.held, { same: true, writable: false, configurable: false, enumerable: false });
    assert.equal(answer.same, true);
    assert.equal(answer.namedSame, true);
    assert.equal(answer.classes, true);
    assert.equal(answer.answer, true);
    assert.equal(answer.instances, 1, 'WebAssembly instances made by both entries');
    const functions = JSON.parse(readFileSync(join(ROOT, 'js/test/lib/functions.json'), 'utf8'));
    assert.deepEqual(answer.keys, [...functions, 'ToolCallChecker', 'ToolPolicyEngine'].sort());
  });
}

test('another build of the package (another key) is another instance', () => {
  const work = mkdtempSync(join(tmpdir(), 'netaclaw-other-build-'));
  try {
    for (const part of ['index.mjs', 'package.json', 'node', 'web']) cpSync(join(PKG, part), join(work, part), { recursive: true });
    const other = `@netaclaw/tool-policy ${version} 0000000000000000`;
    for (const file of ['index.mjs', 'node/netaclaw_tool_policy.js']) {
      const text = readFileSync(join(work, file), 'utf8');
      assert.equal(text.split(JSON.stringify(KEY)).length, 2, `${file} holds the key once`);
      writeFileSync(join(work, file), text.replace(JSON.stringify(KEY), JSON.stringify(other)));
    }
    const answer = run(`
      const ours = await import(${JSON.stringify(pathToFileURL(ENTRY).href)});
      const theirs = await import(${JSON.stringify(pathToFileURL(join(work, 'index.mjs')).href)});
      console.log(JSON.stringify({
        distinct: ours.default !== theirs.default && ours.ToolPolicyEngine !== theirs.ToolPolicyEngine,
        both: ours.version() === theirs.version(),
      }));
    `);
    assert.deepEqual(answer, { distinct: true, both: true });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('the build refuses a glue it cannot handle, naming what is wrong, and writes neither file', () => {
  const web = readFileSync(join(PKG, 'web/netaclaw_tool_policy.js'), 'utf8');
  const shipped = readFileSync(GLUE, 'utf8');
  // The Node glue as wasm-bindgen wrote it: the shipped one less the lines the build added.
  const lines = shipped.split('\n');
  assert.match(lines[1], /^const sharedKey = Symbol\.for\(/);
  assert.match(lines.at(-2), /^Object\.defineProperty\(globalThis, sharedKey/);
  const node = [lines[0], ...lines.slice(6, -2), ''].join('\n');
  const work = mkdtempSync(join(tmpdir(), 'netaclaw-node-entry-'));
  const make = (i, webText, nodeText) => {
    const files = { web: join(work, `web-${i}.js`), node: join(work, `node-${i}.js`), out: join(work, `entry-${i}.mjs`) };
    writeFileSync(files.web, webText);
    writeFileSync(files.node, nodeText);
    const child = spawnSync(process.execPath, [join(ROOT, 'scripts/node-entry.mjs'), files.web, files.node, WASM, join(PKG, 'package.json'), files.out], { encoding: 'utf8' });
    return { child, files };
  };
  try {
    const cases = [
      [`import { x } from './other.js';\n${web}`, node, /has an import/],
      [`${web}\nexport { y } from './other.js';\n`, node, /has an export from another module/],
      [web.replace('export { initSync, __wbg_init as default };', 'export { initSync };'), node, /expected "\\nexport \{ initSync, __wbg_init as default \};\\n" once, found 0/],
      [`${web}\nexport const extra = 1;\n`, node, /an export the entry does not know/],
      [web, shipped, /already registers a symbol/],
      [web, `${node}\nexports.late = 1;\n`, /does not end with "wasm\.__wbindgen_start\(\);\\n"/],
    ];
    for (const [i, [webText, nodeText, message]] of cases.entries()) {
      const { child, files } = make(i, webText, nodeText);
      assert.notEqual(child.status, 0, `case ${i} was accepted`);
      assert.match(child.stderr, message, `case ${i}`);
      assert.ok(!existsSync(files.out), `case ${i} wrote the entry`);
      assert.equal(readFileSync(files.node, 'utf8'), nodeText, `case ${i} changed the Node glue`);
    }
    // The glues as built make the entry and the Node glue the package ships.
    const { child, files } = make('built', web, node);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(readFileSync(files.out, 'utf8'), readFileSync(ENTRY, 'utf8'));
    assert.equal(readFileSync(files.node, 'utf8'), shipped);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
