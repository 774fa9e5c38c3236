// The soak script (js/soak/soak.mjs) in a short run: every function, answers and refusals (including
// inputs JSON.stringify throws on), a long-lived engine, and engines created and freed in a loop; after
// the warm-up the wasm memory and the externref table must stay exactly flat.
// `node js/soak/soak.mjs --calls 1000000` is the long run; SOAK_CALLS changes this one.
import test from 'node:test';
import assert from 'node:assert/strict';
import { soak, sizes, policy, OPERATIONS } from '../soak/soak.mjs';

const CALLS = Number(process.env.SOAK_CALLS ?? 50_000);

test(`${CALLS} calls over ${OPERATIONS.length} operations leave the wasm memory and externref table flat`, (t) => {
  const result = soak({ calls: CALLS, warmup: 5_000, samples: 5 });
  t.diagnostic(
    `${result.calls} calls in ${result.seconds.toFixed(1)} s; wasm memory ${result.start.memory} → ${result.end.memory} bytes; externrefs ${result.start.externrefs} → ${result.end.externrefs}`,
  );
  assert.ok(result.calls >= CALLS, `${result.calls} calls`);
  for (const s of result.samples) {
    assert.equal(s.memory, result.start.memory, `wasm memory grew to ${s.memory} bytes after ${s.calls} calls`);
    assert.equal(s.externrefs, result.start.externrefs, `externref table grew to ${s.externrefs} after ${s.calls} calls`);
  }
  assert.equal(result.flat, true);
});

test('the measure is not vacuous: engines kept alive grow the wasm memory', () => {
  const before = sizes();
  const catalog = Array.from({ length: 200 }, (_, i) => ({ name: `kept_${i}`, toolset: 'base', description: 'd'.repeat(200) }));
  const kept = Array.from({ length: 300 }, () => new policy.ToolPolicyEngine({ catalog }));
  assert.ok(sizes().memory > before.memory, 'live engines did not show in the wasm memory');
  for (const engine of kept) engine.free();
});
