// Hostile input: every call either answers or throws an `Error` whose `code` is `invalid_input` — never
// a `WebAssembly.RuntimeError`, never a crash — and the module answers correctly afterwards. The input
// limits of SECURITY.md are pinned here with their messages.
import test from 'node:test';
import assert from 'node:assert/strict';

import { captured, policy } from './lib/instance.mjs';

// Answers taken before any hostile call: the module must keep giving exactly these.
const BASELINE_INPUT = {
  agent: { toolsets: ['base', 'planning', 'skills'], tools: { disabled: ['grep'] } },
  governance: [{ name: 'bash', status: 1, workerRoutingStrategy: 'force-local', promptHint: 'Be careful.' }],
  hasSkills: true,
  subagentTools: ['bash', 'read_file', 'write_file', 'read_skill'],
  sessionCwd: '/srv/w/./a/../b',
  shellPermitted: true,
};
const baseline = {
  diagnostic: JSON.stringify(policy.runtimeDiagnostic(BASELINE_INPUT)),
  label: policy.label('reasons', 'shell_disabled_by_policy', 'en'),
  catalog: JSON.stringify(policy.builtinCatalog()),
};

function assertHealthy() {
  assert.equal(JSON.stringify(policy.runtimeDiagnostic(BASELINE_INPUT)), baseline.diagnostic, 'the module answers differently after hostile input');
  assert.equal(policy.label('reasons', 'shell_disabled_by_policy', 'en'), baseline.label);
  assert.equal(JSON.stringify(policy.builtinCatalog()), baseline.catalog);
  const engine = new policy.ToolPolicyEngine({ governance: BASELINE_INPUT.governance });
  try {
    const { governance: _g, ...perCall } = BASELINE_INPUT;
    assert.equal(JSON.stringify(engine.diagnose(perCall)), baseline.diagnostic);
  } finally {
    engine.free();
  }
}

/** Calls `fn`; an answer is fine, a throw must be an `Error` with code `invalid_input`. */
function probe(what, fn) {
  let answer;
  try {
    answer = fn();
  } catch (e) {
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `${what}: WebAssembly.RuntimeError ${e.message}`);
    assert.ok(e instanceof Error, `${what}: threw a non-Error ${String(e)}`);
    assert.equal(e.code, 'invalid_input', `${what}: threw ${e.constructor.name} without code invalid_input: ${e.message}`);
    assert.equal(typeof e.message, 'string');
    assert.ok(e.message.length > 0 && e.message.length < 2_000, `${what}: message of ${e.message.length} characters`);
    return { error: e };
  }
  return { answer };
}

/** Calls `fn` and requires it to throw `invalid_input` with a message matching `pattern`. */
function refused(what, fn, pattern) {
  const r = probe(what, fn);
  assert.ok(r.error, `${what}: answered ${JSON.stringify(r.answer)?.slice(0, 200)} instead of refusing`);
  if (pattern) assert.match(r.error.message, pattern, what);
  return r.error;
}

function throwingGetter(key, thrown) {
  return Object.defineProperty({}, key, {
    enumerable: true,
    get() {
      throw thrown;
    },
  });
}

const cyclic = { name: 'bash' };
cyclic.self = cyclic;
const cyclicArray = [];
cyclicArray.push(cyclicArray);
class Custom {
  constructor() {
    this.name = 'bash';
  }
}

