'use strict';
/**
 * the batch runner (BatchRunner) as the executor uses it (start / call / finish / kill / events, runMainTool), inside a
 * real backend started in this process on SQLite, so that a test can hand it a hostile worker program.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { bootInProcess } = require('./support/inprocess');
const { workspace, FIXTURE_WORKER } = require('./support/runtime');

let app;
let svc;
let agents;
let dataDir;
let db;

before(async () => {
  app = await bootInProcess('netaclaw-svc-');
  ({ svc, agents, dataDir, db } = app);
});

after(() => app.stop());

async function rows(sql, params = []) {
  return db.query(sql, params);
}

describe("BatchRunner (the executor's API)", () => {
  let ws;
  let agentId;
  before(async () => {
    ws = workspace();
    agentId = (await agents.add({ name: 'svc', toolsets: ['base', 'planning', 'memory'], memoryEnabled: true })).id;
  });
  after(() => ws.cleanup());

  test('start → call → finish; events: past ones first, then live ones, then done', async () => {
    const h = await svc.start({ agentId, crewRole: 'sub', driver: 'model', sessionId: 's-1', sessionCwd: ws.root, writePermitted: true });
    assert.deepEqual(h.policy, { workspaceRoots: [ws.root], allowShell: false, readonly: false });
    assert.ok(h.routes.some(r => r.name === 'write_file' && r.route === 'main-process-proxy'));
    const first = await h.call('read_file', { path: 'a.txt' });
    assert.equal(first.seq, 1);
    assert.equal(first.decision, 'worker-local');
    const seen = [];
    const unsubscribe = h.events.subscribe(e => seen.push(e));
    assert.deepEqual(
      seen.map(e => e.type),
      ['batch', 'call', 'result'],
      'past events first'
    );
    const second = await h.call('write_file', { path: 'svc.txt', content: 'from the executor' });
    assert.equal(second.decision, 'main-process-proxy');
    assert.equal(second.ok, true, second.error);
    const record = await h.finish();
    unsubscribe();
    assert.equal(record.status, 'completed');
    assert.equal(record.driver, 'model');
    assert.equal(record.sessionId, 's-1');
    assert.deepEqual(
      record.calls.map(c => [c.seq, c.name, c.ok]),
      [
        [1, 'read_file', true],
        [2, 'write_file', true],
      ]
    );
    assert.deepEqual(
      seen.map(e => e.type),
      ['batch', 'call', 'result', 'call', 'proxy', 'result', 'done']
    );
    assert.equal(seen.at(-1).data.status, 'completed');
    await assert.rejects(h.call('read_file', { path: 'a.txt' }), /batch ended \(completed\)/);
    fs.rmSync(path.join(ws.root, 'svc.txt'));
  });

  test("a hostile worker's forged proxy is denied, stored as a call row and sent as proxy-denied", async () => {
    const h = await svc.start({ agentId, crewRole: 'sub', driver: 'calls', sessionCwd: ws.root }, { workerModule: FIXTURE_WORKER });
    const events = [];
    h.events.subscribe(e => events.push(e));
    // armed: the fixture sends the next call back as a proxy request, whatever the routes say
    assert.equal((await h.call('x', { act: 'arm', plan: {} })).output, 'armed');
    const r = await h.call('write_file', { path: 'forged.txt', content: 'x' });
    assert.equal(r.decision, 'denied');
    assert.equal(r.reason, 'write_blocked_by_readonly_policy');
    const record = await h.finish();
    assert.ok(!fs.existsSync(path.join(ws.root, 'forged.txt')));
    const denied = events.filter(e => e.type === 'proxy-denied');
    assert.equal(denied.length, 1);
    assert.equal(denied[0].data.reason, 'write_blocked_by_readonly_policy');
    const stored = await rows('SELECT seq, name, decision, reason, ok FROM netaclaw_tool_call WHERE batchId = ? ORDER BY id', [h.id]);
    assert.deepEqual(
      stored.map(x => [x.seq, x.name, x.decision, x.reason, !!x.ok]),
      [
        [1, 'x', 'worker-local', null, true],
        [2, 'write_file', 'denied', 'write_blocked_by_readonly_policy', false],
        [2, 'write_file', 'denied', 'write_blocked_by_readonly_policy', false],
      ]
    );
    assert.equal(record.calls.length, 3, 'the arming call, the attempt and the call the worker answered');
  });

  test('kill(reason): killed with the reason, finished calls kept, later calls rejected', async () => {
    const h = await svc.start({ agentId, crewRole: 'sub', driver: 'calls', sessionCwd: ws.root }, { workerModule: FIXTURE_WORKER });
    assert.equal((await h.call('x', { act: 'fine' })).ok, true);
    const hanging = h.call('x', { act: 'hang' });
    const record = await h.kill('stopped by the executor');
    assert.equal(record.status, 'killed');
    assert.equal(record.error, 'stopped by the executor');
    assert.ok(record.endTime);
    assert.deepEqual(
      record.calls.map(c => c.seq),
      [1]
    );
    await assert.rejects(hanging, /batch ended \(killed\)/);
  });

  test('parent bounds the policy (the package narrows it)', async () => {
    const parent = { workspaceRoots: [ws.root], allowShell: false, readonly: true };
    const h = await svc.start({
      agentId,
      crewRole: 'sub',
      driver: 'calls',
      sessionCwd: ws.root,
      workspaceRoots: [ws.outside],
      shellPermitted: true,
      writePermitted: true,
      parent,
    });
    assert.deepEqual(h.policy, { workspaceRoots: [ws.root], allowShell: false, readonly: true });
    const r = await h.call('read_file', { path: ws.secret });
    assert.equal(r.reason, 'path_outside_workspace');
    await h.finish();
  });

  test('a spec from the executor is checked by the same DTO as an admin run: 400 naming the field, no batch stored', async () => {
    const count = async () => (await rows('SELECT COUNT(*) AS n FROM netaclaw_subagent_batch'))[0].n;
    const before = await count();
    const base = { agentId, crewRole: 'sub', driver: 'model', sessionCwd: ws.root };
    for (const [spec, message] of [
      [{ ...base, agentId: undefined }, /^agentId is required$/],
      [{ ...base, sessionId: '' }, /^sessionId must be a string or number of 1 to 64 characters$/],
      [{ ...base, sessionId: 'x'.repeat(65) }, /^sessionId must be a string or number of 1 to 64 characters$/],
      [{ ...base, sessionCwd: '/' + 'd'.repeat(4096) }, /^sessionCwd must be at most 4096 characters$/],
      [{ ...base, workspaceRoots: [ws.root, 7] }, /^workspaceRoots\[1\] must be a string$/],
      [{ ...base, timeoutMs: 600001 }, /^timeoutMs must be an integer between 1 and 600000$/],
      [{ ...base, parent: { workspaceRoots: [ws.root], allowShell: 'no', readonly: true } }, /^parent\.allowShell must be a boolean$/],
      [{ ...base, parent: { workspaceRoots: [ws.root], allowShell: false } }, /^parent\.readonly is required$/],
      [{ ...base, driver: 'human' }, /^driver must be model or calls/],
    ]) {
      await assert.rejects(svc.start(spec), err => {
        assert.equal(err.code, 'invalid_input', `${JSON.stringify(spec).slice(0, 100)}: ${err.stack}`);
        assert.equal(err.status, 400);
        assert.match(err.message, message);
        return true;
      });
    }
    assert.equal(await count(), before, 'no batch stored');
  });

  test("runMainTool: the main agent's calls, recorded with the session, seq per session", async () => {
    const policy = require('@netaclaw/tool-policy');
    const d = policy.runtimeDiagnostic({
      agent: { toolsets: ['base', 'planning', 'memory'] },
      memoryEnabled: true,
      crewRole: 'master',
      sessionCwd: ws.root,
      shellPermitted: true,
      writePermitted: true,
    });
    const base = { agentId, sessionId: 'main-7', policy: d.policy, routes: d.routes };
    const a = await svc.runMainTool({ ...base, name: 'memory_save', args: { content: 'remember the main agent' } });
    assert.equal(a.ok, true, a.error);
    const b = await svc.runMainTool({ ...base, name: 'memory_recall', args: { query: 'main agent' } });
    assert.match(b.output, /remember the main agent/);
    const c = await svc.runMainTool({ ...base, name: 'bash', args: { command: `cat ${ws.secret}` } });
    assert.equal(c.decision, 'worker-local');
    assert.equal(c.ok, false, 'bash of the main agent runs in the sandbox');
    const e = await svc.runMainTool({ ...base, name: 'read_file', args: { path: 'esc' } });
    assert.equal(e.reason, 'path_outside_workspace');
    assert.deepEqual([a.seq, b.seq, c.seq, e.seq], [1, 2, 3, 4]);
    const other = await svc.runMainTool({ ...base, sessionId: 'main-8', name: 'list_dir', args: {} });
    assert.equal(other.seq, 1);
    const stored = await rows("SELECT seq, name, batchId FROM netaclaw_tool_call WHERE sessionId = 'main-7' ORDER BY seq");
    assert.deepEqual(
      stored.map(x => [x.seq, x.name, x.batchId]),
      [
        [1, 'memory_save', null],
        [2, 'memory_recall', null],
        [3, 'bash', null],
        [4, 'read_file', null],
      ]
    );
    const mem = await rows('SELECT content FROM netaclaw_memory WHERE agentId = ?', [agentId]);
    assert.deepEqual(
      mem.map(m => m.content),
      ['remember the main agent']
    );
    await assert.rejects(svc.runMainTool({ ...base, policy: { workspaceRoots: 'x' }, name: 'list_dir', args: {} }), /policy\.workspaceRoots must be an array/);
  });

  test('openSessionTools: one worker for the turn; a fault fails the call and the next starts a new worker; a forged proxy and a cancelled call are recorded', async () => {
    const policy = require('@netaclaw/tool-policy');
    const d = policy.runtimeDiagnostic({ agent: { toolsets: ['base'] }, crewRole: 'master', sessionCwd: ws.root, writePermitted: true });
    const turn = new AbortController();
    const tools = svc.openSessionTools({
      agentId,
      sessionId: 'turn-1',
      policy: d.policy,
      routes: d.routes,
      signal: turn.signal,
      test: { workerModule: FIXTURE_WORKER },
    });
    const { descendants, withText } = require('./support/processes');
    const workers = () => {
      const mine = new Set(descendants().map(p => p.pid));
      // the worker's Node process itself, not the bwrap processes around it
      return withText('hostile-worker.js').filter(p => mine.has(p.pid) && p.comm !== 'bwrap').length;
    };
    assert.equal(workers(), 0, 'no worker before the first call');
    const first = await tools.call('list_dir', {});
    assert.deepEqual([first.ok, first.output, first.seq], [true, 'fine', 1]);
    await tools.call('list_dir', {});
    assert.equal(workers(), 1, 'one worker serves the calls of the turn');
    const crash = await tools.call('list_dir', { act: 'crash' });
    assert.equal(crash.ok, false);
    assert.match(crash.error, /^the tool worker stopped: worker exited unexpectedly/);
    const after = await tools.call('list_dir', {});
    assert.deepEqual([after.ok, after.output], [true, 'fine'], 'the next call started a new worker');
    // a proxy request for another call: denied by L4, and stored with the session
    const forged = await tools.call('list_dir', { act: 'forge', seq: 999, name: 'write_file', arguments: { path: 'forged.txt', content: 'x' } });
    assert.equal(forged.decision, 'denied');
    assert.ok(!fs.existsSync(path.join(ws.root, 'forged.txt')));
    // a cancelled turn kills the worker: the call in progress ends, recorded, and the caller is told
    setTimeout(() => turn.abort(), 300);
    await assert.rejects(tools.call('list_dir', { act: 'hang' }), /cancelled/);
    await tools.close();
    for (let i = 0; i < 50 && workers() > 0; i++) await new Promise(resolve => setTimeout(resolve, 50));
    assert.equal(workers(), 0, 'no worker left');
    await assert.rejects(tools.call('list_dir', {}), /cancelled|turn is over/);
    const stored = await rows("SELECT seq, name, decision, ok, error FROM netaclaw_tool_call WHERE sessionId = 'turn-1' AND batchId IS NULL ORDER BY seq");
    assert.deepEqual(
      stored.map(x => [x.seq, x.name, x.decision, !!x.ok]),
      [
        [1, 'list_dir', 'worker-local', true],
        [2, 'list_dir', 'worker-local', true],
        [3, 'list_dir', 'denied', false],
        [4, 'list_dir', 'worker-local', true],
        [5, 'write_file', 'denied', false],
        [6, 'list_dir', 'denied', false],
        [7, 'list_dir', 'denied', false],
      ]
    );
    assert.match(stored[6].error, /the tool worker stopped: the turn was cancelled/);
  });

  test('runMainTool: skill tools act only on the skills bound to the agent, read at each call', async () => {
    const policy = require('@netaclaw/tool-policy');
    const d = policy.runtimeDiagnostic({
      agent: { toolsets: ['base', 'skills'] },
      hasSkills: true,
      crewRole: 'master',
      sessionCwd: ws.root,
      writePermitted: true,
    });
    const id = (await agents.add({ name: 'skilled', toolsets: ['base', 'skills'] })).id;
    const base = { agentId: id, sessionId: 'skills-1', policy: d.policy, routes: d.routes };
    const unbound = await svc.runMainTool({ ...base, name: 'read_skill', args: { name: 'nobody-here' } });
    assert.equal(unbound.decision, 'main-process-proxy');
    assert.equal(unbound.ok, false);
    assert.equal(unbound.error, 'skill "nobody-here" is not bound to this agent (bound skills: none)');
    const create = await svc.runMainTool({ ...base, name: 'skill_manage', args: { name: 'nobody-here', action: 'create', content: '# x' } });
    assert.match(create.error, /is not bound to this agent/);
    assert.ok(!fs.existsSync(path.join(dataDir, 'skills', 'nobody-here')));
    // an agent binds installed skills only (agent update checks the skills folder): installed, then bound
    fs.mkdirSync(path.join(dataDir, 'skills', 'nobody-here'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'skills', 'nobody-here', 'SKILL.md'), '# installed\n');
    await agents.update({ id, skills: ['nobody-here'] });
    const made = await svc.runMainTool({ ...base, name: 'skill_manage', args: { name: 'nobody-here', action: 'update', content: '# bound now\n' } });
    assert.equal(made.ok, true, made.error);
    const read = await svc.runMainTool({ ...base, name: 'read_skill', args: { name: 'nobody-here' } });
    assert.equal(read.output, '# bound now\n');
    const gone = await svc.runMainTool({ ...base, agentId: 987654, name: 'read_skill', args: { name: 'nobody-here' } });
    assert.equal(gone.ok, false);
    assert.match(gone.error, /no agent with id 987654/);
  });
});
