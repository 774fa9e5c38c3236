'use strict';
/**
 * The demonstration model (src/agent/demo-model.ts): with no model channel and NETACLAW_DEMO_MODEL=1, the
 * demo's seeded agents converse with it over the real chat path — each step of its tour is a real call
 * decided by the package and run in the real sandbox: an allowed read with the file's content, a denied
 * write with its reason (nothing written), a delegation whose batch runs and reads, a question that pauses
 * the turn, a command an ask rule stops for approval. A configured channel replaces it.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { wsChat, tmpDir } = require('./support/chat');

const DEMO = path.resolve(__dirname, '..', '..', '..', 'scripts', 'demo');
const MASTER = '示例 · Crew master（委派）';
const REVIEWER = '示例 · 审阅员（Crew 成员）';

/** A workspace with one small text file whose content is unique to this run. */
function workspace() {
  const dir = tmpDir('netaclaw-demo-model-');
  const marker = `demo-notes-${process.pid}-${Date.now()}`;
  fs.writeFileSync(path.join(dir, 'notes.txt'), `${marker}\nsecond line\n`);
  return { dir, marker };
}

function ofType(events, type) {
  return events.filter(e => e.type === type);
}

function doneOf(events) {
  const done = events.find(e => e.type === 'done');
  assert.ok(done, `no done event: ${JSON.stringify(events)}`);
  return done;
}

