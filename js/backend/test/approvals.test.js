'use strict';
/**
 * Approvals (docs/runtime.md "Approvals"): a rule's `ask` stops the main agent's turn with the call put
 * to the user; an answer — allow once, allow for this session, deny — over REST or the WebSocket, on this
 * instance or after a restart, resumes the same turn (the model reads the call's result); answered once
 * only; a sub-agent's ask reaches its parent turn's user and waits for the answer, or is denied
 * `approval_required` when nobody answers in time. Real workers, real bwrap, files checked on disk.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, startServer, call } = require('./support/server');
const { runOnEveryBackend, storageBackends, describeWithBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, openWs, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();
const RULES = { ask: ['bash(echo asked:*)', 'bash(git push:*)'] };

/** The tool result the model read for call `id` in recorded request i. */
function resultOf(id, i = -1) {
  return model.requests.at(i).body.messages.find(m => m.role === 'tool' && m.tool_call_id === id)?.content;
}

async function start(s, name, calls, extra = {}) {
  const agent = await addAgent(s, { name, toolsets: ['base'], rules: RULES, ...extra });
  const work = tmpDir('netaclaw-approval-');
  model.push({ toolCalls: calls });
  const r = await chat(s, { agentId: agent.id, message: 'go', sessionCwd: work, shellPermitted: true, writePermitted: true });
  assert.equal(r.status, 200, r.text);
  return { agent, work, a: r.body.data };
}

function answer(s, id, kind) {
  return call(s, 'POST', '/api/netaclaw/approval/answer', { id, answer: kind });
}

