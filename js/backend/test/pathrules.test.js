'use strict';
/**
 * Path rules enforced inside the OS sandbox (runtime/pathrules.ts; docs/runtime.md "Path rules in the
 * sandbox"), tried as the attacks are made: real bwrap, real files in a temp folder, every command in a
 * shell the main process starts and in a worker's bash, and checked on disk that nothing was written
 * (a snapshot of the root — every file's hash, mode and link — before and after, and no `pre-commit`
 * anywhere). Controls: the same command without rules writes the hook, or reads the secret. The rules
 * reach the sandbox through the batch runner too (a batch's and the main agent's bash). Run by the
 * backend as it runs (root, sandboxes as `netaclaw-sandbox`) and by an unprivileged backend
 * (fixtures/pathrules-attacks.js, as `nobody` when the tests run as root).
 */
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { repo, runners, state, hooks, git, ATTACKS, SECRET, KEY, HOOK } = require('./fixtures/pathrules-attacks');

const isRoot = process.getuid() === 0;
const TOGGLER = path.join(__dirname, 'fixtures', 'root-toggler.js');
const LINK_REFUSED =
  /is a symbolic link where the path rule write\(\.git\/hooks\/\*\*\) needs a folder or file the sandbox can keep read-only or hidden.*the sandbox is not started/;

/** The default rules: the package's protected paths (`.git/hooks/**`, `.git/config`), nothing else. */
const DEFAULTS = {};

