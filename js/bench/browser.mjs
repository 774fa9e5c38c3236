// The Node benchmark in headless Chromium: the same suite (suite.mjs) on the browser build
// (pkg/browser.mjs), served from a small static server on 127.0.0.1, the cold start (import +
// instantiate) and first visits in fresh browser contexts. Uses Debian's /usr/bin/chromium through
// playwright-core, and www's Vite to bundle a page the way www is built. Files are served as the backend
// serves the built pages (js/backend's compiled PageFiles, dist/pagefiles.js: gzip when accepted).
// scripts/bench.sh builds js/backend first.
// Usage: node bench/browser.mjs [--inputs target/bench/inputs.json] [--out file.json]
//        [--cold-runs 15] [--visit-runs 61]
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { arg, inputsPath, repo, writeResult } from './cli.mjs';
import { median } from './suite.mjs';

/** The backend's page files (gzipped once, from memory), so the bench serves the pages as the backend does. */
function backendPageFiles() {
  const file = path.join(repo, 'js', 'backend', 'dist', 'pagefiles.js');
  if (!fs.existsSync(file)) throw new Error('browser bench: js/backend/dist/pagefiles.js is missing; run npm --prefix js/backend run build');
  return createRequire(import.meta.url)(file).PageFiles;
}
const PageFiles = backendPageFiles();

const coldRuns = Number(arg('cold-runs', '15'));
const visitRuns = Number(arg('visit-runs', '61'));

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const WASM = '/pkg/web/netaclaw_tool_policy_bg.wasm';

/** What a visit page's module does once the package is there: the module ready, then its first call. */
const BODY = `p.version();
const ready = performance.now();
p.runtimeDiagnostic({});
window.__visit = [ready, performance.now() - ready];`;
const EMPTY_BODY = 'window.__visit = [performance.now(), 0];';

