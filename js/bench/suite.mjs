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
    const work = {
      stateless: () => policy.runtimeDiagnostic(input),
      prepared: () => engine.diagnose(call),
      floorStateless: () => {
        JSON.parse(JSON.stringify(input));
        JSON.parse(JSON.stringify(output));
      },
      floorPrepared: () => {
        JSON.parse(JSON.stringify(call));
        JSON.parse(JSON.stringify(output));
      },
    };
    const samples = Object.fromEntries(Object.keys(work).map((k) => [k, []]));
    // Interleave: several rounds, each measuring every function for a few runs.
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      for (const [key, fn] of Object.entries(work)) {
        samples[key].push(...timePerCall(now, fn, { runs: Math.ceil(runs / rounds), minBatchMs: options.minBatchMs ?? 25 }));
      }
    }
    engine.free();
    cases[name] = {
      tools: output.profiles.length,
      inputBytes: JSON.stringify(input).length,
      outputBytes: text.length,
      identical,
      ns: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])),
    };
  }
  return { cases };
}
