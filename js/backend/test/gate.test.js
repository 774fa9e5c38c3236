'use strict';
/**
 * The gate (L1) and the main process's second decision (L4) with the package's real policy and routes,
 * each with the other layers switched off; the main agent's own calls.
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { rt, sandboxOf, mainTools, workspace, operations, services, withHost, diagnose, FIXTURE_WORKER } = require('./support/runtime');

describe('L1 alone: the gate (symlink check, process permissions and sandbox off)', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());
  const l1 = { hostCheck: false, permission: false };

  test('absolute and .. paths, write under readonly, shell, unselected and unknown tools, bad arguments: denied', async () => {
    const { policy, routes } = diagnose(ws.root);
    await withHost({ shell: 'off', policy, routes, test: l1 }, async host => {
      const ok = await host.call('read_file', { path: 'a.txt' });
      assert.equal(ok.decision, 'worker-local');
      assert.equal(ok.ok, true, ok.error);
      const expect = async (name, args, reason) => {
        const r = await host.call(name, args);
        assert.equal(r.decision, 'denied', `${name} ${JSON.stringify(args)}`);
        assert.equal(r.reason, reason, `${name} ${JSON.stringify(args)}`);
        assert.ok(!String(r.output ?? '').includes('TOP-SECRET'));
        return r;
      };
      await expect('read_file', { path: ws.secret }, 'path_outside_workspace');
      await expect('read_file', { path: '../outside/secret.txt' }, 'path_outside_workspace');
      await expect('grep', { pattern: 'x', path: '/etc' }, 'path_outside_workspace');
      await expect('write_file', { path: 'w.txt', content: 'x' }, 'write_blocked_by_readonly_policy');
      await expect('bash', { command: 'echo hi > shell.txt' }, 'shell_disabled_by_policy');
      await expect('memory_save', { content: 'x' }, 'toolset_not_selected');
      await expect('no_such_tool', {}, 'not_selected_for_subagent');
      await expect('read_file', { path: 'a.txt', extra: true }, 'invalid_tool_arguments');
      await expect('read_file', {}, 'invalid_tool_arguments');
      assert.ok(!fs.existsSync(path.join(ws.root, 'w.txt')));
      assert.ok(!fs.existsSync(path.join(ws.root, 'shell.txt')));
    });
  });

  test('a symlink escape is NOT seen by L1 (the package is pure): the symlink check stops it', async () => {
    const { policy, routes } = diagnose(ws.root);
    await withHost({ shell: 'off', policy, routes, test: l1 }, async host => {
      const r = await host.call('read_file', { path: 'esc' });
      assert.equal(r.decision, 'worker-local');
      assert.match(r.output, /TOP-SECRET/);
    });
    await withHost({ shell: 'off', policy, routes, test: { permission: false } }, async host => {
      const r = await host.call('read_file', { path: 'esc' });
      assert.equal(r.decision, 'denied');
      assert.equal(r.reason, 'path_outside_workspace');
    });
  });

  test('the real worker sends main-process-proxy calls to the main process, which runs them', async () => {
    const { policy, routes } = diagnose(ws.root, { write: true });
    const svc = services();
    await withHost({ shell: 'off', policy, routes, svc }, async (host, events) => {
      const r = await host.call('write_file', { path: 'proxied.txt', content: 'via the main process' });
      assert.equal(r.decision, 'main-process-proxy');
      assert.equal(r.ok, true, r.error);
      assert.equal(fs.readFileSync(path.join(ws.root, 'proxied.txt'), 'utf8'), 'via the main process');
      assert.deepEqual(
        events.filter(e => e.type === 'proxy').map(e => [e.name, e.decision]),
        [['write_file', 'main-process-proxy']]
      );
      const t = await host.call('todo', { items: [{ text: 'one' }] });
      assert.equal(t.ok, true);
      assert.deepEqual(svc.todoItems, [{ text: 'one', done: false }]);
    });
    fs.rmSync(path.join(ws.root, 'proxied.txt'));
  });
});

describe('L4: the main process decides every proxy request again', () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());
  // the fixture sends the next call back as a proxy request, whatever the routes say, with the arguments
  // the main process sent (a request with other arguments fails the batch: confine.test.js)
  const forged = async (host, name, args) => {
    assert.equal((await host.call('x', { act: 'arm', plan: {} })).output, 'armed');
    return host.call(name, args);
  };

  test('forged requests the routes do not make main-process-proxy are denied and reported', async () => {
    const { policy, routes } = diagnose(ws.root);
    await withHost({ policy, routes, test: { workerModule: FIXTURE_WORKER } }, async (host, events) => {
      const cases = [
        ['write_file', { path: 'x.txt', content: 'y' }, 'write_blocked_by_readonly_policy'],
        ['bash', { command: 'touch pwned' }, 'shell_disabled_by_policy'],
        ['memory_save', { content: 'x' }, 'toolset_not_selected'],
        ['no_such_tool', {}, 'not_selected_for_subagent'],
      ];
      for (const [name, args, reason] of cases) {
        const r = await forged(host, name, args);
        assert.equal(r.decision, 'denied', name);
        assert.equal(r.reason, reason, name);
      }
      // a worker-local tool is not run by the main process for a worker
      const local = await forged(host, 'read_file', { path: 'a.txt' });
      assert.equal(local.decision, 'denied');
      assert.match(local.detail, /not main-process-proxy/);
      const denied = events.filter(e => e.type === 'proxy-denied').map(e => e.record.name);
      assert.deepEqual(denied, ['write_file', 'bash', 'memory_save', 'no_such_tool', 'read_file']);
      assert.ok(!fs.existsSync(path.join(ws.root, 'x.txt')));
      assert.ok(!fs.existsSync(path.join(ws.root, 'pwned')));
    });
  });

  test('with write permitted: paths outside the roots (absolute, .., symlink) are denied; a fair request runs', async () => {
    const { policy, routes } = diagnose(ws.root, { write: true });
    await withHost({ policy, routes, test: { workerModule: FIXTURE_WORKER } }, async host => {
      for (const p of [path.join(ws.outside, 'abs.txt'), '../outside/dots.txt', 'escdir/link.txt', 'esc']) {
        const r = await forged(host, 'write_file', { path: p, content: 'pwned' });
        assert.equal(r.decision, 'denied', p);
        assert.equal(r.reason, 'path_outside_workspace', p);
      }
      assert.deepEqual(fs.readdirSync(ws.outside), ['secret.txt']);
      assert.equal(fs.readFileSync(ws.secret, 'utf8'), 'TOP-SECRET\n');
      const fair = await forged(host, 'write_file', { path: 'fair.txt', content: 'ok' });
      assert.equal(fair.decision, 'main-process-proxy', 'control: a request the routes allow runs');
      assert.equal(fair.ok, true, fair.error);
      assert.equal(fs.readFileSync(path.join(ws.root, 'fair.txt'), 'utf8'), 'ok');
    });
  });
});

describe("the main process's runner (what runs a proxied call): every route it is given runs there", () => {
  let ws;
  before(() => (ws = workspace()));
  after(() => ws.cleanup());
  test('gate, symlink check and main-process tools, bash in the sandbox', async () => {
    const { runHere } = rt('runner.js');
    const { policy, routes } = diagnose(ws.root, { shell: true, write: true });
    const ctx = { policy, routes, ops: operations('bwrap'), sandbox: sandboxOf('bwrap'), tools: mainTools(), agentId: 1, services: services() };
    const read = await runHere(ctx, 'any', 'read_file', { path: 'a.txt' });
    assert.equal(read.outcome.decision, 'worker-local');
    assert.equal(read.outcome.ok, true);
    const write = await runHere(ctx, 'any', 'write_file', { path: 'main.txt', content: 'm' });
    assert.equal(write.outcome.decision, 'main-process-proxy');
    assert.equal(write.outcome.ok, true);
    const sh = await runHere(ctx, 'any', 'bash', { command: `cat ${ws.secret}` });
    assert.equal(sh.outcome.ok, false, 'bash of the main agent runs in the sandbox too');
    const esc = await runHere(ctx, 'any', 'read_file', { path: 'esc' });
    assert.equal(esc.outcome.reason, 'path_outside_workspace');
  });
});

describe('the gate prepares one checker per policy and routes', () => {
  const pkg = require('@netaclaw/tool-policy');
  const { checkCall } = rt('gate.js');

  test("the tools' manifest flags are the catalog's in force, read again when it is replaced (an MCP refresh)", () => {
    const { requiresShell } = rt('gate.js');
    const { setActiveCatalog, activeCatalog } = rt('../wire/policy.js');
    const before = activeCatalog();
    const probe = { name: 'probe_shell', toolset: 'probe', kind: 'custom', workerRoutingHint: 'main-process-proxy', requiresShell: true };
    try {
      setActiveCatalog(pkg.builtinCatalog());
      assert.equal(requiresShell('bash'), true);
      assert.equal(requiresShell('probe_shell'), false);
      setActiveCatalog([...pkg.builtinCatalog(), probe]);
      assert.equal(requiresShell('probe_shell'), true, 'read from the new catalog');
      setActiveCatalog(pkg.builtinCatalog());
      assert.equal(requiresShell('probe_shell'), false, 'gone with it');
    } finally {
      setActiveCatalog(before);
    }
  });

  test("its answers are checkToolCall's, call by call", () => {
    const { policy, routes } = diagnose('/srv/gate', { shell: true, write: false });
    const calls = [
      ['read_file', { path: 'a/../b.txt' }],
      ['read_file', { path: '/etc/passwd' }],
      ['write_file', { path: 'x', content: 'y' }],
      ['bash', { command: 'ls' }],
      ['grep', { pattern: 'x' }],
      ['todo', { items: [{ text: 'a', done: 'no' }] }],
      ['no_such_tool', {}],
      ['read_file', undefined],
      ['read_file', 'not an object'],
    ];
    for (const [name, args] of calls) {
      const expected = pkg.checkToolCall({ policy, routes, call: { name, arguments: args === undefined ? null : args } });
      const r = checkCall({ policy, routes, name, arguments: args });
      assert.equal(
        JSON.stringify(r),
        JSON.stringify({ decision: expected.decision, reason: expected.reason, paths: expected.paths, detail: expected.detail }),
        name
      );
    }
  });

  test('checkCallText decides the text it is given, as checkCall decides the arguments that print it', () => {
    const { checkCallText } = rt('gate.js');
    const { policy, routes } = diagnose('/srv/gate', { shell: true, write: false });
    for (const [name, args] of [
      ['read_file', { path: 'a/../b.txt' }],
      ['read_file', { path: '/etc/passwd' }],
      ['bash', { command: 'ls' }],
      ['nope', {}],
      ['read_file', null],
    ]) {
      const { arguments: read, ...decided } = checkCallText({ policy, routes, name }, JSON.stringify(args));
      assert.equal(JSON.stringify(decided), JSON.stringify(checkCall({ policy, routes, name, arguments: args })), name);
      // with the arguments the package read from the text: what runs is what was decided
      assert.deepEqual(read, args, name);
    }
    // text a model sends for a call without arguments reads as {}; text that is not JSON has no arguments
    assert.deepEqual(checkCallText({ policy, routes, name: 'list_dir' }, '').arguments, {});
    assert.deepEqual(checkCallText({ policy, routes, name: 'list_dir' }, ' \n').arguments, {});
    assert.equal('arguments' in checkCallText({ policy, routes, name: 'list_dir' }, '{"path":'), false);
    // The model's own text, spelled its way, is read as it is.
    const r = checkCallText({ policy, routes, name: 'read_file' }, '{ "path" : "../../etc/x" }');
    assert.deepEqual([r.decision, r.reason], ['denied', 'path_outside_workspace']);
    assert.equal(checkCallText({ policy, routes, name: 'read_file' }, '{').reason, 'invalid_tool_arguments');
  });

  test('arguments JSON cannot print are answered as the package answers them', () => {
    const { policy, routes } = diagnose('/srv/gate', { shell: true, write: false });
    const cyclic = {};
    cyclic.self = cyclic;
    for (const args of [{ path: 1n }, cyclic]) {
      assert.throws(
        () => checkCall({ policy, routes, name: 'read_file', arguments: args }),
        e => e.code === 'invalid_input'
      );
    }
    // A function is no JSON value: the arguments read as absent, as checkToolCall reads them.
    const r = checkCall({ policy, routes, name: 'read_file', arguments: () => ({ path: 'a' }) });
    const expected = pkg.checkToolCall({ policy, routes, call: { name: 'read_file', arguments: () => ({ path: 'a' }) } });
    assert.deepEqual([r.decision, r.reason, r.detail], [expected.decision, expected.reason, expected.detail]);
    assert.equal(r.detail, 'arguments: expected an object, got null');
  });

  test('a checker is built once per routes list and policy, and again for new ones', () => {
    const Original = pkg.ToolCallChecker;
    let built = 0;
    pkg.ToolCallChecker = class extends Original {
      constructor(options) {
        super(options);
        built++;
      }
    };
    try {
      const { policy, routes } = diagnose('/srv/gate');
      for (let i = 0; i < 50; i++)
        assert.equal(checkCall({ policy, routes, name: 'read_file', arguments: { path: `f${i}` } }).paths[0].path, `/srv/gate/f${i}`);
      assert.equal(built, 1);
      const other = diagnose('/srv/other');
      assert.equal(checkCall({ policy: other.policy, routes, name: 'read_file', arguments: { path: 'f' } }).paths[0].path, '/srv/other/f');
      assert.equal(built, 2);
      // The same policy with an equal copy of the routes: found by their text, no new checker.
      assert.equal(checkCall({ policy: other.policy, routes: other.routes, name: 'read_file', arguments: { path: 'f' } }).decision, 'worker-local');
      assert.equal(built, 2);
      const shell = diagnose('/srv/other', { shell: true });
      assert.notEqual(JSON.stringify(shell.routes), JSON.stringify(routes));
      assert.equal(checkCall({ policy: shell.policy, routes: shell.routes, name: 'bash', arguments: { command: 'ls' } }).decision, 'worker-local');
      assert.equal(built, 3);
      assert.equal(checkCall({ policy: other.policy, routes, name: 'read_file', arguments: { path: 'g' } }).paths[0].path, '/srv/other/g');
      assert.equal(built, 3);
      // A fresh copy of the same policy and routes on every call (the main agent's calls) finds its checker.
      for (let i = 0; i < 5; i++) {
        const r = checkCall({ policy: structuredClone(policy), routes: structuredClone(routes), name: 'read_file', arguments: { path: 'h' } });
        assert.equal(r.paths[0].path, '/srv/gate/h');
      }
      assert.equal(built, 3);
      // A copy that differs is a new checker.
      const readonly = { ...structuredClone(policy), readonly: !policy.readonly };
      checkCall({ policy: readonly, routes: structuredClone(routes), name: 'read_file', arguments: { path: 'h' } });
      assert.equal(built, 4);
    } finally {
      pkg.ToolCallChecker = Original;
    }
  });

  test('a malformed policy or routes list throws invalid_input and is not kept', () => {
    const { policy, routes } = diagnose('/srv/gate');
    const bad = { ...policy, workspaceRoots: 'not a list' };
    for (let i = 0; i < 2; i++) {
      assert.throws(
        () => checkCall({ policy: bad, routes, name: 'read_file', arguments: { path: 'a' } }),
        e => e.code === 'invalid_input'
      );
    }
    assert.throws(
      () => checkCall({ policy, routes: [{ name: 'ghost', status: 'worker-local', reasons: [] }], name: 'read_file', arguments: {} }),
      e => e.code === 'invalid_input'
    );
    assert.equal(checkCall({ policy, routes, name: 'read_file', arguments: { path: 'a' } }).decision, 'worker-local');
  });
});
