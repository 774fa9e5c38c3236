'use strict';
/**
 * The pages' login: POST /auth/login exchanges the admin token for an HttpOnly, SameSite=Strict
 * session cookie that authenticates the admin API and the chat WebSocket; the bearer header keeps
 * working for API clients; a wrong token, a forged or expired cookie, or a cookie sent from another
 * origin is refused. SQLite only.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { WebSocket } = require('ws');
const { startServer, call, TOKEN, BACKEND_ROOT } = require('./support/server');
const { sqliteBackend } = require('./support/db');

const dist = name => require(path.join(BACKEND_ROOT, 'dist', name));

function wsOpen(server, headers) {
  const ws = new WebSocket(server.url.replace(/^http/, 'ws') + '/ws/netaclaw/chat', { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', d => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, code: JSON.parse(body).error.code }));
    });
    ws.once('error', reject);
  });
}

describe('login session cookie', () => {
  let backend;
  let s;
  before(async () => {
    backend = await sqliteBackend();
    s = await startServer((await backend.fresh()).env);
  });
  after(async () => {
    if (s) await s.stop();
    if (backend) await backend.stop();
  });

  test('the token is exchanged for an HttpOnly SameSite=Strict cookie that opens the API and the WebSocket', async () => {
    const noCookie = await call(s, 'GET', '/auth/state', undefined, { token: null });
    assert.deepEqual(noCookie.body.data, { loggedIn: false });

    const login = await call(s, 'POST', '/auth/login', { token: TOKEN }, { token: null });
    assert.equal(login.status, 200, login.text);
    const setCookie = login.headers.get('set-cookie');
    assert.match(setCookie, /^netaclaw_session=v1\.[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    assert.ok(!setCookie.includes(TOKEN), 'the cookie is not the token');
    const cookie = setCookie.split(';')[0];

    const state = await call(s, 'GET', '/auth/state', undefined, { token: null, headers: { cookie } });
    assert.deepEqual(state.body.data, { loggedIn: true });
    const tools = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { token: null, headers: { cookie } });
    assert.equal(tools.status, 200, tools.text);
    const origin = s.url;
    const post = await call(s, 'POST', '/admin/netaclaw/agent/page', {}, { token: null, headers: { cookie, origin } });
    assert.equal(post.status, 200, post.text);
    assert.equal(await wsOpen(s, { cookie, origin }), 101);
    // the bearer header still works for API clients
    assert.equal((await call(s, 'GET', '/admin/netaclaw/tool/all')).status, 200);

    // a page of another origin cannot use the cookie (REST nor WebSocket)
    const foreign = await call(s, 'POST', '/admin/netaclaw/agent/page', {}, { token: null, headers: { cookie, origin: 'http://evil.example' } });
    assert.equal(foreign.status, 401, foreign.text);
    assert.deepEqual(await wsOpen(s, { cookie, origin: 'http://evil.example' }), { status: 403, code: 'cors_origin_refused' });

    // under Referrer-Policy no-referrer a same-origin POST says `Origin: null`: accepted with Sec-Fetch-Site same-origin only
    const nullSame = await call(s, 'POST', '/admin/netaclaw/agent/page', {}, { token: null, headers: { cookie, origin: 'null', 'sec-fetch-site': 'same-origin' } });
    assert.equal(nullSame.status, 200, nullSame.text);
    for (const headers of [{ origin: 'null' }, { origin: 'null', 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }]) {
      const r = await call(s, 'POST', '/admin/netaclaw/agent/page', {}, { token: null, headers: { cookie, ...headers } });
      assert.equal(r.status, 401, JSON.stringify(headers));
    }
    // a login from another site gets no cookie
    const crossLogin = await call(s, 'POST', '/auth/login', { token: TOKEN }, { token: null, headers: { origin: 'http://evil.example' } });
    assert.equal(crossLogin.status, 403);
    assert.equal(crossLogin.headers.get('set-cookie'), null);

    // logout removes the cookie
    const out = await call(s, 'POST', '/auth/logout', {}, { token: null, headers: { cookie } });
    assert.match(out.headers.get('set-cookie'), /^netaclaw_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
  });

  test('a wrong token gets no cookie; forged, expired and other-token cookies are refused', async () => {
    const wrong = await call(s, 'POST', '/auth/login', { token: 'wrong' }, { token: null });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'unauthorized');
    assert.equal(wrong.headers.get('set-cookie'), null);
    const empty = await call(s, 'POST', '/auth/login', {}, { token: null });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.code, 'invalid_input');

    const { issueSession, sessionValid } = dist('session.js');
    const good = issueSession(TOKEN).value;
    assert.equal(sessionValid(good, TOKEN), true);
    const [v, exp, nonce, mac] = good.split('.');
    const flipped = mac[0] === 'A' ? 'B' + mac.slice(1) : 'A' + mac.slice(1);
    const cases = {
      'other admin token': issueSession('another-token').value,
      'expired': issueSession(TOKEN, Date.now() - 13 * 3600 * 1000).value,
      'forged mac': [v, exp, nonce, flipped].join('.'),
      'longer life, same mac': [v, String(Number(exp) + 3600), nonce, mac].join('.'),
      'the token itself': TOKEN,
    };
    for (const [what, value] of Object.entries(cases)) {
      assert.equal(sessionValid(value, TOKEN), false, what);
      const r = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { token: null, headers: { cookie: `netaclaw_session=${value}` } });
      assert.equal(r.status, 401, what);
      assert.deepEqual((await call(s, 'GET', '/auth/state', undefined, { token: null, headers: { cookie: `netaclaw_session=${value}` } })).body.data, { loggedIn: false }, what);
      assert.deepEqual(await wsOpen(s, { cookie: `netaclaw_session=${value}`, origin: s.url }), { status: 401, code: 'unauthorized' }, what);
    }
  });
});
