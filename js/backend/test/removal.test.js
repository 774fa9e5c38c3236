'use strict';
/**
 * Deleting sessions and agents (POST /admin/netaclaw/session/delete, /agent/delete; docs/backend-api.md
 * "Deleting"): a session goes with everything that is its — messages, tool calls, batches and their calls,
 * todo lists, escalations, turn progress — and leaves no row that names it; an agent goes with its sessions,
 * its own batches and its memory, while a batch it ran in another agent's session stays that session's
 * record. A running turn (or batch) is never stopped by a delete: it is refused with 409 and nothing goes.
 * SQLite and MariaDB.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();

/** The rows of each table that name the session (by id, or its batches'). */
async function rowsOfSession(db, id, batchIds) {
  const key = String(id);
  const b = batchIds.length ? batchIds : [-1];
  const marks = b.map(() => '?').join(',');
  const count = async (sql, params) => Number((await db.sql(sql, params))[0].n);
  return {
    session: await count('SELECT COUNT(*) AS n FROM netaclaw_session WHERE id = ?', [id]),
    messages: await count('SELECT COUNT(*) AS n FROM netaclaw_message WHERE sessionId = ?', [id]),
    calls: await count(`SELECT COUNT(*) AS n FROM netaclaw_tool_call WHERE sessionId = ? OR batchId IN (${marks})`, [key, ...b]),
    batches: await count(`SELECT COUNT(*) AS n FROM netaclaw_subagent_batch WHERE sessionId = ? OR id IN (${marks})`, [key, ...b]),
    todos: await count(`SELECT COUNT(*) AS n FROM netaclaw_todo_list WHERE sessionId = ? OR batchId IN (${marks})`, [key, ...b]),
    escalations: await count(`SELECT COUNT(*) AS n FROM netaclaw_escalation WHERE sessionId = ? OR batchId IN (${marks})`, [key, ...b]),
    approvals: await count('SELECT COUNT(*) AS n FROM netaclaw_approval WHERE sessionId = ?', [id]),
    progress: await count('SELECT COUNT(*) AS n FROM netaclaw_turn_progress WHERE sessionId = ?', [id]),
    net: await count(`SELECT COUNT(*) AS n FROM netaclaw_net_decision WHERE sessionId = ? OR batchId IN (${marks})`, [id, ...b]),
  };
}

const NONE = { session: 0, messages: 0, calls: 0, batches: 0, todos: 0, escalations: 0, approvals: 0, progress: 0, net: 0 };

/** A crew (lead → poet) and one session of lead with a delegated batch, a todo list and an escalation. */
async function crewSession(s, work) {
  const poet = await addAgent(s, { name: 'poet', toolsets: ['base', 'planning'] });
  const lead = await addAgent(s, { name: 'lead', crewRole: 'master', toolsets: ['base', 'planning', 'delegation'], crewMembers: [poet.id] });
  const task = 'Read sea.txt and write a haiku about it.';
  const isSub = body => body.messages.some(m => m.role === 'user' && m.content === task);
  model.push(
    {
      when: b => !isSub(b),
      toolCalls: [
        { id: 't1', name: 'todo', arguments: { items: [{ text: 'ask the poet', done: false }] } },
        { id: 'e1', name: 'escalate', arguments: { reason: 'a person should read the poem' } },
        { id: 'd1', name: 'delegate_task', arguments: { task, agent: 'poet' } },
      ],
    },
    { when: isSub, toolCalls: [{ id: 's1', name: 'read_file', arguments: { path: 'sea.txt' } }] },
    { when: isSub, content: 'grey sea, quiet waves' },
    { when: b => !isSub(b), content: 'Here is the poem.' }
  );
  const r = await chat(s, { agentId: lead.id, message: 'a poem, please', sessionCwd: work });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(model.problems, []);
  assert.deepEqual(
    r.body.data.toolCalls.map(c => [c.name, c.ok]),
    [
      ['todo', true],
      ['escalate', true],
      ['delegate_task', true],
    ],
    JSON.stringify(r.body.data.toolCalls)
  );
  return { poet, lead, sessionId: r.body.data.sessionId, batchIds: r.body.data.batchIds };
}

