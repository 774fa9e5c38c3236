'use strict';
/**
 * Worker faults through the batch runner (BatchRunner), inside a real backend on SQLite started in this process: a worker
 * killed mid-call, a batch past its time limit, a worker that blows its heap, a shell that floods its
 * output, forks without end or loops for ever. For each: the backend keeps answering HTTP, the batch is
 * stored failed/killed (or the call fails and the batch goes on) with every call that finished, and no
 * process is left behind — every process seen below the backend during the fault (worker, bwrap, the
 * shell's children) is gone afterwards, counted from /proc.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { bootInProcess } = require('./support/inprocess');
const { workspace, FIXTURE_WORKER } = require('./support/runtime');
const { descendants, stillRunning } = require('./support/processes');

const SHELL_PROCESSES_MAX = require('../dist/runtime/limits.js').SHELL_PROCESSES_MAX;

/**
 * Watches the processes below the backend while `fn` runs: every one that was not there before, and the
 * most below the backend at once (`fn` gets a function that takes a sample at once). Afterwards waits (up
 * to 3 s) for the new ones to be gone and returns what it saw (`left`: those still running).
 */
async function watchProcesses(fn) {
  const key = p => `${p.pid}:${p.start}`;
  const earlier = new Set(descendants().map(key));
  const seen = new Map();
  let peak = 0;
  let running = true;
  const sample = () => {
    const now = descendants();
    peak = Math.max(peak, now.length);
    for (const p of now) if (!earlier.has(key(p))) seen.set(key(p), p);
  };
  const sampler = (async () => {
    while (running) {
      sample();
      await new Promise(r => setTimeout(r, 50));
    }
  })();
  let result;
  try {
    result = await fn(sample);
  } finally {
    running = false;
    await sampler;
  }
  const all = [...seen.values()];
  let left = stillRunning(all);
  for (let i = 0; i < 60 && left.length; i++) {
    await new Promise(r => setTimeout(r, 50));
    left = stillRunning(all);
  }
  return { result, peak, seen: all, left };
}

