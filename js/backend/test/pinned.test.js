'use strict';
/**
 * A root is pinned once (runtime/pinned.ts), tried as the attack was made: session S has root `P/a`; another session, with a
 * shell in `P`, runs `mv a a.real && ln -s DATA a` (and back, every few milliseconds: a racing toggler,
 * fixtures/root-toggler.js). What must hold, checked on disk and in every answer (a marker secret in the
 * data folder, the admin token, the model API key, the SQLite file):
 * - (a) a proxied `write_file` after the swap never lands in the data folder: it is refused with a sentence
 *   saying the root now leads elsewhere, or written into the real root;
 * - (b) after the worker dies (`kill -9 $PPID` from the model's own `bash`) the next worker does not bind the
 *   data folder: it does not start (the sentence), or it runs on the real root;
 * - (c) of many batch starts while toggling, none mounts the data folder as its root: each is refused (400
 *   `root_contains_backend_state`), fails with the sentence, or runs on the real root.
 * Run by the backend as it runs (root, sandboxes as `netaclaw-sandbox`), and again as an unprivileged
 * backend (fixtures/pinned-unprivileged.js, as `nobody` when the tests run as root).
 * (The socket families a sandbox may open: sockets.test.js.)
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { rt, sandboxOf, giveToSandbox, startHost, withHost, diagnose, callText, sandboxUser } = require('./support/runtime');
const { startServer, call } = require('./support/server');
const { chat, modelEnv } = require('./support/chat');
const { startModel } = require('./support/model');

const { pinRoots, pinnedOperations } = rt('pinned.js');
const { isInside } = rt('realpath.js');
const { ShellProcessOperations } = rt('operations/process.js');

const isRoot = process.getuid() === 0;
const TOGGLER = path.join(__dirname, 'fixtures', 'root-toggler.js');
const SWAPPED = /the workspace root "[^"]+" now leads to another folder than the one checked when this run started/;
const { ROOT_MOVED, PATH_MOVED } = rt('host.js');
/** bwrap found a root (or a path its rules bind) moved while it bound it: the worker did not start. */
const MOVED = new RegExp([ROOT_MOVED, PATH_MOVED].map(s => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
/** Why a worker did not start on a toggled root: the name led elsewhere, or the root moved while bwrap bound it. */
const NOT_STARTED = new RegExp(`${SWAPPED.source}|${MOVED.source}`);
/** The most batch starts made while the root toggles, looking for one that gets through (fixtures/pinned-unprivileged.js too). */
const MAX_STARTS = 300;
const DATA_SECRET = 'DATA-SECRET-5c1e0d7a';
const REAL_ROOT = 'REAL-ROOT-93be';

/**
 * base/p/a: the root (marker.txt), given to the sandbox user; base/data: the stand-in for the data folder,
 * readable by anyone (as the data folder's files were), holding the marker secret.
 */
function layout() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'netaclaw-pin-')));
  fs.chmodSync(base, 0o755);
  const parent = path.join(base, 'p');
  const root = path.join(parent, 'a');
  const data = path.join(base, 'data');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(path.join(data, 'skills'), { recursive: true });
  fs.writeFileSync(path.join(root, 'marker.txt'), `${REAL_ROOT}\n`);
  fs.writeFileSync(path.join(data, 'secret.txt'), `${DATA_SECRET}\n`);
  fs.writeFileSync(path.join(data, 'marker.txt'), `${DATA_SECRET}\n`);
  for (const d of [parent, data, path.join(data, 'skills')]) fs.chmodSync(d, 0o755);
  giveToSandbox(root);
  return { base, parent, root, data, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/** Every file under `dir` with its content (a snapshot to compare). */
function files(dir) {
  const out = {};
  const visit = rel => {
    const abs = path.join(dir, rel);
    const st = fs.lstatSync(abs);
    if (st.isDirectory()) for (const n of fs.readdirSync(abs)) visit(path.join(rel, n));
    else out[rel] = st.isFile() ? fs.readFileSync(abs, 'utf8') : 'other';
  };
  visit('');
  return out;
}

/**
 * Starts the toggler on `root` (↔ a symlink to `target`), each state held 0–`holdMs` ms (the real one
 * 0–`realHoldMs`); `stop()` ends it and answers how often it toggled.
 */
async function toggler(root, target, holdMs = 3, realHoldMs = holdMs) {
  const child = spawn(process.execPath, [TOGGLER, root, target, String(holdMs), String(realHoldMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', d => (out += d));
  const deadline = Date.now() + 20000;
  while (!out.includes('toggling') && Date.now() < deadline) await new Promise(r => setTimeout(r, 10));
  assert.match(out, /toggling/, 'the toggler runs');
  return {
    async stop() {
      const exited = new Promise(r => child.on('exit', r));
      child.kill('SIGTERM');
      await exited;
      const m = /toggles (\d+)/.exec(out);
      assert.ok(m, `the toggler reports: ${out}`);
      assert.ok(fs.lstatSync(root).isDirectory(), 'the real folder is back at its name');
      return Number(m[1]);
    },
  };
}

/** Swaps `root` for a symlink to `target` once; answers the function that swaps it back. */
function swapOnce(root, target) {
  fs.renameSync(root, `${root}.real`);
  fs.symlinkSync(target, root);
  return () => {
    fs.unlinkSync(root);
    fs.renameSync(`${root}.real`, root);
  };
}

const refuseData = data => (given, real) => {
  if (isInside(real, data) || isInside(data, real)) throw new Error(`workspace root ${JSON.stringify(given)} reaches the data folder`);
};

describe('pinned roots', () => {
  let L;
  before(() => (L = layout()));
  after(() => L.cleanup());

  test('a held root maps paths through its descriptor, says when its name leads elsewhere, and refuses what its checks refuse', async () => {
    const pins = await pinRoots([L.root]);
    try {
      const [r] = pins.roots;
      assert.equal(r.real, L.root);
      assert.equal(pins.map(path.join(L.root, 'x', 'y')), `/proc/self/fd/${r.fd}/x/y`);
      assert.equal(pins.map(L.root), `/proc/self/fd/${r.fd}/.`);
      assert.equal(pins.unmap(`'/proc/self/fd/${r.fd}/.' and /proc/self/fd/${r.fd}/.x`), `'${L.root}' and ${L.root}/.x`);
      assert.equal(pins.map('/elsewhere/z'), '/elsewhere/z');
      assert.equal(pins.unmap(`open '/proc/self/fd/${r.fd}/x'`), `open '${L.root}/x'`);
      assert.equal(pins.swapped(), null);
      const back = swapOnce(L.root, L.data);
      try {
        assert.match(pins.swapped(), SWAPPED);
        // the operations reach the held folder, not what the name leads to now
        const ops = pinnedOperations({ fs: new (rt('operations/fs.js').NodeFileSystemOperations)(), search: null, process: null }, pins);
        assert.equal((await ops.fs.readFile(path.join(L.root, 'marker.txt'), [L.root])).toString(), `${REAL_ROOT}\n`);
        await ops.fs.writeFile(path.join(L.root, 'skills', 'held.txt'), 'held', [L.root]);
        assert.ok(fs.existsSync(path.join(`${L.root}.real`, 'skills', 'held.txt')));
        assert.ok(!fs.existsSync(path.join(L.data, 'skills', 'held.txt')), 'nothing in the data folder');
        // the symlink check resolves against the held root too
        assert.equal(await pins.checkRealPaths([{ argument: 'path', path: path.join(L.root, 'marker.txt'), write: false }]), null);
        // pinning now: the name leads to the data folder, which the check refuses
        await assert.rejects(pinRoots([L.root], { check: refuseData(L.data) }), /reaches the data folder/);
      } finally {
        back();
      }
    } finally {
      await pins.close();
    }
    assert.throws(() => pins.map(L.root), /no longer held/);
    await assert.rejects(pinRoots([path.join(L.parent, 'missing')]), /does not exist: a run needs each of its roots to be an existing folder/);
    if (isRoot) {
      const hidden = path.join(L.parent, 'hidden');
      fs.mkdirSync(hidden, { mode: 0o700 });
      await assert.rejects(pinRoots([hidden], { sandboxUser: sandboxUser() }), /cannot be read by the sandbox's user/);
    }
  });

  test('bwrap binds the held inode: a shell on a root swapped after pinning sees the real root, and no held descriptor reaches it', async () => {
    const pins = await pinRoots([L.root]);
    const back = swapOnce(L.root, L.data);
    try {
      const ops = pinnedOperations({ fs: null, search: null, process: new ShellProcessOperations(sandboxOf('bwrap')) }, pins);
      const r = await ops.process.exec({
        roots: [L.root],
        readonly: true,
        cwd: L.root,
        command: 'cat marker.txt; cat secret.txt 2>&1; ls -l /proc/$$/fd; true',
        timeoutMs: 20000,
      });
      assert.equal(r.exitCode, 0, r.output);
      assert.match(r.output, new RegExp(REAL_ROOT));
      assert.ok(!r.output.includes(DATA_SECRET), r.output);
      assert.doesNotMatch(r.output, /-> \/(?!dev\/null)/, 'the shell holds no descriptor of a path');
      // control: bound by its path, the same shell gets the data folder
      const plain = await new ShellProcessOperations(sandboxOf('bwrap')).exec({
        roots: [L.root],
        readonly: true,
        cwd: L.root,
        command: 'cat secret.txt',
        timeoutMs: 20000,
      });
      assert.match(plain.output, new RegExp(DATA_SECRET), 'the path alone leads to the data folder');
    } finally {
      back();
      await pins.close();
    }
  });
});

describe('attack 1 against the runtime: a root swapped after its check', () => {
  let L;
  before(() => (L = layout()));
  after(() => L.cleanup());

  test('(a) swapped once: a proxied write_file is refused with the sentence; nothing lands in the data folder', async () => {
    const before = files(L.data);
    const { policy, routes } = diagnose(L.root, { write: true });
    await withHost({ policy, routes }, async (host, events) => {
      const ok = await host.call('write_file', { path: 'skills/x.txt', content: 'first' });
      assert.equal(ok.ok, true, ok.error);
      assert.ok(
        events.some(e => e.type === 'proxy' && e.name === 'write_file'),
        'write_file runs in the main process'
      );
      const back = swapOnce(L.root, L.data);
      try {
        const r = await host.call('write_file', { path: 'skills/y.txt', content: DATA_SECRET });
        assert.equal(r.decision, 'denied', JSON.stringify(r));
        assert.equal(r.reason, 'path_outside_workspace');
        assert.match(r.detail, SWAPPED);
        const read = await host.call('read_file', { path: 'marker.txt' });
        assert.ok(!callText(read).includes(DATA_SECRET), callText(read));
      } finally {
        back();
      }
    });
    assert.deepEqual(files(L.data), before, 'the data folder is unchanged');
    assert.equal(fs.readFileSync(path.join(L.root, 'skills', 'x.txt'), 'utf8'), 'first');
  });

  test('(a) with a racing toggler: every proxied write_file is refused with the sentence or lands in the real root', async t => {
    const before = files(L.data);
    const { policy, routes } = diagnose(L.root, { write: true });
    // the run holds its root from its start, checked as BatchRunner checks it; then the toggling begins
    const pins = await pinRoots([L.root], { check: refuseData(L.data), sandboxUser: sandboxUser() });
    const tg = await toggler(L.root, L.data);
    let toggles = 0;
    const outcomes = { written: 0, refused: 0 };
    try {
      // a worker start that meets the swapped name is refused (the sentence): tried again until one starts
      let started = null;
      for (let tries = 0; !started && tries < 200; tries++) {
        started = await startHost({ policy, routes, pins: async () => pins }).catch(err => {
          assert.match(err.message, NOT_STARTED);
          return null;
        });
      }
      assert.ok(started, 'a worker started');
      await (async host => {
        for (let i = 0; i < 60; i++) {
          const r = await host.call('write_file', { path: `skills/race-${i}.txt`, content: `race ${i}` });
          if (r.ok) {
            outcomes.written += 1;
            continue;
          }
          assert.equal(r.decision, 'denied', JSON.stringify(r));
          assert.match(r.detail, SWAPPED, JSON.stringify(r));
          outcomes.refused += 1;
          fs.appendFileSync(path.join(L.base, 'refused'), `${i}\n`);
        }
      })(started.host);
      await started.host.kill('test over');
    } finally {
      toggles = await tg.stop();
      await pins.close();
    }
    assert.ok(toggles > 0, 'the root was toggled');
    t.diagnostic(`${toggles} toggles; ${outcomes.written} writes landed in the real root, ${outcomes.refused} refused with the sentence`);
    assert.deepEqual(files(L.data), before, `the data folder is unchanged (${JSON.stringify(outcomes)})`);
    const refused = new Set((fs.existsSync(path.join(L.base, 'refused')) ? fs.readFileSync(path.join(L.base, 'refused'), 'utf8') : '').split('\n'));
    for (let i = 0; i < 60; i++) {
      if (!refused.has(String(i))) assert.equal(fs.readFileSync(path.join(L.root, 'skills', `race-${i}.txt`), 'utf8'), `race ${i}`);
    }
  });

  test('(b) a worker killed from its own bash and started again on the same held root: refused after a swap, never on the data folder', async t => {
    const { policy, routes } = diagnose(L.root, { shell: true, write: true });
    const pins = await pinRoots([L.root], { check: refuseData(L.data), sandboxUser: sandboxUser() });
    try {
      // the deterministic form: killed, swapped, started again
      const first = await startHost({ policy, routes, pins: async () => pins });
      const k = await first.host.call('bash', { command: 'kill -9 $PPID' }).catch(e => e);
      assert.ok(k instanceof Error || !k.ok, 'the worker died');
      const back = swapOnce(L.root, L.data);
      try {
        await assert.rejects(startHost({ policy, routes, pins: async () => pins }), SWAPPED);
      } finally {
        back();
      }
      // and with a racing toggler: each restart either fails with the sentence or runs on the real root
      const tg = await toggler(L.root, L.data);
      const seen = { ran: 0, refused: 0 };
      try {
        for (let i = 0; i < 12; i++) {
          // restarts some milliseconds apart (a refused start is answered at once)
          await new Promise(r => setTimeout(r, 5 + Math.random() * 10));
          let started;
          try {
            started = await startHost({ policy, routes, pins: async () => pins });
          } catch (err) {
            assert.match(err.message, NOT_STARTED);
            seen.refused += 1;
            continue;
          }
          const r = await started.host.call('bash', { command: 'cat marker.txt; cat secret.txt 2>&1; ls' });
          assert.ok(!callText(r).includes(DATA_SECRET), callText(r));
          assert.match(r.output, new RegExp(REAL_ROOT));
          // the held descriptors never reach the worker: none of its descriptors is a folder
          const pid = started.host.hostPid();
          for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
            const st = fs.statSync(`/proc/${pid}/fd/${fd}`, { throwIfNoEntry: false });
            assert.ok(!st || !st.isDirectory(), `the worker holds a folder on descriptor ${fd}: ${fs.readlinkSync(`/proc/${pid}/fd/${fd}`)}`);
          }
          seen.ran += 1;
          await started.host.call('bash', { command: 'kill -9 $PPID' }).catch(() => undefined);
          await started.host.kill('test over');
        }
      } finally {
        seen.toggles = await tg.stop();
      }
      assert.ok(seen.toggles > 0, 'the root was toggled');
      assert.ok(seen.ran + seen.refused === 12, JSON.stringify(seen));
      t.diagnostic(`restarts: ${seen.ran} ran on the real root, ${seen.refused} refused (${seen.toggles} toggles)`);
    } finally {
      await pins.close();
    }
  });
});

describe('attack 1 against the started backend (root; sandboxes as the sandbox user)', () => {
  let L;
  let server;
  let model;
  let token;
  let agentId;
  const API_KEY = 'sk-pinned-api-key-4e1b9c';
  const as = () => ({ token });

  before(async () => {
    L = layout();
    const dataDir = path.join(L.base, 'backend-data');
    model = await startModel();
    server = await startServer({
      ...modelEnv(model, { NETACLAW_MODEL_API_KEY: API_KEY }),
      ADMIN_TOKEN: '',
      DATA_DIR: dataDir,
      DB_TYPE: 'sqlite',
      DB_PATH: path.join(dataDir, 'netaclaw.sqlite'),
    });
    L.dataDir = dataDir;
    token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    fs.writeFileSync(path.join(dataDir, 'marker.txt'), `${DATA_SECRET}\n`);
    fs.mkdirSync(path.join(dataDir, 'skills'), { recursive: true });
    // as the attack found them: the data folder's files readable by anyone
    for (const f of fs.readdirSync(dataDir)) fs.chmodSync(path.join(dataDir, f), fs.statSync(path.join(dataDir, f)).isDirectory() ? 0o755 : 0o644);
    fs.chmodSync(dataDir, 0o755);
    const r = await call(server, 'POST', '/admin/netaclaw/agent/add', { name: 'pin-probe', toolsets: ['base'] }, as());
    assert.equal(r.status, 200, r.text);
    agentId = r.body.data.id;
  });

  after(async () => {
    if (server) await server.stop();
    if (model) await model.close();
    if (L) L.cleanup();
  });

  /** Nothing of the data folder in a text: the marker, the admin token, the API key, the SQLite file. */
  function assertClean(text, what) {
    for (const secret of [DATA_SECRET, token, API_KEY, 'SQLite format 3']) assert.ok(!text.includes(secret), `${what} shows ${secret}: ${text.slice(0, 2000)}`);
  }

  /** Files the runs wrote into the data folder (none may be there). */
  const strays = () => Object.keys(files(L.dataDir)).filter(f => /^skills\//.test(f) || /race|chat-/.test(f));

  test('(c) many batch starts while the root toggles: none mounts the data folder as its root', async t => {
    // the swapped name held 0–15 ms, the real one 0–60 ms: a batch start takes several lookups' time (a
    // check as the sandbox user among them), all of which must meet the real folder for a start to get through
    const tg = await toggler(L.root, L.dataDir, 15, 60);
    const seen = { refused: 0, failed: 0, ran: 0, starts: 0 };
    try {
      // 25 starts, and on until one of them ran (on a loaded machine most checks meet the swapped name)
      for (let i = 0; i < 25 || (seen.ran === 0 && i < MAX_STARTS); i++) {
        seen.starts = i + 1;
        const calls = [
          { name: 'bash', arguments: { command: 'cat marker.txt; cat admin-token netaclaw.sqlite 2>&1 | head -c 300; ls' } },
          { name: 'write_file', arguments: { path: `skills/batch-${i}.txt`, content: 'batch' } },
        ];
        const r = await call(
          server,
          'POST',
          '/admin/netaclaw/subagent/run',
          { agentId, sessionCwd: L.root, workspaceRoots: [L.root], shellPermitted: true, writePermitted: true, calls },
          as()
        );
        assertClean(r.text, `batch ${i}`);
        if (r.status === 400) {
          // the root led to the data folder when it was checked: refused as the backend's own state, or, when
          // it moved there between that check and the working directory's, as a folder the sandbox cannot write
          // (or, caught mid-rename, as one that is not there)
          assert.match(r.body.error.code, /^(root_contains_backend_state|workdir_unwritable|workdir_unreadable|workdir_missing)$/, r.text);
          seen.refused += 1;
          continue;
        }
        assert.equal(r.status, 200, r.text);
        const b = r.body.data;
        if (b.status === 'failed' && b.calls.length === 0) {
          if (!b.error.startsWith(ROOT_MOVED) && !b.error.startsWith(PATH_MOVED))
            assert.match(
              b.error,
              /^cannot start the worker: (the workspace root "[^"]+" (now leads to another folder|does not exist)|workspace root "[^"]+" is the backend's own data folder)/,
              b.error
            );
          seen.failed += 1;
          continue;
        }
        assert.match(b.calls[0].output ?? '', new RegExp(REAL_ROOT), JSON.stringify(b.calls[0]));
        const w = b.calls[1];
        if (w && !w.ok) assert.match(w.detail ?? w.error, SWAPPED, JSON.stringify(w));
        seen.ran += 1;
      }
    } finally {
      seen.toggles = await tg.stop();
    }
    assert.ok(seen.toggles > 0, 'the root was toggled');
    assert.deepEqual(strays(), [], `nothing written into the data folder (${JSON.stringify(seen)})`);
    assert.ok(seen.ran > 0, JSON.stringify(seen));
    // and once the toggling has stopped, a batch runs on the real root
    const after = await call(
      server,
      'POST',
      '/admin/netaclaw/subagent/run',
      { agentId, sessionCwd: L.root, shellPermitted: true, calls: [{ name: 'bash', arguments: { command: 'cat marker.txt' } }] },
      as()
    );
    assert.equal(after.status, 200, after.text);
    assert.match(after.body.data.calls[0].output, new RegExp(REAL_ROOT));
    t.diagnostic(
      `${seen.starts} batch starts: ${seen.ran} ran on the real root, ${seen.failed} failed with the sentence, ${seen.refused} refused 400 (${seen.toggles} toggles)`
    );
  });

  test("(a) and (b) in a chat: the model's write after the swap and the bash of its restarted worker reach nothing of the data folder", async () => {
    let back = null;
    model.push(
      {
        toolCalls: [
          { id: 'w1', name: 'write_file', arguments: { path: 'skills/chat-1.txt', content: 'one' } },
          { id: 'k1', name: 'bash', arguments: { command: 'kill -9 $PPID' } },
        ],
      },
      () => {
        // the other session swaps the root now, between S's calls
        back = swapOnce(L.root, L.dataDir);
        return {
          toolCalls: [
            { id: 'w2', name: 'write_file', arguments: { path: 'skills/chat-2.txt', content: 'two' } },
            { id: 'b2', name: 'bash', arguments: { command: 'cat marker.txt admin-token; head -c 300 netaclaw.sqlite' } },
          ],
        };
      },
      { content: 'done' }
    );
    let r;
    try {
      r = await chat(server, { agentId, message: 'go', sessionCwd: L.root, workspaceRoots: [L.root], shellPermitted: true, writePermitted: true }, as());
    } finally {
      if (back) back();
    }
    assert.equal(r.status, 200, r.text);
    assertClean(r.text, 'the chat');
    assertClean(JSON.stringify(model.requests.map(q => q.body.messages)), 'what went to the model');
    const calls = r.body.data.toolCalls;
    assert.equal(calls.length, 4, JSON.stringify(calls));
    assert.equal(calls[0].ok, true, JSON.stringify(calls[0]));
    for (const c of calls.slice(2)) {
      assert.equal(c.ok, false, JSON.stringify(c));
      assert.match(callText(c), SWAPPED, JSON.stringify(c));
    }
    assert.deepEqual(strays(), []);
    assert.equal(fs.readFileSync(path.join(L.root, 'skills', 'chat-1.txt'), 'utf8'), 'one');
  });

  test('(a) and (b) in a chat with a racing toggler: writes and restarted workers stay on the real root', async () => {
    const turn = [];
    for (let i = 0; i < 6; i++) {
      turn.push({ id: `w${i}`, name: 'write_file', arguments: { path: `skills/chat-race-${i}.txt`, content: `race ${i}` } });
      turn.push({ id: `b${i}`, name: 'bash', arguments: { command: 'cat marker.txt admin-token 2>&1; head -c 300 netaclaw.sqlite' } });
      turn.push({ id: `k${i}`, name: 'bash', arguments: { command: 'kill -9 $PPID' } });
    }
    model.push({ toolCalls: turn }, { content: 'done' });
    const t = await toggler(L.root, L.dataDir);
    let r;
    try {
      r = await chat(server, { agentId, message: 'race', sessionCwd: L.root, workspaceRoots: [L.root], shellPermitted: true, writePermitted: true }, as());
    } finally {
      assert.ok((await t.stop()) > 0, 'the root was toggled');
    }
    assertClean(r.text, 'the chat');
    assertClean(JSON.stringify(model.requests.map(q => q.body.messages)), 'what went to the model');
    if (r.status === 400) {
      // the turn began while the name led to the data folder: refused as a whole (as the backend's own state,
      // or, when it moved there between that check and the working directory's, as a folder the sandbox
      // cannot write, or, caught mid-rename, as one that is not there)
      assert.match(r.body.error.code, /^(root_contains_backend_state|workdir_unwritable|workdir_unreadable|workdir_missing)$/, r.text);
    } else {
      assert.equal(r.status, 200, r.text);
      for (const c of r.body.data.toolCalls) {
        if (c.name === 'bash' && c.ok) assert.match(c.output, new RegExp(REAL_ROOT), JSON.stringify(c));
      }
    }
    assert.deepEqual(strays(), []);
  });
});

describe('the backend as a non-root user', () => {
  test('the three forms of the swap, run by an unprivileged backend, reach nothing of the data folder', async t => {
    const script = path.join(__dirname, 'fixtures', 'pinned-unprivileged.js');
    const argv = isRoot ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, script] : [process.execPath, script];
    const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/tmp' }, timeout: 300000 });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout);
    assert.notEqual(out.uid, 0);
    assert.ok(out.toggles > 0, 'the root was toggled');
    assert.equal(out.leaks.length, 0, out.leaks.join('\n'));
    assert.deepEqual(out.dataChanged, false);
    assert.match(out.deterministic.write, SWAPPED);
    assert.match(out.deterministic.restart, SWAPPED);
    assert.ok(out.batches.ran > 0, JSON.stringify(out.batches));
    t.diagnostic(
      `uid ${out.uid}: ${out.toggles} toggles; ${out.batches.starts} batch starts: ${out.batches.ran} ran on the real root, ${out.batches.failed} failed to start, ${out.batches.refused} refused`
    );
  });
});
