'use strict';
/**
 * `clarify` pauses the turn: the chat answer stops with `stopReason: 'clarify'` and the question, the
 * session's info names the question it waits on, and the session's next message — over REST or the
 * WebSocket — is its answer: the model reads it as that call's result and the same turn goes on. A
 * sub-agent's `clarify` (the same handler, run where its worker sends it) pauses nothing: it is told to
 * go on with an assumption.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, wsChat, addAgent, modelEnv, tmpDir } = require('./support/chat');

const model = modelForFile();

/** The messages of recorded model request i, as the model read them. */
function messagesOf(i) {
  return model.requests.at(i).body.messages;
}

function defineTests(backend) {
  test('a question pauses the turn; the answer over REST resumes it, and the model reads the answer', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'asker', toolsets: ['base', 'planning'] });
      model.push(
        {
          toolCalls: [
            { id: 'q1', name: 'clarify', arguments: { question: 'Which file should I read?' } },
            { id: 'l1', name: 'list_dir', arguments: {} },
          ],
        },
        { content: 'Reading notes.txt as you said.' }
      );
      const first = await chat(s, { agentId: agent.id, message: 'summarize my notes', sessionCwd: tmpDir() });
      assert.equal(first.status, 200, first.text);
      const a = first.body.data;
      assert.equal(a.stopReason, 'clarify');
      assert.deepEqual(a.clarify, { callId: 'q1', question: 'Which file should I read?' });
      assert.equal(a.toolCalls.length, 2, 'the other call of the same answer ran');
      assert.equal(model.requests.length, 1, 'the model was not asked again before the answer');
      const waiting = await call(s, 'GET', `/admin/netaclaw/session/info?id=${a.sessionId}`);
      assert.deepEqual(waiting.body.data.pendingQuestion, { callId: 'q1', question: 'Which file should I read?' });

      const second = await chat(s, { agentId: agent.id, sessionId: a.sessionId, message: 'notes.txt, please' });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.data.stopReason, 'stop');
      assert.equal(second.body.data.reply, 'Reading notes.txt as you said.');
      const read = messagesOf(-1);
      const asked = read.findIndex(m => m.role === 'assistant' && m.tool_calls?.some(c => c.id === 'q1'));
      assert.ok(asked > 0, 'the question is in the history');
      const results = read
        .slice(asked + 1)
        .filter(m => m.role === 'tool')
        .map(m => m.tool_call_id)
        .sort();
      assert.deepEqual(results, ['l1', 'q1'], 'both calls have their result');
      assert.deepEqual(read.at(-1), { role: 'user', content: 'notes.txt, please' });
      const answered = await call(s, 'GET', `/admin/netaclaw/session/info?id=${a.sessionId}`);
      assert.equal(answered.body.data.pendingQuestion, null);
    });
  });

  test('the WebSocket gets the question in its done event and resumes the turn with the next message', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'asker-ws', toolsets: ['base', 'planning'] });
      model.push({ toolCalls: [{ id: 'q2', name: 'clarify', arguments: { question: 'Short or long?' } }] }, { content: 'A short one, then.' });
      const events = await wsChat(s, { agentId: agent.id, message: 'write a poem', sessionCwd: tmpDir() });
      const done = events.find(e => e.type === 'done');
      assert.ok(done, JSON.stringify(events));
      assert.equal(done.stopReason, 'clarify');
      assert.equal(done.clarify.question, 'Short or long?');
      const again = await wsChat(s, { agentId: agent.id, sessionId: done.sessionId, message: 'short' });
      const end = again.find(e => e.type === 'done');
      assert.ok(end, JSON.stringify(again));
      assert.equal(end.reply, 'A short one, then.');
      assert.equal(end.stopReason, 'stop');
    });
  });

  test('a second question in the same answer is refused; the answer survives a restart of the backend', async () => {
    model.reset();
    const db = await backend.fresh();
    const env = { ...db.env, ...modelEnv(model) };
    let sessionId;
    let agentId;
    await withServer(env, async s => {
      const agent = await addAgent(s, { name: 'asker-2', toolsets: ['base', 'planning'] });
      agentId = agent.id;
      model.push({
        toolCalls: [
          { id: 'a', name: 'clarify', arguments: { question: 'First?' } },
          { id: 'b', name: 'clarify', arguments: { question: 'Second?' } },
        ],
      });
      const r = await chat(s, { agentId, message: 'go', sessionCwd: tmpDir() });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.clarify.question, 'First?');
      sessionId = r.body.data.sessionId;
    });
    await withServer(env, async s => {
      const info = await call(s, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`);
      assert.deepEqual(info.body.data.pendingQuestion, { callId: 'a', question: 'First?' }, 'still waiting after a restart');
      model.push({ content: 'done' });
      const r = await chat(s, { agentId, sessionId, message: 'yes' });
      assert.equal(r.status, 200, r.text);
      const second = messagesOf(-1).find(m => m.role === 'tool' && m.tool_call_id === 'b');
      assert.match(second.content, /one question is asked at a time/i);
    });
  });

  test("a sub-agent's question pauses nothing: the same clarify tells it to go on with an assumption", async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, { name: 'lead-asker', crewRole: 'master', toolsets: ['base', 'planning', 'delegation'] });
      const task = 'Look around and report.';
      const isSub = body => body.messages.some(m => m.role === 'user' && m.content === task);
      model.push(
        { when: b => !isSub(b), toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task } }] },
        { when: isSub, toolCalls: [{ id: 's1', name: 'clarify', arguments: { question: 'Which folder first?' } }] },
        { when: isSub, content: 'assumed the first folder' },
        { when: b => !isSub(b), content: 'done' }
      );
      const r = await chat(s, { agentId: agent.id, message: 'go', sessionCwd: tmpDir() });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(model.problems, []);
      assert.equal(r.body.data.stopReason, 'stop', 'the main turn was not paused');
      assert.equal(r.body.data.reply, 'done');
      const sub = model.requests.filter(q => isSub(q.body));
      assert.equal(sub.length, 2);
      assert.ok(
        sub[0].body.tools.some(t => t.function.name === 'clarify'),
        'the sub-agent is offered clarify'
      );
      const answer = sub[1].body.messages.find(m => m.role === 'tool' && m.tool_call_id === 's1');
      assert.match(answer.content, /^No user can answer a sub-agent's question \(Which folder first\?\): go on with the most reasonable assumption/);
      const [delegated] = r.body.data.toolCalls;
      assert.equal(delegated.ok, true, JSON.stringify(delegated));
      assert.match(delegated.output, /assumed the first folder/);
      const info = (await call(s, 'GET', `/admin/netaclaw/session/info?id=${r.body.data.sessionId}`)).body.data;
      assert.equal(info.pendingQuestion, null, 'the session waits on no question');
    });
  });
}

runOnEveryBackend(defineTests);
