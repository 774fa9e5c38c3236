'use strict';
/**
 * Rules finer than a tool (docs/package.md "Rules"), stored and obeyed by the backend: the global rules
 * (GET/POST /admin/netaclaw/rules/…, checked by the package, versioned), an agent's rules, "try it"
 * answering what the package answers, and a chat turn whose calls — real worker, real bwrap, a real git
 * repository — are decided with the session's rules: an allowed `git status` runs, `git push` and a
 * command substitution ask (the first stops the turn for the user, the second is refused), writes to `.git/hooks` are
 * denied by the protected paths whether by `write_file` or by `bash -c`, and `.env` is unreadable when a
 * rule says so. Nothing denied is written.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { withServer, call } = require('./support/server');
const { runOnEveryBackend } = require('./support/suites');
const { modelForFile } = require('./support/model');
const { chat, addAgent, modelEnv, tmpDir } = require('./support/chat');
const { giveToSandbox } = require('./support/runtime');

const policy = require('@netaclaw/tool-policy');
const model = modelForFile();

function defineTests(backend) {
  test("global rules: read, refused with the pattern named, saved, versioned; an agent's rules likewise", async () => {
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const first = await call(s, 'GET', '/admin/netaclaw/rules/info');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.data.rules, null);
      assert.equal(first.body.data.version, 0);
      assert.deepEqual(first.body.data.defaults, policy.ruleDefaults());

      const bad = await call(s, 'POST', '/admin/netaclaw/rules/update', { rules: { deny: ['bash(rm -rf:*)', 'fetch(example.com)'] }, version: 0 });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error.code, 'invalid_input');
      assert.match(bad.body.error.message, /^rules\.global\.deny\[1\]: /);
      assert.deepEqual(bad.body.error.errors, [{ field: 'rules.global.deny[1]', code: 'invalid_rule' }]);
      assert.equal((await call(s, 'GET', '/admin/netaclaw/rules/info')).body.data.version, 0, 'nothing was written');

      const rules = { ask: ['bash(git push:*)'], deny: ['bash(rm -rf:*)'], protectedPaths: ['.git/hooks/**', '.git/config', 'secrets/**'] };
      const saved = await call(s, 'POST', '/admin/netaclaw/rules/update', { rules, version: 0 });
      assert.equal(saved.status, 200, saved.text);
      assert.deepEqual(saved.body.data.rules, rules);
      assert.equal(saved.body.data.version, 1);
      const stale = await call(s, 'POST', '/admin/netaclaw/rules/update', { rules: null, version: 0 });
      assert.equal(stale.status, 409, stale.text);
      assert.equal(stale.body.error.code, 'conflict');
      assert.deepEqual(stale.body.error.current.rules, rules);
      const again = await call(s, 'POST', '/admin/netaclaw/rules/update', { rules: { ...rules, deny: [] }, version: 1 });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.version, 2);

      const badAgent = await call(s, 'POST', '/admin/netaclaw/agent/add', {
        name: 'ruled',
        toolsets: ['base'],
        rules: { allow: ['bash(git status)'], protectedPaths: ['x'] },
      });
      assert.equal(badAgent.status, 400, badAgent.text);
      assert.deepEqual(badAgent.body.error.errors, [{ field: 'rules.agent.protectedPaths', code: 'invalid_rule' }]);
      const agent = await addAgent(s, { name: 'ruled', toolsets: ['base'], rules: { allow: ['bash(git status)'], default: 'ask' } });
      const info = await call(s, 'GET', `/admin/netaclaw/agent/info?id=${agent.id}`);
      assert.deepEqual(info.body.data.rules, { allow: ['bash(git status)'], default: 'ask' });

      // "try it": the package's checkRules on the stored levels, each replaced by an unsaved edit when given
      const roots = { workspaceRoots: ['/w'], allowShell: true, readonly: false };
      const stored = { global: { ...rules, deny: [] }, agent: { allow: ['bash(git status)'], default: 'ask' } };
      for (const thing of [
        { command: 'git push origin main' },
        { command: 'git status' },
        { command: 'ls' },
        { write: '/w/secrets/key' },
        { write: '/w/.git/hooks/pre-commit' },
        { read: '/w/README.md' },
      ]) {
        const r = await call(s, 'POST', '/admin/netaclaw/rules/try', { agentId: agent.id, policy: roots, ...thing });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body.data, policy.checkRules({ rules: stored, policy: roots, ...thing }), JSON.stringify(thing));
      }
      const edited = await call(s, 'POST', '/admin/netaclaw/rules/try', { agentId: agent.id, rules: { agent: { deny: ['bash(ls:*)'] } }, command: 'ls -la' });
      assert.equal(edited.body.data.decision, 'deny', edited.text);
      assert.equal(edited.body.data.rule.source, 'rules.agent.deny[0]');
      const two = await call(s, 'POST', '/admin/netaclaw/rules/try', { command: 'ls', tool: 'grep' });
      assert.equal(two.status, 400, two.text);
      assert.equal(two.body.error.code, 'invalid_input');
    });
  });

  test('net rules: saved at the global and agent levels, a malformed one refused by its path, "try it" answering for a host as the package does', async () => {
    const db = await backend.fresh();
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const bad = await call(s, 'POST', '/admin/netaclaw/rules/update', { rules: { allow: ['net(registry.npmjs.org:443)', 'net(ex*.org)'] } });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error.code, 'invalid_input');
      assert.deepEqual(bad.body.error.errors, [{ field: 'rules.global.allow[1]', code: 'invalid_rule' }]);
      const badAgent = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'netty', toolsets: ['base'], rules: { deny: ['net(::1)'] } });
      assert.equal(badAgent.status, 400, badAgent.text);
      assert.deepEqual(badAgent.body.error.errors, [{ field: 'rules.agent.deny[0]', code: 'invalid_rule' }]);

      const global = { allow: ['net(registry.npmjs.org:443)', 'net(*.github.com)'], ask: ['net(uploads.github.com)'], deny: ['net(127.0.0.1)'] };
      const saved = await call(s, 'POST', '/admin/netaclaw/rules/update', { rules: global });
      assert.equal(saved.status, 200, saved.text);
      const agent = await addAgent(s, {
        name: 'netty',
        toolsets: ['base'],
        rules: { allow: ['net(pypi.org)', 'net(127.0.0.1:8080)'], deny: ['net(*.npmjs.org)'] },
      });
      const stored = { global, agent: { allow: ['net(pypi.org)', 'net(127.0.0.1:8080)'], deny: ['net(*.npmjs.org)'] } };
      const seen = {};
      for (const net of ['api.github.com', 'uploads.github.com:443', 'registry.npmjs.org:443', 'pypi.org:8443', '127.0.0.1:8080', 'example.org', '[::1]:443']) {
        const r = await call(s, 'POST', '/admin/netaclaw/rules/try', { agentId: agent.id, net });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body.data, policy.checkRules({ rules: stored, net }), net);
        seen[net] = [r.body.data.decision, r.body.data.rule.source];
      }
      assert.deepEqual(seen, {
        'api.github.com': ['allow', 'rules.global.allow[1]'],
        'uploads.github.com:443': ['ask', 'rules.global.ask[0]'],
        'registry.npmjs.org:443': ['deny', 'rules.agent.deny[0]'],
        'pypi.org:8443': ['allow', 'rules.agent.allow[0]'],
        '127.0.0.1:8080': ['deny', 'rules.global.deny[0]'],
        'example.org': ['deny', null],
        '[::1]:443': ['deny', null],
      });
      const unsaved = await call(s, 'POST', '/admin/netaclaw/rules/try', { agentId: agent.id, rules: { agent: null }, net: 'registry.npmjs.org' });
      assert.deepEqual([unsaved.body.data.decision, unsaved.body.data.rule.source], ['allow', 'rules.global.allow[0]'], unsaved.text);
      const badHost = await call(s, 'POST', '/admin/netaclaw/rules/try', { net: '2130706433' });
      assert.equal(badHost.status, 400, badHost.text);
      assert.equal(badHost.body.error.code, 'invalid_input');
      assert.match(badHost.body.error.message, /^net: /);
      const two = await call(s, 'POST', '/admin/netaclaw/rules/try', { net: 'example.org', tool: 'grep' });
      assert.equal(two.status, 400, two.text);

      // a crew member's own net allow does not reach a host the agent that delegated to it cannot reach
      model.reset();
      const lead = await addAgent(s, { name: 'lead', toolsets: ['base'], rules: { allow: ['net(pypi.org)'] } });
      model.push({ content: 'hello' });
      const turn = await chat(s, { agentId: lead.id, message: 'hi' });
      assert.equal(turn.status, 200, turn.text);
      const asMember = async net =>
        (await call(s, 'POST', '/admin/netaclaw/rules/try', { agentId: agent.id, sessionId: turn.body.data.sessionId, rules: { global: null }, net })).body
          .data;
      assert.deepEqual([(await asMember('pypi.org')).decision, (await asMember('pypi.org')).rule.source], ['allow', 'rules.agent.allow[0]']);
      assert.deepEqual([(await asMember('127.0.0.1:8080')).decision, (await asMember('127.0.0.1:8080')).reason], ['deny', 'host_not_allowed']);
    });
  });

  test('a chat turn obeys the rules: git status runs, git push and $(…) ask, .git/hooks and .env stay closed', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir('netaclaw-rules-');
    execFileSync('git', ['init', '-q', '-b', 'main', work]);
    fs.writeFileSync(path.join(work, '.env'), 'API_KEY=hunter2\n');
    giveToSandbox(work);
    await withServer({ ...db.env, ...modelEnv(model) }, async s => {
      const saved = await call(s, 'POST', '/admin/netaclaw/rules/update', {
        rules: { default: 'ask', allow: ['bash(git status)', 'write_file', 'read_file'] },
      });
      assert.equal(saved.status, 200, saved.text);
      const agent = await addAgent(s, { name: 'careful', toolsets: ['base'], rules: { deny: ['read(**/.env*)'] } });
      const calls = [
        { id: 'c1', name: 'bash', arguments: { command: 'git status' } },
        { id: 'c2', name: 'bash', arguments: { command: 'git push origin main' } },
        { id: 'c3', name: 'bash', arguments: { command: 'echo $(id -u)' } },
        { id: 'c4', name: 'write_file', arguments: { path: '.git/hooks/pre-commit', content: '#!/bin/sh\necho owned\n' } },
        { id: 'c5', name: 'bash', arguments: { command: "bash -c 'echo x > .git/hooks/pre-commit'" } },
        { id: 'c6', name: 'read_file', arguments: { path: '.env' } },
        { id: 'c7', name: 'write_file', arguments: { path: 'notes.txt', content: 'kept\n' } },
      ];
      model.push({ toolCalls: calls }, { content: 'done' });
      const r = await chat(s, { agentId: agent.id, message: 'go', sessionCwd: work, shellPermitted: true, writePermitted: true });
      assert.equal(r.status, 200, r.text);
      const byId = new Map(r.body.data.toolCalls.map(c => [c.id, c]));
      const show = id => JSON.stringify(byId.get(id));
      assert.equal(byId.get('c1').ok, true, show('c1'));
      assert.match(byId.get('c1').output, /On branch main|No commits yet/, show('c1'));
      // the first call a rule asks about stops the turn for the user; a second one of the same answer is
      // refused (one approval at a time)
      assert.equal(r.body.data.stopReason, 'approval');
      assert.equal(r.body.data.approval.callId, 'c2');
      assert.deepEqual([byId.get('c2').decision, byId.get('c2').ok], ['ask', false], show('c2'));
      assert.match(byId.get('c2').detail, /git push origin main/, show('c2'));
      assert.deepEqual([byId.get('c3').decision, byId.get('c3').reason, byId.get('c3').ok], ['denied', 'approval_required', false], show('c3'));
      const denied = await call(s, 'POST', '/api/netaclaw/approval/answer', { id: r.body.data.approval.id, answer: 'deny' });
      assert.equal(denied.status, 200, denied.text);
      assert.equal(denied.body.data.reply, 'done');
      for (const id of ['c4', 'c5', 'c6']) {
        assert.deepEqual([byId.get(id).decision, byId.get(id).reason, byId.get(id).ok], ['denied', 'denied_by_rule', false], show(id));
      }
      assert.equal(byId.get('c7').ok, true, show('c7'));
      assert.equal(fs.readFileSync(path.join(work, 'notes.txt'), 'utf8'), 'kept\n');
      assert.equal(fs.existsSync(path.join(work, '.git', 'hooks', 'pre-commit')), false, 'no hook was written');
      // the model read each denial as its call's result, the rule named
      const results = model.requests.at(-1).body.messages.filter(m => m.role === 'tool');
      assert.match(results.find(m => m.tool_call_id === 'c6').content, /read\(\*\*\/\.env\*\)/);
      assert.doesNotMatch(JSON.stringify(results), /hunter2/);
    });
  });

  test('a crew member never gets what the agent that delegated to it denies or asks about', async () => {
    model.reset();
    const db = await backend.fresh();
    const work = tmpDir('netaclaw-rules-crew-');
    // nobody answers the member's approval here: it is denied approval_required after a second
    await withServer({ ...db.env, ...modelEnv(model), NETACLAW_APPROVAL_WAIT_SECONDS: '1' }, async s => {
      // the member's own rules would allow everything; the lead denies one command and asks about another
      const member = await addAgent(s, { name: 'member', toolsets: ['base'], rules: { default: 'allow', allow: ['bash(echo lead-denied:*)'] } });
      const lead = await addAgent(s, {
        name: 'lead',
        crewRole: 'master',
        toolsets: ['base', 'delegation'],
        crewMembers: [member.id],
        rules: { deny: ['bash(echo lead-denied:*)'], ask: ['bash(echo lead-asks:*)'] },
      });
      const task = 'Run the three echoes.';
      const isSub = body => body.messages.some(m => m.role === 'user' && m.content === task);
      model.push(
        { when: b => !isSub(b), toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { task, agent: 'member' } }] },
        {
          when: isSub,
          toolCalls: [
            { id: 's1', name: 'bash', arguments: { command: 'echo lead-denied x' } },
            { id: 's2', name: 'bash', arguments: { command: 'echo lead-asks y' } },
            { id: 's3', name: 'bash', arguments: { command: 'echo fine z' } },
          ],
        },
        { when: isSub, content: 'ran' },
        { when: b => !isSub(b), content: 'done' }
      );
      const r = await chat(s, { agentId: lead.id, message: 'go', sessionCwd: work, shellPermitted: true });
      assert.equal(r.status, 200, r.text);
      const batch = (await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${r.body.data.batchIds[0]}`)).body.data;
      assert.equal(batch.agentId, member.id);
      const byName = new Map(batch.calls.map(c => [c.arguments.command, c]));
      const show = c => JSON.stringify(byName.get(c));
      assert.deepEqual(
        [byName.get('echo lead-denied x').decision, byName.get('echo lead-denied x').reason],
        ['denied', 'denied_by_rule'],
        show('echo lead-denied x')
      );
      assert.deepEqual(
        [byName.get('echo lead-asks y').decision, byName.get('echo lead-asks y').reason],
        ['denied', 'approval_required'],
        show('echo lead-asks y')
      );
      assert.equal(byName.get('echo fine z').ok, true, show('echo fine z'));
      assert.match(byName.get('echo fine z').output, /fine z/);
    });
  });
}

runOnEveryBackend(defineTests);