// Values that JavaScript callers can pass where the package expects something else.
const HOSTILE = [
  ['undefined', undefined],
  ['null', null],
  ['true', true],
  ['0', 0],
  ['-0', -0],
  ['NaN', NaN],
  ['Infinity', -Infinity],
  ['1e308', 1e308],
  ['a string', 'resolveTools'],
  ['an empty string', ''],
  ['a JSON string', '{"catalog":[]}'],
  ['[]', []],
  ['{}', {}],
  ['[null]', [null]],
  ['[[]]', [[]]],
  // biome-ignore lint/suspicious/noSparseArray: the holes are the input under test
  ['a sparse array', [, , 'bash']],
  ['a BigInt', 10n],
  ['an object holding a BigInt', { status: 1n, name: 'bash' }],
  ['a function', () => 1],
  ['a class', Custom],
  ['an object holding a function', { name: 'bash', toolset: () => 'base' }],
  ['a symbol', Symbol('x')],
  ['an object holding a symbol', { name: Symbol('bash'), [Symbol('k')]: 1 }],
  ['a Date', new Date(0)],
  ['an invalid Date', new Date(NaN)],
  ['a RegExp', /bash/g],
  ['a Map', new Map([['name', 'bash']])],
  ['a Set', new Set(['bash'])],
  ['a typed array', new Uint8Array([1, 2, 3])],
  ['an ArrayBuffer', new ArrayBuffer(8)],
  ['a Promise', Promise.resolve(1)],
  ['a WeakMap', new WeakMap()],
  ['a class instance', new Custom()],
  ['a null-prototype object', Object.assign(Object.create(null), { name: 'bash', toolset: 'base' })],
  ['a boxed string', new String('bash')],
  ['a boxed number', new Number(1)],
  ['a frozen object', Object.freeze({ name: 'bash', toolset: 'base' })],
  ['a cyclic object', cyclic],
  ['a cyclic array', cyclicArray],
  ['a throwing getter', throwingGetter('name', new Error('getter boom'))],
  ['a getter throwing a string', throwingGetter('name', 'plain string')],
  ['a getter throwing undefined', throwingGetter('toolset', undefined)],
  [
    'a throwing toJSON',
    {
      toJSON() {
        throw new TypeError('toJSON boom');
      },
    },
  ],
  ['a toJSON answering a BigInt', { toJSON: () => 5n }],
  [
    'a toJSON answering itself',
    {
      toJSON() {
        return this;
      },
    },
  ],
  [
    'a Proxy whose ownKeys throws',
    new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('ownKeys boom');
        },
      },
    ),
  ],
  [
    'a Proxy whose get throws',
    new Proxy(
      { name: 'bash' },
      {
        get() {
          throw new Error('get boom');
        },
      },
    ),
  ],
  [
    'a Proxy of an array whose length throws',
    new Proxy([], {
      get(t, k) {
        if (k === 'length') throw new Error('length boom');
        return Reflect.get(t, k);
      },
    }),
  ],
  [
    'a revoked Proxy',
    (() => {
      const r = Proxy.revocable({}, {});
      r.revoke();
      return r.proxy;
    })(),
  ],
  ['a string with NUL bytes', 'ba\0sh'],
  ['a lone high surrogate', 'bash\ud800'],
  ['a lone low surrogate', '\udc00bash'],
  ['an over-long name', 'n'.repeat(101)],
  ['__proto__ JSON', JSON.parse('{"__proto__":{"polluted":true},"name":"bash","toolset":"base"}')],
  ['a constructor key', { constructor: { prototype: { polluted: true } }, name: 'bash', toolset: 'base' }],
];

