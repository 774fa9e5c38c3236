'use strict';
/**
 * Hostile tool arguments (property test, fast-check): every builtin tool the runtime implements gets
 * random and adversarial arguments through the real runner path — gate → host symlink check →
 * implementation — in a real worker (worker-local tools run there, the others are proxied to the main
 * process, which decides them again) and through the main process's own runner (what runs a proxied call), while a second
 * process swaps a folder of the root for a symlink to outside and back. Paths with `..`, symlinks, absolute
 * paths, `\`, NUL bytes, very long paths, Unicode look-alikes, `/proc/self/root`, `/dev/*`; diffs naming
 * outside files; skills that are not bound; shell commands reaching out. After every case: the sibling
 * folder (with a secret file) and an unbound skill's folder are unchanged, the secret's content is in no
 * answer, and the worker is still serving. Seed and count: HOSTILE_SEED, HOSTILE_RUNS (the soak script runs
 * many more, scripts/soak-runtime.sh).
 */
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const fc = require('fast-check');
const { rt, sandboxOf, mainTools, workspace, operations, services, startHost, snapshot, diagnose, callText } = require('./support/runtime');

const SEED = Number(process.env.HOSTILE_SEED ?? 20240611);
const RUNS = Number(process.env.HOSTILE_RUNS ?? 200);
const SWAPPER = path.resolve(__dirname, 'fixtures', 'swapper.js');

/** The builtins the runtime implements (delegate_* belong to the executor). */
const TOOLS = [
  'read_file',
  'list_dir',
  'find_files',
  'grep',
  'bash',
  'write_file',
  'edit',
  'patch',
  'todo',
  'clarify',
  'escalate',
  'memory_save',
  'memory_recall',
  'read_skill',
  'read_skill_file',
  'execute_skill',
  'skill_manage',
];

function setup() {
  const ws = workspace();
  const secret = `TOP-SECRET-${crypto.randomBytes(8).toString('hex')}`;
  fs.writeFileSync(ws.secret, `${secret}\n`);
  fs.writeFileSync(path.join(ws.outside, 'victim.txt'), 'x\ny\n');
  fs.mkdirSync(path.join(ws.outside, 'sub'));
  fs.writeFileSync(path.join(ws.outside, 'sub', 'deep.txt'), `${secret} deep\n`);
  const r = ws.root;
  fs.mkdirSync(path.join(r, 'race'));
  fs.writeFileSync(path.join(r, 'race', 'secret.txt'), 'inside\n');
  fs.writeFileSync(path.join(r, 'x.txt'), 'x\ny\n');
  fs.symlinkSync('loop', path.join(r, 'loop'));
  fs.symlinkSync(path.join(ws.outside, 'missing'), path.join(r, 'dangling'));
  fs.symlinkSync('/proc/self/root', path.join(r, 'procroot'));
  fs.symlinkSync('/dev/zero', path.join(r, 'zero'));
  fs.symlinkSync('sub', path.join(r, 'fine-link'));
  require('node:child_process').execFileSync('mkfifo', [path.join(r, 'fifo')]);
  const skills = path.join(ws.base, 'skills');
  for (const [name, body] of [
    ['hello', '# hello\n'],
    ['foreign', '# not bound\n'],
  ]) {
    fs.mkdirSync(path.join(skills, name), { recursive: true });
    fs.writeFileSync(path.join(skills, name, 'SKILL.md'), body);
    fs.writeFileSync(path.join(skills, name, 'run.sh'), `cat ${ws.secret} ../../outside/secret.txt 2>&1; echo ran > ran-${name}.txt\n`);
  }
  fs.symlinkSync(ws.secret, path.join(skills, 'hello', 'leak'));
  return { ...ws, secretText: secret, skills };
}

