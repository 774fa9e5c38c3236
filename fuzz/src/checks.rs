//! SPEC §6 invariants, checked on the answers of the JSON API. Each check panics (a fuzz finding) with
//! the input when an invariant does not hold.

#![allow(dead_code)]

use netaclaw_tool_policy::edge::api;
use netaclaw_tool_policy::json::js_normalize;
use netaclaw_tool_policy::manifest::Catalog;
use netaclaw_tool_policy::path::Path;
use netaclaw_tool_policy::vocab::{ToolKind, WorkerRoutingHint};
use netaclaw_tool_policy::ToolManifest;
use serde_json::{json, Map, Value};

/// Calls `function` twice: the two answers must be byte-identical (SPEC §6.1), and an error must be
/// `invalid_input` with a message that starts with a path.
pub fn call(function: &str, args: &[Value]) -> Result<String, String> {
    let first = api::call(function, args);
    let second = api::call(function, args);
    assert_eq!(first, second, "{function} is not deterministic for {args:?}");
    match first {
        Ok(text) => {
            let parsed: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{function} answered invalid JSON ({e}): {text}"));
            drop(parsed);
            Ok(text)
        }
        Err(error) => {
            assert_eq!(error.code(), "invalid_input");
            let message = error.message();
            assert!(!error.path().is_empty() && message.starts_with(error.path()), "error without a path: {message}");
            Err(message)
        }
    }
}

/// Parses an answer that the API printed.
pub fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON answer ({e}): {text}"))
}

/// The catalog an object input names (absent or `null` = builtin).
pub fn catalog_of(input: &Value) -> Option<Catalog> {
    let value = input.get("catalog").filter(|v| !v.is_null());
    netaclaw_tool_policy::edge::input::catalog(value, &Path::Root("catalog")).ok()
}

fn routed(route: &Value) -> bool {
    matches!(route["status"].as_str(), Some("worker-local" | "main-process-proxied"))
}