// Every function with its valid arguments; each argument and each field is then replaced in turn.
const CALLS = {
  builtinCatalog: [],
  version: [],
  toolManifest: [{ name: 'bash', toolset: 'base' }],
  resolveTools: [{ ...BASELINE_INPUT }],
  buildSubprocessWorkerPolicy: [{ sessionCwd: '/w', workspaceRoots: ['/x'], selectedTools: ['bash'], shellPermitted: true, writePermitted: true }],
  projectRuntimePolicy: [
    {
      selectedTools: ['bash', 'write_file'],
      policy: { workspaceRoots: ['/w'], allowShell: true, readonly: false },
      strategies: { bash: 'force-local' },
      notSelectedReasons: { grep: 'disabled_by_agent' },
    },
  ],
  runtimeDiagnostic: [{ ...BASELINE_INPUT }],
  syncCatalog: [
    null,
    [
      { name: 'bash', status: 1, label: 'Shell' },
      { name: 'gone', status: 0 },
    ],
  ],
  validateToolUpdate: [{ row: { name: 'bash', status: 1, toolset: 'base' }, patch: { label: 'Shell', status: 0 } }],
  toolBehaviorGuidance: [['bash', 'grep'], { bash: 'Prefer read-only commands.' }],
  labels: ['en'],
  label: ['reasons', 'shell_disabled_by_policy', 'en'],
  checkToolCall: [
    {
      policy: { workspaceRoots: ['/w'], allowShell: true, readonly: false },
      routes: [
        { name: 'read_file', status: 'worker-local', reasons: [] },
        { name: 'patch', status: 'main-process-proxied', reasons: ['requires_main_process_proxy'] },
      ],
      call: { name: 'read_file', arguments: { path: 'a.txt', offset: 1 } },
    },
  ],
  catalogInfo: [null],
  getToolSchema: ['bash', null],
  getToolNamesByToolset: ['base', null],
  toolRowView: [{ row: { name: 'bash', status: 1, promptHint: 'x', workerRoutingStrategy: 'auto' } }],
  agentResolveInput: [
    {
      agent: { toolsets: ['base'], tools: { disabled: ['bash'] }, skills: ['pdf'], memoryEnabled: true, modelCapability: 'text' },
      channel: { capability: 'vision' },
      crewRole: 'master',
    },
  ],
  fromMcpTool: [{ server: 'fs', tool: { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } } }],
  checkRules: [
    {
      rules: {
        global: { deny: ['read(**/.env*)'], protectedPaths: ['.git/hooks/**'] },
        agent: { allow: ['bash(git status)'], default: 'ask' },
        approvals: ['bash(make)'],
      },
      policy: { workspaceRoots: ['/w'], allowShell: true, readonly: false },
      command: 'git status > out.txt',
    },
  ],
  ruleDefaults: [],
  checkNetwork: [{ rules: { global: { allow: ['net(*.npmjs.org:443)'], deny: ['net(127.0.0.1)'] } }, host: 'registry.npmjs.org', port: 443 }],
};
const FIELDS = [
  'catalog',
  'governance',
  'agent',
  'modelCapability',
  'memoryEnabled',
  'hasSkills',
  'crewRole',
  'toolsetDefaults',
  'subagentTools',
  'sessionCwd',
  'workspaceRoots',
  'shellPermitted',
  'writePermitted',
  'selectedTools',
  'policy',
  'strategies',
  'notSelectedReasons',
  'row',
  'patch',
  'routes',
  'call',
  'channel',
  'server',
  'tool',
  'rules',
  'command',
  'read',
  'write',
  'host',
  'port',
];
// Nested places: [function, path inside the first argument].
const NESTED = [
  ['resolveTools', ['catalog', 0]],
  ['resolveTools', ['catalog', 0, 'name']],
  ['resolveTools', ['catalog', 0, 'kind']],
  ['resolveTools', ['catalog', 0, 'requiresShell']],
  ['resolveTools', ['governance', 0]],
  ['resolveTools', ['governance', 0, 'status']],
  ['resolveTools', ['governance', 0, 'name']],
  ['resolveTools', ['governance', 0, 'workerRoutingStrategy']],
  ['resolveTools', ['agent', 'toolsets']],
  ['resolveTools', ['agent', 'toolsets', 0]],
  ['resolveTools', ['agent', 'tools']],
  ['resolveTools', ['agent', 'tools', 'disabled', 0]],
  ['runtimeDiagnostic', ['subagentTools', 0]],
  ['runtimeDiagnostic', ['workspaceRoots', 0]],
  ['projectRuntimePolicy', ['policy', 'allowShell']],
  ['projectRuntimePolicy', ['policy', 'workspaceRoots']],
  ['projectRuntimePolicy', ['strategies', 'bash']],
  ['projectRuntimePolicy', ['notSelectedReasons', 'grep']],
  ['validateToolUpdate', ['row', 'name']],
  ['validateToolUpdate', ['patch', 'status']],
  ['validateToolUpdate', ['patch', 'toolset']],
  ['validateToolUpdate', ['patch', 'extra']],
  ['checkToolCall', ['call', 'arguments']],
  ['checkToolCall', ['call', 'arguments', 'path']],
  ['checkToolCall', ['call', 'name']],
  ['checkToolCall', ['routes', 0, 'status']],
  ['checkToolCall', ['policy', 'workspaceRoots', 0]],
  ['agentResolveInput', ['agent', 'memoryEnabled']],
  ['agentResolveInput', ['agent', 'skills']],
  ['fromMcpTool', ['tool', 'inputSchema']],
  ['fromMcpTool', ['tool', 'annotations', 'readOnlyHint']],
  ['checkRules', ['rules', 'global']],
  ['checkRules', ['rules', 'global', 'deny', 0]],
  ['checkRules', ['rules', 'global', 'protectedPaths']],
  ['checkRules', ['rules', 'agent', 'default']],
  ['checkRules', ['rules', 'approvals', 0]],
  ['checkRules', ['policy', 'workspaceRoots', 0]],
  ['checkNetwork', ['rules', 'global', 'allow', 0]],
  ['checkNetwork', ['rules', 'global', 'deny']],
];