for (const runner of ['shell', 'worker']) {
  const run = runners[runner];
  describe(`path rules in ${runner === 'shell' ? 'a shell the main process starts' : "a worker's bash"}`, () => {
    test('the protected paths hold against bash, bash -c, a symlink, renamed parents and git config; nothing is written', async () => {
      for (const a of ATTACKS) {
        const r = repo();
        try {
          const before = state(r.root, a.ignore);
          const configBefore = fs.readFileSync(path.join(r.root, '.git', 'config'), 'utf8');
          const res = await run(r.root, DEFAULTS, a.command);
          assert.equal(res.ran, true, `${a.name}: ${res.error}`);
          assert.match(res.output, a.expect, `${a.name}: ${res.output}`);
          assert.equal(res.failed, true, `${a.name}: the command failed`);
          assert.deepEqual(state(r.root, a.ignore), before, `${a.name}: nothing in the root changed`);
          assert.deepEqual(hooks(r.base), [], `${a.name}: no hook anywhere`);
          assert.equal(fs.readFileSync(path.join(r.root, '.git', 'config'), 'utf8'), configBefore);
          assert.doesNotMatch(git(r.root, 'config', '--list'), /hookspath/i);
        } finally {
          r.cleanup();
        }
      }
      // control: without rules the same commands write the hook and the config
      const r = repo();
      try {
        const res = await run(r.root, undefined, `${ATTACKS[0].command} && git config core.hooksPath h`);
        assert.equal(res.ran, true, res.error);
        assert.equal(fs.readFileSync(path.join(r.root, '.git', 'hooks', 'pre-commit'), 'utf8'), `${HOOK}\n`);
        assert.match(git(r.root, 'config', '--list'), /core\.hookspath=h/);
      } finally {
        r.cleanup();
      }
    });

    test('a .git/hooks that is a symlink (out of the root, or into it): the sandbox is not started, nothing is written', async () => {
      for (const inside of [false, true]) {
        const r = repo();
        try {
          const hooksDir = path.join(r.root, '.git', 'hooks');
          fs.rmSync(hooksDir, { recursive: true });
          const target = inside ? path.join(r.root, 'tools', 'hooks') : r.elsewhere;
          fs.mkdirSync(target, { recursive: true });
          require('./support/runtime').giveToSandbox(inside ? path.join(r.root, 'tools') : target);
          fs.symlinkSync(inside ? '../tools/hooks' : target, hooksDir);
          const before = state(r.root);
          const res = await run(r.root, DEFAULTS, `echo '${HOOK}' > .git/hooks/pre-commit`);
          assert.equal(res.ran, false, `not started: ${res.output}`);
          assert.match(res.error, LINK_REFUSED);
          assert.deepEqual(state(r.root), before);
          assert.deepEqual(hooks(r.base), []);
          if (inside) {
            // control: without rules the hook lands where the link leads, and git runs it later on the host
            const control = await run(r.root, undefined, `echo '${HOOK}' > .git/hooks/pre-commit`);
            assert.equal(control.ran, true, control.error);
            assert.deepEqual(hooks(r.base), [path.join(target, 'pre-commit')]);
          }
        } finally {
          r.cleanup();
        }
      }
    });

    test('a hook that is a symlink into the root, and a .env that is a symlink: the sandbox is not started', async () => {
      const r = repo();
      try {
        fs.mkdirSync(path.join(r.root, 'scripts'));
        fs.writeFileSync(path.join(r.root, 'scripts', 'pc'), '#!/bin/sh\n');
        fs.writeFileSync(path.join(r.root, 'secrets', 'env'), `TOKEN=${SECRET}\n`);
        fs.symlinkSync('../../scripts/pc', path.join(r.root, '.git', 'hooks', 'pre-commit'));
        require('./support/runtime').giveToSandbox(r.root);
        const before = state(r.root);
        const hook = await run(r.root, DEFAULTS, `echo '${HOOK}' > scripts/pc`);
        assert.equal(hook.ran, false, hook.output);
        assert.match(hook.error, /pre-commit" is a symbolic link where the path rule write\(\.git\/hooks\/\*\*\) needs/);
        fs.unlinkSync(path.join(r.root, '.git', 'hooks', 'pre-commit'));
        fs.rmSync(path.join(r.root, '.env'));
        fs.symlinkSync('secrets/env', path.join(r.root, '.env'));
        const env = await run(r.root, { agent: { deny: ['read(.env)'] } }, 'cat .env');
        assert.equal(env.ran, false, env.output);
        assert.match(env.error, /\.env" is a symbolic link where the path rule read\(\.env\) needs/);
        for (const k of ['.env', '.git/hooks/pre-commit']) delete before[k];
        assert.deepEqual(state(r.root), { ...before, '.env': 'symlink -> secrets/env' });
        assert.equal(fs.readFileSync(path.join(r.root, 'scripts', 'pc'), 'utf8'), '#!/bin/sh\n');
      } finally {
        r.cleanup();
      }
    });

    test('a root without .git: git init fails in the sandbox, and neither a hook nor the made .git is left', async () => {
      const r = repo({ git: false });
      try {
        const before = state(r.root);
        const res = await run(r.root, DEFAULTS, `git init -q; echo '${HOOK}' > .git/hooks/pre-commit; ls -A .git | wc -l`);
        assert.equal(res.ran, true, res.error);
        assert.match(res.output, /Read-only file system/);
        assert.match(res.output, /^0$/m, 'the .git the sandbox sees is empty');
        assert.deepEqual(state(r.root), before, 'nothing left in the root: no .git');
        assert.ok(!fs.existsSync(path.join(r.root, '.git')));
        // control: without rules the hook is left behind
        const control = await run(r.root, undefined, `git init -q && echo '${HOOK}' > .git/hooks/pre-commit`);
        assert.equal(control.ran, true, control.error);
        assert.deepEqual(hooks(r.base), [path.join(r.root, '.git', 'hooks', 'pre-commit')]);
      } finally {
        r.cleanup();
      }
    });

    test('deny read: .env and a folder of secrets cannot be read by cat in bash', async () => {
      const r = repo();
      try {
        const rules = { agent: { deny: ['read(.env)', 'read(secrets/**)'] } };
        const before = state(r.root);
        const res = await run(r.root, rules, 'cat .env; cat secrets/key; ls -A secrets | wc -l; cat .env > copy.txt; echo end');
        assert.equal(res.ran, true, res.error);
        assert.match(res.output, /cat: \.env: Permission denied/);
        assert.match(res.output, /cat: secrets\/key: No such file or directory/);
        assert.match(res.output, /^0$/m, 'the hidden folder is empty');
        assert.ok(!res.output.includes(SECRET) && !res.output.includes(KEY), res.output);
        // the copy is empty; the secrets are as they were
        assert.equal(fs.readFileSync(path.join(r.root, 'copy.txt'), 'utf8'), '');
        const after = state(r.root, ['copy.txt']);
        assert.deepEqual(after, before);
        // control: without rules the secrets are read
        const control = await run(r.root, undefined, 'cat .env secrets/key');
        assert.ok(control.output.includes(SECRET) && control.output.includes(KEY), control.output);
      } finally {
        r.cleanup();
      }
    });

    test('what must still work: git status, add and commit, reading and writing other files', async () => {
      const r = repo();
      try {
        const res = await run(
          r.root,
          { agent: { deny: ['read(.env)'] } },
          'git status --short && echo hello > notes.txt && mkdir -p src/deep && echo code > src/deep/a.ts && git add notes.txt src && git -c user.name=t -c user.email=t@example.com commit -qm add && git log --format=%s && cat README.md'
        );
        assert.equal(res.ran, true, res.error);
        assert.equal(res.failed, false, res.output);
        assert.match(res.output, /^add\nfirst\nreadme$/m);
        assert.equal(git(r.root, 'log', '--format=%s'), 'add\nfirst\n');
        assert.equal(fs.readFileSync(path.join(r.root, 'notes.txt'), 'utf8'), 'hello\n');
        assert.equal(fs.readFileSync(path.join(r.root, 'src', 'deep', 'a.ts'), 'utf8'), 'code\n');
        assert.equal(git(r.root, 'status', '--short'), '?? .env\n?? secrets/\n');
      } finally {
        r.cleanup();
      }
    });

    test("deny write of the agent and the session: files and globs read-only, folders kept, a named folder's contents writable", async () => {
      const r = repo();
      try {
        for (const [f, text] of [
          ['dist/app.js', 'app'],
          ['pkg/a.lock', 'lock'],
          ['pkg/b.txt', 'b'],
          ['keep/x.txt', 'x'],
          ['abs/f.txt', 'f'],
        ]) {
          fs.mkdirSync(path.dirname(path.join(r.root, f)), { recursive: true });
          fs.writeFileSync(path.join(r.root, f), `${text}\n`);
        }
        require('./support/runtime').giveToSandbox(r.root);
        const rules = {
          agent: { deny: ['write(dist/**)', 'write(**/*.lock)'] },
          session: { deny: ['write(README.md)', 'write(keep)', `write(${r.root}/abs/**)`] },
        };
        const before = state(r.root);
        const res = await run(
          r.root,
          rules,
          'echo x > dist/new.js; echo x >> dist/app.js; echo x >> pkg/a.lock; mv pkg pkg2; rm -rf dist; echo x >> README.md; rm -f README.md; mv keep keep2; rm -rf keep; ' +
            'echo x >> abs/f.txt; mv abs abs2; echo y > pkg/b.txt; echo z > keep/x.txt; echo w > keep/new.txt; echo ok > other.txt'
        );
        assert.equal(res.ran, true, res.error);
        assert.match(res.output, /Read-only file system/);
        assert.match(res.output, /Device or resource busy/);
        const after = state(r.root);
        assert.equal(fs.readFileSync(path.join(r.root, 'pkg', 'b.txt'), 'utf8'), 'y\n');
        assert.equal(fs.readFileSync(path.join(r.root, 'keep', 'x.txt'), 'utf8'), 'z\n');
        assert.equal(fs.readFileSync(path.join(r.root, 'keep', 'new.txt'), 'utf8'), 'w\n');
        assert.equal(fs.readFileSync(path.join(r.root, 'other.txt'), 'utf8'), 'ok\n');
        for (const k of ['pkg/b.txt', 'keep/x.txt', 'keep/new.txt', 'other.txt', 'keep', 'pkg']) {
          delete before[k];
          delete after[k];
        }
        assert.deepEqual(after, before, 'the denied files and folders are as they were');
      } finally {
        r.cleanup();
      }
    });
  });
}

describe('path rules over a whole root, and in a read-only run', () => {
  test('write(**) and an absolute pattern above the root make it read-only; a read-only run still hides what deny read covers', async () => {
    const { rt, sandboxUser, sandboxOf, confinement } = require('./support/runtime');
    const { pinRoots, pinnedOperations } = rt('pinned.js');
    const { ShellProcessOperations } = rt('operations/process.js');
    const r = repo();
    try {
      const before = state(r.root);
      for (const rules of [{ session: { deny: ['write(**)'] } }, { global: { deny: [`write(${path.dirname(r.root)}/**)`] } }]) {
        const res = await runners.shell(r.root, rules, 'echo x > new.txt; echo x >> README.md; mkdir d; git status --short | wc -l');
        assert.equal(res.ran, true, res.error);
        assert.match(
          res.output,
          /new\.txt: Read-only file system[\s\S]*README\.md: Read-only file system[\s\S]*cannot create directory .d.: Read-only file system/,
          res.output
        );
        assert.deepEqual(state(r.root), before, JSON.stringify(rules));
      }
      // a read-only run: nothing of the write rules is made (no mount point), deny read still hides
      const c = confinement();
      const pins = await pinRoots([r.root], c.identity.switchUser ? { sandboxUser: sandboxUser() } : {});
      try {
        const ops = pinnedOperations({ fs: null, search: null, process: new ShellProcessOperations(sandboxOf('bwrap')) }, pins, {
          agent: { deny: ['read(.env)'] },
        });
        const res = await ops.process.exec({ command: 'cat .env; cat README.md', cwd: r.root, roots: [r.root], readonly: true, timeoutMs: 20000 });
        assert.match(res.output, /cat: \.env: Permission denied\nreadme/);
        assert.ok(!res.output.includes(SECRET));
      } finally {
        await pins.close();
      }
      assert.deepEqual(state(r.root), before);
      // an invalid rule: the package's invalid_input, naming it; nothing runs
      const bad = await runners.shell(r.root, { agent: { deny: ['write(../x)'] } }, 'echo ran > ran.txt');
      assert.equal(bad.ran, false);
      assert.match(bad.error, /^rules\.agent\.deny\[0\]: a path pattern has no empty, \. or \.\. segment/);
      assert.deepEqual(state(r.root), before);
    } finally {
      r.cleanup();
    }
  });
});

describe('path rules: bounds and races', () => {
  test('past the walk bound or the mount bound the sandbox is not started, with a sentence; nothing made is left', async () => {
    const { PATH_RULES_WALK_MAX, PATH_RULES_MOUNTS_MAX } = require('./support/runtime').rt('limits.js');
    const r = repo({ git: false });
    try {
      const many = path.join(r.root, 'many');
      fs.mkdirSync(many);
      for (let i = 0; i <= PATH_RULES_WALK_MAX; i++) fs.writeFileSync(path.join(many, `${i}.txt`), '');
      require('./support/runtime').giveToSandbox(r.root);
      let before = state(r.root);
      const walked = await runners.shell(r.root, { agent: { deny: ['read(**/*.secret)'] } }, 'echo ran');
      assert.equal(walked.ran, false, walked.output);
      assert.match(
        walked.error,
        new RegExp(
          `needed more than ${PATH_RULES_WALK_MAX} entries of the workspace roots looked at.*narrow the pattern to a folder.*the sandbox is not started`
        )
      );
      // the defaults made .git (the root has none) and removed it when the sandbox was refused
      assert.deepEqual(state(r.root), before);
      // a pattern with a literal folder walks only that folder
      const narrow = await runners.shell(r.root, { agent: { deny: ['read(secrets/*.secret)'] } }, 'echo ran');
      assert.equal(narrow.ran, true, narrow.error);
      assert.match(narrow.output, /^ran$/m);
      fs.rmSync(many, { recursive: true });
      for (let i = 0; i <= PATH_RULES_MOUNTS_MAX; i++) fs.writeFileSync(path.join(r.root, `${i}.pem`), '');
      require('./support/runtime').giveToSandbox(r.root);
      before = state(r.root);
      const mounted = await runners.shell(r.root, { global: { protectedPaths: [], deny: ['write(*.pem)'] } }, 'echo ran');
      assert.equal(mounted.ran, false, mounted.output);
      assert.match(mounted.error, new RegExp(`need more than ${PATH_RULES_MOUNTS_MAX} mounts in the sandbox`));
      assert.deepEqual(state(r.root), before);
      // one fewer file: it runs, and each of them is read-only
      fs.rmSync(path.join(r.root, '0.pem'));
      const fits = await runners.shell(
        r.root,
        { global: { protectedPaths: [], deny: ['write(*.pem)'] } },
        'echo x > 1.pem; echo x > 256.pem; echo x > new.txt'
      );
      assert.equal(fits.ran, true, fits.error);
      assert.match(fits.output, /1\.pem: Read-only file system[\s\S]*256\.pem: Read-only file system/);
      assert.equal(fs.readFileSync(path.join(r.root, '256.pem'), 'utf8'), '');
      assert.equal(fs.readFileSync(path.join(r.root, 'new.txt'), 'utf8'), 'x\n');
    } finally {
      r.cleanup();
    }
  });

  test('.git/hooks swapped for a symlink out of the root and back every few ms: no hook is ever written', async t => {
    const r = repo();
    try {
      const hooksDir = path.join(r.root, '.git', 'hooks');
      // each state held 0–40 ms: some sandboxes are made while the real folder is there, some meet the link
      const child = spawn(process.execPath, [TOGGLER, hooksDir, r.elsewhere, '40'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', d => (out += d));
      const tally = { refused: 0, failedToStart: 0, writeFailed: 0 };
      try {
        while (!out.includes('toggling')) await new Promise(res => setTimeout(res, 10));
        for (let i = 0; i < 24; i++) {
          const res = await runners[i % 2 === 0 ? 'shell' : 'worker'](
            r.root,
            DEFAULTS,
            `echo '${HOOK}' > .git/hooks/pre-commit; echo '${HOOK}' > .git/hooks.real/pre-commit`
          );
          if (!res.ran) {
            // the plan met the link, or bwrap found the held folder moved while it bound it
            assert.match(
              res.error,
              /(is a symbolic link where the path rule|by another process while the sandbox was being made|changed or could not be opened while the path rules were applied).*the sandbox is not started|or a path its rules keep read-only or hidden, was moved or replaced/,
              res.error
            );
            tally.refused += 1;
          } else if (/^bwrap: /m.test(res.output)) {
            assert.equal(res.failed, true);
            tally.failedToStart += 1;
          } else {
            assert.equal(res.failed, true, res.output);
            tally.writeFailed += 1;
          }
          assert.deepEqual(hooks(r.base), [], JSON.stringify(res));
        }
      } finally {
        const exited = new Promise(res => child.on('exit', res));
        child.kill('SIGTERM');
        await exited;
      }
      assert.ok(fs.lstatSync(hooksDir).isDirectory(), 'the real folder is back at its name');
      assert.deepEqual(hooks(r.base), []);
      assert.deepEqual(fs.readdirSync(r.elsewhere), []);
      t.diagnostic(`${out.match(/toggles \d+/)?.[0] ?? ''}; 24 runs: ${JSON.stringify(tally)}`);
    } finally {
      r.cleanup();
    }
  });
});

describe('path rules through the batch runner (the rules a session gives its batches and its main agent)', () => {
  test("a batch's bash and the main agent's bash: the hook stays unwritten (the default protected paths of every run) and .env unreadable where the agent's rules say so", async () => {
    const { bootInProcess } = require('./support/inprocess');
    const app = await bootInProcess('netaclaw-rules-svc-');
    const r = repo();
    try {
      // words the shell reader does not take for paths (`cp`'s arguments, `cat`'s): the call gate lets the
      // command run, and the sandbox holds the paths it opens
      const command = `cp README.md .git/hooks/pre-commit; cat .env`;
      const ruled = (await app.agents.add({ name: 'ruled', toolsets: ['base', 'planning'], rules: { deny: ['read(.env)'] } })).id;
      const plain = (await app.agents.add({ name: 'plain', toolsets: ['base', 'planning'] })).id;
      const before = state(r.root);
      const spec = agentId => ({ agentId, crewRole: 'sub', driver: 'calls', sessionCwd: r.root, shellPermitted: true, writePermitted: true });
      const h = await app.svc.start(spec(ruled));
      const inBatch = await h.call('bash', { command });
      await h.finish();
      const policy = require('@netaclaw/tool-policy');
      const d = policy.runtimeDiagnostic({ agent: { toolsets: ['base'] }, crewRole: 'master', sessionCwd: r.root, shellPermitted: true, writePermitted: true });
      const main = await app.svc.runMainTool({
        agentId: ruled,
        sessionId: 'rules-1',
        policy: d.policy,
        routes: d.routes,
        name: 'bash',
        args: { command },
        rules: { agent: { deny: ['read(.env)'] } },
      });
      for (const [what, c] of [
        ['batch', inBatch],
        ['main agent', main],
      ]) {
        assert.equal(c.decision, 'worker-local', `${what}: ${c.detail}`);
        assert.match(c.output, /cannot create regular file '\.git\/hooks\/pre-commit': Read-only file system/, `${what}: ${c.output}`);
        assert.match(c.output, /\.env: Permission denied/, `${what}: ${c.output}`);
        assert.ok(!c.output.includes(SECRET), what);
      }
      assert.deepEqual(state(r.root), before);
      assert.deepEqual(hooks(r.base), []);
      // control: an agent without the read rule reads .env; the protected paths hold in its batch too
      const control = await app.svc.start(spec(plain));
      const open = await control.call('bash', { command });
      await control.finish();
      assert.ok(open.output.includes(SECRET), open.output);
      assert.match(open.output, /pre-commit': Read-only file system/, open.output);
      assert.deepEqual(hooks(r.base), []);
      assert.deepEqual(state(r.root), before);
    } finally {
      r.cleanup();
      await app.stop();
    }
  });
});

describe('path rules: the backend as a non-root user', () => {
  test('the attacks, git init and deny read, run by an unprivileged backend', () => {
    const script = path.join(__dirname, 'fixtures', 'pathrules-attacks.js');
    const argv = isRoot ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, script] : [process.execPath, script];
    const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/tmp' }, timeout: 300000 });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout);
    assert.notEqual(out.uid, 0);
    assert.equal(out.cases.length, 2 * (ATTACKS.length + 3));
    for (const c of out.cases) {
      const what = `${c.runner}: ${c.name}: ${JSON.stringify(c.res)}`;
      assert.equal(c.res.ran, true, what);
      if (c.name === 'git still works') {
        assert.equal(c.res.failed, false, what);
        assert.equal(c.log, 'add\nfirst\n');
        assert.equal(c.notes, 'hello\n');
        continue;
      }
      if (c.name === 'cat .env') {
        assert.equal(c.leaked, false, what);
        assert.match(c.res.output, /Permission denied/, what);
        continue;
      }
      assert.deepEqual(c.hooks, [], what);
      if (c.name === 'git init in a root without .git') assert.equal(c.gitLeft, false, what);
      else {
        assert.equal(c.same, true, what);
        assert.match(c.res.output, ATTACKS.find(a => a.name === c.name).expect, what);
      }
    }
  });
});
