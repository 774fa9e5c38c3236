'use strict';
/**
 * The HTTP surface: constant-time token comparison, the body size limit (413), failed-token limiting
 * (429), security headers with a Content-Security-Policy, CORS closed by default. Storage does not
 * matter here: SQLite only.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { startServer, call, TOKEN, BACKEND_ROOT } = require('./support/server');
const { sqliteBackend } = require('./support/db');

const dist = name => require(path.join(BACKEND_ROOT, 'dist', name));

/** A request from a chosen local address (127.0.0.2 is another client on loopback). */
function requestFrom(localAddress, server, method, p, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(server.url + p, { method, headers, localAddress }, res => {
      let text = '';
      res.on('data', d => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends `body` without a Content-Length (chunked), in pieces. */
function postChunked(server, p, chunks) {
  return new Promise((resolve, reject) => {
    const req = http.request(server.url + p, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('response', res => {
      let text = '';
      res.on('data', d => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
    });
    req.on('error', err => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? undefined : reject(err)));
    for (const c of chunks) req.write(c);
    req.end();
  });
}

function parseCsp(header) {
  const out = {};
  for (const part of header.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out[name] = values;
  }
  return out;
}

describe('HTTP surface', () => {
  let backend;
  before(async () => {
    backend = await sqliteBackend();
  });
  after(async () => {
    if (backend) await backend.stop();
  });

  test('token comparison is constant-time: equal-length digests through crypto.timingSafeEqual', () => {
    const { tokenMatches } = dist('http/admin-token.js');
    const original = crypto.timingSafeEqual;
    const seen = [];
    crypto.timingSafeEqual = (a, b) => {
      seen.push([a.length, b.length]);
      return original(a, b);
    };
    try {
      assert.equal(tokenMatches(TOKEN, TOKEN), true);
      assert.equal(tokenMatches(TOKEN + 'x', TOKEN), false);
      assert.equal(tokenMatches('', TOKEN), false);
      assert.equal(tokenMatches('x'.repeat(100000), TOKEN), false);
      assert.equal(tokenMatches('ä', 'a'), false);
    } finally {
      crypto.timingSafeEqual = original;
    }
    assert.deepEqual(seen, Array(5).fill([32, 32]), 'every comparison, whatever the lengths, is of two 32-byte digests');
  });

  test('a body over 1 MB: 413 payload_too_large, nothing written; unauthenticated bodies are not read', async () => {
    const db = await backend.fresh();
    const s = await startServer(db.env);
    try {
      const big = JSON.stringify({ name: 'bash', label: 'too big', padding: 'x'.repeat(1024 * 1024) });
      const r = await call(s, 'POST', '/admin/netaclaw/tool/update', undefined, { raw: big });
      assert.equal(r.status, 413, r.text);
      assert.equal(r.body.error.code, 'payload_too_large');
      assert.match(r.body.error.message, /too large/i);
      // the same without a Content-Length, sent in pieces
      const piece = 'x'.repeat(64 * 1024);
      const chunked = await postChunked(s, '/admin/netaclaw/tool/update', ['{"name":"bash","label":"too big","padding":"', ...Array(20).fill(piece), '"}']);
      assert.equal(chunked.status, 413, JSON.stringify(chunked.body));
      assert.equal(chunked.body.error.code, 'payload_too_large');
      assert.equal((await call(s, 'GET', '/admin/netaclaw/tool/info?name=bash')).body.data.label, 'bash', 'nothing written');
      // just under the limit is fine
      const fits = JSON.stringify({ name: 'bash', label: 'fits', padding: 'x'.repeat(1000000) });
      const ok = await call(s, 'POST', '/admin/netaclaw/tool/update', undefined, { raw: fits });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.data.label, 'fits');
      // without a token the body is refused before it is read
      const anon = await call(s, 'POST', '/admin/netaclaw/tool/update', undefined, { raw: big, token: null });
      assert.equal(anon.status, 401);
    } finally {
      await s.stop();
    }
  });

  test('failed tokens are limited per client address: 429 with Retry-After; the right token never is', async () => {
    const db = await backend.fresh();
    const s = await startServer({ ...db.env, AUTH_FAIL_LIMIT: '5', AUTH_FAIL_WINDOW_SECONDS: '3' });
    try {
      const wrong = () => call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { token: 'guess' });
      for (let i = 1; i <= 5; i++) {
        const r = await wrong();
        assert.equal(r.status, 401, `failure ${i}`);
        assert.equal(r.body.error.code, 'unauthorized');
      }
      const t0 = Date.now();
      const limited = await wrong();
      assert.equal(limited.status, 429, limited.text);
      assert.equal(limited.body.error.code, 'too_many_requests');
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 3, `Retry-After ${limited.headers.get('retry-after')}`);
      assert.equal((await wrong()).status, 429, 'still limited');
      // the right token from the same address is never limited
      const ok = await call(s, 'GET', '/admin/netaclaw/tool/all');
      assert.equal(ok.status, 200);
      // no token at all is not a guess: 401, and not counted
      const none = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { token: null });
      assert.equal(none.status, 401);
      // another address has its own count
      const other = await requestFrom('127.0.0.2', s, 'GET', '/admin/netaclaw/tool/all', { authorization: 'Bearer guess' });
      assert.equal(other.status, 401, JSON.stringify(other.body));
      const otherOk = await requestFrom('127.0.0.2', s, 'GET', '/admin/netaclaw/tool/all', { authorization: `Bearer ${TOKEN}` });
      assert.equal(otherOk.status, 200);
      // once the window has ended, a wrong token is a plain 401 again: asked until it is (a wrong token
      // in the window does not lengthen it), never before the window's end, at most a little after it
      let again;
      for (;;) {
        again = await wrong();
        if (again.status !== 429) break;
        assert.ok(Date.now() - t0 < 3000 + 5000, 'the window of 3 s has ended');
        await new Promise(r => setTimeout(r, 100));
      }
      assert.equal(again.status, 401, again.text);
      assert.ok(Date.now() - t0 > (retryAfter - 1) * 1000, `not before the window's end (${Date.now() - t0} ms, Retry-After ${retryAfter})`);
    } finally {
      await s.stop();
    }
  });

  test('the failure count is bounded in memory and keyed per IPv4 address or IPv6 /64', () => {
    const { FailedAuthLimiter, clientKey } = dist('http/authlimit.js');
    assert.equal(clientKey('127.0.0.1'), '127.0.0.1');
    assert.equal(clientKey('::ffff:10.1.2.3'), '10.1.2.3');
    assert.equal(clientKey('2001:db8:1:2:3:4:5:6'), clientKey('2001:0db8:0001:0002::9'));
    assert.equal(clientKey('2001:db8:1:2::1%eth0'), clientKey('2001:db8:1:2:ffff::'));
    assert.notEqual(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:3::1'));
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    const limiter = new FailedAuthLimiter(3, 60000, 1000);
    for (let i = 0; i < 20000; i++) limiter.recordFailure(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    assert.equal(limiter.size, 1000, 'never more than the cap');
    // counting still works for an address after the flood
    for (let i = 1; i <= 3; i++) assert.equal(limiter.recordFailure('192.0.2.1'), 0);
    assert.ok(limiter.recordFailure('192.0.2.1') > 0);
  });

  test("the failure window is the clock's: limited until it ends, counted anew after, never lengthened by more guesses", () => {
    const { FailedAuthLimiter } = dist('http/authlimit.js');
    const { ManualClock } = dist('lib/clock.js');
    const clock = new ManualClock(1_000_000);
    const limiter = new FailedAuthLimiter(2, 3000, 100, clock);
    assert.equal(limiter.recordFailure('192.0.2.7'), 0);
    clock.advance(1000);
    assert.equal(limiter.recordFailure('192.0.2.7'), 0);
    assert.equal(limiter.recordFailure('192.0.2.7'), 2, 'the third guess in the window waits the 2 s left of it');
    clock.advance(1999);
    assert.equal(limiter.recordFailure('192.0.2.7'), 1, 'still limited 1 ms before the end, guesses do not lengthen it');
    clock.advance(1);
    assert.equal(limiter.recordFailure('192.0.2.7'), 0, 'at the end of the window the count starts over');
    assert.equal(limiter.recordFailure('192.0.2.7'), 0);
    assert.equal(limiter.recordFailure('192.0.2.7'), 3);
  });

  test('security headers and the Content-Security-Policy on pages, API answers and errors', async () => {
    const db = await backend.fresh();
    const www = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-www-'));
    fs.writeFileSync(path.join(www, 'index.html'), '<!doctype html><title>NetaClaw</title>');
    const s = await startServer({ ...db.env, STATIC_DIR: www });
    try {
      const host = new URL(s.url).host;
      for (const [p, token, status] of [
        ['/', null, 200],
        ['/agents/1', null, 200],
        ['/health', null, 200],
        ['/admin/netaclaw/tool/all', undefined, 200],
        ['/admin/netaclaw/tool/all', null, 401],
        ['/admin/netaclaw/nothing', undefined, 404],
      ]) {
        const r = await call(s, 'GET', p, undefined, { token });
        assert.equal(r.status, status, `${p}: ${r.text}`);
        const csp = r.headers.get('content-security-policy');
        assert.ok(csp, `${p}: CSP`);
        const d = parseCsp(csp);
        assert.deepEqual(d['default-src'], ["'self'"]);
        assert.deepEqual(d['script-src'], ["'self'", "'wasm-unsafe-eval'"]);
        assert.deepEqual(d['style-src'], ["'self'"]);
        assert.deepEqual(d['connect-src'], ["'self'", `ws://${host}`, `wss://${host}`]);
        assert.deepEqual(d['frame-ancestors'], ["'none'"]);
        assert.deepEqual(d['object-src'], ["'none'"]);
        assert.ok(!csp.includes("'unsafe-eval'") && !csp.includes("'unsafe-inline'"), csp);
        assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
        assert.equal(r.headers.get('x-frame-options'), 'DENY');
        assert.equal(r.headers.get('strict-transport-security'), null);
      }
      // a Host header that is not a plain host[:port] never reaches the policy
      const odd = await requestFrom('127.0.0.1', s, 'GET', '/health', { host: 'evil; script-src *' });
      assert.deepEqual(parseCsp(odd.headers['content-security-policy'])['connect-src'], ["'self'"]);
    } finally {
      await s.stop();
      fs.rmSync(www, { recursive: true, force: true });
    }
  });

  test('CORS is closed by default; CORS_ORIGINS opens it to exactly the listed origins', async () => {
    const db = await backend.fresh();
    const preflight = (s, origin) =>
      call(s, 'OPTIONS', '/admin/netaclaw/tool/update', undefined, {
        token: null,
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
    const corsHeaders = r => [...r.headers.keys()].filter(k => k.startsWith('access-control-'));

    let s = await startServer(db.env);
    try {
      const get = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { headers: { origin: 'http://evil.example' } });
      assert.equal(get.status, 200);
      assert.deepEqual(corsHeaders(get), []);
      const pre = await preflight(s, 'http://evil.example');
      assert.equal(pre.status, 403, pre.text);
      assert.equal(pre.body.error.code, 'cors_origin_refused');
      assert.deepEqual(corsHeaders(pre), []);
    } finally {
      await s.stop();
    }

    s = await startServer({ ...db.env, CORS_ORIGINS: 'http://admin.example, https://ops.example:8443' });
    try {
      const pre = await preflight(s, 'http://admin.example');
      assert.equal(pre.status, 204, pre.text);
      assert.equal(pre.headers.get('access-control-allow-origin'), 'http://admin.example');
      assert.match(pre.headers.get('access-control-allow-methods'), /POST/);
      assert.match(pre.headers.get('access-control-allow-headers'), /Authorization/i);
      assert.equal(pre.headers.get('access-control-allow-credentials'), null);
      const get = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { headers: { origin: 'https://ops.example:8443' } });
      assert.equal(get.status, 200);
      assert.equal(get.headers.get('access-control-allow-origin'), 'https://ops.example:8443');
      assert.match(get.headers.get('vary') ?? '', /Origin/);
      const other = await preflight(s, 'http://admin.example.evil');
      assert.equal(other.status, 403);
      assert.deepEqual(corsHeaders(other), []);
      const otherGet = await call(s, 'GET', '/admin/netaclaw/tool/all', undefined, { headers: { origin: 'http://evil.example' } });
      assert.deepEqual(corsHeaders(otherGet), []);
    } finally {
      await s.stop();
    }

    const bad = await startServer({ ...db.env, CORS_ORIGINS: 'http://admin.example/path' }, { expectExit: true });
    assert.notEqual(bad.exitCode, 0);
    assert.match(bad.log(), /CORS_ORIGINS: "http:\/\/admin.example\/path" is not an origin/);
  });
});
