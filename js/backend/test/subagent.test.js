'use strict';
/**
 * The sub-agent batch endpoints against the started backend, on SQLite and on a private MariaDB:
 * real workers, real bwrap, real files in temp folders.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { withServer, call, TOKEN, NO_SANDBOX, NO_BUS } = require('./support/server');
const { storageBackends } = require('./support/suites');
const { workspace } = require('./support/runtime');

async function addAgent(s, extra = {}) {
  const r = await call(s, 'POST', '/admin/netaclaw/agent/add', {
    name: 'worker-agent',
    toolsets: ['base', 'planning', 'memory', 'skills', 'delegation'],
    memoryEnabled: true,
    ...extra,
  });
  assert.equal(r.status, 200, r.text);
  return r.body.data.id;
}

/** Reads a Server-Sent Events stream to its end: [{ event, data }]. */
async function readEvents(server, id) {
  const res = await fetch(`${server.url}/admin/netaclaw/subagent/events?id=${id}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const text = await res.text();
  return text
    .split('\n\n')
    .filter(b => b.trim() !== '')
    .map(block => {
      const event = /^event: (.*)$/m.exec(block)[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)[1]);
      return { event, data };
    });
}

const byName = calls => Object.fromEntries(calls.map(c => [c.name + '#' + c.seq, c]));

function defineSuite(label, makeBackend) {
  describe(label, () => {
    let backend;
    let ws;
    before(async () => {
      backend = await makeBackend();
      ws = workspace();
    });
    after(async () => {
      if (backend) await backend.stop();
      ws.cleanup();
    });

    test('run: local and proxied calls, denials with their reasons; stored, listed, replayed', async () => {
      const db = await backend.fresh();
      const skills = path.join(ws.base, 'skills');
      fs.mkdirSync(path.join(skills, 'hello'), { recursive: true });
      fs.writeFileSync(path.join(skills, 'hello', 'SKILL.md'), '# hello\nGreets.\n');
      fs.writeFileSync(path.join(skills, 'hello', 'greet.sh'), 'echo "hello $1"; cat a.txt | head -1\n');
      fs.mkdirSync(path.join(skills, 'unbound'), { recursive: true });
      fs.writeFileSync(path.join(skills, 'unbound', 'SKILL.md'), "# not this agent's\n");
      await withServer({ ...db.env, NETACLAW_SKILLS_DIR: skills }, async s => {
        const agentId = await addAgent(s, { skills: ['hello'] });
        const diff = ['--- a/a.txt', '+++ b/a.txt', '@@ -1,3 +1,3 @@', ' alpha', '-beta', '+BETA', ' gamma', ''].join('\n');
        const calls = [
          { name: 'read_file', arguments: { path: 'a.txt' } },
          { name: 'list_dir', arguments: {} },
          { name: 'grep', arguments: { pattern: 'beta' } },
          { name: 'find_files', arguments: { pattern: '*.md' } },
          { name: 'bash', arguments: { command: 'cat a.txt | wc -l' } },
          { name: 'write_file', arguments: { path: 'out/new.txt', content: 'hello' } },
          { name: 'edit', arguments: { path: 'out/new.txt', oldText: 'hello', newText: 'hello, edited' } },
          { name: 'patch', arguments: { patch: diff } },
          { name: 'memory_save', arguments: { content: 'the sky is blue' } },
          { name: 'memory_recall', arguments: { query: 'sky' } },
          { name: 'todo', arguments: { items: [{ text: 'check', done: true }] } },
          { name: 'read_file', arguments: { path: ws.secret } },
          { name: 'read_file', arguments: { path: '../outside/secret.txt' } },
          { name: 'read_file', arguments: { path: 'esc' } },
          { name: 'no_such_tool', arguments: {} },
          { name: 'delegate_task', arguments: { task: 'x' } },
          { name: 'read_file', arguments: { path: 'a.txt', bogus: 1 } },
          { name: 'read_skill', arguments: { name: 'hello' } },
          { name: 'execute_skill', arguments: { name: 'hello', script: 'greet.sh', args: ['batch'] } },
          { name: 'read_skill_file', arguments: { name: 'hello', path: '../../root/a.txt' } },
          { name: 'read_skill', arguments: { name: 'unbound' } },
          { name: 'skill_manage', arguments: { name: 'unbound', action: 'update', content: 'taken over' } },
          { name: 'skill_manage', arguments: { name: 'fresh', action: 'create', content: '# fresh\n' } },
        ];
        const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId,
          sessionCwd: ws.root,
          shellPermitted: true,
          writePermitted: true,
          calls,
        });
        assert.equal(r.status, 200, r.text);
        const b = r.body.data;
        assert.equal(b.status, 'completed', b.error);
        assert.deepEqual(b.policy, { workspaceRoots: [ws.root], allowShell: true, readonly: false });
        assert.equal(b.calls.length, calls.length);
        const c = byName(b.calls);
        assert.equal(c['read_file#1'].decision, 'worker-local');
        assert.equal(c['read_file#1'].output, 'alpha\nbeta\ngamma');
        assert.equal(c['list_dir#2'].ok, true);
        assert.match(c['grep#3'].output, /a\.txt:2:beta/);
        assert.equal(c['find_files#4'].output, 'sub/b.md');
        assert.equal(c['bash#5'].decision, 'worker-local');
        assert.match(c['bash#5'].output, /^3\n/);
        for (const k of ['write_file#6', 'edit#7', 'patch#8', 'memory_save#9', 'memory_recall#10', 'todo#11']) {
          assert.equal(c[k].decision, 'main-process-proxy', k);
          assert.equal(c[k].ok, true, `${k}: ${c[k].error}`);
        }
        assert.equal(fs.readFileSync(path.join(ws.root, 'out/new.txt'), 'utf8'), 'hello, edited');
        assert.equal(fs.readFileSync(path.join(ws.root, 'a.txt'), 'utf8'), 'alpha\nBETA\ngamma\n');
        assert.match(c['memory_recall#10'].output, /the sky is blue/);
        for (const k of ['read_file#12', 'read_file#13', 'read_file#14']) {
          assert.equal(c[k].decision, 'denied', k);
          assert.equal(c[k].reason, 'path_outside_workspace', k);
          assert.ok(!String(c[k].output ?? '').includes('TOP-SECRET'));
        }
        assert.equal(c['no_such_tool#15'].reason, 'not_selected_for_subagent');
        assert.equal(c['delegate_task#16'].decision, 'denied');
        assert.equal(c['read_file#17'].reason, 'invalid_tool_arguments');
        assert.equal(c['read_skill#18'].decision, 'main-process-proxy');
        assert.equal(c['read_skill#18'].output, '# hello\nGreets.\n');
        assert.equal(c['execute_skill#19'].ok, true, c['execute_skill#19'].error);
        assert.match(c['execute_skill#19'].output, /^hello batch\nalpha\n/);
        assert.equal(c['read_skill_file#20'].decision, 'denied');
        assert.equal(c['read_skill_file#20'].reason, 'invalid_tool_arguments');
        for (const k of ['read_skill#21', 'skill_manage#22', 'skill_manage#23']) {
          assert.equal(c[k].decision, 'main-process-proxy', k);
          assert.equal(c[k].ok, false, k);
          assert.match(c[k].error, /is not bound to this agent \(bound skills: "hello"\)/, k);
        }
        assert.equal(fs.readFileSync(path.join(skills, 'unbound', 'SKILL.md'), 'utf8'), "# not this agent's\n");
        assert.ok(!fs.existsSync(path.join(skills, 'fresh')));
        fs.writeFileSync(path.join(ws.root, 'a.txt'), 'alpha\nbeta\ngamma\n');
        fs.rmSync(path.join(ws.root, 'out'), { recursive: true, force: true });

        // stored: exactly what was answered
        const info = await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${b.id}`);
        assert.equal(info.status, 200, info.text);
        assert.equal(info.body.data.status, 'completed');
        assert.deepEqual(
          info.body.data.calls.map(x => [x.seq, x.name, x.decision, x.reason, x.ok]),
          b.calls.map(x => [x.seq, x.name, x.decision, x.reason, x.ok])
        );
        assert.deepEqual(info.body.data.calls[0].arguments, { path: 'a.txt' });
        assert.ok(info.body.data.endTime);
        const rows = await db.sql('SELECT * FROM netaclaw_tool_call WHERE batchId = ? ORDER BY seq', [b.id]);
        assert.equal(rows.length, calls.length);
        const mem = await db.sql('SELECT * FROM netaclaw_memory WHERE agentId = ?', [agentId]);
        assert.equal(mem.length, 1);
        assert.equal(mem[0].content, 'the sky is blue');

        const page = await call(s, 'GET', `/admin/netaclaw/subagent/page?agentId=${agentId}&page=1&size=10`);
        assert.equal(page.status, 200, page.text);
        assert.equal(page.body.data.total, 1);
        assert.equal(page.body.data.list[0].id, b.id);
        assert.equal(page.body.data.list[0].calls, undefined);

        const events = await readEvents(s, b.id);
        assert.equal(events[0].event, 'batch');
        assert.equal(events[0].data.id, b.id);
        assert.equal(events.filter(e => e.event === 'result').length, calls.length);
        assert.deepEqual(events[events.length - 1], { event: 'done', data: { id: b.id, status: 'completed', error: null } });
      });
    });

    test('run: readonly without shell — writes and bash denied with their reasons; the worker is readonly', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const agentId = await addAgent(s);
        const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId,
          sessionCwd: ws.root,
          calls: [
            { name: 'write_file', arguments: { path: 'x.txt', content: 'no' } },
            { name: 'bash', arguments: { command: 'touch y.txt' } },
            { name: 'read_file', arguments: { path: 'a.txt' } },
          ],
        });
        assert.equal(r.status, 200, r.text);
        const [w, sh, rd] = r.body.data.calls;
        assert.equal(w.decision, 'denied');
        assert.equal(w.reason, 'write_blocked_by_readonly_policy');
        assert.equal(sh.decision, 'denied');
        assert.equal(sh.reason, 'shell_disabled_by_policy');
        assert.equal(rd.ok, true);
        assert.ok(!fs.existsSync(path.join(ws.root, 'x.txt')));
        assert.ok(!fs.existsSync(path.join(ws.root, 'y.txt')));
        assert.deepEqual(r.body.data.policy, { workspaceRoots: [ws.root], allowShell: false, readonly: true });
        const routes = Object.fromEntries(r.body.data.routes.map(x => [x.name, x]));
        assert.equal(routes.write_file.route, 'disabled');
      });
    });

    test('a batch past timeoutMs is killed with its finished calls; the server keeps answering', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const agentId = await addAgent(s);
        const t0 = Date.now();
        const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId,
          sessionCwd: ws.root,
          shellPermitted: true,
          timeoutMs: 5000,
          calls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'bash', arguments: { command: 'sleep 60', timeoutMs: 120000 } },
            { name: 'read_file', arguments: { path: 'a.txt' } },
          ],
        });
        assert.equal(r.status, 200, r.text);
        assert.ok(Date.now() - t0 < 30000);
        assert.equal(r.body.data.status, 'killed');
        assert.match(r.body.data.error, /time limit of 5000 ms/);
        assert.deepEqual(
          r.body.data.calls.map(c => c.name),
          ['read_file']
        );
        const h = await call(s, 'GET', '/health', undefined, { token: null });
        assert.equal(h.status, 200);
        const again = await call(s, 'POST', '/admin/netaclaw/subagent/run', { agentId, sessionCwd: ws.root, calls: [{ name: 'list_dir', arguments: {} }] });
        assert.equal(again.body.data.status, 'completed');
      });
    });

    test('events: a running batch streams its past events, then live ones until done', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const agentId = await addAgent(s);
        const running = call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId,
          sessionCwd: ws.root,
          shellPermitted: true,
          calls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'bash', arguments: { command: 'sleep 4; echo slept' } },
            { name: 'list_dir', arguments: {} },
          ],
        });
        let id;
        for (let i = 0; i < 100 && id === undefined; i++) {
          const p = await call(s, 'GET', `/admin/netaclaw/subagent/page?agentId=${agentId}`);
          if (p.body.data.list.length) id = p.body.data.list[0].id;
          else await new Promise(r => setTimeout(r, 50));
        }
        assert.ok(id, 'the batch is listed while it runs');
        const info = await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${id}`);
        assert.equal(info.body.data.status, 'running');
        const events = await readEvents(s, id);
        const done = await running;
        assert.equal(done.body.data.status, 'completed');
        const kinds = events.map(e => e.event);
        assert.equal(kinds[0], 'batch');
        assert.equal(kinds[kinds.length - 1], 'done');
        assert.deepEqual(
          events.filter(e => e.event === 'result').map(e => e.data.name),
          ['read_file', 'bash', 'list_dir']
        );
        assert.deepEqual(
          events.filter(e => e.event === 'call').map(e => e.data.seq),
          [1, 2, 3]
        );
        assert.match(events.find(e => e.event === 'result' && e.data.name === 'bash').data.output, /slept/);
      });
    });

    test('stored arguments are cut at 64 KiB; outputs too; null arguments are kept as null', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const agentId = await addAgent(s);
        const big = 'x'.repeat(100000);
        fs.writeFileSync(path.join(ws.root, 'big.txt'), 'y'.repeat(200000));
        const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId,
          sessionCwd: ws.root,
          writePermitted: true,
          calls: [
            { name: 'write_file', arguments: { path: 'big-written.txt', content: big } },
            { name: 'read_file', arguments: { path: 'big.txt' } },
            { name: 'list_dir', arguments: null },
          ],
        });
        assert.equal(r.status, 200, r.text);
        const [w, rd, ls] = r.body.data.calls;
        assert.equal(w.ok, true, w.error);
        assert.equal(fs.readFileSync(path.join(ws.root, 'big-written.txt'), 'utf8'), big, 'the call itself got everything');
        assert.equal(w.arguments.truncated, true);
        assert.ok(w.arguments.bytes > 100000);
        assert.ok(Buffer.byteLength(w.arguments.head) <= 65536);
        assert.ok(Buffer.byteLength(rd.output) <= 65536);
        assert.match(rd.output, /\[output cut: 200000 bytes/);
        assert.equal(ls.arguments, null);
        const info = await call(s, 'GET', `/admin/netaclaw/subagent/info?id=${r.body.data.id}`);
        assert.deepEqual(
          info.body.data.calls.map(c => [c.seq, c.ok]),
          [
            [1, true],
            [2, true],
            [3, ls.ok],
          ]
        );
        assert.equal(info.body.data.calls[1].output, rd.output);
        fs.rmSync(path.join(ws.root, 'big.txt'));
        fs.rmSync(path.join(ws.root, 'big-written.txt'));
      });
    });

    test('bad input: 400 naming the field, 404 for unknowns, nothing stored', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const agentId = await addAgent(s);
        const cases = [
          [{ calls: [] }, /agentId is required/],
          [{ agentId, calls: 'x' }, /calls must be an array/],
          [{ agentId }, /calls is required/],
          [{ agentId, calls: [{ arguments: {} }] }, /calls\[0\]\.name must be a non-empty string/],
          [{ agentId, calls: [7] }, /calls\[0\] must be a JSON object/],
          [{ agentId, calls: [{ name: 'x', extra: 1 }] }, /calls\[0\]\.extra is not a call field/],
          [{ agentId, calls: [], timeoutMs: 0 }, /timeoutMs must be an integer between 1 and 600000/],
          [{ agentId, calls: [], shellPermitted: 'yes' }, /shellPermitted must be a boolean/],
          [{ agentId, calls: [], workspaceRoots: 'x' }, /workspaceRoots must be an array of strings/],
          [{ agentId, calls: [], workspaceRoots: ['relative/dir'] }, /workspaceRoots/],
          [{ agentId, calls: [], crewRole: 'master' }, /crewRole cannot be set/],
          [{ agentId: 'one', calls: [] }, /agentId must be a positive integer/],
        ];
        for (const [body, pattern] of cases) {
          const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', body);
          assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
          assert.equal(r.body.error.code, 'invalid_input');
          assert.match(r.body.error.message, pattern);
        }
        const unknown = await call(s, 'POST', '/admin/netaclaw/subagent/run', { agentId: 99999, calls: [] });
        assert.equal(unknown.status, 404);
        assert.equal((await call(s, 'GET', '/admin/netaclaw/subagent/info')).status, 400);
        assert.equal((await call(s, 'GET', '/admin/netaclaw/subagent/info?id=abc')).status, 400);
        assert.equal((await call(s, 'GET', '/admin/netaclaw/subagent/info?id=4242')).status, 404);
        assert.equal((await call(s, 'GET', '/admin/netaclaw/subagent/events?id=4242')).status, 404);
        assert.equal((await call(s, 'GET', '/admin/netaclaw/subagent/page?size=0')).status, 400);
        assert.equal((await call(s, 'GET', '/admin/netaclaw/subagent/page?size=5000')).status, 400);
        const unauth = await call(s, 'GET', '/admin/netaclaw/subagent/events?id=1', undefined, { token: null });
        assert.equal(unauth.status, 401);
        const page = await call(s, 'GET', '/admin/netaclaw/subagent/page');
        assert.deepEqual(page.body.data, { list: [], total: 0 });
        assert.equal((await db.sql('SELECT COUNT(*) AS n FROM netaclaw_tool_call'))[0].n, 0);
      });
    });

    test('shell sandbox unavailable: /health says so, bash is denied; off is reported', async () => {
      const db = await backend.fresh();
      await withServer({ ...db.env, NETACLAW_BWRAP: '/nonexistent/bwrap' }, async s => {
        const h = await call(s, 'GET', '/health', undefined, { token: null });
        assert.deepEqual(h.body, { data: { status: 'ok', database: 'up', shellSandbox: 'unavailable', sandbox: NO_SANDBOX, bus: NO_BUS } });
        assert.match(s.log(), /WARNING shell sandbox: UNAVAILABLE/);
        const agentId = await addAgent(s);
        const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId,
          sessionCwd: ws.root,
          shellPermitted: true,
          writePermitted: true,
          calls: [{ name: 'bash', arguments: { command: 'touch ran.txt' } }],
        });
        assert.equal(r.body.data.calls[0].decision, 'denied');
        assert.equal(r.body.data.calls[0].reason, 'shell_sandbox_unavailable');
        assert.ok(!fs.existsSync(path.join(ws.root, 'ran.txt')));
      });
      await withServer({ ...db.env, NETACLAW_SHELL_SANDBOX: 'off' }, async s => {
        const h = await call(s, 'GET', '/health', undefined, { token: null });
        assert.deepEqual(h.body, { data: { status: 'ok', database: 'up', shellSandbox: 'off', sandbox: NO_SANDBOX, bus: NO_BUS } });
        assert.match(s.log(), /WARNING shell sandbox: OFF/);
      });
    });

    test('batches left running by a stopped backend are failed at the next start', async () => {
      const db = await backend.fresh();
      let agentId;
      await withServer(db.env, async s => {
        agentId = await addAgent(s);
      });
      await db.sql(
        'INSERT INTO netaclaw_subagent_batch (agentId, crewRole, workspaceRoots, shellPermitted, writePermitted, policy, routes, driver, status, createTime) ' +
          "VALUES (?, 'sub', '[]', 0, 0, '{}', '[]', 'calls', 'running', '2024-01-01 00:00:00')",
        [agentId]
      );
      await withServer(db.env, async s => {
        assert.match(s.log(), /1 batch\(es\) left running by a previous start marked failed/);
        const p = await call(s, 'GET', '/admin/netaclaw/subagent/page');
        assert.equal(p.body.data.list[0].status, 'failed');
        assert.match(p.body.data.list[0].error, /backend stopped/);
      });
    });
  });
}

for (const [label, makeBackend] of storageBackends()) defineSuite(`subagent · ${label}`, makeBackend);
