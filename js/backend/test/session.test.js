'use strict';
/**
 * The pages' login (src/http/login-session.ts): POST /auth/login exchanges the admin token for an HttpOnly,
 * SameSite=Strict cookie and a request key; both (and, for a request that changes something, a
 * same-origin Origin) open the admin API and the chat WebSocket. The attacks it stops: a cookie replayed
 * by a plain client without the page's key (a browser sends the cookie to every port of the host), a
 * cookie used after its logout (on this instance and, on MariaDB, on another), the cookie of a session a
 * login replaced (rotation), a session idle past its timeout, a state-changing request from another origin
 * or with no origin at all. SQLite and MariaDB.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { WebSocket } = require('ws');
const { startServer, call, TOKEN } = require('./support/server');
const { storageBackends, describeWithBackend, runOnEveryBackend } = require('./support/suites');

const KEY_HEADER = 'x-netaclaw-request-key';

async function login(s, headers = {}) {
  const r = await call(s, 'POST', '/auth/login', { token: TOKEN }, { token: null, headers });
  assert.equal(r.status, 200, r.text);
  const setCookie = r.headers.get('set-cookie');
  assert.match(setCookie, /^netaclaw_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
  assert.match(r.body.data.requestKey, /^[A-Za-z0-9_-]{43}$/);
  return { cookie: setCookie.split(';')[0], key: r.body.data.requestKey, body: r.body.data };
}

/** A request with the session's cookie, `key` (the page's request key, or null) and `origin` (or null). */
function withCookie(s, method, p, session, { key = session.key, origin = s.url, headers = {} } = {}) {
  const h = { cookie: session.cookie, ...headers };
  if (key !== null) h[KEY_HEADER] = key;
  if (origin !== null) h.origin = origin;
  return call(s, method, p, method === 'POST' ? {} : undefined, { token: null, headers: h });
}

/** 101, or { status, code } of a refused handshake. `protocols`: the subprotocols offered. */
function wsOpen(s, headers, protocols) {
  const ws = new WebSocket(s.url.replace(/^http/, 'ws') + '/ws/netaclaw/chat', protocols ?? [], { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      const chosen = ws.protocol;
      ws.close();
      resolve(protocols ? { opened: true, protocol: chosen } : 101);
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', d => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, code: JSON.parse(body).error.code }));
    });
    ws.once('error', reject);
  });
}

const keyProtocols = key => ['netaclaw', `netaclaw-key.${key}`];

async function expectCode(r, status, code, what) {
  assert.equal(r.status, status, `${what}: ${r.text}`);
  assert.equal(r.body.error.code, code, what);
}

async function loggedIn(s, session) {
  const h = { cookie: session.cookie, [KEY_HEADER]: session.key };
  return (await call(s, 'GET', '/auth/state', undefined, { token: null, headers: h })).body.data.loggedIn;
}

