'use strict';
/**
 * What an agent row holds beyond its tools, through the real server on SQLite and MariaDB: its sub-agent
 * tool selection (`subagentTools`: validated, stored, and applied to its batches — a console run and a
 * delegated task, intersected with what the batch asks for), the toolsets `forAgent` offers (the
 * package's), and the demo's example agents (`NETACLAW_SEED_FILE`: only into an empty table, all or
 * nothing). The model is the scripted server on loopback; everything else is real.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, startServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { wsChat, addAgent, modelEnv, tmpDir } = require('./support/chat');
const policy = require('@netaclaw/tool-policy');

const model = modelForFile();

/** The decision of each call of a finished batch: `[name, decision, reason]`. */
const decisions = batch => batch.calls.map(c => [c.name, c.decision, c.reason]);

function defineTests(backend) {
  test('subagentTools: validated and stored; a batch gets what it asks for within the agent’s selection', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    fs.writeFileSync(path.join(work, 'a.txt'), 'A\n');
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      // validation: names of the catalog, each once; null = all
      const bad = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'x', subagentTools: ['read_file', 'no_such_tool'] });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error.code, 'invalid_input');
      assert.match(bad.body.error.message, /subagentTools\[1\]: no tool of the catalog is named "no_such_tool"/);
      const twice = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'x', subagentTools: ['grep', 'grep'] });
      assert.equal(twice.status, 400);
      assert.match(twice.body.error.message, /subagentTools\[1\]: "grep" is listed twice/);
      const wrongType = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'x', subagentTools: 'read_file' });
      assert.equal(wrongType.status, 400);
      assert.match(wrongType.body.error.message, /subagentTools must be an array of strings/);
      const listed = (await call(s, 'POST', '/admin/netaclaw/agent/page', { size: 1000 })).body.data;
      assert.equal(listed.pagination.total, 0, 'nothing written by refused requests');

      const free = await addAgent(s, { name: 'free', toolsets: ['base'] });
      assert.equal(free.subagentTools, null);
      const lead = await addAgent(s, { name: 'lead', crewRole: 'master', toolsets: ['base', 'delegation'], subagentTools: ['read_file', 'list_dir'] });
      assert.deepEqual(lead.subagentTools, ['read_file', 'list_dir']);
      const again = (await call(s, 'GET', `/admin/netaclaw/agent/info?id=${lead.id}`)).body.data;
      assert.deepEqual(again.subagentTools, ['read_file', 'list_dir']);

      const run = async (agentId, extra) => {
        const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId,
          sessionCwd: work,
          calls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'list_dir', arguments: {} },
            { name: 'grep', arguments: { pattern: 'A' } },
          ],
          ...extra,
        });
        assert.equal(r.status, 200, r.text);
        return r.body.data;
      };
      const local = 'worker-local';
      const notSelected = 'not_selected_for_subagent';
      // the agent's selection alone
      assert.deepEqual(decisions(await run(lead.id)), [
        ['read_file', local, null],
        ['list_dir', local, null],
        ['grep', 'denied', notSelected],
      ]);
      // the batch asks for grep and read_file: only read_file is within the agent's selection
      assert.deepEqual(decisions(await run(lead.id, { subagentTools: ['grep', 'read_file'] })), [
        ['read_file', local, null],
        ['list_dir', 'denied', notSelected],
        ['grep', 'denied', notSelected],
      ]);
      // an agent without a selection: the batch's own
      assert.deepEqual(decisions(await run(free.id, { subagentTools: ['grep'] })), [
        ['read_file', 'denied', notSelected],
        ['list_dir', 'denied', notSelected],
        ['grep', local, null],
      ]);
      assert.deepEqual(decisions(await run(free.id)), [
        ['read_file', local, null],
        ['list_dir', local, null],
        ['grep', local, null],
      ]);

      // null again: every tool the agent gets
      const cleared = (await call(s, 'POST', '/admin/netaclaw/agent/update', { id: lead.id, subagentTools: null })).body.data;
      assert.equal(cleared.subagentTools, null);
      assert.deepEqual(decisions(await run(lead.id)), [
        ['read_file', local, null],
        ['list_dir', local, null],
        ['grep', local, null],
      ]);
    });
  });

  test('subagentTools: a delegated task gets its tools within the agent’s selection (the executor)', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir();
    fs.writeFileSync(path.join(work, 'notes.txt'), 'hello\n');
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const agent = await addAgent(s, {
        name: 'crew',
        crewRole: 'master',
        toolsets: ['base', 'planning', 'delegation'],
        subagentTools: ['read_file', 'grep'],
      });
      const task = 'Read notes.txt.';
      const isSub = body => body.messages.some(m => m.role === 'user' && m.content === task);
      model.push(
        { when: b => !isSub(b), toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task, tools: ['read_file', 'list_dir', 'bash'] } }] },
        {
          when: isSub,
          toolCalls: [
            { id: 's1', name: 'read_file', arguments: { path: 'notes.txt' } },
            { id: 's2', name: 'list_dir', arguments: {} },
          ],
        },
        { when: isSub, content: 'It says hello.' },
        { when: b => !isSub(b), content: 'Done.' }
      );
      const events = await wsChat(s, { agentId: agent.id, message: 'go', sessionCwd: work, shellPermitted: true });
      assert.deepEqual(model.problems, []);
      const done = events.at(-1);
      assert.equal(done.type, 'done', JSON.stringify(done));
      // the sub-agent was offered read_file only: asked read_file, list_dir, bash; the agent allows read_file, grep
      assert.deepEqual(model.offered(1), ['read_file']);
      const info = (await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${done.batchIds[0]}`)).body.data;
      const route = name => info.routes.find(r => r.name === name);
      assert.equal(route('read_file').route, 'worker-local');
      for (const name of ['list_dir', 'grep', 'bash']) assert.deepEqual(route(name).reasons, ['not_selected_for_subagent'], name);
      // list_dir was not offered: the call port denies it (L0) and the batch records it (both calls ran side
      // by side: recorded in the order they ended)
      assert.deepEqual(decisions(info).sort(), [
        ['list_dir', 'denied', 'tool_not_offered'],
        ['read_file', 'worker-local', null],
      ]);
    });
  });

  test('forAgent offers the package’s toolsets of the merged catalog', async () => {
    const db = await backend.fresh();
    await withServer(db.env, async s => {
      const r = await call(s, 'GET', '/admin/netaclaw/tool/forAgent');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.body.data.toolsets,
        policy.catalogInfo().toolsets.map(t => t.name)
      );
    });
  });

  test('NETACLAW_SEED_FILE: example agents go into an empty table only; a bad file stops the start and adds nothing', async () => {
    const db = await backend.fresh();
    const dir = tmpDir();
    const seedFile = path.join(dir, 'agents.json');
    const seeds = [
      { name: 'legacy', toolsets: null },
      { name: 'crew master', toolsets: ['base', 'delegation'], crewRole: 'master', subagentTools: ['read_file'], crew: ['reviewer'] },
      { name: 'reviewer', toolsets: ['base'] },
    ];
    // a bad entry (its second): the start fails naming it, and nothing is added
    fs.writeFileSync(seedFile, JSON.stringify([seeds[0], { name: 'x', subagentTools: ['nope'] }]));
    const failed = await startServer({ ...db.env, NETACLAW_SEED_FILE: seedFile }, { expectExit: true });
    assert.notEqual(failed.exitCode, 0);
    assert.match(failed.log(), /NETACLAW_SEED_FILE .*agents\.json: entry \[1\]: subagentTools\[0\]: no tool of the catalog is named "nope"/);
    // a crew naming an agent the file does not have
    fs.writeFileSync(seedFile, JSON.stringify([seeds[0], { name: 'y', crew: ['nobody'] }]));
    const noMember = await startServer({ ...db.env, NETACLAW_SEED_FILE: seedFile }, { expectExit: true });
    assert.notEqual(noMember.exitCode, 0);
    assert.match(noMember.log(), /entry \[1\]: crew must list names of agents of this file/);

    fs.writeFileSync(seedFile, JSON.stringify(seeds));
    await withServer({ ...db.env, NETACLAW_SEED_FILE: seedFile }, async s => {
      assert.match(s.log(), /seeded 3 example agents/);
      const list = (await call(s, 'POST', '/admin/netaclaw/agent/page', { size: 100 })).body.data.list;
      const reviewer = list.find(a => a.name === 'reviewer');
      assert.deepEqual(
        list.map(a => [a.name, a.toolsets, a.crewRole, a.subagentTools, a.crewMembers]),
        [
          ['legacy', null, null, null, null],
          ['crew master', ['base', 'delegation'], 'master', ['read_file'], [reviewer.id]],
          ['reviewer', ['base'], null, null, null],
        ]
      );
    });
    // a second start: the table has agents, nothing is added
    await withServer({ ...db.env, NETACLAW_SEED_FILE: seedFile }, async s => {
      assert.match(s.log(), /not seeding .*: the agent table has agents/);
      assert.equal((await call(s, 'POST', '/admin/netaclaw/agent/page', {})).body.data.pagination.total, 3);
    });
    // without the variable nothing is seeded (a fresh database stays empty)
    const empty = await backend.fresh();
    await withServer(empty.env, async s => {
      assert.doesNotMatch(s.log(), /seed/);
      assert.equal((await call(s, 'POST', '/admin/netaclaw/agent/page', {})).body.data.pagination.total, 0);
    });
  });
}

runOnEveryBackend(defineTests);