function withCatalog(input) {
  return {
    ...input,
    catalog: [
      { name: 'bash', toolset: 'base' },
      { name: 'crm', toolset: 'ops', kind: 'custom' },
    ],
  };
}

function setPath(root, path, value) {
  const copy = structuredClone(root);
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path.at(-1)] = value;
  return copy;
}

test('every argument of every function, replaced by each hostile value, answers or throws invalid_input', () => {
  let calls = 0;
  for (const [fn, args] of Object.entries(CALLS)) {
    const positions = Math.max(args.length, 1);
    for (let i = 0; i < positions; i++) {
      for (const [what, value] of HOSTILE) {
        const changed = [...args];
        changed[i] = value;
        probe(`${fn} argument ${i} = ${what}`, () => policy[fn](...changed));
        calls++;
      }
    }
  }
  assertHealthy();
  assert.ok(calls > 500, `${calls} calls`);
});

test('every field of the object inputs, replaced by each hostile value, answers or throws invalid_input', () => {
  for (const [fn, args] of Object.entries(CALLS)) {
    const input = args[0];
    if (!input || typeof input !== 'object' || Array.isArray(input)) continue;
    for (const field of FIELDS) {
      for (const [what, value] of HOSTILE) {
        probe(`${fn} ${field} = ${what}`, () => policy[fn]({ ...input, [field]: value }));
      }
    }
  }
  for (const [fn, path] of NESTED) {
    const input = withCatalog({ ...CALLS[fn][0], governance: [{ name: 'bash', status: 1 }], agent: { toolsets: ['base'], tools: { disabled: ['crm'] } } });
    for (const [what, value] of HOSTILE) {
      let changed;
      try {
        changed = setPath(input, path, null);
      } catch {
        continue;
      }
      let node = changed;
      for (const key of path.slice(0, -1)) node = node[key];
      node[path.at(-1)] = value;
      probe(`${fn} ${path.join('.')} = ${what}`, () => policy[fn](changed));
    }
  }
  assertHealthy();
});

test('ToolPolicyEngine takes hostile options and inputs without breaking', () => {
  for (const [what, value] of HOSTILE) {
    const made = probe(`new ToolPolicyEngine(${what})`, () => new policy.ToolPolicyEngine(value));
    if (made.answer) {
      probe(`engine.resolve after ${what}`, () => made.answer.resolve({}));
      made.answer.free();
    }
    for (const field of ['catalog', 'governance']) {
      const r = probe(`new ToolPolicyEngine({${field}: ${what}})`, () => new policy.ToolPolicyEngine({ [field]: value }));
      if (r.answer) r.answer.free();
    }
  }
  const engine = new policy.ToolPolicyEngine({});
  try {
    for (const [what, value] of HOSTILE) {
      probe(`engine.resolve(${what})`, () => engine.resolve(value));
      probe(`engine.diagnose(${what})`, () => engine.diagnose(value));
      for (const field of FIELDS) probe(`engine.diagnose({${field}: ${what}})`, () => engine.diagnose({ [field]: value }));
    }
    assert.equal(JSON.stringify(engine.resolve({})), JSON.stringify(policy.resolveTools({})));
  } finally {
    engine.free();
  }
  assertHealthy();
});

test('a freed engine throws a plain Error, never a trap, and the module keeps working', () => {
  const engine = new policy.ToolPolicyEngine({});
  engine.free();
  for (const call of [() => engine.resolve({}), () => engine.diagnose({})]) {
    assert.throws(call, (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError));
  }
  assertHealthy();
});

