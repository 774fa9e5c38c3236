'use strict';
// Kernel limits per sandbox (runtime/cgroups.ts, diskwatch.ts): the exhaustions a compromised worker, a
// `bash` call or a stdio MCP server could try, run for real at a scale bounded for CI, each with its
// observable outcome: the sandbox is stopped at its bound, the host's available memory and disk stay above
// a floor, other sessions still start their calls, the backend (this process) stays up.
//
// The limits are made small for this file (before the runtime is set up): 320 MiB of memory and 200 MiB
// of disk writes per sandbox; a sandbox's own tmpfs larger than its memory (1 GiB), so that a fill meets
// the memory limit first (the tmpfs's own size is tested with a smaller one).
process.env.NETACLAW_SANDBOX_MEMORY_MB = '320';
process.env.NETACLAW_SANDBOX_DISK_MB = '200';
process.env.NETACLAW_SANDBOX_TMP_MB = '1024';

const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { rt, confinement, sandboxOf, workspace, startHost, diagnose, FIXTURE_WORKER } = require('./support/runtime');

const { ShellProcessOperations } = rt('operations/process.js');
const { SANDBOX_PROCESSES_MAX } = rt('limits.js');
const { liveSandboxes } = rt('cgroups.js');

const isRoot = process.getuid() === 0;
const MEMORY = 320 * 1024 * 1024;
const DISK = 200 * 1024 * 1024;
const MiB = 1024 * 1024;
/**
 * How far the host's available memory may fall during a memory test: the sandbox's limit and a margin for
 * the rest of the machine (other test files run meanwhile). Each test asks for 1,500 MiB, more than this.
 */
const FLOOR = MEMORY + 768 * MiB;

/** Every process on the host: pid -> { ppid, comm, threads }. */
function processes() {
  const out = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const rest = stat.slice(close + 2).split(' ');
      out.set(Number(name), { ppid: Number(rest[1]), comm: stat.slice(stat.indexOf('(') + 1, close), threads: Number(rest[17]) });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Tasks (processes and threads) of `pid` and everything below it. */
function tasksBelow(pid, all = processes()) {
  const children = new Map();
  for (const [p, info] of all) {
    if (!children.has(info.ppid)) children.set(info.ppid, []);
    children.get(info.ppid).push(p);
  }
  let tasks = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    const info = all.get(p);
    if (!info) continue;
    tasks += info.threads;
    stack.push(...(children.get(p) ?? []));
  }
  return tasks;
}

