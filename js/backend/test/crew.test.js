'use strict';
/**
 * Crews of different agents: an agent's crew lists other agents (`crewMembers`), and `delegate_task` with
 * `agent: <name>` runs that member — its own instructions, channel and toolsets — in a sub-agent batch
 * bounded by the master's session policy. The master's system prompt names its crew.
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

function defineTests(backend) {
  test('a master delegates to a crew member: the member runs with its own instructions and tools, bounded by the session', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    fs.writeFileSync(path.join(work, 'sea.txt'), 'the sea is grey today\n');
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const poet = await addAgent(s, { name: 'poet', systemPrompt: 'You write haiku about what you read.\nNever rhyme.', toolsets: ['base'] });
      const lead = await addAgent(s, {
        name: 'lead',
        systemPrompt: 'You lead a crew.',
        crewRole: 'master',
        toolsets: ['base', 'planning', 'delegation'],
        crewMembers: [poet.id],
      });
      const task = 'Read sea.txt and write a haiku about it.';
      const isSub = body => body.messages.some(m => m.role === 'user' && m.content === task);
      model.push(
        { when: b => !isSub(b), toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task, agent: 'poet' } }] },
        {
          when: isSub,
          toolCalls: [
            { id: 's1', name: 'read_file', arguments: { path: 'sea.txt' } },
            { id: 's2', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
          ],
        },
        { when: isSub, content: 'grey sea, quiet waves' },
        { when: b => !isSub(b), content: 'Here is the poem.' }
      );
      const r = await chat(s, { agentId: lead.id, message: 'a poem, please', sessionCwd: work });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(model.problems, []);
      const [delegated] = r.body.data.toolCalls;
      assert.equal(delegated.ok, true, JSON.stringify(delegated));
      assert.match(delegated.output, /grey sea, quiet waves/);

      // the master's prompt names its crew; the member's prompt is the member's own
      assert.match(model.system(0), /Your crew: .*delegate_task/);
      assert.match(model.system(0), /- poet: You write haiku about what you read\./);
      assert.match(model.system(1), /Your name is poet\./);
      assert.match(model.system(1), /You write haiku about what you read\.\nNever rhyme\./);
      assert.doesNotMatch(model.system(1), /You lead a crew/);
      // the member's toolsets (base only): no write tools offered; the session (read-only) bounds it anyway
      assert.ok(model.offered(1).includes('read_file'));
      assert.ok(!model.offered(1).includes('write_file'), model.offered(1).join(','));

      // the batch is the member's, and its calls are recorded
      const batch = (await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${r.body.data.batchIds[0]}`)).body.data;
      assert.equal(batch.agentId, poet.id);
      assert.equal(batch.crewRole, 'sub');
      assert.deepEqual(
        batch.calls.map(c => [c.name, c.decision, c.ok]),
        [
          ['read_file', 'worker-local', true],
          ['write_file', 'denied', false],
        ]
      );
    });
  });

  test('a task for an agent outside the crew fails with the crew named; crew lists are checked', async () => {
    model.reset();
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const helper = await addAgent(s, { name: 'helper', toolsets: ['base'] });
      const twin = await addAgent(s, { name: 'helper', toolsets: ['base'] });
      const lead = await addAgent(s, { name: 'lead', crewRole: 'master', toolsets: ['base', 'delegation'], crewMembers: [helper.id] });
      model.push({ toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task: 'do it', agent: 'stranger' } }] }, { content: 'ok' });
      const r = await chat(s, { agentId: lead.id, message: 'go', sessionCwd: tmpDir() });
      assert.equal(r.status, 200, r.text);
      const [c] = r.body.data.toolCalls;
      assert.equal(c.ok, false);
      assert.match(c.error, /no member of this agent's crew is named "stranger" \(the crew: helper\)/);
      assert.equal(r.body.data.batchIds.length, 0, 'no batch started');

      for (const [crewMembers, message] of [
        [[lead.id], /cannot be a member of its own crew/],
        [[987654], /no agent with id 987654/],
        [[helper.id, helper.id], /listed twice/],
        [[helper.id, twin.id], /two members are named "helper"/],
        ['x', /crewMembers/],
      ]) {
        const bad = await call(s, 'POST', '/admin/netaclaw/agent/update', { id: lead.id, crewMembers });
        assert.equal(bad.status, 400, bad.text);
        assert.equal(bad.body.error.code, 'invalid_input');
        assert.match(bad.body.error.message, message);
      }
      const info = (await call(s, 'GET', `/admin/netaclaw/agent/info?id=${lead.id}`)).body.data;
      assert.deepEqual(info.crewMembers, [helper.id], 'nothing written by a refused update');
    });
  });
}

runOnEveryBackend(defineTests);
