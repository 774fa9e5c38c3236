'use strict';
/**
 * The runtime's layers, each alone (the others switched off through the host's test options), its
 * protocol, its faults and its tool implementations: real worker processes, real files in temp folders,
 * real bwrap.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const {
  rt,
  confinement,
  sandboxOf,
  envOf,
  mainTools,
  workspace,
  operations,
  services,
  withHost,
  startHost,
  diagnose,
  snapshot,
  giveToSandbox,
  FIXTURE_WORKER,
} = require('./support/runtime');
const { sandboxesOf, waitFor, descendants: below } = require('./support/processes');

const { parseMessage, parseFor } = rt('protocol.js');

const readonlyPolicy = root => ({ workspaceRoots: [root], allowShell: false, readonly: true });
const shellPolicy = (root, readonly = true) => ({ workspaceRoots: [root], allowShell: true, readonly });

describe('protocol', () => {
  const result = { v: 1, type: 'result', seq: 1, decision: 'denied', reason: 'x', detail: null, ok: false, durationMs: 1 };
  test('accepts well-formed messages of every type', () => {
    assert.equal(parseMessage(result).type, 'result');
    assert.equal(parseMessage({ v: 1, type: 'call', seq: 1, name: 'read_file', arguments: { path: 'a' } }).type, 'call');
    assert.equal(parseMessage({ v: 1, type: 'proxy', id: 1, seq: 1, name: 'edit', arguments: {} }).type, 'proxy');
    assert.equal(parseMessage({ v: 1, type: 'event', name: 'ready' }).type, 'event');
    assert.equal(parseMessage({ v: 1, type: 'done' }).type, 'done');
    assert.equal(parseMessage({ v: 1, type: 'error', message: 'boom' }).type, 'error');
    assert.equal(parseFor('main', { v: 1, type: 'fd', id: 1, fd: 21 }).type, 'fd');
    assert.equal(parseFor('worker', { v: 1, type: 'fd-result', id: 1, path: null }).type, 'fd-result');
    assert.throws(() => parseFor('worker', { v: 1, type: 'fd', id: 1, fd: 21 }), /not accepted by the worker/);
    assert.throws(() => parseMessage({ v: 1, type: 'fd', id: 1, fd: -1 }), /fd: invalid field fd/);
    const init = {
      v: 1,
      type: 'init',
      batchId: 3,
      catalog: [{ name: 'read_file', toolset: 'base' }],
      policy: { workspaceRoots: ['/w'], allowShell: false, readonly: true },
      routes: [],
      driver: 'calls',
      limits: { timeoutMs: 1000, outputBytes: 65536 },
      shell: 'bwrap',
      sandboxSystem: [],
    };
    assert.equal(parseMessage(init).type, 'init');
    // the batch's catalog travels with init: optional (absent: the builtin catalog), an array of named tool schemas
    const { catalog: _omitted, ...withoutCatalog } = init;
    assert.equal(parseMessage(withoutCatalog).type, 'init');
    for (const bad of [[], {}, [{ toolset: 'base' }], [{ name: '' }], ['read_file'], [null]]) {
      assert.throws(() => parseMessage({ ...init, catalog: bad }), /init: invalid field catalog/, JSON.stringify(bad));
    }
  });
  test('rejects an unknown version, an unknown type, a missing, mistyped or unknown field', () => {
    assert.throws(() => parseMessage({ ...result, v: 2 }), /unsupported protocol version 2/);
    assert.throws(() => parseMessage({ ...result, v: undefined }), /unsupported protocol version/);
    assert.throws(() => parseMessage({ v: 1, type: 'take-over' }), /unknown message type "take-over"/);
    assert.throws(() => parseMessage({ v: 1, type: 'toString' }), /unknown message type/);
    assert.throws(() => parseMessage({ ...result, seq: undefined }), /result: missing field seq/);
    assert.throws(() => parseMessage({ ...result, seq: -1 }), /result: invalid field seq/);
    assert.throws(() => parseMessage({ ...result, decision: 'allowed' }), /invalid field decision/);
    assert.throws(() => parseMessage({ ...result, extra: 1 }), /unknown field "extra"/);
    assert.throws(() => parseMessage('{"v":1}'), /message must be an object/);
    assert.throws(() => parseMessage(null), /message must be an object/);
  });
  test('each side accepts only its own message types', () => {
    assert.throws(() => parseFor('main', { v: 1, type: 'call', seq: 1, name: 'x', arguments: {} }), /not accepted by the main/);
    assert.throws(() => parseFor('worker', result), /not accepted by the worker/);
  });
});

describe('host symlink check alone (gate and process permissions off)', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());
  const test_ = { gate: false, permission: false };

  test('a symlink, an absolute path and a .. path leaving the roots are denied path_outside_workspace', async () => {
    await withHost({ policy: readonlyPolicy(ws.root), test: test_ }, async host => {
      const inside = await host.call('read_file', { path: 'a.txt' });
      assert.equal(inside.ok, true, inside.error);
      assert.match(inside.output, /^alpha\nbeta\ngamma$/);
      for (const p of ['esc', 'escdir/secret.txt', ws.secret, '../outside/secret.txt']) {
        const r = await host.call('read_file', { path: p });
        assert.equal(r.decision, 'denied', p);
        assert.equal(r.reason, 'path_outside_workspace', p);
        assert.ok(!String(r.output ?? '').includes('TOP-SECRET'), p);
      }
    });
  });

  test('a dangling symlink (whose target a write would create) is denied', async () => {
    const { checkRealPaths } = rt('realpath.js');
    const target = path.join(ws.outside, 'created-by-write');
    fs.symlinkSync(target, path.join(ws.root, 'dangling'));
    const d = await checkRealPaths([{ argument: 'path', path: path.join(ws.root, 'dangling'), write: true }], [ws.root]);
    assert.equal(d.reason, 'path_outside_workspace');
    const under = await checkRealPaths([{ argument: 'path', path: path.join(ws.root, 'dangling', 'x'), write: true }], [ws.root]);
    assert.equal(under.reason, 'path_outside_workspace');
    const fresh = await checkRealPaths([{ argument: 'path', path: path.join(ws.root, 'new', 'file.txt'), write: true }], [ws.root]);
    assert.equal(fresh, null, 'a path still to be created inside a root is fine');
    const prefix = await checkRealPaths([{ argument: 'path', path: ws.root + '2/x', write: false }], [ws.root]);
    assert.equal(prefix.reason, 'path_outside_workspace', '/w2 is not inside /w');
  });
});

describe('L2 alone: the worker under Node permissions (gate and symlink check off)', () => {
  // `shell: 'off'`: the worker runs outside its OS sandbox, so that Node's permission model is the only layer
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());
  const l2 = { gate: false, hostCheck: false };

  test('reads outside the roots (absolute, ..) fail; without permissions the same calls succeed', async () => {
    await withHost({ shell: 'off', policy: readonlyPolicy(ws.root), test: l2 }, async host => {
      const inside = await host.call('read_file', { path: 'a.txt' });
      assert.equal(inside.ok, true, inside.error);
      for (const p of [ws.secret, '../outside/secret.txt']) {
        const r = await host.call('read_file', { path: p });
        assert.equal(r.ok, false, p);
        assert.match(r.error, /permission denied/, p);
        assert.ok(!String(r.output ?? '').includes('TOP-SECRET'));
      }
    });
    await withHost({ shell: 'off', policy: readonlyPolicy(ws.root), test: { ...l2, permission: false } }, async host => {
      const r = await host.call('read_file', { path: ws.secret });
      assert.equal(r.ok, true, 'control: with every layer off the read goes through');
      assert.match(r.output, /TOP-SECRET/);
    });
  });

  test('a symlinked folder on the way is NOT stopped by L2 (Node follows it); a symlink as the last part is', async () => {
    await withHost({ shell: 'off', policy: readonlyPolicy(ws.root), test: l2 }, async host => {
      const r = await host.call('read_file', { path: 'escdir/secret.txt' });
      assert.equal(r.ok, true);
      assert.match(r.output, /TOP-SECRET/);
      // The operations open a last-part symlink (O_NOFOLLOW refuses it) at its real location, which L2 checks.
      const last = await host.call('read_file', { path: 'esc' });
      assert.equal(last.ok, false);
      assert.match(last.error, /permission denied/);
      assert.ok(!String(last.output ?? '').includes('TOP-SECRET'));
    });
  });

  test('writes under readonly, child processes without allowShell and worker threads are refused', async () => {
    const target = path.join(ws.root, 'hostile.txt');
    await withHost({ shell: 'off', policy: readonlyPolicy(ws.root), test: { workerModule: FIXTURE_WORKER } }, async host => {
      const w = await host.call('x', { act: 'write', path: target });
      assert.equal(w.ok, false);
      assert.match(w.error, /ERR_ACCESS_DENIED/);
      assert.ok(!fs.existsSync(target));
      const s = await host.call('x', { act: 'spawn' });
      assert.equal(s.ok, false);
      assert.match(s.error, /ERR_ACCESS_DENIED/);
      const t = await host.call('x', { act: 'worker-thread' });
      assert.equal(t.ok, false);
      assert.match(t.error, /ERR_ACCESS_DENIED/);
      const r = await host.call('x', { act: 'read', path: '/etc/hostname' });
      assert.equal(r.ok, false);
    });
    // control: a writable, shell-permitted policy lets the same worker write and spawn
    await withHost({ shell: 'off', policy: shellPolicy(ws.root, false), test: { workerModule: FIXTURE_WORKER } }, async host => {
      const w = await host.call('x', { act: 'write', path: target });
      assert.equal(w.ok, true, w.error);
      assert.equal(fs.readFileSync(target, 'utf8'), 'written by the hostile worker');
      const s = await host.call('x', { act: 'spawn' });
      assert.equal(s.ok, true, s.error);
      const t = await host.call('x', { act: 'worker-thread' });
      assert.equal(t.ok, false, 'never --allow-worker');
      const outsideWrite = await host.call('x', { act: 'write', path: path.join(ws.outside, 'x.txt') });
      assert.equal(outsideWrite.ok, false, 'writes stay inside the roots');
    });
    fs.rmSync(target, { force: true });
  });

  test('the worker inherits no environment from the main process (no token, no database password)', async () => {
    process.env.NETACLAW_TEST_SECRET = 'must-not-leak';
    try {
      await withHost({ shell: 'off', policy: readonlyPolicy(ws.root), test: { workerModule: FIXTURE_WORKER } }, async host => {
        const r = await host.call('x', { act: 'env' });
        const env = JSON.parse(r.output);
        assert.equal(env.NETACLAW_TEST_SECRET, undefined);
        assert.deepEqual(
          Object.keys(env).filter(k => !k.startsWith('NODE_')),
          []
        );
      });
    } finally {
      delete process.env.NETACLAW_TEST_SECRET;
    }
  });

  test('native addons are refused, even from inside a root', async () => {
    const addon = path.join(ws.root, 'addon.node');
    fs.copyFileSync(require.resolve('better-sqlite3/build/Release/better_sqlite3.node'), addon);
    await withHost({ shell: 'off', policy: readonlyPolicy(ws.root), test: { workerModule: FIXTURE_WORKER } }, async host => {
      const r = await host.call('x', { act: 'addon', path: addon });
      assert.equal(r.ok, false);
      assert.match(r.error, /ERR_DLOPEN_DISABLED/);
    });
    await withHost({ shell: 'off', policy: readonlyPolicy(ws.root), test: { workerModule: FIXTURE_WORKER, permission: false } }, async host => {
      const r = await host.call('x', { act: 'addon', path: addon });
      assert.equal(r.ok, true, 'control: without the permission model the addon loads');
    });
    fs.rmSync(addon);
  });

  test('bash without allowShell cannot start a process', async () => {
    await withHost({ shell: 'off', policy: readonlyPolicy(ws.root), test: l2 }, async host => {
      const r = await host.call('bash', { command: 'echo hi' });
      assert.equal(r.ok, false);
      assert.match(r.error, /permission denied|ERR_ACCESS_DENIED/);
    });
  });
});

describe('L3 alone: bash inside bwrap (gate, symlink check and process permissions off)', () => {
  let ws;
  let server;
  let port;
  let connections = 0;
  before(async () => {
    ws = workspace();
    server = net.createServer(s => {
      connections += 1;
      s.end('hello from the host\n');
    });
    await new Promise(r => server.listen(0, '127.0.0.1', r));
    port = server.address().port;
  });
  after(async () => {
    ws.cleanup();
    await new Promise(r => server.close(r));
  });
  const l3 = { gate: false, hostCheck: false, permission: false };

  const escapes = () => ({
    readOutside: `cat ${ws.secret}`,
    readSymlink: 'cat esc',
    writeOutside: `echo pwned > ${path.join(ws.outside, 'pwned.txt')}`,
    writeUnderReadonly: 'echo pwned > inside.txt',
    network: `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`,
  });

  test('reads and writes outside the roots, writes under readonly and the network all fail', async () => {
    await withHost({ policy: shellPolicy(ws.root, true), test: l3 }, async host => {
      const ok = await host.call('bash', { command: 'cat a.txt && pwd' });
      assert.equal(ok.ok, true, ok.error);
      assert.match(ok.output, /alpha[\s\S]*\n/);
      assert.ok(ok.output.includes(ws.root));
      for (const [what, command] of Object.entries(escapes())) {
        const r = await host.call('bash', { command });
        assert.equal(r.ok, false, `${what}: ${r.output}`);
        assert.ok(!r.output.includes('TOP-SECRET'), what);
        assert.ok(!r.output.includes('hello from the host'), what);
      }
      assert.ok(!fs.existsSync(path.join(ws.outside, 'pwned.txt')));
      assert.ok(!fs.existsSync(path.join(ws.root, 'inside.txt')));
      assert.equal(connections, 0);
      const env = await host.call('bash', { command: 'env; ls /; ls /etc; ls /home /root 2>&1; echo pid=$$' });
      assert.ok(!/ADMIN_TOKEN|DB_|NODE_/.test(env.output), 'cleared environment');
      assert.match(env.output, /pid=\d/);
      assert.ok(!/passwd|shadow|hostname/.test(env.output), 'only a few /etc files');
      assert.match(env.output, /No such file or directory/, 'no /home, no /root');
    });
  });

  test('control: the same commands succeed with the sandbox off, so the checks above can fail', async () => {
    await withHost({ policy: shellPolicy(ws.root, true), shell: 'off', test: l3 }, async host => {
      const e = escapes();
      assert.match((await host.call('bash', { command: e.readOutside })).output, /TOP-SECRET/);
      assert.match((await host.call('bash', { command: e.readSymlink })).output, /TOP-SECRET/);
      assert.equal((await host.call('bash', { command: e.writeUnderReadonly })).ok, true);
      assert.match((await host.call('bash', { command: e.network })).output, /hello from the host/);
    });
    fs.rmSync(path.join(ws.root, 'inside.txt'), { force: true });
    assert.ok(connections >= 1);
  });

  test('a writable root is writable inside the sandbox; /tmp is private', async () => {
    await withHost({ policy: shellPolicy(ws.root, false), test: l3 }, async host => {
      const r = await host.call('bash', { command: 'echo made > made.txt && echo t > /tmp/netaclaw-private && ls /tmp' });
      assert.equal(r.ok, true, r.output);
      assert.equal(fs.readFileSync(path.join(ws.root, 'made.txt'), 'utf8'), 'made\n');
      assert.ok(!fs.existsSync('/tmp/netaclaw-private'));
    });
  });

  test('time limit kills the whole process group; output is cut at 64 KiB; a flood is killed', async () => {
    await withHost({ policy: shellPolicy(ws.root, true), test: l3 }, async host => {
      const t0 = Date.now();
      const slow = await host.call('bash', { command: 'sleep 30 & sleep 30; echo never', timeoutMs: 500 });
      assert.ok(Date.now() - t0 < 10000);
      assert.equal(slow.ok, false);
      assert.match(slow.error, /time limit of 500 ms/);
      const big = await host.call('bash', { command: 'head -c 200000 /dev/zero | tr "\\0" a' });
      assert.equal(big.ok, true);
      assert.match(big.output, /\[output cut: 200000 bytes, the first \d+ kept\]\n\[exit code 0\]$/);
      assert.ok(Buffer.byteLength(big.output) <= 64 * 1024);
      const flood = await host.call('bash', { command: 'yes' });
      assert.equal(flood.ok, false);
      assert.match(flood.error, /killed: output passed the hard limit/);
    });
  });

  test('fail closed: with the sandbox unavailable bash is denied shell_sandbox_unavailable', async () => {
    await withHost({ policy: shellPolicy(ws.root, false), shell: 'unavailable', test: l3 }, async host => {
      const r = await host.call('bash', { command: 'echo should-not-run > ran.txt' });
      assert.equal(r.decision, 'denied');
      assert.equal(r.reason, 'shell_sandbox_unavailable');
      assert.ok(!fs.existsSync(path.join(ws.root, 'ran.txt')));
    });
    const { probeBwrap } = rt('sandbox.js');
    const setup = { confinement: confinement(), failure: null };
    const probe = await probeBwrap(setup, '/nonexistent/bwrap');
    assert.equal(probe.ok, false);
    assert.equal((await sandboxOf('bwrap').probe()).ok, true, 'bwrap runs on this machine');
    // without a confinement, the probe says why and nothing runs
    const unconfined = await probeBwrap({ confinement: null, failure: 'no sandbox user (the test)' });
    assert.deepEqual(unconfined, { ok: false, detail: 'the sandbox cannot be confined: no sandbox user (the test)' });
    // a bwrap sandbox whose confinement could not be set up confines nothing: it is unavailable (fail closed)
    const failed = rt('sandboxes.js').bwrapSandbox({ confinement: null, failure: 'no sandbox user (the test)' });
    assert.deepEqual([failed.mode, failed.runsShells, failed.confinement], ['unavailable', false, null]);
    assert.throws(() => failed.wrapShell('true', { roots: [ws.root], readonly: true, cwd: ws.root }), /shell sandbox unavailable/);
  });
});

describe('L3: each shell in a sandbox of its own (main process) or of its worker', () => {
  let ws;
  before(() => {
    ws = workspace();
  });
  after(() => ws.cleanup());
  const { ShellProcessOperations } = rt('operations/process.js');
  const writable = () => ({ roots: [ws.root], readonly: false, cwd: ws.root });
  const readOnly = () => ({ roots: [ws.root], readonly: true, cwd: ws.root });
  const SANDBOX_FACTS =
    'cat && echo STDIN-EOF; test -e /tmp/mark && echo SAME-TMP || echo FRESH-TMP; echo x > /tmp/mark; ' +
    'grep -E "^Cap(Eff|Bnd)" /proc/self/status; ulimit -u';

  test("each command gets a fresh sandbox for exactly its roots and readonly; the prelude's facts hold", async () => {
    const ops = new ShellProcessOperations(sandboxOf('bwrap'));
    const exec = (spec, command) => ops.exec({ ...spec, command, timeoutMs: 10000 });
    for (let i = 0; i < 2; i++) {
      const r = await exec(writable(), `${SANDBOX_FACTS}; echo made > made.txt`);
      assert.equal(r.exitCode, 0, r.output);
      assert.match(r.output, /STDIN-EOF/, 'stdin is /dev/null');
      assert.match(r.output, /FRESH-TMP/, 'a private /tmp: not the sandbox of the command before');
      assert.match(r.output, /CapEff:\s+0+\n/);
      assert.match(r.output, /CapBnd:\s+0+\n/);
      assert.match(r.output, /\n512\n/, 'RLIMIT_NPROC');
    }
    assert.equal(fs.readFileSync(path.join(ws.root, 'made.txt'), 'utf8'), 'made\n');
    const ro = await exec(readOnly(), 'echo pwned > made.txt');
    assert.notEqual(ro.exitCode, 0);
    assert.match(ro.output, /Read-only file system/);
    assert.equal(fs.readFileSync(path.join(ws.root, 'made.txt'), 'utf8'), 'made\n');
    // a command a shell cannot hold is refused before any sandbox is given it
    await assert.rejects(exec(readOnly(), 'echo a\0b'), /NUL byte/);
    await assert.rejects(exec(readOnly(), 'x'.repeat(200000)), /at most 131071 bytes/);
    assert.deepEqual(sandboxesOf(process.pid), [], 'no sandbox is left');
  });

  test('a descriptor the backend inherited reaches no sandboxed command', async () => {
    // A backend started with a descriptor open without close-on-exec (here fd 7, a pipe its parent
    // passed): bwrap would pass it on to every sandbox; the prelude closes it before the command runs.
    const { spawn } = require('node:child_process');
    const script = `
      const fs = require('fs');
      const setup = require(${JSON.stringify(path.resolve(__dirname, '..', 'dist', 'runtime', 'confine.js'))}).setupConfinement();
      const { bwrapSandbox } = require(${JSON.stringify(path.resolve(__dirname, '..', 'dist', 'runtime', 'sandboxes.js'))});
      const { ShellProcessOperations } = require(${JSON.stringify(path.resolve(__dirname, '..', 'dist', 'runtime', 'operations', 'process.js'))});
      (async () => {
        const st = fs.fstatSync(7);
        const out = [st.isSocket() || st.isFIFO() ? 'BACKEND-HOLDS-FD7' : 'no pipe at fd 7'];
        const ops = new ShellProcessOperations(bwrapSandbox(setup));
        const spec = { roots: [process.argv[1]], readonly: false, cwd: process.argv[1], timeoutMs: 10000 };
        const facts = 'for f in /proc/$$/fd/*; do echo "FD ${'$'}{f##*/}"; done; { true >&7; } 2>/dev/null && echo FD7-OPEN || echo FD7-CLOSED';
        out.push((await ops.exec({ ...spec, command: facts })).output);
        process.stdout.write(JSON.stringify(out));
      })().catch(e => { console.error(e); process.exit(1); });`;
    const child = spawn(process.execPath, ['-e', script, ws.root], { stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ignore', 'ignore', 'ignore', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', d => (stdout += d));
    child.stderr.on('data', d => (stderr += d));
    const code = await new Promise(resolve => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    const [held, out] = JSON.parse(stdout);
    assert.equal(held, 'BACKEND-HOLDS-FD7', 'the backend process does hold the descriptor');
    assert.match(out, /FD7-CLOSED/, out);
    // 0, 1, 2 and the one the listing itself opens: nothing else
    const fds = [...out.matchAll(/^FD (\d+)$/gm)].map(m => Number(m[1]));
    assert.ok(fds.filter(n => n > 2).length <= 1 && !fds.includes(7), out);
  });

  test("in a worker, a shell is the worker's child inside its sandbox; time limit and output cap hold", async () => {
    const { policy, routes } = diagnose(ws.root, { shell: true, write: true });
    await withHost({ policy, routes }, async host => {
      const r = await host.call('bash', { command: `${SANDBOX_FACTS}; echo "PPID $PPID"` });
      assert.equal(r.ok, true, r.error);
      assert.match(r.output, /\n512\n/, 'RLIMIT_NPROC');
      assert.match(r.output, /CapEff:\s+0+\n/);
      const t0 = Date.now();
      const slow = await host.call('bash', { command: 'sleep 30 & sleep 30; echo never', timeoutMs: 500 });
      assert.ok(Date.now() - t0 < 10000);
      assert.doesNotMatch(slow.output ?? '', /never/);
      const flood = await host.call('bash', { command: 'yes' });
      assert.match(`${flood.output ?? ''}${flood.error ?? ''}`, /cut|output/i);
      assert.equal(below(host.hostPid()).filter(p => p.comm === 'bwrap').length, 0, 'no nested bwrap');
    });
  });
});

describe("a worker's first call: what does not depend on the call is done while the worker waits", () => {
  let ws;
  before(() => {
    ws = workspace();
  });
  after(() => ws.cleanup());
  const pkg = require('@netaclaw/tool-policy');
  const { prepareFirstCall } = rt('runner.js');
  const { checkCall } = rt('gate.js');
  const { descendants } = require('./support/processes');

  /** The package's checkers made, and the calls checked through them, while `fn` runs. */
  async function counting(fn) {
    const Original = pkg.ToolCallChecker;
    const seen = { built: 0, checked: [] };
    pkg.ToolCallChecker = class extends Original {
      constructor(options) {
        super(options);
        seen.built++;
      }
      checkText(name, text) {
        seen.checked.push(name);
        return super.checkText(name, text);
      }
      check(call) {
        seen.checked.push(call.name);
        return super.check(call);
      }
    };
    try {
      await fn(seen);
    } finally {
      pkg.ToolCallChecker = Original;
    }
    return seen;
  }

  /** A context whose operations, tools and services record any use (none is expected). */
  function recordingContext(policy, routes, used) {
    const record = what => () => {
      used.push(what);
      throw new Error(`${what} used`);
    };
    const recorder = group => new Proxy({}, { get: (_t, key) => record(`${group}.${String(key)}`) });
    return {
      policy,
      routes,
      ops: { fs: recorder('fs'), search: recorder('search'), process: recorder('process') },
      sandbox: sandboxOf('bwrap'),
      tools: new Proxy({}, { get: (_t, key) => record(`tool ${String(key)}`), has: () => true }),
      agentId: 1,
      services: recorder('services'),
    };
  }

  const calls = root => [
    ['read_file', { path: 'a.txt' }],
    ['read_file', { path: '../outside/secret.txt' }],
    ['read_file', { path: '/etc/passwd' }],
    ['write_file', { path: 'new.txt', content: 'x' }],
    ['list_dir', {}],
    ['bash', { command: 'ls' }],
    ['bash', {}],
    ['todo', { items: [{ text: 'a', done: false }] }],
    ['memory_save', { content: 'x' }],
    ['no_such_tool', {}],
    ['grep', { pattern: 'beta', path: root }],
  ];

  test('it checks synthetic calls of every routed tool through the checker the calls then use; nothing runs or changes', async () => {
    // a root of its own: no checker made before for these policy and routes
    const root = fs.mkdtempSync(path.join(ws.root, 'first-'));
    const { policy, routes } = diagnose(root, { shell: true, write: true, memoryEnabled: true });
    const before = snapshot(ws.base);
    const used = [];
    const ctx = recordingContext(policy, routes, used);
    const seen = await counting(async seen => {
      await prepareFirstCall(ctx, () => false);
      assert.equal(seen.built, 1, 'the checker of these policy and routes is made');
      assert.deepEqual(new Set(seen.checked), new Set(routes.map(r => r.name)), 'a synthetic call of every routed tool is checked');
      // the calls that follow use that checker, and are decided as the package decides them
      const n = seen.checked.length;
      for (const [name, args] of calls(root)) {
        const expected = pkg.checkToolCall({ policy, routes, call: { name, arguments: args } });
        const r = checkCall({ policy: ctx.policy, routes: ctx.routes, name, arguments: args });
        assert.equal(
          JSON.stringify(r),
          JSON.stringify({ decision: expected.decision, reason: expected.reason, paths: expected.paths, detail: expected.detail }),
          name
        );
      }
      assert.equal(seen.built, 1, 'no other checker is made');
      assert.equal(seen.checked.length, n + calls(root).length);
    });
    assert.ok(seen.checked.length >= 2 * routes.length);
    assert.deepEqual(used, [], 'no operation, tool or service is used');
    assert.deepEqual(snapshot(ws.base), before, 'nothing under the workspace is created, changed or removed');
    assert.deepEqual(ctx.policy, policy);
    assert.deepEqual(ctx.routes, routes);
  });

  test('it gives up as soon as a call has come', async () => {
    const root = fs.mkdtempSync(path.join(ws.root, 'first-'));
    const { policy, routes } = diagnose(root, { shell: true });
    const used = [];
    const none = await counting(() => prepareFirstCall(recordingContext(policy, routes, used), () => true));
    assert.deepEqual([none.built, none.checked], [0, []], 'a call already there: nothing is done');
    let turns = 0;
    const some = await counting(() => prepareFirstCall(recordingContext(policy, routes, used), () => ++turns > 4));
    assert.equal(some.built, 1);
    assert.ok(some.checked.length > 0 && some.checked.length < 2 * routes.length, `${some.checked.length} checks: stopped after its first steps`);
    assert.deepEqual(used, []);
  });

  test('a real worker does it once started: nothing is sent, recorded, started or touched; its calls are answered the same', async () => {
    const { policy, routes } = diagnose(ws.root, { shell: false, write: true, memoryEnabled: true });
    const before = snapshot(ws.base);
    const outcomes = [];
    // the threads of the worker called at once, once its calls have run (libuv's thread pool included)
    let threadsAfterCalls = 0;
    for (const idle of [false, true]) {
      const { host, events } = await startHost({ policy, routes, svc: services() });
      try {
        const pid = host.hostPid();
        const threads = () => fs.readdirSync(`/proc/${pid}/task`).length;
        if (idle) {
          // libuv's thread pool, started by the first use of fs.promises (the last step of the work done
          // while waiting), shows that it has been done: the worker then has as many threads as the one
          // whose calls ran. (Counted from its start rather than from when the test saw it ready, which a
          // busy machine can delay past that step.)
          assert.ok(threadsAfterCalls > 0);
          await waitFor(() => (threads() >= threadsAfterCalls ? [true] : []));
          assert.deepEqual(descendants(pid), [], 'the worker started no process');
          assert.deepEqual(snapshot(ws.base), before, 'nothing under the workspace is created, changed or removed');
        }
        const records = [];
        for (const [name, args] of [...calls(ws.root), ['read_file', { path: 'esc' }], ['list_dir', { path: 'escdir' }]]) {
          const r = await host.call(name, args);
          if (idle && records.length === 0) {
            // the worker has answered its first call: anything it reported on its own, waiting, came first
            assert.deepEqual(
              events.slice(0, events.findIndex(e => e.type === 'result') + 1).map(e => e.type),
              ['started', 'call', 'result'],
              'nothing but its start is reported before its first call'
            );
          }
          records.push([name, r.decision, r.reason, r.ok, r.output ?? null, r.error ?? null, r.detail ?? null]);
        }
        if (!idle) threadsAfterCalls = threads();
        outcomes.push(records);
      } finally {
        await host.kill('test over');
      }
      // the calls wrote new.txt and saved a memory: start the next worker from the same state
      fs.rmSync(path.join(ws.root, 'new.txt'), { force: true });
    }
    assert.deepEqual(outcomes[1], outcomes[0], 'a worker called at once and one that waited answer alike');
    const byName = Object.fromEntries(outcomes[1].map(r => [`${r[0]} ${r[1]}`, r]));
    assert.equal(byName['read_file worker-local'][4], 'alpha\nbeta\ngamma', 'the calls did run');
    assert.ok(outcomes[1].some(r => r[2] === 'path_outside_workspace'));
  });
});

describe('faults: a worker that crashes, hangs, floods or breaks the protocol', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());
  const hostile = { workerModule: FIXTURE_WORKER };

  async function endsWith(act, status, pattern, timeoutMs = 20000) {
    const { host, events } = await startHost({ policy: readonlyPolicy(ws.root), test: hostile, timeoutMs });
    const first = await host.call('x', { act: 'fine' });
    assert.equal(first.ok, true);
    await assert.rejects(host.call('x', { act }), /batch ended/);
    const end = await host.ended$();
    assert.equal(end.status, status, `${act}: ${end.error}`);
    assert.match(end.error, pattern);
    const results = events.filter(e => e.type === 'result');
    assert.equal(results.length, 1, 'the finished call is kept');
    assert.equal(events.filter(e => e.type === 'ended').length, 1);
    await assert.rejects(host.call('x', { act: 'fine' }), /batch ended/);
  }

  test('crash → failed', () => endsWith('crash', 'failed', /worker exited unexpectedly \(code 3\)/));
  test('hang past timeoutMs → killed', () => endsWith('hang', 'killed', /time limit of 4000 ms/, 4000));
  test('IPC flood → failed', () => endsWith('flood-ipc', 'failed', /flooded the channel/));
  test('stdout flood → failed', () => endsWith('flood-stdout', 'failed', /flooded its output/));
  test('repeated proxy requests for one call → failed', () => endsWith('flood-proxy', 'failed', /flooded the channel/));
  test('a fast batch is not a flood: 1,500 calls answered as fast as the worker can', async () => {
    const { host } = await startHost(diagnose(ws.root));
    try {
      const t0 = Date.now();
      for (let i = 0; i < 1500; i++) {
        const r = await host.call('list_dir', {});
        assert.equal(r.ok, true, r.error);
      }
      assert.equal(host.status, null, 'still running');
      assert.ok(Date.now() - t0 < 60000);
    } finally {
      await host.kill('test over');
    }
  });
  test('an oversized message → failed', () => endsWith('big-message', 'failed', /sent a message of \d+ bytes/));
  test('an unknown protocol version → failed', () => endsWith('bad-version', 'failed', /unsupported protocol version 2/));
  test('an unknown message type → failed', () => endsWith('unknown-type', 'failed', /unknown message type "take-over"/));
  test('a result for a call not in progress → failed', () => endsWith('wrong-seq', 'failed', /not in progress/));

  test('the real worker answers a malformed message with error and is stopped', async () => {
    const { host } = await startHost({ policy: readonlyPolicy(ws.root), test: { permission: true } });
    host.child.send({ v: 1, type: 'call', seq: 'one' });
    const end = await host.ended$();
    assert.equal(end.status, 'failed');
    assert.match(end.error, /worker error: rejected message: call: invalid field seq/);
  });

  test('the real worker refuses an init whose catalog the package rejects, and is stopped', async () => {
    const { WorkerHost } = rt('host.js');
    const { setActiveCatalog } = rt('../wire/policy.js');
    const duplicate = [
      { name: 'read_file', toolset: 'base' },
      { name: 'read_file', toolset: 'base' },
    ];
    // the host sends the process's catalog (the backend's merged one) in init
    setActiveCatalog(duplicate);
    try {
      const host = new WorkerHost({
        batchId: 1,
        agentId: 1,
        policy: readonlyPolicy(ws.root),
        routes: [],
        driver: 'calls',
        timeoutMs: 20000,
        env: envOf('off'),
        ops: operations('off'),
        services: services(),
      });
      await assert.rejects(host.start(), /rejected message: init: invalid field catalog: .*duplicate tool name "read_file"/);
      assert.equal((await host.ended$()).status, 'failed');
    } finally {
      setActiveCatalog(undefined);
    }
  });

  test('kill(reason) stops a batch at once: killed', async () => {
    const { host } = await startHost({ policy: readonlyPolicy(ws.root), test: hostile });
    const pending = host.call('x', { act: 'hang' });
    const end = await host.kill('stopped by the operator');
    assert.deepEqual(end, { status: 'killed', error: 'stopped by the operator' });
    await assert.rejects(pending, /batch ended \(killed\)/);
  });
});

describe('L4: a forged proxy request that does not match the call in progress', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());
  test('is denied and reported, whatever the worker claims', async () => {
    await withHost({ policy: readonlyPolicy(ws.root), test: { workerModule: FIXTURE_WORKER } }, async (host, events) => {
      const r = await host.call('read_file', { act: 'forge', name: 'write_file', arguments: { path: 'x', content: 'y' } });
      assert.equal(r.decision, 'denied');
      assert.equal(r.ok, false);
      assert.match(r.detail, /does not match the call in progress/);
      const denied = events.filter(e => e.type === 'proxy-denied');
      assert.equal(denied.length, 1);
      assert.equal(denied[0].record.name, 'write_file');
      assert.ok(!fs.existsSync(path.join(ws.root, 'x')));
    });
  });
});

describe('L4: a proxied call is answered by the main process', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());
  // the fixture sends the next call back as a proxy request with the arguments the main process sent
  const todo = async (host, plan = {}) => {
    assert.equal((await host.call('x', { act: 'arm', plan })).output, 'armed');
    return host.call('todo', { items: [{ text: 'one', done: false }] });
  };

  test("the record is the main process's outcome; the worker's result must repeat it, or the batch fails", async () => {
    const { policy, routes } = diagnose(ws.root);
    const svc = services();
    const { host, events } = await startHost({ policy, routes, svc, test: { workerModule: FIXTURE_WORKER } });
    try {
      const fair = await todo(host);
      assert.equal(fair.decision, 'main-process-proxy');
      assert.equal(fair.ok, true, fair.error);
      assert.equal(fair.output, '[ ] one');
      // the worker repeated the answer: the batch goes on
      assert.equal((await host.call('x', { act: 'fine' })).ok, true);
      assert.equal(host.status, null);
      // a worker that reports another outcome than the main process's: the caller has the main process's
      // answer, and the batch ends on the worker's claim
      const lied = await todo(host, { relay: 'lie' });
      assert.equal(lied.ok, true);
      assert.equal(lied.output, '[ ] one');
      const end = await host.ended$();
      assert.equal(end.status, 'failed');
      assert.match(end.error, /worker broke the protocol: its result for call 5 is not the main process's answer \(output\)/);
      assert.deepEqual(
        events.filter(e => e.type === 'result').map(e => [e.record.seq, e.record.ok, e.record.output]),
        [
          [1, true, 'armed'],
          [2, true, '[ ] one'],
          [3, true, 'fine'],
          [4, true, 'armed'],
          [5, true, '[ ] one'],
        ],
        'every answered call is kept'
      );
      await assert.rejects(host.call('x', { act: 'fine' }), /batch ended \(failed\)/);
    } finally {
      await host.kill('test over');
    }
  });

  test('a worker that skips its result and answers the next call: failed, the answered call kept', async () => {
    const { policy, routes } = diagnose(ws.root);
    const { host, events } = await startHost({ policy, routes, test: { workerModule: FIXTURE_WORKER } });
    try {
      assert.equal((await todo(host, { relay: 'none' })).ok, true);
      await assert.rejects(host.call('x', { act: 'fine' }), /batch ended \(failed\)/);
      const end = await host.ended$();
      assert.match(end.error, /worker broke the protocol: result for call 3 before the result of call 2/);
      assert.deepEqual(
        events.filter(e => e.type === 'result').map(e => e.record.seq),
        [1, 2]
      );
    } finally {
      await host.kill('test over');
    }
  });

  test('a second proxy request for the same call is denied: the main process runs a call once', async () => {
    const { policy, routes } = diagnose(ws.root);
    const svc = services();
    let runs = 0;
    const set = svc.todos.set;
    svc.todos.set = items => {
      runs += 1;
      set(items);
    };
    await withHost({ policy, routes, svc, test: { workerModule: FIXTURE_WORKER } }, async (host, events) => {
      const r = await todo(host, { twice: true });
      assert.equal(r.ok, true, r.error);
      // the second request may come before or after the host has answered the call: either way it is
      // denied and the batch goes on (the next call's answer comes after it on the channel)
      assert.equal((await host.call('x', { act: 'fine' })).ok, true, 'the batch goes on');
      const denied = events.filter(e => e.type === 'proxy-denied').map(e => e.record);
      assert.equal(denied.length, 1);
      assert.equal(denied[0].reason, 'not_selected_for_subagent');
      assert.match(denied[0].detail, /a call is run by the main process once/);
      assert.equal(runs, 1, 'todo ran once');
    });
  });
});

describe('tool implementations (with real operations, on a temp workspace)', () => {
  let ws;
  let svc;
  const { execute } = rt('runner.js');
  const MAIN_TOOLS = mainTools();
  before(() => {
    ws = workspace();
    // '../etc' is bound on purpose: the folder check must hold even for a name the gate would refuse.
    svc = services(giveToSandbox(fs.mkdtempSync(path.join(ws.base, 'skills-'))), ['hello', 'other', 'nobody', '../etc']);
  });
  after(() => {
    ws.cleanup();
    fs.rmSync(svc.skillsDir, { recursive: true, force: true });
  });

  /** Runs one implementation as the runner would after the gate: `paths` are the gate's paths. */
  function run(name, args, { paths = [], readonly = false, shell = 'bwrap' } = {}) {
    const ctx = {
      policy: { workspaceRoots: [ws.root], allowShell: true, readonly },
      routes: [],
      ops: operations(shell),
      sandbox: sandboxOf(shell),
      tools: MAIN_TOOLS,
      agentId: 1,
      services: svc,
    };
    const gate = { decision: 'main-process-proxy', reason: null, paths, detail: null };
    return execute(ctx, gate, name, args, Date.now());
  }
  const at = (rel, write = false, argument = 'path') => [{ argument, path: path.join(ws.root, rel), write }];

  test('read_file: lines by offset/limit; a missing file is a clear error', async () => {
    const all = await run('read_file', { path: 'a.txt' }, { paths: at('a.txt') });
    assert.equal(all.output, 'alpha\nbeta\ngamma');
    const mid = await run('read_file', { path: 'a.txt', offset: 2, limit: 1 }, { paths: at('a.txt') });
    assert.equal(mid.output, 'beta\n[lines 2-2 of 3]');
    const missing = await run('read_file', { path: 'nope.txt' }, { paths: at('nope.txt') });
    assert.equal(missing.ok, false);
    assert.match(missing.error, /nope\.txt: no such file or folder/);
    const past = await run('read_file', { path: 'a.txt', offset: 9 }, { paths: at('a.txt') });
    assert.match(past.error, /offset 9 is past the end/);
    const dir = await run('read_file', { path: 'sub' }, { paths: at('sub') });
    assert.match(dir.error, /is a folder/);
  });

  test('list_dir: entries with kinds; default the first root; a missing folder is an error', async () => {
    const r = await run('list_dir', {});
    assert.equal(r.ok, true);
    assert.deepEqual(r.output.split('\n'), ['a.txt  17', 'esc -> (symlink)', 'escdir -> (symlink)', 'sub/']);
    const missing = await run('list_dir', { path: 'none' }, { paths: at('none') });
    assert.match(missing.error, /no such file or folder/);
  });

  test('find_files: glob over the tree, symlinks never followed; an empty pattern is an error', async () => {
    const md = await run('find_files', { pattern: '*.md' });
    assert.equal(md.output, 'sub/b.md');
    const all = await run('find_files', { pattern: '**/*' });
    assert.ok(!all.output.includes('secret'), 'escdir is not entered');
    const none = await run('find_files', { pattern: '*.rs' });
    assert.match(none.output, /no files match/);
    const empty = await run('find_files', { pattern: '' });
    assert.match(empty.error, /pattern must not be empty/);
  });

  test('grep: file:line:text, glob filter, symlinks not read; a bad regex is a clear error', async () => {
    const r = await run('grep', { pattern: 'beta' });
    assert.deepEqual(r.output.split('\n'), ['a.txt:2:beta', 'sub/b.md:2:beta in markdown']);
    const md = await run('grep', { pattern: 'beta', glob: '*.md' });
    assert.equal(md.output, 'sub/b.md:2:beta in markdown');
    const secret = await run('grep', { pattern: 'TOP' });
    assert.match(secret.output, /no matches/);
    const bad = await run('grep', { pattern: '(' });
    assert.match(bad.error, /not a valid regular expression/);
  });

  test('grep patterns: matched in linear time, written as for JavaScript; backreferences and lookaround refused', () => {
    const { linePattern } = rt('regex.js');
    const cases = [
      // pattern, line, JavaScript RegExp's answer (the same without flags)
      ['beta', 'alpha beta', true],
      ['^beta$', 'alpha beta', false],
      ['Beta', 'beta', false],
      ['(?i)Beta', 'BETA', true],
      ['\\u00e9t\\u00e9', 'un été', true],
      ['\\u{1F600}', 'smile \u{1F600}', true],
      ['(?<year>\\d{4})-\\d{2}', 'on 2024-06', true],
      ['a/b', 'x a/b y', true],
      ['\\bword\\b', 'a wordy text', false],
      ['[\\u0041-\\u005A]{3}', 'abcDEF', true],
    ];
    for (const [pattern, line, expected] of cases) {
      assert.equal(linePattern(pattern).test(line), expected, `${pattern} on ${line}`);
      if (!pattern.startsWith('(?i)')) assert.equal(new RegExp(pattern, 'u').test(line), expected, `control: JavaScript agrees on ${pattern}`);
    }
    // linear: a pattern that backtracks exponentially in JavaScript, over a 100,000-character line
    const t0 = Date.now();
    assert.equal(linePattern('^(a+)+$').test('a'.repeat(100000) + 'b'), false);
    assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms`);
    for (const [pattern, why] of [
      ['(a)\\1', /backreference/],
      ['(?<x>a)\\k<x>', /backreference/],
      ['a(?=b)', /look-ahead or look-behind/],
      ['a(?!b)', /look-ahead or look-behind/],
      ['(?<=a)b', /look-ahead or look-behind/],
      ['(?<!a)b', /look-ahead or look-behind/],
    ]) {
      assert.throws(
        () => linePattern(pattern),
        e => e.name === 'ToolError' && why.test(e.message) && /linear time/.test(e.message),
        pattern
      );
    }
    assert.throws(
      () => linePattern('[a'),
      e => /not a valid regular expression/.test(e.message) && !/backreference|look-ahead/.test(e.message)
    );
  });

  test('bash: output and exit code; a failing command reports its exit code', async () => {
    const r = await run('bash', { command: 'echo hi; echo err >&2' });
    assert.equal(r.ok, true);
    assert.match(r.output, /hi\nerr\n\n\[exit code 0\]/);
    const f = await run('bash', { command: 'exit 7' });
    assert.equal(f.ok, false);
    assert.equal(f.error, 'exit code 7');
  });

  test('write_file creates folders; edit needs oldText exactly once', async () => {
    const w = await run('write_file', { path: 'new/dir/f.txt', content: 'one two one' }, { paths: at('new/dir/f.txt', true) });
    assert.equal(w.ok, true, w.error);
    assert.equal(fs.readFileSync(path.join(ws.root, 'new/dir/f.txt'), 'utf8'), 'one two one');
    const twice = await run('edit', { path: 'new/dir/f.txt', oldText: 'one', newText: '1' }, { paths: at('new/dir/f.txt', true) });
    assert.match(twice.error, /occurs 2 times/);
    const none = await run('edit', { path: 'new/dir/f.txt', oldText: 'three', newText: '3' }, { paths: at('new/dir/f.txt', true) });
    assert.match(none.error, /was not found/);
    const once = await run('edit', { path: 'new/dir/f.txt', oldText: 'two', newText: '2' }, { paths: at('new/dir/f.txt', true) });
    assert.equal(once.ok, true);
    assert.equal(fs.readFileSync(path.join(ws.root, 'new/dir/f.txt'), 'utf8'), 'one 2 one');
    const missing = await run('edit', { path: 'gone.txt', oldText: 'a', newText: 'b' }, { paths: at('gone.txt', true) });
    assert.match(missing.error, /no such file/);
  });

  test('patch applies a multi-file unified diff, all or nothing', async () => {
    fs.writeFileSync(path.join(ws.root, 'p1.txt'), 'a\nb\nc\n');
    fs.writeFileSync(path.join(ws.root, 'p2.txt'), 'x\ny\n');
    const good = [
      '--- a/p1.txt',
      '+++ b/p1.txt',
      '@@ -1,3 +1,3 @@',
      ' a',
      '-b',
      '+B',
      ' c',
      '--- /dev/null',
      '+++ b/p3.txt',
      '@@ -0,0 +1 @@',
      '+created',
      '',
    ].join('\n');
    const paths = [...at('p1.txt', true, 'patch'), ...at('p3.txt', true, 'patch')];
    const r = await run('patch', { patch: good }, { paths });
    assert.equal(r.ok, true, r.error);
    assert.equal(fs.readFileSync(path.join(ws.root, 'p1.txt'), 'utf8'), 'a\nB\nc\n');
    assert.equal(fs.readFileSync(path.join(ws.root, 'p3.txt'), 'utf8'), 'created\n');
    const half = [
      '--- a/p2.txt',
      '+++ b/p2.txt',
      '@@ -1,2 +1,2 @@',
      '-x',
      '+X',
      ' y',
      '--- a/p1.txt',
      '+++ b/p1.txt',
      '@@ -1,3 +1,3 @@',
      ' a',
      '-nope',
      '+N',
      ' c',
      '',
    ].join('\n');
    const bad = await run('patch', { patch: half }, { paths: [...at('p2.txt', true, 'patch'), ...at('p1.txt', true, 'patch')] });
    assert.equal(bad.ok, false);
    assert.match(bad.error, /p1\.txt: the patch does not apply/);
    assert.equal(fs.readFileSync(path.join(ws.root, 'p2.txt'), 'utf8'), 'x\ny\n', 'nothing written');
    const unchecked = await run('patch', { patch: good.replace(/p3/g, 'p4') }, { paths: at('p1.txt', true, 'patch') });
    assert.match(unchecked.error, /not among the paths checked/);
    const notDiff = await run('patch', { patch: 'hello' }, { paths });
    assert.match(notDiff.error, /names no file|not a unified diff/);
  });

  test('todo, clarify, escalate', async () => {
    const t = await run('todo', { items: [{ text: 'read', done: true }, { text: 'write' }] });
    assert.equal(t.output, '[x] read\n[ ] write');
    assert.deepEqual(svc.todoItems, [
      { text: 'read', done: true },
      { text: 'write', done: false },
    ]);
    const bad = await run('todo', { items: [{ done: true }] });
    assert.match(bad.error, /items\[0\]\.text must be a string/);
    assert.match((await run('clarify', { question: 'Which branch?' })).output, /Which branch\?/);
    assert.equal((await run('escalate', { reason: 'needs a human' })).output, 'Escalation #1 recorded: an operator will see it and answer.');
    assert.deepEqual(svc.escalated, [{ id: 1, agentId: 1, reason: 'needs a human' }]);
    assert.match((await run('escalate', { reason: '  ' })).error, /reason must not be empty/);
    // the column's limit (characters, not bytes), answered by the tool before anything is stored
    assert.match((await run('escalate', { reason: 'x'.repeat(16_001) })).error, /reason must be at most 16000 characters/);
    assert.equal(svc.escalated.length, 1);
  });

  test('memory_save / memory_recall', async () => {
    assert.match((await run('memory_save', { content: 'the build uses nice' })).output, /saved memory #1/);
    assert.match((await run('memory_recall', { query: 'nice' })).output, /#1 .*the build uses nice/);
    assert.match((await run('memory_recall', { query: 'zzz' })).output, /no memory matches/);
    assert.match((await run('memory_save', { content: '  ' })).error, /content must not be empty/);
    assert.match((await run('memory_save', { content: 'y'.repeat(16_001) })).error, /content must be at most 16000 characters/);
    assert.match((await run('memory_recall', { query: 'yyyy' })).output, /no memory matches/);
    assert.match((await run('memory_save', { content: '字'.repeat(16_000) })).output, /saved memory #2/);
  });

  test('skills: manage, read, read a file, execute in the sandbox; names and paths confined', async () => {
    const c = await run('skill_manage', { name: 'hello', action: 'create', content: '# Hello\nSays hello.\n' });
    assert.equal(c.ok, true, c.error);
    assert.match((await run('skill_manage', { name: 'hello', action: 'create', content: 'x' })).error, /already exists/);
    fs.writeFileSync(path.join(svc.skillsDir, 'hello', 'run.sh'), 'echo "hello $1 from $(pwd)"; ls /\n');
    assert.equal((await run('read_skill', { name: 'hello' })).output, '# Hello\nSays hello.\n');
    assert.match((await run('read_skill_file', { name: 'hello', path: 'run.sh' })).output, /echo/);
    const x = await run('execute_skill', { name: 'hello', script: 'run.sh', args: ['world'] });
    assert.equal(x.ok, true, x.error);
    assert.match(x.output, new RegExp(`hello world from ${ws.root}`));
    assert.ok(!/^home$/m.test(x.output), 'runs in the sandbox');
    assert.match((await run('read_skill', { name: '../etc' })).error, /does not name a folder inside the skills folder/);
    assert.match((await run('read_skill_file', { name: 'hello', path: '../../x' })).error, /outside the folder of skill hello/);
    fs.symlinkSync(ws.secret, path.join(svc.skillsDir, 'hello', 'leak'));
    assert.match((await run('read_skill_file', { name: 'hello', path: 'leak' })).error, /outside the folder/);
    const nobody = await run('read_skill', { name: 'nobody' });
    assert.match(nobody.error, /no skill named nobody/);
    assert.ok(!nobody.error.includes(svc.skillsDir), "the skills folder (the backend's) is not named");
    assert.match((await run('execute_skill', { name: 'hello', script: 'missing.sh' })).error, /has no script/);
    const u = await run('execute_skill', { name: 'hello', script: 'run.sh' }, { shell: 'unavailable' });
    assert.equal(u.ok, false, 'the process operations refuse to run without the sandbox');
    assert.equal((await run('skill_manage', { name: 'hello', action: 'delete' })).ok, true);
    assert.ok(!fs.existsSync(path.join(svc.skillsDir, 'hello')));
    assert.match((await run('skill_manage', { name: 'hello', action: 'rename', content: '' })).error, /action must be/);
    assert.match((await run('skill_manage', { name: 'other', action: 'create' })).error, /content is needed to create/);
    assert.match((await run('skill_manage', { name: 'other', action: 'update', content: 'x' })).error, /no skill named other/);
  });

  test('skills: only those bound to the agent; an unbound one is a failed call, its folder untouched', async () => {
    const dir = path.join(svc.skillsDir, 'foreign');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '# foreign\n');
    fs.writeFileSync(path.join(dir, 'run.sh'), 'echo ran > ran.txt\n');
    try {
      for (const [name, args] of [
        ['read_skill', { name: 'foreign' }],
        ['read_skill_file', { name: 'foreign', path: 'run.sh' }],
        ['execute_skill', { name: 'foreign', script: 'run.sh' }],
        ['skill_manage', { name: 'foreign', action: 'update', content: 'replaced' }],
        ['skill_manage', { name: 'foreign', action: 'delete' }],
        ['skill_manage', { name: 'brand-new', action: 'create', content: '# new\n' }],
      ]) {
        const r = await run(name, args);
        assert.equal(r.ok, false, name);
        assert.equal(r.decision, 'main-process-proxy', "the decision stays the gate's");
        assert.match(r.error, new RegExp(`skill "${args.name}" is not bound to this agent \\(bound skills: "hello", "other"`), name);
        assert.equal(r.output, undefined, name);
      }
      assert.equal(fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8'), '# foreign\n');
      assert.ok(!fs.existsSync(path.join(ws.root, 'ran.txt')));
      assert.ok(!fs.existsSync(path.join(svc.skillsDir, 'brand-new')));
      // control: the same folder, once bound, is read
      const bound = services(svc.skillsDir, ['foreign']);
      const ctx = {
        policy: { workspaceRoots: [ws.root], allowShell: true, readonly: false },
        routes: [],
        ops: operations('bwrap'),
        sandbox: sandboxOf('bwrap'),
        tools: MAIN_TOOLS,
        agentId: 1,
        services: bound,
      };
      const ok = await execute(ctx, { decision: 'main-process-proxy', reason: null, paths: [], detail: null }, 'read_skill', { name: 'foreign' }, Date.now());
      assert.equal(ok.output, '# foreign\n');
      const none = await execute(
        { ...ctx, services: services(svc.skillsDir) },
        { decision: 'main-process-proxy', reason: null, paths: [], detail: null },
        'read_skill',
        { name: 'foreign' },
        Date.now()
      );
      assert.match(none.error, /is not bound to this agent \(bound skills: none\)/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('operations are injected: a replacement ProcessOperations sees exactly what bash asks for', async () => {
    const seen = [];
    const fake = {
      async exec(req) {
        seen.push(req);
        return { exitCode: 0, signal: null, output: 'from the fake', outputBytes: 13, timedOut: false, killedForOutput: false };
      },
    };
    const ctx = {
      policy: { workspaceRoots: [ws.root, ws.outside], allowShell: true, readonly: true },
      routes: [],
      ops: { ...operations('bwrap'), process: fake },
      sandbox: sandboxOf('bwrap'),
      tools: MAIN_TOOLS,
      agentId: 1,
      services: svc,
    };
    const gate = { decision: 'worker-local', reason: null, paths: [], detail: null };
    const r = await execute(ctx, gate, 'bash', { command: 'make test', timeoutMs: 1234 }, Date.now());
    assert.equal(r.output, 'from the fake\n[exit code 0]');
    assert.deepEqual(seen, [{ command: 'make test', cwd: ws.root, roots: [ws.root, ws.outside], readonly: true, timeoutMs: 1234 }]);
    await execute(ctx, gate, 'bash', { command: 'true' }, Date.now());
    assert.equal(seen[1].timeoutMs, 30000, 'the default time limit');
  });

  test('outputs are cut at 64 KiB with a note', async () => {
    fs.writeFileSync(path.join(ws.root, 'big.txt'), 'z'.repeat(100000));
    const r = await run('read_file', { path: 'big.txt' }, { paths: at('big.txt') });
    assert.match(r.output, /\[output cut: 100000 bytes, the first 65336 kept \(limit 65536 bytes\)\]$/);
    assert.ok(Buffer.byteLength(r.output) <= 65536);
  });
});

describe('a worker that cannot start', () => {
  test('a root Node cannot grant (a comma) fails the batch at start, never a half-started worker', async () => {
    const ws = workspace();
    const odd = path.join(ws.base, 'a,b');
    fs.mkdirSync(odd);
    try {
      const { WorkerHost } = rt('host.js');
      const events = [];
      const host = new WorkerHost({
        batchId: 1,
        agentId: 1,
        policy: readonlyPolicy(odd),
        routes: [],
        driver: 'calls',
        timeoutMs: 5000,
        env: envOf('bwrap'),
        ops: operations('bwrap'),
        services: services(),
        onEvent: e => events.push(e),
      });
      await assert.rejects(host.start(), /holds a comma/);
      assert.equal((await host.ended$()).status, 'failed');
      await assert.rejects(host.call('list_dir', {}), /batch ended \(failed\)/);
      assert.equal(events.filter(e => e.type === 'ended').length, 1);
    } finally {
      ws.cleanup();
    }
  });
});
