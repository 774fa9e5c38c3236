// The Node benchmark in headless Chromium: the same suite (suite.mjs) on the browser build
// (pkg/browser.mjs), served from a small static server on 127.0.0.1, and the cold start (import +
// instantiate) in fresh browser contexts. Uses Debian's /usr/bin/chromium through playwright-core.
// Usage: node bench/browser.mjs [--inputs target/bench/inputs.json] [--out file.json]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { arg, inputsPath, repo, writeResult } from './cli.mjs';
import { median } from './suite.mjs';

const coldRuns = Number(arg('cold-runs', '15'));

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

/**
 * A first visit of a page whose module is the package: the HTML, then `browser.mjs`, its glue and the
 * `.wasm` (compiled while it streams in, `WebAssembly.instantiateStreaming`). With `hints`, the head
 * carries what www/index.html carries for it: module preloads for the entry and its glue, and a
 * preload of the `.wasm`, so the three requests start together instead of one after another.
 */
function visitPage(hints, empty = false) {
  if (empty) {
    // The floor of a first visit on this machine: the same HTML and one module script, no package.
    return '<!doctype html><meta charset="utf-8"><title>visit</title>\n<script type="module">window.__visit = [performance.now(), 0];</script>';
  }
  const head = hints
    ? `<link rel="modulepreload" href="/pkg/browser.mjs">
<link rel="modulepreload" href="/pkg/web/netaclaw_tool_policy.js">
<link rel="preload" href="/pkg/web/netaclaw_tool_policy_bg.wasm" as="fetch" type="application/wasm" crossorigin>`
    : '';
  return `<!doctype html><meta charset="utf-8"><title>visit</title>${head}
<script type="module">
import * as p from '/pkg/browser.mjs';
p.version();
const ready = performance.now();
p.runtimeDiagnostic({});
window.__visit = [ready, performance.now() - ready];
</script>`;
}

/** Serves pkg/, js/bench/ and the inputs file, cross-origin isolated (finer `performance.now()`). */
function serve() {
  const cache = new Map();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const pathname = decodeURIComponent(url.pathname);
    let file = null;
    if (pathname === '/') file = null;
    else if (pathname === '/inputs.json') file = inputsPath;
    else if (pathname.startsWith('/pkg/') || pathname.startsWith('/js/bench/')) file = path.join(repo, pathname);
    const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp', 'Cache-Control': 'no-store' };
    if (pathname === '/') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html' });
      res.end('<!doctype html><meta charset="utf-8"><title>bench</title>');
      return;
    }
    if (pathname === '/visit.html' || pathname === '/visit-hints.html' || pathname === '/visit-empty.html') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html' });
      res.end(visitPage(pathname === '/visit-hints.html', pathname === '/visit-empty.html'));
      return;
    }
    if (!file || !path.resolve(file).startsWith(repo) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, headers);
      res.end();
      return;
    }
    // Served from memory (read once): a first visit then measures the browser, not this server's disk reads.
    if (!cache.has(file)) cache.set(file, fs.readFileSync(file));
    res.writeHead(200, { ...headers, 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(cache.get(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const server = await serve();
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
try {
  // Cold start: a fresh context (empty cache) per run; import + instantiate, then the first call.
  const ready = [];
  const first = [];
  for (let i = 0; i < coldRuns; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    const [a, b] = await page.evaluate(async () => {
      const t0 = performance.now();
      const p = await import('/pkg/browser.mjs');
      p.version();
      const t1 = performance.now();
      p.runtimeDiagnostic({});
      const t2 = performance.now();
      return [t1 - t0, t2 - t1];
    });
    ready.push(a * 1e6);
    first.push(b * 1e6);
    await context.close();
  }

  // A first visit, from navigation start to the module ready, then its first call: a fresh context
  // (empty cache) per run, without and with the preload hints, interleaved.
  const visits = { plain: { ready: [], first: [] }, hints: { ready: [], first: [] }, empty: { ready: [], first: [] } };
  for (let i = 0; i < coldRuns; i++) {
    for (const [kind, url] of [['plain', '/visit.html'], ['hints', '/visit-hints.html'], ['empty', '/visit-empty.html']]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${origin}${url}`);
      const [ready, first] = await page.waitForFunction(() => window.__visit).then((h) => h.jsonValue());
      visits[kind].ready.push(ready * 1e6);
      visits[kind].first.push(first * 1e6);
      await context.close();
    }
  }

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  const suite = await page.evaluate(async () => {
    const { runSuite } = await import('/js/bench/suite.mjs');
    const policy = await import('/pkg/browser.mjs');
    const inputs = await (await fetch('/inputs.json')).json();
    return { isolated: self.crossOriginIsolated, ...runSuite(policy, inputs, () => performance.now() * 1e6) };
  });
  const result = {
    runtime: `Chromium ${browser.version()} (headless)`,
    timerIsolated: suite.isolated,
    cold: { import: { readyNs: median(ready), firstCallNs: median(first), runs: coldRuns } },
    visit: Object.fromEntries(Object.entries(visits).map(([k, v]) => [k, { readyNs: median(v.ready), firstCallNs: median(v.first), runs: coldRuns }])),
    // The module's own cost: each visit less the empty module's visit of the same round, its median.
    moduleOnly: Object.fromEntries(['plain', 'hints'].map((k) => [k, { readyNs: median(visits[k].ready.map((r, i) => r - visits.empty.ready[i])), runs: coldRuns }])),
    cases: suite.cases,
    checks: suite.checks,
  };
  writeResult(result);
} finally {
  await browser.close();
  server.close();
}
