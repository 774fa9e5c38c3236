// The package's TypeScript declarations agree with what it returns at run time: every answer of the
// golden vectors (and of a few direct calls) fits the declared return type exactly — no undeclared
// key, no missing required key, keys in declared order, enum strings within their unions — and the
// arguments of every valid golden call fit the declared parameters.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as policy from '@netaclaw/tool-policy';
import { FUNCTIONS, METHODS, isPlainObject, loadVectorsForTests, vectorsOf } from './lib/golden.mjs';
import { check, describe, literalsOf, readDeclarations } from './lib/dts.mjs';

const require = createRequire(import.meta.url);
const entry = require.resolve('@netaclaw/tool-policy');
const pkgDir = dirname(require.resolve('@netaclaw/tool-policy/package.json'));
// The Node entry (index.cjs) hands out the nodejs glue: its declarations are the glue's.
const dtsPath = join(pkgDir, 'node', 'netaclaw_tool_policy.d.ts');
const decls = readDeclarations(dtsPath);
const pkgJson = require('@netaclaw/tool-policy/package.json');

const { vectors: entries, loadError } = loadVectorsForTests();

function assertFits(problems, what) {
  assert.deepEqual(problems, [], `${what}:\n  ${problems.join('\n  ')}`);
}

/** Mismatches between a valid call's arguments and the declared parameters. */
function paramProblems(params, args, where) {
  const problems = [];
  const required = params.filter((p) => !p.optional).length;
  if (args.length < required) {
    problems.push(
      `${where}: called with ${args.length} argument(s), the declaration requires ${required} (${params.map((p) => `${p.name}${p.optional ? '?' : ''}: ${describe(p.type)}`).join(', ')})`,
    );
  }
  params.forEach((p, i) => {
    if (i < args.length) problems.push(...check(decls, args[i], p.type, `${where} ${p.name}`, false));
  });
  return problems;
}

test('the package types point at the declarations of the Node build, which declare every export', () => {
  assert.equal(pkgJson.types, './index.d.ts');
  assert.equal(entry, join(pkgDir, 'index.cjs'));
  assert.deepEqual(pkgJson.exports['.'].node, { types: './index.d.ts', default: './index.cjs' });
  assert.match(readFileSync(join(pkgDir, 'index.d.ts'), 'utf8'), /export \* from '\.\/node\/netaclaw_tool_policy'/);
  // Declared functions are exactly the runtime's exported functions, which include SPEC §5/§7.
  const cjs = require('@netaclaw/tool-policy');
  const classes = ['ToolPolicyEngine', 'ToolCallChecker'];
  const runtime = Object.keys(cjs).filter((k) => !classes.includes(k) && typeof cjs[k] === 'function');
  assert.deepEqual([...decls.functions.keys()].sort(), runtime.sort());
  for (const name of FUNCTIONS) assert.ok(decls.functions.has(name), `${name} is declared`);
  const engine = decls.classes.get('ToolPolicyEngine');
  assert.ok(engine, 'ToolPolicyEngine is declared');
  for (const m of ['constructor', 'resolve', 'diagnose', 'free']) assert.ok(engine.has(m), m);
  const checker = decls.classes.get('ToolCallChecker');
  assert.ok(checker, 'ToolCallChecker is declared');
  for (const m of ['constructor', 'check', 'checkText', 'free']) assert.ok(checker.has(m), m);
});

test('the browser build declares the same functions with the same signatures', () => {
  const web = readDeclarations(join(pkgDir, 'web', 'netaclaw_tool_policy.d.ts'));
  for (const name of decls.functions.keys()) {
    const a = decls.functions.get(name);
    const b = web.functions.get(name);
    assert.ok(b, name);
    assert.equal(JSON.stringify(b), JSON.stringify(a), name);
  }
});

test('there are golden vectors to check', () => {
  if (loadError) throw loadError;
  assert.ok(entries.length > 0);
});

// Arguments that SPEC §7 lets fall outside the declared type on purpose (rows read back from a
// database may hold out-of-type values, which syncCatalog resets); their answers are still checked.
const OUT_OF_TYPE_ARGUMENTS = { syncCatalog: ['rows'] };

/**
 * The declaration a golden folder is checked against: the function's, or for a class method's folder
 * (`checker.checkText`) the constructor's parameters, then the method's, and the method's return type.
 */
function declaredOf(fn) {
  if (!Object.hasOwn(METHODS, fn)) return decls.functions.get(fn);
  const checker = decls.classes.get('ToolCallChecker');
  const method = checker?.get(fn.slice('checker.'.length));
  return method && { params: [...checker.get('constructor').params, ...method.params], returns: method.returns };
}

