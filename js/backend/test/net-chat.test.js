'use strict';
/**
 * The sandbox network in a chat (docs/runtime.md "Network"): a connection an `ask` rule covers waits for
 * the user's approval — put to the chat as an approval card, answered over REST as a sub-agent's call is —
 * and proceeds when approved, or is refused (403 with the rule); every decided connection is stored
 * (`netaclaw_net_decision`, listed by GET /admin/netaclaw/session/net); the model reads a note naming each
 * refused connection in the result of the call during which it was refused. Real workers, real bwrap, real
 * curl inside; the test's server listens on 127.0.0.1 and its names come from a test hosts file
 * (NETACLAW_NET_HOSTS_FILE): nothing here reaches an outside address.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { withServer, startServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, openWs, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();
let srv;
let hostsDir;
let hosts;
/** A path no other run of these tests asked for (the server's log is shared by both backends). */
let n = 0;
const unique = name => `/${name}-${++n}`;

before(async () => {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.headers.host} ${req.url}`);
    res.end(`hello from ${req.headers.host}\n`);
  });
  await new Promise(r => server.listen(0, '127.0.0.1', r));
  hostsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-net-chat-'));
  fs.chmodSync(hostsDir, 0o755);
  hosts = path.join(hostsDir, 'hosts');
  fs.writeFileSync(hosts, '127.0.0.1 allowed.test ask.test denied.test\n');
  fs.chmodSync(hosts, 0o644);
  srv = {
    seen,
    port: server.address().port,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
});
after(() => {
  srv.close();
  fs.rmSync(hostsDir, { recursive: true, force: true });
});

const RULES = () => ({ allow: ['net(allowed.test)'], ask: ['net(ask.test)'], deny: ['net(denied.test)'] });

function answer(s, id, kind) {
  return call(s, 'POST', '/api/netaclaw/approval/answer', { id, answer: kind });
}

function env(db, extra = {}) {
  return { ...db.env, ...modelEnv(model), NETACLAW_NET_HOSTS_FILE: hosts, NETACLAW_APPROVAL_WAIT_SECONDS: '90', ...extra };
}

/** The tool result the model read for call `id` (the last request that holds it). */
function resultOf(id) {
  for (const r of [...model.requests].reverse()) {
    const m = r.body.messages.find(x => x.role === 'tool' && x.tool_call_id === id);
    if (m) return m.content;
  }
  return undefined;
}

/** Sends a chat message over the WebSocket; resolves with the first approval event and the turn's end. */
async function askingTurn(s, agent, work) {
  const c = openWs(s);
  await c.opened;
  const asked = c.next(e => e.type === 'approval');
  const end = c.next(e => e.type === 'done' || e.type === 'error');
  c.send({ type: 'chat', agentId: agent.id, message: 'fetch it', sessionCwd: work, shellPermitted: true, writePermitted: true });
  return { c, ev: await asked, end };
}

async function decisions(s, sessionId) {
  const r = await call(s, 'GET', `/admin/netaclaw/session/net?id=${sessionId}`);
  assert.equal(r.status, 200, r.text);
  return r.body.data.list;
}

function defineTests(backend) {
  test("an asked connection from curl in a chat turn's bash waits for the approval; allowed once, the request proceeds and is recorded", async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer(env(db), async s => {
      const agent = await addAgent(s, { name: 'net-asker', toolsets: ['base'], rules: RULES() });
      const work = tmpDir('netaclaw-net-chat-');
      const where = unique('asked-once');
      const url = `http://ask.test:${srv.port}${where}`;
      model.push({ toolCalls: [{ id: 'n1', name: 'bash', arguments: { command: `curl -sS --max-time 120 ${url}` } }] }, { content: 'fetched' });
      const { c, ev, end } = await askingTurn(s, agent, work);
      try {
        assert.equal(ev.batchId, null);
        assert.equal(ev.approval.batchId, null);
        assert.equal(ev.approval.status, 'pending');
        assert.equal(ev.approval.subject, `ask.test:${srv.port}`);
        assert.deepEqual(
          [ev.approval.rule.kind, ev.approval.rule.effect, ev.approval.rule.pattern, ev.approval.rule.level],
          ['net', 'ask', 'net(ask.test)', 'agent']
        );
        assert.equal(ev.approval.toolName, 'bash');
        // the connection waits: the session shows the pending approval, and once that round trip is
        // answered nothing has reached the server yet
        const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${ev.sessionId}`);
        assert.deepEqual(
          info.body.data.pendingApprovals.map(p => p.id),
          [ev.approval.id]
        );
        assert.ok(!srv.seen.some(x => x.endsWith(where)), srv.seen.join('\n'));
        const r = await answer(s, ev.approval.id, 'once');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.data.answered.status, 'allowed');
        const done = await end;
        assert.equal(done.type, 'done', JSON.stringify(c.events.filter(e => e.type !== 'delta')));
        assert.equal(done.reply, 'fetched');
        assert.equal(done.stopReason, 'stop');
        assert.match(resultOf('n1'), new RegExp(`hello from ask\\.test:${srv.port}`));
        assert.ok(srv.seen.includes(`GET ask.test:${srv.port} ${where}`), srv.seen.join('\n'));
        const answered = c.events.filter(e => e.type === 'approval-answered').map(e => [e.approval.id, e.approval.status, e.approval.answer]);
        assert.deepEqual(answered, [[ev.approval.id, 'allowed', 'once']]);
        const list = await decisions(s, done.sessionId);
        assert.deepEqual(
          list.map(d => [d.host, d.port, d.method, d.decision, d.outcome, d.answer, d.approvalId, d.rule, d.level, d.batchId, d.toolName]),
          [['ask.test', srv.port, 'GET', 'ask', 'connected', 'once', ev.approval.id, 'net(ask.test)', 'agent', null, 'bash']]
        );
      } finally {
        await c.close();
      }
    });
  });

  test('the approval answered over the chat WebSocket (another connection): answered at once, the connection proceeds', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer(env(db), async s => {
      const agent = await addAgent(s, { name: 'net-ws', toolsets: ['base'], rules: RULES() });
      const work = tmpDir('netaclaw-net-chat-');
      const where = unique('over-ws');
      model.push(
        { toolCalls: [{ id: 'nw1', name: 'bash', arguments: { command: `curl -sS --max-time 120 http://ask.test:${srv.port}${where}` } }] },
        { content: 'over ws' }
      );
      const { c, ev, end } = await askingTurn(s, agent, work);
      const other = openWs(s);
      try {
        await other.opened;
        const back = other.next(e => e.type === 'approval-answered' || e.type === 'error' || e.type === 'done');
        other.send({ type: 'approval', id: ev.approval.id, answer: 'once' });
        const got = await back;
        assert.equal(got.type, 'approval-answered', JSON.stringify(got));
        assert.deepEqual([got.approval.id, got.approval.status], [ev.approval.id, 'allowed']);
        const done = await end;
        assert.equal(done.type, 'done', JSON.stringify(c.events.filter(e => e.type !== 'delta')));
        assert.equal(done.reply, 'over ws');
        assert.match(resultOf('nw1'), new RegExp(`hello from ask\\.test:${srv.port}`));
        assert.ok(srv.seen.includes(`GET ask.test:${srv.port} ${where}`));
      } finally {
        await other.close();
        await c.close();
      }
    });
  });

  test('a refused ask: the client gets a 403 naming the rule, the model a note, the page the refusal; the decision is recorded', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer(env(db), async s => {
      const agent = await addAgent(s, { name: 'net-refused', toolsets: ['base'], rules: RULES() });
      const work = tmpDir('netaclaw-net-chat-');
      model.push(
        {
          toolCalls: [
            {
              id: 'n2',
              name: 'bash',
              // two clients at once, then one more: one question is put to the user, and once refused the
              // host is refused for the rest of the turn without asking again
              arguments: {
                command: [
                  `curl -sS -w 'status=%{http_code}\\n' http://ask.test:${srv.port}/refused-1 &`,
                  `curl -sS -w 'status=%{http_code}\\n' http://ask.test:${srv.port}/refused-2 & wait;`,
                  `curl -sS -w 'status=%{http_code}\\n' http://ask.test:${srv.port}/refused-3`,
                ].join(' '),
              },
            },
          ],
        },
        { content: 'refused' }
      );
      const { c, ev, end } = await askingTurn(s, agent, work);
      try {
        const r = await answer(s, ev.approval.id, 'deny');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.data.answered.status, 'denied');
        const done = await end;
        assert.equal(done.type, 'done', JSON.stringify(c.events.filter(e => e.type !== 'delta')));
        const text = resultOf('n2');
        assert.equal(text.match(/status=403/g)?.length, 3, text);
        assert.equal(c.events.filter(e => e.type === 'approval').length, 1, 'one question for the three connections');
        assert.match(text, /net\(ask\.test\) \(agent rules\); the approval was refused/);
        assert.match(
          text,
          new RegExp(`network: connection to ask\\.test:${srv.port} refused: the user refused the approval asked by rule net\\(ask\\.test\\) \\(agent\\)`)
        );
        assert.ok(!srv.seen.some(x => x.includes('/refused')), 'the refused request never reached the server');
        const card = c.events.find(e => e.type === 'tool-result' && e.id === 'n2');
        assert.deepEqual(
          card.network.map(n => [n.host, n.port, n.rule, n.level, n.why]),
          [['ask.test', srv.port, 'net(ask.test)', 'agent', 'denied']]
        );
        const list = await decisions(s, done.sessionId);
        assert.deepEqual(
          list.map(d => [d.host, d.decision, d.outcome, d.answer, d.rule]),
          [
            ['ask.test', 'ask', 'refused', 'deny', 'net(ask.test)'],
            ['ask.test', 'ask', 'refused', 'deny', 'net(ask.test)'],
            ['ask.test', 'ask', 'refused', 'deny', 'net(ask.test)'],
          ]
        );
        // the question's answer, and the two that followed it (no question of their own)
        assert.deepEqual(list.map(d => d.approvalId).sort(), [ev.approval.id, null, null]);
      } finally {
        await c.close();
      }
    });
  });

  test('allow for this session: the same host is let through for the rest of the turn and in later turns, without asking again', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer(env(db), async s => {
      const agent = await addAgent(s, { name: 'net-session', toolsets: ['base'], rules: RULES() });
      const work = tmpDir('netaclaw-net-chat-');
      const first = unique('session-first');
      const second = unique('session-second');
      model.push(
        { toolCalls: [{ id: 'ns1', name: 'bash', arguments: { command: `curl -sS --max-time 120 http://ask.test:${srv.port}${first}` } }] },
        { toolCalls: [{ id: 'ns2', name: 'bash', arguments: { command: `curl -sS --max-time 120 http://ask.test:${srv.port}${second}` } }] },
        { content: 'both fetched' }
      );
      const { c, ev, end } = await askingTurn(s, agent, work);
      let sessionId;
      try {
        const r = await answer(s, ev.approval.id, 'session');
        assert.equal(r.status, 200, r.text);
        const done = await end;
        sessionId = done.sessionId;
        assert.equal(done.type, 'done', JSON.stringify(c.events.filter(e => e.type !== 'delta')));
        assert.match(resultOf('ns2'), new RegExp(`hello from ask\\.test:${srv.port}`));
        assert.equal(c.events.filter(e => e.type === 'approval').length, 1, 'asked once');
      } finally {
        await c.close();
      }
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.deepEqual(info.body.data.approvals, [`net(ask.test:${srv.port})`]);
      // a later turn reads the session's approval from its rules
      const third = unique('session-third');
      model.push(
        { toolCalls: [{ id: 'ns3', name: 'bash', arguments: { command: `curl -sS --max-time 20 http://ask.test:${srv.port}${third}` } }] },
        { content: 'again' }
      );
      const later = await chat(s, { agentId: agent.id, sessionId, message: 'again' });
      assert.equal(later.status, 200, later.text);
      assert.equal(later.body.data.stopReason, 'stop');
      assert.match(resultOf('ns3'), new RegExp(`hello from ask\\.test:${srv.port}`));
      const list = await decisions(s, sessionId);
      assert.deepEqual(
        list.map(d => [d.decision, d.outcome, d.answer, d.rule]),
        [
          ['ask', 'connected', 'session', 'net(ask.test)'],
          ['ask', 'connected', 'session', 'net(ask.test)'],
          ['allow', 'connected', null, `net(ask.test:${srv.port})`],
        ]
      );
    });
  });

  test('nobody answering: the wait ends, the approval expires, the client gets a 403 and the model a note', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer(env(db, { NETACLAW_APPROVAL_WAIT_SECONDS: '2' }), async s => {
      const agent = await addAgent(s, { name: 'net-unanswered', toolsets: ['base'], rules: RULES() });
      const work = tmpDir('netaclaw-net-chat-');
      model.push(
        { toolCalls: [{ id: 'nt1', name: 'bash', arguments: { command: `curl -sS -w 'status=%{http_code}\\n' http://ask.test:${srv.port}/unanswered` } }] },
        { content: 'nobody answered' }
      );
      const { c, ev, end } = await askingTurn(s, agent, work);
      try {
        const done = await end;
        assert.equal(done.type, 'done', JSON.stringify(c.events.filter(e => e.type !== 'delta')));
        const text = resultOf('nt1');
        assert.match(text, /status=403/);
        assert.match(text, /no approval came within 2 s, so it is refused/);
        assert.match(text, /network: connection to ask\.test:\d+ refused: no one answered the approval asked by rule net\(ask\.test\) \(agent\) in time/);
        const answered = c.events.find(e => e.type === 'approval-answered');
        assert.deepEqual([answered.approval.id, answered.approval.status, answered.approval.answer], [ev.approval.id, 'expired', 'timeout']);
        const list = await decisions(s, done.sessionId);
        assert.deepEqual(
          list.map(d => [d.outcome, d.answer, d.approvalId]),
          [['refused', 'timeout', null]]
        );
        // answered too late: it has its answer already
        assert.equal((await answer(s, ev.approval.id, 'once')).status, 409);
      } finally {
        await c.close();
      }
    });
  });

  test('a denied host and an IP literal are refused and recorded: a row each, a note each in the tool result', async () => {
    model.reset();
    const db = await backend.fresh();
    let sessionId;
    await withServer(env(db), async s => {
      const agent = await addAgent(s, { name: 'net-denied', toolsets: ['base'], rules: RULES() });
      const work = tmpDir('netaclaw-net-chat-');
      const command = [
        `curl -sS -w 'denied=%{http_code}\\n' http://denied.test:${srv.port}/d`,
        `curl -sS -w 'literal=%{http_code}\\n' http://127.0.0.1:${srv.port}/l`,
        `curl -sS http://allowed.test:${srv.port}/a`,
      ].join('; ');
      model.push({ toolCalls: [{ id: 'n3', name: 'bash', arguments: { command } }] }, { content: 'tried' });
      const r = await chat(s, { agentId: agent.id, message: 'fetch them', sessionCwd: work, shellPermitted: true, writePermitted: true });
      assert.equal(r.status, 200, r.text);
      sessionId = r.body.data.sessionId;
      const text = resultOf('n3');
      assert.match(text, /denied=403/);
      assert.match(text, /literal=403/);
      assert.match(text, new RegExp(`hello from allowed\\.test:${srv.port}`));
      assert.match(text, new RegExp(`network: connection to denied\\.test:${srv.port} refused by rule net\\(denied\\.test\\) \\(agent\\)`));
      assert.match(
        text,
        new RegExp(`network: connection to 127\\.0\\.0\\.1:${srv.port} refused: an IP address is reached only through a net\\(\\) rule that names it`)
      );
      const shown = r.body.data.toolCalls.find(c => c.id === 'n3');
      assert.deepEqual(
        shown.network.map(n => [n.host, n.rule, n.why]),
        [
          ['denied.test', 'net(denied.test)', 'rule'],
          ['127.0.0.1', null, 'address'],
        ]
      );
      // kept with the call: the reopened session's call names them as the live answer did
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.equal(info.status, 200, info.text);
      const stored = info.body.data.calls.find(c => c.name === 'bash');
      assert.deepEqual(stored.network, shown.network);
      const list = await decisions(s, sessionId);
      assert.deepEqual(
        list.map(d => [d.host, d.decision, d.outcome, d.rule]),
        [
          ['denied.test', 'deny', 'refused', 'net(denied.test)'],
          ['127.0.0.1', 'deny', 'refused', null],
          ['allowed.test', 'allow', 'connected', 'net(allowed.test)'],
        ]
      );
      assert.equal((await call(s, 'GET', '/admin/netaclaw/session/net?id=999999')).status, 404);
      assert.equal((await call(s, 'GET', '/admin/netaclaw/session/net?id=x')).status, 400);
    });
    // the rows themselves, read from the database once the server has stopped
    const rows = await db.sql('SELECT sessionId, batchId, host, port, decision, outcome, rule, level, detail FROM netaclaw_net_decision ORDER BY id');
    assert.deepEqual(
      rows.map(x => [Number(x.sessionId), x.batchId, x.host, Number(x.port), x.decision, x.outcome, x.rule, x.level]),
      [
        [sessionId, null, 'denied.test', srv.port, 'deny', 'refused', 'net(denied.test)', 'agent'],
        [sessionId, null, '127.0.0.1', srv.port, 'deny', 'refused', null, null],
        [sessionId, null, 'allowed.test', srv.port, 'allow', 'connected', 'net(allowed.test)', 'agent'],
      ]
    );
    assert.match(rows[1].detail, new RegExp(`127\\.0\\.0\\.1:${srv.port} is refused: no net\\(\\) rule allows it`));
  });

  test('a loop of connections: the first NETACLAW_NET_RECORDS_MAX decisions of the run are stored, the others counted in the log', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer(env(db, { NETACLAW_NET_RECORDS_MAX: '3' }), async s => {
      const agent = await addAgent(s, { name: 'net-flood', toolsets: ['base'], rules: RULES() });
      const work = tmpDir('netaclaw-net-chat-');
      const command = `for i in 1 2 3 4 5 6 7; do curl -sS -o /dev/null -w "$i=%{http_code} " http://denied.test:${srv.port}/f$i; done; echo`;
      model.push({ toolCalls: [{ id: 'fl', name: 'bash', arguments: { command } }] }, { content: 'looped' });
      const r = await chat(s, { agentId: agent.id, message: 'loop', sessionCwd: work, shellPermitted: true, writePermitted: true });
      assert.equal(r.status, 200, r.text);
      const { sessionId } = r.body.data;
      // every connection was refused, and the model reads it once
      assert.match(resultOf('fl'), /1=403 2=403 3=403 4=403 5=403 6=403 7=403/);
      assert.equal(resultOf('fl').match(/^network: connection to denied\.test:/gm)?.length, 1, resultOf('fl'));
      const list = await decisions(s, sessionId);
      assert.deepEqual(
        list.map(d => [d.host, d.outcome]),
        [
          ['denied.test', 'refused'],
          ['denied.test', 'refused'],
          ['denied.test', 'refused'],
        ]
      );
      assert.match(s.log(), new RegExp(`session ${sessionId}: 1 network decision\\(s\\) past the first 3 of this run are not stored`));
      assert.match(
        s.log(),
        new RegExp(
          `session ${sessionId}: 3 network decision\\(s\\) past the first 3 of this run are not stored \\(the last: GET denied\\.test:${srv.port} refused\\)`
        )
      );
      assert.doesNotMatch(s.log(), /4 network decision\(s\) past/);
    });
  });

  test("a sub-agent's asked connection reaches the parent turn's user; a console batch's is refused: no one can approve it there", async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer(env(db), async s => {
      const agent = await addAgent(s, { name: 'net-delegator', crewRole: 'master', toolsets: ['base', 'delegation'], rules: RULES() });
      const work = tmpDir('netaclaw-net-chat-');
      const sub = body => body.messages.some(m => m.role === 'user' && m.content === 'fetch it for me');
      model.push(
        { toolCalls: [{ id: 'dt', name: 'delegate_task', arguments: { task: 'fetch it for me' } }] },
        { when: sub, toolCalls: [{ id: 'sn1', name: 'bash', arguments: { command: `curl -sS --max-time 120 http://ask.test:${srv.port}/sub` } }] },
        { when: sub, content: 'sub fetched' },
        { content: 'parent done' }
      );
      const { c, ev, end } = await askingTurn(s, agent, work);
      try {
        assert.equal(typeof ev.batchId, 'number');
        assert.equal(ev.approval.batchId, ev.batchId);
        assert.equal(ev.approval.rule.kind, 'net');
        const r = await answer(s, ev.approval.id, 'once');
        assert.equal(r.status, 200, r.text);
        const done = await end;
        assert.equal(done.type, 'done', JSON.stringify(c.events.filter(e => e.type !== 'delta')));
        assert.equal(done.reply, 'parent done');
        const sn1 = c.events.find(e => e.type === 'tool-result' && e.id === 'sn1');
        assert.match(sn1.output, /hello from ask\.test/, JSON.stringify(sn1));
        const list = await decisions(s, done.sessionId);
        assert.deepEqual(
          list.map(d => [d.host, d.outcome, d.answer, d.batchId]),
          [['ask.test', 'connected', 'once', ev.batchId]]
        );
      } finally {
        await c.close();
      }
      // a batch started from the console: nobody to ask, refused with a sentence that says so
      const b = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
        agentId: agent.id,
        sessionCwd: work,
        shellPermitted: true,
        writePermitted: true,
        calls: [{ name: 'bash', arguments: { command: `curl -sS -w 'status=%{http_code}\\n' http://ask.test:${srv.port}/console` } }],
      });
      assert.equal(b.status, 200, b.text);
      const [only] = b.body.data.calls;
      assert.match(only.output, /status=403/);
      assert.match(only.output, /no one can approve it: this batch was started from the console, not from a chat, and has no user to ask, so it is refused/);
      assert.match(
        only.output,
        /network: connection to ask\.test:\d+ refused: rule net\(ask\.test\) \(agent\) asks for an approval and no one can give it here/
      );
      assert.deepEqual(
        only.network.map(n => [n.host, n.rule, n.level, n.why]),
        [['ask.test', 'net(ask.test)', 'agent', 'none']]
      );
      // and kept with the batch's stored call
      const stored = await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${b.body.data.id}`);
      assert.equal(stored.status, 200, stored.text);
      assert.deepEqual(stored.body.data.calls[0].network, only.network);
      assert.ok(!srv.seen.some(x => x.includes('/console')));
    });
  });
}

runOnEveryBackend(defineTests);

// The backend as a non-root user (uid 65534 when the test is root; itself otherwise): its sandboxes run as
// that user, their proxies in its process; the ask path and the records are the same.
describe('the sandbox network in a chat, the backend not root', () => {
  test('an asked connection waits for the approval and proceeds; a denied one is refused and recorded', async () => {
    model.reset();
    const isRoot = process.getuid() === 0;
    const user = isRoot ? { uid: 65534, gid: 65534 } : null;
    const own = dir => {
      fs.chmodSync(dir, 0o755);
      if (user) fs.chownSync(dir, user.uid, user.gid);
      return dir;
    };
    const data = own(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-net-chat-user-')));
    const work = own(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-net-chat-user-work-')));
    const s = await startServer(
      {
        DB_TYPE: 'sqlite',
        DB_PATH: path.join(data, 'netaclaw.sqlite'),
        DATA_DIR: data,
        HOME: data,
        ...modelEnv(model),
        NETACLAW_NET_HOSTS_FILE: hosts,
        NETACLAW_APPROVAL_WAIT_SECONDS: '90',
      },
      user ? { user } : {}
    );
    try {
      const pid = s.child.pid;
      const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
      assert.notEqual(uid, 0, 'the backend is not root');
      const agent = await addAgent(s, { name: 'net-user', toolsets: ['base'], rules: RULES() });
      const where = unique('as-user');
      model.push(
        {
          toolCalls: [
            {
              id: 'u1',
              name: 'bash',
              arguments: {
                command: `id -u; curl -sS --max-time 120 http://ask.test:${srv.port}${where}; curl -sS -w 'denied=%{http_code}\\n' http://denied.test:${srv.port}/`,
              },
            },
          ],
        },
        { content: 'done as a user' }
      );
      const { c, ev, end } = await askingTurn(s, agent, work);
      try {
        assert.equal(ev.approval.rule.pattern, 'net(ask.test)');
        assert.ok(!srv.seen.some(x => x.endsWith(where)));
        const r = await answer(s, ev.approval.id, 'once');
        assert.equal(r.status, 200, r.text);
        const done = await end;
        assert.equal(done.type, 'done', JSON.stringify(c.events.filter(e => e.type !== 'delta')));
        const text = resultOf('u1');
        assert.match(text, new RegExp(`^${uid}$`, 'm'), "the sandbox runs as the backend's user");
        assert.match(text, new RegExp(`hello from ask\\.test:${srv.port}`));
        assert.match(text, /denied=403/);
        assert.match(text, /network: connection to denied\.test:\d+ refused by rule net\(denied\.test\) \(agent\)/);
        const list = await decisions(s, done.sessionId);
        assert.deepEqual(
          list.map(d => [d.host, d.outcome, d.answer]),
          [
            ['ask.test', 'connected', 'once'],
            ['denied.test', 'refused', null],
          ]
        );
      } finally {
        await c.close();
      }
    } finally {
      await s.stop();
      fs.rmSync(data, { recursive: true, force: true });
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