function defineTests(backend) {
  test('the token is exchanged for a cookie and a request key that, together, open the API and the WebSocket', async () => {
    const db = await backend.fresh();
    const s = await startServer(db.env);
    try {
      assert.deepEqual((await call(s, 'GET', '/auth/state', undefined, { token: null })).body.data, { loggedIn: false });
      const a = await login(s);
      assert.ok(!a.cookie.includes(TOKEN) && a.key !== TOKEN, 'neither is the token');
      assert.equal(a.body.idleSeconds, 3600, 'the default idle timeout');
      assert.equal(await loggedIn(s, a), true);
      assert.equal((await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a)).status, 200);
      assert.equal((await withCookie(s, 'POST', '/admin/netaclaw/agent/page', a)).status, 200);
      // a same-origin POST under Referrer-Policy no-referrer: Origin null with Sec-Fetch-Site same-origin
      const nullSame = await withCookie(s, 'POST', '/admin/netaclaw/agent/page', a, { origin: 'null', headers: { 'sec-fetch-site': 'same-origin' } });
      assert.equal(nullSame.status, 200, nullSame.text);
      assert.deepEqual(await wsOpen(s, { cookie: a.cookie, origin: s.url }, keyProtocols(a.key)), { opened: true, protocol: 'netaclaw' });
      // the bearer header still works for API clients (and the WebSocket's ?token=)
      assert.equal((await call(s, 'GET', '/admin/netaclaw/tool/all')).status, 200);
      assert.equal((await call(s, 'POST', '/admin/netaclaw/agent/page', {})).status, 200);
      // the table holds hashes only: neither the cookie's secret nor the key
      const rows = await db.sql('SELECT * FROM netaclaw_login_session');
      assert.equal(rows.length, 1);
      const stored = JSON.stringify(rows);
      assert.ok(!stored.includes(a.cookie.split('=')[1]) && !stored.includes(a.key), stored);
    } finally {
      await s.stop();
    }
  });

  test('port replay: the cookie alone, replayed by a plain client with a forged Origin, opens nothing', async () => {
    const db = await backend.fresh();
    const s = await startServer(db.env);
    try {
      const a = await login(s);
      const other = await login(s);
      // what another local port receives from the browser: the cookie, not the page's storage
      for (const [what, key] of [
        ['no key', null],
        ['another session’s key', other.key],
        ['a made-up key', 'A'.repeat(43)],
        ['a malformed key', 'x'],
      ]) {
        await expectCode(await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a, { key }), 401, 'request_key_required', `GET, ${what}`);
        await expectCode(
          await withCookie(s, 'POST', '/admin/netaclaw/agent/page', a, { key }),
          401,
          'request_key_required',
          `POST with forged Origin, ${what}`
        );
        assert.equal(await loggedIn(s, { ...a, key }), false, what);
        const protocols = key === null ? undefined : keyProtocols(key);
        assert.deepEqual(await wsOpen(s, { cookie: a.cookie, origin: s.url }, protocols), { status: 401, code: 'request_key_required' }, `WebSocket, ${what}`);
      }
      // the session itself is untouched: its page goes on
      assert.equal((await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a)).status, 200);
      // forged, unknown cookies: unauthorized, as no cookie
      for (const value of ['v1.99999999999.AAAAAAAAAAAAAAAAAAAAAA.' + 'A'.repeat(43), 'A'.repeat(43), TOKEN]) {
        const forged = { cookie: `netaclaw_session=${value}`, key: a.key };
        await expectCode(await withCookie(s, 'GET', '/admin/netaclaw/tool/all', forged), 401, 'unauthorized', value);
        assert.deepEqual(await wsOpen(s, { cookie: forged.cookie, origin: s.url }, keyProtocols(a.key)), { status: 401, code: 'unauthorized' });
      }
    } finally {
      await s.stop();
    }
  });

  test('a state-changing request by cookie needs a same-origin Origin: another origin, none at all, a cross-site fetch are 403', async () => {
    const db = await backend.fresh();
    const s = await startServer(db.env);
    try {
      const a = await login(s);
      const cases = {
        'another origin': { origin: 'http://evil.example' },
        'another port of this host': { origin: s.url.replace(/:\d+$/, ':1') },
        'no Origin, no Sec-Fetch-Site': { origin: null },
        'Origin null alone': { origin: 'null' },
        'Origin null, cross-site': { origin: 'null', headers: { 'sec-fetch-site': 'cross-site' } },
        'same-site fetch': { origin: null, headers: { 'sec-fetch-site': 'same-site' } },
        'an unparsable Origin': { origin: 'not a url' },
      };
      for (const [what, opts] of Object.entries(cases)) {
        await expectCode(await withCookie(s, 'POST', '/admin/netaclaw/agent/page', a, opts), 403, 'cors_origin_refused', what);
      }
      // a GET (changes nothing) without Origin is the pages' own; from another origin it is refused as well
      assert.equal((await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a, { origin: null })).status, 200);
      await expectCode(
        await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a, { origin: 'http://evil.example' }),
        403,
        'cors_origin_refused',
        'GET from another origin'
      );
      // the WebSocket handshake: another origin, or none
      assert.deepEqual(await wsOpen(s, { cookie: a.cookie, origin: 'http://evil.example' }, keyProtocols(a.key)), { status: 403, code: 'cors_origin_refused' });
      assert.deepEqual(await wsOpen(s, { cookie: a.cookie }, keyProtocols(a.key)), { status: 403, code: 'cors_origin_refused' });
      // a login from another site gets no cookie; a logout from another site ends nothing
      const crossLogin = await call(s, 'POST', '/auth/login', { token: TOKEN }, { token: null, headers: { origin: 'http://evil.example' } });
      assert.equal(crossLogin.status, 403);
      assert.equal(crossLogin.headers.get('set-cookie'), null);
      await expectCode(await withCookie(s, 'POST', '/auth/logout', a, { origin: 'http://evil.example' }), 403, 'cors_origin_refused', 'cross-site logout');
      await expectCode(await withCookie(s, 'POST', '/auth/logout', a, { origin: null }), 403, 'cors_origin_refused', 'logout without Origin');
      assert.equal(await loggedIn(s, a), true, 'the refused logouts ended nothing');
    } finally {
      await s.stop();
    }
  });

  test('a logout ends the session on the server: its cookie and key are refused from then on', async () => {
    const db = await backend.fresh();
    const s = await startServer(db.env);
    try {
      const a = await login(s);
      const b = await login(s); // another browser
      const out = await withCookie(s, 'POST', '/auth/logout', a);
      assert.equal(out.status, 200, out.text);
      assert.deepEqual(out.body.data, { loggedIn: false, ended: true });
      assert.match(out.headers.get('set-cookie'), /^netaclaw_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
      // the old cookie, kept by a client that ignores the removal, is refused everywhere
      await expectCode(await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a), 401, 'unauthorized', 'GET after logout');
      await expectCode(await withCookie(s, 'POST', '/admin/netaclaw/agent/page', a), 401, 'unauthorized', 'POST after logout');
      assert.equal(await loggedIn(s, a), false);
      assert.deepEqual(await wsOpen(s, { cookie: a.cookie, origin: s.url }, keyProtocols(a.key)), { status: 401, code: 'unauthorized' });
      // a second logout has nothing to end; the other browser's session lives on
      assert.equal((await withCookie(s, 'POST', '/auth/logout', a)).body.data.ended, false);
      assert.equal(await loggedIn(s, b), true);
      assert.equal((await withCookie(s, 'GET', '/admin/netaclaw/tool/all', b)).status, 200);
    } finally {
      await s.stop();
    }
    // and after a restart
    const s2 = await startServer(db.env);
    try {
      const c = await login(s2);
      await withCookie(s2, 'POST', '/auth/logout', c);
      await s2.stop();
      const s3 = await startServer(db.env);
      try {
        assert.equal(await loggedIn(s3, c), false, 'a logout holds across a restart');
      } finally {
        await s3.stop();
      }
    } finally {
      await s2.stop();
    }
  });

  test('a login rotates the session: the cookie it was sent with is ended, a new cookie and key are given', async () => {
    const db = await backend.fresh();
    const s = await startServer(db.env);
    try {
      const first = await login(s);
      const bystander = await login(s); // another browser, no cookie sent: untouched
      const second = await login(s, { cookie: first.cookie });
      assert.notEqual(second.cookie, first.cookie);
      assert.notEqual(second.key, first.key);
      await expectCode(await withCookie(s, 'GET', '/admin/netaclaw/tool/all', first), 401, 'unauthorized', 'the cookie before the login');
      // the old cookie with the new key is no session either
      await expectCode(
        await withCookie(s, 'GET', '/admin/netaclaw/tool/all', { cookie: first.cookie, key: second.key }),
        401,
        'unauthorized',
        'old cookie, new key'
      );
      assert.equal((await withCookie(s, 'GET', '/admin/netaclaw/tool/all', second)).status, 200);
      assert.equal(await loggedIn(s, bystander), true);
      assert.equal(Number((await db.sql('SELECT COUNT(*) AS n FROM netaclaw_login_session'))[0].n), 2);
    } finally {
      await s.stop();
    }
  });

  test('a session idle past NETACLAW_SESSION_IDLE_SECONDS ends; its use moves its last-use time forward', async () => {
    const db = await backend.fresh();
    const IDLE = 3;
    const s = await startServer({ ...db.env, NETACLAW_SESSION_IDLE_SECONDS: String(IDLE) });
    try {
      const a = await login(s);
      assert.equal(a.body.idleSeconds, IDLE);
      const seen = async () => Number((await db.sql('SELECT seenTime FROM netaclaw_login_session'))[0].seenTime);
      const t0 = await seen();
      // used after a quarter of the timeout: the last use is written forward
      let t1 = t0;
      const deadline = Date.now() + 20000;
      while (t1 === t0 && Date.now() < deadline) {
        await new Promise(r => setTimeout(r, 300));
        assert.equal((await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a)).status, 200);
        t1 = await seen();
      }
      assert.ok(t1 > t0, `the last use moved forward (${t0} → ${t1})`);
      // then left alone: asked with the cookie and no request key (refused before the session is used, so
      // its last use stays where it is) until the session is gone rather than missing its key: never
      // before the timeout has passed since the last use, at most a generous margin after it
      let idle;
      for (;;) {
        idle = await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a, { key: null });
        assert.equal(idle.status, 401, idle.text);
        if (idle.body.error.code !== 'request_key_required') break;
        assert.ok(Date.now() < t1 + IDLE * 1000 + 15000, 'the idle session has ended');
        await new Promise(r => setTimeout(r, 100));
      }
      await expectCode(idle, 401, 'unauthorized', 'idle session');
      assert.ok(Date.now() >= t1 + IDLE * 1000, `not before the idle timeout (${Date.now() - t1} ms after the last use)`);
      await expectCode(await withCookie(s, 'GET', '/admin/netaclaw/tool/all', a), 401, 'unauthorized', 'idle session, with its key');
      assert.equal(await loggedIn(s, a), false);
      assert.equal(Number((await db.sql('SELECT COUNT(*) AS n FROM netaclaw_login_session'))[0].n), 0, 'the idle row is deleted');
      // a new login works
      const b = await login(s);
      assert.equal((await withCookie(s, 'GET', '/admin/netaclaw/tool/all', b)).status, 200);
    } finally {
      await s.stop();
    }
  });

  test('a new admin token ends every session', async () => {
    const db = await backend.fresh();
    const s = await startServer(db.env);
    let a;
    try {
      a = await login(s);
    } finally {
      await s.stop();
    }
    const s2 = await startServer({ ...db.env, ADMIN_TOKEN: 'another-admin-token-0123456789' });
    try {
      await expectCode(await withCookie(s2, 'GET', '/admin/netaclaw/tool/all', a), 401, 'unauthorized', 'session of the old token');
    } finally {
      await s2.stop();
    }
  });
}