describe('worker faults: the backend stays up, the batch is stored, no process is left behind', () => {
  let app;
  let ws;
  let agentId;
  const spec = extra => ({ agentId, crewRole: 'sub', driver: 'calls', sessionCwd: ws.root, shellPermitted: true, writePermitted: true, ...extra });

  before(async () => {
    app = await bootInProcess('netaclaw-faults-');
    ws = workspace();
    agentId = (await app.agents.add({ name: 'faults', toolsets: ['base', 'planning'] })).id;
  });
  after(async () => {
    await app.stop();
    ws.cleanup();
  });

  async function answers() {
    const r = await fetch(`${app.url}/health`);
    assert.equal(r.status, 200, 'the backend answers');
    const again = await app.svc.run({ agentId, sessionCwd: ws.root, calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] });
    assert.equal(again.status, 'completed', 'and runs the next batch');
  }

  async function stored(id) {
    const [b] = await app.db.query('SELECT status, error FROM netaclaw_subagent_batch WHERE id = ?', [id]);
    const calls = await app.db.query('SELECT seq, name, ok FROM netaclaw_tool_call WHERE batchId = ? ORDER BY seq', [id]);
    return { ...b, calls: calls.map(c => [c.seq, c.name, !!c.ok]) };
  }

  test('a worker killed mid-call (SIGKILL while bash runs): failed, the finished call kept, its sandbox gone', async () => {
    const before_ = descendants().length;
    const w = await watchProcesses(async sampleNow => {
      const h = await app.svc.start(spec());
      assert.equal((await h.call('read_file', { path: 'a.txt' })).ok, true);
      const pending = h.call('bash', { command: 'sleep 60 & sleep 60 & sleep 60' });
      let worker;
      for (let i = 0; i < 100 && !worker; i++) {
        await new Promise(r => setTimeout(r, 50));
        const below = descendants();
        if (below.some(p => p.comm === 'sleep')) worker = below.find(p => p.comm === 'node' || p.comm === 'MainThread');
      }
      assert.ok(worker, 'the worker and its sandbox were seen running');
      sampleNow(); // the watch records the sandbox before it is killed, however late its own timer runs
      process.kill(worker.pid, 'SIGKILL');
      await assert.rejects(pending, /batch ended \(failed\)/);
      return h.id;
    });
    const b = await stored(w.result);
    assert.equal(b.status, 'failed');
    assert.match(b.error, /worker exited unexpectedly \(signal SIGKILL\)/);
    assert.deepEqual(b.calls, [[1, 'read_file', true]]);
    assert.ok(
      w.seen.some(p => p.comm === 'bwrap'),
      'bwrap was running'
    );
    assert.deepEqual(w.left, [], 'no process left behind (bwrap dies with its parent, the shell with bwrap)');
    assert.equal(descendants().length, before_);
    await answers();
  });

  test('a batch past its time limit while bash sleeps: killed, finished calls kept, nothing left', async () => {
    const w = await watchProcesses(async () => {
      const h = await app.svc.start(spec({ timeoutMs: 2500 }));
      await h.call('list_dir', {});
      await assert.rejects(h.call('bash', { command: 'sleep 60 & while :; do :; done', timeoutMs: 60000 }), /batch ended \(killed\)/);
      return h.id;
    });
    const b = await stored(w.result);
    assert.equal(b.status, 'killed');
    assert.match(b.error, /time limit of 2500 ms/);
    assert.deepEqual(b.calls, [[1, 'list_dir', true]]);
    assert.deepEqual(w.left, []);
    await answers();
  });

  test('a worker that blows its heap: failed, "ran out of memory", nothing left', async () => {
    const w = await watchProcesses(async () => {
      const h = await app.svc.start(spec(), { workerModule: FIXTURE_WORKER });
      assert.equal((await h.call('x', { act: 'fine' })).ok, true);
      const t0 = Date.now();
      await assert.rejects(h.call('x', { act: 'oom' }), /batch ended \(failed\)/);
      return { id: h.id, ms: Date.now() - t0 };
    });
    const b = await stored(w.result.id);
    assert.equal(b.status, 'failed');
    assert.match(b.error, /worker ran out of memory \(its heap is limited to 256 MB\) and died/);
    assert.deepEqual(b.calls, [[1, 'x', true]]);
    assert.deepEqual(w.left, []);
    await answers();
  });

  test(`a fork bomb in bash stops at ${SHELL_PROCESSES_MAX} processes; the call fails on its time limit; nothing left`, async t => {
    const h = await app.svc.start(spec());
    t.after(() => h.kill('test over').catch(() => undefined));
    // First a bounded one: 2,000 children asked for. Without the limit they would all start.
    const bounded = await watchProcesses(() => h.call('bash', { command: 'for i in $(seq 2000); do sleep 30 & done 2>/dev/null; echo done', timeoutMs: 4000 }));
    t.diagnostic(`2,000 children asked for: at most ${bounded.peak} processes below the backend at once`);
    assert.ok(bounded.peak <= SHELL_PROCESSES_MAX + 5, `peak ${bounded.peak}`);
    assert.ok(bounded.peak >= SHELL_PROCESSES_MAX / 2, `the shell did fork (peak ${bounded.peak})`);
    assert.equal(bounded.result.ok, false);
    assert.match(bounded.result.error, /time limit of 4000 ms/);
    assert.deepEqual(bounded.left, []);
    // Then the real thing.
    const bomb = await watchProcesses(() => h.call('bash', { command: ':(){ :|:& };:; sleep 30', timeoutMs: 3000 }));
    t.diagnostic(`fork bomb: at most ${bomb.peak} processes below the backend at once, ${bomb.seen.length} seen in all`);
    assert.ok(bomb.peak <= SHELL_PROCESSES_MAX + 5, `peak ${bomb.peak}`);
    assert.equal(bomb.result.ok, false);
    assert.deepEqual(bomb.left, []);
    // an endless loop, and an output flood
    const loop = await watchProcesses(() => h.call('bash', { command: 'while :; do :; done', timeoutMs: 1500 }));
    assert.match(loop.result.error, /time limit of 1500 ms/);
    assert.deepEqual(loop.left, []);
    const flood = await watchProcesses(() => h.call('bash', { command: 'yes flood' }));
    assert.match(flood.result.error, /output passed the hard limit/);
    assert.deepEqual(flood.left, []);
    const after_ = await h.call('read_file', { path: 'a.txt' });
    assert.equal(after_.ok, true, 'the batch goes on');
    const record = await h.finish();
    assert.equal(record.status, 'completed');
    assert.deepEqual(
      record.calls.map(c => [c.name, c.ok]),
      [
        ['bash', false],
        ['bash', false],
        ['bash', false],
        ['bash', false],
        ['read_file', true],
      ]
    );
    await answers();
  });

  test('the sandboxed shell holds no capability and cannot make a user namespace', async () => {
    const r = await app.svc.run({
      agentId,
      sessionCwd: ws.root,
      shellPermitted: true,
      calls: [{ name: 'bash', arguments: { command: 'grep -E "^Cap(Prm|Eff|Bnd|Amb)" /proc/self/status; ulimit -u; unshare -U true && echo MADE-USERNS' } }],
    });
    const out = r.calls[0].output;
    assert.match(out, /CapPrm:\s+0+\n/);
    assert.match(out, /CapEff:\s+0+\n/);
    assert.match(out, /CapBnd:\s+0+\n/);
    assert.ok(!out.includes('MADE-USERNS'), out);
    assert.match(out, new RegExp(`\\n${SHELL_PROCESSES_MAX}\\n`), 'RLIMIT_NPROC');
  });
});
