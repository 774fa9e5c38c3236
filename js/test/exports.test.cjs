// The package loaded by name with require(): every export of SPEC §5/§7, the same instance as the
// ES module entry.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const policy = require('@netaclaw/tool-policy');

const FUNCTIONS = require('./lib/functions.json');

test('CommonJS: every function of SPEC §5/§7 is exported', () => {
  for (const name of FUNCTIONS) assert.equal(typeof policy[name], 'function', name);
  assert.equal(typeof policy.ToolPolicyEngine, 'function');
  assert.equal(typeof policy.ToolCallChecker, 'function');
  for (const name of Object.keys(policy)) {
    assert.equal(typeof policy[name], 'function', name);
    assert.ok(!name.startsWith('_') && !/^(init|initSync|memory|wasm)$/.test(name), `internal export ${name}`);
  }
});

test('CommonJS: require() twice is the same module', () => {
  assert.equal(require('@netaclaw/tool-policy'), policy);
});

test('CommonJS and import() are one instance with the same answers', async () => {
  const esm = await import('@netaclaw/tool-policy');
  for (const name of [...FUNCTIONS, 'ToolPolicyEngine', 'ToolCallChecker']) assert.equal(esm[name], policy[name], name);
  assert.equal(esm.default, policy);
  const input = { agent: { toolsets: [], tools: { disabled: ['todo'] } }, crewRole: 'master' };
  assert.equal(JSON.stringify(esm.resolveTools(input)), JSON.stringify(policy.resolveTools(input)));
});

test('CommonJS: a call answers plain data and invalid input throws invalid_input', () => {
  const result = policy.resolveTools({});
  assert.ok(Array.isArray(result.toolNames));
  assert.ok(result.toolNames.includes('bash'));
  assert.throws(
    () => policy.resolveTools({ agent: { toolsets: [1] } }),
    (e) => e instanceof Error && e.code === 'invalid_input' && e.message === 'agent.toolsets[0]: expected a string, got a number',
  );
});
