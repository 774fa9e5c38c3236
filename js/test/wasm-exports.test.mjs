// The shipped .wasm's exports, as an engine meets them when the module loads: every exported function
// returns at most one value (the bindings write an answer to memory, wasm-bindgen's return pointer), so
// Node 20's V8 uses its generic JS-to-Wasm wrapper for each instead of compiling one per signature
// with its optimizing compiler at load (.cargo/config.toml says why the build takes that form).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const pkgDir = path.dirname(createRequire(import.meta.url).resolve('@netaclaw/tool-policy/package.json'));

/** The function types, the type of every function (imported ones first, as the index space counts them) and the function exports of a module. */
function read(bytes) {
  let at = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const name = () => {
    const length = leb();
    const text = Buffer.from(bytes.subarray(at, at + length)).toString('utf8');
    at += length;
    return text;
  };
  const limits = () => {
    const flags = bytes[at++];
    leb();
    if (flags & 1) leb();
  };
  const module = { types: [], functions: [], exports: [] };
  assert.deepEqual([...bytes.subarray(0, 8)], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0], 'a WebAssembly 1.0 module');
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 1) {
      for (let n = leb(); n > 0; n--) {
        assert.equal(bytes[at++], 0x60, 'a function type');
        const params = leb();
        at += params;
        const results = leb();
        at += results;
        module.types.push({ params, results });
      }
    } else if (id === 2) {
      for (let n = leb(); n > 0; n--) {
        name();
        name();
        const kind = bytes[at++];
        if (kind === 0) {
          module.functions.push(leb());
        } else if (kind === 1) {
          at++;
          limits();
        } else if (kind === 2) {
          limits();
        } else if (kind === 3) {
          at += 2;
        } else {
          assert.fail(`import kind ${kind}`);
        }
      }
    } else if (id === 3) {
      for (let n = leb(); n > 0; n--) module.functions.push(leb());
    } else if (id === 7) {
      for (let n = leb(); n > 0; n--) {
        const exported = name();
        const kind = bytes[at++];
        const index = leb();
        if (kind === 0) module.exports.push({ name: exported, index });
      }
    }
    at = end;
  }
  return module;
}

for (const target of ['node', 'web']) {
  test(`${target}: every exported function of the .wasm returns at most one value`, () => {
    const module = read(fs.readFileSync(path.join(pkgDir, target, 'netaclaw_tool_policy_bg.wasm')));
    assert.ok(module.exports.length > 30, `the bindings are exported (${module.exports.length})`);
    const several = module.exports
      .map(({ name, index }) => ({ name, results: module.types[module.functions[index]].results }))
      .filter(({ results }) => results > 1);
    assert.deepEqual(several, [], 'exports returning several values');
    assert.ok(module.exports.some(({ name }) => name === 'runtimeDiagnostic'));
  });
}

test('the reader sees a function returning several values', () => {
  // (i32) -> (i32, i32), exported as `f`: the check above would name it.
  const bytes = Uint8Array.from([
    0, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    1, 7, 1, 0x60, 1, 0x7f, 2, 0x7f, 0x7f,
    3, 2, 1, 0,
    7, 5, 1, 1, 0x66, 0, 0,
    10, 8, 1, 6, 0, 0x20, 0, 0x20, 0, 0x0b,
  ]);
  assert.ok(WebAssembly.validate(bytes), 'a valid module');
  const module = read(bytes);
  assert.deepEqual(module.exports, [{ name: 'f', index: 0 }]);
  assert.equal(module.types[module.functions[0]].results, 2);
});
