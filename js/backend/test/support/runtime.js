'use strict';
// Helpers for the runtime tests: the compiled runtime modules, temp workspaces, a host with test switches.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const DIST = path.resolve(__dirname, '..', '..', 'dist', 'runtime');
const rt = name => require(path.join(DIST, name));
const FIXTURE_WORKER = path.resolve(__dirname, '..', 'fixtures', 'hostile-worker.js');

// The sandbox's user, seccomp program and limits (confine.ts), set up as the backend does at start.
const SETUP = rt('confine.js').setupConfinement();

/** The confinement set up for the tests of this process (null when it could not be: `SETUP.failure`). */
function confinement() {
  return SETUP.confinement;
}

/** Who sandboxes run as (the backend's `netaclaw-sandbox` user when the tests run as root). */
function sandboxUser() {
  const c = confinement();
  if (!c) throw new Error(`the sandbox cannot be confined here: ${SETUP.failure}`);
  return c.identity;
}

/**
 * A test's own sandbox (runtime/sandboxes.ts) by its mode: `bwrap` (with the tests' confinement, or the
 * one given), `sandboxed` (inside a worker's), `off` or `unavailable`.
 */
function sandboxOf(mode, confined) {
  const s = rt('sandboxes.js');
  if (mode === 'bwrap') return s.bwrapSandbox(confined ? { confinement: confined, failure: null } : SETUP, 'bwrap (the tests)');
  if (mode === 'sandboxed') return s.insideSandbox();
  if (mode === 'off') return s.offSandbox();
  if (mode === 'unavailable') return s.unavailableSandbox('unavailable (the tests)');
  throw new Error(`no sandbox mode ${mode}`);
}

/** A test's own runtime environment (runtime/env.ts) with the sandbox of `mode` (or a sandbox given). */
function envOf(mode) {
  return rt('env.js').createRuntimeEnv({ sandbox: typeof mode === 'string' ? sandboxOf(mode) : mode });
}

/** The main process's handlers (the builtin registry, runtime/tools/registry.ts). */
function mainTools() {
  return new (rt('tools/registry.js').ToolRegistry)(rt('tools/builtin.js').BUILTIN_HANDLERS).table('main');
}

/**
 * Gives a workspace folder (and everything in it) to the sandbox user, as an operator gives a workspace
 * to the user its agents run as, and lets that user pass through the folders above it up to `upTo`.
 */
