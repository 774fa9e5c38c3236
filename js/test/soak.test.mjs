// No leak across the JS boundary: after a warm-up, hundreds of thousands of calls (answers, errors,
// engine calls) leave the wasm linear memory and the externref table exactly as large as before.
import test from 'node:test';
import assert from 'node:assert/strict';

import { captured, policy } from './lib/instance.mjs';

// Calls per round, by operation: 100,000 calls in all (SOAK_SCALE multiplies them).
const SCALE = Number(process.env.SOAK_SCALE ?? 1);

const catalog = policy.builtinCatalog();
const governance = [
  { name: 'bash', status: 1, promptHint: 'Prefer read-only commands.', workerRoutingStrategy: 'force-local', id: 1 },
  { name: 'write_file', status: 0 },
  { name: 'todo', status: 0 },
];
const custom = [...catalog, { name: 'crm_lookup', toolset: 'crm', supportedInWorker: true, workerRoutingHint: 'local' }];
const input = {
  governance,
  agent: { toolsets: ['base', 'planning', 'skills', 'nope'], tools: { disabled: ['grep', 'ghost'] } },
  modelCapability: 'text',
  hasSkills: true,
  sessionCwd: '/srv/work/./a/../b',
  workspaceRoots: ['/data', 'D:\\share\\x'],
  shellPermitted: true,
  subagentTools: ['bash', 'read_file', 'write_file', 'read_skill'],
};
const update = { row: { name: 'bash', status: 1, toolset: 'base', id: 4 }, patch: { label: '终端', toolset: 'other', status: 3, foo: 1 } };
const engine = new policy.ToolPolicyEngine({ catalog, governance });
const { catalog: _c, governance: _g, ...perCall } = input;

function invalidCall() {
  try {
    policy.validateToolUpdate({ row: { name: 7 }, patch: {} });
  } catch (e) {
    if (e.code !== 'invalid_input') throw e;
    return;
  }
  throw new Error('expected invalid_input');
}

// [operation, calls per round]; a round is 100 calls.
const operations = [
  ['resolveTools', 15, () => policy.resolveTools(input).toolNames.length],
  ['resolveTools (own catalog)', 5, () => policy.resolveTools({ ...input, catalog: custom }).toolNames.length],
  ['runtimeDiagnostic', 15, () => policy.runtimeDiagnostic(input).routes.length],
  ['validateToolUpdate', 25, () => policy.validateToolUpdate(update).errors.length],
  ['engine.diagnose', 15, () => engine.diagnose(perCall).routes.length],
  ['engine.resolve', 10, () => engine.resolve(perCall).toolNames.length],
  ['invalid input (thrown)', 15, () => invalidCall()],
];
const ROUNDS = Math.round(1_000 * SCALE);
const CALLS = ROUNDS * operations.reduce((n, [, k]) => n + k, 0);

function sizes(exports) {
  return { memory: exports.memory.buffer.byteLength, externrefs: exports.__wbindgen_externrefs?.length ?? 0 };
}

test('the package instantiated one wasm module whose memory is reachable', () => {
  assert.equal(captured.length, 1);
  assert.ok(captured[0].memory instanceof WebAssembly.Memory);
});

test(`${CALLS} calls (answers, engine calls, thrown errors) leave the wasm memory and externref table flat`, (t) => {
  const exports = captured[0];
  const results = new Map();
  // Warm-up: let the allocator reach its working size.
  for (let i = 0; i < 50; i++) for (const [name, k, op] of operations) for (let j = 0; j < k; j++) results.set(name, op());
  const before = sizes(exports);
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, k, op] of operations) {
      for (let j = 0; j < k; j++) {
        const r = op();
        if (r !== results.get(name)) assert.fail(`${name} answered ${results.get(name)}, then ${r}`);
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const after = sizes(exports);
  t.diagnostic(
    `${CALLS} calls in ${seconds.toFixed(1)} s; wasm memory ${before.memory} → ${after.memory} bytes; externrefs ${before.externrefs} → ${after.externrefs}`,
  );
  assert.equal(after.memory, before.memory, `wasm memory grew by ${after.memory - before.memory} bytes over ${CALLS} calls`);
  assert.equal(after.externrefs, before.externrefs, 'the externref table grew');
  assert.equal(results.size, operations.length);
});

test('engines created and freed in a loop do not leak', () => {
  const exports = captured[0];
  for (let i = 0; i < 200; i++) new policy.ToolPolicyEngine({ catalog, governance }).free();
  const before = sizes(exports);
  for (let i = 0; i < 5_000; i++) {
    const e = new policy.ToolPolicyEngine({ catalog, governance });
    e.resolve(perCall);
    e.free();
  }
  assert.deepEqual(sizes(exports), before);
});
