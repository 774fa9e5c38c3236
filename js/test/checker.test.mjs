// ToolCallChecker answers byte-identically to checkToolCall: on every golden vector of checkToolCall
// (through `check(call)`, and through `checkText(name, argumentsJson)`, whose answer adds the
// `arguments` it read), and on random calls against random policies and routes. Bad input throws
// `invalid_input`, never a trap.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ToolCallChecker, builtinCatalog, checkToolCall } from '@netaclaw/tool-policy';
import { attempt, isPlainObject, loadVectorsForTests, outcomeText as text, vectorsOf } from './lib/golden.mjs';

const { vectors: entries, loadError } = loadVectorsForTests();

/** A `check` answer's JSON text with `arguments` (JSON text) added last: what `checkText` answers. */
const withArguments = (answer, json) => `${answer.slice(0, -1)},"arguments":${json}}`;

/** Builds a checker from the input's policy, routes and catalog, then runs `use(checker)`. */
function withChecker(input, use) {
  const options = isPlainObject(input) ? { policy: input.policy, routes: input.routes, catalog: input.catalog, rules: input.rules } : input;
  const built = attempt(() => new ToolCallChecker(options));
  if (!built.ok) return built;
  try {
    return use(built.value);
  } finally {
    built.value.free();
  }
}

test('there are checkToolCall vectors to compare with', () => {
  if (loadError) throw loadError;
  assert.ok(vectorsOf(entries, 'checkToolCall').length >= 30);
});

for (const { file, vector } of vectorsOf(entries, 'checkToolCall')) {
  test(`checker = ${file}`, () => {
    const input = vector.args[0];
    const expected = text(attempt(() => checkToolCall(input)));
    if (Object.hasOwn(vector, 'expected')) assert.equal(expected, `ok ${JSON.stringify(vector.expected)}`);
    else assert.equal(expected, `error ${vector.error.code} ${vector.error.message}`);
    const call = isPlainObject(input) ? input.call : undefined;
    if (call === undefined || call === null) {
      // Without a call the stateless function fails on `call`, or earlier on the policy or routes.
      const built = text(attempt(() => new ToolCallChecker(input).free()));
      if (built !== 'ok undefined') assert.equal(built, expected);
      return;
    }
    assert.equal(text(withChecker(input, (c) => attempt(() => c.check(call)))), expected);
    if (expected.startsWith('ok ') && typeof call.name === 'string') {
      const json = call.arguments === undefined ? 'null' : JSON.stringify(call.arguments);
      assert.equal(text(withChecker(input, (c) => attempt(() => c.checkText(call.name, json)))), withArguments(expected, json));
    }
  });
}

const names = builtinCatalog().map((t) => t.name);
const STATUSES = ['worker-local', 'main-process-proxied', 'disabled-in-worker', 'not-selected'];
const ROOTS = ['/srv/w', '/srv/w2', '/', 'C:\\w', '/srv//w/./'];
const PARTS = ['..', '.', '', 'a', 'w', 'w2', 'etc', 'C:', '\\'];
const KEYS = ['path', 'content', 'command', 'timeoutMs', 'offset', 'limit', 'pattern', 'items', 'text', 'done', 'name', 'patch', 'extra'];