test('wrong types and nulls give messages naming the path', () => {
  refused('number input', () => policy.resolveTools(5), /^input: expected an object, got a number$/);
  refused('string input', () => policy.resolveTools('{}'), /^input: expected an object, got a string$/);
  refused('array input', () => policy.runtimeDiagnostic([]), /^input: expected an object, got an array$/);
  refused('null input', () => policy.buildSubprocessWorkerPolicy(null), /^input: expected an object, got null$/);
  refused(
    'toolset number',
    () => policy.resolveTools({ agent: { toolsets: ['base', 'planning', 7] } }),
    /^agent\.toolsets\[2\]: expected a string, got a number$/,
  );
  refused(
    'catalog name null',
    () =>
      policy.resolveTools({
        catalog: [
          { name: 'a', toolset: 'x' },
          { name: null, toolset: 'x' },
        ],
      }),
    /^catalog\[1\]\.name: /,
  );
  refused('status 2', () => policy.resolveTools({ governance: [{ name: 'bash', status: 2 }] }), /^governance\[0\]\.status: expected 0 or 1, got 2$/);
  refused(
    'selectedTools missing',
    () => policy.projectRuntimePolicy({ policy: { workspaceRoots: [], allowShell: false, readonly: true } }),
    /^selectedTools: is required$/,
  );
  refused('policy null', () => policy.projectRuntimePolicy({ selectedTools: [], policy: null }), /^policy: is required$/);
  refused('schema BigInt', () => policy.toolManifest(10n), /^schema: cannot be read as JSON: got a BigInt$/);
  refused('nested BigInt', () => policy.resolveTools({ governance: [{ name: 'bash', status: 1n }] }), /^input: cannot be read as JSON \(.*BigInt.*\)$/);
  refused('symbol', () => policy.label(Symbol('reasons'), 'x'), /^group: cannot be read as JSON: got a symbol$/);
  refused('function', () => policy.syncCatalog(() => [], []), /^catalog: cannot be read as JSON: got a function$/);
  refused('cyclic', () => policy.resolveTools({ agent: cyclic }), /^input: cannot be read as JSON \(Converting circular structure to JSON/);
  refused('throwing getter', () => policy.resolveTools(throwingGetter('agent', new Error('getter boom'))), /^input: cannot be read as JSON \(getter boom\)$/);
  refused('getter throwing a string', () => policy.resolveTools(throwingGetter('agent', 'plain string')), /^input: cannot be read as JSON \(plain string\)$/);
  refused(
    'getter throwing undefined',
    () => policy.resolveTools(throwingGetter('agent', undefined)),
    /^input: cannot be read as JSON \(JSON\.stringify threw\)$/,
  );
  refused(
    'throwing Proxy',
    () =>
      policy.resolveTools(
        new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('ownKeys boom');
            },
          },
        ),
      ),
    /ownKeys boom/,
  );
  refused(
    'relative root',
    () => policy.buildSubprocessWorkerPolicy({ workspaceRoots: ['/ok', 'rel'], selectedTools: [] }),
    /^workspaceRoots\[1\]: must be an absolute path/,
  );
  refused(
    'UNC root',
    () => policy.buildSubprocessWorkerPolicy({ sessionCwd: '\\\\srv\\share', selectedTools: [] }),
    /^sessionCwd: UNC paths are not supported/,
  );
  refused(
    'NUL in a root',
    () => policy.buildSubprocessWorkerPolicy({ sessionCwd: '/w\0/x', selectedTools: [] }),
    /^sessionCwd: must not contain a NUL character$/,
  );
  refused('lone surrogate', () => policy.toolManifest({ name: 'bash\ud800', toolset: 'base' }), /^schema: /);
  // Nulls where optional fields are allowed are read as absent.
  const nulls = Object.fromEntries(
    [
      'catalog',
      'governance',
      'agent',
      'modelCapability',
      'memoryEnabled',
      'hasSkills',
      'crewRole',
      'toolsetDefaults',
      'subagentTools',
      'sessionCwd',
      'workspaceRoots',
      'shellPermitted',
      'writePermitted',
    ].map((k) => [k, null]),
  );
  assert.equal(JSON.stringify(policy.runtimeDiagnostic(nulls)), JSON.stringify(policy.runtimeDiagnostic({})));
  assertHealthy();
});

