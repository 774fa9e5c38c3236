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
/** A fresh `ToolCallCheck` object with the strings of `check`: the least a call answering one pays. */
function fresh(check) {
  return { decision: check.decision, reason: check.reason, paths: check.paths.map((p) => ({ argument: p.argument, path: p.path, write: p.write })), detail: check.detail };
}

function roundTrip(...values) {
  for (const v of values) JSON.parse(JSON.stringify(v));
}

/**
 * Times each function of `work` interleaved: `rounds` rounds, each timing every function in turn
 * (`runs / rounds` batches each), so that drift in the machine affects them alike. Answers the median ns
 * per call of each, and `samples`: every batch's ns per call, in the order measured (batch `i` of one
 * function was measured beside batch `i` of the others).
 */
function interleaved(work, now, runs, minBatchMs, rounds = 3) {
  const samples = Object.fromEntries(Object.keys(work).map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [key, fn] of Object.entries(work)) {
      samples[key].push(...timePerCall(now, fn, { runs: Math.ceil(runs / rounds), minBatchMs }));
    }
  }
  const ns = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  return { ns, samples };
}

/** The ratio `a ÷ b` batch by batch (batches measured side by side): its median, lowest and highest. */
export function pairedRatio(a, b) {
  const ratios = a.map((x, i) => x / b[i]);
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), pairs: ratios.length };
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
    // The prepared engine against stateless, robustly: more rounds, each pair of batches side by side.
    const { ns, samples } = interleaved(work, now, runs, options.minBatchMs ?? 25, options.rounds ?? 7);
    engine.free();
    cases[name] = {
      tools: output.profiles.length,
      inputBytes: JSON.stringify(input).length,
      outputBytes: text.length,
      routesBytes: JSON.stringify(dynamic).length,
      identical,
      routesIdentical,
      ns,
      speedup: { routes: pairedRatio(samples.stateless, samples.routes), prepared: pairedRatio(samples.stateless, samples.prepared) },
    };
  }
  return { cases, checks: checkSuite(policy, now, options) };
}

/**
 * `checkToolCall` on every tool call: one `read_file` call (a relative path) against a worker's builtin
 * routes, through the public function (policy and routes read on every call) and through a prepared
 * `ToolCallChecker` (`check(call)`, and `checkText(name, argumentsJson)` with the text the model sent),
 * every answer checked byte-identical to the function's (`checkText`'s with the `arguments` it read). Floors: the whole input and the answer
 * through `JSON.parse(JSON.stringify(x))`; the call `{ name, arguments }` and the answer the same way,
 * what `check(call)` pays at least on a JSON boundary; and a fresh plain object of the answer's shape
 * built in JavaScript from its strings, what `checkText` pays at least to hand back a plain object (its
 * input is already text; the answer's text through `JSON.parse` is measured beside it).
 */
export function checkSuite(policy, now, options = {}) {
  const runs = options.runs ?? 15;
  const diagnostic = policy.runtimeDiagnostic({ sessionCwd: '/srv/work', shellPermitted: true, writePermitted: true });
  const routes = diagnostic.routes.map(({ name, status, reasons }) => ({ name, status, reasons }));
  const call = { name: 'read_file', arguments: { path: 'src/lib.rs' } };
  const argumentsJson = JSON.stringify(call.arguments);
  const input = { policy: diagnostic.policy, routes, call };
  const answer = policy.checkToolCall(input);
  const answerText = JSON.stringify(answer);
  const checker = new policy.ToolCallChecker({ policy: diagnostic.policy, routes });
  const identical =
    JSON.stringify(checker.check(call)) === answerText &&
    JSON.stringify(checker.checkText(call.name, argumentsJson)) === `${answerText.slice(0, -1)},"arguments":${argumentsJson}}` &&
    checker.checkText(call.name, 'x').reason === 'invalid_tool_arguments';
  const work = {
    checkToolCall: () => policy.checkToolCall(input),
    check: () => checker.check(call),
    checkText: () => checker.checkText('read_file', argumentsJson),
    // The least any check through checkText does: arguments that are not JSON (the reader stops at the
    // first byte, the answer is the fixed denial), through the same boundary (two strings in, the
    // answer's fields out, the object built in JavaScript).
    checkTextLeast: () => checker.checkText('read_file', 'x'),
    floorInput: () => roundTrip(input, answer),
    floorCall: () => roundTrip(call, answer),
    floorAnswer: () => JSON.parse(answerText),
    floorObject: () => fresh(answer),
  };
  const { ns, samples } = interleaved(work, now, runs, options.minBatchMs ?? 25, options.rounds ?? 5);
  checker.free();
  const spread = (v) => ({ min: Math.min(...v), max: Math.max(...v) });
  return {
    decision: answer.decision,
    identical,
    inputBytes: JSON.stringify(input).length,
    answerBytes: answerText.length,
    ns,
    spread: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, spread(v)])),
  };
}
