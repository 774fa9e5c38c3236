// The package's browser entry (pkg/browser.mjs, a hand-kept module importing wasm-bindgen's web glue)
// in headless Chromium, loaded unbundled by a page as a first visit: the entry, the glue and the
// `.wasm`, one request each; the exports of the Node entry, the same answers, and a preload of the
// `.wasm` (the hint www/index.html carries) used by the glue's own fetch rather than fetched twice.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
      if ((m.type() === 'warning' || m.type() === 'error') && !m.location().url.endsWith('/favicon.ico'))
        errors.push(`${m.type()}: ${m.text()} (${m.location().url})`);
    });
    await tab.goto(`${origin}${path}`);
    const result = await tab.waitForFunction(() => window.__result, null, { timeout: 20_000 }).then((h) => h.jsonValue());
    return { result, errors };
  } finally {
    await context.close();
  }
}

test('a first visit importing pkg/browser.mjs: the entry, the glue and the .wasm, one request each, and the answers of Node', async () => {
  const { server, origin, requests } = await serveStatic({
    '/plain.html': { type: 'text/html', body: page('') },
    '/hints.html': {
      type: 'text/html',
      body: page(
        `<link rel="modulepreload" href="/pkg/browser.mjs"><link rel="modulepreload" href="/pkg/web/netaclaw_tool_policy.js"><link rel="preload" href="${WASM}" as="fetch" type="application/wasm" crossorigin>`,
      ),
    },
  });
  const browser = await launchChromium();
  try {
    for (const path of ['/plain.html', '/hints.html']) {
      requests.length = 0;
      const { result, errors } = await visit(browser, origin, path);
      // A preload its page does not use is fetched twice and warned about on the console.
      assert.deepEqual(errors, [], path);
      assert.deepEqual(
        requests.filter((r) => r !== '/favicon.ico'),
        [path, '/pkg/browser.mjs', '/pkg/web/netaclaw_tool_policy.js', WASM],
        path,
      );
      const nodeKeys = Object.keys(nodeEsm).filter((k) => k !== 'default');
      assert.deepEqual(result.keys, [...nodeKeys, 'initSync'].sort(), path);
      assert.equal(result.version, policy.version());
      assert.equal(result.catalogInfo, JSON.stringify(policy.catalogInfo()));
      assert.equal(result.checkText, new Function(`return ${CHECK_TEXT}`)()(policy));
      assert.match(result.checkText, /"path":"\/srv\/a\/src\/lib.rs"/);
      assert.deepEqual(result.refused, {
        code: 'invalid_input',
        message: (() => {
          try {
            policy.label('reasons', 'nope');
          } catch (e) {
            return e.message;
          }
        })(),
      });
    }
  } finally {
    await browser.close();
    server.close();
  }
});

test('the packed package holds the entries and one module, beside each glue, the same bytes', () => {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: join(ROOT, 'pkg'), encoding: 'utf8' }));
  const files = packed.files.map((f) => f.path);
  for (const entry of ['browser.mjs', 'index.cjs', 'node/netaclaw_tool_policy.js', 'web/netaclaw_tool_policy.js'])
    assert.ok(files.includes(entry), `${entry} in ${files.join(', ')}`);
  const wasms = files.filter((f) => f.endsWith('.wasm')).sort();
  assert.deepEqual(wasms, ['node/netaclaw_tool_policy_bg.wasm', 'web/netaclaw_tool_policy_bg.wasm']);
  assert.ok(readFileSync(join(ROOT, 'pkg', wasms[0])).equals(readFileSync(join(ROOT, 'pkg', wasms[1]))), 'the two copies differ');
});