test('__proto__ and constructor keys are plain data: nothing is polluted and they come back as own keys', () => {
  const schema = JSON.parse('{"__proto__":{"isCore":true,"polluted":true},"name":"__proto__","toolset":"constructor"}');
  const manifest = policy.toolManifest(schema);
  assert.equal(manifest.name, '__proto__');
  assert.equal(manifest.toolset, 'constructor');
  assert.equal(manifest.isCore, false, 'a __proto__ key is not a field');
  const catalog = [
    { name: '__proto__', toolset: 'base', supportsPromptHint: true },
    { name: 'constructor', toolset: 'base', supportsPromptHint: true },
    { name: 'toString', toolset: 'base' },
  ];
  const governance = [
    { name: '__proto__', promptHint: 'proto hint' },
    { name: 'constructor', promptHint: 'constructor hint' },
  ];
  const resolved = policy.resolveTools({ catalog, governance });
  assert.deepEqual(resolved.toolNames, ['__proto__', 'constructor', 'toString']);
  assert.ok(Object.hasOwn(resolved.toolPromptHints, '__proto__'));
  assert.equal(Object.getPrototypeOf(resolved.toolPromptHints), Object.prototype);
  assert.equal(resolved.toolPromptHints.constructor, 'constructor hint');
  const routes = policy.projectRuntimePolicy({
    catalog,
    selectedTools: ['__proto__'],
    policy: { workspaceRoots: [], allowShell: false, readonly: true },
    strategies: JSON.parse('{"__proto__":"force-local","constructor":"force-disabled"}'),
  });
  assert.deepEqual(
    routes.map((r) => [r.name, r.strategy]),
    [
      ['__proto__', 'force-local'],
      ['constructor', 'force-disabled'],
      ['toString', 'auto'],
    ],
  );
  assert.equal(routes[0].status, 'disabled-in-worker', 'force-local cannot route a custom tool');
  const update = policy.validateToolUpdate({
    row: JSON.parse('{"name":"bash","__proto__":{"polluted":true},"constructor":1}'),
    patch: JSON.parse('{"__proto__":{"isCore":1},"label":"x"}'),
  });
  assert.equal(update.ok, true);
  assert.ok(Object.hasOwn(update.row, '__proto__'));
  assert.equal(Object.getPrototypeOf(update.row), Object.prototype);
  assert.deepEqual(update.ignored, ['__proto__']);
  const hints = policy.toolBehaviorGuidance(['__proto__', 'bash'], JSON.parse('{"__proto__":"p"}'));
  assert.equal(hints.split('\n')[0], '- __proto__: p');
  assert.equal({}.polluted, undefined);
  assert.equal({}.isCore, undefined);
  assert.equal(Object.prototype.polluted, undefined);
  assertHealthy();
});

test('NUL bytes and unusual text in names are data, answered byte-for-byte', () => {
  const names = ['a\0b', 'tab\tname', 'line\u2028sep', '名前', '😀', '"quoted"', '\\back'];
  const catalog = names.map((name) => ({ name, toolset: 'base' }));
  const resolved = policy.resolveTools({ catalog });
  assert.deepEqual(resolved.toolNames, names);
  const plan = policy.syncCatalog(catalog, []);
  assert.deepEqual(
    plan.inserts.map((r) => r.label),
    names,
  );
  assertHealthy();
});

