#!/usr/bin/env node
// `npm run test:e2e`: build the pages (unless dist/ is newer than every source), start the scripted
// model on loopback (the stand-in for the external model service, the backend tests' own, answering
// from model-script.mjs), start the real backend (js/backend) on a free port with a temp data dir and
// a fixed admin token, wait for GET /health, run the node:test files of this folder in headless
// Chromium, and always stop both at the end.
//
// The backend starts without a model channel (the agent page's tests compare the browser's preview
// with a backend that has none: the capability falls back to `text`), and — as the demo does — with the
// built-in demonstration model answering the chats of agents without one (NETACLAW_DEMO_MODEL=1). The tests that chat add a
// channel pointing at the scripted model through the channel API (E2E_MODEL_BASE_URL, E2E_MODEL) —
// the first one added becomes the default — and delete it when they end (helpers.mjs
// `scriptedChannel`).
import { createRequire } from 'node:module';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { cpSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { respond } from './model-script.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const www = resolve(here, '..', '..');
const repo = resolve(www, '..');
const ADMIN_TOKEN = process.env.E2E_ADMIN_TOKEN ?? 'e2e-admin-token-0123456789';
const MODEL_NAME = 'scripted-e2e';
const { startModel } = createRequire(import.meta.url)(join(repo, 'js', 'backend', 'test', 'support', 'model.js'));

function log(msg) {
  process.stdout.write(`[e2e] ${msg}\n`);
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of readdirSync(path)) {
    if (e === 'node_modules') continue;
    max = Math.max(max, newestMtime(join(path, e)));
  }
  return max;
}

function needsBuild() {
  if (process.env.E2E_REBUILD === '1') return true;
  const built = join(www, 'dist', 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  const inputs = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json', 'package-lock.json'].map((p) => join(www, p));
  const pkg = join(www, 'node_modules', '@netaclaw', 'tool-policy');
  if (existsSync(pkg)) inputs.push(pkg);
  return inputs.some((p) => newestMtime(p) > builtAt);
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

async function waitHealth(base, backend, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (backend.exitCode !== null || backend.signalCode !== null)
      throw new Error(`backend exited early (code ${backend.exitCode}, signal ${backend.signalCode})`);
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) {
        const body = await res.json();
        if (body?.data?.status === 'ok') return;
      }
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`backend not healthy after ${timeoutMs} ms`);
}

let backend = null;
let dataDir = null;

function stopBackend() {
  if (backend && backend.exitCode === null && backend.signalCode === null) {
    try {
      process.kill(-backend.pid, 'SIGTERM'); // its whole process group: npm and node
    } catch {
      /* already gone */
    }
  }
}

async function waitExit(child) {
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  if (!gone()) await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 10_000))]);
  try {
    process.kill(-child.pid, 'SIGKILL'); // anything of the group still alive after 10 s
  } catch {
    /* the group is gone */
  }
}

process.on('exit', stopBackend);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stopBackend();
    process.exit(130);
  });
}

async function main() {
  if (needsBuild()) {
    log('building the pages (vite build)…');
    const b = spawnSync('npm', ['run', 'build'], { cwd: www, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('vite build failed');
  } else {
    log('dist/ is up to date, not rebuilding');
  }

  const model = await startModel();
  model.respond(respond);
  log(`scripted model at ${model.baseUrl}`);

  const port = await freePort();
  dataDir = mkdtempSync(join(tmpdir(), 'netaclaw-e2e-'));
  // the demo's example skills, where the backend looks for skills (<DATA_DIR>/skills), as scripts/demo.sh installs them
  cpSync(join(repo, 'scripts', 'demo', 'skills'), join(dataDir, 'skills'), { recursive: true });
  const logFile = join(dataDir, 'backend.log');
  const out = openSync(logFile, 'a');
  const base = `http://127.0.0.1:${port}`;
  log(`starting the backend on ${base} (data ${dataDir})`);
  backend = spawn('npm', ['--prefix', join(repo, 'js', 'backend'), 'start'], {
    cwd: www,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DB_PATH: join(dataDir, 'netaclaw.sqlite'),
      // the pages just built (the backend's default is a folder outside the checkout, which the demo fills)
      STATIC_DIR: join(www, 'dist'),
      ADMIN_TOKEN,
      // the OCR follow-up of seed 001: a vision tool registered by file (ocr.test.mjs)
      NETACLAW_CATALOG_FILE: join(here, 'fixtures', 'ocr-catalog.json'),
      // the demo's example agents, so that the pages (and the README's screenshots) show them (pages.test.mjs)
      NETACLAW_SEED_FILE: join(repo, 'scripts', 'demo', 'agents.json'),
      // as in the demo: without a model channel the agents converse with the demonstration model (demo-model.test.mjs)
      NETACLAW_DEMO_MODEL: '1',
      NODE_ENV: process.env.NODE_ENV ?? 'production',
      NETACLAW_MODEL_MAX_RETRIES: '0',
      // the key of the secrets at rest, so that the run writes no key file into the home folder
      NETACLAW_SECRET_KEY: 'e2e0'.repeat(16),
    },
    stdio: ['ignore', out, out],
    detached: true,
  });

  let code = 1;
  try {
    await waitHealth(base, backend, Number(process.env.E2E_HEALTH_TIMEOUT_MS ?? 180_000));
    log('backend healthy; running the tests');
    const files = readdirSync(here)
      .filter((f) => f.endsWith('.test.mjs'))
      .sort()
      .map((f) => join(here, f));
    const only = process.argv.slice(2);
    // `--shots`: the screenshot set of every page state (shots.mjs), instead of the tests
    const selected = only.includes('--shots') ? [join(here, 'shots.mjs')] : only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;
    const t = spawn(process.execPath, ['--test', '--test-concurrency=1', ...selected], {
      cwd: www,
      env: { ...process.env, E2E_BASE_URL: base, E2E_ADMIN_TOKEN: ADMIN_TOKEN, E2E_MODEL_BASE_URL: model.baseUrl, E2E_MODEL: MODEL_NAME },
      stdio: 'inherit',
    });
    code = await new Promise((r) => t.on('exit', (c, s) => r(c ?? (s ? 1 : 0))));
  } catch (e) {
    log(`error: ${e.message}`);
    code = 1;
  } finally {
    if (code !== 0) {
      try {
        const text = readFileSync(logFile, 'utf8');
        log(`backend log (last 60 lines of ${logFile}):\n${text.split('\n').slice(-60).join('\n')}`);
      } catch {
        /* no log */
      }
    }
    stopBackend();
    if (backend) await waitExit(backend);
    if (model.problems.length) log(`scripted model problems:\n${model.problems.join('\n')}`);
    await model.close();
    if (code === 0 && process.env.E2E_KEEP_DATA !== '1') rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(code);
}

main().catch((e) => {
  log(`fatal: ${e.stack ?? e}`);
  stopBackend();
  process.exit(1);
});