function giveToSandbox(dir, upTo = os.tmpdir()) {
  const { uid, gid } = sandboxUser();
  const visit = p => {
    fs.lchownSync(p, uid, gid);
    if (fs.lstatSync(p).isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  for (let p = path.dirname(dir); p.startsWith(upTo) && p !== upTo; p = path.dirname(p)) {
    const mode = fs.statSync(p).mode & 0o777;
    fs.chmodSync(p, mode | 0o011);
  }
  return dir;
}

/**
 * A workspace in a fresh temp folder: root/ (a.txt, sub/b.md, esc -> ../outside/secret.txt),
 * outside/secret.txt (never to be read), all real paths.
 */
function workspace() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-rt-')));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\ngamma\n');
  fs.writeFileSync(path.join(root, 'sub', 'b.md'), '# title\nbeta in markdown\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP-SECRET\n');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'esc'));
  fs.symlinkSync(outside, path.join(root, 'escdir'));
  giveToSandbox(root);
  return {
    base,
    root,
    outside,
    secret: path.join(outside, 'secret.txt'),
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

/** Real operations, shells run by the sandbox of `mode` (or the sandbox given). */
function operations(mode) {
  return {
    fs: new (rt('operations/fs.js').NodeFileSystemOperations)(),
    search: new (rt('operations/search.js').NodeSearchOperations)(),
    process: new (rt('operations/process.js').ShellProcessOperations)(typeof mode === 'string' ? sandboxOf(mode) : mode),
  };
}

/**
 * In-process stand-ins for the database-backed services (the database path is tested over HTTP).
 * `boundSkills`: the skills bound to the agent (none by default).
 */
function services(skillsDir, boundSkills = []) {
  const memories = [];
  const todoItems = [];
  const escalated = [];
  return {
    memories,
    todoItems,
    escalated,
    memory: {
      async save(agentId, content) {
        memories.push({ id: memories.length + 1, agentId, content, createTime: new Date() });
        return { id: memories.length };
      },
      async recall(agentId, query, limit) {
        return memories
          .filter(m => m.agentId === agentId && m.content.includes(query))
          .reverse()
          .slice(0, limit);
      },
    },
    // Tests that use skills pass their own folder; others get one that does not exist.
    skillsDir: skillsDir ?? path.join(os.tmpdir(), 'netaclaw-no-skills-here'),
    boundSkills: async () => boundSkills,
    todos: { set: items => todoItems.splice(0, todoItems.length, ...items) },
    escalations: {
      async record(agentId, reason) {
        escalated.push({ id: escalated.length + 1, agentId, reason });
        return { id: escalated.length };
      },
    },
  };
}

/**
 * Starts a WorkerHost in an environment of its own (`shell`: its sandbox's mode); returns { host, events }.
 * Stop it with host.kill('…'). `pins`: the run's held roots
 * (runtime/pinned.ts; absent: the host pins the policy's roots itself); `rules`: the run's rules (their
 * path rules enforced in the sandbox, runtime/pathrules.ts); `network`: who answers its net() asks and keeps
 * the decisions (runtime/net/proxy.ts).
 */
async function startHost({ policy, routes = [], shell = 'bwrap', timeoutMs = 20000, test, svc, pins, rules, network }) {
  const { WorkerHost } = rt('host.js');
  const events = [];
  const env = envOf(shell);
  const host = new WorkerHost({
    batchId: 1,
    agentId: 1,
    policy,
    routes,
    driver: 'calls',
    timeoutMs,
    env,
    ops: operations(env.sandbox),
    services: svc ?? services(),
    onEvent: e => events.push(e),
    test,
    pins,
    rules,
    network,
  });
  await host.start();
  return { host, events };
}

async function withHost(opts, fn) {
  const { host, events } = await startHost(opts);
  try {
    return await fn(host, events);
  } finally {
    await host.kill('test over');
  }
}

/**
 * Everything under `dir`, symlinks not followed: { 'rel/path': 'file <sha256> <mode>' | 'dir <mode>' |
 * 'symlink -> target' }. Two equal snapshots: nothing was created, changed, removed or re-linked.
 */
function snapshot(dir) {
  const crypto = require('node:crypto');
  const out = {};
  const visit = rel => {
    const abs = path.join(dir, rel);
    const st = fs.lstatSync(abs);
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out[rel] = `symlink -> ${fs.readlinkSync(abs)}`;
    else if (st.isFile()) out[rel] = `file ${crypto.createHash('sha256').update(fs.readFileSync(abs)).digest('hex')} ${mode}`;
    else if (st.isDirectory()) {
      out[rel] = `dir ${mode}`;
      for (const name of fs.readdirSync(abs).sort()) visit(rel === '' ? name : `${rel}/${name}`);
    } else out[rel] = `other ${mode}`;
  };
  visit('');
  return out;
}

/** The package's policy and routes for a session (the same call the service makes). */
function diagnose(root, { shell = false, write = false, toolsets = ['base', 'planning', 'skills'], memoryEnabled = false, roots } = {}) {
  const policy = require('@netaclaw/tool-policy');
  const d = policy.runtimeDiagnostic({
    agent: { toolsets, tools: null },
    modelCapability: 'text',
    memoryEnabled,
    hasSkills: true,
    crewRole: 'sub',
    sessionCwd: root,
    ...(roots ? { workspaceRoots: roots } : {}),
    shellPermitted: shell,
    writePermitted: write,
  });
  return { policy: d.policy, routes: d.routes };
}

/** Every text a call answered (output, error, detail), to look for what must never appear. */
const callText = r => [r.output, r.error, r.detail].filter(x => typeof x === 'string').join('\n');

module.exports = {
  rt,
  confinement,
  sandboxOf,
  envOf,
  mainTools,
  sandboxUser,
  giveToSandbox,
  workspace,
  operations,
  services,
  startHost,
  withHost,
  snapshot,
  diagnose,
  callText,
  FIXTURE_WORKER,
};