for (const fn of [...new Set(entries.map((e) => e.folder))]) {
  const valid = vectorsOf(entries, fn).filter(({ vector }) => Object.hasOwn(vector, 'expected'));
  if (valid.length === 0) continue;
  const declared = declaredOf(fn);
  test(`${fn}: every golden answer fits the declared return type ${declared ? describe(declared.returns) : '?'}`, () => {
    assert.ok(declared, `${fn} is declared`);
    const problems = valid.flatMap(({ file, vector }) => check(decls, vector.expected, declared.returns, file, true));
    assertFits(problems, `${fn} answers`);
  });
  test(`${fn}: the arguments of every valid golden call fit the declared parameters`, () => {
    assert.ok(declared, `${fn} is declared`);
    // Arguments past the declared ones are a JavaScript liberty the vectors may take; they are not checked.
    const lenient = OUT_OF_TYPE_ARGUMENTS[fn] ?? [];
    const params = declared.params.map((p) => (lenient.includes(p.name) ? { ...p, type: { kind: 'unknown' } } : p));
    const problems = valid.flatMap(({ file, vector }) => paramProblems(params, vector.args, file));
    assertFits(problems, `${fn} arguments`);
  });
}

test('ToolPolicyEngine: resolve/diagnose answers and per-call inputs fit their declarations', () => {
  const engine = decls.classes.get('ToolPolicyEngine');
  const problems = [];
  let checked = 0;
  for (const [fn, method] of [
    ['resolveTools', 'resolve'],
    ['runtimeDiagnostic', 'diagnose'],
  ]) {
    for (const { file, vector } of vectorsOf(entries, fn)) {
      if (!Object.hasOwn(vector, 'expected') || !isPlainObject(vector.args[0])) continue;
      const { catalog, governance, ...rest } = vector.args[0];
      const options = { ...(catalog !== undefined && { catalog }), ...(governance !== undefined && { governance }) };
      problems.push(...paramProblems(engine.get('constructor').params, [options], `${file} new ToolPolicyEngine`));
      problems.push(...paramProblems(engine.get(method).params, [rest], `${file} ${method}`));
      const e = new policy.ToolPolicyEngine(options);
      problems.push(...check(decls, e[method](rest), engine.get(method).returns, `${file} ${method}()`, true));
      e.free();
      checked++;
    }
  }
  assert.ok(checked > 0, 'no resolveTools/runtimeDiagnostic vector with an answer');
  assertFits(problems, 'engine');
});

test('labels(): every group has exactly the codes of its declared union, in both locales', () => {
  const groups = { reasons: 'ReasonCode', statuses: 'RuntimeStatus', routes: 'FrontendRoute', kinds: 'ToolKind', strategies: 'RoutingStrategy' };
  for (const locale of ['zh-CN', 'en']) {
    const labels = policy.labels(locale);
    assert.deepEqual(Object.keys(labels), Object.keys(groups));
    for (const [group, union] of Object.entries(groups)) {
      assert.deepEqual(Object.keys(labels[group]).sort(), literalsOf(decls, union).sort(), `${locale} ${group}`);
      for (const text of Object.values(labels[group])) assert.ok(typeof text === 'string' && text.length > 0);
    }
    assertFits(check(decls, labels, { kind: 'ref', name: 'Labels' }, `labels(${locale})`, true), 'labels');
  }
  // label(group, …) takes the keys of Labels.
  assert.deepEqual(
    decls.interfaces.get('Labels').members.map((m) => m.name),
    Object.keys(groups),
  );
});

test('the vocabulary unions are the exact strings of SPEC §2', () => {
  const spec = {
    ToolKind: 'builtin memory skill delegation admin custom',
    ExecutionMode: 'parallel sequential',
    WorkerRoutingHint: 'local main-process-proxy disabled',
    RoutingStrategy: 'auto force-local force-main-process-proxy force-disabled',
    Visibility: 'internal tool skill',
    Capability: 'text vision multimodal',
    CrewRole: 'master sub',
    RuntimeStatus: 'worker-local main-process-proxied disabled-in-worker not-selected',
    FrontendRoute: 'worker-local main-process-proxy disabled',
    ReasonCode:
      'workspace_root_required shell_disabled_by_policy write_blocked_by_readonly_policy requires_main_process_proxy ' +
      'unsupported_in_worker not_selected_for_subagent disabled_by_routing_strategy toolset_not_selected ' +
      'disabled_by_agent disabled_globally capability_mismatch memory_disabled no_skills_bound crew_master_only ' +
      'core_tool_cannot_be_disabled unknown_tool unknown_toolset capability_fallback_text field_is_readonly ' +
      'prompt_hint_not_supported invalid_value path_outside_workspace invalid_tool_arguments tool_not_offered ' +
      'shell_sandbox_unavailable',
    ToolCallDecision: 'worker-local main-process-proxy denied ask',
    RuleReasonCode: 'denied_by_rule approval_required host_not_allowed',
    Effect: 'allow ask deny',
    Level: 'global agent session',
    PatternKind: 'tool bash read write net',
  };
  for (const [name, values] of Object.entries(spec)) {
    assert.deepEqual(literalsOf(decls, name).sort(), values.split(' ').sort(), name);
  }
});

