// Replays every golden vector of tests/golden through the package: the answer's JSON.stringify must
// equal the expectation's byte for byte; an error vector must throw a plain Error with code
// invalid_input and the exact message, after which the module still answers.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { FUNCTIONS, GOLDEN_DIR, METHODS, attempt, isExportedFunction, loadVectorsForTests, vectorFunction } from './lib/golden.mjs';

const { vectors, loadError } = loadVectorsForTests();

// The module object (ESM and CommonJS share it; exports.test.mjs checks the ES entry names them all).
const policy = createRequire(import.meta.url)('@netaclaw/tool-policy');

// A fixed call whose answer must not change after any error.
const probe = () => JSON.stringify(policy.runtimeDiagnostic({ sessionCwd: '/w', shellPermitted: true }));
const baseline = probe();

test(`golden vectors are present and well-formed in ${GOLDEN_DIR}`, () => {
  if (loadError) throw loadError;
  assert.ok(vectors.length > 0);
  const folders = new Set(vectors.map((v) => v.folder));
  for (const f of folders) assert.ok(isExportedFunction(f) || Object.hasOwn(METHODS, f), `${f} is not an exported function`);
  // Every function of SPEC §5/§7 has vectors.
  for (const f of FUNCTIONS) assert.ok(folders.has(f), `no vector of ${f}`);
});

for (const { file, vector, problem } of vectors) {
  test(file, () => {
    if (problem) assert.fail(problem);
    const fn = vectorFunction(vector.function);
    assert.equal(typeof fn, 'function', `${vector.function} is not exported`);
    const argsBefore = JSON.stringify(vector.args);
    const outcome = attempt(() => fn(...vector.args));
    assert.equal(JSON.stringify(vector.args), argsBefore, 'the call changed its arguments');
    if (Object.hasOwn(vector, 'expected')) {
      if (!outcome.ok) assert.fail(`threw ${outcome.error?.constructor?.name}: ${outcome.error?.message}`);
      assert.equal(JSON.stringify(outcome.value), JSON.stringify(vector.expected));
      // Same input, same bytes.
      assert.equal(JSON.stringify(fn(...vector.args)), JSON.stringify(outcome.value));
    } else {
      assert.equal(outcome.ok, false, `answered ${JSON.stringify(outcome.value)?.slice(0, 200)} instead of throwing`);
      const e = outcome.error;
      assert.ok(e instanceof Error, 'the thrown value is an Error');
      assert.ok(!(e instanceof WebAssembly.RuntimeError), 'the thrown value is not a WebAssembly.RuntimeError');
      assert.equal(e.code, vector.error.code);
      assert.equal(e.message, vector.error.message);
      assert.equal(probe(), baseline, 'the module answers as before after the error');
      const again = attempt(() => fn(...vector.args));
      assert.equal(again.ok, false);
      assert.equal(again.error.message, e.message);
    }
  });
}
