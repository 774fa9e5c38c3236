'use strict';
/**
 * A chat turn outlives its WebSocket: closing the page's connection does not stop the turn; a new
 * connection attaches to the session's running turn, gets its events so far (replayed: the streamed
 * text, the tool call and its result), then the rest, and can cancel it. The replay is bounded.
 * SQLite only (the turns live in the instance that runs them).
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startServer, call, BACKEND_ROOT } = require('./support/server');
const { sqliteBackend } = require('./support/db');
const { startModel } = require('./support/model');
const { openWs, addAgent, modelEnv } = require('./support/chat');

const dist = name => require(path.join(BACKEND_ROOT, 'dist', name));

async function sessionInfo(s, id) {
  const r = await call(s, 'GET', `/admin/netaclaw/session/info?id=${id}`);
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

describe('a turn outlives its page', () => {
  let backend;
  let s;
  let model;
  before(async () => {
    model = await startModel();
    backend = await sqliteBackend();
    s = await startServer({ ...(await backend.fresh()).env, ...modelEnv(model) });
  });
  after(async () => {
    if (s) await s.stop();
    if (backend) await backend.stop();
    if (model) await model.close();
  });

  test('closing the connection does not stop the turn; a new one attaches, gets the replay and the rest', async () => {
    model.reset();
    const agent = await addAgent(s, { name: 'outlives', toolsets: ['planning'] });
    model.push({ chunks: ['part ', 'one.'], toolCalls: [{ id: 'x1', name: 'not_a_tool', arguments: {} }] }, { stallMs: 2500, chunks: ['part ', 'two.'] });
    const first = openWs(s);
    await first.opened;
    const result = first.next(e => e.type === 'tool-result');
    first.send({ type: 'chat', agentId: agent.id, message: 'tell me in two parts' });
    const { sessionId } = await result;
    await first.close();

    const second = openWs(s);
    await second.opened;
    const done = second.next(e => e.type === 'done' || e.type === 'error');
    second.send({ type: 'attach', sessionId });
    const end = await done;
    assert.equal(end.type, 'done', JSON.stringify(end));
    assert.equal(end.reply, 'part two.');
    const [attached, ...rest] = second.events;
    assert.deepEqual(attached, { type: 'attached', sessionId, running: true, message: 'tell me in two parts' });
    const text = rest.filter(e => e.type === 'delta').map(e => e.text);
    assert.deepEqual(text, ['part one.', 'part ', 'two.'], 'the streamed text replayed (kept as one), then the rest live');
    assert.deepEqual(
      rest.filter(e => e.type === 'tool-call' || e.type === 'tool-result').map(e => [e.type, e.name]),
      [
        ['tool-call', 'not_a_tool'],
        ['tool-result', 'not_a_tool'],
      ]
    );
    await second.close();
    // the turn ran to its end: no cancel recorded
    const info = await sessionInfo(s, sessionId);
    assert.deepEqual(
      info.messages.map(m => m.role),
      ['user', 'assistant', 'tool', 'assistant']
    );
    assert.equal(info.messages.at(-1).content, 'part two.');

    // nothing runs now: attach says so
    const third = openWs(s);
    await third.opened;
    const none = third.next(e => e.type === 'attached');
    third.send({ type: 'attach', sessionId });
    assert.deepEqual(await none, { type: 'attached', sessionId, running: false });
    const bad = third.next(e => e.type === 'error');
    third.send({ type: 'attach', sessionId: 'x' });
    assert.equal((await bad).code, 'invalid_input');
    await third.close();
  });

  test('a page that attached can cancel the turn', async () => {
    model.reset();
    const agent = await addAgent(s, { name: 'cancel-attached', toolsets: ['planning'] });
    model.push({ chunks: ['started ', 'and then'], stallMs: 20000, stallAfterChunks: 2 });
    const first = openWs(s);
    await first.opened;
    const delta = first.next(e => e.type === 'delta');
    first.send({ type: 'chat', agentId: agent.id, message: 'a long one' });
    const { sessionId } = await delta;
    await first.close();
    const second = openWs(s);
    await second.opened;
    const attached = second.next(e => e.type === 'attached');
    const end = second.next(e => e.type === 'error');
    second.send({ type: 'attach', sessionId });
    assert.equal((await attached).running, true);
    second.send({ type: 'cancel' });
    assert.equal((await end).code, 'cancelled');
    assert.equal(await model.aborted(), true);
    await second.close();
    assert.equal((await sessionInfo(s, sessionId)).messages.at(-1).name, 'cancelled');
  });

  test('the replay is bounded: deltas of one stream kept as one, text and events capped', () => {
    const { LiveTurn, TurnHub, TURN_EVENTS_MAX, TURN_TEXT_MAX_CHARS } = dist('gateway/turns.js');
    const turn = new LiveTurn('m', () => {});
    for (let i = 0; i < 1000; i++) turn.push({ type: 'delta', sessionId: 1, batchId: null, text: 'ab' });
    turn.push({ type: 'delta', sessionId: 1, batchId: 7, text: 'sub' });
    assert.equal(turn.events.length, 2);
    assert.equal(turn.events[0].text.length, 2000);
    turn.push({ type: 'delta', sessionId: 1, batchId: null, text: 'x'.repeat(TURN_TEXT_MAX_CHARS) });
    assert.equal(turn.truncated, true);
    assert.ok(turn.chars <= TURN_TEXT_MAX_CHARS);
    const many = new LiveTurn('m', () => {});
    for (let i = 0; i < TURN_EVENTS_MAX + 10; i++) many.push({ type: 'tool-call', sessionId: 1, batchId: null, id: String(i), name: 't', arguments: {} });
    assert.equal(many.events.length, TURN_EVENTS_MAX);
    assert.equal(many.replay(1)[0].truncated, true);
    // a finished turn is no longer found
    const hub = new TurnHub();
    const t = hub.begin('m', () => {});
    hub.push(t, { type: 'delta', sessionId: 5, batchId: null, text: 'a' });
    assert.equal(hub.find(5), t);
    hub.push(t, { type: 'error', sessionId: 5, code: 'cancelled', message: 'cancelled' });
    assert.equal(hub.find(5), null);
    assert.equal(hub.size, 0);
    assert.equal(t.final.code, 'cancelled', 'the end event is kept apart');
  });

  test('a progress row keeps the events that fit in its byte bound, and all of them below it', () => {
    const { prefixWithin } = dist('gateway/progress.js');
    const big = 'x'.repeat(1000);
    const events = [0, 1, 2, 3].map(i => ({
      type: 'tool-result',
      sessionId: 1,
      batchId: null,
      id: `c${i}`,
      name: 'read_file',
      arguments: {},
      decision: 'worker-local',
      reason: null,
      ok: true,
      output: big,
      durationMs: 1,
    }));
    assert.equal(prefixWithin(events, 1_000_000), null, 'under the bound: all of them');
    const kept = prefixWithin(events, 2500);
    assert.deepEqual(
      kept.map(e => e.id),
      ['c0', 'c1'],
      'the events that fit, in order'
    );
    assert.ok(Buffer.byteLength(JSON.stringify(kept)) <= 2500);
    events[0].output = 'changed';
    assert.equal(kept[0].output, big, 'a copy: the turn going on does not change what was kept');
  });

  test('a follower on another instance gets what the progress row has more: the growth of the last delta, the new events', () => {
    const { sendNew } = dist('gateway/progress.js');
    const sent = [];
    const at = { sent: 0, textSent: 0 };
    const delta = text => ({ type: 'delta', sessionId: 1, batchId: null, text });
    const call = { type: 'tool-call', sessionId: 1, batchId: null, id: 'c', name: 't', arguments: {} };
    sendNew([delta('ab')], at, e => sent.push(e));
    sendNew([delta('ab')], at, e => sent.push(e));
    sendNew([delta('abcd')], at, e => sent.push(e));
    sendNew([delta('abcdef'), call, delta('x')], at, e => sent.push(e));
    sendNew([delta('abcdef'), call, delta('xyz'), { type: 'done', sessionId: 1, reply: 'xyz' }], at, e => sent.push(e));
    assert.deepEqual(
      sent.map(e => (e.type === 'delta' ? e.text : e.type)),
      ['ab', 'cd', 'ef', 'tool-call', 'x', 'yz'],
      'each piece once; the end event is not among them (it is sent from the row apart)'
    );
    // the bus brought more than the row has yet: a row behind never sends it again
    const ahead = { sent: 1, textSent: 6 };
    const again = [];
    sendNew([delta('abcd')], ahead, e => again.push(e));
    assert.deepEqual(ahead, { sent: 1, textSent: 6 });
    sendNew([delta('abcdefgh'), call], ahead, e => again.push(e));
    assert.deepEqual(
      again.map(e => (e.type === 'delta' ? e.text : e.type)),
      ['gh', 'tool-call']
    );
  });
});
