'use strict';
/**
 * Many instances on one MySQL/MariaDB database: started at the same moment they all start, the
 * catalog sync leaves exactly one row per tool, and what one instance writes the others read.
 * (SQLite has one writer per file: one instance per SQLite file.)
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { startServer, call } = require('./support/server');
const { storageBackends, describeWithBackend } = require('./support/suites');
const { startModel } = require('./support/model');
const { chat, addAgent, modelEnv, openWs } = require('./support/chat');
const policy = require('@netaclaw/tool-policy');

const CATALOG = policy.builtinCatalog().map(t => t.name);
const ROUNDS = 3;

for (const [label, makeBackend] of storageBackends({ only: 'mariadb' })) {
  describeWithBackend(`many instances · ${label}`, makeBackend, backend => {
    test(`three instances started at the same moment on a fresh database (${ROUNDS} rounds)`, async t => {
      for (let round = 1; round <= ROUNDS; round++) {
        const db = await backend.fresh();
        const results = await Promise.allSettled([1, 2, 3].map(() => startServer(db.env)));
        const servers = results.filter(r => r.status === 'fulfilled').map(r => r.value);
        try {
          for (const r of results) assert.equal(r.status, 'fulfilled', `round ${round}: ${r.reason?.message}`);
          // one of them inserted the catalog, the others found it
          const lines = servers.map(s => s.syncLine);
          assert.equal(
            lines.reduce((n, l) => n + l.inserts, 0),
            CATALOG.length,
            JSON.stringify(lines)
          );
          assert.ok(
            lines.every(l => l.updates === 0 && l.orphans === 0),
            JSON.stringify(lines)
          );
          // the schema: one instance ran the migrations, the others waited for the lock and found them run
          const ran = servers.filter(s => /schema: ran \d+ migration\(s\)/.test(s.log())).length;
          const upToDate = servers.filter(s => /schema: up to date/.test(s.log())).length;
          assert.deepEqual([ran, upToDate], [1, 2], servers.map(s => s.log()).join('\n----\n'));
          t.diagnostic(`round ${round}: inserts per instance ${lines.map(l => l.inserts).join(' / ')}`);
          const counts = await db.sql('SELECT name, COUNT(*) AS n FROM netaclaw_tool GROUP BY name ORDER BY name');
          assert.deepEqual(
            counts.map(r => [r.name, Number(r.n)]),
            [...CATALOG].sort().map(n => [n, 1]),
            `round ${round}: exactly one row per tool`
          );
          const unique = await db.sql("SHOW INDEX FROM netaclaw_tool WHERE Column_name = 'name' AND Non_unique = 0");
          assert.equal(unique.length, 1, 'a unique index on name');
          for (const s of servers) assert.equal((await call(s, 'GET', '/health', undefined, { token: null })).status, 200);

          if (round === 1) await editsAreSeenByTheOthers(servers);
        } finally {
          await Promise.all(servers.map(s => s.stop()));
        }
      }
    });

    test('two messages to one session on two instances: one is answered, the other is 409 session_busy; nothing half-written', async () => {
      const db = await backend.fresh();
      const model = await startModel();
      const env = { ...db.env, ...modelEnv(model), NETACLAW_SESSION_LEASE_SECONDS: '3' };
      const started = await Promise.allSettled([startServer(env), startServer(env)]);
      const [a, b] = started.map(r => r.value);
      try {
        for (const r of started) assert.equal(r.status, 'fulfilled', r.reason?.message);
        // both applied NETACLAW_MODEL_* at start: one default channel (the second start found the first's)
        assert.deepEqual(
          (await db.sql('SELECT name, isDefault FROM netaclaw_model_channel')).map(c => [c.name, Number(c.isDefault)]),
          [['default', 1]]
        );
        const agent = await addAgent(a, { name: 'shared-session', toolsets: ['base'] });
        model.push({ content: 'first answer' });
        const first = await chat(b, { agentId: agent.id, message: 'hello' });
        assert.equal(first.status, 200, first.text);
        const sessionId = first.body.data.sessionId;
        let answered = 1;

        // a turn in progress on A: B (and A itself) refuse the session at once, without writing
        model.push({ content: 'slow answer', stallMs: 1500 });
        const before = model.requests.length;
        const slow = chat(a, { agentId: agent.id, sessionId, message: 'slow one' });
        while (model.requests.length === before) await new Promise(r => setTimeout(r, 20));
        for (const s of [b, a]) {
          const busy = await chat(s, { agentId: agent.id, sessionId, message: 'meanwhile' });
          assert.equal(busy.status, 409, busy.text);
          assert.equal(busy.body.error.code, 'session_busy');
        }
        // a page on B asking to follow the session's turn: it runs elsewhere (A holds the claim); on A it runs here
        const onB = openWs(b);
        await onB.opened;
        const seenOnB = onB.next(e => e.type === 'attached');
        onB.send({ type: 'attach', sessionId });
        assert.deepEqual(await seenOnB, { type: 'attached', sessionId, running: false, elsewhere: true });
        await onB.close();
        assert.equal((await slow).status, 200);
        answered += 1;
        const afterOnB = openWs(b);
        await afterOnB.opened;
        const freeOnB = afterOnB.next(e => e.type === 'attached');
        afterOnB.send({ type: 'attach', sessionId });
        assert.deepEqual(await freeOnB, { type: 'attached', sessionId, running: false }, 'the turn ended: nothing runs anywhere');
        await afterOnB.close();

        // sent at the same moment to both instances, round after round: exactly one answer, one 409
        for (let round = 1; round <= 5; round++) {
          model.push({ content: `answer ${round}`, stallMs: 1000 });
          const both = await Promise.all([a, b].map(s => chat(s, { agentId: agent.id, sessionId, message: `round ${round}` })));
          const statuses = both.map(r => r.status).sort();
          assert.deepEqual(statuses, [200, 409], `round ${round}: ${both.map(r => r.text).join(' | ')}`);
          assert.equal(both.find(r => r.status === 409).body.error.code, 'session_busy');
          answered += 1;
        }
        assert.deepEqual(model.problems, []);

        // an instance killed mid-turn: its claim runs out (the lease), then the session answers again
        model.push({ content: 'never finished', stallMs: 30000 });
        const n = model.requests.length;
        const doomed = chat(a, { agentId: agent.id, sessionId, message: 'cut short' }).catch(err => err);
        while (model.requests.length === n) await new Promise(r => setTimeout(r, 20));
        a.child.kill('SIGKILL');
        await doomed;
        const refused = await chat(b, { agentId: agent.id, sessionId, message: 'too early' });
        assert.equal(refused.status, 409, refused.text);
        // the killed instance's lease (NETACLAW_SESSION_LEASE_SECONDS) runs out: asked until the session
        // answers, each refusal a session_busy, within the lease and a margin
        const killedAt = Date.now();
        model.push({ content: 'after the lease' });
        let after;
        for (;;) {
          after = await chat(b, { agentId: agent.id, sessionId, message: 'later' });
          if (after.status !== 409) break;
          assert.equal(after.body.error.code, 'session_busy', after.text);
          assert.ok(Date.now() - killedAt < 15000, 'the lease ran out');
          await new Promise(r => setTimeout(r, 200));
        }
        assert.equal(after.status, 200, after.text);
        answered += 1;

        // the stored order: contiguous seqs, a user message and its answer per answered turn (plus the
        // killed turn's user message), no error rows, no message of a refused request
        const rows = await db.sql('SELECT seq, role, content FROM netaclaw_message WHERE sessionId = ? ORDER BY seq', [sessionId]);
        assert.deepEqual(
          rows.map(r => r.seq),
          rows.map((_, i) => i + 1)
        );
        assert.equal(rows.filter(r => r.role === 'assistant').length, answered);
        assert.equal(rows.filter(r => r.role === 'user').length, answered + 1);
        assert.equal(rows.filter(r => r.role === 'error').length, 0);
        assert.ok(!rows.some(r => /meanwhile|too early/.test(r.content)), 'a refused message is not stored');
        const lease = await db.sql('SELECT turnToken FROM netaclaw_session WHERE id = ?', [sessionId]);
        assert.equal(lease[0].turnToken, null, 'the claim is released after the turn');
      } finally {
        await Promise.all([a, b].filter(Boolean).map(s => s.stop()));
        await model.close();
      }
    });

    test('a turn running on A is followed live from B: the replay so far, the rest, the same done; a cancel on B stops it on A', async () => {
      const db = await backend.fresh();
      const model = await startModel();
      const env = { ...db.env, ...modelEnv(model) };
      const started = await Promise.allSettled([startServer(env), startServer(env)]);
      const [a, b] = started.map(r => r.value);
      try {
        for (const r of started) assert.equal(r.status, 'fulfilled', r.reason?.message);
        const agent = await addAgent(a, { name: 'followed', toolsets: ['planning'] });
        model.push(
          { chunks: ['part ', 'one.'], toolCalls: [{ id: 'x1', name: 'not_a_tool', arguments: {} }] },
          { stallMs: 2500, chunks: ['part ', 'two ', 'and the end.'] }
        );
        const onA = openWs(a);
        await onA.opened;
        const resultOnA = onA.next(e => e.type === 'tool-result');
        const doneOnA = onA.next(e => e.type === 'done' || e.type === 'error');
        onA.send({ type: 'chat', agentId: agent.id, message: 'tell me in two parts' });
        const { sessionId } = await resultOnA;
        // the progress row is written at most every 300 ms: what A streamed so far is there soon after
        await until(async () => (await db.sql('SELECT JSON_LENGTH(events) AS n FROM netaclaw_turn_progress WHERE sessionId = ?', [sessionId]))[0]?.n >= 3);

        const onB = openWs(b);
        await onB.opened;
        const doneOnB = onB.next(e => e.type === 'done' || e.type === 'error');
        onB.send({ type: 'attach', sessionId });
        const endB = await doneOnB;
        const endA = await doneOnA;
        assert.equal(endA.type, 'done', JSON.stringify(endA));
        assert.deepEqual(endB, endA, "B's done is A's answer");
        assert.equal(endB.reply, 'part two and the end.');
        // an event after the end would come before the answer to a later message on the same connection
        const answered = onB.next(e => e.type === 'attached' && e.running === false);
        onB.send({ type: 'attach', sessionId });
        const [attached, ...rest] = onB.events.slice(0, onB.events.indexOf(await answered));
        assert.deepEqual(attached, { type: 'attached', sessionId, running: true, elsewhere: true, message: 'tell me in two parts' });
        const replayed = rest.findIndex(e => e.type === 'tool-result');
        assert.ok(replayed > 0, JSON.stringify(rest));
        assert.deepEqual(
          rest.slice(0, replayed + 1).map(e => [e.type, e.type === 'delta' ? e.text : e.name]),
          [
            ['delta', 'part one.'],
            ['tool-call', 'not_a_tool'],
            ['tool-result', 'not_a_tool'],
          ],
          'the events so far, the streamed text kept as one'
        );
        const live = rest.slice(replayed + 1, -1);
        assert.ok(live.length > 0 && live.every(e => e.type === 'delta'), JSON.stringify(live));
        assert.equal(live.map(e => e.text).join(''), 'part two and the end.', 'then the rest of the text, as A streamed it');
        assert.equal(rest.filter(e => e.type === 'done').length, 1);
        // what B saw is what A streamed (the deltas merged)
        const text = events =>
          events
            .filter(e => e.type === 'delta')
            .map(e => e.text)
            .join('');
        assert.equal(text(onB.events), text(onA.events));
        const [row] = await db.sql('SELECT token, endTime, JSON_LENGTH(events) AS n FROM netaclaw_turn_progress WHERE sessionId = ?', [sessionId]);
        assert.ok(row && row.endTime !== null && /^[0-9a-f]{32}$/.test(row.token), JSON.stringify(row));
        await Promise.all([onA.close(), onB.close()]);

        // nothing runs now: attaching on B says so
        const later = openWs(b);
        await later.opened;
        const none = later.next(e => e.type === 'attached');
        later.send({ type: 'attach', sessionId });
        assert.deepEqual(await none, { type: 'attached', sessionId, running: false });
        await later.close();

        // the session's next turn replaces the row; a page on B cancels it, A stops it
        model.push({ chunks: ['started ', 'and then'], stallMs: 20000, stallAfterChunks: 2 });
        const second = openWs(a);
        await second.opened;
        const deltaOnA = second.next(e => e.type === 'delta');
        const cancelledOnA = second.next(e => e.type === 'done' || e.type === 'error');
        second.send({ type: 'chat', agentId: agent.id, sessionId, message: 'a long one' });
        await deltaOnA;
        await until(async () => (await db.sql('SELECT message FROM netaclaw_turn_progress'))[0]?.message === 'a long one');
        const rows = await db.sql('SELECT token, message, endTime FROM netaclaw_turn_progress');
        assert.equal(rows.length, 1);
        assert.notEqual(rows[0].token, row.token);
        assert.deepEqual([rows[0].message, rows[0].endTime], ['a long one', null]);
        const follower = openWs(b);
        await follower.opened;
        const attachedOnB = follower.next(e => e.type === 'attached');
        const deltaOnB = follower.next(e => e.type === 'delta');
        const endOnB = follower.next(e => e.type === 'done' || e.type === 'error');
        follower.send({ type: 'attach', sessionId });
        assert.equal((await attachedOnB).running, true);
        const soFar = await deltaOnB;
        assert.equal(soFar.text, text(second.events), 'what A streamed of it so far');
        follower.send({ type: 'cancel' });
        assert.equal((await cancelledOnA).code, 'cancelled');
        assert.deepEqual(await endOnB, await cancelledOnA);
        assert.equal(await model.aborted(), true);
        await Promise.all([second.close(), follower.close()]);
        const info = (await call(b, 'GET', `/admin/netaclaw/session/info?id=${sessionId}`)).body.data;
        assert.equal(info.messages.at(-1).name, 'cancelled');
        for (const s of [a, b]) assert.doesNotMatch(s.log(), /cannot (write|read) the turn's progress|cannot ask for the cancel/);
      } finally {
        await Promise.all([a, b].filter(Boolean).map(s => s.stop()));
        await model.close();
      }
    });

    test('a start waits while another instance holds the sync lock, then syncs', async () => {
      const db = await backend.fresh();
      const holder = await db.connect();
      let s;
      try {
        const [[{ got }]] = await holder.query('SELECT GET_LOCK(?, 0) AS got', [`netaclaw_sync:${db.database}`]);
        assert.equal(got, 1);
        s = await startServer(db.env, { until: /waiting for lock netaclaw_sync:/ });
        // the instance's own query waits on the lock in the database: it has gone no further
        await until(
          async () =>
            (
              await db.sql("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND STATE = 'User lock' AND INFO LIKE 'SELECT GET_LOCK%'", [
                db.database,
              ])
            )[0].n > 0,
          30000
        );
        assert.doesNotMatch(s.log(), /listening on/, 'no start while the lock is held');
        await holder.query('SELECT RELEASE_LOCK(?)', [`netaclaw_sync:${db.database}`]);
        await waitForLine(s, /listening on/);
        assert.match(s.log(), new RegExp(`catalog sync: ${CATALOG.length} inserts, 0 updates, 0 orphans`));
      } finally {
        await holder.end();
        if (s) await s.stop();
      }
    });
  });
}

async function until(check, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${check}`);
    await new Promise(r => setTimeout(r, 50));
  }
}

async function waitForLine(s, re, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (!re.test(s.log())) {
    if (Date.now() > deadline) assert.fail(`no ${re} within ${timeoutMs} ms; output:\n${s.log()}`);
    await new Promise(r => setTimeout(r, 100));
  }
  if (!s.url) s.url = /listening on (http:\/\/\S+?)\/?\s*$/m.exec(s.log())?.[1];
}

/** An edit through each instance is read back, at once, through the two others; a stale version is refused. */
async function editsAreSeenByTheOthers(servers) {
  for (const [i, s] of servers.entries()) {
    const label = `edited through instance ${i + 1}`;
    const up = await call(s, 'POST', '/admin/netaclaw/tool/update', { name: 'grep', label, sort: i + 1 });
    assert.equal(up.status, 200, up.text);
    for (const other of servers) {
      const row = (await call(other, 'GET', '/admin/netaclaw/tool/info?name=grep')).body.data;
      assert.equal(row.label, label);
      assert.equal(row.sort, i + 1);
      assert.equal(row.version, up.body.data.version);
    }
  }
  const agent = (await call(servers[0], 'POST', '/admin/netaclaw/agent/add', { name: 'shared', toolsets: ['base'] })).body.data;
  const page = await call(servers[2], 'POST', '/admin/netaclaw/agent/page', { name: 'shared' });
  assert.deepEqual(
    page.body.data.list.map(a => a.id),
    [agent.id]
  );
  // two admins on two instances edit the same agent from the same version: the second is refused
  const first = await call(servers[1], 'POST', '/admin/netaclaw/agent/update', { id: agent.id, version: agent.version, toolsets: ['base', 'planning'] });
  assert.equal(first.status, 200, first.text);
  const second = await call(servers[2], 'POST', '/admin/netaclaw/agent/update', { id: agent.id, version: agent.version, toolsets: ['memory'] });
  assert.equal(second.status, 409, second.text);
  assert.equal(second.body.error.code, 'conflict');
  assert.deepEqual(second.body.error.current, first.body.data);
  const seen = (await call(servers[0], 'GET', `/admin/netaclaw/agent/info?id=${agent.id}`)).body.data;
  assert.deepEqual(seen.toolsets, ['base', 'planning']);
}