function defineTests(backend) {
  test('git push asks: the turn stops with the approval; allow once runs the call and the same turn goes on', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const { a } = await start(s, 'asker', [
        { id: 'p1', name: 'bash', arguments: { command: 'git push origin main' } },
        { id: 'e1', name: 'bash', arguments: { command: 'echo other-ran' } },
      ]);
      assert.equal(a.stopReason, 'approval', JSON.stringify(a));
      assert.equal(a.approval.callId, 'p1');
      assert.equal(a.approval.status, 'pending');
      assert.equal(a.approval.subject, 'git push origin main');
      assert.deepEqual([a.approval.rule.effect, a.approval.rule.level, a.approval.rule.pattern], ['ask', 'agent', 'bash(git push:*)']);
      assert.deepEqual(a.approval.arguments, { command: 'git push origin main' });
      const other = a.toolCalls.find(c => c.id === 'e1');
      assert.equal(other.ok, true, JSON.stringify(other));
      assert.match(other.output, /other-ran/);
      assert.equal(model.requests.length, 1, 'the model is not asked again before the answer');
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${a.sessionId}`);
      assert.deepEqual(
        info.body.data.pendingApprovals.map(p => p.id),
        [a.approval.id]
      );
      // a new message while the approval waits is refused
      const busy = await chat(s, { agentId: info.body.data.agentId, sessionId: a.sessionId, message: 'hello?' });
      assert.equal(busy.status, 409, busy.text);
      assert.equal(busy.body.error.code, 'approval_pending');
      // bad answers
      assert.equal((await answer(s, a.approval.id, 'always')).status, 400);
      assert.equal((await answer(s, 999999, 'once')).status, 404);

      // an ask rule on echo asked:* — a harmless command whose output shows it ran
      model.push({ toolCalls: [{ id: 'x1', name: 'bash', arguments: { command: 'echo asked once' } }] }, { content: 'all done' });
      // (git push has no remote: allow once runs it, and it fails as git says; the model reads that)
      const r = await answer(s, a.approval.id, 'once');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.answered.status, 'allowed');
      assert.equal(r.body.data.answered.answer, 'once');
      assert.equal(r.body.data.answered.answeredBy, 'token');
      assert.equal(r.body.data.stopReason, 'approval', 'the next asked call stops the turn again');
      const pushed = r.body.data.toolCalls.find(c => c.id === 'p1');
      assert.equal(pushed.decision, 'worker-local', JSON.stringify(pushed));
      assert.match(resultOf('p1'), /not a git repository|fatal/i);
      const again = await answer(s, a.approval.id, 'once');
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.error.code, 'already_answered');

      const last = await answer(s, r.body.data.approval.id, 'once');
      assert.equal(last.status, 200, last.text);
      assert.equal(last.body.data.reply, 'all done');
      assert.match(resultOf('x1'), /^asked once\n/);
      // the same turn: the model's history holds the first call and both results, one user message
      const msgs = model.requests.at(-1).body.messages;
      assert.equal(msgs.filter(m => m.role === 'user').length, 1);
      // every decision is stored with its rule
      const after = await call(s, 'GET', `/admin/netaclaw/session/info?id=${a.sessionId}`);
      assert.deepEqual(after.body.data.pendingApprovals, []);
      const ran = after.body.data.calls.filter(c => c.name === 'bash' && c.rule?.pattern === 'bash(echo asked:*)');
      assert.ok(ran.length >= 1 && ran.every(c => c.rule.level === 'agent'), JSON.stringify(after.body.data.calls));
    });
  });

  test('allow for this session stores the approval: the same command later runs without asking', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const { agent, a } = await start(s, 'session-asker', [{ id: 's1', name: 'bash', arguments: { command: 'echo asked twice' } }]);
      assert.equal(a.stopReason, 'approval');
      model.push({ content: 'first' });
      const r = await answer(s, a.approval.id, 'session');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.reply, 'first');
      assert.match(resultOf('s1'), /^asked twice\n/);
      const session = await call(s, 'GET', `/admin/netaclaw/session/info?id=${a.sessionId}`);
      assert.deepEqual(session.body.data.approvals, ['bash(echo asked twice)']);
      model.push(
        {
          toolCalls: [
            { id: 's2', name: 'bash', arguments: { command: 'echo asked twice' } },
            { id: 's3', name: 'bash', arguments: { command: 'echo asked other' } },
          ],
        },
        { content: 'second' }
      );
      const later = await chat(s, { agentId: agent.id, sessionId: a.sessionId, message: 'again' });
      assert.equal(later.status, 200, later.text);
      const s2 = later.body.data.toolCalls.find(c => c.id === 's2');
      assert.equal(s2.ok, true, JSON.stringify(s2));
      assert.match(s2.output, /^asked twice\n/);
      // another command of the rule still asks
      assert.equal(later.body.data.stopReason, 'approval');
      assert.equal(later.body.data.approval.callId, 's3');
    });
  });

  test('deny: nothing runs (checked on disk), the model reads a denial naming the rule', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const { work, a } = await start(s, 'denier', [{ id: 'd1', name: 'bash', arguments: { command: 'echo asked no > written.txt' } }]);
      assert.equal(a.stopReason, 'approval');
      model.push({ content: 'understood' });
      const r = await answer(s, a.approval.id, 'deny');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.answered.status, 'denied');
      assert.equal(r.body.data.reply, 'understood');
      const d1 = r.body.data.toolCalls.find(c => c.id === 'd1');
      assert.deepEqual([d1.decision, d1.reason, d1.ok], ['denied', 'denied_by_rule', false]);
      assert.match(resultOf('d1'), /denied \(denied_by_rule\).*user denied.*bash\(echo asked:\*\)/s);
      assert.equal(fs.existsSync(path.join(work, 'written.txt')), false, 'nothing was written');
    });
  });

  test('an approval answered over the WebSocket resumes the turn and streams it', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const { a } = await start(s, 'ws-asker', [{ id: 'w1', name: 'bash', arguments: { command: 'echo asked ws' } }]);
      model.push({ content: 'over the socket' });
      const c = openWs(s);
      await c.opened;
      const end = c.next(e => e.type === 'done' || e.type === 'error');
      c.send({ type: 'approval', id: a.approval.id, answer: 'once' });
      const done = await end;
      await c.close();
      assert.equal(done.type, 'done', JSON.stringify(c.events));
      assert.equal(done.reply, 'over the socket');
      assert.equal(done.answered.answer, 'once');
      const result = c.events.find(e => e.type === 'tool-result' && e.id === 'w1');
      assert.match(result.output, /^asked ws\n/);
      // answered already: an error event, no turn
      const c2 = openWs(s);
      await c2.opened;
      const refused = c2.next(e => e.type === 'error');
      c2.send({ type: 'approval', id: a.approval.id, answer: 'deny' });
      assert.equal((await refused).code, 'already_answered');
      await c2.close();
    });
  });

  test('a pending approval survives a restart and is answered there', async () => {
    model.reset();
    const db = await backend.fresh();
    const env = { ...db.env, ...modelEnv(model) };
    let a;
    await withServer(env, async s => {
      ({ a } = await start(s, 'restarter', [{ id: 'r1', name: 'bash', arguments: { command: 'echo asked restart' } }]));
    });
    await withServer(env, async s => {
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${a.sessionId}`);
      assert.deepEqual(
        info.body.data.pendingApprovals.map(p => p.callId),
        ['r1']
      );
      model.push({ content: 'after the restart' });
      const r = await answer(s, a.approval.id, 'once');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.reply, 'after the restart');
      assert.match(resultOf('r1'), /^asked restart\n/);
    });
  });

  test("a sub-agent's approval whose backend was killed while it waited expires: not offered after the restart, answering it is 409", async () => {
    model.reset();
    const db = await backend.fresh();
    const env = { ...db.env, ...modelEnv(model), NETACLAW_APPROVAL_WAIT_SECONDS: '2' };
    const work = tmpDir('netaclaw-approval-');
    let ev;
    const s = await startServer(env);
    try {
      const agent = await addAgent(s, { name: 'killed-delegator', crewRole: 'master', toolsets: ['base', 'delegation'], rules: RULES });
      model.push(
        { toolCalls: [{ id: 'dk', name: 'delegate_task', arguments: { task: 'run it' } }] },
        { toolCalls: [{ id: 'sk1', name: 'bash', arguments: { command: 'echo asked killed > killed.txt' } }] }
      );
      const c = openWs(s);
      await c.opened;
      const asked = c.next(e => e.type === 'approval');
      c.send({ type: 'chat', agentId: agent.id, message: 'delegate', sessionCwd: work, shellPermitted: true, writePermitted: true });
      ev = await asked;
      // the process that waits for the answer is gone at once: nobody settles the approval
      const exited = new Promise(r => s.child.on('exit', r));
      s.child.kill('SIGKILL');
      await exited;
      await c.close().catch(() => undefined);
    } finally {
      await s.stop();
    }
    const [row] = await db.sql('SELECT status, waitUntil FROM netaclaw_approval WHERE id = ?', [ev.approval.id]);
    assert.equal(row.status, 'pending', 'left pending by the killed backend');
    assert.ok(Number(row.waitUntil) > 0, JSON.stringify(row));
    await withServer(env, async s2 => {
      // past its waiter's deadline (2 s, and 5 s more) it is no longer offered, and it is expired
      let pending;
      const deadline = Date.now() + 60000;
      do {
        const info = await call(s2, 'GET', `/admin/netaclaw/session/info?id=${ev.sessionId}`);
        assert.equal(info.status, 200, info.text);
        pending = info.body.data.pendingApprovals.map(p => p.id);
        if (pending.length === 0) break;
        assert.deepEqual(pending, [ev.approval.id]);
        await new Promise(r => setTimeout(r, 250));
      } while (Date.now() < deadline);
      assert.deepEqual(pending, []);
      const late = await answer(s2, ev.approval.id, 'once');
      assert.equal(late.status, 409, late.text);
      assert.equal(late.body.error.code, 'already_answered');
      assert.match(late.body.error.message, /\(timeout\)/);
    });
    const [after] = await db.sql('SELECT status, answer FROM netaclaw_approval WHERE id = ?', [ev.approval.id]);
    assert.deepEqual([after.status, after.answer], ['expired', 'timeout']);
    assert.equal(fs.existsSync(path.join(work, 'killed.txt')), false, 'nothing ran');
  });

  test("a sub-agent's ask reaches the parent turn's user; the answer lets it go on; nobody answering denies it", async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model), NETACLAW_APPROVAL_WAIT_SECONDS: '3' }, async s => {
      const agent = await addAgent(s, { name: 'delegator', crewRole: 'master', toolsets: ['base', 'delegation'], rules: RULES });
      const work = tmpDir('netaclaw-approval-');
      const sub = body => body.messages.some(m => m.role === 'user' && m.content === 'run it');
      model.push(
        { toolCalls: [{ id: 'dt', name: 'delegate_task', arguments: { task: 'run it' } }] },
        { when: sub, toolCalls: [{ id: 'sb1', name: 'bash', arguments: { command: 'echo asked sub' } }] },
        { when: sub, toolCalls: [{ id: 'sb2', name: 'bash', arguments: { command: 'echo asked late' } }] },
        { when: sub, content: 'sub done' },
        { content: 'parent done' }
      );
      const c = openWs(s);
      await c.opened;
      const asked = c.next(e => e.type === 'approval');
      const end = c.next(e => e.type === 'done' || e.type === 'error');
      c.send({ type: 'chat', agentId: agent.id, message: 'delegate', sessionCwd: work, shellPermitted: true, writePermitted: true });
      const ev = await asked;
      assert.equal(typeof ev.batchId, 'number');
      assert.equal(ev.approval.batchId, ev.batchId);
      assert.equal(ev.approval.subject, 'echo asked sub');
      // answered over REST while the turn runs; the second ask is left to time out
      const r = await answer(s, ev.approval.id, 'once');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.answered.status, 'allowed');
      const done = await end;
      await c.close();
      assert.equal(done.type, 'done', JSON.stringify(c.events.filter(e => e.type !== 'delta')));
      assert.equal(done.reply, 'parent done');
      const results = c.events.filter(e => e.type === 'tool-result' && e.batchId === ev.batchId);
      const sb1 = results.find(e => e.id === 'sb1');
      assert.match(sb1.output, /^asked sub\n/, JSON.stringify(sb1));
      const sb2 = results.find(e => e.id === 'sb2');
      assert.deepEqual([sb2.decision, sb2.reason, sb2.ok], ['denied', 'approval_required', false], JSON.stringify(sb2));
      const expired = c.events.filter(e => e.type === 'approval-answered').map(e => e.approval.status);
      assert.deepEqual(expired, ['allowed', 'expired']);
    });
  });

  test("a cancel while a sub-agent's call waits for approval ends the wait: the approval expires, nothing runs", async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'cancelled-delegator', crewRole: 'master', toolsets: ['base', 'delegation'], rules: RULES });
      const work = tmpDir('netaclaw-approval-');
      model.push(
        { toolCalls: [{ id: 'dc', name: 'delegate_task', arguments: { task: 'write it' } }] },
        { toolCalls: [{ id: 'sc1', name: 'bash', arguments: { command: 'echo asked cancel > cancel.txt' } }] }
      );
      const c = openWs(s);
      await c.opened;
      const asked = c.next(e => e.type === 'approval');
      const end = c.next(e => e.type === 'done' || e.type === 'error');
      c.send({ type: 'chat', agentId: agent.id, message: 'delegate', sessionCwd: work, shellPermitted: true, writePermitted: true });
      const ev = await asked;
      c.send({ type: 'cancel' });
      const last = await end;
      await c.close();
      assert.deepEqual([last.type, last.code], ['error', 'cancelled'], JSON.stringify(last));
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${ev.sessionId}`);
      assert.deepEqual(info.body.data.pendingApprovals, []);
      const late = await answer(s, ev.approval.id, 'once');
      assert.equal(late.status, 409, late.text);
      assert.equal(fs.existsSync(path.join(work, 'cancel.txt')), false, 'nothing ran');
    });
  });

  test('an admin-run batch (nobody to ask) denies an asked call approval_required: nothing runs', async () => {
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'batch-asker', toolsets: ['base'], rules: RULES });
      const work = tmpDir('netaclaw-approval-');
      const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
        agentId: agent.id,
        sessionCwd: work,
        shellPermitted: true,
        writePermitted: true,
        calls: [
          { name: 'bash', arguments: { command: 'echo asked batch > asked.txt' } },
          { name: 'bash', arguments: { command: 'echo plain > plain.txt' } },
        ],
      });
      assert.equal(r.status, 200, r.text);
      const [asked, plain] = r.body.data.calls;
      assert.deepEqual([asked.decision, asked.reason, asked.ok], ['denied', 'approval_required', false], JSON.stringify(asked));
      assert.equal(asked.rule.pattern, 'bash(echo asked:*)');
      assert.equal(plain.ok, true, JSON.stringify(plain));
      assert.equal(fs.existsSync(path.join(work, 'asked.txt')), false, 'the asked command did not run');
      assert.equal(fs.readFileSync(path.join(work, 'plain.txt'), 'utf8'), 'plain\n');
    });
  });
}

runOnEveryBackend(defineTests);

// Two instances on one MariaDB: the approval asked on one is answered on the other, which resumes the
// turn; both answering at once store one answer (the other gets 409).
for (const [label, makeBackend] of storageBackends({ only: 'mariadb' })) {
  describeWithBackend(`approvals on two instances · ${label}`, makeBackend, backend => {
    test('asked on one instance, answered on the other; a second answer anywhere is 409', async () => {
      model.reset();
      const db = await backend.fresh();
      const env = { ...db.env, ...modelEnv(model) };
      const started = await Promise.allSettled([startServer(env), startServer(env)]);
      const [one, two] = started.map(r => r.value);
      try {
        for (const r of started) assert.equal(r.status, 'fulfilled', r.reason?.message);
        const { a } = await start(one, 'two-instances', [{ id: 'i1', name: 'bash', arguments: { command: 'echo asked there' } }]);
        assert.equal(a.stopReason, 'approval');
        const seen = await call(two, 'GET', `/admin/netaclaw/session/info?id=${a.sessionId}`);
        assert.deepEqual(
          seen.body.data.pendingApprovals.map(p => p.id),
          [a.approval.id]
        );
        model.push({ content: 'answered elsewhere' });
        const [x, y] = await Promise.all([answer(two, a.approval.id, 'once'), answer(one, a.approval.id, 'deny')]);
        const statuses = [x.status, y.status].sort();
        assert.deepEqual(statuses, [200, 409], `${x.text}\n${y.text}`);
        const won = x.status === 200 ? x : y;
        const lost = x.status === 200 ? y : x;
        assert.ok(['already_answered', 'session_busy'].includes(lost.body.error.code), lost.text);
        assert.equal(won.body.data.reply, 'answered elsewhere');
        if (won === x) assert.match(resultOf('i1'), /^asked there\n/);
        else assert.match(resultOf('i1'), /user denied/);
        const rows = await db.sql('SELECT status, answer FROM netaclaw_approval');
        assert.equal(rows.length, 1);
        assert.equal(rows[0].answer, won === x ? 'once' : 'deny');
      } finally {
        await Promise.all([one, two].filter(Boolean).map(s => s.stop()));
      }
    });
  });
}
