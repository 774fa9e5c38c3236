'use strict';
// What one chat session's worker costs, beside a bare Node process as the floor, measured with the
// backend's compiled runtime (js/backend/dist/runtime, `npm --prefix js/backend run build`):
// - start to first call: a worker's start (WorkerHost: the sandbox, the worker's Node, its ready) to its
//   first decided `read_file`, against a bare `node -e` printing one line;
// - memory: the resident set (VmRSS, /proc) of the worker's whole process tree (bwrap, setpriv and the
//   worker's Node) idle after its first call, and its peak while busy (CALLS calls in a row: read_file,
//   grep, glob), against a bare `node -e` process waiting on a timer;
// - sessions per GiB: how many idle workers 1 GiB holds, at their RSS and at their PSS (shared pages —
//   the Node binary's — counted once among the processes sharing them, which is what N workers side by
//   side take; measured with 4 idle workers side by side), and busy at their RSS (memory alone: what the
//   machine's memory allows, not its CPU).
// Usage: node js/bench/session-cost.cjs [--runs N] [--out file.json]. Prints a table and the JSON.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const dist = path.join(repo, 'js', 'backend', 'dist', 'runtime');
const rt = name => require(path.join(dist, name));
const runs = Number(arg('runs', '5'));
const outPath = arg('out');
const CALLS = 30;
const policyPackage = require(path.join(repo, 'pkg', 'node', 'netaclaw_tool_policy.js'));

const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = v => [...v].sort((a, b) => a - b)[v.length >> 1];
const sleep = ms => new Promise(r => setTimeout(r, ms));

