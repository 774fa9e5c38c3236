// The shipped .wasm's exports, as an engine meets them when the module loads: every exported function
// returns at most one value (the bindings write an answer to memory, wasm-bindgen's return pointer), so
// Node 20's V8 uses its generic JS-to-Wasm wrapper for each instead of compiling one per signature
// with its optimizing compiler at load (.cargo/config.toml says why the build takes that form).
// The module is read with binaryen's JavaScript build (the binaryen package js/ builds with).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import binaryen from 'binaryen';

const pkgDir = path.dirname(createRequire(import.meta.url).resolve('@netaclaw/tool-policy/package.json'));

/** The exported functions of a module's bytes, each with the number of values it returns. */
function exportedFunctions(bytes) {
  const module = binaryen.readBinary(bytes);
  try {
    const out = [];
    for (let i = 0; i < module.getNumExports(); i++) {
      const { kind, name, value } = binaryen.getExportInfo(module.getExportByIndex(i));
      if (kind !== binaryen.ExternalFunction) continue;
      const { results } = binaryen.getFunctionInfo(module.getFunction(value));
      out.push({ name, results: binaryen.expandType(results).length });
    }
    return out;
  } finally {
    module.dispose();
  }
}

for (const target of ['node', 'web']) {
  test(`${target}: every exported function of the .wasm returns at most one value`, () => {
    const exports = exportedFunctions(fs.readFileSync(path.join(pkgDir, target, 'netaclaw_tool_policy_bg.wasm')));
    assert.ok(exports.length > 30, `the bindings are exported (${exports.length})`);
    assert.ok(exports.some(({ name }) => name === 'runtimeDiagnostic'));
    assert.deepEqual(
      exports.filter(({ results }) => results > 1),
      [],
      'exports returning several values',
    );
  });
}

test('the check sees a function returning several values', () => {
  // (i32) -> (i32, i32), exported as `f`: the check above would name it.
  const bytes = Uint8Array.from([
    0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 7, 1, 0x60, 1, 0x7f, 2, 0x7f, 0x7f, 3, 2, 1, 0, 7, 5, 1, 1, 0x66, 0, 0, 10, 8, 1, 6, 0, 0x20, 0, 0x20, 0, 0x0b,
  ]);
  assert.ok(WebAssembly.validate(bytes), 'a valid module');
  assert.deepEqual(exportedFunctions(bytes), [{ name: 'f', results: 2 }]);
});
