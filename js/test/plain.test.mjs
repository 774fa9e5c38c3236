// Every answer is plain data (SPEC §1): objects whose prototype is Object.prototype, arrays, strings,
// finite numbers, booleans and null — no Map, no class instance, no undefined, nothing JSON would lose.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { attempt, loadVectors, vectorFunction } from './lib/golden.mjs';

const policy = createRequire(import.meta.url)('@netaclaw/tool-policy');

/** Every way `value` is not plain data, as paths. */
function impurities(value, path = 'answer', out = []) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return out;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push(`${path}: non-finite number`);
    return out;
  }
  if (typeof value !== 'object') {
    out.push(`${path}: ${typeof value}`);
    return out;
  }
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) out.push(`${path}: array with another prototype`);
    if (Object.keys(value).length !== value.length) out.push(`${path}: array with extra keys or holes`);
    value.forEach((v, i) => impurities(v, `${path}[${i}]`, out));
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype) out.push(`${path}: prototype ${proto?.constructor?.name ?? 'null'}`);
  if (value instanceof Map || value instanceof Set) out.push(`${path}: a ${value.constructor.name}`);
  if (Object.getOwnPropertySymbols(value).length > 0) out.push(`${path}: symbol keys`);
  for (const key of Object.getOwnPropertyNames(value)) {
    const d = Object.getOwnPropertyDescriptor(value, key);
    if (!('value' in d) || !d.enumerable || !d.writable) out.push(`${path}.${key}: not a plain data property`);
    else impurities(d.value, `${path}.${key}`, out);
  }
  return out;
}

test('the purity check itself rejects Maps, class instances, undefined and functions', () => {
  assert.notDeepEqual(impurities({ a: new Map() }), []);
  assert.notDeepEqual(impurities([new (class X {})()]), []);
  assert.notDeepEqual(impurities({ a: undefined }), []);
  assert.notDeepEqual(impurities({ f() {} }), []);
  assert.notDeepEqual(impurities(Object.create(null)), []);
  assert.deepEqual(impurities({ a: [1, 'x', null, true, { b: {} }] }), []);
});

test('every golden answer, as the package returns it, is plain data', () => {
  const entries = loadVectors().filter((e) => e.problem === null && Object.hasOwn(e.vector, 'expected'));
  assert.ok(entries.length > 0);
  const problems = [];
  for (const { file, vector } of entries) {
    const outcome = attempt(() => vectorFunction(vector.function)(...vector.args));
    if (!outcome.ok) continue; // golden.test.mjs reports it
    problems.push(...impurities(outcome.value, file));
  }
  assert.deepEqual(problems, []);
});

test('toolPromptHints is a plain object keyed by tool name, even for names like "0" or "__proto__"', () => {
  const catalog = [
    { name: 'bash', toolset: 'base' },
    { name: '0', toolset: 'base', kind: 'builtin' },
    { name: '__proto__', toolset: 'base', kind: 'builtin' },
    { name: 'constructor', toolset: 'base', kind: 'builtin' },
  ];
  const governance = catalog.map((t) => ({ name: t.name, status: 1, promptHint: `hint of ${t.name}` }));
  const agent = { toolsets: ['base'] };
  for (const result of [policy.resolveTools({ catalog, governance, agent }), policy.runtimeDiagnostic({ catalog, governance, agent }).resolved]) {
    const hints = result.toolPromptHints;
    assert.equal(Object.getPrototypeOf(hints), Object.prototype);
    assert.ok(!(hints instanceof Map));
    assert.deepEqual(impurities(result), []);
    assert.deepEqual(Object.keys(hints).sort(), ['0', '__proto__', 'bash', 'constructor'].sort());
    assert.ok(Object.hasOwn(hints, '__proto__'), '__proto__ is an own key, not the prototype');
    assert.equal(hints.bash, 'hint of bash');
    assert.equal(hints.constructor, 'hint of constructor');
  }
});

test('labels() and every label group are plain objects of strings', () => {
  for (const locale of [undefined, null, 'zh-CN', 'en', 'en-US', 'zh-Hans']) {
    const labels = policy.labels(locale);
    assert.deepEqual(impurities(labels), []);
    for (const [group, entries] of Object.entries(labels)) {
      assert.equal(Object.getPrototypeOf(entries), Object.prototype, group);
      for (const text of Object.values(entries)) assert.equal(typeof text, 'string');
    }
  }
});

test('every function answers plain data on a rich input', () => {
  const catalog = policy.builtinCatalog();
  const rows = [
    { name: 'bash', status: 0, extra: { nested: [1, { a: null }] }, id: 5 },
    { name: 'old', status: 1 },
  ];
  const input = { governance: [rows[0]], sessionCwd: '/w', shellPermitted: true, writePermitted: true, agent: { tools: { disabled: ['todo'] } } };
  const answers = {
    builtinCatalog: catalog,
    toolManifest: policy.toolManifest({ name: 'x', toolset: 'skills' }),
    resolveTools: policy.resolveTools(input),
    buildSubprocessWorkerPolicy: policy.buildSubprocessWorkerPolicy({ selectedTools: ['bash'], sessionCwd: '/w' }),
    projectRuntimePolicy: policy.projectRuntimePolicy({ selectedTools: ['bash'], policy: { workspaceRoots: [], allowShell: false, readonly: true } }),
    runtimeDiagnostic: policy.runtimeDiagnostic(input),
    syncCatalog: policy.syncCatalog(null, rows),
    validateToolUpdate: policy.validateToolUpdate({ row: rows[0], patch: { extra: { k: [1] }, toolset: 'zzz' } }),
  };
  for (const [name, value] of Object.entries(answers)) assert.deepEqual(impurities(value, name), [], name);
});
