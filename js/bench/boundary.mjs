// The boundary, measured per function: the package's JSON-text crossing (arguments through
// `JSON.stringify`, answers through `JSON.parse`) against serde-wasm-bindgen's (`json_compatible`,
// plain objects), on small calls (checkToolCall, label, toolManifest) and large ones
// (runtimeDiagnostic on the builtin and the 1,000-tool catalog), in Node and in headless Chromium.
// The serde-wasm-bindgen build comes from scripts/boundary-experiment.sh (--swb DIR holds its node/
// and web/ glues). Every answer of both forms is checked to be the same JSON.
// Usage: node bench/boundary.mjs --swb DIR --inputs target/bench/inputs.json --out file.json
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const swbDir = path.resolve(arg('swb', 'target/boundary/pkg'));
const inputsPath = path.resolve(repo, arg('inputs', 'target/bench/inputs.json'));
const outPath = arg('out');

/** The suite, run in Node and in the page alike: median ns per call of each form of each function. */
function boundarySuite(json, swb, inputs, now) {
  const diagnostic = json.runtimeDiagnostic({ sessionCwd: '/srv/work', shellPermitted: true, writePermitted: true });
  const routes = diagnostic.routes.map(({ name, status, reasons }) => ({ name, status, reasons }));
  const check = { policy: diagnostic.policy, routes, call: { name: 'read_file', arguments: { path: 'src/lib.rs' } } };
  const cases = {
    checkToolCall: [(p) => p.checkToolCall(check), (p) => p.swbCheckToolCall(check)],
    label: [(p) => p.label('reasons', 'write_blocked_by_readonly_policy', 'en'), (p) => p.swbLabel('reasons', 'write_blocked_by_readonly_policy', 'en')],
    toolManifest: [(p) => p.toolManifest({ name: 'crm_lookup', toolset: 'crm', capability: 'vision' }), (p) => p.swbToolManifest({ name: 'crm_lookup', toolset: 'crm', capability: 'vision' })],
    'runtimeDiagnostic (builtin)': [(p) => p.runtimeDiagnostic(inputs.builtin), (p) => p.swbRuntimeDiagnostic(inputs.builtin)],
    'runtimeDiagnostic (1,000 tools)': [(p) => p.runtimeDiagnostic(inputs.generated1000), (p) => p.swbRuntimeDiagnostic(inputs.generated1000)],
  };
  const median = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s[s.length >> 1];
  };
  const time = (fn) => {
    let batch = 1;
    for (;;) {
      const t = now();
      for (let i = 0; i < batch; i++) fn();
      if ((now() - t) / 1e6 >= 20 || batch >= 1 << 20) break;
      batch *= 4;
    }
    const out = [];
    for (let r = 0; r < 5; r++) {
      const t = now();
      for (let i = 0; i < batch; i++) fn();
      out.push((now() - t) / batch);
    }
    return out;
  };
  const result = {};
  for (const [name, [viaJson, viaSwb]] of Object.entries(cases)) {
    const same = JSON.stringify(viaJson(json)) === JSON.stringify(viaSwb(swb));
    const samples = { json: [], swb: [] };
    for (let round = 0; round < 3; round++) {
      samples.json.push(...time(() => viaJson(json)));
      samples.swb.push(...time(() => viaSwb(swb)));
    }
    result[name] = { same, jsonNs: median(samples.json), swbNs: median(samples.swb) };
  }
  return result;
}

const inputs = JSON.parse(fs.readFileSync(inputsPath, 'utf8'));
const require = createRequire(import.meta.url);
const json = require(path.join(repo, 'pkg/node/netaclaw_tool_policy.js'));
const swb = require(path.join(swbDir, 'node/netaclaw_tool_policy.js'));
const nodeNow = () => Number(process.hrtime.bigint());
const node = boundarySuite(json, swb, inputs, nodeNow);

// Chromium: both web glues served from 127.0.0.1, the same suite in the page.
const TYPES = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const server = http.createServer((req, res) => {
  const pathname = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  const roots = { '/json/': path.join(repo, 'pkg/web'), '/swb/': path.join(swbDir, 'web') };
  let file = null;
  if (pathname === '/inputs.json') file = inputsPath;
  for (const [prefix, dir] of Object.entries(roots)) if (pathname.startsWith(prefix)) file = path.join(dir, pathname.slice(prefix.length));
  if (pathname === '/') {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><meta charset="utf-8"><title>boundary</title>');
    return;
  }
  if (!file || !fs.existsSync(file)) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
let chromiumResult;
try {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${origin}/`);
  chromiumResult = await page.evaluate(
    async ([suiteSource]) => {
      const jsonMod = await import('/json/netaclaw_tool_policy.js');
      await jsonMod.default();
      const swbMod = await import('/swb/netaclaw_tool_policy.js');
      await swbMod.default();
      const inputs = await (await fetch('/inputs.json')).json();
      const suite = new Function(`return (${suiteSource})`)();
      return suite(jsonMod, swbMod, inputs, () => performance.now() * 1e6);
    },
    [boundarySuite.toString()],
  );
  chromiumResult = { runtime: `Chromium ${browser.version()} (headless)`, cases: chromiumResult };
} finally {
  await browser.close();
  server.close();
}

/** Bytes of `gzip -9`, as the size check counts them. */
const gzipSize = (file) => execFileSync('gzip', ['-9', '-c', file]).length;
const result = {
  size: {
    json: { raw: fs.statSync(path.join(repo, 'pkg/web/netaclaw_tool_policy_bg.wasm')).size, gzip: gzipSize(path.join(repo, 'pkg/web/netaclaw_tool_policy_bg.wasm')) },
    swb: { raw: fs.statSync(path.join(swbDir, 'web/netaclaw_tool_policy_bg.wasm')).size, gzip: gzipSize(path.join(swbDir, 'web/netaclaw_tool_policy_bg.wasm')) },
  },
  node: { runtime: `Node ${process.version}`, cases: node },
  chromium: chromiumResult,
};
const text = JSON.stringify(result, null, 2);
if (outPath) fs.writeFileSync(path.resolve(repo, outPath), text + '\n');
console.log(text);