/** A small deterministic random source (mulberry32), so that a failure replays. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomValue(r, depth) {
  const pick = (list) => list[Math.floor(r() * list.length)];
  const kind = Math.floor(r() * (depth > 0 ? 9 : 7));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 700001) - 3;
    case 3:
      return 1.5;
    case 4:
      return Array.from({ length: Math.floor(r() * 4) }, () => pick(PARTS)).join(r() < 0.5 ? '/' : '\\');
    case 5:
      return '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';
    case 6:
      return '';
    case 7:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth - 1));
    default:
      return randomObject(r, depth - 1);
  }
}

function randomObject(r, depth) {
  const out = {};
  for (let i = Math.floor(r() * 4); i > 0; i--) out[KEYS[Math.floor(r() * KEYS.length)]] = randomValue(r, depth);
  return out;
}

test('prepared = stateless on random calls, policies and routes', () => {
  const r = random(15);
  let compared = 0;
  for (let i = 0; i < 300; i++) {
    const pick = (list) => list[Math.floor(r() * list.length)];
    const policy = { workspaceRoots: Array.from({ length: Math.floor(r() * 3) }, () => pick(ROOTS)), allowShell: r() < 0.5, readonly: r() < 0.5 };
    const routes = names.filter(() => r() < 0.9).map((name) => ({ name, status: pick(STATUSES), reasons: [] }));
    const checker = new ToolCallChecker({ policy, routes });
    try {
      for (let j = 0; j < 5; j++) {
        const name = r() < 0.9 ? pick(names) : 'nope';
        const args = r() < 0.8 ? randomObject(r, 3) : randomValue(r, 2);
        const call = { name, arguments: args };
        const expected = JSON.stringify(checkToolCall({ policy, routes, call }));
        assert.equal(JSON.stringify(checker.check(call)), expected, JSON.stringify(call));
        assert.equal(JSON.stringify(checker.checkText(name, JSON.stringify(args))), withArguments(expected, JSON.stringify(args)), JSON.stringify(call));
        compared++;
      }
    } finally {
      checker.free();
    }
  }
  assert.equal(compared, 1500);
});

test('checkText reads the text the model sent, and answers the arguments it read; text that is not JSON is a denied call', () => {
  const checker = new ToolCallChecker({
    policy: { workspaceRoots: ['/srv/w'], allowShell: false, readonly: true },
    routes: [
      { name: 'read_file', status: 'worker-local', reasons: [] },
      { name: 'list_dir', status: 'worker-local', reasons: [] },
    ],
  });
  const allowed = {
    decision: 'worker-local',
    reason: null,
    paths: [{ argument: 'path', path: '/srv/w/b', write: false }],
    detail: null,
    arguments: { path: 'b' },
  };
  for (const t of [' {\n "path" : "b" } ', '{"path":"a","path":"b"}', '{"path":"\\u0062"}']) assert.deepEqual(checker.checkText('read_file', t), allowed, t);
  const notJson = { decision: 'denied', reason: 'invalid_tool_arguments', paths: [], detail: 'arguments: is not valid JSON (or longer than 32 MiB)' };
  for (const t of ['{', '{"path": "b",}', '{"path": 1e400}', '{} {}', '"\\ud800"x', '\u00a0', '\f'])
    assert.deepEqual(checker.checkText('read_file', t), notJson, t);
  // Empty text, or JSON whitespace only, is a call without arguments: `{}`.
  const firstRoot = { decision: 'worker-local', reason: null, paths: [{ argument: 'path', path: '/srv/w', write: false }], detail: null, arguments: {} };
  for (const t of ['', '  ', ' \t\r\n']) assert.deepEqual(checker.checkText('list_dir', t), firstRoot, JSON.stringify(t));
  const denied = checker.checkText('write_file', '{"path":"a","content":"x"}');
  assert.equal(denied.reason, 'not_selected_for_subagent');
  assert.deepEqual(denied.arguments, { path: 'a', content: 'x' });
  assert.equal(Object.hasOwn(checker.check({ name: 'list_dir', arguments: {} }), 'arguments'), false, 'check answers without arguments');
  checker.free();
});

test('checkText takes any string: long, non-ASCII, lone surrogates, over the input limit, two checkers in turn', () => {
  const options = (root) => ({
    policy: { workspaceRoots: [root], allowShell: false, readonly: true },
    routes: [{ name: 'read_file', status: 'worker-local', reasons: [] }],
  });
  const a = new ToolCallChecker(options('/srv/a')),
    b = new ToolCallChecker(options('/srv/b'));
  const allowed = (path, argument = path.slice('/srv/a/'.length)) => ({
    decision: 'worker-local',
    reason: null,
    paths: [{ argument: 'path', path, write: false }],
    detail: null,
    arguments: { path: argument },
  });
  const notJson = { decision: 'denied', reason: 'invalid_tool_arguments', paths: [], detail: 'arguments: is not valid JSON (or longer than 32 MiB)' };
  const long = 'd/'.repeat(1500) + 'x';
  for (let round = 0; round < 3; round++) {
    assert.deepEqual(a.checkText('read_file', '{"path":"b"}'), allowed('/srv/a/b'));
    assert.deepEqual(b.checkText('read_file', '{"path":"b"}'), allowed('/srv/b/b'));
    assert.deepEqual(a.checkText('read_file', JSON.stringify({ path: long })), allowed('/srv/a/' + long));
    assert.deepEqual(b.checkText('read_file', ' '.repeat(200_000) + '{"path":"界/é"}'), allowed('/srv/b/界/é'));
    // A lone surrogate crosses as U+FFFD, as every string argument does.
    assert.deepEqual(a.checkText('read_file', '{"path":"c\ud800"}'), allowed('/srv/a/c\ufffd'));
    assert.deepEqual(a.checkText('read_file\udc00', '{}'), {
      decision: 'denied',
      reason: 'not_selected_for_subagent',
      paths: [],
      detail: 'no route for tool "read_file\ufffd"',
      arguments: {},
    });
    assert.deepEqual(b.checkText('n'.repeat(300_000), '{}').detail, `no route for tool "${'n'.repeat(300_000)}"`);
  }
  // Longer than the input limit (32 MiB): denied without being copied.
  assert.deepEqual(a.checkText('read_file', ' '.repeat(32 * 1024 * 1024) + '{}'), notJson);
  assert.deepEqual(a.checkText('read_file', '{"path":"b"}'), allowed('/srv/a/b'));
  a.free();
  b.free();
});

test('bad input throws invalid_input, and a freed checker cannot be used', () => {
  const invalid = (e) => e instanceof Error && e.code === 'invalid_input';
  assert.throws(
    () => new ToolCallChecker(42),
    (e) => invalid(e) && e.message.startsWith('input: '),
  );
  assert.throws(
    () => new ToolCallChecker({ routes: [] }),
    (e) => invalid(e) && e.message === 'policy: is required',
  );
  assert.throws(() => new ToolCallChecker({ policy: { workspaceRoots: [] }, routes: [{ name: 'ghost', status: 'worker-local', reasons: [] }] }), invalid);
  const checker = new ToolCallChecker({ policy: { workspaceRoots: ['/w'], allowShell: false, readonly: true }, routes: [] });
  assert.throws(
    () => checker.check(null),
    (e) => invalid(e) && e.message === 'call: expected an object, got null',
  );
  assert.throws(
    () => checker.check({ name: 3 }),
    (e) => invalid(e) && e.message.startsWith('call.name: '),
  );
  assert.throws(
    () => checker.check({ name: 'x', arguments: 1n }),
    (e) => invalid(e) && e.message.startsWith('call: '),
  );
  assert.throws(
    () => checker.checkText(3, '{}'),
    (e) => invalid(e) && e.message === 'name: expected a string',
  );
  assert.throws(
    () => checker.checkText('x', {}),
    (e) => invalid(e) && e.message === 'argumentsJson: expected a string',
  );
  assert.equal(checker.check({ name: 'x' }).reason, 'not_selected_for_subagent');
  checker.free();
  assert.throws(
    () => checker.checkText('x', '{}'),
    (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError),
  );
});

test('the class has no method but its declared ones: only checkText reaches the exports it writes for', () => {
  const methods = Object.getOwnPropertyNames(ToolCallChecker.prototype).filter((m) => !m.startsWith('__'));
  assert.deepEqual(methods.sort(), ['check', 'checkText', 'constructor', 'free']);
});
