'use strict';
/**
 * The built pages as the backend serves them (middleware/static.ts, pagefiles.ts): the compressible
 * files gzip when the request accepts it, as they are when not, with Vary, a Content-Length of the
 * bytes sent, ETags and 304 answers; the other files as before. SQLite only.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { startServer, BACKEND_ROOT } = require('./support/server');
const { sqliteBackend } = require('./support/db');

const { PageFiles, acceptsGzip } = require(path.join(BACKEND_ROOT, 'dist', 'http', 'pagefiles.js'));
const WASM = path.join(BACKEND_ROOT, '..', '..', 'pkg', 'web', 'netaclaw_tool_policy_bg.wasm');

/** A raw request (no automatic Accept-Encoding nor decoding): status, headers and the bytes as sent. */
function get(server, p, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request(server.url + p, { method, headers }, res => {
      const chunks = [];
      res.on('data', d => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the built pages, compressed', () => {
  let backend;
  let server;
  let www;
  let wasm;
  const html = '<!doctype html><title>NetaClaw</title>' + '<!-- the page -->'.repeat(40);
  before(async () => {
    backend = await sqliteBackend();
    www = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-www-'));
    fs.mkdirSync(path.join(www, 'assets'));
    fs.writeFileSync(path.join(www, 'index.html'), html);
    wasm = fs.readFileSync(WASM);
    fs.writeFileSync(path.join(www, 'assets', 'policy.wasm'), wasm);
    fs.writeFileSync(path.join(www, 'assets', 'app.js'), 'export const a = 1;\n'.repeat(200));
    fs.writeFileSync(path.join(www, 'assets', 'tiny.css'), 'a{}');
    fs.writeFileSync(path.join(www, 'assets', 'logo.png'), Buffer.alloc(4000, 7));
    const db = await backend.fresh();
    server = await startServer({ ...db.env, STATIC_DIR: www });
  });
  after(async () => {
    if (server) await server.stop();
    if (backend) await backend.stop();
    if (www) fs.rmSync(www, { recursive: true, force: true });
  });

  test('gzip when the request accepts it: the bytes sent decompress to the file, Content-Length is theirs', async () => {
    for (const accept of ['gzip, deflate, br, zstd', 'gzip', 'br;q=1, gzip;q=0.5', '*', 'identity;q=0.5, gzip']) {
      const r = await get(server, '/assets/policy.wasm', { 'accept-encoding': accept });
      assert.equal(r.status, 200, accept);
      assert.equal(r.headers['content-encoding'], 'gzip', accept);
      assert.equal(r.headers['content-type'], 'application/wasm');
      assert.match(r.headers.vary, /Accept-Encoding/i);
      assert.equal(Number(r.headers['content-length']), r.body.length);
      assert.ok(r.body.length < wasm.length / 2, `${r.body.length} bytes sent for ${wasm.length}`);
      assert.ok(zlib.gunzipSync(r.body).equals(wasm), accept);
      // the security headers stay on the pages
      assert.ok(r.headers['content-security-policy']);
    }
    const page = await get(server, '/', { 'accept-encoding': 'gzip' });
    assert.equal(page.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(page.body).toString(), html);
    // the SPA fallback is the same page, compressed alike
    const route = await get(server, '/agents/1', { 'accept-encoding': 'gzip' });
    assert.equal(route.status, 200);
    assert.equal(route.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(route.body).toString(), html);
    assert.equal(route.headers.etag, page.headers.etag);
  });

  test('identity when the request does not accept gzip, and for files gzip does not make smaller', async () => {
    for (const headers of [
      {},
      { 'accept-encoding': '' },
      { 'accept-encoding': 'br, zstd' },
      { 'accept-encoding': 'gzip;q=0, br' },
      { 'accept-encoding': 'gzip;q=0.2, identity;q=0.9' },
      { 'accept-encoding': '*;q=0, identity' },
    ]) {
      const r = await get(server, '/assets/policy.wasm', headers);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-encoding'], undefined, JSON.stringify(headers));
      assert.match(r.headers.vary, /Accept-Encoding/i);
      assert.equal(Number(r.headers['content-length']), wasm.length);
      assert.ok(r.body.equals(wasm));
    }
    const tiny = await get(server, '/assets/tiny.css', { 'accept-encoding': 'gzip' });
    assert.equal(tiny.headers['content-encoding'], undefined);
    assert.equal(tiny.body.toString(), 'a{}');
    assert.match(tiny.headers['content-type'], /^text\/css/);
    // a file that is not of the compressible kinds is sent as before
    const png = await get(server, '/assets/logo.png', { 'accept-encoding': 'gzip' });
    assert.equal(png.status, 200);
    assert.equal(png.headers['content-encoding'], undefined);
    assert.equal(png.body.length, 4000);
  });

  test('HEAD: the headers of the GET, no body', async () => {
    const g = await get(server, '/assets/app.js', { 'accept-encoding': 'gzip' });
    const h = await get(server, '/assets/app.js', { 'accept-encoding': 'gzip' }, 'HEAD');
    assert.equal(h.status, 200);
    assert.equal(h.body.length, 0);
    for (const name of ['content-encoding', 'content-length', 'etag', 'last-modified', 'content-type']) assert.equal(h.headers[name], g.headers[name], name);
  });

  test('ETag and Last-Modified: 304 for a current copy, 200 with the new bytes once the file changes', async () => {
    const first = await get(server, '/assets/app.js', { 'accept-encoding': 'gzip' });
    const plain = await get(server, '/assets/app.js');
    assert.ok(first.headers.etag && plain.headers.etag);
    assert.notEqual(first.headers.etag, plain.headers.etag, 'one ETag per encoding');
    for (const headers of [
      { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag },
      { 'accept-encoding': 'gzip', 'if-none-match': `"other", W/${first.headers.etag}` },
      { 'if-none-match': plain.headers.etag },
      { 'accept-encoding': 'gzip', 'if-modified-since': first.headers['last-modified'] },
    ]) {
      const r = await get(server, '/assets/app.js', headers);
      assert.equal(r.status, 304, JSON.stringify(headers));
      assert.equal(r.body.length, 0);
      assert.equal(r.headers.etag, headers['accept-encoding'] ? first.headers.etag : plain.headers.etag);
      assert.match(r.headers.vary, /Accept-Encoding/i);
    }
    for (const headers of [
      { 'accept-encoding': 'gzip', 'if-none-match': '"other"' },
      { 'accept-encoding': 'gzip', 'if-modified-since': new Date(Date.parse(first.headers['last-modified']) - 2000).toUTCString() },
      // If-None-Match decides when both are there
      { 'accept-encoding': 'gzip', 'if-none-match': '"other"', 'if-modified-since': first.headers['last-modified'] },
    ]) {
      const r = await get(server, '/assets/app.js', headers);
      assert.equal(r.status, 200, JSON.stringify(headers));
      assert.ok(zlib.gunzipSync(r.body).equals(fs.readFileSync(path.join(www, 'assets', 'app.js'))));
    }

    // the file changes (a later modification time): its new bytes, a new ETag; the old one is no longer current
    const file = path.join(www, 'assets', 'app.js');
    fs.writeFileSync(file, 'export const b = 2;\n'.repeat(300));
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    const changed = await get(server, '/assets/app.js', { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, first.headers.etag);
    assert.equal(zlib.gunzipSync(changed.body).toString(), 'export const b = 2;\n'.repeat(300));
  });

  test('bad paths keep their answers: outside the folder, hidden names, undecodable', async () => {
    fs.writeFileSync(path.join(www, '.secret.json'), '{"secret":true}');
    for (const p of ['/.secret.json', '/%2e%2e/etc/passwd.json', '/assets/..%2f..%2fx.js']) {
      const r = await get(server, p, { 'accept-encoding': 'gzip' });
      assert.ok(r.status === 404 || r.status === 400 || r.status === 403, `${p}: ${r.status} ${r.body}`);
      assert.ok(!r.body.toString().includes('"secret":true'), p);
    }
    const bad = await get(server, '/%E0%A4%A.js', { 'accept-encoding': 'gzip' });
    assert.ok(bad.status >= 400 && bad.status < 500, `undecodable: ${bad.status}`);
  });

  test('each file is compressed once: the same bytes answer every request until it changes', async () => {
    const files = new PageFiles();
    const file = path.join(www, 'assets', 'policy.wasm');
    const a = await files.answer(file, { 'accept-encoding': 'gzip' });
    const b = await files.answer(file, { 'accept-encoding': 'gzip' });
    assert.equal(a.body, b.body, 'the same Buffer, not a new compression');
    const [c, d] = await Promise.all([files.answer(file, {}), files.answer(file, { 'accept-encoding': 'gzip' })]);
    assert.ok(c.body.equals(wasm));
    assert.equal(d.body, a.body);
    assert.equal(await files.answer(path.join(www, 'assets', 'logo.png'), { 'accept-encoding': 'gzip' }), null);
    assert.equal(await files.answer(path.join(www, 'assets', 'missing.js'), { 'accept-encoding': 'gzip' }), null);
  });

  test('Accept-Encoding weights', () => {
    assert.equal(acceptsGzip(undefined), false);
    assert.equal(acceptsGzip('gzip'), true);
    assert.equal(acceptsGzip('GZIP;Q=0.5'), true);
    assert.equal(acceptsGzip('x-gzip'), true);
    assert.equal(acceptsGzip('gzip;q=0'), false);
    assert.equal(acceptsGzip('*;q=0.1'), true);
    assert.equal(acceptsGzip('*;q=0, gzip'), true);
    assert.equal(acceptsGzip('deflate, identity'), false);
    assert.equal(acceptsGzip('gzip;q=0.4, identity;q=0.5'), false);
    assert.equal(acceptsGzip('gzip;q=bad'), false);
  });
});
