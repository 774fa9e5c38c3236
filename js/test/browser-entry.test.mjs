// The package's browser entry (pkg/browser.mjs) in headless Chromium, loaded unbundled by a page as a
// first visit: one module request and the `.wasm` (no separate glue), the exports of the Node entry,
// the same answers, and a preload of the `.wasm` (the hint www/index.html carries) used by the entry's
// own fetch rather than fetched a second time.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, launchChromium, serveStatic } from './lib/static.mjs';

const require = createRequire(import.meta.url);
const policy = require('@netaclaw/tool-policy');
const nodeEsm = await import('@netaclaw/tool-policy');

const WASM = '/pkg/web/netaclaw_tool_policy_bg.wasm';
/** `ToolCallChecker.checkText` (the glue's own JavaScript) on ASCII, non-ASCII, a lone surrogate, long
 * text, text that is not JSON and a name that is not a string; run in the page and in Node alike. */
const CHECK_TEXT = `(p) => {
  const c = new p.ToolCallChecker({ policy: { workspaceRoots: ['/srv/a'], allowShell: false, readonly: true }, routes: [{ name: 'read_file', status: 'worker-local', reasons: [] }] });
  const answers = [['read_file', '{"path":"src/lib.rs"}'], ['read_file', '{"path":"界/é"}'], ['read_file', '{"path":"c' + String.fromCharCode(0xd800) + '"}'], ['read_file', ' '.repeat(100000) + '{"path":"' + 'd/'.repeat(40000) + '"}'], ['read_file', '{'], ['nope', '{}'], ['read_file', '{"path":3}']].map(([n, t]) => c.checkText(n, t));
  try { c.checkText(3, '{}'); } catch (e) { answers.push({ code: e.code, message: e.message }); }
  c.free();
  return JSON.stringify(answers);
}`;
const MODULE = `
import * as p from '/pkg/browser.mjs';
window.__result = {
  checkText: (${CHECK_TEXT})(p),
  keys: Object.keys(p).sort(),
  version: p.version(),
  catalogInfo: JSON.stringify(p.catalogInfo()),
  refused: (() => { try { p.label('reasons', 'nope'); return null; } catch (e) { return { code: e.code, message: e.message }; } })(),
};`;
const page = (head) => `<!doctype html><meta charset="utf-8"><title>entry</title>${head}\n<script type="module">${MODULE}</script>`;

/** Opens `path` in a fresh context; resolves to the page's result, its errors and console warnings. */
async function visit(browser, origin, path) {
  const context = await browser.newContext();
  try {
    const tab = await context.newPage();
    const errors = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    tab.on('console', (m) => {
      // The browser asks for /favicon.ico on its own; the page's 404 for it is not the package's.
      if ((m.type() === 'warning' || m.type() === 'error') && !m.location().url.endsWith('/favicon.ico')) errors.push(`${m.type()}: ${m.text()} (${m.location().url})`);
    });
    await tab.goto(`${origin}${path}`);
    const result = await tab.waitForFunction(() => window.__result, null, { timeout: 20_000 }).then((h) => h.jsonValue());
    return { result, errors };
  } finally {
    await context.close();
  }
}

test('the built entry is one module: it imports nothing', () => {
  const text = readFileSync(join(ROOT, 'pkg/browser.mjs'), 'utf8');
  assert.doesNotMatch(text, /^\s*import\b|\bimport\s*\(|^\s*export\s.*\bfrom\s/m);
  assert.match(text, /new URL\('\.\/web\/netaclaw_tool_policy_bg\.wasm', import\.meta\.url\)/);
});

test('a first visit importing pkg/browser.mjs: the entry and the .wasm, one request each, and the answers of Node', async () => {
  const { server, origin, requests } = await serveStatic({
    '/plain.html': { type: 'text/html', body: page('') },
    '/hints.html': { type: 'text/html', body: page(`<link rel="modulepreload" href="/pkg/browser.mjs"><link rel="preload" href="${WASM}" as="fetch" type="application/wasm" crossorigin>`) },
  });
  const browser = await launchChromium();
  try {
    for (const path of ['/plain.html', '/hints.html']) {
      requests.length = 0;
      const { result, errors } = await visit(browser, origin, path);
      // A preload its page does not use is fetched twice and warned about on the console.
      assert.deepEqual(errors, [], path);
      assert.deepEqual(requests.filter((r) => r !== '/favicon.ico'), [path, '/pkg/browser.mjs', WASM], path);
      const nodeKeys = Object.keys(nodeEsm).filter((k) => k !== 'default');
      assert.deepEqual(result.keys, [...nodeKeys, 'initSync'].sort(), path);
      assert.equal(result.version, policy.version());
      assert.equal(result.catalogInfo, JSON.stringify(policy.catalogInfo()));
      assert.equal(result.checkText, new Function(`return ${CHECK_TEXT}`)()(policy));
      assert.match(result.checkText, /"path":"\/srv\/a\/src\/lib.rs"/);
      assert.deepEqual(result.refused, { code: 'invalid_input', message: (() => { try { policy.label('reasons', 'nope'); } catch (e) { return e.message; } })() });
    }
  } finally {
    await browser.close();
    server.close();
  }
});

test('the packed package holds the entry and the one .wasm it loads', () => {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: join(ROOT, 'pkg'), encoding: 'utf8' }));
  const files = packed.files.map((f) => f.path);
  assert.ok(files.includes('browser.mjs'), files.join(', '));
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), [WASM.slice('/pkg/'.length)]);
});

test('the build refuses a glue it cannot make one module of, naming what is wrong', () => {
  const glue = readFileSync(join(ROOT, 'pkg/web/netaclaw_tool_policy.js'), 'utf8');
  const work = mkdtempSync(join(tmpdir(), 'netaclaw-entry-'));
  try {
    const cases = [
      [`import { x } from './other.js';\n${glue}`, /has an import; the entry cannot be one module/],
      [`${glue}\nexport { y } from './other.js';\n`, /has an export from another module/],
      [glue.replace("new URL('netaclaw_tool_policy_bg.wasm', import.meta.url)", "new URL('other.wasm', import.meta.url)"), /expected "new URL\('netaclaw_tool_policy_bg\.wasm', import\.meta\.url\)" once, found 0/],
      [glue.replace('export { initSync, __wbg_init as default };', 'export { initSync };'), /expected "export \{ initSync, __wbg_init as default \};" once, found 0/],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const input = join(work, `glue-${i}.js`);
      const output = join(work, `entry-${i}.mjs`);
      writeFileSync(input, text);
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts/browser-entry.mjs'), input, output], { encoding: 'utf8' });
      assert.notEqual(run.status, 0, `case ${i} was accepted`);
      assert.match(run.stderr, message);
      assert.ok(!existsSync(output), `case ${i} wrote ${output}`);
    }
    // The glue as built makes the entry the package ships.
    const output = join(work, 'entry.mjs');
    const input = join(work, 'glue.js');
    writeFileSync(input, glue);
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/browser-entry.mjs'), input, output], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(output, 'utf8'), readFileSync(join(ROOT, 'pkg/browser.mjs'), 'utf8'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