/** Paths a hostile model would try, and random ones built from dangerous parts. */
function pathArb(ws) {
  const fixed = fc.constantFrom(
    '..',
    '../..',
    '../outside/secret.txt',
    '../outside',
    'sub/../../outside/secret.txt',
    ws.secret,
    ws.outside,
    `${ws.root}/../outside/secret.txt`,
    `${ws.root}2`,
    `${ws.root}/`,
    '/',
    '/etc/passwd',
    '/etc',
    `/proc/self/root${ws.secret}`,
    '/proc/self/root/etc/passwd',
    '/proc/self/cwd',
    '/proc/self/environ',
    '/proc/1/root',
    '/dev/zero',
    '/dev/stdin',
    '/dev/tty',
    '/dev/null',
    'esc',
    'escdir',
    'escdir/secret.txt',
    'escdir/sub/deep.txt',
    'loop',
    'loop/x',
    'dangling',
    'procroot',
    `procroot${ws.secret}`,
    'zero',
    'fifo',
    'fine-link/b.md',
    'race',
    'race/secret.txt',
    'race/sub/deep.txt',
    'race/new.txt',
    '..\\outside\\secret.txt',
    '..\\..\\',
    'a.txt\u0000../outside/secret.txt',
    '\u0000',
    '／etc／passwd',
    '．．/outside/secret.txt',
    '．．／outside／secret.txt',
    '\u2024\u2024/outside/secret.txt',
    '\u2025/outside',
    '..%2foutside',
    '%2e%2e/outside/secret.txt',
    'a.txt/..',
    './././a.txt',
    'sub//b.md',
    '',
    ' ',
    '~',
    '~/.ssh',
    '$HOME',
    '`cat x`',
    '$(cat ../outside/secret.txt)',
    '*',
    '**',
    'x'.repeat(5000),
    'a/'.repeat(2100) + 'x',
    `${'x'.repeat(255)}1/y`,
    `${'y'.repeat(300)}`,
    '\n',
    'new\nline.txt',
    'C:\\Windows\\win.ini',
    '\\\\server\\share\\x',
    'file:///etc/passwd'
  );
  const part = fc.oneof(
    fc.constantFrom('..', '.', '', 'sub', 'a.txt', 'esc', 'escdir', 'race', 'outside', 'secret.txt', 'new', '\\', '．．', '／', '…', 'procroot', 'loop'),
    fc.string({ maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 4 })
  );
  const prefix = fc.constantFrom('', '', '', '/', `${ws.root}/`, `${ws.outside}/`, `/proc/self/root${ws.root}/`, '../', '/dev/');
  const built = fc.tuple(prefix, fc.array(part, { minLength: 1, maxLength: 6 })).map(([p, parts]) => p + parts.join('/'));
  return fc.oneof({ weight: 3, arbitrary: fixed }, { weight: 2, arbitrary: built }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) });
}

