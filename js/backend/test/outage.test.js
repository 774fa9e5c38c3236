'use strict';
/**
 * The database going away and coming back, and stopping an instance in every state: 503 with a code
 * (never 500) while the database is gone, /health saying so, reconnection without a restart, no
 * spinning, and SIGTERM obeyed within seconds — starting, syncing, serving, database gone.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startServer, call, cpuSeconds, sandboxHealth, NO_BUS } = require('./support/server');
const { storageBackends, describeWithBackend } = require('./support/suites');
const policy = require('@netaclaw/tool-policy');

const CATALOG = policy.builtinCatalog().map(t => t.name);
/** "Within seconds": the stop budget is SHUTDOWN_TIMEOUT_MS (5 s by default); allow for a slow machine. */
const STOP_LIMIT_MS = 10000;

const sleep = ms => new Promise(r => setTimeout(r, ms));

async function health(s) {
  return call(s, 'GET', '/health', undefined, { token: null });
}

async function waitFor(what, fn, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await sleep(200);
  }
}

/**
 * Whether a TCP socket listening side of `port` (the database server's end of a connection) holds bytes
 * it has not read (the kernel's receive queue: /proc/net/tcp and tcp6).
 */
function unreadAt(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 5 || !f[1].endsWith(`:${hex}`)) continue;
      // tx_queue:rx_queue, in hex
      if (Number.parseInt(f[4].split(':')[1], 16) > 0) return true;
    }
  }
  return false;
}

function assertStoppedQuickly(t, r, state, log) {
  assert.equal(r.killed, false, `${state}: needed SIGKILL; output:\n${log}`);
  assert.ok(r.ms < STOP_LIMIT_MS, `${state}: took ${r.ms} ms to stop; output:\n${log}`);
  t.diagnostic(`stopped in ${r.ms} ms after SIGTERM: ${state}`);
}

/** Every route that needs the database, with a body that would succeed if it were there. */
function routesNeedingTheDatabase(agentId, toolId) {
  return [
    ['GET', '/admin/netaclaw/tool/all'],
    ['POST', '/admin/netaclaw/tool/page', {}],
    ['GET', `/admin/netaclaw/tool/info?id=${toolId}`],
    ['POST', '/admin/netaclaw/tool/update', { id: toolId, label: 'while down' }],
    ['POST', '/admin/netaclaw/tool/sync'],
    ['GET', '/admin/netaclaw/tool/forAgent'],
    ['POST', '/admin/netaclaw/tool/diagnostic', { agentId }],
    ['POST', '/admin/netaclaw/agent/add', { name: 'while down' }],
    ['GET', `/admin/netaclaw/agent/info?id=${agentId}`],
    ['POST', '/admin/netaclaw/agent/update', { id: agentId, name: 'while down' }],
    ['POST', '/admin/netaclaw/agent/page', {}],
    ['POST', '/admin/netaclaw/agent/previewPrompt', { id: agentId }],
    ['POST', '/admin/netaclaw/agent/previewPrompt', { agent: { toolsets: ['base'] } }],
  ];
}

