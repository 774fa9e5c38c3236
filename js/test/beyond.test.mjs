// Decision traces, the parent-bounded sub-agent policy, explainTool, profileRouteDiff and
// toMcpAnnotations, through the package as Node loads it (ES module and CommonJS alike).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  builtinCatalog,
  buildSubprocessWorkerPolicy,
  explainTool,
  label,
  labels,
  profileRouteDiff,
  projectRuntimePolicy,
  resolveTools,
  runtimeDiagnostic,
  toMcpAnnotations,
  ToolPolicyEngine,
} from '@netaclaw/tool-policy';

const cjs = createRequire(import.meta.url)('@netaclaw/tool-policy');

/** The same value with every `trace` key removed. */
function untraced(value) {
  if (Array.isArray(value)) return value.map(untraced);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'trace')
        .map(([k, v]) => [k, untraced(v)]),
    );
  }
  return value;
}

const batch = {
  agent: { toolsets: ['base', 'planning'], tools: { disabled: ['grep'] } },
  governance: [
    { name: 'bash', status: 1, workerRoutingStrategy: 'force-disabled' },
    { name: 'edit', status: 0 },
  ],
  sessionCwd: '/srv/app',
  subagentTools: ['bash', 'read_file', 'write_file', 'todo'],
  shellPermitted: true,
  modelCapability: 'text',
};

test('the new functions are exported by the ES entry and the CommonJS entry alike', () => {
  for (const [name, fn] of Object.entries({ explainTool, profileRouteDiff, toMcpAnnotations })) {
    assert.equal(typeof fn, 'function', name);
    assert.equal(cjs[name], fn, `${name}: one instance`);
  }
});

test('trace is off by default: the untraced answer is the traced one without its trace keys', () => {
  for (const fn of [resolveTools, runtimeDiagnostic]) {
    const plain = JSON.stringify(fn(batch));
    assert.ok(!plain.includes('"trace"'));
    assert.equal(JSON.stringify(fn({ ...batch, trace: false })), plain);
    const traced = fn({ ...batch, trace: true });
    assert.ok(JSON.stringify(traced).includes('"trace"'));
    assert.equal(JSON.stringify(untraced(traced)), plain);
  }
  const projection = { selectedTools: ['bash'], policy: { workspaceRoots: [], allowShell: false, readonly: true } };
  assert.equal(JSON.stringify(untraced(projectRuntimePolicy({ ...projection, trace: true }))), JSON.stringify(projectRuntimePolicy(projection)));
});

test('a route trace lists every layer consulted with the input path that decided it', () => {
  const d = runtimeDiagnostic({ ...batch, trace: true });
  const bash = d.routes.find((r) => r.name === 'bash');
  assert.deepEqual(
    bash.trace.map((e) => [e.layer, e.outcome, e.source, e.reason ?? null]),
    [
      ['catalog', 'pass', 'builtin:bash', null],
      ['agent-toolsets', 'pass', 'agent.toolsets[0]', null],
      ['agent-disabled', 'pass', 'agent.tools.disabled', null],
      ['governance', 'pass', 'governance[0].status', null],
      ['model-capability', 'pass', 'modelCapability', null],
      ['subagent-selection', 'pass', 'subagentTools[0]', null],
      ['routing-strategy', 'block', 'governance[0].workerRoutingStrategy', 'disabled_by_routing_strategy'],
      ['worker-policy', 'pass', 'sessionCwd', null],
      ['worker-policy', 'pass', 'shellPermitted', null],
      ['manifest', 'local', 'builtin:bash', null],
    ],
  );
  // Every route: the codes of its trace (outside `overridden`) are its reasons, in order.
  for (const r of d.routes) {
    const codes = r.trace.filter((e) => e.outcome !== 'overridden' && e.reason).map((e) => e.reason);
    assert.deepEqual(codes, r.reasons, r.name);
  }
  const edit = d.resolved.disabledReasons.find((x) => x.name === 'edit');
  assert.deepEqual(edit.trace.at(-1), { layer: 'governance', outcome: 'block', source: 'governance[1].status', reason: 'disabled_globally' });
  // The engine answers byte-identically, trace and parent included.
  const engine = new ToolPolicyEngine({ governance: batch.governance });
  const call = { ...batch, governance: undefined, trace: true, parent: { workspaceRoots: ['/srv'], allowShell: false, readonly: true } };
  assert.equal(JSON.stringify(engine.diagnose(call)), JSON.stringify(runtimeDiagnostic({ ...call, governance: batch.governance })));
  assert.throws(() => runtimeDiagnostic({ trace: 1 }), { code: 'invalid_input', message: 'trace: expected a boolean, got a number' });
});

/** Segment-wise containment of normalized roots, written apart from the engine. */
function within(child, parent) {
  const split = (r) => (r.startsWith('/') ? ['/', ...r.split('/').filter(Boolean)] : [r.slice(0, 2), ...r.slice(2).split('\\').filter(Boolean)]);
  const c = split(child);
  const p = split(parent);
  return p.length <= c.length && p.every((s, i) => s === c[i]);
}

