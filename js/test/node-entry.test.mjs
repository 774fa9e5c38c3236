// The Node `import` entry (pkg/index.cjs, hand-kept): the CommonJS entry's exports, named and as the
// default export, so that `import` and `require` in one process share one instance and one set of
// classes, whichever loads first.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib/static.mjs';

/** Runs an ES module script in a fresh Node process; answers what it prints as JSON. */
function run(source) {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd: join(ROOT, 'js'), encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

for (const first of ['import', 'require']) {
  test(`${first} first: the other entry gets the same instance`, () => {
    const answer = run(`
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      // Every WebAssembly instance made in this process is counted.
      let instances = 0;
      WebAssembly.Instance = new Proxy(WebAssembly.Instance, { construct: (target, args) => (instances++, Reflect.construct(target, args)) });
      const load = { import: () => import('@netaclaw/tool-policy').then((m) => m.default), require: async () => require('@netaclaw/tool-policy') };
      const a = await load[${JSON.stringify(first)}]();
      const b = await load[${JSON.stringify(first === 'import' ? 'require' : 'import')}]();
      const esm = await import('@netaclaw/tool-policy');
      const engine = new esm.ToolPolicyEngine({});
      console.log(JSON.stringify({
        same: a === b,
        namedSame: Object.keys(b).every((k) => esm[k] === b[k]),
        classes: engine instanceof require('@netaclaw/tool-policy').ToolPolicyEngine,
        keys: Object.keys(a).sort(),
        instances,
        answer: esm.label('reasons', 'unknown_tool', 'en') === require('@netaclaw/tool-policy').label('reasons', 'unknown_tool', 'en'),
      }));
    `);
    assert.equal(answer.same, true);
    assert.equal(answer.namedSame, true);
    assert.equal(answer.classes, true);
    assert.equal(answer.answer, true);
    assert.equal(answer.instances, 1, 'WebAssembly instances made by both entries');
    const functions = JSON.parse(readFileSync(join(ROOT, 'js/test/lib/functions.json'), 'utf8'));
    assert.deepEqual(answer.keys, [...functions, 'ToolCallChecker', 'ToolPolicyEngine'].sort());
  });
}
