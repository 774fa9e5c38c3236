//! Native benchmarks (criterion): route decisions per second (`projection::decide_route` and
//! `project_runtime_policy`) and the JSON API's `runtimeDiagnostic`, stateless (`api::call`) and
//! prepared (`api::Prepared`), for the builtin catalog and a generated 1,000-tool catalog.
//!
//! `scripts/bench.sh` runs this and writes BENCHMARKS.md. With `BENCH_INPUTS_OUT=<file>` set, the
//! exact inputs used here are also written to that file, so that the Node and browser benchmarks
//! measure the same work.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{BenchmarkId, Criterion, Throughput};
    use netaclaw_tool_policy::edge::api::{self, Prepared};
    use netaclaw_tool_policy::json;
    use netaclaw_tool_policy::projection::{decide_route, project_runtime_policy, ProjectionInput, RouteInput};
    use netaclaw_tool_policy::vocab::{ReasonCode, RoutingStrategy};
    use netaclaw_tool_policy::worker_policy::Root;
    use netaclaw_tool_policy::worker_policy::WorkerPolicy;
    use serde_json::{json, Value};
    use std::hint::black_box;
    use std::time::Duration;

    const TOOLSETS: [&str; 6] = ["base", "planning", "memory", "skills", "delegation", "research"];
    const STRATEGIES: [&str; 4] = ["auto", "force-local", "force-main-process-proxy", "force-disabled"];

    /// A catalog of `n` generated tools covering every runtime profile.
    fn generated_catalog(n: usize) -> Value {
        let tools: Vec<Value> = (0..n)
            .map(|i| {
                let mut schema = json!({ "name": format!("tool_{i:04}"), "toolset": TOOLSETS[i % 6], "description": format!("Generated tool {i}.") });
                let extra = match i % 5 {
                    0 => json!({ "workerRoutingHint": "local", "supportedInWorker": true, "requiresWorkspaceRoot": true }),
                    1 => json!({ "workerRoutingHint": "main-process-proxy", "requiresWrite": true }),
                    2 => json!({ "workerRoutingHint": "local", "supportedInWorker": true, "requiresShell": true }),
                    3 => json!({}),
                    _ => json!({ "kind": "builtin", "workerRoutingHint": "main-process-proxy", "executionMode": "sequential" }),
                };
                if let (Some(s), Some(e)) = (schema.as_object_mut(), extra.as_object()) {
                    s.extend(e.clone());
                }
                schema
            })
            .collect();
        Value::Array(tools)
    }

    fn generated_governance(n: usize) -> Value {
        Value::Array(
            (0..n)
                .step_by(10)
                .map(|i| json!({ "name": format!("tool_{i:04}"), "status": if i % 20 == 0 { 0 } else { 1 }, "workerRoutingStrategy": STRATEGIES[(i / 10) % 4], "promptHint": format!("Hint {i}.") }))
                .collect(),
        )
    }

    /// The `runtimeDiagnostic` inputs: `builtin` (the builtin catalog) and `generated1000`.
    pub fn inputs() -> Value {
        let per_call = json!({
            "modelCapability": "text",
            "memoryEnabled": true,
            "hasSkills": true,
            "crewRole": "master",
            "sessionCwd": "/srv/app",
            "workspaceRoots": ["/srv/shared"],
            "shellPermitted": true,
            "writePermitted": false
        });
        let with = |extra: Value| {
            let mut input = per_call.clone();
            if let (Some(i), Some(e)) = (input.as_object_mut(), extra.as_object()) {
                i.extend(e.clone());
            }
            input
        };
        json!({
            "builtin": with(json!({
                "governance": [
                    { "name": "bash", "workerRoutingStrategy": "force-main-process-proxy" },
                    { "name": "patch", "promptHint": "Keep hunks small." },
                    { "name": "escalate", "status": 0 }
                ],
                "agent": { "toolsets": null, "tools": { "disabled": ["grep"] } }
            })),
            "generated1000": with(json!({
                "catalog": generated_catalog(1000),
                "governance": generated_governance(1000),
                "agent": { "toolsets": TOOLSETS, "tools": { "disabled": ["tool_0007", "tool_0500"] } }
            }))
        })
    }

    /// The per-tool route inputs of a catalog of `n` tools: a mix of selections and strategies.
    fn route_inputs(n: usize) -> Vec<RouteInput> {
        let strategies =
            [RoutingStrategy::Auto, RoutingStrategy::ForceLocal, RoutingStrategy::ForceMainProcessProxy, RoutingStrategy::Auto, RoutingStrategy::ForceDisabled];
        (0..n)
            .map(|i| RouteInput {
                selected: i % 7 != 0,
                not_selected_reason: if i % 14 == 0 { Some(ReasonCode::DisabledByAgent) } else { None },
                strategy: strategies[i % strategies.len()],
                main_process: false,
            })
            .collect()
    }

    pub fn benches(c: &mut Criterion) {
        let inputs = inputs();
        if let Ok(path) = std::env::var("BENCH_INPUTS_OUT") {
            if let Some(parent) = std::path::Path::new(&path).parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            std::fs::write(&path, json::to_string(&inputs).expect("inputs print")).expect("inputs are written");
        }
        let cases = [("builtin", &inputs["builtin"]), ("generated1000", &inputs["generated1000"])];
        let policy = WorkerPolicy { workspace_roots: vec![Root::new("/srv/app").unwrap()], allow_shell: true, readonly: true };

        let mut group = c.benchmark_group("decide_route");
        for (name, input) in cases {
            let prepared = Prepared::new(input).expect("the input is valid");
            let tools = prepared.catalog().tools();
            let routes = route_inputs(tools.len());
            group.throughput(Throughput::Elements(tools.len() as u64));
            group.bench_with_input(BenchmarkId::from_parameter(name), &(tools, routes), |b, (tools, routes)| {
                let mut reasons = Vec::with_capacity(8);
                b.iter(|| {
                    let mut routed = 0u32;
                    for (tool, route) in tools.iter().zip(routes) {
                        reasons.clear();
                        routed += decide_route(black_box(tool), *route, black_box(&policy), &mut reasons) as u32;
                    }
                    routed
                })
            });
        }
        group.finish();

        let mut group = c.benchmark_group("project_runtime_policy");
        for (name, input) in cases {
            let prepared = Prepared::new(input).expect("the input is valid");
            let catalog = prepared.catalog();
            let n = catalog.tools().len();
            let routes = route_inputs(n);
            let projection = ProjectionInput {
                selected: routes.iter().map(|r| r.selected).collect(),
                strategies: routes.iter().map(|r| r.strategy).collect(),
                not_selected_reasons: routes.iter().map(|r| r.not_selected_reason).collect(),
            };
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| project_runtime_policy(black_box(catalog), black_box(&policy), black_box(&projection)))
            });
        }
        group.finish();

        let mut group = c.benchmark_group("runtimeDiagnostic_stateless");
        for (name, input) in cases {
            let args = [input.clone()];
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| api::call("runtimeDiagnostic", black_box(&args)).expect("the input is valid"))
            });
        }
        group.finish();

        let mut group = c.benchmark_group("runtimeDiagnostic_prepared");
        for (name, input) in cases {
            let prepared = Prepared::new(input).expect("the input is valid");
            let per_call = per_call_input(input);
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| json::to_string(&prepared.diagnose(black_box(&per_call)).expect("the input is valid")).expect("the answer prints"))
            });
        }
        group.finish();

        // The per-call answer without the static part (`ToolPolicyEngine.diagnoseRoutes`).
        let mut group = c.benchmark_group("runtimeDiagnostic_routes");
        for (name, input) in cases {
            let prepared = Prepared::new(input).expect("the input is valid");
            let per_call = per_call_input(input);
            group.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| prepared.diagnose_routes(black_box(&per_call)).expect("the input is valid")));
        }
        group.finish();

        // `checkToolCall` through the JSON API: the same input as the Node and browser suites
        // (`checkSuite` in js/bench/suite.mjs), read from a value, answered as JSON text.
        let diagnostic: Value = serde_json::from_str(
            &api::call("runtimeDiagnostic", &[serde_json::json!({ "sessionCwd": "/srv/work", "shellPermitted": true, "writePermitted": true })])
                .expect("valid"),
        )
        .expect("JSON");
        let routes: Vec<Value> = diagnostic["routes"]
            .as_array()
            .expect("routes")
            .iter()
            .map(|r| serde_json::json!({ "name": r["name"], "status": r["status"], "reasons": r["reasons"] }))
            .collect();
        let check =
            [serde_json::json!({ "policy": diagnostic["policy"], "routes": routes, "call": { "name": "read_file", "arguments": { "path": "src/lib.rs" } } })];
        let mut group = c.benchmark_group("checkToolCall");
        group.bench_function(BenchmarkId::from_parameter("builtin"), |b| b.iter(|| api::call("checkToolCall", black_box(&check)).expect("the input is valid")));
        group.finish();

        // The prepared check (`ToolCallChecker`): the policy, routes and schemas read once, then the call
        // alone: `check` from a value (`checker.check(call)`), `checkText` from the arguments' JSON text.
        let checker = api::CallChecker::new(&check[0]).expect("the input is valid");
        let call = check[0]["call"].clone();
        let text = call["arguments"].to_string();
        let mut group = c.benchmark_group("ToolCallChecker");
        group.bench_function(BenchmarkId::from_parameter("check"), |b| b.iter(|| checker.check_call(Some(black_box(&call))).expect("the call is valid")));
        group.bench_function(BenchmarkId::from_parameter("checkText"), |b| {
            b.iter(|| checker.check_text(black_box("read_file"), black_box(&text)).expect("the answer prints"))
        });
        group.finish();
    }

    /// An input less its `catalog` and `governance` (what a prepared engine takes per call).
    fn per_call_input(input: &Value) -> Value {
        match input {
            Value::Object(map) => {
                Value::Object(map.iter().filter(|(k, _)| *k != "catalog" && *k != "governance").map(|(k, v)| (k.clone(), v.clone())).collect())
            }
            other => other.clone(),
        }
    }

    pub fn criterion() -> Criterion {
        Criterion::default().sample_size(40).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2)).configure_from_args()
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let mut criterion = native::criterion();
    native::benches(&mut criterion);
    criterion.final_summary();
}

#[cfg(target_arch = "wasm32")]
fn main() {}