function defineTests(backend) {
  test('a session is deleted with every row that is its; another session is left whole', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    fs.writeFileSync(path.join(work, 'sea.txt'), 'the sea is grey today\n');
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const { lead, sessionId, batchIds } = await crewSession(s, work);
      assert.equal(batchIds.length, 1);
      model.push({ content: 'hello again' });
      const other = await chat(s, { agentId: lead.id, message: 'another session' });
      assert.equal(other.status, 200, other.text);
      const before = await rowsOfSession(db, sessionId, batchIds);
      for (const k of ['session', 'messages', 'calls', 'batches', 'todos', 'escalations']) assert.ok(before[k] > 0, `${k} before: ${JSON.stringify(before)}`);

      const r = await call(s, 'POST', '/admin/netaclaw/session/delete', { id: sessionId });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.data, { id: sessionId });
      assert.deepEqual(await rowsOfSession(db, sessionId, batchIds), NONE);
      assert.equal((await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`)).status, 404);
      // the other session, and the agents, are untouched
      const kept = await call(s, 'GET', `/admin/netaclaw/session/info?id=${other.body.data.sessionId}`);
      assert.equal(kept.status, 200, kept.text);
      assert.deepEqual(
        kept.body.data.messages.map(m => m.role),
        ['user', 'assistant']
      );
      assert.equal((await call(s, 'GET', `/admin/netaclaw/agent/info?id=${lead.id}`)).status, 200);

      // again: 404; a bad id: 400
      const again = await call(s, 'POST', '/admin/netaclaw/session/delete', { id: sessionId });
      assert.equal(again.status, 404, again.text);
      assert.equal(again.body.error.code, 'not_found');
      const bad = await call(s, 'POST', '/admin/netaclaw/session/delete', { id: 'x' });
      assert.equal(bad.status, 400, bad.text);
    });
  });

  test('a session whose turn is running is not deleted (409 session_running); once the turn ends it is', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'slow', toolsets: ['base'] });
      model.push({ content: 'first' });
      const first = await chat(s, { agentId: agent.id, message: 'hi' });
      assert.equal(first.status, 200, first.text);
      const sessionId = first.body.data.sessionId;
      model.push({ content: 'late answer', stallMs: 4000 });
      const running = chat(s, { agentId: agent.id, sessionId, message: 'take your time' });
      const deadline = Date.now() + 20000;
      while (model.requests.length < 2 && Date.now() < deadline) await new Promise(r => setTimeout(r, 50));
      assert.equal(model.requests.length, 2, 'the second turn reached the model');

      const refused = await call(s, 'POST', '/admin/netaclaw/session/delete', { id: sessionId });
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.error.code, 'session_running');
      assert.match(refused.body.error.message, /answering a message/);
      const done = await running;
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.data.reply, 'late answer');
      // nothing was deleted, and the turn stored its answer
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.deepEqual(
        info.body.data.messages.map(m => m.content),
        ['hi', 'first', 'take your time', 'late answer']
      );

      const r = await call(s, 'POST', '/admin/netaclaw/session/delete', { id: sessionId });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(await rowsOfSession(db, sessionId, []), NONE);
    });
  });

  test("an agent is deleted with its sessions, batches and memory; a batch it ran in another agent's session stays there; a crew member or a running agent is refused", async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    fs.writeFileSync(path.join(work, 'sea.txt'), 'the sea is grey today\n');
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const { poet, lead, sessionId, batchIds } = await crewSession(s, work);
      // poet's own session, with a memory
      const poetAgent = await call(s, 'POST', '/admin/netaclaw/agent/update', { id: poet.id, memoryEnabled: true, toolsets: ['base', 'planning', 'memory'] });
      assert.equal(poetAgent.status, 200, poetAgent.text);
      model.push({ toolCalls: [{ id: 'm1', name: 'memory_save', arguments: { content: 'the sea is grey' } }] }, { content: 'noted' });
      const own = await chat(s, { agentId: poet.id, message: 'remember the sea' });
      assert.equal(own.status, 200, own.text);
      assert.equal(own.body.data.toolCalls[0].ok, true, JSON.stringify(own.body.data.toolCalls[0]));
      const memories = async () => Number((await db.sql('SELECT COUNT(*) AS n FROM netaclaw_memory WHERE agentId = ?', [poet.id]))[0].n);
      assert.equal(await memories(), 1);

      // a member of lead's crew: refused, with the crew named
      const inCrew = await call(s, 'POST', '/admin/netaclaw/agent/delete', { id: poet.id });
      assert.equal(inCrew.status, 409, inCrew.text);
      assert.equal(inCrew.body.error.code, 'agent_in_crew');
      assert.match(inCrew.body.error.message, /crew of \d+ "lead"/);
      assert.deepEqual(inCrew.body.error.agents, [{ id: lead.id, name: 'lead' }]);
      assert.equal((await call(s, 'GET', `/admin/netaclaw/agent/info?id=${poet.id}`)).status, 200);

      // out of the crew, poet goes: its session and memory too; the batch it ran in lead's session stays
      const freed = await call(s, 'POST', '/admin/netaclaw/agent/update', { id: lead.id, crewMembers: [] });
      assert.equal(freed.status, 200, freed.text);
      const r = await call(s, 'POST', '/admin/netaclaw/agent/delete', { id: poet.id });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.data, { id: poet.id, sessions: 1 });
      assert.equal((await call(s, 'GET', `/admin/netaclaw/agent/info?id=${poet.id}`)).status, 404);
      assert.deepEqual(await rowsOfSession(db, own.body.data.sessionId, []), NONE);
      assert.equal(await memories(), 0);
      const leadRows = await rowsOfSession(db, sessionId, batchIds);
      assert.equal(leadRows.batches, 1, JSON.stringify(leadRows));
      assert.ok(leadRows.calls >= 4, JSON.stringify(leadRows));

      // lead with a running turn: refused (409 agent_running), nothing deleted
      model.push({ content: 'slowly', stallMs: 4000 });
      const seen = model.requests.length;
      const running = chat(s, { agentId: lead.id, sessionId, message: 'one more' });
      const deadline = Date.now() + 20000;
      while (model.requests.length <= seen && Date.now() < deadline) await new Promise(res => setTimeout(res, 50));
      const busy = await call(s, 'POST', '/admin/netaclaw/agent/delete', { id: lead.id });
      assert.equal(busy.status, 409, busy.text);
      assert.equal(busy.body.error.code, 'agent_running');
      assert.equal((await running).status, 200);
      assert.equal((await rowsOfSession(db, sessionId, batchIds)).session, 1);

      // idle: lead goes with its session and every row of it
      const gone = await call(s, 'POST', '/admin/netaclaw/agent/delete', { id: lead.id });
      assert.equal(gone.status, 200, gone.text);
      assert.deepEqual(await rowsOfSession(db, sessionId, batchIds), NONE);
      const left = await call(s, 'POST', '/admin/netaclaw/agent/page', {});
      assert.deepEqual(left.body.data.list, []);
      for (const table of [
        'netaclaw_session',
        'netaclaw_message',
        'netaclaw_subagent_batch',
        'netaclaw_tool_call',
        'netaclaw_memory',
        'netaclaw_escalation',
        'netaclaw_todo_list',
      ]) {
        assert.equal(Number((await db.sql(`SELECT COUNT(*) AS n FROM ${table}`))[0].n), 0, table);
      }
    });
  });
}

runOnEveryBackend(defineTests);
