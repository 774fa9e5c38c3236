'use strict';
// The sub-agent runtime's own costs, each beside the bare operation it is built on, measured with the
// backend's compiled runtime (js/backend/dist/runtime, `npm --prefix js/backend run build`):
// - a worker's start to its first decided call (WorkerHost start + one read_file) against a bare
//   `fork` of an empty script answering one IPC message;
// - a proxied call's round trip (host.call of a main-process tool: main -> worker -> gate -> proxy ->
//   main decides again, runs it and answers the caller; the worker's own `result` follows off the path)
//   against a bare IPC echo (main -> child -> main) of the same messages: the call out, a message of the
//   same size back (the proxy request carries the call's name and arguments). The two alternate, first one
//   then the other, in a loop of their own (no process spawned between them), after a warm-up; each starts
//   once the previous exchange is over (the worker's `result` included);
// - a sandboxed `bash` (host.call: IPC, the gate, the prelude's limits, the command, inside the worker's
//   own confined sandbox) against `spawn('sh', ['-c', …])` of the same command: a worker's following
//   calls, and its first call right after its start; beside them the floors spawned directly from this
//   process without a worker and IPC: the prelude and the command alone (what a worker's shell runs), and
//   a confined bwrap sandbox of its own with the prelude (what a main-process `bash` runs: setpriv as the
//   sandbox user, bwrap, the seccomp filter).
// - a worker's first `read_file` once it has waited 300 ms against its next `read_file` after the same
//   wait: what a first call still pays over the following ones.
// - a chat turn through the real server (`node bootstrap.js` on SQLite, POST /api/netaclaw/chat) with
//   the scripted model of the backend's tests answering at once: the turn's wall time against the
//   model's own time (from its receiving the request to its finishing the answer).
// Usage: node bench/runtime.cjs [--runs N] [--out file.json] [--dist js/backend/dist/runtime]. Prints JSON.
const { fork, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
// --dist: another build of the runtime (e.g. an earlier commit's, to compare before and after).
const dist = path.resolve(arg('dist', path.join(repo, 'js', 'backend', 'dist', 'runtime')));
const rt = name => require(path.join(dist, name));
const runs = Number(arg('runs', '15'));
const outPath = arg('out');
const policyPackage = require(path.join(repo, 'pkg', 'node', 'netaclaw_tool_policy.js'));

const now = () => Number(process.hrtime.bigint());
const median = v => [...v].sort((a, b) => a - b)[v.length >> 1];
const p95 = v => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.ceil(v.length * 0.95) - 1)];

function workspace(env) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-bench-rt-')));
  fs.writeFileSync(path.join(base, 'a.txt'), 'alpha\nbeta\n');
  // the workspace belongs to the sandbox's user, as an operator gives it
  const c = env.sandbox.confinement;
  if (c) for (const p of [base, path.join(base, 'a.txt')]) fs.chownSync(p, c.identity.uid, c.identity.gid);
  return base;
}

function services() {
  return {
    memory: { async save() { return { id: 1 }; }, async recall() { return []; } },
    skillsDir: path.join(os.tmpdir(), 'netaclaw-no-skills-here'),
    boundSkills: async () => [],
    todos: { set: () => {} },
  };
}

/** What the backend gives a worker (agent/batch/services.ts): the file, search and shell operations of its runtime. */
function operations(env) {
  const { NodeFileSystemOperations, NodeSearchOperations, ShellProcessOperations } = rt('index.js');
  return { fs: new NodeFileSystemOperations(), search: new NodeSearchOperations(), process: new ShellProcessOperations(env.sandbox) };
}

/** The package's policy and routes for a session with shell and the planning tools (as the service asks). */
function diagnose(root) {
  const d = policyPackage.runtimeDiagnostic({
    agent: { toolsets: ['base', 'planning'], tools: null },
    modelCapability: 'text',
    crewRole: 'sub',
    sessionCwd: root,
    shellPermitted: true,
    writePermitted: false,
  });
  return { policy: d.policy, routes: d.routes };
}

async function startHost(root, env) {
  const { WorkerHost } = rt('index.js');
  const { policy, routes } = diagnose(root);
  const host = new WorkerHost({ batchId: 1, agentId: 1, policy, routes, driver: 'calls', timeoutMs: 60000, env, ops: operations(env), services: services() });
  await host.start();
  return host;
}

/** A child that answers every IPC message with the same message, and says `ready` first. */
const ECHO = path.join(os.tmpdir(), `netaclaw-bench-echo-${process.pid}.js`);
fs.writeFileSync(ECHO, "process.on('message', m => process.send(m)); process.send('ready');\n");