/** Sometimes a value of the wrong type, or an extra key: malformed arguments are data too. */
function maybeWrong(arb) {
  return fc.oneof({ weight: 8, arbitrary: arb }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
}

function diffArb(ws) {
  const p = pathArb(ws);
  return fc.oneof(
    fc.tuple(p, p).map(([a, b]) => `--- a/${a}\n+++ b/${b}\n@@ -1,2 +1,2 @@\n-x\n+pwned\n y\n`),
    p.map(a => `--- /dev/null\n+++ b/${a}\n@@ -0,0 +1 @@\n+created\n`),
    p.map(a => `--- a/${a}\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n`),
    fc.constantFrom(
      `--- ${ws.outside}/victim.txt\n+++ ${ws.outside}/victim.txt\n@@ -1,2 +1,2 @@\n-x\n+pwned\n y\n`,
      `--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n-x\n+ok\n y\n--- a/../outside/victim.txt\n+++ b/../outside/victim.txt\n@@ -1,2 +1,2 @@\n-x\n+pwned\n y\n`,
      `--- a/escdir/victim.txt\n+++ b/escdir/victim.txt\n@@ -1,2 +1,2 @@\n-x\n+pwned\n y\n`,
      `--- a/race/secret.txt\n+++ b/race/secret.txt\n@@ -1 +1 @@\n-inside\n+changed\n`,
      `--- /dev/null\n+++ b/escdir/created.txt\n@@ -0,0 +1 @@\n+created\n`,
      `--- a/esc\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n`,
      'not a diff at all',
      ''
    ),
    fc.string({ maxLength: 200 })
  );
}

function commandArb(ws) {
  const q = s => `'${String(s).replace(/'/g, `'\\''`)}'`;
  return fc.oneof(
    fc.constantFrom(
      `cat ${ws.secret}`,
      'cat ../outside/secret.txt',
      'cat esc',
      'cat escdir/secret.txt',
      `cat /proc/self/root${ws.secret}`,
      `cat /proc/1/root${ws.secret}`,
      'ls -la .. /',
      `echo pwned > ${ws.outside}/pwned.txt`,
      'echo pwned > ../outside/victim.txt',
      'echo pwned > escdir/victim.txt',
      `ln -sf ${ws.outside} made-link && cat made-link/secret.txt`,
      `ln -sf ${ws.secret} made-esc`,
      'cd .. && ls && cat outside/secret.txt',
      'mount -t tmpfs x /tmp 2>&1; ls /',
      'cat /etc/passwd',
      'env',
      'id',
      'find / -name secret.txt 2>/dev/null',
      `grep -r ${'TOP'}-SECRET / 2>/dev/null | head`,
      'exec 3<>/dev/tcp/127.0.0.1/22',
      'unshare -U true',
      'kill -9 -1',
      'echo $((1+1))'
    ),
    pathArb(ws).map(p => `cat -- ${q(p)} 2>&1 | head -c 200`),
    pathArb(ws).map(p => `echo hostile > ${q(p)} 2>&1`)
  );
}

function callArb(ws) {
  const p = pathArb(ws);
  const text = fc.string({ maxLength: 60 });
  const skillName = fc.oneof(fc.constantFrom('hello', 'foreign', '..', '.', '', 'hello/../foreign', '../outside', 'nobody', 'HELLO', 'hello\u0000'), text);
  const shapes = {
    read_file: fc.record({ path: maybeWrong(p), offset: fc.integer({ min: -2, max: 5 }), limit: fc.integer({ min: -1, max: 3 }) }, { requiredKeys: ['path'] }),
    list_dir: fc.record({ path: maybeWrong(p) }, { requiredKeys: [] }),
    find_files: fc.record(
      { pattern: maybeWrong(fc.oneof(fc.constantFrom('**/*', '*', '../**', '/**', '**/../**', '**/secret*', '{..,.}/**'), text)), path: p },
      { requiredKeys: ['pattern'] }
    ),
    grep: fc.record(
      {
        pattern: maybeWrong(fc.oneof(fc.constantFrom('TOP', 'SECRET', '.', '(', 'inside|deep'), text)),
        path: p,
        glob: fc.constantFrom('*', '**/*', '../*', '*.txt'),
      },
      { requiredKeys: ['pattern'] }
    ),
    bash: fc.record({ command: maybeWrong(commandArb(ws)), timeoutMs: fc.constantFrom(2000, 3000) }, { requiredKeys: ['command', 'timeoutMs'] }),
    write_file: fc.record({ path: maybeWrong(p), content: text }),
    edit: fc.record({ path: maybeWrong(p), oldText: fc.constantFrom('x', 'inside', 'TOP', ''), newText: text }),
    patch: fc.record({ patch: maybeWrong(diffArb(ws)) }),
    todo: fc.record({ items: maybeWrong(fc.array(fc.record({ text, done: fc.boolean() }, { requiredKeys: ['text'] }), { maxLength: 3 })) }),
    clarify: fc.record({ question: maybeWrong(text) }),
    escalate: fc.record({ reason: maybeWrong(text) }),
    memory_save: fc.record({ content: maybeWrong(text) }),
    memory_recall: fc.record({ query: maybeWrong(text) }),
    read_skill: fc.record({ name: maybeWrong(skillName) }),
    read_skill_file: fc.record({ name: skillName, path: maybeWrong(fc.oneof(p, fc.constantFrom('leak', 'run.sh', '../foreign/SKILL.md', 'SKILL.md'))) }),
    execute_skill: fc.record(
      { name: skillName, script: fc.oneof(p, fc.constantFrom('run.sh', '../foreign/run.sh', 'leak')), args: fc.array(text, { maxLength: 2 }) },
      { requiredKeys: ['name', 'script'] }
    ),
    skill_manage: fc.record(
      { action: fc.constantFrom('create', 'update', 'delete', 'rename'), name: skillName, content: text },
      { requiredKeys: ['action', 'name'] }
    ),
  };
  const extra = fc.option(fc.dictionary(fc.constantFrom('extra', '__proto__', 'constructor', 'path2'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 1 }), {
    freq: 6,
  });
  return fc
    .constantFrom(...TOOLS)
    .chain(name => fc.tuple(fc.constant(name), shapes[name], extra).map(([n, args, more]) => [n, more ? { ...args, ...more } : args]));
}

describe('hostile tool arguments (property test, fast-check)', () => {
  let ws;
  let host;
  let main;
  let swapper;
  let outsideBefore;
  let foreignBefore;
  const counts = { cases: 0, calls: 0, denied: 0, ok: 0, failed: 0, byTool: {} };

  before(async () => {
    ws = setup();
    outsideBefore = snapshot(ws.outside);
    foreignBefore = snapshot(path.join(ws.skills, 'foreign'));
    const { policy, routes } = diagnose(ws.root, { shell: true, write: true, toolsets: ['base', 'planning', 'memory', 'skills'], memoryEnabled: true });
    const svc = services(ws.skills, ['hello', 'nobody', '..', '']);
    ({ host } = await startHost({ policy, routes, svc, timeoutMs: 600000 }));
    main = { policy, routes, ops: operations('bwrap'), sandbox: sandboxOf('bwrap'), tools: mainTools(), agentId: 1, services: svc };
    const child = spawn(process.execPath, [SWAPPER, path.join(ws.root, 'race'), ws.outside], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise(resolve => child.stdout.once('data', resolve));
    swapper = child;
  });

  after(async () => {
    if (swapper) {
      const exited = new Promise(r => swapper.once('exit', r));
      swapper.kill('SIGTERM');
      await exited;
    }
    if (host) await host.kill('test over');
    ws.cleanup();
  });

  test(`${RUNS} random and adversarial calls (seed ${SEED}), each in a worker and in the main process: nothing outside read or changed`, async t => {
    const { runHere } = rt('runner.js');
    const check = (where, name, args, r) => {
      const text = callText(r);
      assert.ok(!text.includes(ws.secretText), `${where} ${name} ${JSON.stringify(args)} answered the secret: ${text.slice(0, 300)}`);
      counts.calls += 1;
      if (r.decision === 'denied') counts.denied += 1;
      else if (r.ok) counts.ok += 1;
      else counts.failed += 1;
      const c = (counts.byTool[name] ??= { denied: 0, ok: 0, failed: 0 });
      c[r.decision === 'denied' ? 'denied' : r.ok ? 'ok' : 'failed'] += 1;
    };
    await fc.assert(
      fc.asyncProperty(callArb(ws), async ([name, args]) => {
        counts.cases += 1;
        const viaWorker = await host.call(name, args);
        check('worker', name, args, viaWorker);
        assert.equal(host.status, null, `the worker is still serving after ${name} ${JSON.stringify(args)}`);
        const { outcome } = await runHere(main, 'any', name, args);
        check('main', name, args, outcome);
        assert.deepEqual(snapshot(ws.outside), outsideBefore, `outside changed after ${name} ${JSON.stringify(args)}`);
        assert.deepEqual(snapshot(path.join(ws.skills, 'foreign')), foreignBefore, `the unbound skill changed after ${name} ${JSON.stringify(args)}`);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true }
    );
    t.diagnostic(`cases ${counts.cases}, calls ${counts.calls}: ${counts.denied} denied, ${counts.ok} ran ok, ${counts.failed} ran and failed`);
    t.diagnostic(
      `per tool (denied/ok/failed): ${Object.entries(counts.byTool)
        .map(([k, v]) => `${k} ${v.denied}/${v.ok}/${v.failed}`)
        .join(', ')}`
    );
    assert.equal(counts.cases, RUNS);
    assert.ok(Object.keys(counts.byTool).length === TOOLS.length, 'every tool was tried');
    assert.ok(counts.ok > 0 && counts.denied > 0, 'some calls ran, some were denied');
  });
});
