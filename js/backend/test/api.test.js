'use strict';
/**
 * HTTP tests against the started backend (node bootstrap.js), run once on SQLite and once on a private
 * MariaDB server (when mariadbd is installed; loud notice otherwise, and a failure with
 * REQUIRE_MARIADB=1).
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startServer, withServer, call, installSkill, TOKEN, sandboxHealth, NO_BUS } = require('./support/server');
const { storageBackends, describeWithBackend } = require('./support/suites');
const policy = require('@netaclaw/tool-policy');

const CATALOG = policy.builtinCatalog().map(t => t.name);

/** The whole table, as stored, for exact before/after comparisons. */
async function snapshot(db) {
  return db.sql('SELECT * FROM netaclaw_tool ORDER BY id');
}

async function rowsByName(server) {
  const r = await call(server, 'GET', '/admin/netaclaw/tool/all');
  assert.equal(r.status, 200, r.text);
  return Object.fromEntries(r.body.data.map(row => [row.name, row]));
}

function defineSuite(label, makeBackend) {
  describeWithBackend(label, makeBackend, backend => {
    test('startup sync fills the table; a second start changes nothing', async () => {
      const db = await backend.fresh();
      const first = await withServer(db.env, async s => {
        assert.deepEqual(s.syncLine, { inserts: CATALOG.length, updates: 0, orphans: 0 });
        const rows = await rowsByName(s);
        assert.deepEqual(Object.keys(rows).sort(), [...CATALOG].sort());
        for (const name of CATALOG) {
          assert.equal(rows[name].label, name);
          assert.equal(rows[name].status, 1);
          assert.equal(rows[name].workerRoutingStrategy, 'auto');
        }
        assert.equal(rows.todo.isCore, 1);
        assert.equal(rows.todo.canDisable, 0);
        assert.equal(rows.clarify.isCore, 1);
        assert.equal(rows.bash.isCore, 0);
        assert.equal(rows.bash.toolset, 'base');
        assert.equal(rows.todo.toolset, 'planning');
        const h = await call(s, 'GET', '/health', undefined, { token: null });
        assert.equal(h.status, 200);
        assert.deepEqual(h.body, { data: { status: 'ok', database: 'up', shellSandbox: 'bwrap', sandbox: sandboxHealth(), bus: NO_BUS } });
        assert.match(s.log(), /shell sandbox: bwrap/);
        // the start log says the same mechanism, and what is weaker when anything is
        assert.match(s.log(), new RegExp(`sandbox limits: ${sandboxHealth().limits}: `));
        if (sandboxHealth().weaker.length > 0)
          assert.match(s.log(), new RegExp(`WARNING sandbox limits weaker than per-sandbox cgroups: ${sandboxHealth().weaker.join(', ')}`));
      });
      void first;
      const before = await snapshot(db);
      assert.equal(before.length, CATALOG.length);
      await withServer(db.env, async s => {
        assert.deepEqual(s.syncLine, { inserts: 0, updates: 0, orphans: 0 });
        const r = await call(s, 'POST', '/admin/netaclaw/tool/sync');
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body.data, { inserts: 0, updates: 0, orphans: [] });
      });
      assert.deepEqual(await snapshot(db), before);
    });

    test('human edits survive a re-sync; drifted mirror fields follow the code; orphans are kept', async () => {
      const db = await backend.fresh();
      const edits = {
        patch: { label: 'Patch files', promptHint: 'Prefer small unified diffs.', sort: 5 },
        bash: { status: 0, description: 'shell, off for now', extra: { owner: 'ops', n: 1 } },
        grep: { workerRoutingStrategy: 'force-main-process-proxy' },
      };
      await withServer(db.env, async s => {
        for (const [name, patch] of Object.entries(edits)) {
          const r = await call(s, 'POST', '/admin/netaclaw/tool/update', { name, ...patch });
          assert.equal(r.status, 200, r.text);
        }
      });
      // drift: a mirror field changed behind the code's back, and a row the catalog does not know
      await db.sql('UPDATE netaclaw_tool SET toolset = ?, visibility = ? WHERE name = ?', ['zzz', 'skill', 'patch']);
      await db.sql(
        'INSERT INTO netaclaw_tool (name, label, toolset, status, isCore, canDisable, sort, workerRoutingStrategy, createTime, updateTime) ' +
          "VALUES ('legacy_tool', 'Legacy', 'old', 1, 0, 1, 0, 'auto', '2024-01-01 00:00:00', '2024-01-01 00:00:00')"
      );
      await withServer(db.env, async s => {
        assert.deepEqual(s.syncLine, { inserts: 0, updates: 1, orphans: 1 });
        const rows = await rowsByName(s);
        for (const [name, patch] of Object.entries(edits)) {
          for (const [k, v] of Object.entries(patch)) assert.deepEqual(rows[name][k], v, `${name}.${k}`);
        }
        assert.equal(rows.patch.toolset, 'base');
        assert.equal(rows.patch.visibility, 'tool');
        assert.ok(rows.legacy_tool, 'orphan row kept');
        const sync = await call(s, 'POST', '/admin/netaclaw/tool/sync');
        assert.deepEqual(sync.body.data, { inserts: 0, updates: 0, orphans: ['legacy_tool'] });
        const after = await rowsByName(s);
        assert.deepEqual(after, rows);
        const fa = await call(s, 'GET', '/admin/netaclaw/tool/forAgent');
        assert.equal(fa.status, 200, fa.text);
        assert.ok(!fa.body.data.tools.some(t => t.name === 'legacy_tool'), 'forAgent lists catalog tools only');
      });
      await withServer(db.env, async s => {
        assert.deepEqual(s.syncLine, { inserts: 0, updates: 0, orphans: 1 });
      });
    });

    test('section 九: globally disabled, agent-disabled and core tools', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const off = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'grep', status: 0 });
        assert.equal(off.status, 200, off.text);
        assert.equal(off.body.data.status, 0);

        const agent = { name: 'nine', toolsets: ['base', 'planning'], tools: { disabled: ['bash'] } };
        const added = await call(s, 'POST', '/admin/netaclaw/agent/add', agent);
        assert.equal(added.status, 200, added.text);
        const p = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: added.body.data.id });
        assert.equal(p.status, 200, p.text);
        const reasons = Object.fromEntries(p.body.data.disabledReasons.map(d => [d.name, d.reason]));
        assert.ok(!p.body.data.toolNames.includes('grep'));
        assert.equal(reasons.grep, 'disabled_globally');
        assert.ok(!p.body.data.toolNames.includes('bash'));
        assert.equal(reasons.bash, 'disabled_by_agent');

        for (const core of ['todo', 'clarify']) {
          const before = (await call(s, 'GET', `/admin/netaclaw/tool/info?name=${core}`)).body.data;
          const r = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: before.id, status: 0, label: 'changed' });
          assert.equal(r.status, 400, r.text);
          assert.equal(r.body.error.code, 'update_refused');
          assert.ok(
            r.body.error.errors.some(e => e.field === 'status' && e.code === 'core_tool_cannot_be_disabled'),
            r.text
          );
          const afterRow = (await call(s, 'GET', `/admin/netaclaw/tool/info?id=${before.id}`)).body.data;
          assert.deepEqual(afterRow, before, `${core} unchanged`);
          assert.ok(p.body.data.toolNames.includes(core));
        }
      });
    });

    test("seed Task 16: toolsets ['base','planning'], tools.disabled ['bash']", async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const added = await call(s, 'POST', '/admin/netaclaw/agent/add', {
          name: 'task16',
          systemPrompt: 'You are a careful coder.',
          toolsets: ['base', 'planning'],
          tools: { disabled: ['bash'] },
        });
        assert.equal(added.status, 200, added.text);
        const byId = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { id: added.body.data.id });
        assert.equal(byId.status, 200, byId.text);
        const names = byId.body.data.toolNames;
        for (const n of ['read_file', 'write_file', 'list_dir', 'patch', 'todo']) assert.ok(names.includes(n), n);
        assert.ok(!names.includes('bash'));
        const { layers, systemPrompt } = byId.body.data;
        assert.deepEqual(
          layers.map(l => l.key),
          ['identity', 'session', 'skills', 'tools']
        );
        assert.equal(layers[0].content, 'Your name is task16.\nYou are a careful coder.');
        // Layer 4 names the tools offered (the diagnostic's `offered`: without a workspace, no file tools)
        const diagnostic = await call(s, 'POST', '/admin/netaclaw/tool/diagnostic', { agentId: added.body.data.id });
        assert.equal(diagnostic.status, 200, diagnostic.text);
        const offered = diagnostic.body.data.offered;
        assert.ok(!offered.includes('write_file') && offered.includes('todo'), offered.join(','));
        assert.equal(layers[3].content, policy.toolBehaviorGuidance(offered, byId.body.data.toolPromptHints));
        assert.equal(layers[2].content, '', 'no skills bound');
        assert.equal(
          systemPrompt,
          [layers[0].content, layers[1].content, layers[3].content].join('\n\n'),
          'the system prompt is the non-empty layers, in order'
        );
        // the same agent as a draft gives the same answer
        const draft = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', {
          agent: { name: 'task16', systemPrompt: 'You are a careful coder.', toolsets: ['base', 'planning'], tools: { disabled: ['bash'] } },
        });
        assert.deepEqual(draft.body, byId.body);
      });
    });

    test('seed Task 18: a promptHint on patch replaces its default guidance in the tools layer', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const agent = { toolsets: ['base', 'planning'] };
        // a session that may write: patch is offered, so Layer 4 has its line
        const session = { sessionCwd: fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-api-'))), writePermitted: true };
        const toolsLayer = r => r.body.data.layers.find(l => l.key === 'tools').content;
        const before = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent, ...session });
        const hint = 'HINT-18: always send a unified diff with three lines of context.';
        assert.ok(!toolsLayer(before).includes(hint));
        const up = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'patch', promptHint: hint });
        assert.equal(up.status, 200, up.text);
        const after = await call(s, 'POST', '/admin/netaclaw/agent/previewPrompt', { agent, ...session });
        const tools = toolsLayer(after);
        assert.ok(tools.includes(`- patch: ${hint}`), tools);
        assert.deepEqual(after.body.data.toolPromptHints, { patch: hint });
        const oldLine = toolsLayer(before)
          .split('\n')
          .find(l => l.startsWith('- patch:'));
        assert.ok(oldLine && !tools.split('\n').includes(oldLine), 'default patch guidance replaced');
      });
    });

    test('auth: 401 without, with a wrong, or with a malformed token; generated token is stored', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        for (const token of [null, 'wrong-token', TOKEN + 'x', '']) {
          const r = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { token });
          assert.equal(r.status, 401, `token ${token}`);
          assert.equal(r.body.error.code, 'unauthorized');
        }
        const basic = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, {
          token: null,
          headers: { authorization: `Basic ${TOKEN}` },
        });
        assert.equal(basic.status, 401);
        const w = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'bash', status: 0 }, { token: 'nope' });
        assert.equal(w.status, 401);
        const ok = await call(s, 'GET', '/admin/netaclaw/tool/all');
        assert.equal(ok.status, 200);
        assert.equal(ok.body.data.find(r => r.name === 'bash').status, 1, 'unauthorised update wrote nothing');
      });
      // no ADMIN_TOKEN: one is created, printed and stored, and kept across restarts
      const env = { ...db.env, ADMIN_TOKEN: '' };
      const s1 = await startServer(env);
      let token;
      try {
        const file = path.join(db.dataDir, 'admin-token');
        token = fs.readFileSync(file, 'utf8').trim();
        assert.match(token, /^[0-9a-f]{64}$/);
        assert.ok(s1.log().includes(`admin token: ${token}`), s1.log());
        assert.equal((await call(s1, 'GET', '/admin/netaclaw/tool/all', undefined, { token })).status, 200);
        assert.equal((await call(s1, 'GET', '/admin/netaclaw/tool/all')).status, 401, 'ADMIN_TOKEN unset: test token refused');
      } finally {
        await s1.stop();
      }
      await withServer(env, async s2 => {
        assert.equal((await call(s2, 'GET', '/admin/netaclaw/tool/all', undefined, { token })).status, 200);
      });
    });

    test('bad input: 400 invalid_input, never 500, nothing written; unknown id 404', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const before = await snapshot(db);
        const cases = [
          ['POST', '/admin/netaclaw/tool/update', { raw: '{"name": "bash", "status": 0' }],
          ['POST', '/admin/netaclaw/tool/update', { raw: '"just a string"' }],
          ['POST', '/admin/netaclaw/tool/update', { raw: '[{"name":"bash","status":0}]' }],
          ['POST', '/admin/netaclaw/tool/update', { raw: 'name=bash&status=0', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
          ['POST', '/admin/netaclaw/tool/update', { body: { id: 'one', status: 0 } }],
          ['POST', '/admin/netaclaw/tool/update', { body: { id: -3, status: 0 } }],
          ['POST', '/admin/netaclaw/tool/update', { body: { name: 42, status: 0 } }],
          ['POST', '/admin/netaclaw/tool/update', { body: { status: 0 } }],
          ['POST', '/admin/netaclaw/tool/page', { body: { page: 'x' } }],
          ['POST', '/admin/netaclaw/tool/page', { body: { size: 0 } }],
          ['GET', '/admin/netaclaw/tool/info?id=abc', {}],
          ['GET', '/admin/netaclaw/tool/info', {}],
          ['POST', '/admin/netaclaw/agent/add', { body: { name: 'x', memoryEnabled: 'yes' } }],
          ['POST', '/admin/netaclaw/agent/add', { body: { name: 'x', toolsets: 'base' } }],
          ['POST', '/admin/netaclaw/agent/add', { body: { name: 'x', tools: { disabled: [1] } } }],
          ['POST', '/admin/netaclaw/agent/add', { body: { name: 'x', modelCapability: 'telepathy' } }],
          ['POST', '/admin/netaclaw/agent/add', { body: { systemPrompt: 'no name' } }],
          ['POST', '/admin/netaclaw/agent/add', { raw: '{"name":' }],
          ['POST', '/admin/netaclaw/agent/previewPrompt', { body: {} }],
          ['POST', '/admin/netaclaw/agent/previewPrompt', { body: { agent: { toolsets: [1] } } }],
          ['POST', '/admin/netaclaw/tool/diagnostic', { body: { workspaceRoots: ['relative/path'] } }],
          ['POST', '/admin/netaclaw/tool/diagnostic', { body: { shellPermitted: 'yes' } }],
          // storage limits (same on every backend): a TEXT column, a 32-bit INT
          ['POST', '/admin/netaclaw/tool/update', { body: { name: 'patch', promptHint: 'x'.repeat(16001) } }],
          ['POST', '/admin/netaclaw/tool/update', { body: { name: 'patch', description: '字'.repeat(16001) } }],
          ['POST', '/admin/netaclaw/tool/update', { body: { name: 'patch', sort: 2147483648 } }],
          ['POST', '/admin/netaclaw/agent/add', { body: { name: 'x', systemPrompt: 'y'.repeat(16001) } }],
          ['POST', '/admin/netaclaw/agent/add', { body: { name: 'n'.repeat(101) } }],
        ];
        for (const [method, p, o] of cases) {
          const r = await call(s, method, p, o.body, { raw: o.raw, headers: o.headers });
          assert.equal(r.status, 400, `${method} ${p} ${JSON.stringify(o)} → ${r.status} ${r.text}`);
          assert.equal(r.body.error.code, 'invalid_input', r.text);
          assert.ok(r.body.error.message.length > 0);
        }
        // well-formed JSON whose values the package refuses: update_refused, nothing written
        for (const patch of [{ label: 123 }, { sort: 'x' }, { status: 2 }, { status: null }, { toolset: 'planning' }, { workerRoutingStrategy: 'sideways' }]) {
          const r = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'bash', ...patch });
          assert.equal(r.status, 400, `${JSON.stringify(patch)} → ${r.text}`);
          assert.equal(r.body.error.code, 'update_refused', r.text);
          assert.ok(Array.isArray(r.body.error.errors) && r.body.error.errors.length > 0, r.text);
        }
        // a refusal writes nothing, not even the valid fields of the same patch
        const mixed = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'bash', label: 'fine', status: 5 });
        assert.equal(mixed.status, 400);
        const agents = await call(s, 'POST', '/admin/netaclaw/agent/page', {});
        assert.equal(agents.body.data.pagination.total, 0, 'no agent was written');
        assert.deepEqual(await snapshot(db), before, 'tool table unchanged');

        for (const [method, p, body] of [
          ['POST', '/admin/netaclaw/tool/update', { id: 99999, label: 'x' }],
          ['POST', '/admin/netaclaw/tool/update', { name: 'no_such_tool', label: 'x' }],
          ['GET', '/admin/netaclaw/tool/info?id=99999'],
          ['GET', '/admin/netaclaw/agent/info?id=99999'],
          ['POST', '/admin/netaclaw/agent/update', { id: 99999, name: 'x' }],
          ['POST', '/admin/netaclaw/agent/previewPrompt', { id: 99999 }],
          ['POST', '/admin/netaclaw/tool/diagnostic', { agentId: 99999 }],
          ['GET', '/admin/netaclaw/nothing/here'],
        ]) {
          const r = await call(s, method, p, body);
          assert.equal(r.status, 404, `${method} ${p} → ${r.text}`);
          assert.equal(r.body.error.code, 'not_found');
        }
      });
    });

    test('20 concurrent updates of different fields of one tool lose none', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        // five rounds, one tool each, so that an interleaving that loses an update shows up reliably
        for (const [round, tool] of ['read_file', 'list_dir', 'find_files', 'grep', 'edit'].entries()) {
          const id = (await call(s, 'GET', `/admin/netaclaw/tool/info?name=${tool}`)).body.data.id;
          const sent = { label: [], description: [], promptHint: [], sort: [], extra: [] };
          const requests = [];
          for (let i = 0; i < 20; i++) {
            const field = Object.keys(sent)[i % 5];
            const value = field === 'sort' ? 100 * round + i : field === 'extra' ? { round, i, tags: [`t${i}`] } : `${field}-${round}-${i}`;
            sent[field].push(value);
            requests.push(call(s, 'POST', '/admin/netaclaw/tool/update', { id, [field]: value }));
          }
          const results = await Promise.all(requests);
          for (const r of results) assert.equal(r.status, 200, r.text);
          const row = (await call(s, 'GET', `/admin/netaclaw/tool/info?id=${id}`)).body.data;
          for (const [field, values] of Object.entries(sent)) {
            assert.ok(
              values.some(v => JSON.stringify(v) === JSON.stringify(row[field])),
              `${tool}.${field} = ${JSON.stringify(row[field])} is none of the values sent`
            );
          }
        }
      });
    });

    test('a failure in the middle of a sync leaves the table exactly as before; the next start converges', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async () => {});
      // 3 rows missing (→ 3 inserts) and 3 rows with drifted mirror fields (→ 3 updates)
      for (const name of ['grep', 'escalate', 'memory_recall']) {
        await db.sql('DELETE FROM netaclaw_tool WHERE name = ?', [name]);
      }
      await db.sql('UPDATE netaclaw_tool SET toolset = ? WHERE name = ?', ['wrong', 'bash']);
      await db.sql('UPDATE netaclaw_tool SET isCore = 0, canDisable = 1 WHERE name = ?', ['todo']);
      await db.sql('UPDATE netaclaw_tool SET visibility = ? WHERE name = ?', ['internal', 'patch']);
      await db.sql('UPDATE netaclaw_tool SET label = ?, status = 0 WHERE name = ?', ['Human label', 'list_dir']);
      const before = await snapshot(db);
      assert.equal(before.length, CATALOG.length - 3);

      for (const at of [1, 2, 4, 6]) {
        const failed = await startServer({ ...db.env, NETACLAW_TEST_SYNC_FAIL_AT_WRITE: String(at) }, { expectExit: true });
        assert.notEqual(failed.exitCode, 0, failed.log());
        assert.match(failed.log(), /catalog sync FAILED/);
        assert.match(failed.log(), new RegExp(`injected sync fault before write ${at}`));
        assert.deepEqual(await snapshot(db), before, `table unchanged after a fault at write ${at}`);
      }

      await withServer(db.env, async s => {
        assert.deepEqual(s.syncLine, { inserts: 3, updates: 3, orphans: 0 });
        const rows = await rowsByName(s);
        assert.deepEqual(Object.keys(rows).sort(), [...CATALOG].sort());
        assert.equal(rows.bash.toolset, 'base');
        assert.equal(rows.todo.isCore, 1);
        assert.equal(rows.todo.canDisable, 0);
        assert.equal(rows.patch.visibility, 'tool');
        assert.equal(rows.list_dir.label, 'Human label');
        assert.equal(rows.list_dir.status, 0);
      });
      await withServer(db.env, async s => {
        assert.deepEqual(s.syncLine, { inserts: 0, updates: 0, orphans: 0 });
      });
    });

    test('agents: add, info, partial update, page', async () => {
      const db = await backend.fresh();
      installSkill(db.env, 's1');
      await withServer(db.env, async s => {
        const a = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'alpha', systemPrompt: 'p', skills: ['s1'] });
        assert.equal(a.status, 200, a.text);
        const agent = a.body.data;
        assert.equal(agent.name, 'alpha');
        assert.equal(agent.memoryEnabled, false);
        assert.deepEqual(agent.skills, ['s1']);
        assert.equal(agent.toolsets, null);
        assert.equal(agent.tools, null);
        const up = await call(s, 'POST', '/admin/netaclaw/agent/update', {
          id: agent.id,
          toolsets: ['base'],
          tools: { disabled: ['grep'] },
          memoryEnabled: true,
          crewRole: 'master',
          modelCapability: 'vision',
        });
        assert.equal(up.status, 200, up.text);
        const info = (await call(s, 'GET', `/admin/netaclaw/agent/info?id=${agent.id}`)).body.data;
        assert.equal(info.name, 'alpha');
        assert.equal(info.systemPrompt, 'p');
        assert.deepEqual(info.skills, ['s1']);
        assert.deepEqual(info.toolsets, ['base']);
        assert.deepEqual(info.tools, { disabled: ['grep'] });
        assert.equal(info.memoryEnabled, true);
        assert.equal(info.crewRole, 'master');
        assert.equal(info.modelCapability, 'vision');
        await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'beta' });
        await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'gamma_1' });
        const page = await call(s, 'POST', '/admin/netaclaw/agent/page', { page: 1, size: 2 });
        assert.equal(page.body.data.pagination.total, 3);
        assert.deepEqual(
          page.body.data.list.map(x => x.name),
          ['alpha', 'beta']
        );
        const byName = await call(s, 'POST', '/admin/netaclaw/agent/page', { name: 'A_1' });
        assert.deepEqual(
          byName.body.data.list.map(x => x.name),
          ['gamma_1']
        );
        const byName2 = await call(s, 'POST', '/admin/netaclaw/agent/page', { name: '_' });
        assert.deepEqual(
          byName2.body.data.list.map(x => x.name),
          ['gamma_1'],
          '_ is a literal, not a wildcard'
        );
        const cleared = await call(s, 'POST', '/admin/netaclaw/agent/update', { id: agent.id, toolsets: null, tools: null });
        assert.equal(cleared.body.data.toolsets, null);
        assert.equal(cleared.body.data.tools, null);
        assert.equal(cleared.body.data.crewRole, 'master', 'fields not sent are kept');
      });
    });

    test('tool page, info and forAgent', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'grep', sort: -1, status: 0 });
        const p = await call(s, 'POST', '/admin/netaclaw/tool/page', { page: 1, size: 5 });
        assert.equal(p.status, 200, p.text);
        assert.equal(p.body.data.pagination.total, CATALOG.length);
        assert.equal(p.body.data.list.length, 5);
        assert.equal(p.body.data.list[0].name, 'grep', 'ordered by sort first');
        const skills = await call(s, 'POST', '/admin/netaclaw/tool/page', { toolset: 'skills', size: 100 });
        assert.deepEqual(
          skills.body.data.list.map(r => r.name).sort(),
          policy
            .builtinCatalog()
            .filter(t => t.toolset === 'skills')
            .map(t => t.name)
            .sort()
        );
        const off = await call(s, 'POST', '/admin/netaclaw/tool/page', { status: 0 });
        assert.deepEqual(
          off.body.data.list.map(r => r.name),
          ['grep']
        );
        const sub = await call(s, 'POST', '/admin/netaclaw/tool/page', { name: 'FILE', size: 100 });
        assert.ok(sub.body.data.list.length > 0);
        assert.ok(sub.body.data.list.every(r => r.name.toLowerCase().includes('file')));
        // the edit form sends the whole row back with one field changed: accepted, only that field moves
        // (and the version, which the echoed row carries and which matches)
        const row = (await call(s, 'GET', '/admin/netaclaw/tool/info?name=write_file')).body.data;
        const echoed = await call(s, 'POST', '/admin/netaclaw/tool/update', { ...row, label: 'Write a file' });
        assert.equal(echoed.status, 200, echoed.text);
        const { updateTime: _u1, ...restAfter } = echoed.body.data;
        const { updateTime: _u0, ...restBefore } = row;
        assert.deepEqual(restAfter, { ...restBefore, label: 'Write a file', version: row.version + 1 });
        const byName = await call(s, 'GET', '/admin/netaclaw/tool/info?name=todo');
        const byId = await call(s, 'GET', `/admin/netaclaw/tool/info?id=${byName.body.data.id}`);
        assert.deepEqual(byId.body, byName.body);
        const fa = (await call(s, 'GET', '/admin/netaclaw/tool/forAgent')).body.data;
        assert.deepEqual(
          fa.profiles.map(t => t.name),
          CATALOG
        );
        assert.deepEqual(
          fa.profiles,
          policy.builtinCatalog().map(t => policy.toolManifest(t))
        );
        for (const t of ['base', 'planning', 'memory', 'skills', 'delegation', 'vision', 'document']) {
          assert.ok(fa.toolsets.includes(t), t);
        }
        assert.deepEqual(fa.tools.map(t => t.name).sort(), [...CATALOG].sort());
      });
    });

    test('diagnostic builds the package input from the agent and the table', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'grep', status: 0 });
        await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'read_file', workerRoutingStrategy: 'force-disabled' });
        const a = await call(s, 'POST', '/admin/netaclaw/agent/add', {
          name: 'diag',
          toolsets: ['base', 'planning'],
          tools: { disabled: ['bash'] },
        });
        const req = { agentId: a.body.data.id, sessionCwd: '/work/proj', workspaceRoots: ['/data'], shellPermitted: true, writePermitted: false };
        const r = await call(s, 'POST', '/admin/netaclaw/tool/diagnostic', req);
        assert.equal(r.status, 200, r.text);
        const governance = (await call(s, 'GET', '/admin/netaclaw/tool/all')).body.data.map(row => {
          const out = {};
          for (const k of [
            'name',
            'label',
            'toolset',
            'description',
            'visibility',
            'capability',
            'status',
            'isCore',
            'canDisable',
            'promptHint',
            'sort',
            'extra',
            'workerRoutingStrategy',
          ])
            out[k] = row[k];
          return out;
        });
        const expected = policy.runtimeDiagnostic({
          governance,
          agent: { toolsets: ['base', 'planning'], tools: { disabled: ['bash'] } },
          modelCapability: null,
          memoryEnabled: false,
          hasSkills: false,
          crewRole: null,
          sessionCwd: '/work/proj',
          workspaceRoots: ['/data'],
          shellPermitted: true,
          writePermitted: false,
        });
        assert.deepEqual(r.body.data, JSON.parse(JSON.stringify(expected)));
        const routes = Object.fromEntries(r.body.data.routes.map(x => [x.name, x]));
        assert.equal(routes.grep.status, 'not-selected');
        assert.equal(routes.grep.blockedReason, 'disabled_globally');
        assert.equal(routes.bash.blockedReason, 'disabled_by_agent');
        assert.equal(routes.read_file.blockedReason, 'disabled_by_routing_strategy');
        assert.equal(routes.write_file.blockedReason, 'write_blocked_by_readonly_policy');
        assert.deepEqual(r.body.data.policy.workspaceRoots, ['/work/proj', '/data']);
      });
    });

    test('serves the built pages with an SPA fallback, never over the API', async () => {
      const db = await backend.fresh();
      const www = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-www-'));
      fs.mkdirSync(path.join(www, 'assets'));
      fs.writeFileSync(path.join(www, 'index.html'), '<!doctype html><title>NetaClaw</title>');
      fs.writeFileSync(path.join(www, 'assets', 'app.js'), 'console.log("app")');
      try {
        await withServer({ ...db.env, STATIC_DIR: www }, async s => {
          const root = await call(s, 'GET', '/', undefined, { token: null });
          assert.equal(root.status, 200);
          assert.match(root.text, /<title>NetaClaw<\/title>/);
          assert.match(root.headers.get('content-type'), /text\/html/);
          const js = await call(s, 'GET', '/assets/app.js', undefined, { token: null });
          assert.equal(js.status, 200);
          assert.match(js.headers.get('content-type'), /javascript/);
          const spa = await call(s, 'GET', '/agent/tools', undefined, { token: null });
          assert.equal(spa.status, 200);
          assert.match(spa.text, /<title>NetaClaw<\/title>/);
          const missing = await call(s, 'GET', '/assets/missing.js', undefined, { token: null });
          assert.equal(missing.status, 404);
          const api = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { token: null });
          assert.equal(api.status, 401);
          const traversal = await call(s, 'GET', '/..%2f..%2fetc%2fpasswd', undefined, { token: null });
          assert.ok(!/root:/.test(traversal.text));
        });
      } finally {
        fs.rmSync(www, { recursive: true, force: true });
      }
    });
  });
}

for (const [label, makeBackend] of storageBackends()) defineSuite(label, makeBackend);
