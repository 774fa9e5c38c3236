// The package as a registry would serve it: `npm pack` of pkg/ (its `prepack` refuses an unbuilt
// package), publint and @arethetypeswrong/cli clean on it, and the tarball installed (not linked) into
// three scratch apps — a Node ES module app, a CommonJS app (with the CLI) and a Vite app, built and
// opened in headless Chromium — each answering what the package answers here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { ROOT, serveStatic, withPage } from './lib/static.mjs';

const require = createRequire(import.meta.url);
const policy = require('@netaclaw/tool-policy');
const PKG = join(ROOT, 'pkg');
const BIN = join(ROOT, 'js/node_modules/.bin');
const VITE = join(ROOT, 'www/node_modules/.bin/vite');
const work = mkdtempSync(join(tmpdir(), 'netaclaw-pack-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** Runs a command; answers its stdout, failing the test with its output when it exits non-zero. */
function sh(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} in ${cwd}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

let tarball;
/** The packed package (packed once). */
function pack() {
  if (!tarball) {
    const out = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', work], PKG));
    tarball = join(work, out[0].filename);
  }
  return tarball;
}

/** A scratch app with `files`, the tarball installed into it from the file (no registry, no link). */
function app(name, files) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  sh('npm', ['install', '--no-audit', '--no-fund', '--offline', pack()], dir);
  const installed = join(dir, 'node_modules/@netaclaw/tool-policy');
  assert.equal(lstatSync(installed).isSymbolicLink(), false, 'the package is a copy, not a link');
  return dir;
}

const CHECK = `{ policy: { workspaceRoots: ['/srv/a'], allowShell: false, readonly: true }, routes: [{ name: 'read_file', status: 'worker-local', reasons: [] }] }`;
const expected = {
  version: policy.version(),
  catalogInfo: JSON.stringify(policy.catalogInfo()),
  checkText: JSON.stringify(
    new policy.ToolCallChecker({
      policy: { workspaceRoots: ['/srv/a'], allowShell: false, readonly: true },
      routes: [{ name: 'read_file', status: 'worker-local', reasons: [] }],
    }).checkText('read_file', '{"path":"b/../c"}'),
  ),
  refused: (() => {
    try {
      policy.label('reasons', 'nope');
    } catch (e) {
      return { code: e.code, message: e.message };
    }
  })(),
};
const PROBE = (p) => `({
  version: ${p}.version(),
  catalogInfo: JSON.stringify(${p}.catalogInfo()),
  checkText: JSON.stringify(new ${p}.ToolCallChecker(${CHECK}).checkText('read_file', '{"path":"b/../c"}')),
  refused: (() => { try { ${p}.label('reasons', 'nope'); return null; } catch (e) { return { code: e.code, message: e.message }; } })(),
})`;

test('an unbuilt package is refused by prepack, naming what is missing', () => {
  const copy = join(work, 'unbuilt');
  cpSync(PKG, copy, { recursive: true, filter: (src) => !/[\\/](node|web)$/.test(src) });
  const r = spawnSync('npm', ['pack', '--dry-run'], { cwd: copy, encoding: 'utf8', env: { ...process.env, NETACLAW_PREPACK_BUILD: '0' } });
  assert.notEqual(r.status, 0, 'an unbuilt package was packed');
  assert.match(r.stderr, /prepack: the package is not built; missing: .*node\/netaclaw_tool_policy\.js/);
});

test('publint and @arethetypeswrong/cli find nothing wrong in the packed package', () => {
  // --strict: a warning fails the run too; suggestions are printed and refused here.
  const lint = sh(join(BIN, 'publint'), ['run', '--strict', PKG], ROOT);
  assert.match(lint, /All good!/);
  assert.doesNotMatch(lint, /Suggestions|Warnings|Errors/);
  const attw = spawnSync(join(BIN, 'attw'), ['--format', 'json', pack()], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(attw.status, 0, attw.stdout + attw.stderr);
  const report = JSON.parse(attw.stdout);
  assert.deepEqual(report.analysis.problems ?? [], [], JSON.stringify(report.analysis.problems));
  const resolutions = Object.values(report.analysis.entrypoints['.'].resolutions);
  assert.deepEqual(
    resolutions
      .map((r) => r.resolution?.isTypeScript && r.resolutionKind)
      .filter(Boolean)
      .sort(),
    ['bundler', 'node10', 'node16-cjs', 'node16-esm'],
  );
});

test('a Node ES module app and a CommonJS app installed from the tarball answer as here, one instance between them', () => {
  const esm = app('esm-app', {
    'package.json': JSON.stringify({ name: 'esm-app', private: true, type: 'module' }),
    'main.js': `import * as p from '@netaclaw/tool-policy';
import whole from '@netaclaw/tool-policy';
import { createRequire } from 'node:module';
const required = createRequire(import.meta.url)('@netaclaw/tool-policy');
console.log(JSON.stringify({ ...${PROBE('p')}, shared: whole === required && p.ToolPolicyEngine === required.ToolPolicyEngine }));
`,
  });
  assert.deepEqual(JSON.parse(sh(process.execPath, ['main.js'], esm)), { ...expected, shared: true });
  const cjs = app('cjs-app', {
    'package.json': JSON.stringify({ name: 'cjs-app', private: true }),
    'main.js': `const p = require('@netaclaw/tool-policy');\nconsole.log(JSON.stringify(${PROBE('p')}));\n`,
  });
  assert.deepEqual(JSON.parse(sh(process.execPath, ['main.js'], cjs)), expected);
  assert.equal(sh(join(cjs, 'node_modules/.bin/tool-policy'), ['--version'], cjs).trim(), policy.version());
  const types = ['LICENSE', 'README.md', 'index.d.ts', 'browser.d.mts'].filter((f) => !existsSync(join(cjs, 'node_modules/@netaclaw/tool-policy', f)));
  assert.deepEqual(types, [], 'files missing from the installed package');
});

test('a Vite app installed from the tarball builds, and its page answers as here in headless Chromium', async () => {
  assert.ok(existsSync(VITE), `${VITE} is missing: run npm ci in www/`);
  const dir = app('vite-app', {
    'package.json': JSON.stringify({ name: 'vite-app', private: true, type: 'module' }),
    'vite.config.js': `export default { logLevel: 'warn', build: { target: 'es2022' }, optimizeDeps: { exclude: ['@netaclaw/tool-policy'] } };\n`,
    'index.html': '<!doctype html><meta charset="utf-8"><title>vite app</title><script type="module" src="./main.js"></script>\n',
    'main.js': `import * as p from '@netaclaw/tool-policy';\nwindow.__result = ${PROBE('p')};\n`,
  });
  sh(VITE, ['build'], dir);
  const dist = join(dir, 'dist');
  const routes = {};
  const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const walk = (d) =>
    readdirSync(d).forEach((f) =>
      statSync(join(d, f)).isDirectory()
        ? walk(join(d, f))
        : (routes[`/${relative(dist, join(d, f))}`] = { type: TYPES[extname(f)] ?? 'application/octet-stream', body: readFileSync(join(d, f)) }),
    );
  walk(dist);
  const wasms = Object.keys(routes).filter((r) => r.endsWith('.wasm'));
  assert.equal(wasms.length, 1, `the build emits the one module: ${Object.keys(routes).join(', ')}`);
  routes['/'] = routes['/index.html'];
  const { server, origin, requests } = await serveStatic(routes);
  try {
    const { result, errors } = await withPage(origin, '/', (page) =>
      page.waitForFunction(() => window.__result, null, { timeout: 20_000 }).then((h) => h.jsonValue()),
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(result, expected);
    assert.ok(requests.includes(wasms[0]), `the page loaded ${wasms[0]}: ${requests.join(', ')}`);
  } finally {
    server.close();
  }
});
