// Randomized differential testing across runtimes: the native generator (`cargo run --example
// differential`) writes random inputs for every function with the native answer text; Node and headless
// Chromium replay them through the package and must print byte-identical `JSON.stringify` text (and, for
// refused inputs, the same `invalid_input` message).
//
// DIFF_COUNT (cases per function in Node, default 500), DIFF_BROWSER_COUNT (per function in Chromium,
// default 100), DIFF_SEED (default 20240501), DIFF_FILE (replay this file instead of generating one).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, serveStatic, withPage } from './lib/static.mjs';

const require = createRequire(import.meta.url);
const policy = require('@netaclaw/tool-policy');

const COUNT = Number(process.env.DIFF_COUNT ?? 500);
const BROWSER_COUNT = Number(process.env.DIFF_BROWSER_COUNT ?? 100);
const SEED = process.env.DIFF_SEED ?? '20240501';
/** The functions the native generator covers (`--list`): exported functions (checked against the
 * export table by the generator) and the engine's methods. */
const FUNCTIONS = JSON.parse(execFileSync('cargo', ['run', '--quiet', '--example', 'differential', '--', '--list'], { cwd: ROOT, encoding: 'utf8' }));

const work = mkdtempSync(join(tmpdir(), 'netaclaw-differential-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** Runs the native generator; returns the parsed cases. */
function generate(name, args) {
  const out = join(work, `${name}.jsonl`);
  execFileSync('cargo', ['run', '--quiet', '--example', 'differential', '--', ...args, '--out', out], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return read(out);
}

function read(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * Replays cases against a loaded package (Node or browser); self-contained, so that it can be sent to a
 * page as source. Returns counts by function and the first mismatches.
 */
function replay(policy, cases) {
  const counts = {};
  const mismatches = [];
  let failed = 0;
  const describe = (value) => {
    const text = typeof value === 'string' ? value : String(value);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  };
  const firstDifference = (a, b) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return `at ${i}: native …${describe(b.slice(Math.max(0, i - 40), i + 80))} / here …${describe(a.slice(Math.max(0, i - 40), i + 80))}`;
  };
  cases.forEach((c, index) => {
    counts[c.function] = (counts[c.function] ?? 0) + 1;
    let got;
    let error = null;
    try {
      if (c.function.startsWith('engine.')) {
        const engine = new policy.ToolPolicyEngine(c.args[0]);
        try {
          got = engine[c.function.slice('engine.'.length)](c.args[1]);
        } finally {
          engine.free();
        }
      } else {
        got = policy[c.function](...c.args);
      }
    } catch (e) {
      error = e;
    }
    let problem = null;
    if ('expected' in c) {
      if (error) {
        problem = `threw ${error && error.code} ${describe(error && error.message)}`;
      } else {
        const text = JSON.stringify(got);
        if (text !== c.expected) problem = `answered other bytes ${firstDifference(text ?? 'undefined', c.expected)}`;
      }
    } else if (!error) {
      problem = `answered ${describe(JSON.stringify(got))} where native refused: ${c.error.message}`;
    } else if (!(error instanceof Error) || error.code !== c.error.code || error.message !== c.error.message) {
      problem = `threw ${error && error.constructor && error.constructor.name} ${error && error.code} "${describe(error && error.message)}" where native refused "${c.error.message}"`;
    }
    if (problem) {
      failed++;
      if (mismatches.length < 10) mismatches.push({ index, function: c.function, args: describe(JSON.stringify(c.args)), problem });
    }
  });
  return { counts, failed, mismatches };
}

function firstPerFunction(cases, n) {
  const taken = {};
  return cases.filter((c) => (taken[c.function] = (taken[c.function] ?? 0) + 1) <= n);
}

function assertReplay(result, cases, where) {
  const detail = result.mismatches.map((m) => `#${m.index} ${m.function}: ${m.problem}\n  args ${m.args}`).join('\n');
  assert.equal(result.failed, 0, `${result.failed} of ${cases.length} cases differ in ${where}:\n${detail}`);
  const replayed = Object.values(result.counts).reduce((a, b) => a + b, 0);
  assert.equal(replayed, cases.length);
}

let valid;
let mixed;

test('the native generator writes cases for every function', () => {
  if (process.env.DIFF_FILE) {
    valid = read(resolve(process.env.DIFF_FILE));
    mixed = [];
  } else {
    valid = generate('valid', ['--count', String(COUNT), '--seed', SEED, '--mode', 'valid']);
    mixed = generate('mixed', ['--count', String(Math.ceil(COUNT / 2)), '--seed', String(Number(SEED) + 1), '--mode', 'mixed']);
    for (const f of FUNCTIONS) {
      assert.equal(valid.filter((c) => c.function === f).length, COUNT, `${f} cases`);
    }
    assert.ok(
      valid.every((c) => 'expected' in c),
      'valid mode holds answers only',
    );
    assert.ok(mixed.some((c) => 'error' in c) && mixed.some((c) => 'expected' in c), 'mixed mode holds answers and refusals');
  }
});

test('Node replays every case byte-identically', (t) => {
  const cases = [...valid, ...mixed];
  const result = replay(policy, cases);
  const source = process.env.DIFF_FILE ? `file ${process.env.DIFF_FILE}` : `seed ${SEED}`;
  t.diagnostic(`Node: ${cases.length} cases (${valid.length} valid, ${mixed.length} mixed), ${source}`);
  assertReplay(result, cases, 'Node');
});

test('the replay notices a difference', () => {
  // A case whose expected text was altered must be reported: the comparison is not vacuous.
  const c = valid.find((x) => x.function === 'resolveTools');
  const altered = { ...c, expected: c.expected.replace('"toolNames":[', '"toolNames":["ghost",') };
  const refused = { function: 'label', args: ['reasons', 'nope'], error: { code: 'invalid_input', message: 'code: something else' } };
  const result = replay(policy, [c, altered, refused]);
  assert.equal(result.failed, 2);
  assert.deepEqual(
    result.mismatches.map((m) => m.index),
    [1, 2],
  );
});

test('headless Chromium replays the same cases byte-identically', async (t) => {
  const cases = [...firstPerFunction(valid, BROWSER_COUNT), ...firstPerFunction(mixed, Math.ceil(BROWSER_COUNT / 2))];
  const { server, origin } = await serveStatic({
    '/': { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><title>differential</title>' },
    '/cases.json': { type: 'application/json', body: JSON.stringify(cases) },
    '/replay.mjs': { type: 'text/javascript', body: `export ${replay.toString()}\n` },
  });
  try {
    const { result, errors } = await withPage(origin, '/', (page) =>
      page.evaluate(async () => {
        const policy = await import('/pkg/browser.mjs');
        const { replay } = await import('/replay.mjs');
        const cases = await (await fetch('/cases.json')).json();
        return { ...replay(policy, cases), agent: navigator.userAgent };
      }),
    );
    t.diagnostic(`Chromium (${result.agent.match(/Chrome\/[\d.]+/)?.[0]}): ${cases.length} cases`);
    assert.deepEqual(errors, []);
    assertReplay(result, cases, 'Chromium');
  } finally {
    server.close();
  }
});
