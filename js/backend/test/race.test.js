'use strict';
/**
 * Symlink races: another process swaps a folder of the workspace for a symlink to a folder outside and
 * back, thousands of times a second, while the runtime's file tools use paths through it — in the main
 * process (proxied tools and the main agent's own calls) and in a real worker. What must hold: no byte
 * of the outside secret in any answer, nothing outside changed, and (main process) no outside name in a
 * listing. What remains in a worker (listings by path) is measured and printed. A control with
 * operations that use paths as they are (the code before) shows the race is real here.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { rt, sandboxOf, mainTools, workspace, operations, services, withHost, snapshot, diagnose, callText } = require('./support/runtime');

const SWAPPER = path.resolve(__dirname, 'fixtures', 'swapper.js');
const SECRET = 'TOP-SECRET';
const OUTSIDE_NAME = 'OUTSIDE-ONLY-NAME.txt';
/** Calls per tool and side; the whole file stays within about 20 s on a loaded 2-core machine. */
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 150);

async function startSwapper(dir, target) {
  const child = spawn(process.execPath, [SWAPPER, dir, target], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', d => (out += d));
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', code => reject(new Error(`swapper exited early (${code})`)));
  });
  return {
    async stop() {
      const exited = new Promise(r => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
      return Number(/swaps (\d+)/.exec(out)?.[1] ?? 0);
    },
  };
}

