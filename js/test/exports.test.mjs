// The package loaded by name as an ES module: every export of SPEC §5/§7, the same instance as
// `require('@netaclaw/tool-policy')`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as esm from '@netaclaw/tool-policy';
import { FUNCTIONS } from './lib/golden.mjs';

const { default: esmDefault, ToolPolicyEngine, resolveTools, runtimeDiagnostic, builtinCatalog, labels, label, version } = esm;

const cjs = createRequire(import.meta.url)('@netaclaw/tool-policy');

// The module namespace holds exactly the named exports: the generated function list (from the export
// table, src/edge/exports.rs), the two classes and the default export.
test('ESM: every function of SPEC §5/§7 is exported by name, and nothing else', () => {
  for (const name of FUNCTIONS) assert.equal(typeof esm[name], 'function', name);
  // (Node 22 and later also name a CommonJS module's whole exports `module.exports` in its namespace.)
  assert.deepEqual(
    Object.keys(esm)
      .filter((k) => k !== 'module.exports')
      .sort(),
    [...FUNCTIONS, 'ToolPolicyEngine', 'ToolCallChecker', 'default'].sort(),
  );
  assert.equal(typeof ToolPolicyEngine, 'function');
  assert.equal(typeof ToolPolicyEngine.prototype.resolve, 'function');
  assert.equal(typeof ToolPolicyEngine.prototype.diagnose, 'function');
  assert.equal(typeof ToolPolicyEngine.prototype.free, 'function');
  assert.equal(typeof esm.ToolCallChecker.prototype.check, 'function');
  assert.equal(typeof esm.ToolCallChecker.prototype.checkText, 'function');
  assert.equal(typeof esm.ToolCallChecker.prototype.free, 'function');
});

test('ESM: every export of the CommonJS build is a named export too, and nothing internal leaks', () => {
  const esmNames = Object.keys(esm).filter((k) => k !== 'default' && k !== 'module.exports');
  assert.deepEqual(
    esmNames.filter((k) => !Object.hasOwn(cjs, k)),
    [],
    'named exports the CommonJS build lacks',
  );
  assert.deepEqual(
    Object.keys(cjs).filter((k) => !esmNames.includes(k)),
    [],
    'CommonJS exports missing from the ES module entry',
  );
  for (const name of esmNames) {
    assert.equal(typeof esm[name], 'function', name);
    assert.ok(!name.startsWith('_') && !/^(init|initSync|memory|wasm)$/.test(name), `internal export ${name}`);
  }
});

test('ESM and CommonJS are one instance', () => {
  for (const name of [...FUNCTIONS, 'ToolPolicyEngine', 'ToolCallChecker']) {
    assert.equal(esm[name], cjs[name], name);
    assert.equal(esmDefault[name], cjs[name], name);
  }
  assert.equal(esmDefault, cjs);
  // An engine built through one entry is an instance of the class of the other.
  const engine = new ToolPolicyEngine({});
  assert.ok(engine instanceof cjs.ToolPolicyEngine);
  engine.free();
});

test('ESM and CommonJS give the same answers', () => {
  const input = { agent: { toolsets: ['base', 'memory'] }, memoryEnabled: true, sessionCwd: '/srv/w' };
  assert.equal(JSON.stringify(resolveTools(input)), JSON.stringify(cjs.resolveTools(input)));
  assert.equal(JSON.stringify(runtimeDiagnostic(input)), JSON.stringify(cjs.runtimeDiagnostic(input)));
  assert.equal(JSON.stringify(builtinCatalog()), JSON.stringify(cjs.builtinCatalog()));
  assert.equal(JSON.stringify(labels('en')), JSON.stringify(cjs.labels('en')));
  assert.equal(label('reasons', 'unknown_tool', 'en'), cjs.label('reasons', 'unknown_tool', 'en'));
  assert.equal(version(), cjs.version());
});

test('version() is the package version', () => {
  const pkg = createRequire(import.meta.url)('@netaclaw/tool-policy/package.json');
  assert.equal(version(), pkg.version);
});