test('limits: 10,000 tools pass, 10,001 are refused with the limit in the message', () => {
  const tools = Array.from({ length: 10_000 }, (_, i) => ({
    name: `tool_${i}`,
    toolset: i % 2 ? 'base' : 'ops',
    supportedInWorker: true,
    workerRoutingHint: 'local',
  }));
  const resolved = policy.resolveTools({ catalog: tools });
  assert.equal(resolved.toolNames.length + resolved.disabledReasons.length, 10_000);
  assert.equal(resolved.toolNames.length, 5_000);
  const engine = new policy.ToolPolicyEngine({ catalog: tools, governance: tools.map(({ name }) => ({ name, status: 1 })) });
  try {
    const diagnostic = engine.diagnose({ sessionCwd: '/w' });
    assert.equal(diagnostic.routes.length, 10_000);
    assert.equal(diagnostic.routes.filter((r) => r.status === 'worker-local').length, 5_000);
  } finally {
    engine.free();
  }
  const plan = policy.syncCatalog(tools, []);
  assert.equal(plan.inserts.length, 10_000);

  const over = [...tools, { name: 'one_more', toolset: 'base' }];
  refused('10,001 tools', () => policy.resolveTools({ catalog: over }), /^catalog: has 10001 items; at most 10000 are allowed$/);
  refused('10,001 tools (engine)', () => new policy.ToolPolicyEngine({ catalog: over }), /^catalog: has 10001 items; at most 10000 are allowed$/);
  refused('10,001 tools (sync)', () => policy.syncCatalog(over, []), /^catalog: has 10001 items; at most 10000 are allowed$/);
  const rows = over.map(({ name }) => ({ name }));
  refused('10,001 rows', () => policy.resolveTools({ governance: rows }), /^governance: has 10001 items; at most 10000 are allowed$/);
  refused('10,001 rows (sync)', () => policy.syncCatalog(null, rows), /^rows: has 10001 items; at most 10000 are allowed$/);
  const names = over.map(({ name }) => name);
  refused('10,001 selected tools', () => policy.buildSubprocessWorkerPolicy({ selectedTools: names }), /^selectedTools: has 10001 items/);
  refused('10,001 disabled tools', () => policy.resolveTools({ agent: { tools: { disabled: names } } }), /^agent\.tools\.disabled: has 10001 items/);
  refused('10,001 guidance names', () => policy.toolBehaviorGuidance(names), /^toolNames: has 10001 items/);
  const strategies = Object.fromEntries(names.map((n) => [n, 'auto']));
  refused(
    '10,001 prompt hints',
    () => policy.toolBehaviorGuidance(['bash'], Object.fromEntries(names.map((n) => [n, 'hint']))),
    /^toolPromptHints: has 10001 keys; at most 10000 are allowed$/,
  );
  refused(
    '10,001 strategies',
    () => policy.projectRuntimePolicy({ selectedTools: [], policy: { workspaceRoots: [], allowShell: false, readonly: true }, strategies }),
    /^strategies: has 10001 keys; at most 10000 are allowed$/,
  );
  assertHealthy();
});

test('limits: names, toolsets, labels, texts and roots have maximum lengths', () => {
  refused('name 101', () => policy.toolManifest({ name: 'n'.repeat(101), toolset: 'x' }), /^schema\.name: is longer than 100 characters$/);
  assert.equal(policy.toolManifest({ name: '界'.repeat(100), toolset: 'x' }).name.length, 100, 'lengths count characters, not bytes');
  refused('empty name', () => policy.toolManifest({ name: '', toolset: 'x' }), /^schema\.name: must not be empty$/);
  refused('toolset 51', () => policy.toolManifest({ name: 'a', toolset: 't'.repeat(51) }), /^schema\.toolset: is longer than 50 characters$/);
  refused(
    'description 65,537',
    () => policy.toolManifest({ name: 'a', toolset: 'x', description: 'd'.repeat(65_537) }),
    /^schema\.description: is longer than 65536 characters$/,
  );
  refused(
    'root 4,097',
    () => policy.buildSubprocessWorkerPolicy({ sessionCwd: `/${'r'.repeat(4_096)}`, selectedTools: [] }),
    /^sessionCwd: is longer than 4096 characters$/,
  );
  const long = policy.validateToolUpdate({ row: { name: 'bash' }, patch: { label: 'l'.repeat(201) } });
  assert.deepEqual(long.errors, [{ field: 'label', code: 'invalid_value' }], 'a label over 200 characters is refused as data');
  assertHealthy();
});

