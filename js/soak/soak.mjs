// Soak: many calls of every function (answers and refusals), of a long-lived ToolPolicyEngine, and of
// engines created and freed in a loop; prints the wasm linear memory and externref table as the calls
// go on. After the warm-up both must stay exactly flat.
//
//   node js/soak/soak.mjs --calls 1000000 [--warmup 20000] [--assert]
//
// With --assert the script exits 1 when the memory or the table grew after the warm-up.
import { pathToFileURL } from 'node:url';

import { captured, policy } from '../test/lib/instance.mjs';

export { policy };

if (captured.length !== 1 || !(captured[0].memory instanceof WebAssembly.Memory)) {
  throw new Error(`expected the package to instantiate one wasm module on load, saw ${captured.length}`);
}
const wasm = captured[0];

/** The sizes that must stay flat. */
export function sizes() {
  return { memory: wasm.memory.buffer.byteLength, externrefs: wasm.__wbindgen_externrefs?.length ?? 0 };
}

// Inputs of several sizes, so that the allocator sees many shapes.
const builtin = policy.builtinCatalog();
const bigCatalog = Array.from({ length: 200 }, (_, i) => ({
  name: `tool_${i}`,
  toolset: ['base', 'ops', 'memory', 'skills'][i % 4],
  supportedInWorker: i % 3 === 0,
  workerRoutingHint: ['local', 'main-process-proxy', 'disabled'][i % 3],
  requiresShell: i % 7 === 0,
  requiresWrite: i % 5 === 0,
  requiresWorkspaceRoot: i % 2 === 0,
}));
const governance = [
  { name: 'bash', status: 1, promptHint: 'Prefer read-only commands.', workerRoutingStrategy: 'force-local', id: 1 },
  { name: 'write_file', status: 0, extra: { note: '写入', n: [1, 2.5, -0] } },
  { name: 'todo', status: 0 },
  { name: 'gone', status: 1 },
];
const inputs = [
  {},
  { agent: { toolsets: ['base', 'planning'], tools: { disabled: ['bash', 'ghost'] } }, modelCapability: 'vision', governance },
  { governance, hasSkills: true, memoryEnabled: true, crewRole: 'master', subagentTools: ['bash', 'read_file', 'write_file'], sessionCwd: '/w/./x/..', shellPermitted: true },
  { catalog: bigCatalog, governance: bigCatalog.slice(0, 100).map(({ name }, i) => ({ name, status: i % 2 })), workspaceRoots: ['/a', 'C:/b//c', '/a/'], writePermitted: true },
  { catalog: [...builtin, { name: '__proto__', toolset: 'x' }], agent: { toolsets: [] } },
];
const projection = {
  selectedTools: ['bash', 'write_file', 'grep', 'delegate_task'],
  policy: { workspaceRoots: ['/w'], allowShell: false, readonly: true },
  strategies: { bash: 'force-local', grep: 'force-disabled', write_file: 'force-main-process-proxy' },
  notSelectedReasons: { read_file: 'disabled_by_agent' },
};
const rows = [{ name: 'bash', status: 7, label: 'Shell', toolset: 'legacy', id: 9 }, { name: 'old', status: 1 }];
const update = { row: { name: 'bash', status: 1, toolset: 'base', id: 4 }, patch: { label: '终端', toolset: 'other', status: 3, foo: 1 } };
const hints = { bash: 'Prefer read-only commands.', grep: '  ' };
const names = builtin.map((t) => t.name);
const engine = new policy.ToolPolicyEngine({ governance });
const bigEngine = new policy.ToolPolicyEngine({ catalog: bigCatalog });

function refuse(fn) {
  try {
    fn();
  } catch (e) {
    if (e.code !== 'invalid_input') throw e;
    return e.message.length;
  }
  throw new Error('expected invalid_input');
}