/** The operations of the code before: paths used as they are, after the symlink check only. */
function pathOperations() {
  return {
    ...operations('bwrap'),
    fs: {
      async readFile(p) {
        return fs.promises.readFile(p);
      },
      async stat(p) {
        const st = await fs.promises.stat(p);
        return { type: st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other', size: st.size };
      },
    },
  };
}

function raceWorkspace() {
  const ws = workspace();
  const race = path.join(ws.root, 'race');
  fs.mkdirSync(race);
  fs.writeFileSync(path.join(race, 'secret.txt'), 'inside\n');
  fs.writeFileSync(path.join(race, 'inner.txt'), 'inner\n');
  fs.writeFileSync(path.join(ws.outside, OUTSIDE_NAME), `${SECRET} by name\n`);
  fs.mkdirSync(path.join(ws.outside, 'sub'));
  fs.writeFileSync(path.join(ws.outside, 'sub', 'deep.txt'), `${SECRET} deep\n`);
  return { ...ws, race };
}

/** Calls whose paths go through the swapped folder. */
const readCalls = [
  ['read_file', { path: 'race/secret.txt' }],
  ['list_dir', { path: 'race' }],
  ['find_files', { pattern: '**/*', path: 'race' }],
  ['grep', { pattern: 'SECRET|inside|inner', path: 'race' }],
  ['grep', { pattern: 'SECRET|inside', path: 'race/secret.txt' }],
  ['read_file', { path: 'race/sub/deep.txt' }],
];
const writeCalls = i => [
  ['write_file', { path: `race/w${i}.txt`, content: 'written' }],
  ['write_file', { path: `race/sub/w${i}.txt`, content: 'written' }],
  ['edit', { path: 'race/inner.txt', oldText: 'inner', newText: 'inner' }],
  ['patch', { patch: `--- /dev/null\n+++ b/race/p${i}.txt\n@@ -0,0 +1 @@\n+patched\n` }],
];

function tally(results) {
  const t = { calls: results.length, ok: 0, denied: 0, failed: 0, secret: 0, outsideName: 0 };
  for (const { r } of results) {
    if (r.decision === 'denied') t.denied += 1;
    else if (r.ok) t.ok += 1;
    else t.failed += 1;
    const text = callText(r);
    if (text.includes(SECRET)) t.secret += 1;
    if (text.includes(OUTSIDE_NAME) || /(^|\n)sub\/deep\.txt/.test(text) || /OUTSIDE-ONLY/.test(text)) t.outsideName += 1;
  }
  return t;
}

describe('symlink races: a folder swapped for a symlink to outside while calls run', () => {
  let ws;
  let before_;
  before(() => {
    ws = raceWorkspace();
    before_ = snapshot(ws.outside);
  });
  after(() => ws.cleanup());

  test(`main process: ${ROUNDS} rounds of reads, listings, searches and writes — no secret, no outside name, nothing changed`, async t => {
    const { runHere } = rt('runner.js');
    const { policy, routes } = diagnose(ws.root, { write: true });
    const ctx = { policy, routes, ops: operations('bwrap'), sandbox: sandboxOf('bwrap'), tools: mainTools(), agentId: 1, services: services() };
    const swapper = await startSwapper(ws.race, ws.outside);
    const results = [];
    try {
      for (let i = 0; i < ROUNDS; i++) {
        for (const [name, args] of [...readCalls, ...writeCalls(i)]) {
          const { outcome } = await runHere(ctx, 'any', name, args);
          results.push({ name, r: outcome });
        }
      }
    } finally {
      const swaps = await swapper.stop();
      t.diagnostic(`swaps during the run: ${swaps}`);
    }
    const all = tally(results);
    t.diagnostic(`main process: ${JSON.stringify(all)}`);
    if (process.env.RACE_DEBUG)
      for (const e of new Set(results.filter(x => !x.r.ok).map(x => `${x.name}: ${(x.r.error ?? '').replace(/[0-9a-f]{12}|\/tmp\/\S+/g, '…')}`)))
        t.diagnostic(e);
    assert.equal(all.secret, 0, 'no byte of the outside secret in any answer');
    assert.equal(all.outsideName, 0, 'no outside name in any listing');
    assert.ok(all.denied > 0, 'the race was met: some calls were denied path_outside_workspace');
    assert.ok(all.ok > 0, 'and some ran');
    assert.deepEqual(snapshot(ws.outside), before_, 'nothing outside changed');
  });

  test(`worker: ${ROUNDS} rounds of reads, listings and searches — no secret; outside names in listings counted`, async t => {
    const { policy, routes } = diagnose(ws.root, { write: true });
    const results = [];
    // the batch time limit at its maximum: long soaks run many rounds in one batch
    await withHost({ policy, routes, timeoutMs: 600000 }, async host => {
      const swapper = await startSwapper(ws.race, ws.outside);
      try {
        for (let i = 0; i < ROUNDS; i++) {
          for (const [name, args] of readCalls) results.push({ name, r: await host.call(name, args) });
        }
      } finally {
        t.diagnostic(`swaps during the run: ${await swapper.stop()}`);
      }
    });
    const all = tally(results);
    const listings = tally(results.filter(x => x.name === 'list_dir' || x.name === 'find_files'));
    t.diagnostic(`worker: ${JSON.stringify(all)}`);
    t.diagnostic(`worker listings (list_dir, find_files) showing an outside name: ${listings.outsideName} of ${listings.calls}`);
    assert.equal(all.secret, 0, 'no byte of the outside secret in any answer: contents are read only through checked descriptors');
    assert.ok(all.denied > 0, 'the race was met');
    assert.ok(
      results.every(x => x.r.decision !== 'main-process-proxy'),
      'read tools ran in the worker'
    );
    assert.deepEqual(snapshot(ws.outside), before_, 'nothing outside changed');
  });

  test('control: operations that use paths as they are leak the secret under the same race', async t => {
    const { runHere } = rt('runner.js');
    const { policy, routes } = diagnose(ws.root);
    const ctx = { policy, routes, ops: pathOperations(), sandbox: sandboxOf('bwrap'), tools: mainTools(), agentId: 1, services: services() };
    const swapper = await startSwapper(ws.race, ws.outside);
    let tries = 0;
    let leaked = 0;
    const deadline = Date.now() + 15000;
    try {
      while (leaked === 0 && Date.now() < deadline && tries < 20000) {
        tries += 1;
        const { outcome } = await runHere(ctx, 'any', 'read_file', { path: 'race/secret.txt' });
        if (callText(outcome).includes(SECRET)) leaked += 1;
      }
    } finally {
      await swapper.stop();
    }
    t.diagnostic(`path-based reads: first leak after ${tries} tries`);
    assert.equal(leaked, 1, `the race harness never made a path-based read leak in ${tries} tries`);
  });
});