function defineTests(backend) {
  test('the demonstration tour runs on the seeded agents through the real runtime, without a model channel', async () => {
    const db = await backend.fresh();
    const env = {
      ...db.env,
      NETACLAW_DEMO_MODEL: '1',
      NETACLAW_SEED_FILE: path.join(DEMO, 'agents.json'),
      NETACLAW_CATALOG_FILE: path.join(DEMO, 'catalog.json'),
    };
    await withServer(env, async s => {
      const channels = await call(s, 'POST', '/admin/netaclaw/channel/page', {});
      assert.equal(channels.body.data.pagination.total, 0, 'no model channel');
      const agents = (await call(s, 'POST', '/admin/netaclaw/agent/page', { size: 50 })).body.data.list;
      const master = agents.find(a => a.name === MASTER);
      const reviewer = agents.find(a => a.name === REVIEWER);
      assert.ok(master && reviewer, JSON.stringify(agents.map(a => a.name)));

      // the chat's info says which model the agent converses with
      const preview = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: master.id });
      assert.equal(preview.status, 200, preview.text);
      assert.equal(preview.body.data.demoModel, true);
      assert.equal(preview.body.data.channel, null);

      // anything else: what it can show, in the user's language, streamed in pieces
      const hello = await wsChat(s, { agentId: master.id, message: 'hello' });
      assert.match(doneOf(hello).reply, /demonstration model/);
      assert.ok(ofType(hello, 'delta').length > 1, 'the reply is streamed');
      const nihao = await wsChat(s, { agentId: master.id, message: '你好' });
      assert.match(doneOf(nihao).reply, /演示模型/);

      // an allowed read: list_dir, then read_file of the folder's file, its content in the answer
      const w = workspace();
      const read = await wsChat(s, { agentId: master.id, message: 'Read a file', sessionCwd: w.dir });
      const readDone = doneOf(read);
      assert.equal(readDone.stopReason, 'stop');
      const readResult = ofType(read, 'tool-result').find(e => e.name === 'read_file');
      assert.ok(readResult, JSON.stringify(read));
      assert.notEqual(readResult.decision, 'denied', JSON.stringify(readResult));
      assert.equal(readResult.ok, true, JSON.stringify(readResult));
      assert.deepEqual(readResult.arguments, { path: 'notes.txt', limit: 40 });
      assert.match(readResult.output, new RegExp(w.marker));
      assert.match(readDone.reply, new RegExp(w.marker));
      assert.ok(ofType(read, 'tool-result').some(e => e.name === 'list_dir' && e.ok));

      // a denied write with its reason: the reviewer in a session that may not write; nothing written
      const ww = workspace();
      const write = await wsChat(s, { agentId: reviewer.id, message: '试着写一个文件', sessionCwd: ww.dir });
      const denied = ofType(write, 'tool-result').find(e => e.name === 'write_file');
      assert.ok(denied, JSON.stringify(write));
      assert.equal(denied.decision, 'denied');
      assert.equal(denied.ok, false);
      assert.equal(typeof denied.reason, 'string');
      assert.ok(denied.detail, 'the denial says why');
      const writeReply = doneOf(write).reply;
      assert.match(writeReply, /策略拒绝了 write_file：/);
      // the reply says the package's sentence for the reason, never the reason's code
      const { policy } = require('../dist/wire/policy.js');
      // not offered: the reply gives the cause its route names (the session may not write), as the card does
      assert.equal(denied.reason, 'tool_not_offered');
      const because = /not offered because: ([a-z_]+)/.exec(denied.detail)?.[1];
      assert.equal(because, 'write_blocked_by_readonly_policy', denied.detail);
      const label = policy().label('reasons', because, 'zh-CN');
      assert.ok(label && writeReply.includes(label), writeReply);
      assert.ok(!writeReply.includes(denied.reason) && !writeReply.includes(because), writeReply);
      assert.equal(fs.existsSync(path.join(ww.dir, 'demo-note.txt')), false, 'nothing was written');

      // a delegation: the crew master gives the task to its member, whose batch reads the file
      const dw = workspace();
      const delegate = await wsChat(s, { agentId: master.id, message: '委派一个任务', sessionCwd: dw.dir });
      const delegateDone = doneOf(delegate);
      const call0 = ofType(delegate, 'tool-call').find(e => e.name === 'delegate_task');
      assert.deepEqual(call0.arguments.agent, REVIEWER);
      const batch = ofType(delegate, 'batch');
      assert.deepEqual(
        batch.map(b => b.status),
        ['running', 'completed'],
        JSON.stringify(batch)
      );
      assert.equal(delegateDone.batchIds.length, 1);
      const subRead = ofType(delegate, 'tool-result').find(e => e.name === 'read_file' && e.batchId === batch[0].batchId);
      assert.ok(subRead, 'the sub-agent read in its batch');
      assert.equal(subRead.ok, true, JSON.stringify(subRead));
      assert.match(delegateDone.reply, new RegExp(dw.marker));
      assert.match(delegateDone.reply, /^子 Agent 批次完成了任务/m, 'answered in the language asked');
      const stored = await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${batch[0].batchId}`);
      assert.equal(stored.status, 200, stored.text);
      assert.equal(stored.body.data.status, 'completed');

      // a question: the turn pauses on clarify; the next message answers it
      const ask = await wsChat(s, { agentId: master.id, message: 'Ask me a question', sessionCwd: tmpDir() });
      const asked = doneOf(ask);
      assert.equal(asked.stopReason, 'clarify');
      assert.match(asked.clarify.question, /folder/);
      const answered = await wsChat(s, { agentId: master.id, sessionId: asked.sessionId, message: 'the docs folder' });
      const answeredDone = doneOf(answered);
      assert.equal(answeredDone.stopReason, 'stop');
      assert.match(answeredDone.reply, /You answered: “the docs folder”/);

      // an approval: the crew master's seeded rule asks about curl; the turn stops with the card's event
      const aw = workspace();
      const approval = await wsChat(s, {
        agentId: master.id,
        message: 'Run a command that needs approval',
        sessionCwd: aw.dir,
        shellPermitted: true,
      });
      const waiting = doneOf(approval);
      assert.equal(waiting.stopReason, 'approval', JSON.stringify(waiting));
      assert.equal(waiting.approval.subject, 'curl -sI https://example.com');
      assert.equal(waiting.approval.rule.pattern, 'bash(curl:*)');
      assert.equal(waiting.approval.status, 'pending');
      const asking = ofType(approval, 'tool-result').find(e => e.name === 'bash');
      assert.equal(asking.decision, 'ask', JSON.stringify(asking));
      // denied by the user: the same turn goes on and the demonstration model says so
      const no = await call(s, 'POST', '/api/netaclaw/approval/answer', { id: waiting.approval.id, answer: 'deny' });
      assert.equal(no.status, 200, no.text);
      assert.equal(no.body.data.answered.status, 'denied');
      assert.match(no.body.data.reply, /^The policy denied bash: Denied by a rule\. /);
      assert.doesNotMatch(no.body.data.reply, /denied_by_rule/);

      // a configured channel replaces the demonstration model
      const added = await call(s, 'POST', '/admin/netaclaw/channel/add', { name: 'real', baseUrl: 'http://127.0.0.1:9/v1', model: 'real-model' });
      assert.equal(added.status, 200, added.text);
      const withChannel = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: master.id });
      assert.equal(withChannel.body.data.demoModel, false);
      assert.equal(withChannel.body.data.channel.id, added.body.data.id);
      const refused = await wsChat(s, { agentId: master.id, message: 'hello' });
      const error = refused.find(e => e.type === 'error');
      assert.ok(error, 'the configured (unreachable) model answers, not the demonstration model');
      assert.equal(error.code, 'model_error');
    });
  });

  test('without NETACLAW_DEMO_MODEL there is no demonstration model: a chat without a channel is refused', async () => {
    const db = await backend.fresh();
    await withServer({ ...db.env }, async s => {
      const agent = (await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'plain', toolsets: ['base'] })).body.data;
      const preview = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: agent.id });
      assert.equal(preview.body.data.demoModel, false);
      const r = await call(s, 'POST', '/api/netaclaw/chat', { agentId: agent.id, message: 'Read a file' });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error.code, 'no_model_channel');
    });
  });
}

runOnEveryBackend(defineTests);
