// The Node benchmark in headless Chromium: the same suite (suite.mjs) on the browser build
// (pkg/browser.mjs), served from a small static server on 127.0.0.1, the cold start (import +
// instantiate) and first visits in fresh browser contexts. Uses Debian's /usr/bin/chromium, through
// playwright-core for the suite, the cold start and the first visits with a DevTools client on the page,
// and over its DevTools pipe at the browser level only for the first visits without one
// (bare-chromium.mjs); www's Vite bundles a page the way www is built. Files are served, from a process of
// their own (visit-server.mjs), as the backend serves the built pages (js/backend's compiled PageFiles,
// dist/http/pagefiles.js: gzip when accepted). scripts/bench.sh builds js/backend first.
// Usage: node bench/browser.mjs [--inputs target/bench/inputs.json] [--out file.json]
//        [--cold-runs 15] [--visit-runs 61] [--visit-pause 250]
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { launchBareChromium } from './bare-chromium.mjs';
import { arg, inputsPath, repo, writeResult } from './cli.mjs';
import { median } from './suite.mjs';

const coldRuns = Number(arg('cold-runs', '15'));
const visitRuns = Number(arg('visit-runs', '61'));
// A pause before each visit, in ms, so that the last visit's context and renderer are gone and the
// browser is idle when the next one starts, as it is when a user opens a page.
const visitPauseMs = Number(arg('visit-pause', '250'));

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WASM = '/pkg/web/netaclaw_tool_policy_bg.wasm';

/**
 * What every visit page's module does last: posts its figures to the file server (in ms from navigation
 * start: the module ready, its first call, the start of the page's first request after the HTML, when
 * the page's module started running or null) with the visit's id (the query string) and whether the page
 * was hidden. They are read before the post, which is no request of theirs.
 */