test('limits: 10 MB strings are refused by length, inputs over 32 MiB by size', () => {
  const tenMB = 'x'.repeat(10 * 1024 * 1024);
  refused(
    '10 MB description',
    () => policy.toolManifest({ name: 'a', toolset: 'x', description: tenMB }),
    /^schema\.description: is longer than 65536 characters$/,
  );
  refused('10 MB name', () => policy.resolveTools({ catalog: [{ name: tenMB, toolset: 'x' }] }), /^catalog\[0\]\.name: is longer than 100 characters$/);
  refused('10 MB root', () => policy.runtimeDiagnostic({ sessionCwd: `/${tenMB}` }), /^sessionCwd: is longer than 4096 characters$/);
  refused('10 MB locale', () => policy.labels(tenMB), /^locale: is longer than 64 characters$/);
  refused('10 MB guidance name', () => policy.toolBehaviorGuidance([tenMB]), /^toolNames\[0\]: is longer than 100 characters$/);
  refused('40 MB input', () => policy.syncCatalog(null, [{ name: 'a', extra: tenMB + tenMB + tenMB + tenMB }]), /^rows: is larger than 33554432 bytes$/);
  // A row's free `extra` column of 10 MB is data the package passes through unchanged.
  const plan = policy.syncCatalog([{ name: 'a', toolset: 'x' }], [{ name: 'a', extra: tenMB }]);
  assert.equal(plan.updates.length, 1);
  assert.equal('extra' in plan.updates[0].set, false);
  assertHealthy();
});

test('limits: nesting up to 127 levels is read, deeper (1,000 and 100,000 levels) is refused', () => {
  const nest = (depth, leaf) => {
    let v = leaf;
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  };
  // rows → row object → extra: 2 levels above the nested arrays.
  assert.equal(policy.syncCatalog(null, [{ name: 'a', extra: nest(125, 1) }]).orphans[0], 'a');
  refused('128 levels', () => policy.syncCatalog(null, [{ name: 'a', extra: nest(126, 1) }]), /^rows: is nested too deeply$/);
  refused('1,000 levels', () => policy.resolveTools({ governance: [{ name: 'bash', extra: nest(1_000, 1) }] }), /^input: is nested too deeply$/);
  let deepObject = {};
  for (let i = 0; i < 1_000; i++) deepObject = { agent: deepObject };
  refused('1,000 object levels', () => policy.runtimeDiagnostic(deepObject), /^input: is nested too deeply$/);
  refused('100,000 levels', () => policy.resolveTools({ governance: [{ name: 'bash', extra: nest(100_000, 1) }] }), /^input: /);
  refused('100,000 levels (engine)', () => new policy.ToolPolicyEngine({ catalog: nest(100_000, []) }), /^input: /);
  assertHealthy();
});

test('thousands of refused calls in a row leave the module answering correctly', () => {
  for (let i = 0; i < 2_000; i++) {
    const [what, value] = HOSTILE[i % HOSTILE.length];
    probe(what, () => policy.runtimeDiagnostic({ ...BASELINE_INPUT, agent: value }));
    probe(what, () => policy.validateToolUpdate({ row: value, patch: value }));
  }
  assertHealthy();
});

test('inputs JSON.stringify throws on leave no externref behind', () => {
  const wasm = captured[0];
  assert.ok(wasm && wasm.__wbindgen_externrefs instanceof WebAssembly.Table, 'the package instantiated its module on load');
  const throwing = [
    () => policy.runtimeDiagnostic({ agent: cyclic }),
    () => policy.resolveTools({ governance: [{ name: 'bash', status: 1n }] }),
    () => policy.syncCatalog(null, [throwingGetter('name', new Error('getter boom'))]),
    () =>
      policy.toolManifest(
        new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('ownKeys boom');
            },
          },
        ),
      ),
    () => policy.label('reasons', throwingGetter('x', 'plain string')),
  ];
  for (const call of throwing) refused('warm-up', call);
  const before = wasm.__wbindgen_externrefs.length;
  for (let i = 0; i < 5_000; i++) for (const call of throwing) refused('throwing input', call);
  assert.equal(wasm.__wbindgen_externrefs.length, before, '25,000 refused calls grew the externref table');
  assertHealthy();
});
