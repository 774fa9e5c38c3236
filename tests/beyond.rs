//! Properties of the decision traces, the parent-bounded sub-agent policy, the static-vs-dynamic diff
//! and the explanations, checked through the JSON API every runtime calls.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use netaclaw_tool_policy::edge::api;
use proptest::prelude::*;
use serde_json::{json, Value};

const TOOLS: [&str; 19] = [
    "bash", "read_file", "list_dir", "find_files", "grep", "write_file", "edit", "patch", "todo", "clarify", "escalate", "read_skill", "read_skill_file",
    "skill_manage", "execute_skill", "memory_save", "memory_recall", "delegate_task", "delegate_parallel",
];
const TOOLSETS: [&str; 7] = ["base", "planning", "memory", "skills", "delegation", "vision", "bogus"];
const STRATEGIES: [&str; 4] = ["auto", "force-local", "force-main-process-proxy", "force-disabled"];

fn call(function: &str, args: &[Value]) -> Result<Value, String> {
    api::call(function, args).map(|text| serde_json::from_str(&text).unwrap()).map_err(|e| e.message())
}

fn answer(function: &str, args: &[Value]) -> Value {
    call(function, args).unwrap_or_else(|e| panic!("{function}: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Roots: an independent model of normalized roots and segment-wise containment.

/// A normalized root as (volume, segments): volume `/` for POSIX, `X:` for Windows.
fn parse_root(root: &str) -> (String, Vec<String>) {
    if let Some(rest) = root.strip_prefix('/') {
        ("/".into(), rest.split('/').filter(|s| !s.is_empty()).map(str::to_string).collect())
    } else {
        let (drive, rest) = root.split_at(2);
        (drive.to_string(), rest.split('\\').filter(|s| !s.is_empty()).map(str::to_string).collect())
    }
}

fn model_within(child: &str, parent: &str) -> bool {
    let (cv, cs) = parse_root(child);
    let (pv, ps) = parse_root(parent);
    cv == pv && cs.len() >= ps.len() && cs[..ps.len()] == ps[..]
}

fn root() -> impl Strategy<Value = String> {
    let segment = prop::sample::select(vec!["a", "b", "ab", "..", ".", "A"]);
    (0usize..4, prop::collection::vec(segment, 0..4)).prop_map(|(volume, segments)| {
        let (prefix, sep) = match volume {
            0 | 1 => ("/".to_string(), "/"),
            2 => ("C:\\".to_string(), "\\"),
            _ => ("c:/".to_string(), "/"),
        };
        format!("{prefix}{}", segments.join(sep))
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A child never exceeds its parent: every root inside a parent root, shell only if the parent
    /// allows it, readonly if the parent is; and only what exceeds is taken away, each with a warning.
    #[test]
    fn a_child_policy_stays_within_its_parent(
        cwd in prop::option::of(root()),
        extra in prop::collection::vec(root(), 0..4),
        parent_roots in prop::collection::vec(root(), 0..3),
        selected in prop::collection::vec(prop::sample::select(TOOLS.to_vec()), 0..6),
        shell in any::<bool>(), write in any::<bool>(), parent_shell in any::<bool>(), parent_readonly in any::<bool>(),
    ) {
        let mut input = json!({ "workspaceRoots": extra, "selectedTools": selected, "shellPermitted": shell, "writePermitted": write });
        if let Some(cwd) = &cwd {
            input["sessionCwd"] = json!(cwd);
        }
        let unbounded = answer("buildSubprocessWorkerPolicy", std::slice::from_ref(&input));
        input["parent"] = json!({ "workspaceRoots": parent_roots, "allowShell": parent_shell, "readonly": parent_readonly });
        let bounded = answer("buildSubprocessWorkerPolicy", &[input]);
        let parent_normalized = strings(&answer("buildSubprocessWorkerPolicy", &[json!({ "workspaceRoots": parent_roots, "selectedTools": [] })])["workspaceRoots"]);

        let roots = strings(&bounded["workspaceRoots"]);
        for r in &roots {
            prop_assert!(parent_normalized.iter().any(|p| model_within(r, p)), "{} is outside {:?}", r, parent_normalized);
        }
        let kept: Vec<String> = strings(&unbounded["workspaceRoots"]).into_iter().filter(|r| parent_normalized.iter().any(|p| model_within(r, p))).collect();
        prop_assert_eq!(&roots, &kept);
        let allow_shell = bounded["allowShell"].as_bool().unwrap();
        let readonly = bounded["readonly"].as_bool().unwrap();
        prop_assert!(!allow_shell || parent_shell);
        prop_assert!(readonly || !parent_readonly);
        prop_assert_eq!(allow_shell, unbounded["allowShell"].as_bool().unwrap() && parent_shell);
        prop_assert_eq!(readonly, unbounded["readonly"].as_bool().unwrap() || parent_readonly);

        let warnings = bounded["warnings"].as_array().unwrap();
        let dropped = unbounded["workspaceRoots"].as_array().unwrap().len() - roots.len();
        let flags = usize::from(unbounded["allowShell"] != bounded["allowShell"]) + usize::from(unbounded["readonly"] != bounded["readonly"]);
        prop_assert_eq!(warnings.len(), dropped + flags);
        // The answer without a parent has no `warnings` key at all.
        prop_assert!(unbounded.get("warnings").is_none());
    }
}

// ---------------------------------------------------------------------------------------------
// Diagnostics: random agents, tables, batches and policies over the builtin catalog.

fn subset(items: &'static [&'static str]) -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(items.to_vec()), 0..items.len().min(8))
}

fn diagnostic_input() -> impl Strategy<Value = Value> {
    let agent = (prop::option::of(subset(&TOOLSETS)), subset(&TOOLS), any::<bool>());
    let rows = prop::collection::btree_map(prop::sample::select(TOOLS.to_vec()), (any::<bool>(), prop::sample::select(STRATEGIES.to_vec())), 0..6);
    let scene = (
        prop::option::of(prop::sample::select(vec!["text", "vision", "multimodal"])),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(prop::sample::select(vec!["master", "sub"])),
    );
    let batch = (
        prop::option::of(prop::collection::vec(
            prop::sample::select(vec!["bash", "read_file", "write_file", "patch", "todo", "memory_save", "execute_skill", "ghost"]),
            0..6,
        )),
        prop::option::of(prop::sample::select(vec!["/srv/app", "/srv/app/web", "/tmp"])),
    );
    let permissions = (
        any::<bool>(),
        any::<bool>(),
        prop::option::of((prop::collection::vec(prop::sample::select(vec!["/srv", "/srv/app", "/home"]), 0..2), any::<bool>(), any::<bool>())),
    );
    (agent, rows, scene, batch, permissions).prop_map(
        |((toolsets, disabled, has_agent), rows, (capability, memory, skills, role), (subagent, cwd), (shell, write, parent))| {
            let mut input = json!({ "memoryEnabled": memory, "hasSkills": skills, "shellPermitted": shell, "writePermitted": write });
            if has_agent {
                input["agent"] = json!({ "toolsets": toolsets, "tools": { "disabled": disabled } });
            }
            let rows: Vec<Value> =
                rows.into_iter().map(|(name, (on, strategy))| json!({ "name": name, "status": u8::from(on), "workerRoutingStrategy": strategy })).collect();
            input["governance"] = json!(rows);
            if let Some(c) = capability {
                input["modelCapability"] = json!(c);
            }
            if let Some(r) = role {
                input["crewRole"] = json!(r);
            }
            if let Some(s) = subagent {
                input["subagentTools"] = json!(s);
            }
            if let Some(c) = cwd {
                input["sessionCwd"] = json!(c);
            }
            if let Some((roots, allow_shell, readonly)) = parent {
                input["parent"] = json!({ "workspaceRoots": roots, "allowShell": allow_shell, "readonly": readonly });
            }
            input
        },
    )
}

/// Removes every `trace` key.
fn untraced(mut v: Value) -> Value {
    match &mut v {
        Value::Object(map) => {
            map.remove("trace");
            for (_, x) in map.iter_mut() {
                *x = untraced(x.take());
            }
        }
        Value::Array(items) => {
            for x in items.iter_mut() {
                *x = untraced(x.take());
            }
        }
        _ => {}
    }
    v
}

/// The value at a trace source path (`agent.tools.disabled[1]`, `governance[0].status`) in `input`.
fn at_path<'v>(input: &'v Value, path: &str) -> Option<&'v Value> {
    let mut v = input;
    for part in path.split('.') {
        let (key, index) = match part.find('[') {
            Some(i) => (&part[..i], Some(part[i + 1..part.len() - 1].parse::<usize>().ok()?)),
            None => (part, None),
        };
        v = v.get(key)?;
        if let Some(i) = index {
            v = v.get(i)?;
        }
    }
    Some(v)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// A trace explains its decision: the codes it gives (outside `overridden`) are the route's
    /// reasons, in order; and turning the trace on adds `trace` keys and changes nothing else.
    #[test]
    fn traces_agree_with_the_decisions_they_explain(input in diagnostic_input()) {
        let plain = api::call("runtimeDiagnostic", std::slice::from_ref(&input)).unwrap();
        let mut traced_input = input.clone();
        traced_input["trace"] = json!(true);
        let traced = answer("runtimeDiagnostic", &[traced_input]);
        prop_assert_eq!(serde_json::to_string(&untraced(traced.clone())).unwrap(), plain);

        for route in traced["routes"].as_array().unwrap() {
            let trace = route["trace"].as_array().unwrap();
            prop_assert_eq!(trace[0]["layer"].as_str(), Some("catalog"));
            prop_assert_eq!(trace[0]["source"].as_str().unwrap(), format!("builtin:{}", route["name"].as_str().unwrap()));
            let codes: Vec<&Value> = trace.iter().filter(|e| e["outcome"] != "overridden").filter_map(|e| e.get("reason")).collect();
            let reasons: Vec<&Value> = route["reasons"].as_array().unwrap().iter().collect();
            prop_assert_eq!(codes, reasons, "{}", route);
            // Every indexed source names an input entry about this tool.
            let name = route["name"].as_str().unwrap();
            for e in trace {
                let source = e["source"].as_str().unwrap();
                if source.starts_with("agent.tools.disabled[") || source.starts_with("subagentTools[") {
                    prop_assert_eq!(at_path(&input, source).and_then(Value::as_str), Some(name), "{}", source);
                }
                if let Some(row) = source.strip_suffix(".status").or_else(|| source.strip_suffix(".workerRoutingStrategy")) {
                    prop_assert_eq!(at_path(&input, &format!("{row}.name")).and_then(Value::as_str), Some(name), "{}", source);
                }
                if source.starts_with("agent.toolsets[") {
                    let toolset = traced["profiles"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap()["toolset"].clone();
                    prop_assert_eq!(at_path(&input, source), Some(&toolset));
                }
            }
        }
        // The resolver's dropped tools carry the resolver's part of the same trace.
        for dropped in traced["resolved"]["disabledReasons"].as_array().unwrap() {
            let trace = dropped["trace"].as_array().unwrap();
            let last = trace.last().unwrap();
            prop_assert_eq!(&last["outcome"], "block");
            prop_assert_eq!(&last["reason"], &dropped["reason"]);
            let route = traced["routes"].as_array().unwrap().iter().find(|r| r["name"] == dropped["name"]).unwrap();
            prop_assert_eq!(&route["trace"], &dropped["trace"]);
        }
    }

    /// A parent only takes away: a tool routed under a parent is routed the same way without it.
    #[test]
    fn a_parent_never_routes_what_its_child_alone_would_not(input in diagnostic_input()) {
        prop_assume!(input.get("parent").is_some());
        let bounded = answer("runtimeDiagnostic", std::slice::from_ref(&input));
        let mut alone = input.clone();
        alone.as_object_mut().unwrap().remove("parent");
        let alone = answer("runtimeDiagnostic", &[alone]);
        prop_assert!(alone.get("policyWarnings").is_none());
        prop_assert!(bounded["policyWarnings"].is_array());
        for (b, a) in bounded["routes"].as_array().unwrap().iter().zip(alone["routes"].as_array().unwrap()) {
            if b["route"] != "disabled" {
                prop_assert_eq!(&b["status"], &a["status"]);
            }
        }
        let parent = &input["parent"];
        prop_assert!(!bounded["policy"]["allowShell"].as_bool().unwrap() || parent["allowShell"].as_bool().unwrap());
        prop_assert!(bounded["policy"]["readonly"].as_bool().unwrap() || !parent["readonly"].as_bool().unwrap());
    }

    /// The diff lists exactly the statically runnable, dynamically blocked tools, with their reasons;
    /// every tool can be explained, in both locales, and each paragraph gives the tool's status label.
    #[test]
    fn the_diff_and_the_explanations_cover_every_tool(input in diagnostic_input()) {
        let d = answer("runtimeDiagnostic", std::slice::from_ref(&input));
        let diff = answer("profileRouteDiff", std::slice::from_ref(&d));
        let mut expected = Vec::new();
        for (p, r) in d["profiles"].as_array().unwrap().iter().zip(d["routes"].as_array().unwrap()) {
            let runnable = p["supportedInWorker"] == true || p["workerRoutingHint"] != "disabled";
            let blocked = r["status"] == "disabled-in-worker" || r["status"] == "not-selected";
            if runnable && blocked {
                expected.push(json!({ "name": r["name"], "supportedInWorker": p["supportedInWorker"], "workerRoutingHint": p["workerRoutingHint"], "status": r["status"], "reasons": r["reasons"] }));
            }
        }
        prop_assert_eq!(diff, Value::Array(expected));
        let en = answer("labels", &[json!("en")]);
        for r in d["routes"].as_array().unwrap().iter().take(6) {
            let text = answer("explainTool", &[input.clone(), r["name"].clone(), json!("en")]);
            let status = en["statuses"][r["status"].as_str().unwrap()].as_str().unwrap();
            prop_assert!(text.as_str().unwrap().contains(status), "{}", text);
            let zh = answer("explainTool", &[input.clone(), r["name"].clone()]);
            prop_assert!(!zh.as_str().unwrap().is_empty());
        }
    }
}

#[test]
fn untraced_answers_carry_no_trace_key_and_traced_ones_name_their_sources() {
    let input = json!({
        "agent": { "toolsets": ["base"], "tools": { "disabled": ["grep"] } },
        "governance": [{ "name": "bash", "status": 1, "workerRoutingStrategy": "force-disabled" }, { "name": "edit", "status": 0 }],
        "sessionCwd": "/srv/app", "shellPermitted": true, "modelCapability": "text"
    });
    let plain = api::call("resolveTools", std::slice::from_ref(&input)).unwrap();
    assert!(!plain.contains("\"trace\""));
    let mut traced = input.clone();
    traced["trace"] = json!(true);
    let resolved = answer("resolveTools", &[traced.clone()]);
    let edit = resolved["disabledReasons"].as_array().unwrap().iter().find(|d| d["name"] == "edit").unwrap();
    assert_eq!(
        edit["trace"].as_array().unwrap().last().unwrap(),
        &json!({ "layer": "governance", "outcome": "block", "source": "governance[1].status", "reason": "disabled_globally" })
    );
    let d = answer("runtimeDiagnostic", &[traced.clone()]);
    let bash = d["routes"].as_array().unwrap().iter().find(|r| r["name"] == "bash").unwrap();
    let sources: Vec<(&str, &str)> = bash["trace"].as_array().unwrap().iter().map(|e| (e["layer"].as_str().unwrap(), e["source"].as_str().unwrap())).collect();
    assert_eq!(
        sources,
        [
            ("catalog", "builtin:bash"),
            ("agent-toolsets", "agent.toolsets[0]"),
            ("agent-disabled", "agent.tools.disabled"),
            ("governance", "governance[0].status"),
            ("model-capability", "modelCapability"),
            ("subagent-selection", "subagentTools"),
            ("routing-strategy", "governance[0].workerRoutingStrategy"),
            ("worker-policy", "sessionCwd"),
            ("worker-policy", "shellPermitted"),
            ("manifest", "builtin:bash"),
        ]
    );
    // The engine answers byte-identically, trace included.
    let engine = api::Prepared::new(&traced).unwrap();
    assert_eq!(netaclaw_tool_policy::json::to_string(&engine.diagnose(&traced).unwrap()).unwrap(), api::call("runtimeDiagnostic", &[traced.clone()]).unwrap());
    // `trace` must be a boolean.
    let mut bad = input;
    bad["trace"] = json!("yes");
    assert_eq!(call("runtimeDiagnostic", &[bad]).unwrap_err(), "trace: expected a boolean, got a string");
}

#[test]
fn mcp_annotations_and_explain_errors() {
    let bash = answer("toMcpAnnotations", &[json!({ "name": "bash", "toolset": "base" })]);
    assert_eq!(bash, json!({ "title": "Bash", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true }));
    // A full manifest is accepted as it is.
    let manifest = answer("toolManifest", &[json!({ "name": "read_file", "toolset": "base" })]);
    let read = answer("toMcpAnnotations", &[manifest]);
    assert_eq!(read["readOnlyHint"], true);
    assert_eq!(call("toMcpAnnotations", &[json!({ "name": "x" })]).unwrap_err(), "manifest.toolset: expected a string, got null");
    assert_eq!(call("explainTool", &[json!({}), json!(7)]).unwrap_err(), "name: expected a string, got a number");
    assert_eq!(call("explainTool", &[json!({}), json!("bash"), json!("fr")]).unwrap_err().split(':').next(), Some("locale"));
    assert_eq!(
        call("profileRouteDiff", &[json!({ "profiles": [], "routes": [{ "name": "bash", "status": "not-selected", "reasons": [] }] })]).unwrap_err(),
        "diagnostic.routes[0].name: no profile is named \"bash\""
    );
    assert_eq!(call("profileRouteDiff", &[json!({ "profiles": [] })]).unwrap_err(), "diagnostic.routes: is required");
}