test('a child policy never exceeds its parent (random cases)', () => {
  const pool = ['/', '/a', '/a/b', '/ab', '/a/b/../c', '/b', 'C:\\', 'c:/a', 'C:\\a\\b', 'C:\\A', 'D:\\a'];
  let seed = 7;
  const next = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const some = (items, max) => Array.from({ length: next(max + 1) }, () => items[next(items.length)]);
  for (let k = 0; k < 300; k++) {
    const input = {
      workspaceRoots: some(pool, 4),
      selectedTools: some(['bash', 'patch', 'read_file'], 3),
      shellPermitted: next(2) === 1,
      writePermitted: next(2) === 1,
    };
    const parent = { workspaceRoots: some(pool, 2), allowShell: next(2) === 1, readonly: next(2) === 1 };
    const alone = buildSubprocessWorkerPolicy(input);
    assert.equal(alone.warnings, undefined);
    const child = buildSubprocessWorkerPolicy({ ...input, parent });
    const parentRoots = buildSubprocessWorkerPolicy({ workspaceRoots: parent.workspaceRoots, selectedTools: [] }).workspaceRoots;
    assert.deepEqual(
      child.workspaceRoots,
      alone.workspaceRoots.filter((r) => parentRoots.some((p) => within(r, p))),
      JSON.stringify({ input, parent }),
    );
    assert.ok(!child.allowShell || parent.allowShell);
    assert.ok(child.readonly || !parent.readonly);
    const dropped = alone.workspaceRoots.length - child.workspaceRoots.length;
    assert.equal(child.warnings.length, dropped + (alone.allowShell !== child.allowShell) + (alone.readonly !== child.readonly));
  }
});

test('explainTool: one paragraph from the trace, in zh-CN by default or en; an unknown tool fails closed', () => {
  const en = explainTool(batch, 'write_file', 'en');
  assert.match(en, /^write_file: Cannot run under the current worker policy/);
  assert.ok(en.includes('worker policy (writePermitted) blocked: Write tools are blocked by the readonly policy'), en);
  assert.ok(en.includes('static profile'), en);
  const zh = explainTool(batch, 'write_file');
  assert.ok(zh.startsWith('write_file：' + labels().statuses['disabled-in-worker']), zh);
  assert.equal(
    explainTool(batch, 'ghost', 'en'),
    'ghost: not in the catalog, so it is an unknown tool; it fails closed: it is never injected and never routed.',
  );
  assert.throws(() => explainTool(batch, 42), { code: 'invalid_input', message: 'name: expected a string, got a number' });
  assert.throws(() => explainTool(batch, 'bash', 'fr'), { code: 'invalid_input' });
  assert.equal(typeof explainTool(batch, 'bash', 'en'), 'string');
});

test('profileRouteDiff: the edit page allows it, the run blocks it (seed 000, 2026-04-23)', () => {
  // The agent allows bash and patch (static picture), but this batch's session permits neither the
  // shell nor writing (dynamic picture).
  const d = runtimeDiagnostic({ agent: { toolsets: ['base'] }, sessionCwd: '/srv/app', modelCapability: 'text' });
  const diff = profileRouteDiff(d);
  const byName = Object.fromEntries(diff.map((x) => [x.name, x]));
  assert.deepEqual(byName.bash, {
    name: 'bash',
    supportedInWorker: true,
    workerRoutingHint: 'local',
    status: 'disabled-in-worker',
    reasons: ['shell_disabled_by_policy'],
  });
  assert.deepEqual(byName.patch.reasons, ['write_blocked_by_readonly_policy', 'requires_main_process_proxy']);
  assert.equal(byName.read_file, undefined, 'routed tools are not differences');
  assert.equal(byName.delegate_task, undefined, 'a tool whose profile says disabled is not a difference');
  for (const x of diff) {
    const route = d.routes.find((r) => r.name === x.name);
    assert.ok(['disabled-in-worker', 'not-selected'].includes(route.status));
    assert.deepEqual(x.reasons, route.reasons);
  }
  assert.throws(() => profileRouteDiff({ profiles: [] }), { code: 'invalid_input', message: 'diagnostic.routes: is required' });
});

test('toMcpAnnotations: every builtin tool, with the invariants MCP expects', () => {
  const expected = {
    bash: [false, true, false, true],
    read_file: [true, false, true, false],
    write_file: [false, true, false, false],
    todo: [true, false, true, false],
    execute_skill: [false, true, false, true],
    memory_recall: [false, false, false, false],
    delegate_parallel: [false, false, false, true],
  };
  for (const schema of builtinCatalog()) {
    const a = toMcpAnnotations(schema);
    assert.deepEqual(Object.keys(a), ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);
    if (a.readOnlyHint) assert.ok(!a.destructiveHint && a.idempotentHint, schema.name);
    if (schema.requiresWrite || schema.requiresShell) assert.ok(!a.readOnlyHint && a.destructiveHint, schema.name);
    if (expected[schema.name]) assert.deepEqual([a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint], expected[schema.name], schema.name);
  }
  assert.equal(toMcpAnnotations({ name: 'memory_recall', toolset: 'memory' }).title, 'Memory recall');
  assert.throws(() => toMcpAnnotations(null), { code: 'invalid_input', message: 'manifest: expected an object, got null' });
});

test('label() reads the trace and policy-warning groups in both locales', () => {
  assert.equal(label('traceLayers', 'worker-policy', 'en'), 'worker policy');
  assert.equal(label('policyWarnings', 'shell_not_allowed_by_parent', 'en'), 'The parent does not allow the shell, so the child does not either');
  assert.notEqual(label('policyWarnings', 'shell_not_allowed_by_parent'), label('policyWarnings', 'shell_not_allowed_by_parent', 'en'));
  assert.deepEqual(Object.keys(labels('en')), ['reasons', 'statuses', 'routes', 'kinds', 'strategies']);
});
