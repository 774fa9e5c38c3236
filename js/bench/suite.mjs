// The benchmark suite shared by Node and the browser: `runtimeDiagnostic` stateless, the prepared
// `ToolPolicyEngine.diagnose`, and the JSON boundary floor, for each input case. Plain loops; every
// figure is the median, over repeated runs, of the time per call. The caller supplies the clock
// (`process.hrtime.bigint()` in Node, `performance.now()` in a browser) and the package.

/** Median of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The per-call part of an input (what `ToolPolicyEngine.diagnose` takes). */
export function perCall(input) {
  const { catalog, governance, ...rest } = input;
  return rest;
}

/**
 * Times `fn` per call in nanoseconds: a warm-up, then `runs` batches of `batch` calls, the batch
 * size chosen so that one batch lasts at least `minBatchMs`. Returns every run's time per call.
 */
export function timePerCall(now, fn, { runs = 15, minBatchMs = 25 } = {}) {
  let batch = 1;
  for (;;) {
    const start = now();
    for (let i = 0; i < batch; i++) fn();
    const ms = (now() - start) / 1e6;
    if (ms >= minBatchMs || batch >= 1 << 20) break;
    batch *= ms > 0 ? Math.min(16, Math.max(2, Math.ceil(minBatchMs / ms))) : 16;
  }
  const samples = [];
  for (let r = 0; r < runs; r++) {
    const start = now();
    for (let i = 0; i < batch; i++) fn();
    samples.push((now() - start) / batch);
  }
  return samples;
}

/** `JSON.parse(JSON.stringify(x))` of each value: what crossing a JSON boundary costs at least. */
function roundTrip(...values) {
  for (const v of values) JSON.parse(JSON.stringify(v));
}

/** Median ns per call of each function of `work`, measured interleaved in rounds. */
function interleaved(work, now, runs, minBatchMs) {
  const samples = Object.fromEntries(Object.keys(work).map((k) => [k, []]));
  const rounds = 3;
  for (let round = 0; round < rounds; round++) {
    for (const [key, fn] of Object.entries(work)) {
      samples[key].push(...timePerCall(now, fn, { runs: Math.ceil(runs / rounds), minBatchMs }));
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

/**
 * Runs the suite. `policy` is the package's exports; `now()` returns nanoseconds as a Number.
 * Answers `{ cases: { [name]: { tools, inputBytes, outputBytes, identical, ns: { stateless, prepared,
 * floorStateless, floorPrepared } } } }`, every `ns` value a median over runs. The measurements of one
 * case are interleaved (run by run) so that drift in the machine affects them alike.
 */
export function runSuite(policy, inputs, now, options = {}) {
  const runs = options.runs ?? 15;
  const cases = {};
  for (const [name, input] of Object.entries(inputs)) {
    const call = perCall(input);
    const engine = new policy.ToolPolicyEngine({ catalog: input.catalog, governance: input.governance });
    const output = policy.runtimeDiagnostic(input);
    const text = JSON.stringify(output);
    const identical = JSON.stringify(engine.diagnose(call)) === text;
    // The static part handed back once: the per-call answer is the diagnostic less `profiles`.
    const { profiles, ...dynamic } = output;
    const routesIdentical = JSON.stringify(engine.diagnoseRoutes(call)) === JSON.stringify(dynamic) && JSON.stringify(engine.profiles()) === JSON.stringify(profiles);
    const work = {
      stateless: () => policy.runtimeDiagnostic(input),
      prepared: () => engine.diagnose(call),
      floorStateless: () => roundTrip(input, output),
      floorPrepared: () => roundTrip(call, output),
      routes: () => engine.diagnoseRoutes(call),
      floorRoutes: () => roundTrip(call, dynamic),
    };
    const ns = interleaved(work, now, runs, options.minBatchMs ?? 25);
    engine.free();
    cases[name] = {
      tools: output.profiles.length,
      inputBytes: JSON.stringify(input).length,
      outputBytes: text.length,
      routesBytes: JSON.stringify(dynamic).length,
      identical,
      routesIdentical,
      ns,
    };
  }
  return { cases, checks: checkSuite(policy, now, options) };
}

/**
 * `checkToolCall` on every tool call: the public function per call on a worker's builtin routes, a
 * small call (`read_file` with a relative path) and the floor of any JSON boundary for it — the call
 * `{ name, arguments }` and the answer through `JSON.parse(JSON.stringify(x))`, which a prepared form
 * taking only the call would still pay.
 */
export function checkSuite(policy, now, options = {}) {
  const runs = options.runs ?? 15;
  const diagnostic = policy.runtimeDiagnostic({ sessionCwd: '/srv/work', shellPermitted: true, writePermitted: true });
  const routes = diagnostic.routes.map(({ name, status, reasons }) => ({ name, status, reasons }));
  const call = { name: 'read_file', arguments: { path: 'src/lib.rs' } };
  const input = { policy: diagnostic.policy, routes, call };
  const answer = policy.checkToolCall(input);
  const work = {
    checkToolCall: () => policy.checkToolCall(input),
    floorInput: () => roundTrip(input, answer),
    floorCall: () => roundTrip(call, answer),
  };
  return {
    decision: answer.decision,
    inputBytes: JSON.stringify(input).length,
    ns: interleaved(work, now, runs, options.minBatchMs ?? 25),
  };
}