function forkReady() {
  return new Promise((resolve, reject) => {
    const child = fork(ECHO, [], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    child.once('message', () => resolve(child));
    child.once('error', reject);
  });
}

function echo(child, message) {
  return new Promise(resolve => {
    child.once('message', resolve);
    child.send(message);
  });
}

function sh(command, argv = ['sh', '-c', command]) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', resolve);
  });
}

/** A confined sandbox of its own (the main process's way), spawned from this process, running `command`. */
function confinedSandbox(env, root, command) {
  const sandbox = rt('sandbox.js');
  const cmd = sandbox.confinedCommand(env.sandbox.confinement, sandbox.bwrapArgs({ roots: [root], readonly: true, cwd: root }), sandbox.sandboxCommand(command));
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(cmd.file, cmd.args, { stdio: ['ignore', 'pipe', 'pipe', 'ignore', cmd.seccompFd] });
    } finally {
      sandbox.closeQuietly(cmd.seccompFd);
    }
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', resolve);
  });
}

/** Chat turns against the scripted model: turn wall time and the model's own time, per turn. */
async function chatTurns() {
  const support = path.join(repo, 'js', 'backend', 'test', 'support');
  const { withServer } = require(path.join(support, 'server.js'));
  const { startModel } = require(path.join(support, 'model.js'));
  const { chat, addAgent, modelEnv } = require(path.join(support, 'chat.js'));
  const model = await startModel();
  const modelNs = [];
  const handle = model.handle.bind(model);
  model.handle = (req, res) => {
    const t = now();
    res.on('finish', () => modelNs.push(now() - t));
    handle(req, res);
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-bench-chat-'));
  const turns = [];
  try {
    const env = { DB_TYPE: 'sqlite', DB_PATH: path.join(dir, 'netaclaw.sqlite'), DATA_DIR: dir, ...modelEnv(model) };
    await withServer(env, async s => {
      const agent = await addAgent(s, { name: 'bench', systemPrompt: 'You answer briefly.', toolsets: ['base', 'planning'] });
      for (let i = 0; i < runs * 2 + 2; i++) {
        model.push({ content: 'ok' });
        const before = modelNs.length;
        const t = now();
        const r = await chat(s, { agentId: agent.id, message: 'hi' });
        const wall = now() - t;
        if (r.status !== 200) throw new Error(`chat: ${r.status} ${r.text}`);
        if (i >= 2) turns.push({ wall, model: modelNs.slice(before).reduce((a, b) => a + b, 0) });
      }
    });
  } finally {
    await model.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { turnP50: median(turns.map(t => t.wall)), modelP50: median(turns.map(t => t.model)), overheadP50: median(turns.map(t => t.wall - t.model)), turns: turns.length };
}

async function main() {
  // the runtime the backend starts with (its sandbox chosen and probed as at start)
  const env = await rt('index.js').startRuntime();
  const shell = env.sandbox.mode;
  const root = workspace(env);
  const out = { runtime: `Node ${process.version}`, runs, shell };
  try {
    // 1. A worker's start to its first decided call, against a bare fork answering one message.
    const start = { worker: [], fork: [] };
    for (let i = 0; i < runs; i++) {
      let t = now();
      const host = await startHost(root, env);
      const first = await host.call('read_file', { path: 'a.txt' });
      start.worker.push(now() - t);
      await host.kill('bench over');
      if (!first.ok) throw new Error(`read_file failed: ${first.error}`);
      t = now();
      const child = await forkReady();
      await echo(child, { v: 1, type: 'call', seq: 1, name: 'read_file', arguments: { path: 'a.txt' } });
      start.fork.push(now() - t);
      child.kill();
    }
    out.start = { workerP50: median(start.worker), workerP95: p95(start.worker), forkP50: median(start.fork), forkP95: p95(start.fork) };

    // A worker's first `bash`, right after its start, beside `spawn('sh')` measured just before it.
    const first = { atStart: [], sh: [] };
    if (shell === 'bwrap') {
      for (let i = 0; i < runs; i++) {
        const host = await startHost(root, env);
        try {
          let t = now();
          await sh('true');
          first.sh.push(now() - t);
          t = now();
          const b = await host.call('bash', { command: 'true' });
          first.atStart.push(now() - t);
          if (!b.ok) throw new Error(`bash failed: ${b.error}`);
        } finally {
          await host.kill('bench over');
        }
      }
      out.firstBash = { atStartP50: median(first.atStart), shP50: median(first.sh) };
    }

    // A worker's first `read_file` once it has waited (what it does at start done), against its next
    // `read_file` after the same wait: the same work, with nothing of a first call left to pay.
    const read = { first: [], next: [] };
    const idle = () => new Promise(resolve => setTimeout(resolve, 300));
    for (let i = 0; i < runs; i++) {
      const host = await startHost(root, env);
      try {
        for (const key of ['first', 'next']) {
          await idle(host);
          const t = now();
          const r = await host.call('read_file', { path: 'a.txt' });
          read[key].push(now() - t);
          if (!r.ok) throw new Error(`read_file failed: ${r.error}`);
        }
      } finally {
        await host.kill('bench over');
      }
    }
    out.firstRead = { idleP50: median(read.first), nextP50: median(read.next) };

    // 2. A proxied call against a bare IPC echo; 3. sandboxed bash against spawn('sh').
    const host = await startHost(root, env);
    const child = await forkReady();
    try {
      const args = { items: [{ text: 'bench', done: false }] };
      // The worker's own `result` of a proxied call comes after the host has answered the caller: the
      // next exchange starts once it is in, so that neither side of the comparison pays for it.
      const worker = host['child'];
      const workerResult = () =>
        new Promise(resolve => {
          const on = m => {
            if (m && m.type === 'result') {
              worker.off('message', on);
              resolve(now());
            }
          };
          worker.on('message', on);
        });
      const proxyRound = async () => {
        const done = workerResult();
        const t = now();
        const r = await host.call('todo', args);
        const answered = now();
        const finished = await done;
        if (!r.ok || r.decision !== 'main-process-proxy') throw new Error(`todo was not proxied: ${JSON.stringify(r)}`);
        return { call: answered - t, worker: finished - t };
      };
      const echoRound = async i => {
        const t = now();
        await echo(child, { v: 1, type: 'call', seq: i, name: 'todo', arguments: args });
        return now() - t;
      };
      // The two decisions of a proxied call (the worker's gate, then the main process's), in this process.
      const { checkCall } = rt('gate.js');
      const { policy, routes } = diagnose(root);
      const decide = () => checkCall({ policy, routes, name: 'todo', arguments: args });
      for (let i = 0; i < 100; i++) decide();
      const calls = { proxy: [], worker: [], echo: [], decide: [] };
      const warm = 50;
      for (let i = 0; i < warm + runs * 20; i++) {
        let p, e;
        if (i % 2 === 0) {
          p = await proxyRound();
          e = await echoRound(i);
        } else {
          e = await echoRound(i);
          p = await proxyRound();
        }
        const t = now();
        for (let k = 0; k < 100; k++) decide();
        if (i < warm) continue;
        calls.proxy.push(p.call);
        calls.worker.push(p.worker);
        calls.echo.push(e);
        calls.decide.push((now() - t) / 50);
      }
      out.proxy = {
        rounds: calls.proxy.length,
        callP50: median(calls.proxy),
        echoP50: median(calls.echo),
        ratioP50: median(calls.proxy.map((c, i) => c / calls.echo[i])),
        decisionsP50: median(calls.decide),
        workerResultP50: median(calls.worker),
      };

      const bash = await host.call('bash', { command: 'true' });
      const sandbox = rt('sandbox.js');
      const rounds = { bash: [], sh: [], prelude: [], bwrap: [] };
      for (let i = 0; i < runs * 4; i++) {
        let t = now();
        const b = await host.call('bash', { command: 'true' });
        rounds.bash.push(now() - t);
        if (!b.ok) throw new Error(`bash failed: ${b.error}`);
        t = now();
        await sh('true');
        rounds.sh.push(now() - t);
        if (shell === 'bwrap') {
          t = now();
          await sh('true', sandbox.sandboxCommand('true'));
          rounds.prelude.push(now() - t);
          t = now();
          await confinedSandbox(env, root, 'true');
          rounds.bwrap.push(now() - t);
        }
      }
      out.bash = {
        decision: bash.decision,
        sandboxedP50: median(rounds.bash),
        shP50: median(rounds.sh),
        preludeP50: rounds.prelude.length ? median(rounds.prelude) : null,
        bwrapP50: rounds.bwrap.length ? median(rounds.bwrap) : null,
      };
    } finally {
      child.kill();
      await host.kill('bench over');
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(ECHO, { force: true });
  }
  out.chat = await chatTurns();
  const text = JSON.stringify(out, null, 2);
  if (outPath) fs.writeFileSync(path.resolve(repo, outPath), text + '\n');
  console.log(text);
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
