'use strict';
// Starts the real backend (`node bootstrap.js`, compiled dist/) as a child process and talks HTTP to it.
const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');

const BACKEND_ROOT = path.resolve(__dirname, '..', '..');
const TOKEN = 'test-admin-token-0123456789';
/**
 * The key of the secrets at rest the test servers use (src/config/secrets.ts), so that no test writes a key file
 * into the home folder; a test of the key file gives NETACLAW_SECRET_KEY: undefined and its own file.
 */
const SECRET_KEY = '5ec12e7ce7a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b';

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
    if (/^(DB_|DATA_DIR$|STATIC_DIR$|PORT$|HOST$|ADMIN_TOKEN$|REDIS_URL$|NETACLAW_|MIDWAY_)/.test(k)) delete env[k];
  }
  return { ...env, ...extra };
}

/**
 * Starts the server. Resolves when it prints its URL, or, with `expectExit`, when it exits, or, with
 * `until`, while it is still starting (no url): as soon as its output matches `until` (a RegExp), or
 * `until` ms after the spawn (a number).
 * `user` ({ uid, gid }): runs the backend as that user (a root test's non-root backend).
 * Returns { url, port, child, log(), syncLine, exitCode, stop(), sigterm() }.
 */
async function startServer(env, { expectExit = false, timeoutMs = 60000, until, user } = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, ['bootstrap.js'], {
    cwd: BACKEND_ROOT,
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: TOKEN, NETACLAW_SECRET_KEY: SECRET_KEY, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    // `user`: { uid, gid } — the backend as another (non-root) user, started by a root test
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  let out = '';
  child.stdout.on('data', d => (out += d));
  child.stderr.on('data', d => (out += d));
  const exited = new Promise(resolve => child.on('exit', code => resolve(code)));
  const ready = new Promise(resolve => {
    if (typeof until === 'number') setTimeout(() => resolve(null), until);
    const check = () => {
      if (until instanceof RegExp && until.test(out)) return resolve(null);
      // the text format's line ends with the URL; a JSON line (LOG_FORMAT=json) with it and `"}`
      const m = /listening on (http:\/\/[^\s"]+?)\/?(?:"\})?\s*$/m.exec(out);
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

/**
 * What `/health` says of a confined sandbox's kernel limits on this host, found independently of the
 * backend's code: `cgroup2` when the process's own cgroup v2 folder is writable and enables pids and
 * memory for its children, else `cgroup1` when the v1 pids and memory hierarchies are writable (root),
 * else `rlimit` with memory and memfd named weaker, and tmpfs too when not root (runtime/cgroups.ts).
 */
function sandboxHealth() {
  const fs = require('node:fs');
  const writable = p => {
    try {
      fs.accessSync(p, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  const mounts = fs
    .readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map(l => l.split(' '));
  const strong = mode => ({ worker: 'bwrap', seccomp: true, limits: mode, weaker: [] });
  if (mounts.some(m => m[1] === '/sys/fs/cgroup' && m[2] === 'cgroup2')) {
    const own = fs
      .readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find(l => l.startsWith('0::'));
    const dir = path.join('/sys/fs/cgroup', own.slice(3));
    const sub = fs.readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
    if (sub.includes('pids') && sub.includes('memory') && writable(dir)) return strong('cgroup2');
  }
  const v1 = c => mounts.find(m => m[2] === 'cgroup' && m[3].split(',').includes(c))?.[1];
  if (v1('pids') && v1('memory') && writable(v1('pids')) && writable(v1('memory'))) return strong('cgroup1');
  // a root backend without cgroups still sizes /tmp and /dev/shm (runtime/tmpfs.ts)
  return { worker: 'bwrap', seccomp: true, limits: 'rlimit', weaker: process.getuid() === 0 ? ['memory', 'memfd'] : ['memory', 'tmpfs', 'memfd'] };
}

/** `/health`'s `sandbox` when the OS sandbox is not available. */
const NO_SANDBOX = { worker: 'node-permission-only', seccomp: false, limits: 'none', weaker: ['processes', 'memory', 'tmpfs', 'memfd'] };

/** `/health`'s `bus` of an instance without REDIS_URL. */
const NO_BUS = { kind: 'database', connected: true, detail: 'REDIS_URL is not set: instances coordinate through the database' };

/**
 * Installs a skill where a test server of `env` looks for skills (`NETACLAW_SKILLS_DIR`, else
 * `<DATA_DIR>/skills`): its folder with a SKILL.md of `text`.
 */
function installSkill(env, name, text = `---\ndescription: the ${name} skill\n---\n# ${name}\n`) {
  const fs = require('node:fs');
  const root = env.NETACLAW_SKILLS_DIR ?? path.join(env.DATA_DIR, 'skills');
  fs.mkdirSync(path.join(root, name), { recursive: true });
  fs.writeFileSync(path.join(root, name, 'SKILL.md'), text);
  return root;
}

module.exports = {
  installSkill,
  startServer,
  withServer,
  call,
  freePort,
  cpuSeconds,
  childEnv,
  sandboxHealth,
  NO_SANDBOX,
  NO_BUS,
  TOKEN,
  SECRET_KEY,
  BACKEND_ROOT,
};
