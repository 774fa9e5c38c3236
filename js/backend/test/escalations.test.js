'use strict';
/**
 * The `escalate` tool records an escalation (netaclaw_escalation) an operator sees and resolves: it is
 * listed (POST /admin/netaclaw/escalation/page) and part of the session's info, resolved once
 * (POST /admin/netaclaw/escalation/resolve: 200, then 409 `escalation_resolved`), and kept across a restart
 * of the backend. Bad input is a 400 naming the field, an unknown id a 404.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, wsChat, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();
const REASON = 'The deploy key is missing: a human has to add it.';

function defineTests(backend) {
  test('an escalation of the main agent is recorded, listed, resolved once and survives a restart', async () => {
    model.reset();
    const db = await backend.fresh();
    const env = { ...db.env, ...modelEnv(model) };
    let sessionId;
    let id;
    await withServer(env, async s => {
      const agent = await addAgent(s, { name: 'deployer', toolsets: ['base', 'planning'] });
      model.push({ toolCalls: [{ id: 'e1', name: 'escalate', arguments: { reason: REASON } }] }, { content: 'handed over' });
      const r = await chat(s, { agentId: agent.id, message: 'deploy it', sessionCwd: tmpDir() });
      assert.equal(r.status, 200, r.text);
      const tc = r.body.data.toolCalls[0];
      assert.equal(tc.name, 'escalate');
      assert.equal(tc.ok, true, tc.error);
      const m = /^Escalation #(\d+) recorded: an operator will see it and answer\.$/.exec(tc.output);
      assert.ok(m, tc.output);
      id = Number(m[1]);
      sessionId = r.body.data.sessionId;
      // the model was told the same text
      const told = model.requests.at(-1).body.messages.find(x => x.role === 'tool');
      assert.equal(told.content, tc.output);

      const page = await call(s, 'POST', '/admin/netaclaw/escalation/page', { sessionId, status: 'open', page: 1, size: 10 });
      assert.equal(page.status, 200, page.text);
      assert.equal(page.body.data.pagination.total, 1);
      const row = page.body.data.list[0];
      assert.equal(row.id, id);
      assert.equal(row.sessionId, String(sessionId));
      assert.equal(row.batchId, null);
      assert.equal(row.agentId, agent.id);
      assert.equal(row.reason, REASON);
      assert.equal(row.status, 'open');
      assert.equal(row.resolution, null);
      assert.equal(row.resolveTime, null);
      // another session's filter, and the other status, list nothing
      const other = await call(s, 'POST', '/admin/netaclaw/escalation/page', { sessionId: 'no-such-session', page: 1, size: 10 });
      assert.deepEqual([other.status, other.body.data.pagination.total], [200, 0]);
      const resolvedOnes = await call(s, 'POST', '/admin/netaclaw/escalation/page', { status: 'resolved' });
      assert.deepEqual([resolvedOnes.status, resolvedOnes.body.data.list], [200, []]);

      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.deepEqual(
        info.body.data.escalations.map(e => [e.id, e.status, e.reason]),
        [[id, 'open', REASON]]
      );

      const done = await call(s, 'POST', '/admin/netaclaw/escalation/resolve', { id, resolution: 'Added the key.' });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.data.status, 'resolved');
      assert.equal(done.body.data.resolution, 'Added the key.');
      assert.ok(done.body.data.resolveTime);

      const again = await call(s, 'POST', '/admin/netaclaw/escalation/resolve', { id, resolution: 'Something else.' });
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.error.code, 'escalation_resolved');
    });
    // a new backend process on the same database
    await withServer(env, async s => {
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.equal(info.status, 200, info.text);
      assert.deepEqual(
        info.body.data.escalations.map(e => [e.id, e.status, e.resolution]),
        [[id, 'resolved', 'Added the key.']],
        'the first resolution survived the restart'
      );
      const page = await call(s, 'POST', '/admin/netaclaw/escalation/page', { status: 'resolved' });
      assert.deepEqual(
        page.body.data.list.map(e => e.id),
        [id]
      );
      const again = await call(s, 'POST', '/admin/netaclaw/escalation/resolve', { id, resolution: 'Once more.' });
      assert.equal(again.status, 409, again.text);
    });
    const rows = await db.sql('SELECT id, sessionId, status, resolution FROM netaclaw_escalation');
    assert.deepEqual(
      rows.map(r => [r.id, r.sessionId, r.status, r.resolution]),
      [[id, String(sessionId), 'resolved', 'Added the key.']]
    );
  });

  test("the operator's resolution reaches the agent that escalated: its session's next model request reads it, once", async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'waiter', toolsets: ['base', 'planning'] });
      model.push({ toolCalls: [{ id: 'e2', name: 'escalate', arguments: { reason: REASON } }] }, { content: 'handed over' });
      const r = await chat(s, { agentId: agent.id, message: 'deploy it', sessionCwd: tmpDir() });
      assert.equal(r.status, 200, r.text);
      const id = Number(/^Escalation #(\d+) recorded/.exec(r.body.data.toolCalls[0].output)[1]);
      const sessionId = r.body.data.sessionId;
      const told = `An operator answered your escalation #${id} (${JSON.stringify(REASON)}): Added the key.`;
      assert.equal((await call(s, 'POST', '/admin/netaclaw/escalation/resolve', { id, resolution: 'Added the key.' })).status, 200);

      model.push({ content: 'Deploying now.' });
      const next = await chat(s, { agentId: agent.id, sessionId, message: 'any news?' });
      assert.equal(next.status, 200, next.text);
      const read = model.requests.at(-1).body.messages;
      assert.deepEqual(read.slice(-2), [
        { role: 'user', content: 'any news?' },
        { role: 'user', content: told },
      ]);
      // told once: the next request has it in the history, not again
      model.push({ content: 'Done.' });
      assert.equal((await chat(s, { agentId: agent.id, sessionId, message: 'thanks' })).status, 200);
      const again = model.requests.at(-1).body.messages.filter(m => m.content === told);
      assert.equal(again.length, 1, JSON.stringify(model.requests.at(-1).body.messages));
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.deepEqual(
        info.body.data.messages.filter(m => m.role === 'resolution').map(m => [m.content, m.toolCallId]),
        [[told, `escalation:${id}`]]
      );
    });
  });

  test("a sub-agent's escalation belongs to its batch and to the batch's session (over the WebSocket)", async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'lead', crewRole: 'master', toolsets: ['base', 'planning', 'delegation'] });
      const task = 'Publish the package.';
      const isSub = body => body.messages.some(m => m.role === 'user' && m.content === task);
      model.push(
        { when: b => !isSub(b), toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task, tools: ['escalate'] } }] },
        { when: isSub, toolCalls: [{ id: 's1', name: 'escalate', arguments: { reason: 'No registry token.' } }] },
        { when: isSub, content: 'Escalated.' },
        { when: b => !isSub(b), content: 'The sub-agent escalated.' }
      );
      const events = await wsChat(s, { agentId: agent.id, message: 'publish', sessionCwd: tmpDir() });
      assert.deepEqual(model.problems, []);
      const done = events.at(-1);
      assert.equal(done.type, 'done', JSON.stringify(done));
      const batchId = done.batchIds[0];
      const subResult = model.requests[2].body.messages.find(m => m.role === 'tool');
      assert.match(subResult.content, /^Escalation #\d+ recorded: an operator will see it and answer\.$/);
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${done.sessionId}`);
      assert.deepEqual(
        info.body.data.escalations.map(e => [e.sessionId, e.batchId, e.agentId, e.reason, e.status]),
        [[String(done.sessionId), batchId, agent.id, 'No registry token.', 'open']]
      );
      // the resolution reaches the session's main agent, which delegated the task
      const escalationId = info.body.data.escalations[0].id;
      assert.equal((await call(s, 'POST', '/admin/netaclaw/escalation/resolve', { id: escalationId, resolution: 'Token added.' })).status, 200);
      model.push({ content: 'Publishing again.' });
      const next = await wsChat(s, { agentId: agent.id, sessionId: done.sessionId, message: 'and now?' });
      assert.equal(next.at(-1).type, 'done', JSON.stringify(next.at(-1)));
      assert.deepEqual(model.requests.at(-1).body.messages.at(-1), {
        role: 'user',
        content: `An operator answered escalation #${escalationId} of sub-agent batch ${batchId} ("No registry token."): Token added.`,
      });
    });
  });

  test('bad input is a 400 naming the field; an unknown escalation a 404', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const cases = [
        ['/resolve', { resolution: 'x' }, /id is required/],
        ['/resolve', { id: 0, resolution: 'x' }, /id must be a positive integer/],
        ['/resolve', { id: 'abc', resolution: 'x' }, /id must be a positive integer/],
        ['/resolve', { id: 1 }, /resolution is required/],
        ['/resolve', { id: 1, resolution: '   ' }, /resolution must be a non-empty string/],
        ['/resolve', { id: 1, resolution: 'x'.repeat(16_001) }, /resolution must be at most 16000 characters/],
        ['/page', { status: 'closed' }, /status must be one of open, resolved$/],
        ['/page', { status: 3 }, /status must be one of open, resolved$/],
        ['/page', { size: 0 }, /size must be an integer between 1 and 1000/],
        ['/page', { sessionId: {} }, /sessionId must be a string or number/],
      ];
      for (const [route, body, message] of cases) {
        const r = await call(s, 'POST', `/admin/netaclaw/escalation${route}`, body);
        assert.equal(r.status, 400, `${route} ${JSON.stringify(body).slice(0, 80)}: ${r.text.slice(0, 300)}`);
        assert.equal(r.body.error.code, 'invalid_input');
        assert.match(r.body.error.message, message);
      }
      const raw = await call(s, 'POST', '/admin/netaclaw/escalation/resolve', undefined, { raw: '[1, 2]' });
      assert.equal(raw.status, 400, raw.text);
      const missing = await call(s, 'POST', '/admin/netaclaw/escalation/resolve', { id: 4242, resolution: 'x' });
      assert.equal(missing.status, 404, missing.text);
      assert.equal(missing.body.error.code, 'not_found');
      // the tool refuses an empty reason: nothing recorded
      const agent = await addAgent(s, { name: 'quiet', toolsets: ['base', 'planning'] });
      model.push({ toolCalls: [{ id: 'e2', name: 'escalate', arguments: { reason: ' ' } }] }, { content: 'ok' });
      const r = await chat(s, { agentId: agent.id, message: 'hi', sessionCwd: tmpDir() });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.toolCalls[0].ok, false);
      assert.match(r.body.data.toolCalls[0].error, /reason must not be empty/);
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${r.body.data.sessionId}`);
      assert.deepEqual(info.body.data.escalations, []);
    });
  });
}

runOnEveryBackend(defineTests);
