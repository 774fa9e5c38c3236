// Node benchmarks: cold start (import + instantiate, in fresh child processes) and the suite of
// suite.mjs. Usage: node bench/node.mjs [--inputs target/bench/inputs.json] [--out file.json]
// (paths relative to the repository). Prints the results as JSON; writes them to --out when given.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, inputsPath, repo, writeResult } from './cli.mjs';
import { median, runSuite } from './suite.mjs';

const coldRuns = Number(arg('cold-runs', '41'));
const floorUrl = (file) => pathToFileURL(path.join(repo, 'js', 'bench', 'floor', file)).href;

/** One `isAuthorized` of Cedar: what "one call" is for the comparison. */
const CEDAR_CALL = `({ principal: { type: 'User', id: 'alice' }, action: { type: 'Action', id: 'read' }, resource: { type: 'File', id: 'a' }, context: {}, policies: { staticPolicies: 'permit(principal, action, resource);' }, entities: [] })`;

/**
 * Nanoseconds from a child's first line of code to the package being ready, then of its first call,
 * per module system; Cedar's `@cedar-policy/cedar-wasm` (a bench-only dependency of js/) doing the
 * same (load + instantiate, one `isAuthorized`) in the same run.
 */
const COLD = {
  require: `const t0 = process.hrtime.bigint();
const p = require('@netaclaw/tool-policy');
p.version();
const t1 = process.hrtime.bigint();
p.runtimeDiagnostic({});
const t2 = process.hrtime.bigint();
console.log(JSON.stringify([Number(t1 - t0), Number(t2 - t1)]));`,
  import: `const t0 = process.hrtime.bigint();
const p = await import('@netaclaw/tool-policy');
p.version();
const t1 = process.hrtime.bigint();
p.runtimeDiagnostic({});
const t2 = process.hrtime.bigint();
console.log(JSON.stringify([Number(t1 - t0), Number(t2 - t1)]));`,
  // The floors of \`import\`: an empty CommonJS file (the package's entry and Cedar's are CommonJS), and one
  // that reads the package's \`.wasm\` with \`fs\` and compiles it, as the package's glue does before it instantiates.
  emptyImport: `const t0 = process.hrtime.bigint();
await import(${JSON.stringify(floorUrl('empty.cjs'))});
const t1 = process.hrtime.bigint();
console.log(JSON.stringify([Number(t1 - t0), 0]));`,
  wasmImport: `const t0 = process.hrtime.bigint();
await import(${JSON.stringify(floorUrl('compile-wasm.cjs'))});
const t1 = process.hrtime.bigint();
console.log(JSON.stringify([Number(t1 - t0), 0]));`,
  cedarRequire: `const t0 = process.hrtime.bigint();
const c = require('@cedar-policy/cedar-wasm/nodejs');
c.getCedarVersion();
const t1 = process.hrtime.bigint();
if (c.isAuthorized(${CEDAR_CALL}).type !== 'success') throw new Error('cedar call failed');
const t2 = process.hrtime.bigint();
console.log(JSON.stringify([Number(t1 - t0), Number(t2 - t1)]));`,
  cedarImport: `const t0 = process.hrtime.bigint();
const c = await import('@cedar-policy/cedar-wasm/nodejs');
c.getCedarVersion();
const t1 = process.hrtime.bigint();
if (c.isAuthorized(${CEDAR_CALL}).type !== 'success') throw new Error('cedar call failed');
const t2 = process.hrtime.bigint();
console.log(JSON.stringify([Number(t1 - t0), Number(t2 - t1)]));`,
};

function coldStart() {
  const out = {};
  // Interleaved run by run, so that the machine's drift affects both packages alike.
  const samples = Object.fromEntries(Object.keys(COLD).map((k) => [k, { ready: [], first: [] }]));
  for (let i = 0; i < coldRuns; i++) {
    for (const [kind, source] of Object.entries(COLD)) {
      const flags = kind.toLowerCase().endsWith('import') ? ['--input-type=module', '-e', source] : ['-e', source];
      const [a, b] = JSON.parse(execFileSync(process.execPath, flags, { cwd: path.join(repo, 'js'), encoding: 'utf8' }));
      samples[kind].ready.push(a);
      samples[kind].first.push(b);
    }
  }
  for (const [kind, { ready, first }] of Object.entries(samples)) {
    out[kind] = { readyNs: median(ready), firstCallNs: median(first), totalNs: median(ready.map((r, i) => r + first[i])), runs: coldRuns };
  }
  return out;
}

const inputs = JSON.parse(fs.readFileSync(inputsPath, 'utf8'));
const policy = await import('@netaclaw/tool-policy');
const now = () => Number(process.hrtime.bigint());
const cold = coldStart();
const suite = runSuite(policy, inputs, now);
const cpus = os.cpus();
const result = {
  runtime: `Node ${process.version}`,
  cpu: cpus[0]?.model ?? 'unknown',
  cores: cpus.length,
  cold,
  ...suite,
};
writeResult(result);