/** VmRSS of a process in KiB (0 when it is gone). */
function rssKiB(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Pss of a process in KiB: its resident pages, each shared page divided among the processes sharing it
 * (the Node binary's pages are shared by every worker: RSS counts them whole in each).
 */
function pssKiB(pid) {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** A process and all its descendants (from /proc's parent links). */
function tree(root) {
  const parent = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

const treeRss = pid => tree(pid).reduce((n, p) => n + rssKiB(p), 0);
const treePss = pid => tree(pid).reduce((n, p) => n + pssKiB(p), 0);

function workspace(env) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-bench-session-')));
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(base, `f${i}.txt`), `line ${i}\nalpha beta\n`.repeat(50));
  // the workspace belongs to the sandbox's user, as an operator gives it
  const c = env.sandbox.confinement;
  if (c) for (const p of [base, ...fs.readdirSync(base).map(n => path.join(base, n))]) fs.chownSync(p, c.identity.uid, c.identity.gid);
  return base;
}

/** What the backend gives a worker (agent/batch/services.ts): the file, search and shell operations of its runtime. */
function operations(env) {
  const { NodeFileSystemOperations, NodeSearchOperations, ShellProcessOperations } = rt('index.js');
  return { fs: new NodeFileSystemOperations(), search: new NodeSearchOperations(), process: new ShellProcessOperations(env.sandbox) };
}

async function startHost(root, env, onPid) {
  const { WorkerHost } = rt('index.js');
  const d = policyPackage.runtimeDiagnostic({
    agent: { toolsets: ['base', 'planning'], tools: null },
    modelCapability: 'text',
    crewRole: 'sub',
    sessionCwd: root,
    shellPermitted: false,
    writePermitted: false,
  });
  const services = {
    memory: { save: async () => ({ id: 1 }), recall: async () => [] },
    skillsDir: path.join(os.tmpdir(), 'netaclaw-no-skills-here'),
    boundSkills: async () => [],
    todos: { set: () => {} },
  };
  const host = new WorkerHost({
    batchId: 1,
    agentId: 1,
    policy: d.policy,
    routes: d.routes,
    driver: 'calls',
    timeoutMs: 60000,
    env,
    ops: operations(env),
    services,
    onEvent: e => e.type === 'started' && onPid(e.pid),
  });
  await host.start();
  return host;
}

/** A bare Node process: its start to its first line, and its RSS once it waits on a timer. */
async function bareNode() {
  const t = now();
  const child = spawn(process.execPath, ['-e', "console.log('ready'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise(resolve => child.stdout.once('data', resolve));
  const start = now() - t;
  await sleep(500);
  const rss = rssKiB(child.pid);
  child.kill('SIGKILL');
  return { start, rss };
}

async function main() {
  // the runtime the backend starts with (its sandbox chosen and probed as at start)
  const env = await rt('index.js').startRuntime();
  const shell = env.sandbox.mode;
  const root = workspace(env);
  const bare = { start: [], rss: [] };
  const worker = { start: [], idle: [], busy: [], pss: [] };
  try {
    for (let i = 0; i < runs; i++) {
      const b = await bareNode();
      bare.start.push(b.start);
      bare.rss.push(b.rss);

      let pid = 0;
      const t = now();
      const host = await startHost(root, env, p => (pid = p));
      const first = await host.call('read_file', { path: 'f0.txt' });
      worker.start.push(now() - t);
      if (!first.ok) throw new Error(`read_file failed: ${first.error}`);
      await sleep(500);
      worker.idle.push(treeRss(pid));
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, treeRss(pid))), 20);
      for (let c = 0; c < CALLS; c++) {
        const call = [
          ['read_file', { path: `f${c % 20}.txt` }],
          ['grep', { pattern: 'alpha', path: '.' }],
          ['find_files', { pattern: '*.txt' }],
        ][c % 3];
        const r = await host.call(call[0], call[1]);
        if (!r.ok) throw new Error(`${call[0]} failed: ${r.error}`);
      }
      clearInterval(sampler);
      worker.busy.push(Math.max(peak, treeRss(pid)));
      await host.kill('bench over');
    }
    // four idle workers side by side: the PSS of each
    const side = [];
    const pids = [];
    for (let i = 0; i < 4; i++) {
      const host = await startHost(root, env, p => pids.push(p));
      await host.call('read_file', { path: 'f0.txt' });
      side.push(host);
    }
    await sleep(500);
    for (const p of pids) worker.pss.push(treePss(p));
    for (const h of side) await h.kill('bench over');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const GiB = 1024 * 1024;
  const out = {
    runtime: `Node ${process.version}`,
    shell,
    runs,
    calls: CALLS,
    bare: { startMs: median(bare.start), rssKiB: median(bare.rss) },
    worker: { startToFirstCallMs: median(worker.start), idleRssKiB: median(worker.idle), busyRssKiB: median(worker.busy), idlePssKiB: median(worker.pss) },
  };
  out.ratio = { idle: out.worker.idleRssKiB / out.bare.rssKiB, busy: out.worker.busyRssKiB / out.bare.rssKiB };
  out.sessionsPerGiB = { idlePss: Math.floor(GiB / out.worker.idlePssKiB), idle: Math.floor(GiB / out.worker.idleRssKiB), busy: Math.floor(GiB / out.worker.busyRssKiB), bare: Math.floor(GiB / out.bare.rssKiB) };
  const mib = k => (k / 1024).toFixed(1);
  process.stdout.write(
    [
      `| what (${out.runtime}, worker in ${shell}, median of ${runs}) | start → first call | RSS idle | RSS busy (${CALLS} calls) | PSS idle, 4 side by side | per GiB (idle PSS / idle RSS / busy RSS) |`,
      '|---|---|---|---|---|---|',
      `| bare \`node -e\` | ${out.bare.startMs.toFixed(0)} ms | ${mib(out.bare.rssKiB)} MiB | — | — | ${out.sessionsPerGiB.bare} (RSS) |`,
      `| a session's worker (its whole process tree) | ${out.worker.startToFirstCallMs.toFixed(0)} ms | ${mib(out.worker.idleRssKiB)} MiB (${out.ratio.idle.toFixed(2)}×) | ${mib(out.worker.busyRssKiB)} MiB (${out.ratio.busy.toFixed(2)}×) | ${mib(out.worker.idlePssKiB)} MiB | ${out.sessionsPerGiB.idlePss} / ${out.sessionsPerGiB.idle} / ${out.sessionsPerGiB.busy} |`,
      '',
      JSON.stringify(out),
      '',
    ].join('\n')
  );
  if (outPath) fs.writeFileSync(outPath, JSON.stringify(out, null, 2) + '\n');
}

main().catch(err => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
