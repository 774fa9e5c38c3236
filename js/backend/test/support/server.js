'use strict';
// Starts the real backend (`node bootstrap.js`, compiled dist/) as a child process and talks HTTP to it.
const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');

const BACKEND_ROOT = path.resolve(__dirname, '..', '..');
const TOKEN = 'test-admin-token-0123456789';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Env for a child with nothing inherited that could change the app's behaviour. */
function childEnv(extra) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(DB_|DATA_DIR$|STATIC_DIR$|PORT$|HOST$|ADMIN_TOKEN$|NETACLAW_|MIDWAY_)/.test(k)) delete env[k];
  }
  return { ...env, ...extra };
}

/**
 * Starts the server. Resolves when it prints its URL, or, with `expectExit`, when it exits, or, with
 * `until`, while it is still starting (no url): as soon as its output matches `until` (a RegExp), or
 * `until` ms after the spawn (a number).
 * Returns { url, port, child, log(), syncLine, exitCode, stop(), sigterm() }.
 */
async function startServer(env, { expectExit = false, timeoutMs = 60000, until } = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, ['bootstrap.js'], {
    cwd: BACKEND_ROOT,
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: TOKEN, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', d => (out += d));
  child.stderr.on('data', d => (out += d));
  const exited = new Promise(resolve => child.on('exit', code => resolve(code)));
  const ready = new Promise(resolve => {
    if (typeof until === 'number') setTimeout(() => resolve(null), until);
    const check = () => {
      if (until instanceof RegExp && until.test(out)) return resolve(null);
      const m = /listening on (http:\/\/\S+?)\/?\s*$/m.exec(out);
      if (m) resolve(m[1]);
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
  });
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms; output:\n${out}`)), timeoutMs);
  });
  const server = {
    port,
    child,
    log: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 10000);
        await exited;
        clearTimeout(t);
      }
    },
    /**
     * Sends SIGTERM and waits for the exit (SIGKILL after `limitMs`). Resolves with
     * { ms, code, signal, killed }: how long the exit took and how it ended.
     */
    async sigterm(limitMs = 20000) {
      const t0 = Date.now();
      if (child.exitCode !== null || child.signalCode !== null) return { ms: 0, code: child.exitCode, signal: child.signalCode, killed: false };
      child.kill('SIGTERM');
      let killed = false;
      const t = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, limitMs);
      await exited;
      clearTimeout(t);
      return { ms: Date.now() - t0, code: child.exitCode, signal: child.signalCode, killed };
    },
  };
  try {
    const first = await Promise.race([ready.then(url => ({ url })), exited.then(code => ({ code })), timeout]);
    if ('code' in first) {
      if (!expectExit) throw new Error(`server exited with code ${first.code} before listening; output:\n${out}`);
      server.exitCode = first.code;
      return server;
    }
    if (first.url === null) return server; // `until` matched
    if (expectExit) {
      await server.stop();
      throw new Error(`server was expected to fail but started; output:\n${out}`);
    }
    server.url = first.url;
    server.syncLine = parseSyncLine(out);
    return server;
  } finally {
    clearTimeout(timer);
  }
}

function parseSyncLine(out) {
  const m = /catalog sync: (\d+) inserts, (\d+) updates, (\d+) orphans/.exec(out);
  return m ? { inserts: Number(m[1]), updates: Number(m[2]), orphans: Number(m[3]) } : null;
}

/**
 * HTTP helper: call(server, method, path, body?, {token, headers, raw, timeoutMs}) → { status, body, text,
 * headers }. A request that gets no answer within timeoutMs (default 30 s) rejects.
 */
async function call(server, method, p, body, opts = {}) {
  const headers = { ...(opts.headers || {}) };
  const token = opts.token === undefined ? TOKEN : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let payload;
  if (opts.raw !== undefined) {
    payload = opts.raw;
    if (!('content-type' in headers)) headers['content-type'] = 'application/json';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(server.url + p, { method, headers, body: payload, signal: AbortSignal.timeout(opts.timeoutMs ?? 30000) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text, headers: res.headers };
}

/** Starts a server, runs `fn(server)`, and always stops the server. */
async function withServer(env, fn) {
  const server = await startServer(env);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid) {
  const fields = require('node:fs').readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return ticks / 100; // USER_HZ
}

module.exports = { startServer, withServer, call, freePort, cpuSeconds, childEnv, TOKEN, BACKEND_ROOT };
