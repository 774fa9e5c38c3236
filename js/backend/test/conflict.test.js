'use strict';
/**
 * Concurrent admin edits of one record: every tool and agent row carries a `version`; an update that
 * names a stale one is answered 409 `conflict` with the current row, and nothing is written; an
 * update without `version` works as before.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { withServer, call, installSkill } = require('./support/server');
const { storageBackends, describeWithBackend } = require('./support/suites');

const info = async (s, q) => (await call(s, 'GET', `/admin/netaclaw/${q}`)).body.data;

for (const [label, makeBackend] of storageBackends()) {
  describeWithBackend(`versions · ${label}`, makeBackend, backend => {
    test('tools: version 1 after the sync, +1 per write; a stale version is a 409 with the current row', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const all = (await call(s, 'GET', '/admin/netaclaw/tool/all')).body.data;
        assert.ok(
          all.every(r => r.version === 1),
          'every synced row starts at version 1'
        );
        const loaded = await info(s, 'tool/info?name=patch');

        // admin A saves from the loaded version: accepted, version moves on
        const a = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: loaded.id, version: loaded.version, label: 'A' });
        assert.equal(a.status, 200, a.text);
        assert.equal(a.body.data.version, loaded.version + 1);
        assert.equal(a.body.data.label, 'A');

        // admin B saves from the same, now stale, version: refused with the current row, nothing written
        const before = await db.sql('SELECT * FROM netaclaw_tool ORDER BY id');
        const b = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: loaded.id, version: loaded.version, label: 'B', sort: 9 });
        assert.equal(b.status, 409, b.text);
        assert.equal(b.body.error.code, 'conflict');
        assert.match(b.body.error.message, /version/);
        assert.deepEqual(b.body.error.current, a.body.data);
        assert.deepEqual(await db.sql('SELECT * FROM netaclaw_tool ORDER BY id'), before, 'nothing written');
        // found by name: the same
        const byName = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'patch', version: loaded.version, status: 0 });
        assert.equal(byName.status, 409, byName.text);

        // B reloads and saves from the current version: accepted
        const b2 = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: loaded.id, version: b.body.error.current.version, label: 'B' });
        assert.equal(b2.status, 200, b2.text);
        assert.equal(b2.body.data.version, loaded.version + 2);

        // without version: last writer wins, as before; the version still moves on
        const c = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: loaded.id, label: 'C' });
        assert.equal(c.status, 200, c.text);
        assert.equal(c.body.data.version, loaded.version + 3);

        // an update that writes nothing leaves the version alone
        const none = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: loaded.id, version: c.body.data.version });
        assert.equal(none.status, 200, none.text);
        assert.equal(none.body.data.version, c.body.data.version);

        // a bad version is a 400, never a conflict; null means "no version"
        for (const version of ['3', -1, 1.5, true, {}]) {
          const r = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: loaded.id, version, label: 'x' });
          assert.equal(r.status, 400, `version ${JSON.stringify(version)} → ${r.text}`);
          assert.equal(r.body.error.code, 'invalid_input');
          assert.match(r.body.error.message, /version/);
        }
        const nul = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: loaded.id, version: null, label: 'D' });
        assert.equal(nul.status, 200, nul.text);
        // the version of an unknown row: 404 as before
        const missing = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: 99999, version: 1, label: 'x' });
        assert.equal(missing.status, 404);
        // a sync that rewrites a drifted mirror field moves the version on too
        await db.sql('UPDATE netaclaw_tool SET toolset = ? WHERE name = ?', ['drifted', 'grep']);
        const grep = await info(s, 'tool/info?name=grep');
        assert.equal((await call(s, 'POST', '/admin/netaclaw/tool/sync')).body.data.updates, 1);
        assert.equal((await info(s, 'tool/info?name=grep')).version, grep.version + 1);
      });
    });

    test('tools: of 10 concurrent saves from one version exactly one is accepted', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const row = await info(s, 'tool/info?name=read_file');
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => call(s, 'POST', '/admin/netaclaw/tool/update', { id: row.id, version: row.version, description: `save ${i}` }))
        );
        const ok = results.filter(r => r.status === 200);
        const refused = results.filter(r => r.status === 409);
        assert.equal(ok.length, 1, results.map(r => r.status).join(','));
        assert.equal(refused.length, 9);
        const now = await info(s, `tool/info?id=${row.id}`);
        assert.equal(now.version, row.version + 1);
        assert.equal(now.description, ok[0].body.data.description);
        for (const r of refused) assert.equal(r.body.error.current.version, row.version + 1);
      });
    });

    test('agents: the same rules', async () => {
      const db = await backend.fresh();
      await withServer(db.env, async s => {
        const added = (await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'v', version: 42 })).body.data;
        assert.equal(added.version, 1, 'a new agent starts at version 1 whatever the body says');
        const a = await call(s, 'POST', '/admin/netaclaw/agent/update', { id: added.id, version: 1, systemPrompt: 'A' });
        assert.equal(a.status, 200, a.text);
        assert.equal(a.body.data.version, 2);
        const before = await db.sql('SELECT * FROM netaclaw_agent ORDER BY id');
        const b = await call(s, 'POST', '/admin/netaclaw/agent/update', { id: added.id, version: 1, systemPrompt: 'B', toolsets: ['base'] });
        assert.equal(b.status, 409, b.text);
        assert.equal(b.body.error.code, 'conflict');
        assert.deepEqual(b.body.error.current, a.body.data);
        assert.deepEqual(await db.sql('SELECT * FROM netaclaw_agent ORDER BY id'), before, 'nothing written');
        const c = await call(s, 'POST', '/admin/netaclaw/agent/update', { id: added.id, systemPrompt: 'C' });
        assert.equal(c.status, 200, c.text);
        assert.equal(c.body.data.version, 3);
        const bad = await call(s, 'POST', '/admin/netaclaw/agent/update', { id: added.id, version: 'x', name: 'y' });
        assert.equal(bad.status, 400);
        // the edit page sends the whole agent back with its version
        const echoed = await call(s, 'POST', '/admin/netaclaw/agent/update', { ...c.body.data, name: 'renamed' });
        assert.equal(echoed.status, 200, echoed.text);
        assert.equal(echoed.body.data.name, 'renamed');
        assert.equal(echoed.body.data.version, 4);
        const stale = await call(s, 'POST', '/admin/netaclaw/agent/update', { ...c.body.data, name: 'lost' });
        assert.equal(stale.status, 409);
        assert.equal((await info(s, `agent/info?id=${added.id}`)).name, 'renamed');
      });
    });

    test('a table from before the version column gets it, every row at version 1, data kept', async () => {
      const db = await backend.fresh();
      installSkill(db.env, 's');
      await withServer(db.env, async s => {
        await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'bash', label: 'kept' });
        await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'old agent', skills: ['s'] });
      });
      await db.sql('ALTER TABLE netaclaw_tool DROP COLUMN version');
      await db.sql('ALTER TABLE netaclaw_agent DROP COLUMN version');
      // MySQL/MariaDB: a database of that time was made by the schema sync and has no migration recorded
      if (db.env.DB_TYPE !== undefined && db.env.DB_TYPE !== 'sqlite') await db.sql('DROP TABLE netaclaw_migrations');
      await withServer(db.env, async s => {
        assert.deepEqual(s.syncLine, { inserts: 0, updates: 0, orphans: 0 });
        const tools = (await call(s, 'GET', '/admin/netaclaw/tool/all')).body.data;
        assert.ok(
          tools.every(r => r.version === 1),
          JSON.stringify(tools.map(r => r.version))
        );
        assert.equal(tools.find(r => r.name === 'bash').label, 'kept');
        const agents = (await call(s, 'POST', '/admin/netaclaw/agent/page', {})).body.data.list;
        assert.deepEqual(
          agents.map(a => [a.name, a.skills, a.version]),
          [['old agent', ['s'], 1]]
        );
      });
    });
  });
}
