'use strict';
/**
 * Writes on MySQL/MariaDB run in parallel (lib/mutex.ts): no in-process lock serialises them, the database
 * decides where two writers meet. The real backend started in this process on a private MariaDB, its
 * services called as the controllers call them, and a second connection of the test's own holding a row:
 * - a write whose transaction waits on a row held elsewhere does not hold up the other writes of the
 *   process (on one writer, the second write would wait behind the first);
 * - concurrent writes of one row lose nothing: "allow for this session" answers all land in the session's
 *   approvals, updates of the global rules without a version each land once (the version counts them),
 *   and updates of an agent made from one version: one lands, the others are 409 `conflict`.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { storageBackends } = require('./support/suites');
const { bootInProcess } = require('./support/inprocess');
const { BACKEND_ROOT } = require('./support/server');

const dist = file => require(path.join(BACKEND_ROOT, 'dist', file));

/** Settles `p` within `ms`, or says it did not. */
function within(p, ms) {
  let timer;
  return Promise.race([p.then(value => ({ done: true, value })), new Promise(resolve => (timer = setTimeout(() => resolve({ done: false }), ms)))]).finally(
    () => clearTimeout(timer)
  );
}

for (const [label, makeBackend] of storageBackends({ only: 'mariadb' })) {
  describe(`parallel writes · ${label}`, () => {
    let backend;
    let db;
    let app;
    let mcp;
    let rules;
    let sessions;
    before(async () => {
      backend = await makeBackend();
      db = await backend.fresh();
      app = await bootInProcess('netaclaw-writes-', db.env);
      mcp = await app.service(dist('service/mcp.js').McpService);
      rules = await app.service(dist('service/rules.js').RulesService);
      sessions = await app.service(dist('service/session.js').SessionService);
    });
    after(async () => {
      if (app) await app.stop();
      if (backend) await backend.stop();
    });

    test('the write gate is parallel on MariaDB', () => {
      assert.equal(dist('lib/mutex.js').dbWriteLock.serialised, false);
    });

    test('a write completes while another write waits in its open transaction', async () => {
      const held = await mcp.add({ name: 'held', transport: 'stdio', command: 'node' });
      const conn = await db.connect();
      let update;
      try {
        await conn.query('START TRANSACTION');
        await conn.query('SELECT id FROM netaclaw_mcp_server WHERE id = ? FOR UPDATE', [held.id]);
        // the update's transaction is open, waiting for the row the test holds
        update = mcp.update({ id: held.id, name: 'renamed' });
        update.catch(() => undefined);
        assert.equal((await within(update, 300)).done, false, 'the update waits for the held row');
        const [waiting] = await conn.query(
          "SELECT COUNT(*) AS n FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT' AND trx_mysql_thread_id <> CONNECTION_ID()"
        );
        assert.equal(Number(waiting[0].n), 1, 'one transaction of the backend waits on the lock');
        // meanwhile: other writes of the process, in other tables and in the same one
        const started = Date.now();
        const other = await within(
          Promise.all([
            app.agents.add({ name: 'meanwhile', toolsets: ['base'] }),
            mcp.add({ name: 'another', transport: 'stdio', command: 'node' }),
            sessions.create({ agentId: 1, title: 'meanwhile' }),
          ]),
          10000
        );
        assert.equal(other.done, true, 'writes went on while a transaction was open');
        const tookMs = Date.now() - started;
        assert.equal((await within(update, 0)).done, false, 'and the update still waits');
        assert.ok(tookMs < 10000, `${tookMs} ms`);
      } finally {
        await conn.query('COMMIT');
        await conn.end();
      }
      const renamed = await update;
      assert.equal(renamed.name, 'renamed');
      assert.deepEqual(
        (await db.sql('SELECT name FROM netaclaw_mcp_server ORDER BY id')).map(r => r.name),
        ['renamed', 'another']
      );
    });

    test('concurrent writes of one row lose nothing', async () => {
      const agent = await app.agents.add({ name: 'approving', toolsets: ['base'] });
      const session = await sessions.create({ agentId: agent.id, title: 'approvals' });
      const N = 24;
      // "allow for this session" answers of one session at once: read, add, written — each lands
      const patterns = Array.from({ length: N }, (_, i) => `bash(echo ${i})`);
      await Promise.all(patterns.map(p => rules.approve(session.id, [p])));
      const [row] = await db.sql('SELECT approvals FROM netaclaw_session WHERE id = ?', [session.id]);
      const stored = typeof row.approvals === 'string' ? JSON.parse(row.approvals) : row.approvals;
      assert.deepEqual([...stored].sort(), [...patterns].sort(), 'every approval landed, once');

      // the global rules, replaced N times at once without a version: the last writer wins, and each write
      // is counted by the row's version (none answered 409, none lost)
      const before = (await rules.info()).version;
      const results = await Promise.allSettled(Array.from({ length: N }, (_, i) => rules.update({ rules: { allow: [`bash(echo ${i})`] } })));
      assert.deepEqual(
        results.filter(r => r.status === 'rejected').map(r => r.reason?.message),
        []
      );
      const after = await rules.info();
      assert.equal(after.version, before + N, 'every update landed once');
      assert.equal(after.rules.allow.length, 1);

      // an agent edited N times at once from the version each editor read: one lands, the others are 409
      const edits = await Promise.allSettled(
        Array.from({ length: N }, (_, i) => app.agents.update({ id: agent.id, systemPrompt: `edit ${i}`, version: agent.version }))
      );
      const landed = edits.filter(r => r.status === 'fulfilled');
      const refused = edits.filter(r => r.status === 'rejected');
      assert.equal(landed.length, 1, 'one edit from the version read lands');
      assert.equal(refused.length, N - 1);
      for (const r of refused) assert.equal(r.reason.code, 'conflict', r.reason.message);
      const [stored2] = await db.sql('SELECT systemPrompt, version FROM netaclaw_agent WHERE id = ?', [agent.id]);
      assert.equal(stored2.systemPrompt, landed[0].value.systemPrompt);
      assert.equal(Number(stored2.version), agent.version + 1);
    });
  });
}