const REPORT = `navigator.sendBeacon('/visit-report', JSON.stringify({ id: location.search.slice(1), hidden: document.hidden, figures: [...window.__visit, Math.min(...performance.getEntriesByType('resource').map((e) => e.startTime)), window.__moduleStart ?? null] }));`;
/** What a visit page's module does once the package is there: the module ready, then its first call. */
const BODY = `p.version();
const ready = performance.now();
p.runtimeDiagnostic({});
window.__visit = [ready, performance.now() - ready];
${REPORT}`;
const EMPTY_BODY = `window.__visit = [performance.now(), 0];
${REPORT}`;

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
window.__visit = [ready, performance.now() - ready];
${REPORT}`,
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

/**
 * Starts the file server (visit-server.mjs) in a process of its own. Answers its origin, `report(id)`
 * (the report of a visit, once it arrives: asked for before the visit starts; a report nobody asked
 * for, such as a Playwright visit's, is dropped), `sent()` (what the bundled pages' .wasm went as) and
 * `close()`.
 */
async function startServer(pages, bundledDir) {
  const configFile = path.join(bundledDir, '..', 'server.json');
  fs.writeFileSync(configFile, JSON.stringify({ repo, inputsPath, bundledDir, pages }));
  const child = fork(new URL('./visit-server.mjs', import.meta.url), [configFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map();
  let onSent = null;
  let failed = null;
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`browser bench: the file server exited (${code})`)));
    child.on('message', (m) => {
      if (m.port) resolve(m.port);
      else if (m.sent) onSent?.(m.sent);
      else if (m.error) failed = new Error(`browser bench: ${m.error}`);
      else if (m.report) {
        const w = waiting.get(m.report.id);
        waiting.delete(m.report.id);
        w?.(m.report);
      }
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    /** The report of visit `id`, within 60 s. */
    report(id) {
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`browser bench: no report of visit ${id} within 60 s`)), 60_000);
        waiting.set(id, (r) => {
          clearTimeout(timer);
          resolve(r);
        });
      });
    },
    sent() {
      return new Promise((resolve) => {
        onSent = resolve;
        child.send({ sent: true });
      });
    },
    close() {
      child.kill();
    },
  };
}

let visitCount = 0;
/** The figures of a visit's report, in ns: [ready, first call, first request start, module start (NaN when not noted)]. */
function figures(report) {
  if (report.hidden) throw new Error(`browser bench: visit ${report.id} ran in a hidden page`);
  return report.figures.map((x) => (x === null ? NaN : x * 1e6));
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
    await page.goto(`${url}?devtools${++visitCount}`);
    await page.waitForFunction(() => window.__visit);
    const [ready, first, start, moduleStart] = await page.evaluate(() => [...window.__visit, Math.min(...performance.getEntriesByType('resource').map((e) => e.startTime)), window.__moduleStart ?? NaN]);
    return [ready * 1e6, first * 1e6, start * 1e6, moduleStart * 1e6];
  } finally {
    await context.close();
  }
}

/**
 * Opens `url` in a fresh browser context of the bare Chromium (no DevTools session on the page) and
 * answers the figures the page reports, as firstVisit does.
 */
async function bareVisit(bare, server, url) {
  const id = `bare${++visitCount}`;
  const report = server.report(id);
  const { browserContextId } = await bare.send('Target.createBrowserContext');
  try {
    await bare.send('Target.createTarget', { url: `${url}?${id}`, browserContextId });
    return figures(await report);
  } finally {
    await bare.send('Target.disposeBrowserContext', { browserContextId });
  }
}

const bundled = await buildBundledPages();
const pages = unbundledFiles();
const server = await startServer(pages, bundled.outDir);
const { origin } = server;
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
let bare = null;
try {
  bare = await launchBareChromium(CHROMIUM, ARGS);
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

  // First visits, to the module ready, then its first call: a fresh context (empty cache) per visit,
  // in the bare Chromium (no DevTools session on the page: the figures judged) and through Playwright
  // (its session on the page, as the previous builds were measured). In each round one visit of every
  // page in each browser, in turn, the order reversed every other round, so that a page's figure and
  // its floor's are taken side by side.
  const kinds = { plain: '/visit.html', hints: '/visit-hints.html', bundled: '/vite/visit.html', empty: '/vite/empty.html', request: '/vite/request.html' };
  const methods = {
    bare: (url) => bareVisit(bare, server, url),
    devtools: (url) => firstVisit(browser, url),
  };
  const visits = Object.fromEntries(Object.keys(methods).map((m) => [m, Object.fromEntries(Object.keys(kinds).map((k) => [k, { ready: [], first: [], fromStart: [], inModule: [] }]))]));
  const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const visitLoad = { start: loadavg() };
  for (let i = 0; i < visitRuns; i++) {
    for (const [method, visit] of i % 2 ? Object.entries(methods).reverse() : Object.entries(methods)) {
      const order = Object.keys(kinds);
      if (i % 2) order.reverse();
      for (const kind of order) {
        await new Promise((resolve) => setTimeout(resolve, visitPauseMs));
        const [ready, first, start, moduleStart] = await visit(`${origin}${kinds[kind]}`);
        const v = visits[method][kind];
        v.ready.push(ready);
        v.first.push(first);
        v.fromStart.push(ready - start);
        v.inModule.push(ready - moduleStart);
      }
    }
  }
  visitLoad.end = loadavg();
  /** `a` less `b` visit by visit (the same round), its median: from navigation start, and from the
   * start of each page's first request. */
  const less = (of, a, b) => ({
    readyNs: median(of[a].ready.map((r, i) => r - of[b].ready[i])),
    fromStartNs: median(of[a].fromStart.map((r, i) => r - of[b].fromStart[i])),
    runs: visitRuns,
  });
  /** One method's figures: medians per page, every visit, the module's own cost and the floors. */
  const summary = (of) => ({
    // From navigation start, from the page's first request, and (bundled pages) from its module's start.
    visit: Object.fromEntries(
      Object.entries(of).map(([k, v]) => [k, { readyNs: median(v.ready), fromStartNs: median(v.fromStart), ...(v.inModule.every(Number.isFinite) ? { inModuleNs: median(v.inModule) } : {}), firstCallNs: median(v.first), runs: visitRuns }]),
    ),
    // Every visit, in ms, round by round: [ready, from the page's first request, from its module's start].
    visitSamples: Object.fromEntries(Object.entries(of).map(([k, v]) => [k, v.ready.map((r, i) => [r, v.fromStart[i], v.inModule[i]].map((x) => (Number.isNaN(x) ? null : +(x / 1e6).toFixed(2))))])),
    // The module's own cost: each visit less the empty page's visit of the same round, the median.
    moduleOnly: { plain: less(of, 'plain', 'empty'), hints: less(of, 'hints', 'empty'), bundled: less(of, 'bundled', 'empty') },
    // The floors beside it: the .wasm's preloaded request beside the page's module in a fresh context
    // (the page reading it less the empty page), and compiling those bytes.
    floors: { request: less(of, 'request', 'empty'), compile: { readyNs: median(of.request.first), runs: visitRuns } },
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
  const product = (v) => v.replace(/^(Headless)?Chrome\//, '');
  if (product(bare.product) !== browser.version()) throw new Error(`browser bench: the bare Chromium is ${bare.product}, Playwright's ${browser.version()}`);
  const result = {
    runtime: `Chromium ${browser.version()} (headless)`,
    timerIsolated: suite.isolated,
    cold: { import: { readyNs: median(ready), firstCallNs: median(first), runs: coldRuns } },
    // The machine's load average (1, 5, 15 min) before and after the visits, and the pause before each.
    visitLoad,
    visitPauseMs,
    // The bundled pages' .wasm as served (as the backend serves it): its size, the bytes sent, their encoding.
    served: await server.sent(),
    // The first visits without a DevTools session on the page (judged) ...
    ...summary(visits.bare),
    // ... and with Playwright's, as the previous builds were measured.
    devtools: summary(visits.devtools),
    cases: suite.cases,
    checks: suite.checks,
  };
  writeResult(result);
} finally {
  await bare?.close();
  await browser.close();
  server.close();
  fs.rmSync(bundled.dir, { recursive: true, force: true });
}