/** One round: every operation once. Each returns a number, which must not change between rounds. */
export const OPERATIONS = [
  ['builtinCatalog', () => policy.builtinCatalog().length],
  ['toolManifest', () => policy.toolManifest({ name: 'crm', toolset: 'ops', kind: 'custom' }).description.length],
  ...inputs.map((input, i) => [`resolveTools #${i}`, () => policy.resolveTools(input).toolNames.length]),
  ...inputs.map((input, i) => [`runtimeDiagnostic #${i}`, () => policy.runtimeDiagnostic(input).routes.length]),
  ['buildSubprocessWorkerPolicy', () => policy.buildSubprocessWorkerPolicy({ sessionCwd: '/w/../x', workspaceRoots: ['D:\\a\\.\\b'], selectedTools: names, shellPermitted: true }).workspaceRoots.length],
  ['projectRuntimePolicy', () => policy.projectRuntimePolicy(projection).filter((r) => r.status === 'disabled-in-worker').length],
  ['syncCatalog', () => policy.syncCatalog(null, rows).updates.length],
  ['syncCatalog (200 tools)', () => policy.syncCatalog(bigCatalog, rows).inserts.length],
  ['validateToolUpdate', () => policy.validateToolUpdate(update).errors.length],
  ['toolBehaviorGuidance', () => policy.toolBehaviorGuidance(names, hints).length],
  ['labels', () => Object.keys(policy.labels('en').reasons).length],
  ['label', () => policy.label('statuses', 'not-selected', 'zh-CN').length],
  ['version', () => policy.version().length],
  ['engine.resolve', () => engine.resolve(inputs[1]).toolNames.length],
  ['engine.diagnose', () => engine.diagnose(inputs[2]).routes.length],
  ['engine.diagnose (200 tools)', () => bigEngine.diagnose(inputs[3]).routes.length],
  ['engine create+resolve+free', () => {
    const e = new policy.ToolPolicyEngine({ catalog: builtin, governance });
    try {
      return e.resolve(inputs[1]).toolNames.length;
    } finally {
      e.free();
    }
  }],
  ['engine create+free (200 tools)', () => {
    const e = new policy.ToolPolicyEngine({ catalog: bigCatalog });
    e.free();
    return 1;
  }],
  ['refused: resolveTools', () => refuse(() => policy.resolveTools({ agent: { toolsets: [1] } }))],
  ['refused: validateToolUpdate', () => refuse(() => policy.validateToolUpdate({ row: { name: 7 }, patch: {} }))],
  ['refused: engine', () => refuse(() => new policy.ToolPolicyEngine({ catalog: [{ name: '', toolset: 'x' }] }))],
  ['refused: engine.diagnose', () => refuse(() => engine.diagnose({ sessionCwd: 'relative' }))],
  // Inputs JSON.stringify throws on: the caught exception must leave nothing behind.
  ['refused: cyclic', () => {
    const c = {};
    c.c = c;
    return refuse(() => policy.runtimeDiagnostic(c));
  }],
  ['refused: nested BigInt', () => refuse(() => policy.resolveTools({ governance: [{ name: 'bash', status: 1n }] }))],
  ['refused: throwing getter', () => refuse(() => engine.resolve(Object.defineProperty({}, 'agent', { enumerable: true, get() { throw new Error('no'); } })))],
];

/** Calls per round (an engine cycle counts each of its calls). */
const CALLS_PER_ROUND = OPERATIONS.length + 3;

/**
 * Runs about `calls` calls after `warmup` warm-up calls; returns the samples and whether the sizes
 * stayed flat after the warm-up.
 */
export function soak({ calls, warmup = 20_000, samples = 10, onSample = () => {} }) {
  const rounds = Math.max(1, Math.ceil(calls / CALLS_PER_ROUND));
  const warmRounds = Math.max(1, Math.ceil(warmup / CALLS_PER_ROUND));
  const expected = OPERATIONS.map(([, op]) => op());
  const check = () => {
    for (let i = 0; i < OPERATIONS.length; i++) {
      const got = OPERATIONS[i][1]();
      if (got !== expected[i]) throw new Error(`${OPERATIONS[i][0]} answered ${expected[i]}, then ${got}`);
    }
  };
  for (let r = 0; r < warmRounds; r++) check();
  const start = { calls: 0, seconds: 0, ...sizes(), heapUsed: process.memoryUsage().heapUsed };
  const taken = [start];
  onSample(start);
  const every = Math.max(1, Math.floor(rounds / samples));
  const t0 = performance.now();
  for (let r = 1; r <= rounds; r++) {
    check();
    if (r % every === 0 || r === rounds) {
      const sample = { calls: r * CALLS_PER_ROUND, seconds: (performance.now() - t0) / 1000, ...sizes(), heapUsed: process.memoryUsage().heapUsed };
      taken.push(sample);
      onSample(sample);
    }
  }
  const end = taken.at(-1);
  const flat = taken.every((s) => s.memory === start.memory && s.externrefs === start.externrefs);
  return { warmupCalls: warmRounds * CALLS_PER_ROUND, calls: end.calls, seconds: end.seconds, start, end, samples: taken, flat };
}

function main(argv) {
  const arg = (name, fallback) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const calls = arg('--calls', 1_000_000);
  const warmup = arg('--warmup', 20_000);
  const strict = argv.includes('--assert');
  const mib = (b) => (b / 1048576).toFixed(2);
  console.log(`soak: ${calls} calls over ${OPERATIONS.length} operations (${CALLS_PER_ROUND} calls a round), ${warmup} warm-up calls`);
  console.log('     calls   seconds   calls/s   wasm memory (bytes)   externrefs   JS heap (MiB)');
  const result = soak({
    calls,
    warmup,
    onSample: (s) => {
      const rate = s.seconds > 0 ? Math.round(s.calls / s.seconds) : 0;
      console.log(`${String(s.calls).padStart(10)} ${s.seconds.toFixed(1).padStart(9)} ${String(rate).padStart(9)} ${String(s.memory).padStart(21)} ${String(s.externrefs).padStart(12)} ${mib(s.heapUsed).padStart(15)}`);
    },
  });
  const grew = result.end.memory - result.start.memory;
  console.log(`soak: ${result.calls} calls in ${result.seconds.toFixed(1)} s after ${result.warmupCalls} warm-up calls; wasm memory ${result.start.memory} → ${result.end.memory} bytes (${grew >= 0 ? '+' : ''}${grew}); externrefs ${result.start.externrefs} → ${result.end.externrefs}; ${result.flat ? 'flat' : 'NOT FLAT'}`);
  if (strict && !result.flat) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