function memAvailable() {
  return Number(/^MemAvailable:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/meminfo', 'utf8'))[1]) * 1024;
}

function diskFree(p) {
  const s = fs.statfsSync(p);
  return s.bavail * s.bsize;
}

/** Runs `fn` while sampling `measure()` every 50 ms; returns { result, peak, low }. */
async function sampling(measure, fn) {
  let peak = -Infinity;
  let low = Infinity;
  let running = true;
  const take = () => {
    const v = measure();
    peak = Math.max(peak, v);
    low = Math.min(low, v);
  };
  const sampler = (async () => {
    while (running) {
      take();
      await new Promise(r => setTimeout(r, 50));
    }
  })();
  let result;
  try {
    result = await fn(take);
  } finally {
    running = false;
    await sampler;
  }
  return { result, peak, low };
}

/** Waits (bounded) until `cond()` holds. */
async function until(cond, what, tries = 200) {
  for (let i = 0; i < tries; i++) {
    if (cond()) return;
    await new Promise(r => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const limits = () => confinement().limits;
const cgroupMode = () => ['cgroup1', 'cgroup2'].includes(limits().mode);

/** The sandbox cgroups of this process that exist now (cgroup v1 / v2). */
function ownCgroups() {
  const tag = `${process.pid}-`;
  return limits().dirs.flatMap(d =>
    fs.existsSync(d)
      ? fs
          .readdirSync(d)
          .filter(n => n.startsWith(tag))
          .map(n => path.join(d, n))
      : []
  );
}

/** Whether the cgroup v1 pids and memory hierarchies are mounted and writable here. */
function v1Writable() {
  const mounts = fs
    .readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map(l => l.split(' '));
  const mount = c => mounts.find(m => m[2] === 'cgroup' && m[3].split(',').includes(c))?.[1];
  const ok = c => {
    const m = mount(c);
    if (!m) return false;
    try {
      fs.accessSync(m, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  return ok('pids') && ok('memory');
}

describe('the mechanism is chosen once and said', () => {
  test('the strongest mechanism the host allows; what is weaker is named', t => {
    const l = limits();
    t.diagnostic(`limits: ${l.mode}: ${l.detail}`);
    assert.equal(l.processes, SANDBOX_PROCESSES_MAX);
    if (isRoot && v1Writable() && l.mode !== 'cgroup2') {
      assert.equal(l.mode, 'cgroup1');
      assert.deepEqual(l.weaker, []);
      assert.equal(l.memoryBytes, MEMORY);
      for (const d of l.dirs) assert.ok(fs.statSync(d).isDirectory(), d);
    }
    if (l.mode === 'rlimit' || l.mode === 'uid-range') {
      // a root backend still sizes /tmp and /dev/shm; memory and memfd have no bound of their own
      assert.deepEqual(l.weaker, isRoot ? ['memory', 'memfd'] : ['memory', 'tmpfs', 'memfd']);
      assert.match(l.detail, /WEAKER: memory/);
    }
  });

  test('a mechanism named by the operator but missing fails closed with a sentence', () => {
    const { detectLimits } = rt('cgroups.js');
    const saved = { ...process.env };
    try {
      process.env.NETACLAW_SANDBOX_LIMITS = 'uid-range';
      delete process.env.NETACLAW_SANDBOX_UIDS;
      assert.throws(() => detectLimits(), /NETACLAW_SANDBOX_LIMITS=uid-range is not available here: .*no uid range \(NETACLAW_SANDBOX_UIDS\)/);
      process.env.NETACLAW_SANDBOX_LIMITS = 'cgroups';
      assert.throws(() => detectLimits(), /NETACLAW_SANDBOX_LIMITS must be one of auto, cgroup2, cgroup1, uid-range, rlimit/);
      process.env.NETACLAW_SANDBOX_LIMITS = 'auto';
      process.env.NETACLAW_SANDBOX_MEMORY_MB = 'lots';
      assert.throws(() => detectLimits(), /NETACLAW_SANDBOX_MEMORY_MB must be a whole number of MiB/);
    } finally {
      for (const k of ['NETACLAW_SANDBOX_LIMITS', 'NETACLAW_SANDBOX_UIDS', 'NETACLAW_SANDBOX_MEMORY_MB']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });
});

describe('the cgroups and uids of sandboxes', () => {
  test("cgroups left by a backend that is gone are removed at the next start, its processes killed; a live backend's are kept", async t => {
    const cg = rt('cgroups.js');
    if (!cgroupMode()) {
      t.diagnostic(`no cgroup here (${limits().mode}): checked that no sandbox cgroup is made`);
      assert.deepEqual(cg.acquireSandbox(limits()).prefix, []);
      return;
    }
    // a backend that is gone: a pid that has ended, with a start time that is not its own
    const gone = spawnSync('/bin/true').pid;
    const stale = limits().dirs.map(d => path.join(d, `${gone}-1-7`));
    const { spawn } = require('node:child_process');
    const left = spawn('/bin/sleep', ['60'], { stdio: 'ignore' });
    for (const d of stale) {
      fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, 'cgroup.procs'), String(left.pid));
    }
    const exited = new Promise(resolve => {
      left.once('exit', (_code, signal) => resolve(signal));
      setTimeout(() => resolve('still running after 10 s'), 10000).unref();
    });
    const mine = cg.acquireSandbox(limits());
    try {
      cg.detectLimits();
      assert.equal(await exited, 'SIGKILL', 'what the gone backend left running is killed');
      for (const d of stale) assert.equal(fs.existsSync(d), false, `${d} removed`);
      assert.equal(ownCgroups().length, limits().dirs.length, "this backend's live sandbox keeps its cgroups");
    } finally {
      left.kill('SIGKILL');
      mine.release();
    }
    await until(() => ownCgroups().length === 0, 'the cgroups to be removed');
  });

  test('uid-range: each live sandbox runs as a uid of its own; a full range refuses a sandbox with a sentence; freed after', {
    skip: !isRoot && 'a uid of its own needs a root backend',
  }, async () => {
    const cg = rt('cgroups.js');
    const saved = confinement();
    const ws = workspace();
    process.env.NETACLAW_SANDBOX_LIMITS = 'uid-range';
    process.env.NETACLAW_SANDBOX_UIDS = '61000-61001';
    try {
      const state = cg.detectLimits();
      assert.equal(state.mode, 'uid-range');
      assert.deepEqual(state.weaker, ['memory', 'memfd'], 'a root backend sizes /tmp and /dev/shm');
      // a sandbox of the test's own, with the uid range's limits
      const ops = new ShellProcessOperations(sandboxOf('bwrap', { ...saved, limits: state }));
      const run = () =>
        ops.exec({ roots: [ws.root], readonly: true, cwd: ws.root, command: 'id -u; grep "Max processes" /proc/self/limits; sleep 2', timeoutMs: 20000 });
      const results = await Promise.allSettled([run(), run(), run()]);
      const uids = results
        .filter(r => r.status === 'fulfilled')
        .map(r => r.value.output.split('\n')[0])
        .sort();
      assert.deepEqual(uids, ['61000', '61001'], JSON.stringify(results));
      const refused = results.filter(r => r.status === 'rejected');
      assert.equal(refused.length, 1);
      assert.match(refused[0].reason.message, /every uid of the sandbox range 61000-61001 is in use/);
      assert.equal(liveSandboxes(), 0);
      const again = await run();
      assert.match(again.output, /^6100[01]\n/);
    } finally {
      delete process.env.NETACLAW_SANDBOX_LIMITS;
      delete process.env.NETACLAW_SANDBOX_UIDS;
      ws.cleanup();
    }
  });
});

describe('processes and threads: bounded per sandbox', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());

  test('two batches fork at once: each sandbox holds at most its bound; a third session still starts its calls; nothing left', async t => {
    const { policy, routes } = diagnose(ws.root, { shell: true });
    const a = await startHost({ policy, routes, timeoutMs: 60000 });
    const b = await startHost({ policy, routes, timeoutMs: 60000 });
    const hosts = [a.host, b.host];
    try {
      if (cgroupMode()) {
        // each worker is in a cgroup of its own, with pids.max and the memory limit
        const own = ownCgroups();
        assert.equal(own.length, limits().dirs.length * 2, own.join(', '));
        for (const d of own) {
          if (fs.existsSync(path.join(d, 'pids.max'))) assert.equal(fs.readFileSync(path.join(d, 'pids.max'), 'utf8').trim(), String(SANDBOX_PROCESSES_MAX));
          const mem = ['memory.limit_in_bytes', 'memory.max'].map(f => path.join(d, f)).find(f => fs.existsSync(f));
          if (mem) assert.equal(Number(fs.readFileSync(mem, 'utf8')), MEMORY);
        }
      }
      const bomb = 'for i in $(seq 1500); do sleep 60 >/dev/null 2>&1 & done 2>/dev/null; echo forked';
      const peaks = [0, 0];
      let third;
      await sampling(
        () => {
          const all = processes();
          hosts.forEach((h, i) => (peaks[i] = Math.max(peaks[i], tasksBelow(h.child.pid, all))));
          return 0;
        },
        async take => {
          const calls = hosts.map(h => h.call('bash', { command: bomb, timeoutMs: 30000 }));
          const results = await Promise.all(calls);
          take();
          // bash gives up once fork keeps failing (exit 254); the sleeps it started hold the sandbox full
          for (const r of results) assert.equal(typeof r.ok, 'boolean');
          // both bombs hold their sandboxes full; another session starts and runs its calls
          third = await startHost({ policy, routes });
          const r = await third.host.call('bash', { command: 'echo third session ran' });
          assert.equal(r.ok, true, r.error);
          assert.match(r.output, /third session ran/);
          take();
        }
      );
      t.diagnostic(`tasks per sandbox at their peak: ${peaks.join(', ')} (bound ${SANDBOX_PROCESSES_MAX})`);
      for (const p of peaks) {
        assert.ok(p <= SANDBOX_PROCESSES_MAX + 2, `a sandbox held ${p} tasks`);
        assert.ok(p >= SANDBOX_PROCESSES_MAX / 2, `the sandbox did fork (${p} tasks)`);
      }
      await third.host.kill('test over');
    } finally {
      for (const h of hosts) await h.kill('test over');
    }
    for (const h of hosts) await until(() => tasksBelow(h.child.pid) === 0, 'the sandboxes to end');
    if (cgroupMode()) await until(() => ownCgroups().length === 0, 'the cgroups to be removed');
    assert.equal(liveSandboxes(), 0);
  });

  test("a compromised worker's own shell, which skips the prelude, is bounded too", async t => {
    const { policy, routes } = diagnose(ws.root, { shell: true });
    const { host } = await startHost({ policy, routes, timeoutMs: 60000, test: { workerModule: FIXTURE_WORKER } });
    try {
      const { result, peak } = await sampling(
        () => tasksBelow(host.child.pid),
        async take => {
          const r = await host.call('x', {
            act: 'sh',
            command: 'grep "Max processes" /proc/self/limits >&2; for i in $(seq 1500); do sleep 60 >/dev/null 2>&1 & done 2>/dev/null; echo forked',
          });
          take();
          return r;
        }
      );
      t.diagnostic(`the worker's own shell: ${peak} tasks at the peak; it said ${JSON.stringify(result.output ?? result.error)}`);
      assert.ok(peak <= SANDBOX_PROCESSES_MAX + 2, `the sandbox held ${peak} tasks`);
      assert.ok(peak >= SANDBOX_PROCESSES_MAX / 2, `the shell did fork (${peak} tasks)`);
      assert.match(
        result.output ?? result.error,
        new RegExp(`Max processes +${SANDBOX_PROCESSES_MAX} +${SANDBOX_PROCESSES_MAX} `),
        'RLIMIT_NPROC is set for the worker and inherited by its shell'
      );
      // the batch goes on
      assert.equal((await host.call('x', { act: 'fine' })).output, 'fine');
    } finally {
      await host.kill('test over');
    }
  });
});

describe('memory: bounded per sandbox, outside the V8 heap and in tmpfs and memfd', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());

  test("a worker holding Buffers past its sandbox's limit is killed; the batch fails saying so; host memory above a floor", async t => {
    if (!cgroupMode()) {
      // no memory cgroup here: /health and the start log say memory is weaker; that is what is checked
      assert.ok(limits().weaker.includes('memory'));
      t.diagnostic(`no memory cgroup (${limits().mode}): checked that the weaker memory limit is said`);
      return;
    }
    const { policy, routes } = diagnose(ws.root);
    const { host } = await startHost({ policy, routes, timeoutMs: 60000, test: { workerModule: FIXTURE_WORKER } });
    const before_ = memAvailable();
    const { result, low } = await sampling(memAvailable, () =>
      host.call('x', { act: 'buffers', mb: 1504 }).then(
        r => ({ r }),
        e => ({ e })
      )
    );
    t.diagnostic(`host memory available: ${Math.round(before_ / MiB)} MiB before, ${Math.round(low / MiB)} MiB at the lowest`);
    assert.equal(result.r, undefined, `the call must not succeed: ${JSON.stringify(result.r)}`);
    assert.match(result.e.message, /batch ended \(failed\)/);
    assert.equal(host.status.status, 'failed');
    assert.match(host.status.error, /worker's sandbox reached its memory limit of 320 MiB .* and the kernel killed it/);
    assert.ok(low >= before_ - FLOOR, `the host's available memory fell to ${Math.round(low / MiB)} MiB`);
    // another session starts its calls
    const other = await startHost({ policy, routes });
    try {
      assert.equal((await other.host.call('read_file', { path: 'a.txt' })).ok, true);
    } finally {
      await other.host.kill('test over');
    }
  });

  const fills = [
    ['/tmp', 'head -c 1500M /dev/zero > /tmp/fill; echo status $?; stat -c "size %s" /tmp/fill'],
    ['/dev/shm', 'head -c 1500M /dev/zero > /dev/shm/fill; echo status $?; stat -c "size %s" /dev/shm/fill'],
    [
      'a memfd',
      '/usr/bin/python3 -c \'import os\nfd = os.memfd_create("fill")\nb = bytes(1 << 20)\nfor i in range(1500): os.write(fd, b)\nprint("size", os.fstat(fd).st_size)\'',
    ],
  ];
  for (const [what, command] of fills) {
    test(`a bash call filling ${what} stops at the sandbox's memory limit; host memory above a floor`, async t => {
      if (!cgroupMode()) {
        // without a memory cgroup a memfd is unbounded and said so; /tmp and /dev/shm are sized as root
        if (what === 'a memfd' || limits().tmpBytes === null) assert.ok(limits().weaker.includes(what === 'a memfd' ? 'memfd' : 'tmpfs'));
        else assert.equal(limits().tmpBytes, 1024 * MiB);
        t.diagnostic(`no memory cgroup (${limits().mode}): checked that the weaker ${what} limit is said, or that it is sized`);
        return;
      }
      const ops = new ShellProcessOperations(sandboxOf('bwrap'));
      const before_ = memAvailable();
      const { result: r, low } = await sampling(memAvailable, () => ops.exec({ roots: [ws.root], readonly: true, cwd: ws.root, command, timeoutMs: 60000 }));
      t.diagnostic(
        `${what}: ${JSON.stringify(r.output.slice(-200))}, ${r.killedFor ?? `exit ${r.exitCode}`}; host memory ${Math.round(before_ / MiB)} MiB before, ${Math.round(low / MiB)} MiB at the lowest`
      );
      const size = /size (\d+)/.exec(r.output);
      assert.ok(!size || Number(size[1]) <= MEMORY, `${what} held ${size?.[1]} bytes`);
      assert.notEqual(r.exitCode, 0);
      assert.match(r.killedFor ?? '', /the sandbox reached its memory limit of 320 MiB/);
      assert.ok(low >= before_ - FLOOR, `the host's available memory fell to ${Math.round(low / MiB)} MiB`);
      // the next call runs in a fresh sandbox
      const next = await ops.exec({ roots: [ws.root], readonly: true, cwd: ws.root, command: 'echo next', timeoutMs: 20000 });
      assert.equal(next.exitCode, 0, next.output);
    });
  }
});

describe('a sized /tmp and /dev/shm per sandbox', () => {
  test("as root, /tmp and /dev/shm share a tmpfs of the sandbox's own size: a write past it fails (ENOSPC), the shell goes on; unmounted after", async t => {
    const ws = workspace();
    try {
      if (!isRoot) {
        assert.equal(limits().tmpBytes, null);
        assert.match(limits().detail, /\/tmp and \/dev\/shm are bwrap's tmpfs \(no size=/);
        t.diagnostic('not root: no tmpfs can be mounted; checked that the start log says so (the memory cgroup, if any, bounds them)');
        return;
      }
      assert.equal(limits().tmpBytes, 1024 * MiB);
      const saved = confinement();
      {
        // a sandbox of the test's own, with a smaller /tmp
        const ops = new ShellProcessOperations(sandboxOf('bwrap', { ...saved, limits: { ...saved.limits, tmpBytes: 64 * MiB } }));
        const command =
          'df -B1 --output=size,target /tmp /dev/shm | tail -n 2; head -c 100M /dev/zero > /tmp/a; echo tmp $?; ' +
          'head -c 100M /dev/zero > /dev/shm/b; echo shm $?; echo held $(( $(stat -c %s /tmp/a) + $(stat -c %s /dev/shm/b) )); echo went on';
        const r = await ops.exec({ roots: [ws.root], readonly: true, cwd: ws.root, command, timeoutMs: 30000 });
        t.diagnostic(r.output);
        assert.equal(r.exitCode, 0, r.output);
        assert.match(r.output, new RegExp(`^\\s*${64 * MiB} /tmp\\n\\s*${64 * MiB} /dev/shm\\n`));
        assert.match(r.output, /No space left on device/);
        assert.match(r.output, /\ntmp 1\n/);
        assert.match(r.output, /\nshm 1\n/);
        const held = Number(/held (\d+)/.exec(r.output)[1]);
        assert.ok(held <= 64 * MiB, `the two held ${held} bytes together`);
        assert.match(r.output, /went on/);
      }
      await until(() => !fs.readFileSync('/proc/self/mounts', 'utf8').includes(`/tmp-${process.pid}-`), "the sandbox's tmpfs to be unmounted");
    } finally {
      ws.cleanup();
    }
  });
});

describe('disk: a sandbox stops at its bound of bytes written into its roots', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());

  const fill = dir => `for i in $(seq 40); do head -c 100M /dev/zero > ${dir}/fill$i || break; done; echo finished`;
  const written = dir =>
    fs
      .readdirSync(dir)
      .filter(n => n.startsWith('fill'))
      .reduce((n, f) => n + fs.statSync(path.join(dir, f)).blocks * 512, 0);

  test('a main-process bash filling its root is stopped; the disk stays above a floor', async t => {
    const dir = path.join(ws.root, 'main');
    fs.mkdirSync(dir);
    require('./support/runtime').giveToSandbox(dir);
    const free = diskFree(ws.root);
    const { result: r, low } = await sampling(
      () => diskFree(ws.root),
      () => new ShellProcessOperations(sandboxOf('bwrap')).exec({ roots: [ws.root], readonly: false, cwd: ws.root, command: fill(dir), timeoutMs: 120000 })
    );
    const bytes = written(dir);
    t.diagnostic(
      `written ${Math.round(bytes / MiB)} MiB (bound ${DISK / MiB} MiB); ${r.killedFor}; disk free ${Math.round(free / MiB)} MiB before, ${Math.round(low / MiB)} MiB at the lowest`
    );
    assert.match(r.killedFor ?? '', /the sandbox wrote \d+ MiB into its roots, more than its bound of 200 MiB/);
    assert.doesNotMatch(r.output, /finished/);
    assert.ok(bytes > DISK && bytes < DISK + 1536 * MiB, `${Math.round(bytes / MiB)} MiB written`);
    assert.ok(low >= free - DISK - 1536 * MiB, `the disk's free space fell to ${Math.round(low / MiB)} MiB`);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a worker's bash filling its root: the batch fails, saying why", async t => {
    const dir = path.join(ws.root, 'worker');
    fs.mkdirSync(dir);
    require('./support/runtime').giveToSandbox(dir);
    const { policy, routes } = diagnose(ws.root, { shell: true, write: true });
    const { host } = await startHost({ policy, routes, timeoutMs: 120000 });
    const outcome = await host.call('bash', { command: fill(dir), timeoutMs: 120000 }).then(
      r => ({ r }),
      e => ({ e })
    );
    const bytes = written(dir);
    t.diagnostic(`written ${Math.round(bytes / MiB)} MiB; ${host.status?.error}`);
    assert.equal(outcome.r, undefined, JSON.stringify(outcome.r));
    assert.equal(host.status.status, 'failed');
    assert.match(host.status.error, /the sandbox wrote \d+ MiB into its roots, more than its bound of 200 MiB: worker killed/);
    assert.ok(bytes < DISK + 1536 * MiB, `${Math.round(bytes / MiB)} MiB written`);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('a stdio MCP server is a sandbox with the same bounds', () => {
  test('a server starting 800 children is held at the bound; it still serves; the backend stays up', async t => {
    const { connect, listTools } = rt('mcp/client.js');
    const ws = workspace();
    let conn;
    try {
      // every task below this process (the backend here) but its own threads: the server's sandbox
      const own = () => processes().get(process.pid).threads;
      const { result, peak } = await sampling(
        () => {
          const all = processes();
          return tasksBelow(process.pid, all) - all.get(process.pid).threads;
        },
        async take => {
          conn = await connect(
            {
              name: 'forker',
              transport: 'stdio',
              command: process.execPath,
              args: [path.join(__dirname, 'fixtures', 'mcp-forker.js')],
              url: null,
              env: { FORKS: '800' },
              workspaceRoots: [ws.root],
            },
            sandboxOf('bwrap')
          );
          take();
          const tools = await listTools(conn);
          take();
          return tools;
        }
      );
      const said = /forker: (\d+) children started, (\d+) refused/.exec(conn.stdio.stderrTail);
      t.diagnostic(`${peak} tasks at the peak; ${said?.[0]}`);
      assert.ok(said, conn.stdio.stderrTail);
      assert.ok(Number(said[1]) < SANDBOX_PROCESSES_MAX && Number(said[2]) > 0, said[0]);
      assert.ok(peak <= SANDBOX_PROCESSES_MAX + 2, `${peak} tasks`);
      assert.ok(
        result.some(tool => tool.name === 'echo'),
        'the server still serves'
      );
      const pid = conn.stdio.pid;
      await conn.client.close();
      await until(() => tasksBelow(pid) === 0 && tasksBelow(process.pid) === own(), "the server's sandbox to end");
      if (cgroupMode()) await until(() => ownCgroups().length === 0, 'its cgroups to be removed');
    } finally {
      await conn?.client.close().catch(() => undefined);
      ws.cleanup();
    }
  });
});

describe('a backend that is not root', () => {
  test("has no cgroup it may write: /health's mechanism says memory is weaker; processes are still bounded per sandbox", { timeout: 180000 }, t => {
    const script = path.join(__dirname, 'fixtures', 'unprivileged-limits.js');
    const argv = isRoot ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, script] : [process.execPath, script];
    const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/tmp' }, timeout: 150000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    t.diagnostic(
      `as uid ${out.uid}: ${out.limits.mode} (${out.limits.detail}); a shell without the prelude: ${out.peak} tasks at the peak, ulimit -u ${out.nproc}`
    );
    assert.notEqual(out.uid, 0);
    assert.equal(out.limits.mode, 'rlimit');
    assert.deepEqual(out.limits.weaker, ['memory', 'tmpfs', 'memfd']);
    assert.equal(out.limits.tmpBytes, null, 'no tmpfs of its own: it cannot mount');
    assert.match(out.limits.detail, /\/tmp and \/dev\/shm are bwrap's tmpfs \(no size=: the backend is not root\)/);
    // what is checked instead of a cgroup: the RLIMIT_NPROC of the sandbox's first process bounds a shell
    // that never runs the prelude, per sandbox
    assert.match(out.nproc, new RegExp(`^Max processes +${SANDBOX_PROCESSES_MAX} +${SANDBOX_PROCESSES_MAX} `));
    // at most the bound; and the shell did fork (how far it got before the first refusal ends its loop
    // varies with the machine's load: from 236 to 425 seen here, so the floor only shows that the loop ran)
    assert.ok(out.peak <= SANDBOX_PROCESSES_MAX + 2 && out.peak >= 32, `${out.peak} tasks`);
  });
});
