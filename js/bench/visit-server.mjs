// The browser benchmark's file server, in a process of its own (forked by browser.mjs), so that the
// process driving the browser never delays an answer: pkg/, js/bench/, the inputs file, the unbundled
// visit pages (held in memory) and the bundled pages (under /vite/), cross-origin isolated (finer
// `performance.now()`), every file from memory once read. Files are answered by the backend's PageFiles,
// as the backend answers the built pages: gzip when the request accepts it, compressed once.
// A visit page posts its figures to /visit-report (navigator.sendBeacon); each is handed to the parent
// as { report }. The parent's { sent: true } is answered with what the bundled pages' .wasm went as.
// Usage (by browser.mjs): fork(visit-server.mjs, [config.json]) with { repo, inputsPath, bundledDir, pages }.
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const { repo, inputsPath, bundledDir, pages } = config;
const pageFilesModule = path.join(repo, 'js', 'backend', 'dist', 'http', 'pagefiles.js');
if (!fs.existsSync(pageFilesModule)) throw new Error('browser bench: js/backend/dist/http/pagefiles.js is missing; run npm --prefix js/backend run build');
const { PageFiles } = createRequire(import.meta.url)(pageFilesModule);

const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const cache = new Map();
const files = new PageFiles();
const sent = {};

const server = http.createServer(async (req, res) => {
  const pathname = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp', 'Cache-Control': 'no-store' };
  if (pathname === '/visit-report' && req.method === 'POST') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      res.writeHead(204, headers);
      res.end();
      try {
        process.send({ report: JSON.parse(body) });
      } catch (e) {
        process.send({ error: `a visit report is not JSON: ${e.message}` });
      }
    });
    return;
  }
  if (pathname === '/') {
    res.writeHead(200, { ...headers, 'Content-Type': 'text/html' });
    res.end('<!doctype html><meta charset="utf-8"><title>bench</title>');
    return;
  }
  if (Object.hasOwn(pages, pathname)) {
    res.writeHead(200, { ...headers, 'Content-Type': pages[pathname].type });
    res.end(pages[pathname].body);
    return;
  }
  let file = null;
  if (pathname === '/inputs.json') file = inputsPath;
  else if (pathname.startsWith('/pkg/') || pathname.startsWith('/js/bench/')) file = path.join(repo, pathname);
  else if (pathname.startsWith('/vite/')) file = path.join(bundledDir, pathname.slice('/vite/'.length));
  const inside = file && (file === inputsPath || [repo, bundledDir].some((root) => path.resolve(file).startsWith(root + path.sep)));
  if (!inside || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404, headers);
    res.end();
    return;
  }
  const type = { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' };
  const answer = await files.answer(file, req.headers);
  if (answer) {
    // What the bundled pages' .wasm went as: its size and the bytes sent.
    if (answer.body && pathname.startsWith('/vite/') && file.endsWith('.wasm')) sent.wasm = { raw: fs.statSync(file).size, sent: answer.body.length, encoding: answer.headers['Content-Encoding'] ?? 'identity' };
    res.writeHead(answer.status, { ...headers, ...answer.headers, ...(answer.body ? type : {}) });
    res.end(answer.body ?? undefined);
    return;
  }
  if (!cache.has(file)) cache.set(file, fs.readFileSync(file));
  res.writeHead(200, { ...headers, ...type });
  res.end(cache.get(file));
});

process.on('message', (m) => {
  if (m?.sent) process.send({ sent });
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