for (const [label, makeBackend] of storageBackends()) {
  const mariadb = label !== 'SQLite';
  describeWithBackend(`outage and stop · ${label}`, makeBackend, backend => {
    test('SIGTERM stops an instance within seconds: starting, syncing (mid-transaction), serving', async t => {
      const started = [];
      const start = async (env, opts) => {
        const s = await startServer(env, opts);
        started.push(s);
        return s;
      };
      try {
        // starting: 300 ms after the spawn (loading), and once it prints its first line
        for (const until of [300, /\S/]) {
          const db = await backend.fresh();
          const starting = await start(db.env, { until });
          assert.doesNotMatch(starting.log(), /listening on/);
          assertStoppedQuickly(t, await starting.sigterm(), `starting (${until})`, starting.log());
        }

        // syncing: stopped inside the catalog sync's transaction, after its first write
        const db = await backend.fresh();
        const syncing = await start({ ...db.env, NETACLAW_TEST_SYNC_PAUSE_MS: '60000' }, { until: /sync paused/ });
        assertStoppedQuickly(t, await syncing.sigterm(), 'syncing', syncing.log());
        assert.doesNotMatch(syncing.log(), /listening on/);
        assert.deepEqual(await db.sql('SELECT name FROM netaclaw_tool'), [], 'the interrupted sync wrote nothing');
        // the next start syncs everything
        const next = await start(db.env);
        assert.deepEqual(next.syncLine, { inserts: CATALOG.length, updates: 0, orphans: 0 });

        // serving (after some traffic): a clean stop, exit code 0
        for (let i = 0; i < 5; i++) assert.equal((await call(next, 'GET', '/admin/netaclaw/tool/all')).status, 200);
        const r = await next.sigterm();
        assertStoppedQuickly(t, r, 'serving', next.log());
        assert.equal(r.code, 0, next.log());
      } finally {
        for (const s of started) await s.stop();
      }
    });

    if (!mariadb) return;

    test('database gone: 503 database_unavailable on every route that needs it, /health 503; back without a restart', async t => {
      const db = await backend.fresh();
      const www = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-www-'));
      fs.writeFileSync(path.join(www, 'index.html'), '<!doctype html><title>NetaClaw</title>');
      const s = await startServer({ ...db.env, STATIC_DIR: www, DB_RETRY_MAX_MS: '1000' });
      try {
        const h0 = await health(s);
        assert.equal(h0.status, 200);
        assert.deepEqual(h0.body, { data: { status: 'ok', database: 'up', shellSandbox: 'bwrap', sandbox: sandboxHealth(), bus: NO_BUS } });
        const agentId = (await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'a' })).body.data.id;
        const toolId = (await call(s, 'GET', '/admin/netaclaw/tool/info?name=bash')).body.data.id;

        await backend.stopServer();
        for (const [method, p, body] of routesNeedingTheDatabase(agentId, toolId)) {
          const r = await call(s, method, p, body);
          assert.equal(r.status, 503, `${method} ${p} → ${r.status} ${r.text}`);
          assert.equal(r.body.error.code, 'database_unavailable', r.text);
          assert.ok(r.body.error.message.length > 0);
          assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${method} ${p}: Retry-After`);
        }
        const h1 = await health(s);
        assert.equal(h1.status, 503, h1.text);
        assert.deepEqual(h1.body, { data: { status: 'degraded', database: 'down', shellSandbox: 'bwrap', sandbox: sandboxHealth(), bus: NO_BUS } });
        // what needs no database still works: the pages, auth
        assert.equal((await call(s, 'GET', '/', undefined, { token: null })).status, 200);
        assert.equal((await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { token: 'wrong' })).status, 401);
        // one log line for the outage, not one per request
        assert.equal(s.log().match(/database unavailable/g)?.length, 1, s.log());
        assert.doesNotMatch(s.log(), /internal_error|failed: /);

        await backend.startServer(); // same port, same datadir
        const restarted = Date.now();
        await waitFor('health back to 200', async () => (await health(s)).status === 200);
        t.diagnostic(`health back to 200 ${Date.now() - restarted} ms after mariadbd accepted connections again`);
        assert.deepEqual((await health(s)).body, { data: { status: 'ok', database: 'up', shellSandbox: 'bwrap', sandbox: sandboxHealth(), bus: NO_BUS } });
        const all = await call(s, 'GET', '/admin/netaclaw/tool/all');
        assert.equal(all.status, 200, all.text);
        assert.deepEqual(all.body.data.map(r => r.name).sort(), [...CATALOG].sort());
        const up = await call(s, 'POST', '/admin/netaclaw/tool/update', { id: toolId, label: 'after the outage' });
        assert.equal(up.status, 200, up.text);
        assert.equal(up.body.data.label, 'after the outage');
        assert.match(s.log(), /database reachable again/);
        assert.equal(s.child.exitCode, null, 'the same process served before, during and after');
        assert.ok(s.log().match(/listening on/g).length === 1, 'never restarted');
      } finally {
        await backend.startServer();
        await s.stop();
        fs.rmSync(www, { recursive: true, force: true });
      }
    });

    test('idle while the database is gone, with its output pipe closed: no spinning, SIGTERM obeyed', async t => {
      const db = await backend.fresh();
      const s = await startServer(db.env);
      try {
        // the process that started it goes away: its stdout/stderr pipes close
        s.child.stdout.destroy();
        s.child.stderr.destroy();
        await backend.stopServer();
        // both now make the instance write to the closed pipes (the outage line; the error path)
        assert.equal((await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { timeoutMs: 5000 })).status, 503);
        assert.equal((await call(s, 'POST', '/admin/netaclaw/tool/page', { page: 'x' }, { timeoutMs: 5000 })).status, 400);
        const cpu0 = cpuSeconds(s.child.pid);
        const t0 = Date.now();
        // a measuring window, not a wait for something to happen: the CPU the idle instance uses in it
        await sleep(3000); // sleep-lint: measuring window
        const used = cpuSeconds(s.child.pid) - cpu0;
        const wall = (Date.now() - t0) / 1000;
        assert.ok(used < 0.3 * wall, `idle instance used ${used.toFixed(2)} s of CPU in ${wall.toFixed(1)} s`);
        t.diagnostic(`idle, database gone, output closed: ${used.toFixed(2)} s of CPU in ${wall.toFixed(1)} s`);
        const h = await call(s, 'GET', '/health', undefined, { token: null, timeoutMs: 5000 });
        assert.equal(h.status, 503, 'it still answers');
        const r = await s.sigterm();
        assertStoppedQuickly(t, r, 'database gone, output closed', '(output closed)');
      } finally {
        await backend.startServer();
        await s.stop();
      }
    });

    test('SIGTERM within seconds: waiting for the database, waiting for the sync lock, database gone or frozen', async t => {
      // starting, the database not reachable yet (the start would wait up to DB_WAIT_SECONDS)
      const db1 = await backend.fresh();
      await backend.stopServer();
      try {
        const waiting = await startServer({ ...db1.env, DB_WAIT_SECONDS: '120' }, { until: /not reachable yet/ });
        assertStoppedQuickly(t, await waiting.sigterm(), 'waiting for the database', waiting.log());
      } finally {
        await backend.startServer();
      }

      // syncing, waiting for the lock another instance holds
      const db2 = await backend.fresh();
      const holder = await db2.connect();
      try {
        const [[{ got }]] = await holder.query('SELECT GET_LOCK(?, 0) AS got', [`netaclaw_sync:${db2.database}`]);
        assert.equal(got, 1);
        const blocked = await startServer(db2.env, { until: /waiting for lock/ });
        assertStoppedQuickly(t, await blocked.sigterm(), 'waiting for the sync lock', blocked.log());
      } finally {
        await holder.end();
      }

      // serving, the database gone
      const db3 = await backend.fresh();
      const gone = await startServer(db3.env);
      await backend.stopServer();
      try {
        assert.equal((await call(gone, 'GET', '/admin/netaclaw/tool/all')).status, 503);
        const r = await gone.sigterm();
        assertStoppedQuickly(t, r, 'database gone', gone.log());
        assert.equal(r.code, 0, gone.log());
      } finally {
        await backend.startServer();
      }

      // serving, a request stuck on a pooled connection to a database that stopped answering (frozen
      // server: the socket stays open, the query never returns, and a graceful stop would wait for it)
      const db4 = await backend.fresh();
      const frozen = await startServer(db4.env);
      assert.equal((await call(frozen, 'GET', '/admin/netaclaw/tool/all')).status, 200);
      backend.freezeServer();
      try {
        const stuck = call(frozen, 'GET', '/admin/netaclaw/tool/all').catch(e => e);
        // the request's query has reached the frozen server: it waits, unread, in the server's socket
        await waitFor('a query waiting in the frozen server', () => unreadAt(backend.port), 10000);
        assertStoppedQuickly(t, await frozen.sigterm(), 'database frozen', frozen.log());
        await stuck;
      } finally {
        backend.thawServer();
      }
    });
  });
}
