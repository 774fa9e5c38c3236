// ToolPolicyEngine answers byte-identically to resolveTools / runtimeDiagnostic for every golden
// vector of those functions, and its lifetime (free, use after free) is safe.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ToolPolicyEngine, resolveTools, runtimeDiagnostic, version } from '@netaclaw/tool-policy';
import { attempt, isPlainObject, loadVectorsForTests, outcomeText as text, vectorsOf } from './lib/golden.mjs';

const { vectors: entries, loadError } = loadVectorsForTests();

/** The engine's outcome for one input: construct with { catalog, governance }, then call the rest. */
function viaEngine(method, input) {
  const options = {};
  let rest = input;
  if (isPlainObject(input)) {
    const { catalog, governance, ...others } = input;
    if (catalog !== undefined) options.catalog = catalog;
    if (governance !== undefined) options.governance = governance;
    rest = others;
  }
  const built = attempt(() => new ToolPolicyEngine(options));
  if (!built.ok) return built;
  const engine = built.value;
  try {
    return attempt(() => engine[method](rest));
  } finally {
    engine.free();
  }
}

const pairs = [
  ['resolveTools', resolveTools, 'resolve'],
  ['runtimeDiagnostic', runtimeDiagnostic, 'diagnose'],
];

test('there are resolveTools and runtimeDiagnostic vectors to compare with', () => {
  if (loadError) throw loadError;
  for (const [fn] of pairs) assert.ok(vectorsOf(entries, fn).length > 0, `no ${fn} vectors`);
});

for (const [fn, direct, method] of pairs) {
  for (const { file, vector } of vectorsOf(entries, fn)) {
    test(`engine.${method} = ${file}`, () => {
      const input = vector.args[0];
      const expected = text(attempt(() => direct(...vector.args)));
      assert.equal(text(viaEngine(method, input)), expected);
      // The golden expectation too, so the engine is pinned to the native bytes, not only to the function.
      if (Object.hasOwn(vector, 'expected')) assert.equal(expected, `ok ${JSON.stringify(vector.expected)}`);
      else assert.equal(expected, `error ${vector.error.code} ${vector.error.message}`);
    });
  }
}

test('one engine answers many calls, the catalog and governance read once', () => {
  const catalog = [
    { name: 'bash', toolset: 'base' },
    { name: 'memory_save', toolset: 'memory' },
    { name: 'crm_lookup', toolset: 'crm', kind: 'custom', supportedInWorker: true, workerRoutingHint: 'local' },
  ];
  const governance = [
    { name: 'bash', status: 1, workerRoutingStrategy: 'force-disabled' },
    { name: 'crm_lookup', status: 1, id: 7 },
  ];
  const engine = new ToolPolicyEngine({ catalog, governance });
  const calls = [
    {},
    { agent: { toolsets: ['base', 'crm'] } },
    { agent: { toolsets: ['memory'] }, memoryEnabled: true },
    { agent: { toolsets: null, tools: { disabled: ['bash', 'nope'] } }, modelCapability: 'vision' },
    { sessionCwd: '/srv/a/../b', shellPermitted: true, subagentTools: ['bash', 'crm_lookup', 'ghost'] },
  ];
  for (let round = 0; round < 3; round++) {
    for (const call of calls) {
      assert.equal(JSON.stringify(engine.resolve(call)), JSON.stringify(resolveTools({ ...call, catalog, governance })));
      assert.equal(JSON.stringify(engine.diagnose(call)), JSON.stringify(runtimeDiagnostic({ ...call, catalog, governance })));
    }
  }
  // catalog and governance given to a call are the engine's, not the call's.
  const ignored = { catalog: [{ name: 'x', toolset: 'y' }], governance: [{ name: 'bash', status: 0 }] };
  assert.equal(JSON.stringify(engine.resolve(ignored)), JSON.stringify(resolveTools({ catalog, governance })));
  engine.free();
});

// The static part handed back once: diagnoseRoutes is diagnose less `profiles` (the same bytes
// otherwise, errors included), and profiles() is that `profiles`.
for (const { file, vector } of vectorsOf(entries, 'runtimeDiagnostic')) {
  test(`engine.diagnoseRoutes + engine.profiles() = ${file}`, () => {
    const whole = attempt(() => runtimeDiagnostic(...vector.args));
    const routes = viaEngine('diagnoseRoutes', vector.args[0]);
    if (!whole.ok) {
      assert.equal(text(routes), text(whole));
      return;
    }
    const { profiles, ...rest } = whole.value;
    assert.equal(text(routes), `ok ${JSON.stringify(rest)}`);
    assert.ok(!Object.hasOwn(routes.value, 'profiles'));
    const input = isPlainObject(vector.args[0]) ? vector.args[0] : {};
    const engine = new ToolPolicyEngine({ catalog: input.catalog, governance: input.governance });
    try {
      assert.equal(JSON.stringify(engine.profiles()), JSON.stringify(profiles));
    } finally {
      engine.free();
    }
  });
}

test('new ToolPolicyEngine() and null/undefined options mean the builtin catalog, no governance', () => {
  const expected = JSON.stringify(resolveTools({}));
  for (const options of [undefined, null, {}]) {
    const engine = new ToolPolicyEngine(options);
    assert.equal(JSON.stringify(engine.resolve({})), expected);
    engine.free();
  }
});

test('invalid engine options and invalid calls throw invalid_input, the engine keeps answering', () => {
  assert.throws(
    () => new ToolPolicyEngine({ catalog: [{ name: '', toolset: 'base' }] }),
    (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError) && e.code === 'invalid_input' && e.message.startsWith('catalog[0].name: '),
  );
  assert.throws(
    () => new ToolPolicyEngine(42),
    (e) => e.code === 'invalid_input' && e.message.startsWith('input: '),
  );
  const engine = new ToolPolicyEngine({});
  const before = JSON.stringify(engine.diagnose({ sessionCwd: '/w' }));
  assert.throws(
    () => engine.resolve({ agent: { toolsets: [1] } }),
    (e) => e instanceof Error && e.code === 'invalid_input' && e.message === 'agent.toolsets[0]: expected a string, got a number',
  );
  assert.throws(
    () => engine.diagnose({ workspaceRoots: ['relative/dir'] }),
    (e) => e.code === 'invalid_input' && e.message.startsWith('workspaceRoots[0]'),
  );
  assert.throws(
    () => engine.diagnose(10n),
    (e) => e instanceof Error && e.code === 'invalid_input',
  );
  assert.equal(JSON.stringify(engine.diagnose({ sessionCwd: '/w' })), before);
  engine.free();
});

test('free() releases the engine; a freed engine throws a plain Error, and the module goes on', () => {
  const engine = new ToolPolicyEngine({});
  assert.ok(Array.isArray(engine.resolve({}).toolNames));
  engine.free();
  for (const call of [() => engine.resolve({}), () => engine.diagnose({}), () => engine.diagnoseRoutes({}), () => engine.profiles()]) {
    assert.throws(call, (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError));
  }
  // A second free() is refused with a plain Error too (never a trap).
  assert.throws(
    () => engine.free(),
    (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError),
  );
  assert.equal(typeof version(), 'string');
  const fresh = new ToolPolicyEngine({});
  assert.equal(JSON.stringify(fresh.resolve({})), JSON.stringify(resolveTools({})));
  fresh.free();
});

test('Symbol.dispose frees the engine like free()', { skip: typeof Symbol.dispose !== 'symbol' }, () => {
  const engine = new ToolPolicyEngine({});
  engine[Symbol.dispose]();
  assert.throws(
    () => engine.resolve({}),
    (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError),
  );
});