test('direct answers of every function fit their declared return types', () => {
  const catalog = [
    ...policy.builtinCatalog(),
    { name: 'crm_lookup', toolset: 'crm', capability: 'vision', supportedInWorker: true, workerRoutingHint: 'local' },
  ];
  const rows = [
    { name: 'bash', status: 0, label: 'Shell', id: 3, workerRoutingStrategy: 'force-local' },
    { name: 'todo', status: 0, promptHint: 'Plan first.' },
    { name: 'gone', status: 1 },
  ];
  const governance = rows.filter((r) => r.name !== 'gone');
  const input = {
    catalog,
    governance,
    agent: { toolsets: ['base', 'planning', 'crm', 'nope'], tools: { disabled: ['grep', 'ghost'] } },
    modelCapability: 'vision',
    sessionCwd: '/srv/work',
    workspaceRoots: ['C:/data'],
    subagentTools: ['bash', 'read_file', 'write_file', 'crm_lookup'],
    shellPermitted: true,
    writePermitted: false,
  };
  const policyValue = policy.buildSubprocessWorkerPolicy({ selectedTools: ['bash', 'edit'], sessionCwd: '/w', shellPermitted: true });
  const calls = {
    builtinCatalog: [],
    toolManifest: [{ name: 'x', toolset: 'memory' }],
    resolveTools: [input],
    buildSubprocessWorkerPolicy: [{ selectedTools: ['bash', 'edit'], sessionCwd: '/w', shellPermitted: true }],
    projectRuntimePolicy: [
      { selectedTools: ['bash', 'edit', 'todo'], policy: policyValue, strategies: { edit: 'force-local' }, notSelectedReasons: { grep: 'disabled_by_agent' } },
    ],
    runtimeDiagnostic: [input],
    syncCatalog: [catalog, rows],
    validateToolUpdate: [{ row: { name: 'bash', status: 1, toolset: 'base' }, patch: { label: 'Shell', toolset: 'other', sort: 1.5, foo: 1 } }],
    toolBehaviorGuidance: [['bash', 'todo', 'crm_lookup'], { crm_lookup: 'Look up customers.' }],
    labels: ['en'],
    label: ['statuses', 'worker-local', 'zh-CN'],
    version: [],
    explainTool: [input, 'bash', 'en'],
    profileRouteDiff: [policy.runtimeDiagnostic(input)],
    toMcpAnnotations: [{ name: 'x', toolset: 'memory' }],
    catalogInfo: [catalog],
    getToolSchema: ['crm_lookup', catalog],
    getToolNamesByToolset: ['crm', catalog],
    toolRowView: [{ row: rows[0], catalog }],
    agentResolveInput: [
      {
        agent: { id: 1, toolsets: ['base'], tools: { disabled: ['bash'] }, skills: ['pdf'], memoryEnabled: 1 },
        channel: { capability: 'vision' },
        crewRole: 'master',
      },
    ],
    fromMcpTool: [{ server: 'fs', tool: { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } } }],
    checkToolCall: [
      {
        policy: policyValue,
        routes: policy.projectRuntimePolicy({ selectedTools: ['read_file'], policy: policyValue }),
        call: { name: 'read_file', arguments: { path: 'a.txt' } },
      },
    ],
    checkRules: [{ rules: { agent: { ask: ['bash(git push:*)'] } }, policy: policyValue, command: 'git status && git push' }],
    ruleDefaults: [],
    checkNetwork: [{ rules: { agent: { ask: ['net(*.github.com)'] } }, host: 'api.github.com', port: 443 }],
  };
  const problems = [];
  for (const fn of FUNCTIONS) {
    const value = policy[fn](...calls[fn]);
    problems.push(...check(decls, value, decls.functions.get(fn).returns, `${fn}()`, true));
  }
  const ok = policy.validateToolUpdate({ row: { name: 'bash', status: 1, id: 9 }, patch: { label: 'Shell', promptHint: null } });
  assert.equal(ok.ok, true);
  problems.push(...check(decls, ok, decls.functions.get('validateToolUpdate').returns, 'validateToolUpdate() ok', true));
  assertFits(problems, 'direct answers');
});