runOnEveryBackend(defineTests);

for (const [label, makeBackend] of storageBackends({ only: 'mariadb' })) {
  describeWithBackend(`login sessions across instances · ${label}`, makeBackend, backend => {
    test('a logout on one instance is seen at once by another; a login on either opens both', async () => {
      const db = await backend.fresh();
      const [a, b] = await Promise.all([startServer(db.env), startServer(db.env)]);
      try {
        const session = await login(a);
        assert.equal((await withCookie(b, 'GET', '/admin/netaclaw/tool/all', session)).status, 200, 'made on a, used on b');
        assert.equal((await withCookie(b, 'POST', '/admin/netaclaw/agent/page', session, { origin: b.url })).status, 200);
        const out = await withCookie(a, 'POST', '/auth/logout', session);
        assert.equal(out.body.data.ended, true);
        await expectCode(await withCookie(b, 'GET', '/admin/netaclaw/tool/all', session), 401, 'unauthorized', 'on b after the logout on a');
        assert.deepEqual(await wsOpen(b, { cookie: session.cookie, origin: b.url }, keyProtocols(session.key)), { status: 401, code: 'unauthorized' });
        // rotation across instances: a login on b with a's cookie ends it on a
        const first = await login(a);
        const second = await login(b, { cookie: first.cookie });
        await expectCode(await withCookie(a, 'GET', '/admin/netaclaw/tool/all', first), 401, 'unauthorized', 'rotated on b, used on a');
        assert.equal((await withCookie(a, 'GET', '/admin/netaclaw/tool/all', second)).status, 200);
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    });
  });
}
