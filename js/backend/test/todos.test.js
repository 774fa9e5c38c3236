'use strict';
/**
 * The `todo` tool's list is kept in the database (netaclaw_todo_list), per session for the main agent and
 * per batch for a sub-agent: it survives a restart of the backend and is part of the session's info.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();

function defineTests(backend) {
  test("a session's todo list survives a restart and is shown with the session; a second call replaces it", async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    const env = { ...db.env, ...modelEnv(model) };
    let sessionId;
    const items = [
      { text: 'read the notes', done: true },
      { text: 'write the summary', done: false },
    ];
    await withServer(env, async s => {
      const agent = await addAgent(s, { name: 'planner', toolsets: ['base', 'planning'] });
      model.push({ toolCalls: [{ id: 't1', name: 'todo', arguments: { items } }] }, { content: 'planned' });
      const r = await chat(s, { agentId: agent.id, message: 'plan', sessionCwd: work });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.toolCalls[0].ok, true, r.body.data.toolCalls[0].error);
      sessionId = r.body.data.sessionId;
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.deepEqual(info.body.data.todos, items);
    });
    // a new backend process on the same database
    await withServer(env, async s => {
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.equal(info.status, 200, info.text);
      assert.deepEqual(info.body.data.todos, items, 'the list survived the restart');
      const agentId = info.body.data.agentId;
      model.push({ toolCalls: [{ id: 't2', name: 'todo', arguments: { items: [{ text: 'done', done: true }] } }] }, { content: 'updated' });
      const r = await chat(s, { agentId, sessionId, message: 'update' });
      assert.equal(r.status, 200, r.text);
      const after = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.deepEqual(after.body.data.todos, [{ text: 'done', done: true }], 'replaced whole');
    });
    const rows = await db.sql('SELECT owner, sessionId FROM netaclaw_todo_list');
    assert.deepEqual(
      rows.map(r => [r.owner, r.sessionId]),
      [[`session:${sessionId}`, String(sessionId)]],
      'one row per session'
    );
  });

  test('a session without a todo list shows an empty one', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'quiet', toolsets: ['base'] });
      model.push({ content: 'hello' });
      const r = await chat(s, { agentId: agent.id, message: 'hi', sessionCwd: tmpDir() });
      assert.equal(r.status, 200, r.text);
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${r.body.data.sessionId}`);
      assert.deepEqual(info.body.data.todos, []);
    });
  });
}

runOnEveryBackend(defineTests);
