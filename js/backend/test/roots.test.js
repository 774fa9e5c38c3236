'use strict';
/**
 * Workspace roots as Node's permission model and bwrap take them, and the Node the worker runs on:
 * - the permission flag is the one the running Node accepts (`--permission` from Node 23.5 and 22.13,
 *   `--experimental-permission` before), and the worker runs on the backend's own Node;
 * - nested roots (`/a` and `/a/b`), the same root twice, and a root with a symlink to it work in a batch:
 *   `read_file`, `list_dir` and `bash` in a real worker with every layer on, and over HTTP. Node cannot take
 *   nested or repeated grants (Node 20 denies everything below nested ones and aborts on a repeated one;
 *   Node 24 denies everything below `/a` when `/a/b` comes first), so the grants are collapsed, and bwrap
 *   binds outer roots before inner ones.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { rt, envOf, workspace, withHost, diagnose } = require('./support/runtime');
const { withServer, call } = require('./support/server');
const { sqliteBackend } = require('./support/db');

const { permissionFlag, permissionFlags, collapseGrants } = rt('permissions.js');

describe('the Node the worker runs on', () => {
  test('the permission flag follows the Node version', () => {
    for (const [v, flag] of [
      ['20.20.2', '--experimental-permission'],
      ['22.12.0', '--experimental-permission'],
      ['22.13.0', '--permission'],
      ['23.4.0', '--experimental-permission'],
      ['23.5.0', '--permission'],
      ['24.0.0', '--permission'],
      ['24.22.3', '--permission'],
      ['25.1.0', '--permission'],
    ]) {
      assert.equal(permissionFlag(v), flag, v);
    }
  });

  test('the running Node accepts the flag chosen for it, and refuses the other one', () => {
    const chosen = permissionFlag();
    const other = chosen === '--permission' ? '--experimental-permission' : '--permission';
    const ok = spawnSync(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', chosen, '-e', 'process.exit(process.permission.has("fs.read", "/etc/passwd") ? 4 : 0)'],
      { encoding: 'utf8' }
    );
    assert.equal(ok.status, 0, `${process.version} ${chosen}: ${ok.stderr}`);
    const bad = spawnSync(process.execPath, [other, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    assert.notEqual(bad.status, 0, `${process.version} accepted ${other} too`);
    assert.match(bad.stderr, /bad option/);
  });

  test("a worker runs on the backend's own Node, under its permission model", async () => {
    const ws = workspace();
    try {
      const d = diagnose(ws.root);
      await withHost({ policy: d.policy, routes: d.routes }, async host => {
        const r = await host.call('read_file', { path: 'a.txt' });
        assert.equal(r.ok, true, r.error);
        // the worker's own process (inside its sandbox, below bwrap)
        const pid = host.hostPid();
        assert.equal(fs.readlinkSync(`/proc/${pid}/exe`), fs.realpathSync(process.execPath));
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        assert.ok(cmdline.includes(permissionFlag()), cmdline.join(' '));
        const denied = await host.call('read_file', { path: ws.secret });
        assert.equal(denied.decision, 'denied');
      });
    } finally {
      ws.cleanup();
    }
  });
});

describe('nested, repeated and symlinked roots', () => {
  let ws;
  let inner;
  let link;
  before(() => {
    ws = workspace();
    inner = path.join(ws.root, 'sub');
    link = path.join(ws.base, 'link');
    fs.symlinkSync(ws.root, link);
  });
  after(() => ws.cleanup());

  test('grants are collapsed: each path once, none inside another, outermost first', () => {
    assert.deepEqual(collapseGrants(['/a/b', '/a', '/a', '/ab', '/a/b/c', '/x/']), ['/a', '/x', '/ab']);
    const flags = permissionFlags({ workspaceRoots: [inner, ws.root, ws.root, link], allowShell: true, readonly: false });
    const reads = flags.filter(f => f.startsWith('--allow-fs-read=')).map(f => f.slice('--allow-fs-read='.length));
    const writes = flags.filter(f => f.startsWith('--allow-fs-write=')).map(f => f.slice('--allow-fs-write='.length));
    assert.equal(new Set(reads).size, reads.length, 'no path granted twice');
    for (const a of reads) for (const b of reads) assert.ok(a === b || !a.startsWith(b + '/'), `${a} is inside ${b}`);
    assert.deepEqual(
      writes,
      [ws.root, link].sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
    );
    assert.ok(reads.includes(ws.root) && reads.includes(link) && !reads.includes(inner));
  });

  test('bwrap binds each root once, outer roots before inner ones', () => {
    const { bwrapArgs } = rt('sandbox.js');
    const args = bwrapArgs({ roots: [inner, ws.root, inner, link], readonly: true, cwd: inner, system: [] });
    const binds = [];
    for (let i = 0; i < args.length; i++) if (args[i] === '--ro-bind') binds.push(args[i + 1]);
    assert.deepEqual(binds.slice(0, 2).sort(), [link, ws.root].sort());
    assert.deepEqual(binds.slice(2), [inner]);
  });

  for (const [label, roots] of [
    ['an outer and an inner root', () => [ws.root, inner]],
    ['an inner root first, then its outer one', () => [inner, ws.root]],
    ['the same root twice', () => [ws.root, ws.root]],
    ['a root and a symlink to it', () => [ws.root, link]],
  ]) {
    test(`${label}: read_file, list_dir and bash work in a worker with every layer on`, async () => {
      const given = roots();
      const d = diagnose(given[0], { shell: true, write: true, roots: given });
      assert.ok(d.policy.workspaceRoots.length >= 1);
      await withHost({ policy: d.policy, routes: d.routes }, async host => {
        const first = given[0];
        const rel = first === inner ? '' : 'sub/';
        const read = await host.call('read_file', { path: `${rel}b.md` });
        assert.equal(read.ok, true, `${read.reason} ${read.detail} ${read.error}`);
        assert.match(read.output, /beta in markdown/);
        const outerFile = await host.call('read_file', { path: path.join(ws.root, 'a.txt') });
        assert.equal(outerFile.ok, true, `${outerFile.reason} ${outerFile.detail} ${outerFile.error}`);
        const list = await host.call('list_dir', { path: inner });
        assert.equal(list.ok, true, `${list.reason} ${list.detail} ${list.error}`);
        assert.match(list.output, /b\.md/);
        const sh = await host.call('bash', {
          command: `cat ${path.join(ws.root, 'a.txt')} ${path.join(inner, 'b.md')} && echo made > ${path.join(inner, 'made.txt')} && ls ${inner}`,
        });
        assert.equal(sh.ok, true, `${sh.reason} ${sh.detail} ${sh.error} ${sh.output}`);
        assert.match(sh.output, /alpha/);
        assert.match(sh.output, /beta in markdown/);
        assert.match(sh.output, /made\.txt/);
        assert.equal(fs.readFileSync(path.join(inner, 'made.txt'), 'utf8'), 'made\n');
        fs.rmSync(path.join(inner, 'made.txt'));
        // the roots still hold: outside them nothing is read
        const out = await host.call('read_file', { path: ws.secret });
        assert.equal(out.decision, 'denied');
        assert.equal(out.reason, 'path_outside_workspace');
      });
    });
  }

  test("two roots whose names begin alike (/w/proj, /w/proj-old) are refused at start: Node's model would lock the folder itself", async () => {
    const proj = path.join(ws.base, 'proj');
    const old = path.join(ws.base, 'proj-old');
    fs.mkdirSync(proj);
    fs.mkdirSync(old);
    try {
      const { WorkerHost } = rt('host.js');
      const host = new WorkerHost({
        batchId: 1,
        agentId: 1,
        policy: { workspaceRoots: [proj, old], allowShell: false, readonly: true },
        routes: [],
        driver: 'calls',
        timeoutMs: 5000,
        env: envOf('off'),
        ops: {},
        services: {},
      });
      await assert.rejects(host.start(), /"[^"]*\/proj" and "[^"]*\/proj-old" cannot both be granted/);
      assert.equal(host.status.status, 'failed');
      // what Node does with them: the folder itself is unreadable, its contents are not
      const probe = spawnSync(
        process.execPath,
        [
          permissionFlag(),
          `--allow-fs-read=${proj}`,
          `--allow-fs-read=${old}`,
          '-e',
          `const fs = require('fs'); try { fs.readdirSync(${JSON.stringify(proj)}); console.log('listed') } catch (e) { console.log(e.code) }`,
        ],
        { encoding: 'utf8' }
      );
      assert.match(probe.stdout, /ERR_ACCESS_DENIED/, 'if Node lists it now, the refusal can go');
    } finally {
      fs.rmSync(proj, { recursive: true });
      fs.rmSync(old, { recursive: true });
    }
  });

  test('over HTTP: a batch with nested roots runs read_file, list_dir and bash', async () => {
    const sqlite = sqliteBackend();
    try {
      const db = await sqlite.fresh();
      await withServer(db.env, async s => {
        const a = await call(s, 'POST', '/admin/netaclaw/agent/add', { name: 'nested', toolsets: ['base'] });
        assert.equal(a.status, 200, a.text);
        const r = await call(s, 'POST', '/admin/netaclaw/subagent/run', {
          agentId: a.body.data.id,
          sessionCwd: ws.root,
          workspaceRoots: [ws.root, inner, ws.root, link],
          shellPermitted: true,
          calls: [
            { name: 'read_file', arguments: { path: 'sub/b.md' } },
            { name: 'list_dir', arguments: { path: inner } },
            { name: 'bash', arguments: { command: 'cat a.txt sub/b.md' } },
          ],
        });
        assert.equal(r.status, 200, r.text);
        const b = r.body.data;
        assert.equal(b.status, 'completed', b.error);
        for (const c of b.calls) assert.equal(c.ok, true, `${c.name}: ${c.reason} ${c.detail} ${c.error}`);
        assert.match(b.calls[0].output, /beta in markdown/);
        assert.match(b.calls[1].output, /b\.md/);
        assert.match(b.calls[2].output, /alpha[\s\S]*beta in markdown/);
      });
    } finally {
      await sqlite.stop();
    }
  });
});

describe('denial details name no path outside the roots', () => {
  let ws;
  before(() => {
    ws = workspace();
    fs.symlinkSync(process.execPath, path.join(ws.root, 'nodebin'));
  });
  after(() => ws.cleanup());
  const hidden = () => [ws.outside, fs.realpathSync(process.execPath), path.dirname(fs.realpathSync(process.execPath))];
  const assertHides = (text, label) => {
    for (const where of hidden()) assert.ok(!text.includes(where), `${label} names ${where}: ${text}`);
  };

  test('the host symlink check names the path as given, not where it leads', async () => {
    const { checkRealPaths } = rt('realpath.js');
    for (const rel of ['esc', 'escdir', 'escdir/secret.txt', 'nodebin', 'escdir/new/file.txt']) {
      const d = await checkRealPaths([{ argument: 'path', path: path.join(ws.root, rel), write: false }], [ws.root]);
      assert.equal(d.reason, 'path_outside_workspace', rel);
      assert.equal(d.detail, `path: ${path.join(ws.root, rel)} leads outside every workspace root (through a symlink)`);
      assertHides(d.detail, rel);
    }
  });

  test("the operations' check of the opened object, and an error opening a symlink's target, name the path as given", async () => {
    const { confinement, openInside, OutsideRootsError } = rt('operations/confined.js');
    const c = await confinement([ws.root]);
    for (const rel of ['esc', 'escdir', 'nodebin']) {
      const p = path.join(ws.root, rel);
      await assert.rejects(openInside(p, c, fs.constants.O_RDONLY), err => {
        assert.ok(err instanceof OutsideRootsError, `${rel}: ${err}`);
        assert.equal(err.message, `${p} led outside every workspace root when it was opened`);
        assertHides(err.message, rel);
        return true;
      });
    }
    // opening the target fails (a folder opened for writing): Node's message would name the target
    const p = path.join(ws.root, 'escdir');
    await assert.rejects(openInside(p, c, fs.constants.O_WRONLY), err => {
      assert.equal(err.code, 'EISDIR');
      assert.equal(err.message, `EISDIR: cannot open ${p} (a symlink)`);
      assertHides(err.message, 'escdir for writing');
      return true;
    });
  });

  test('calls through symlinks to the Node binary and outside, in a worker, answer no such path', async () => {
    const d = diagnose(ws.root, { shell: true });
    await withHost({ policy: d.policy, routes: d.routes }, async host => {
      for (const p of ['nodebin', 'esc', 'escdir/secret.txt']) {
        for (const name of ['read_file', 'list_dir', 'grep']) {
          const r = await host.call(name, name === 'grep' ? { pattern: 'x', path: p } : { path: p });
          assert.equal(r.decision, 'denied', `${name} ${p}`);
          assertHides([r.output, r.error, r.detail].join('\n'), `${name} ${p}`);
        }
      }
    });
  });
});
