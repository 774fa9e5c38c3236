// Reads the golden vectors of tests/golden/<function>/<case>.json at run time.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GOLDEN_DIR = process.env.NETACLAW_GOLDEN_DIR
  ? resolve(process.env.NETACLAW_GOLDEN_DIR)
  : resolve(dirname(fileURLToPath(import.meta.url)), '../../../tests/golden');

/** The exported functions of SPEC §5/§7 (one list, `functions.json`, for every test). */
export const FUNCTIONS = JSON.parse(readFileSync(new URL('./functions.json', import.meta.url), 'utf8'));

const policy = createRequire(import.meta.url)('@netaclaw/tool-policy');

/**
 * The class methods with golden folders of their own: a `checker.checkText` vector's `args` are
 * `[options, name, argumentsJson]`, replayed as `new ToolCallChecker(options).checkText(name, argumentsJson)`.
 */
export const METHODS = {
  'checker.checkText': (options, name, argumentsJson) => {
    const checker = new policy.ToolCallChecker(options);
    try {
      return checker.checkText(name, argumentsJson);
    } finally {
      checker.free();
    }
  },
};

/** Whether `name` is a function the package exports (a golden folder must be one, or one of `METHODS`). */
export function isExportedFunction(name) {
  return name !== 'ToolPolicyEngine' && name !== 'ToolCallChecker' && Object.hasOwn(policy, name) && typeof policy[name] === 'function';
}

/** What the vectors of a golden folder call: the exported function, or the method of `METHODS`. */
export function vectorFunction(name) {
  return Object.hasOwn(METHODS, name) ? METHODS[name] : policy[name];
}

/**
 * Every vector file, sorted by folder then file name: `{ file, folder, vector, problem }`, where
 * `problem` says why a file is not a well-formed vector (its test then fails; it never vanishes).
 * Throws when the folder is missing or holds no vector file.
 */
export function loadVectors() {
  let folders;
  try {
    folders = readdirSync(GOLDEN_DIR)
      .filter((f) => statSync(join(GOLDEN_DIR, f)).isDirectory())
      .sort();
  } catch (e) {
    throw new Error(`no golden vectors: cannot read ${GOLDEN_DIR} (${e.message})`);
  }
  const out = [];
  for (const folder of folders) {
    for (const name of readdirSync(join(GOLDEN_DIR, folder))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const file = `${folder}/${name}`;
      let vector = null;
      let problem = null;
      try {
        vector = JSON.parse(readFileSync(join(GOLDEN_DIR, folder, name), 'utf8'));
        checkShape(file, folder, vector);
      } catch (e) {
        problem = e.message;
      }
      out.push({ file, folder, vector, problem });
    }
  }
  if (out.length === 0) throw new Error(`no golden vectors in ${GOLDEN_DIR}`);
  return out;
}

/**
 * `loadVectors()` for a test file's top level, where a throw would hide every test: `{ vectors, loadError }`,
 * the vectors (none on failure) and the error to rethrow inside a test (which then fails).
 */
export function loadVectorsForTests() {
  try {
    return { vectors: loadVectors(), loadError: null };
  } catch (e) {
    return { vectors: [], loadError: e };
  }
}

function checkShape(file, folder, v) {
  const fail = (why) => {
    throw new Error(`golden vector ${file}: ${why}`);
  };
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail('not an object');
  if (!isExportedFunction(folder) && !Object.hasOwn(METHODS, folder)) fail(`folder ${folder} is not an exported function`);
  if (v.function !== folder) fail(`"function" is ${JSON.stringify(v.function)}, the folder says ${folder}`);
  if (!Array.isArray(v.args)) fail('"args" is not an array');
  const hasExpected = Object.hasOwn(v, 'expected');
  const hasError = Object.hasOwn(v, 'error');
  if (hasExpected === hasError) fail('needs exactly one of "expected" and "error"');
  if (hasError && (typeof v.error?.message !== 'string' || v.error.code !== 'invalid_input')) {
    fail('"error" must be { code: "invalid_input", message: string }');
  }
}

/** The well-formed vectors of `entries` for one function. */
export function vectorsOf(entries, fn) {
  return entries.filter((e) => e.problem === null && e.folder === fn);
}

/** Calls `f(...args)` and returns `{ ok: true, value }` or `{ ok: false, error }`. */
export function attempt(f) {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    return { ok: false, error };
  }
}

export function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * An outcome of `attempt` as comparable text: the answer's JSON, or the error's code and message (an
 * `Error`, never a trap).
 */
export function outcomeText(outcome) {
  if (outcome.ok) return `ok ${JSON.stringify(outcome.value)}`;
  const e = outcome.error;
  assert.ok(e instanceof Error && !(e instanceof WebAssembly.RuntimeError), `threw ${e?.constructor?.name}`);
  return `error ${e.code} ${e.message}`;
}
