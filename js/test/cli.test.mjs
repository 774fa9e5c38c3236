// The tool-policy command: spawned as a user runs it, from the installed package.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const policy = require('@netaclaw/tool-policy');
const packageDir = dirname(require.resolve('@netaclaw/tool-policy/package.json'));
const manifest = require('@netaclaw/tool-policy/package.json');
const CLI = join(packageDir, manifest.bin['tool-policy']);
const JS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const dir = mkdtempSync(join(tmpdir(), 'tool-policy-cli-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function file(name, content) {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function run(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const agent = file('agent.json', { toolsets: ['base', 'planning'], tools: { disabled: ['grep'] }, modelCapability: 'text' });
const batch = file('batch.json', {
  subagentTools: ['bash', 'read_file', 'write_file'],
  sessionCwd: '/srv/app/web',
  shellPermitted: true,
  writePermitted: true,
  parent: { workspaceRoots: ['/srv/app'], allowShell: true, readonly: true },
});
const rows = file('rows.json', [{ name: 'read_file', status: 1, workerRoutingStrategy: 'force-main-process-proxy' }]);
const expectedInput = {
  trace: true,
  governance: JSON.parse(JSON.stringify([{ name: 'read_file', status: 1, workerRoutingStrategy: 'force-main-process-proxy' }])),
  agent: { toolsets: ['base', 'planning'], tools: { disabled: ['grep'] } },
  modelCapability: 'text',
  subagentTools: ['bash', 'read_file', 'write_file'],
  sessionCwd: '/srv/app/web',
  shellPermitted: true,
  writePermitted: true,
  parent: { workspaceRoots: ['/srv/app'], allowShell: true, readonly: true },
};

test('the package declares the command and ships its file', () => {
  assert.equal(manifest.bin['tool-policy'], './bin/tool-policy.cjs');
  assert.ok(manifest.files.includes('bin/tool-policy.cjs'));
});

test('explain prints one row per catalog tool with its reason labels', () => {
  const r = run('explain', '--agent', agent, '--batch', batch, '--governance', rows, '--locale', 'en');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const lines = r.stdout.split('\n');
  assert.match(lines[0], /^TOOL\s+STATUS\s+ROUTE\s+REASONS$/);
  const d = policy.runtimeDiagnostic(expectedInput);
  for (const route of d.routes) {
    const line = lines.find((l) => l.split(/\s+/)[0] === route.name);
    assert.ok(line, `no row for ${route.name}`);
    assert.equal(line.split(/\s+/)[1], route.status, line);
    for (const code of route.reasons) assert.ok(line.includes(`${code} (${policy.label('reasons', code, 'en')})`), line);
  }
  assert.ok(r.stdout.includes('warning: write_not_allowed_by_parent readonly (The parent is readonly, so the child is readonly too)'), r.stdout);
  assert.ok(r.stdout.includes('policy: workspaceRoots /srv/app/web; allowShell true; readonly true'), r.stdout);
  // zh-CN is the default.
  const zh = run('explain', '--agent', agent, '--batch', batch);
  assert.ok(zh.stdout.includes(policy.label('reasons', 'write_blocked_by_readonly_policy')), zh.stdout);
});

test('--tool adds the paragraph and the decision trace of that tool', () => {
  const r = run('explain', '--agent', agent, '--batch', batch, '--locale', 'en', '--tool', 'write_file');
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(policy.explainTool(expectedInput, 'write_file', 'en')), r.stdout);
  const traceAt = r.stdout.indexOf('trace of write_file:');
  assert.ok(traceAt > 0, r.stdout);
  const traceLines = r.stdout.slice(traceAt).trim().split('\n').slice(2);
  const route = policy.runtimeDiagnostic(expectedInput).routes.find((x) => x.name === 'write_file');
  assert.equal(traceLines.length, route.trace.length);
  route.trace.forEach((e, i) => {
    const cells = traceLines[i].split(/\s+/);
    assert.deepEqual(cells.slice(0, 4), [String(i + 1), e.layer, e.outcome, e.source]);
  });
  assert.ok(r.stdout.includes('parent.readonly'), 'the parent is named as what made the worker readonly');
});

test('--json prints the traced diagnostic, byte for byte what runtimeDiagnostic answers', () => {
  const r = run('explain', '--json', '--agent', agent, '--batch', batch, '--governance', rows);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.stringify(JSON.parse(r.stdout)), JSON.stringify(policy.runtimeDiagnostic(expectedInput)));
  // An agent file may also be { agent, modelCapability, … }.
  const wrapped = file('wrapped.json', { agent: { toolsets: ['base', 'planning'], tools: { disabled: ['grep'] } }, modelCapability: 'text' });
  const w = run('explain', '--json', '--agent', wrapped, '--batch', batch, '--governance', rows);
  assert.equal(w.stdout, r.stdout);
});

test('bad files, flags and inputs: one line on stderr and exit code 2', () => {
  const cases = [
    [[], /^tool-policy: missing command/],
    [['check', '--agent', agent], /^tool-policy: unknown command "check"/],
    [['explain'], /^tool-policy: --agent <agent.json> is required/],
    [['explain', '--agent'], /^tool-policy: --agent needs a value/],
    [['explain', '--agent', agent, '--verbose'], /^tool-policy: unknown option --verbose/],
    [['explain', '--agent', join(dir, 'missing.json')], /^tool-policy: cannot read --agent .*missing\.json: ENOENT/],
    [['explain', '--agent', file('broken.json', '{"toolsets": [')], /^tool-policy: --agent .*broken\.json is not valid JSON/],
    [['explain', '--agent', file('list.json', [])], /must hold a JSON object/],
    [['explain', '--agent', agent, '--catalog', file('catalog.json', { name: 'x' })], /--catalog .* must hold a JSON array/],
    [['explain', '--agent', file('bad.json', { toolsets: ['base', 3] })], /^tool-policy: invalid input: agent\.toolsets\[1\]: expected a string, got a number/],
    [['explain', '--agent', agent, '--batch', file('rel.json', { sessionCwd: 'srv' })], /^tool-policy: invalid input: sessionCwd: must be an absolute path/],
    [['explain', '--agent', agent, '--tool', 'ghost'], /^tool-policy: --tool "ghost" is not in the catalog/],
    [['explain', '--agent', agent, '--locale', 'fr'], /^tool-policy: invalid --locale: locale: unsupported locale "fr"/],
    [['explain', '--agent', agent, '--agent', agent], /given twice/],
  ];
  for (const [args, message] of cases) {
    const r = run(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code} ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
  }
});

test('--help and --version', () => {
  const help = run('--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: tool-policy explain --agent <agent.json>/);
  const version = run('--version');
  assert.equal(version.stdout.trim(), policy.version());
});

test('runs as `npm exec -- tool-policy` from js/, where the package is installed', () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['exec', '--offline', '--', 'tool-policy', 'explain', '--agent', agent, '--locale', 'en', '--tool', 'bash'], {
    cwd: JS_DIR,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /trace of bash:/);
});