/** The preload hint of the `.wasm` that www/index.html carries, as written there. */
function wwwPreload() {
  const html = fs.readFileSync(path.join(repo, 'www', 'index.html'), 'utf8');
  const links = html.match(/<link rel="preload"[^>]*\.wasm"[^>]*>/g) ?? [];
  if (links.length !== 1) throw new Error(`browser bench: www/index.html: expected one preload of the .wasm, found ${links.length}`);
  return links[0];
}

/** A visit page: its head, then its one module, a file (as a built page has it). */
const visitHtml = (head, src) => `<!doctype html><meta charset="utf-8"><title>visit</title>${head}\n<script type="module" src="${src}"></script>\n`;

/**
 * The unbundled visit pages and their modules, served as they are (no build), by path: a page whose
 * module imports `/pkg/browser.mjs` (the glue and the entry in one module), which instantiates the
 * `.wasm` (compiled while it streams in, `WebAssembly.instantiateStreaming`). Without hints the three
 * requests go one after another (the page's module, the entry, the `.wasm`); with hints the head carries
 * a module preload of the entry and www's preload of the `.wasm`, so all three start at once.
 */
function unbundledFiles() {
  const preload = wwwPreload().replace(/href="[^"]*"/, `href="${WASM}"`);
  return {
    '/visit.html': { type: 'text/html', body: visitHtml('', '/visit.mjs') },
    '/visit-hints.html': { type: 'text/html', body: visitHtml(`<link rel="modulepreload" href="/pkg/browser.mjs">${preload}`, '/visit.mjs') },
    '/visit.mjs': { type: 'text/javascript', body: `import * as p from '/pkg/browser.mjs';\n${BODY}\n` },
  };
}

/**
 * The bundled visit pages, built by www's Vite as www is built (`base: './'`, `es2022`): the page's one
 * module holds the package (its entry and glue bundled into the page's chunk) and the `.wasm` is an
 * emitted asset, which www's preload hint (its `<link>` as written in www/index.html, rewritten by the
 * build) starts beside the chunk. The floors, built alike: a page whose chunk does nothing (`empty`),
 * and one with www's hint whose chunk reads the preloaded `.wasm` (`request`: the `.wasm`'s request beside
 * the chunk's), then compiles those bytes (`WebAssembly.compile`, the page's "first call"). Each chunk
 * notes when it starts running, so that the time from there to the module ready is known too.
 * Answers the build's folder and the built folder (`*.html`, `assets/`).
 */
async function buildBundledPages() {
  let vite;
  try {
    vite = createRequire(path.join(repo, 'www', 'package.json')).resolve('vite');
  } catch {
    throw new Error('browser bench: www/node_modules/vite is missing; run npm --prefix www ci');
  }
  const { build } = await import(pathToFileURL(vite).href);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-visit-'));
  fs.mkdirSync(path.join(dir, 'node_modules', '@netaclaw'), { recursive: true });
  // The package as www has it: its folder under node_modules (a symlink to pkg/).
  fs.symlinkSync(path.join(repo, 'pkg'), path.join(dir, 'node_modules', '@netaclaw', 'tool-policy'));
  const preload = wwwPreload();
  const href = preload.match(/href="([^"]*)"/)[1];
  const pages = {
    visit: [preload, `import * as p from '@netaclaw/tool-policy';\n${BODY}`],
    empty: ['', EMPTY_BODY],
    request: [
      preload,
      `const bytes = await (await fetch(new URL('${href}', import.meta.url))).arrayBuffer();
const ready = performance.now();
await WebAssembly.compile(bytes);
window.__visit = [ready, performance.now() - ready];`,
    ],
  };
  // Each chunk first notes when it starts running (`start.js`, bundled ahead of the rest).
  fs.writeFileSync(path.join(dir, 'start.js'), 'window.__moduleStart = performance.now();\n');
  for (const [name, [head, body]] of Object.entries(pages)) {
    fs.writeFileSync(path.join(dir, `${name}.html`), visitHtml(head, `./${name}.js`));
    fs.writeFileSync(path.join(dir, `${name}.js`), `import './start.js';\n${body}\n`);
  }
  const outDir = path.join(dir, 'dist');
  // One build per page, as a one-page app is built: its module is one chunk, whatever the pages share.
  for (const name of Object.keys(pages)) {
    await build({
      root: dir,
      configFile: false,
      logLevel: 'warn',
      base: './',
      // No modulepreload polyfill: a one-chunk page has nothing to preload.
      build: { target: 'es2022', outDir, emptyOutDir: false, modulePreload: { polyfill: false }, rolldownOptions: { input: { [name]: path.join(dir, `${name}.html`) } } },
    });
  }
  // The shape measured: one chunk per page, importing nothing, and one .wasm, preloaded by the pages
  // that use it.
  const assets = fs.readdirSync(path.join(outDir, 'assets'));
  const wasm = assets.filter((f) => f.endsWith('.wasm'));
  const chunks = assets.filter((f) => f.endsWith('.js'));
  const preloaded = ['visit', 'request'].every((name) => fs.readFileSync(path.join(outDir, `${name}.html`), 'utf8').includes(`href="./assets/${wasm[0]}"`));
  if (wasm.length !== 1 || chunks.length !== 3 || !preloaded) throw new Error(`browser bench: the bundled pages are not one chunk each and one preloaded .wasm: ${assets.join(', ')}`);
  for (const chunk of chunks) if (/\bimport\s*[("'{*]|\bfrom\s*["']/.test(fs.readFileSync(path.join(outDir, 'assets', chunk), 'utf8'))) throw new Error(`browser bench: the bundled chunk ${chunk} imports another module`);
  return { dir, outDir };
}

/** Serves pkg/, js/bench/, the inputs file, the unbundled visit pages and the bundled pages (under /vite/),
 * cross-origin isolated (finer `performance.now()`), every file from memory once read: a first visit
 * then measures the browser, not this server's disk reads. The files are answered by the backend's
 * PageFiles, as the backend answers the built pages: gzip when the request accepts it, compressed once. */
function serve(pages, bundledDir, sent) {
  const cache = new Map();
  const files = new PageFiles();
  const server = http.createServer(async (req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp', 'Cache-Control': 'no-store' };
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
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Opens `url` in a fresh context (empty cache). Answers, in ns from navigation start, the page's module
 * ready, its first call's time, the start of the page's first request after the HTML (the preload
 * scanner's, which starts once the renderer has the document) and, for the bundled pages, when the
 * page's module started running (NaN elsewhere).
 */
async function firstVisit(browser, url) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => window.__visit);
    const [ready, first, start, moduleStart] = await page.evaluate(() => [...window.__visit, Math.min(...performance.getEntriesByType('resource').map((e) => e.startTime)), window.__moduleStart ?? NaN]);
    return [ready * 1e6, first * 1e6, start * 1e6, moduleStart * 1e6];
  } finally {
    await context.close();
  }
}

const bundled = await buildBundledPages();
const pages = unbundledFiles();
const sent = {};
const server = await serve(pages, bundled.outDir, sent);
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

  // First visits, to the module ready, then its first call: a fresh context
  // (empty cache) per visit; in each round one visit of every page, in turn, the order reversed every
  // other round, so that a page's figure and its floor's are taken side by side.
  const kinds = { plain: '/visit.html', hints: '/visit-hints.html', bundled: '/vite/visit.html', empty: '/vite/empty.html', request: '/vite/request.html' };
  const visits = Object.fromEntries(Object.keys(kinds).map((k) => [k, { ready: [], first: [], fromStart: [], inModule: [] }]));
  const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const visitLoad = { start: loadavg() };
  for (let i = 0; i < visitRuns; i++) {
    const order = Object.keys(kinds);
    if (i % 2) order.reverse();
    for (const kind of order) {
      const [ready, first, start, moduleStart] = await firstVisit(browser, `${origin}${kinds[kind]}`);
      visits[kind].ready.push(ready);
      visits[kind].first.push(first);
      visits[kind].fromStart.push(ready - start);
      visits[kind].inModule.push(ready - moduleStart);
    }
  }
  visitLoad.end = loadavg();
  /** `a` less `b` visit by visit (the same round), its median: from navigation start, and from the
   * start of each page's first request. */
  const less = (a, b) => ({
    readyNs: median(visits[a].ready.map((r, i) => r - visits[b].ready[i])),
    fromStartNs: median(visits[a].fromStart.map((r, i) => r - visits[b].fromStart[i])),
    runs: visitRuns,
  });

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
    // The machine's load average (1, 5, 15 min) before and after the visits.
    visitLoad,
    // The bundled pages' .wasm as served (as the backend serves it): its size, the bytes sent, their encoding.
    served: sent,
    // From navigation start, from the page's first request, and (bundled pages) from its module's start.
    visit: Object.fromEntries(
      Object.entries(visits).map(([k, v]) => [k, { readyNs: median(v.ready), fromStartNs: median(v.fromStart), ...(v.inModule.every(Number.isFinite) ? { inModuleNs: median(v.inModule) } : {}), firstCallNs: median(v.first), runs: visitRuns }]),
    ),
    // Every visit, in ms, round by round: [ready, from the page's first request, from its module's start].
    visitSamples: Object.fromEntries(Object.entries(visits).map(([k, v]) => [k, v.ready.map((r, i) => [r, v.fromStart[i], v.inModule[i]].map((x) => (Number.isNaN(x) ? null : +(x / 1e6).toFixed(2))))])),
    // The module's own cost: each visit less the empty page's visit of the same round, the median.
    moduleOnly: { plain: less('plain', 'empty'), hints: less('hints', 'empty'), bundled: less('bundled', 'empty') },
    // The floors beside it: the .wasm's preloaded request beside the page's module in a fresh context
    // (the page reading it less the empty page), and compiling those bytes.
    floors: { request: less('request', 'empty'), compile: { readyNs: median(visits.request.first), runs: visitRuns } },
    cases: suite.cases,
    checks: suite.checks,
  };
  writeResult(result);
} finally {
  await browser.close();
  server.close();
  fs.rmSync(bundled.dir, { recursive: true, force: true });
}
