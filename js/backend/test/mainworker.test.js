'use strict';
/**
 * The main agent's calls run in a confined worker of its session, not in the backend process: through the
 * real server and the chat API, with the scripted model (test/support/model.js), processes seen in /proc.
 * - a catastrophic regular expression in `grep` does not stop the backend (`/health` answers throughout)
 *   and finishes (the linear-time engine);
 * - `read_file` through a symlink out of the roots is denied; a `read_file` is recorded `worker-local`
 *   (the answer and the `netaclaw_tool_call` row), a `write_file` `main-process-proxy`;
 * - a turn's workers (one, and one more for each call that runs beside others) serve its calls and end with the turn;
 * - `bash` runs in the sandbox below the worker, never as a child of the backend itself, and cannot open
 *   `/proc/sys/kernel/core_pattern` for writing.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, openWs, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();

/** pid → { ppid, cmdline } of every process, from /proc. */
function processes() {
  const out = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      out.set(Number(name), { ppid, cmdline });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** The ancestors of `pid`, nearest first. */
function ancestors(procs, pid) {
  const out = [];
  for (let p = procs.get(pid)?.ppid; p && p > 1 && out.length < 64; p = procs.get(p)?.ppid) out.push(p);
  return out;
}

// the worker's Node process itself (not the bwrap processes around it, whose command lines hold it too)
const isWorker = cmdline => path.basename(cmdline.split(' ')[0]) === 'node' && cmdline.includes(path.join('runtime', 'worker', 'main.js'));

/** The worker processes below `root` (the backend). */
function workersBelow(root) {
  const procs = processes();
  return [...procs].filter(([pid, p]) => isWorker(p.cmdline) && ancestors(procs, pid).includes(root)).map(([pid]) => pid);
}

async function sessionInfo(s, id) {
  const r = await call(s, 'GET', `/admin/netaclaw/session/info?id=${id}`);
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

function defineTests(backend) {
  test('a catastrophic grep pattern of the main agent: /health answers throughout the call (under 200 ms, or a third of the call on a busy machine), which finishes', async t => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    // lines of a's ending in b: `^(a+)+$` backtracks exponentially on each in a backtracking engine
    fs.writeFileSync(path.join(work, 'aaa.txt'), `${'a'.repeat(4000)}b\n`.repeat(20) + `${'a'.repeat(40)}b\n`);
    // enough of them (16 MB) that the call lasts while /health is asked many times
    fs.mkdirSync(path.join(work, 'big'));
    for (let i = 0; i < 8; i++) fs.writeFileSync(path.join(work, 'big', `a${i}.txt`), `${'a'.repeat(4000)}b\n`.repeat(500));
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'redos', toolsets: ['base'] });
      // A server's first chat turns are slower (their code compiled on first use: up to ~200 ms of the event
      // loop on a busy machine, before any tool runs): two turns with a harmless grep first.
      for (let i = 0; i < 5; i++) assert.equal((await call(s, 'GET', '/health')).status, 200);
      let sessionId;
      for (let i = 0; i < 2; i++) {
        model.push({ toolCalls: [{ id: `w${i}`, name: 'grep', arguments: { pattern: 'b$', path: 'aaa.txt' } }] }, { content: 'warm' });
        const w = await chat(s, { agentId: agent.id, message: 'warm up', ...(sessionId ? { sessionId } : { sessionCwd: work }) });
        assert.equal(w.status, 200, w.text);
        assert.equal(w.body.data.toolCalls[0].ok, true);
        sessionId = w.body.data.sessionId;
      }
      model.push({ toolCalls: [{ id: 'g1', name: 'grep', arguments: { pattern: '^(a+)+$', path: 'big' } }] }, { content: 'searched' });
      // the turn over the WebSocket: its events say when the call was sent and when its result came
      const c = openWs(s);
      await c.opened;
      const at = {};
      c.ws.on('message', d => {
        const e = JSON.parse(d.toString());
        if (e.type === 'tool-call' || e.type === 'tool-result') at[e.type] = Date.now();
      });
      let polling = true;
      const samples = [];
      const poll = (async () => {
        while (polling) {
          const t0 = Date.now();
          const r = await fetch(`${s.url}/health`, { signal: AbortSignal.timeout(30000) });
          await r.text();
          samples.push({ start: t0, ms: Date.now() - t0 });
          assert.equal(r.status, 200);
          await new Promise(resolve => setTimeout(resolve, 20));
        }
      })();
      const t0 = Date.now();
      let done;
      try {
        const end = c.next(e => e.type === 'done' || e.type === 'error', 20000);
        c.send({ type: 'chat', agentId: agent.id, message: 'grep it', sessionId });
        done = await end;
      } finally {
        polling = false;
        await poll;
        await c.close();
      }
      assert.equal(done.type, 'done', JSON.stringify(done));
      const g = done.toolCalls[0];
      assert.deepEqual([g.name, g.decision, g.ok], ['grep', 'worker-local', true], JSON.stringify(g));
      assert.match(g.output, /^no matches for \^\(a\+\)\+\$ in 8 file/);
      // every /health asked while the call ran (from its tool-call event to its tool-result) answered fast
      const during = samples.filter(x => x.start + x.ms >= at['tool-call'] && x.start <= at['tool-result']);
      t.diagnostic(
        `turn ${Date.now() - t0} ms, grep ${g.durationMs} ms; /health during the call: ${during.map(x => x.ms).join(' ')} ms; ` +
          `over the whole turn: ${samples.map(x => x.ms).join(' ')} ms`
      );
      assert.ok(during.length >= 5, `/health asked ${during.length} times during the call`);
      // A call run on the backend's event loop would hold every /health for about the whole call; a busy
      // machine slows /health and the call alike. So: under 200 ms, or under a third of the call's time.
      const worst = Math.max(...during.map(x => x.ms));
      const bound = Math.max(200, g.durationMs / 3);
      assert.ok(worst < bound, `/health took ${worst} ms during a call of ${g.durationMs} ms (bound ${Math.round(bound)} ms)`);

      // a pattern the linear-time engine cannot run is a failed call that says why
      model.push(
        {
          toolCalls: [
            { id: 'g2', name: 'grep', arguments: { pattern: '(a)\\1', path: 'aaa.txt' } },
            { id: 'g3', name: 'grep', arguments: { pattern: 'a(?=b)', path: 'aaa.txt' } },
            { id: 'g4', name: 'grep', arguments: { pattern: '^a{40}b$', path: 'aaa.txt' } },
          ],
        },
        { content: 'ok' }
      );
      const r2 = await chat(s, { agentId: agent.id, message: 'grep more', sessionId });
      assert.equal(r2.status, 200, r2.text);
      const [back, look, fine] = r2.body.data.toolCalls;
      assert.deepEqual([back.ok, look.ok], [false, false]);
      assert.match(back.error, /backreference.*linear time/);
      assert.match(look.error, /look-ahead or look-behind.*linear time/);
      assert.equal(fine.ok, true, JSON.stringify(fine));
      assert.equal(fine.output, `aaa.txt:21:${'a'.repeat(40)}b`);
    });
  });

  test("the main agent's read_file runs in the session's worker: recorded worker-local; a symlink out of the roots is denied", async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    const outside = tmpDir('netaclaw-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'the secret of another folder');
    fs.writeFileSync(path.join(work, 'inside.txt'), 'inside text');
    fs.symlinkSync(outside, path.join(work, 'esc'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(work, 'link.txt'));
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'reader', toolsets: ['base'], tools: { disabled: ['bash'] } });
      const backendPid = s.child.pid;
      let during = null;
      model.push(
        {
          toolCalls: [
            { id: 'r1', name: 'read_file', arguments: { path: 'inside.txt' } },
            { id: 'r2', name: 'read_file', arguments: { path: 'esc/secret.txt' } },
            { id: 'r3', name: 'read_file', arguments: { path: 'link.txt' } },
            { id: 'w1', name: 'write_file', arguments: { path: 'made.txt', content: 'made by the main process' } },
          ],
        },
        // while the model "thinks" after the calls, the turn's worker is still there: one, below the backend
        () => {
          during = workersBelow(backendPid);
          return { content: 'read' };
        }
      );
      assert.deepEqual(workersBelow(backendPid), [], 'no worker before the turn');
      const r = await chat(s, { agentId: agent.id, message: 'read', sessionCwd: work, writePermitted: true });
      assert.equal(r.status, 200, r.text);
      const byId = Object.fromEntries(r.body.data.toolCalls.map(c => [c.id, c]));
      assert.deepEqual([byId.r1.decision, byId.r1.ok, byId.r1.output], ['worker-local', true, 'inside text']);
      for (const id of ['r2', 'r3']) {
        assert.deepEqual([byId[id].decision, byId[id].reason], ['denied', 'path_outside_workspace'], JSON.stringify(byId[id]));
        assert.ok(!JSON.stringify(byId[id]).includes('the secret'), id);
      }
      assert.deepEqual([byId.w1.decision, byId.w1.ok], ['main-process-proxy', true], JSON.stringify(byId.w1));
      assert.equal(fs.readFileSync(path.join(work, 'made.txt'), 'utf8'), 'made by the main process');
      // the three read_file calls (parallel) ran side by side, each in a worker of the turn; write_file
      // (sequential) ran after them in one of those: three workers during the turn
      assert.equal(during?.length, 3, `one worker per call that ran at once: ${JSON.stringify(during)}`);
      // the worker ends with the turn
      for (let i = 0; i < 100 && workersBelow(backendPid).length > 0; i++) await new Promise(resolve => setTimeout(resolve, 50));
      assert.deepEqual(workersBelow(backendPid), [], 'the worker ended with the turn');
      // the stored rows say where each call ran (the three read_file calls ran side by side: stored in the
      // order they ended; write_file after them)
      const info = await sessionInfo(s, r.body.data.sessionId);
      assert.deepEqual(
        info.calls.map(c => c.seq),
        [1, 2, 3, 4]
      );
      assert.deepEqual(
        info.calls
          .slice(0, 3)
          .map(c => [c.name, c.decision, c.reason])
          .sort(),
        [
          ['read_file', 'denied', 'path_outside_workspace'],
          ['read_file', 'denied', 'path_outside_workspace'],
          ['read_file', 'worker-local', null],
        ]
      );
      assert.deepEqual([info.calls[3].name, info.calls[3].decision, info.calls[3].reason], ['write_file', 'main-process-proxy', null]);
      const rows = await db.sql("SELECT sessionId, batchId, name, decision FROM netaclaw_tool_call WHERE name = 'read_file' AND ok = 1");
      assert.deepEqual(
        rows.map(x => [String(x.sessionId), x.batchId, x.decision]),
        [[String(r.body.data.sessionId), null, 'worker-local']]
      );

      // a tool the governance row sends to the main process: the worker proxies it, the main process runs
      // it (in linear time too), and the record says so
      assert.equal((await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'grep', workerRoutingStrategy: 'force-main-process-proxy' })).status, 200);
      model.push({ toolCalls: [{ id: 'g1', name: 'grep', arguments: { pattern: '^(i+)+nside', path: 'inside.txt' } }] }, { content: 'found' });
      const g = await chat(s, { agentId: agent.id, message: 'grep', sessionId: r.body.data.sessionId });
      assert.equal(g.status, 200, g.text);
      const gc = g.body.data.toolCalls[0];
      assert.deepEqual([gc.decision, gc.ok, gc.output], ['main-process-proxy', true, 'inside.txt:1:inside text'], JSON.stringify(gc));
      const last = (await sessionInfo(s, r.body.data.sessionId)).calls.at(-1);
      assert.deepEqual([last.seq, last.name, last.decision], [5, 'grep', 'main-process-proxy']);
    });
  });

  /** A fresh database and workspace, a server on them, and an agent with the base tools: `fn({ s, agent, work })`. */
  async function withBaseAgent(name, fn) {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => fn({ s, agent: await addAgent(s, { name, toolsets: ['base'] }), work }));
  }

  /** One main-agent bash turn: its answer, and the processes whose command line holds the command's marker. */
  async function bashTurn(s, agent, work, command) {
    const marker = `netaclaw-marker-${process.pid}-${Date.now()}`;
    model.push({ toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: `${command}; echo ${marker}` } }] }, { content: 'ran' });
    const seen = new Map();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const procs = processes();
        for (const [pid, p] of procs) {
          if (p.cmdline.includes(marker) && !seen.has(pid)) {
            // the ancestors up to the backend (or all of them, when it is not among them)
            const all = ancestors(procs, pid);
            const upTo = all.includes(s.child.pid) ? all.slice(0, all.indexOf(s.child.pid) + 1) : all;
            const chain = upTo.map(a => {
              const cmdline = procs.get(a)?.cmdline ?? '';
              return { pid: a, worker: isWorker(cmdline), cmdline: cmdline.slice(0, 120) };
            });
            seen.set(pid, { ppid: p.ppid, cmdline: p.cmdline.slice(0, 120), chain });
          }
        }
        await new Promise(resolve => setTimeout(resolve, 100));
      }
    })();
    let r;
    try {
      r = await chat(s, { agentId: agent.id, message: 'run it', sessionCwd: work, shellPermitted: true });
    } finally {
      watching = false;
      await watch;
    }
    assert.equal(r.status, 200, r.text);
    const b = r.body.data.toolCalls[0];
    assert.deepEqual([b.name, b.decision], ['bash', 'worker-local'], JSON.stringify(b));
    assert.match(b.output, new RegExp(marker), JSON.stringify(b));
    return { call: b, seen };
  }

  test("the main agent's bash runs in the sandbox below its worker, never as a child of the backend itself", async t => {
    await withBaseAgent('shell', async ({ s, agent, work }) => {
      const backendPid = s.child.pid;
      const { call: b, seen } = await bashTurn(s, agent, work, 'sleep 2');
      assert.equal(b.ok, true, JSON.stringify(b));
      // the processes of the command (the sandbox and the shell, whose command line holds the marker)
      assert.ok(seen.size > 0, "the command's processes were seen");
      for (const [pid, p] of seen) {
        const pids = p.chain.map(a => a.pid);
        assert.ok(pids.includes(backendPid), `${pid} runs below the backend: ${JSON.stringify(p)}`);
        assert.notEqual(p.ppid, backendPid, `${pid} is not a child of the backend itself: ${JSON.stringify(p)}`);
        const below = p.chain.slice(0, pids.indexOf(backendPid));
        assert.ok(
          below.some(a => a.worker),
          `${pid} runs below the session's worker: ${JSON.stringify(p)}`
        );
      }
      t.diagnostic(`${seen.size} process(es) of the command, each below a worker below the backend (${backendPid})`);
    });
  });

  test('a cancelled turn kills its worker and the call in progress; the call is recorded, the session goes on', async () => {
    await withBaseAgent('cancel-shell', async ({ s, agent, work }) => {
      const backendPid = s.child.pid;
      const marker = `netaclaw-cancel-${process.pid}-${Date.now()}`;
      model.push({ toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: `sleep 60; echo ${marker}` } }] });
      const c = openWs(s);
      await c.opened;
      const started = c.next(e => e.type === 'tool-call' && e.name === 'bash');
      const end = c.next(e => e.type === 'error' || e.type === 'done');
      c.send({ type: 'chat', agentId: agent.id, message: 'sleep', sessionCwd: work, shellPermitted: true });
      const { sessionId } = await started;
      // the command is running below the turn's worker
      let running = false;
      for (let i = 0; i < 100 && !running; i++) {
        running = [...processes().values()].some(p => p.cmdline.includes(marker));
        if (!running) await new Promise(resolve => setTimeout(resolve, 50));
      }
      assert.ok(running, 'the command runs');
      assert.equal(workersBelow(backendPid).length, 1);
      const t0 = Date.now();
      c.send({ type: 'cancel' });
      const e = await end;
      assert.deepEqual([e.type, e.code], ['error', 'cancelled'], JSON.stringify(e));
      const result = c.events.find(x => x.type === 'tool-result');
      assert.equal(result, undefined, 'a cancelled call sends no result');
      await c.close();
      for (let i = 0; i < 100 && (workersBelow(backendPid).length || [...processes().values()].some(p => p.cmdline.includes(marker))); i++) {
        await new Promise(resolve => setTimeout(resolve, 50));
      }
      assert.deepEqual(workersBelow(backendPid), [], 'the worker is gone');
      assert.ok(![...processes().values()].some(p => p.cmdline.includes(marker)), 'the command is gone');
      assert.ok(Date.now() - t0 < 5000, `ended ${Date.now() - t0} ms after the cancel`);
      const info = await sessionInfo(s, sessionId);
      assert.deepEqual(
        info.calls.map(x => [x.name, x.ok]),
        [['bash', false]]
      );
      assert.match(info.calls[0].error, /the tool worker stopped: the turn was cancelled/);
      assert.deepEqual(
        info.messages.map(m => m.role),
        ['user', 'assistant', 'tool', 'error']
      );
      assert.equal(info.messages[2].content, 'Tool call cancelled.');
      // the session answers again, with a new worker for the new turn
      model.push({ toolCalls: [{ id: 'l1', name: 'list_dir', arguments: {} }] }, { content: 'listed' });
      const next = await chat(s, { agentId: agent.id, sessionId, message: 'list' });
      assert.equal(next.status, 200, next.text);
      assert.deepEqual([next.body.data.toolCalls[0].decision, next.body.data.toolCalls[0].ok], ['worker-local', true]);
    });
  });

  // The sandbox runs as an unprivileged user (runtime/confine.ts): /proc/sys files belong to the host's root
  // and are not writable (the command opens core_pattern for appending, writing nothing).
  test("the main agent's bash cannot open /proc/sys/kernel/core_pattern for writing", async () => {
    await withBaseAgent('shell', async ({ s, agent, work }) => {
      const { call: b } = await bashTurn(s, agent, work, 'if : >> /proc/sys/kernel/core_pattern; then echo CORE-OPENED; else echo CORE-REFUSED; fi');
      assert.match(b.output, /CORE-REFUSED/);
      assert.doesNotMatch(b.output, /CORE-OPENED/);
    });
  });
}

runOnEveryBackend(defineTests);