fn names_of(list: &Value) -> Vec<String> {
    list.as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

/// One route per catalog tool, in catalog order; every routed tool passes the policy (SPEC §6.2, §6.4):
/// no shell tool without `allowShell`, no write tool when `readonly`, no root tool without roots, no tool
/// whose manifest hint is `disabled` (an unknown tool), whatever the strategy.
/// `main_process`: the executor in the main process runs the delegation tools (a diagnostic outside a
/// `sub` agent), so a delegation tool nothing else blocks is proxied however its manifest reads.
pub fn check_routes(tools: &[ToolManifest], policy: &Value, selected: &[String], routes: &Value, main_process: bool) {
    let routes = routes.as_array().unwrap_or_else(|| panic!("routes are not an array: {routes}"));
    assert_eq!(routes.len(), tools.len(), "one route per catalog tool");
    let allow_shell = policy["allowShell"].as_bool().unwrap_or(false);
    let readonly = policy["readonly"].as_bool().unwrap_or(true);
    let has_roots = policy["workspaceRoots"].as_array().is_some_and(|r| !r.is_empty());
    for (tool, route) in tools.iter().zip(routes) {
        assert_eq!(route["name"].as_str(), Some(tool.name.as_str()), "routes follow the catalog order");
        let reasons = route["reasons"].as_array().cloned().unwrap_or_default();
        assert_eq!(route["blockedReason"], reasons.first().cloned().unwrap_or(Value::Null), "blockedReason is reasons[0]: {route}");
        let expected_route = match route["status"].as_str() {
            Some("worker-local") => "worker-local",
            Some("main-process-proxied") => "main-process-proxy",
            _ => "disabled",
        };
        assert_eq!(route["route"].as_str(), Some(expected_route), "route follows status: {route}");
        let is_selected = selected.contains(&tool.name);
        if !is_selected {
            assert_eq!(route["status"].as_str(), Some("not-selected"), "an unselected tool is not-selected: {route}");
            assert_eq!(reasons.len(), 1, "a not-selected tool stops at check 1: {route}");
            continue;
        }
        assert_ne!(route["status"].as_str(), Some("not-selected"), "a selected tool is never not-selected: {route}");
        if !routed(route) {
            assert!(route["blockedReason"].is_string(), "a blocked tool names its reason: {route}");
            continue;
        }
        let name = &tool.name;
        assert!(!tool.requires_shell || allow_shell, "{name}: shell tool routed without allowShell: {route}");
        assert!(!tool.requires_write || !readonly, "{name}: write tool routed under readonly: {route}");
        assert!(!tool.requires_workspace_root || has_roots, "{name}: root tool routed without roots: {route}");
        if main_process && tool.kind == ToolKind::Delegation && route["status"] == "main-process-proxied" {
            assert_eq!(route["reasons"], json!(["requires_main_process_proxy"]), "{name}: the executor's own tool proxied with other reasons: {route}");
        } else {
            assert_ne!(tool.worker_routing_hint, WorkerRoutingHint::Disabled, "{name}: a tool without worker support was routed: {route}");
        }
        assert_ne!(route["strategy"].as_str(), Some("force-disabled"), "{name}: force-disabled tool routed");
        if route["status"] == "worker-local" {
            assert!(tool.supported_in_worker, "{name}: worker-local without worker support: {route}");
        }
    }
}

/// The routed tool names of a list of routes.
pub fn routed_names(routes: &Value) -> Vec<String> {
    routes.as_array().map(|a| a.iter().filter(|r| routed(r)).filter_map(|r| r["name"].as_str().map(str::to_string)).collect()).unwrap_or_default()
}

/// `projectRuntimePolicy`: the route invariants, and monotony (SPEC §6.3): the same input with a
/// stricter policy (`stricter` says which parts) never routes a tool the original did not.
pub fn check_projection(input: &Value, text: &str, stricter: [bool; 4]) {
    let Some(catalog) = catalog_of(input) else { panic!("projection accepted a catalog that does not read: {input}") };
    let out = parse(text);
    let selected = names_of(&input["selectedTools"]);
    check_routes(catalog.tools(), &input["policy"], &selected, &out, false);

    let mut strict = input.clone();
    if stricter[0] {
        strict["policy"]["workspaceRoots"] = json!([]);
    }
    if stricter[1] {
        strict["policy"]["allowShell"] = json!(false);
    }
    if stricter[2] {
        strict["policy"]["readonly"] = json!(true);
    }
    if stricter[3] {
        let fewer: Vec<Value> = selected.iter().step_by(2).map(|s| json!(s)).collect();
        strict["selectedTools"] = Value::Array(fewer);
    }
    let strict_text = call("projectRuntimePolicy", std::slice::from_ref(&strict)).unwrap_or_else(|e| panic!("a stricter policy became invalid: {e}"));
    let strict_out = parse(&strict_text);
    check_routes(catalog.tools(), &strict["policy"], &names_of(&strict["selectedTools"]), &strict_out, false);
    let before = routed_names(&out);
    for name in routed_names(&strict_out) {
        assert!(before.contains(&name), "{name}: a stricter policy routed a tool the original did not");
    }
}

/// `resolveTools`: a partition of the catalog in catalog order; protected core tools never dropped by
/// checks 1–3 (SPEC §6.5); builtin names and prompt hints consistent; a stricter agent (one more
/// disabled tool) never adds a tool (SPEC §6.3).
pub fn check_resolve(input: &Value, text: &str, extra_disabled: Option<&str>) {
    let Some(catalog) = catalog_of(input) else { panic!("resolve accepted a catalog that does not read: {input}") };
    let out = parse(text);
    let tool_names = names_of(&out["toolNames"]);
    let dropped: Vec<(String, String)> = out["disabledReasons"]
        .as_array()
        .map(|a| a.iter().map(|d| (d["name"].as_str().unwrap_or("").to_string(), d["reason"].as_str().unwrap_or("").to_string())).collect())
        .unwrap_or_default();
    let (mut t, mut d) = (0, 0);
    for tool in catalog.tools() {
        if tool_names.get(t) == Some(&tool.name) {
            t += 1;
            if let Some(cap) = out["modelCapability"].as_str() {
                let serves = match tool.capability.as_str() {
                    "vision" => cap != "text",
                    "multimodal" => cap == "multimodal",
                    _ => true,
                };
                assert!(serves, "{}: a {} tool given to a {cap} model", tool.name, tool.capability.as_str());
            }
        } else {
            let Some((name, reason)) = dropped.get(d) else { panic!("{} is neither given nor dropped: {text}", tool.name) };
            assert_eq!(name, &tool.name, "disabledReasons follow the catalog order");
            if tool.is_protected() {
                assert!(
                    !matches!(reason.as_str(), "toolset_not_selected" | "disabled_by_agent" | "disabled_globally"),
                    "{name}: a protected core tool was dropped by {reason}"
                );
            }
            d += 1;
        }
    }
    assert_eq!((t, d), (tool_names.len(), dropped.len()), "toolNames and disabledReasons partition the catalog: {text}");
    let builtin: Vec<String> = tool_names.iter().filter(|n| catalog.get(n).is_some_and(|m| m.kind == ToolKind::Builtin)).cloned().collect();
    assert_eq!(names_of(&out["builtinToolNames"]), builtin, "builtinToolNames are the builtin toolNames");
    if let Some(hints) = out["toolPromptHints"].as_object() {
        for (name, hint) in hints {
            assert!(tool_names.contains(name), "{name}: a prompt hint for a tool not given");
            assert!(catalog.get(name).is_some_and(|m| m.supports_prompt_hint), "{name}: a prompt hint where none is supported");
            assert!(hint.as_str().is_some_and(|h| !h.trim().is_empty()), "{name}: an empty prompt hint");
        }
    }

    if let Some(extra) = extra_disabled {
        let mut strict = input.clone();
        if !strict["agent"].is_object() {
            strict["agent"] = json!({});
        }
        if !strict["agent"]["tools"].is_object() {
            strict["agent"]["tools"] = json!({});
        }
        let mut disabled = strict["agent"]["tools"]["disabled"].as_array().cloned().unwrap_or_default();
        disabled.push(json!(extra));
        strict["agent"]["tools"]["disabled"] = Value::Array(disabled);
        if let Ok(strict_text) = call("resolveTools", std::slice::from_ref(&strict)) {
            let fewer = names_of(&parse(&strict_text)["toolNames"]);
            for name in &fewer {
                assert!(tool_names.contains(name), "{name}: disabling one more tool gave a tool that was not given");
            }
            if let Some(m) = catalog.get(extra) {
                if !m.is_protected() {
                    assert!(!fewer.contains(&m.name), "{extra}: a tool the agent disabled was still given");
                }
            }
        }
    }
}

/// `buildSubprocessWorkerPolicy`: normalized, distinct, absolute roots that normalize to themselves;
/// shell and write granted exactly when permitted and needed by a selected tool.
pub fn check_worker_policy(input: &Value, text: &str) {
    let Some(catalog) = catalog_of(input) else { panic!("worker policy accepted a catalog that does not read: {input}") };
    let out = parse(text);
    let roots = names_of(&out["workspaceRoots"]);
    for (i, root) in roots.iter().enumerate() {
        let windows = !root.starts_with('/');
        assert!(!windows || root.get(1..3) == Some(":\\"), "{root}: not absolute");
        let (prefix, sep) = if windows { (&root[..3], "\\") } else { ("/", "/") };
        if windows {
            assert!(root.as_bytes()[0].is_ascii_uppercase() && !root.contains('/'), "{root}: not a normalized Windows root");
        }
        let rest = &root[prefix.len()..];
        if !rest.is_empty() {
            for part in rest.split(sep) {
                assert!(!matches!(part, "" | "." | ".."), "{root}: not normalized");
            }
        }
        assert!(!roots[..i].contains(root), "{root}: duplicate root");
    }
    let again = json!({ "workspaceRoots": roots, "selectedTools": [] });
    let again_text = call("buildSubprocessWorkerPolicy", std::slice::from_ref(&again)).unwrap_or_else(|e| panic!("normalized roots became invalid: {e}"));
    assert_eq!(parse(&again_text)["workspaceRoots"], out["workspaceRoots"], "normalizing normalized roots changed them");

    let selected: Vec<&ToolManifest> = names_of(&input["selectedTools"]).iter().filter_map(|n| catalog.get(n)).collect();
    let shell_permitted = input["shellPermitted"].as_bool().unwrap_or(false);
    let write_permitted = input["writePermitted"].as_bool().unwrap_or(false);
    let mut allow_shell = shell_permitted && selected.iter().any(|t| t.requires_shell);
    let mut readonly = !(write_permitted && selected.iter().any(|t| t.requires_write));
    let parent = &input["parent"];
    if parent.is_object() {
        // A child never exceeds its parent: the same input without the parent, then narrowed.
        allow_shell &= parent["allowShell"] == true;
        readonly |= parent["readonly"] != false;
        let mut alone = input.clone();
        if let Some(map) = alone.as_object_mut() {
            map.remove("parent");
        }
        let child = parse(
            &call("buildSubprocessWorkerPolicy", std::slice::from_ref(&alone)).unwrap_or_else(|e| panic!("the input without its parent became invalid: {e}")),
        );
        let parent_roots: Vec<String> = names_of(&parent["workspaceRoots"])
            .iter()
            .filter_map(|r| netaclaw_tool_policy::worker_policy::Root::new(r).ok().map(|r| r.into_string()))
            .collect();
        let kept: Vec<String> = names_of(&child["workspaceRoots"])
            .into_iter()
            .filter(|r| parent_roots.iter().any(|p| netaclaw_tool_policy::worker_policy::root_within(r, p)))
            .collect();
        assert_eq!(roots, kept, "a child keeps exactly its roots inside the parent's");
    } else {
        assert!(out.get("warnings").is_none(), "warnings without a parent: {text}");
    }
    assert_eq!(out["allowShell"].as_bool(), Some(allow_shell), "allowShell: {text}");
    assert_eq!(out["readonly"].as_bool(), Some(readonly), "readonly: {text}");
}

/// `runtimeDiagnostic`: `resolved` equals `resolveTools` on the same input; profiles are the catalog's
/// manifests; the routes pass the policy; tools the resolver dropped are not-selected with its reason.
pub fn check_diagnostic(input: &Value, text: &str) {
    let Some(catalog) = catalog_of(input) else { panic!("diagnostic accepted a catalog that does not read: {input}") };
    let out = parse(text);
    let resolved_text = call("resolveTools", std::slice::from_ref(input)).unwrap_or_else(|e| panic!("resolveTools refused a diagnostic input: {e}"));
    let resolved = parse(&resolved_text);
    let tool_names = names_of(&resolved["toolNames"]);
    assert_eq!(out["resolved"]["toolNames"], resolved["toolNames"], "diagnostic and resolver disagree on toolNames");
    assert_eq!(out["resolved"]["disabledReasons"], resolved["disabledReasons"], "diagnostic and resolver disagree on disabledReasons");
    let profiles = out["profiles"].as_array().cloned().unwrap_or_default();
    assert_eq!(profiles.len(), catalog.tools().len(), "one profile per tool");
    for (profile, tool) in profiles.iter().zip(catalog.tools()) {
        let expected = serde_json::to_value(tool).unwrap_or(Value::Null);
        assert_eq!(profile, &expected, "profile of {}", tool.name);
    }
    let routes = &out["routes"];
    let selected: Vec<String> = routes
        .as_array()
        .map(|a| a.iter().filter(|r| r["status"] != "not-selected").filter_map(|r| r["name"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    check_routes(catalog.tools(), &out["policy"], &selected, routes, input["crewRole"] != "sub");
    assert_eq!(out["offered"], json!(routed_names(routes)), "offered is every routed tool, in catalog order");
    let reasons = resolved["disabledReasons"].as_array().cloned().unwrap_or_default();
    for route in routes.as_array().into_iter().flatten() {
        let name = route["name"].as_str().unwrap_or("");
        if !tool_names.iter().any(|n| n == name) {
            assert_eq!(route["status"], "not-selected", "{name}: dropped by the resolver but selected");
            let reason = reasons.iter().find(|d| d["name"] == name).map(|d| d["reason"].clone()).unwrap_or(Value::Null);
            assert_eq!(route["reasons"], json!([reason]), "{name}: not-selected with another reason than the resolver's");
        }
    }
    if let Some(subagent) = input.get("subagentTools").and_then(Value::as_array) {
        for name in &selected {
            assert!(subagent.iter().any(|s| s == name.as_str()), "{name}: selected but not a subagent tool");
        }
    }
    assert!(!out["policy"]["allowShell"].as_bool().unwrap_or(true) || input["shellPermitted"] == true, "shell without shellPermitted");
    assert!(out["policy"]["readonly"].as_bool().unwrap_or(false) || input["writePermitted"] == true, "write without writePermitted");
    let parent = &input["parent"];
    if parent.is_object() {
        assert!(!out["policy"]["allowShell"].as_bool().unwrap_or(true) || parent["allowShell"] == true, "shell the parent does not allow");
        assert!(out["policy"]["readonly"].as_bool().unwrap_or(false) || parent["readonly"] == false, "write the parent does not allow");
        let parent_roots: Vec<String> = names_of(&parent["workspaceRoots"])
            .iter()
            .filter_map(|r| netaclaw_tool_policy::worker_policy::Root::new(r).ok().map(|r| r.into_string()))
            .collect();
        for root in names_of(&out["policy"]["workspaceRoots"]) {
            assert!(parent_roots.iter().any(|p| netaclaw_tool_policy::worker_policy::root_within(&root, p)), "{root}: a root outside the parent's");
        }
    }
}

/// Applies a sync plan to rows, as a backend would (inserts appended, updates set field by field).
pub fn apply_plan(rows: &Value, plan: &Value) -> Value {
    let mut rows: Vec<Value> = rows.as_array().cloned().unwrap_or_default().into_iter().map(js_normalize).collect();
    for insert in plan["inserts"].as_array().into_iter().flatten() {
        rows.push(insert.clone());
    }
    for update in plan["updates"].as_array().into_iter().flatten() {
        let row = rows.iter_mut().find(|r| r["name"] == update["name"]);
        let Some(Value::Object(row)) = row else { panic!("an update for a row that does not exist: {update}") };
        for (k, v) in update["set"].as_object().into_iter().flatten() {
            row.insert(k.clone(), v.clone());
        }
    }
    Value::Array(rows)
}

/// `syncCatalog`: idempotent and never deleting (SPEC §6.6); inserts exactly for catalog tools without a
/// row; orphans exactly the rows whose tool left the catalog.
pub fn check_sync(catalog_value: &Value, rows: &Value, text: &str) {
    let Some(catalog) = catalog_of(&json!({ "catalog": catalog_value })) else { panic!("sync accepted a catalog that does not read") };
    let plan = js_normalize(parse(text));
    let row_names = names_of(&Value::Array(rows.as_array().into_iter().flatten().map(|r| r["name"].clone()).collect()));
    let inserts: Vec<String> = names_of(&Value::Array(plan["inserts"].as_array().into_iter().flatten().map(|r| r["name"].clone()).collect()));
    let expected_inserts: Vec<String> = catalog.tools().iter().map(|t| t.name.clone()).filter(|n| !row_names.contains(n)).collect();
    assert_eq!(inserts, expected_inserts, "inserts are the catalog tools without a row");
    let orphans = names_of(&plan["orphans"]);
    let expected_orphans: Vec<String> = row_names.iter().filter(|n| catalog.get(n).is_none()).cloned().collect();
    assert_eq!(orphans, expected_orphans, "orphans are the rows whose tool left the catalog");
    for insert in plan["inserts"].as_array().into_iter().flatten() {
        assert_eq!(insert["status"].as_f64(), Some(1.0), "a new tool is enabled");
        assert_eq!(insert["label"], insert["name"], "a new tool is labelled with its name");
    }

    let applied = apply_plan(rows, &plan);
    assert_eq!(applied.as_array().map(Vec::len), Some(row_names.len() + inserts.len()), "applying a plan deleted a row");
    let second = call("syncCatalog", &[catalog_value.clone(), applied.clone()]).unwrap_or_else(|e| panic!("applied rows became invalid: {e}"));
    let second = parse(&second);
    assert_eq!(second["inserts"], json!([]), "a second sync inserts again");
    assert_eq!(second["updates"], json!([]), "a second sync updates again: {}", second["updates"]);
    assert_eq!(second["orphans"], plan["orphans"], "a second sync finds other orphans");
    // Human fields survive: a field the plan did not set keeps its stored value.
    for (before, after) in rows.as_array().into_iter().flatten().zip(applied.as_array().into_iter().flatten()) {
        let set = plan["updates"].as_array().into_iter().flatten().find(|u| u["name"] == before["name"]).map(|u| u["set"].clone());
        for field in ["label", "description", "status", "promptHint", "sort", "extra", "workerRoutingStrategy"] {
            let changed = set.as_ref().is_some_and(|s| s.get(field).is_some());
            if !changed {
                assert_eq!(js_normalize(before[field].clone()), after[field], "{field} of {} changed without an update", before["name"]);
            }
        }
    }
}

const MIRROR: [&str; 5] = ["toolset", "visibility", "capability", "isCore", "canDisable"];

fn flag(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) if n.as_f64() == Some(0.0) => Some(false),
        Value::Number(n) if n.as_f64() == Some(1.0) => Some(true),
        _ => None,
    }
}

/// `validateToolUpdate`: an accepted patch changes no mirror field and never disables a protected core
/// tool; a refused one lists errors; `ignored` lists exactly the non-row keys.
pub fn check_update(input: &Value, text: &str) {
    let out = js_normalize(parse(text));
    let row = js_normalize(input["row"].clone());
    let patch = js_normalize(input["patch"].clone());
    let patch_map = patch.as_object().cloned().unwrap_or_default();
    let ignored: Vec<Value> = patch_map.keys().filter(|k| !crate::shapes::ROW_FIELDS.contains(&k.as_str())).map(|k| json!(k)).collect();
    assert_eq!(out["ignored"], Value::Array(ignored), "ignored keys");
    let name = row["name"].as_str().unwrap_or("");
    let catalog = catalog_of(input);
    let protected = match catalog.as_ref().and_then(|c| c.get(name)) {
        Some(tool) => tool.is_protected(),
        None => {
            let is_core = flag(&row["isCore"]).unwrap_or(false);
            is_core && !flag(&row["canDisable"]).unwrap_or(!is_core)
        }
    };
    if out["ok"] == true {
        let new_row = out["row"].as_object().cloned().unwrap_or_default();
        for field in MIRROR.iter().chain(["name"].iter()) {
            assert_eq!(js_normalize(row[*field].clone()), new_row.get(*field).cloned().unwrap_or(Value::Null), "{field} changed by an accepted patch");
        }
        if protected && patch_map.contains_key("status") {
            assert_ne!(new_row.get("status").and_then(Value::as_f64), Some(0.0), "a protected core tool was disabled");
        }
        for (key, value) in &row.as_object().cloned().unwrap_or_default() {
            if !patch_map.contains_key(key) {
                assert_eq!(new_row.get(key), Some(value), "{key} changed without being patched");
            }
        }
    } else {
        assert_eq!(out["ok"], false);
        let errors = out["errors"].as_array().cloned().unwrap_or_default();
        assert!(!errors.is_empty(), "a refused patch without errors");
        for e in &errors {
            let field = e["field"].as_str().unwrap_or("");
            assert!(patch_map.contains_key(field), "{field}: an error for a field not in the patch");
        }
        if protected && patch_map.get("status").and_then(Value::as_f64) == Some(0.0) {
            assert!(errors.iter().any(|e| e["code"] == "core_tool_cannot_be_disabled"), "disabling a protected tool not refused as such");
        }
    }
}

/// `toolManifest`: every field present; defaults as SPEC §7; an unknown tool fails closed.
pub fn check_manifest(schema: &Value, text: &str) {
    let out = parse(text);
    let map: &Map<String, Value> = out.as_object().unwrap_or_else(|| panic!("manifest is not an object: {text}"));
    assert_eq!(map.len(), 17, "a manifest has every field: {text}");
    let name = schema["name"].as_str().unwrap_or("");
    let builtin = crate::shapes::BUILTIN_NAMES.contains(&name);
    let set = |k: &str| schema.get(k).is_some_and(|v| !v.is_null());
    assert!(out["parameters"].is_object(), "parameters is a schema object: {text}");
    if set("parameters") {
        assert_eq!(out["parameters"], schema["parameters"], "the schema's own parameters win");
    } else if !builtin {
        assert_eq!(out["parameters"], json!({"type": "object", "properties": {}}), "no parameters: any object");
    }
    if !set("canDisable") && !builtin {
        assert_eq!(out["canDisable"], json!(!out["isCore"].as_bool().unwrap_or(false)), "canDisable defaults to !isCore");
    }
    if !builtin && !set("kind") && !matches!(schema["toolset"].as_str(), Some("memory" | "skills" | "delegation" | "admin")) {
        assert_eq!(out["kind"], "custom", "a tool with no profile is custom");
        if !set("workerRoutingHint") {
            assert_eq!(out["workerRoutingHint"], "disabled", "an unknown tool has hint disabled");
        }
        if !set("supportedInWorker") {
            assert_eq!(out["supportedInWorker"], false, "an unknown tool has no worker support");
        }
        for k in ["requiresShell", "requiresWrite", "requiresWorkspaceRoot", "supportsPromptHint"] {
            if !set(k) {
                assert_eq!(out[k], false, "{k} defaults to false for an unknown tool");
            }
        }
    }
    for (k, v) in schema.as_object().into_iter().flatten() {
        if map.contains_key(k) && !v.is_null() {
            assert_eq!(&out[k.as_str()], v, "{k}: a field the schema sets always wins");
        }
    }
}

/// `toolBehaviorGuidance`: `- name: text` per distinct tool in the order given, the hint (trimmed) when
/// not blank, else the default guidance; tools with neither are left out.
pub fn check_guidance(args: &[Value], text: &str) {
    let out = parse(text);
    let given = names_of(&args[0]);
    let hints = args.get(1).and_then(Value::as_object);
    let mut seen: Vec<&str> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for name in &given {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        let hint = hints.and_then(|h| h.get(name)).and_then(Value::as_str).map(str::trim).filter(|h| !h.is_empty());
        if let Some(text) = hint.or_else(|| netaclaw_tool_policy::guidance::default_guidance(name)) {
            lines.push(format!("- {name}: {text}"));
        }
    }
    assert_eq!(out, Value::String(lines.join("\n")), "guidance for {args:?}");
}

/// `label(group, code, locale)` equals `labels(locale)[group][code]`.
pub fn check_label(args: &[Value], text: &str) {
    let locale: Vec<Value> = args.get(2).cloned().into_iter().collect();
    let all = call("labels", &locale).unwrap_or_else(|e| panic!("labels refused a locale label accepted: {e}"));
    let all = parse(&all);
    let group = args[0].as_str().unwrap_or("");
    let code = args[1].as_str().unwrap_or("");
    assert_eq!(all[group][code], parse(text), "label and labels disagree on {group}.{code}");
}

/// Whether the normalized `path` lies inside the normalized `root` (an oracle written apart from the
/// crate's: component by component, same style).
pub fn inside(path: &str, root: &str) -> bool {
    let windows = |p: &str| p.as_bytes().get(1) == Some(&b':');
    if windows(path) != windows(root) || path.starts_with('/') != root.starts_with('/') {
        return false;
    }
    let sep = if windows(root) { '\\' } else { '/' };
    let parts = |p: &str| p.split(sep).filter(|s| !s.is_empty()).map(str::to_string).collect::<Vec<_>>();
    let (p, r) = (parts(path), parts(root));
    p.len() >= r.len() && p[..r.len()] == r[..]
}

/// `checkToolCall`: RUNTIME §4's guarantees.
pub fn check_call(input: &Value, text: &str) {
    let out = parse(text);
    let decision = out["decision"].as_str().unwrap_or_else(|| panic!("no decision: {text}"));
    let name = input["call"]["name"].as_str().unwrap_or("");
    let route = input["routes"].as_array().and_then(|routes| routes.iter().find(|r| r["name"] == name));
    let policy = &input["policy"];
    let roots: Vec<String> = policy["workspaceRoots"].as_array().into_iter().flatten().map(|r| normalized(r.as_str().unwrap_or(""))).collect();
    if decision == "denied" {
        assert!(out["reason"].is_string() && out["detail"].is_string(), "a denied call has a reason and a detail: {text}");
        assert_eq!(out["paths"], json!([]), "a denied call lists no paths");
    } else {
        assert!(out["reason"].is_null() && out["detail"].is_null(), "an allowed call has no reason: {text}");
        let route = route.unwrap_or_else(|| panic!("{name} runs without a route: {text}"));
        let expected = match route["status"].as_str() {
            Some("worker-local") => "worker-local",
            Some("main-process-proxied") => "main-process-proxy",
            other => panic!("{name} runs with a route {other:?}: {text}"),
        };
        assert_eq!(decision, expected, "the decision is the route's");
        assert!(input["call"]["arguments"].is_object(), "non-object arguments ran: {text}");
        for p in out["paths"].as_array().unwrap_or(&vec![]) {
            let path = p["path"].as_str().unwrap_or("");
            assert!(roots.iter().any(|r| inside(path, r)), "{path} is outside every root {roots:?}: {text}");
            assert_eq!(normalized(path), path, "{path} is not normalized");
            assert!(!(p["write"] == true && policy["readonly"] == true), "a write path under readonly: {text}");
        }
        if name == "bash" || name == "execute_skill" {
            assert_eq!(policy["allowShell"], true, "a shell tool ran without allowShell");
        }
    }
    if route.is_none() {
        assert_eq!((decision, out["reason"].as_str()), ("denied", Some("not_selected_for_subagent")), "a name outside the routes");
    }
}

/// A root normalized by the crate's normalizer (as `buildSubprocessWorkerPolicy` returns it).
fn normalized(root: &str) -> String {
    let out = call("buildSubprocessWorkerPolicy", &[json!({ "sessionCwd": root, "selectedTools": [] })]).unwrap_or_default();
    parse(&out)["workspaceRoots"][0].as_str().unwrap_or("").to_string()
}
