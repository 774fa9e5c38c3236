//! Property tests of `checkToolCall` (RUNTIME §4), through the JSON API: random policies (POSIX and
//! Windows roots, roots sharing a prefix such as `/srv/w` and `/srv/w2`), routes of every status, and
//! paths built from `..`, `.`, empty segments, both separators and absolute prefixes. Each property is
//! checked against an oracle written here from the rules in docs/package.md, apart from the crate's code.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use netaclaw_tool_policy::edge::api;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

const ROOTS: [&str; 10] = ["/srv/w", "/srv/w2", "/srv/w/sub", "/", "/srv//w/./", "/srv/w2/../w", "C:\\w", "c:/W2", "D:\\", "C:\\w\\sub\\"];
const PARTS: [&str; 10] = ["..", ".", "", "srv", "w", "w2", "sub", "a", "etc", "W2"];
const PREFIXES: [&str; 6] = ["", "", "/", "C:\\", "c:/", "\\\\host\\"];
const STATUSES: [&str; 4] = ["worker-local", "main-process-proxied", "disabled-in-worker", "not-selected"];
/// Tools whose single path argument is `path` (`true`: a write path).
const PATH_TOOLS: [(&str, bool); 6] = [("read_file", false), ("list_dir", false), ("grep", false), ("find_files", false), ("write_file", true), ("edit", true)];

fn call(input: &Value) -> Result<Value, (String, String)> {
    api::call("checkToolCall", std::slice::from_ref(input)).map(|text| serde_json::from_str(&text).unwrap()).map_err(|e| (e.code().to_string(), e.message()))
}

// ---------------------------------------------------------------- the oracle

#[derive(Clone, Debug, PartialEq)]
enum Style {
    Posix,
    Windows(char),
}

/// A path as (style, segments), `..` and `.` resolved lexically (`..` above the top stays at the top).
#[derive(Clone, Debug, PartialEq)]
struct Resolved {
    style: Style,
    segments: Vec<String>,
}

fn segments<'a>(parts: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in parts {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            other => out.push(other.to_string()),
        }
    }
    out
}

fn windows_drive(text: &str) -> Option<char> {
    let b = text.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/')).then(|| char::from(b[0].to_ascii_uppercase()))
}

/// An absolute path or root; `None` for anything else.
fn absolute(text: &str) -> Option<Resolved> {
    if let Some(rest) = text.strip_prefix('/') {
        return Some(Resolved { style: Style::Posix, segments: segments(rest.split('/')) });
    }
    let drive = windows_drive(text)?;
    Some(Resolved { style: Style::Windows(drive), segments: segments(text[3..].split(['/', '\\'])) })
}

/// Where a path argument points: absolute, or relative to the first root; `None` when it cannot be
/// placed (a Windows root-relative, drive-relative or UNC path).
fn place(text: &str, first: &Resolved) -> Option<Resolved> {
    if text.starts_with('/') || windows_drive(text).is_some() {
        return absolute(text);
    }
    // Joined to the first root, then resolved as a whole: `..` may climb out of the root.
    match first.style {
        Style::Posix => absolute(&format!("{}/{}", render(first), text)),
        Style::Windows(_) if text.starts_with('\\') || text.as_bytes().get(1) == Some(&b':') => None,
        Style::Windows(_) => absolute(&format!("{}\\{}", render(first), text)),
    }
}

fn inside(path: &Resolved, root: &Resolved) -> bool {
    path.style == root.style && path.segments.len() >= root.segments.len() && path.segments[..root.segments.len()] == root.segments[..]
}

fn render(r: &Resolved) -> String {
    match r.style {
        Style::Posix => format!("/{}", r.segments.join("/")),
        Style::Windows(d) => format!("{d}:\\{}", r.segments.join("\\")),
    }
}

// ---------------------------------------------------------------- generators

fn path_text() -> impl Strategy<Value = String> {
    (select(&PREFIXES[..]), prop::collection::vec((select(&PARTS[..]), any::<bool>()), 0..6)).prop_map(|(prefix, parts)| {
        let mut out = String::from(prefix);
        for (i, (part, backslash)) in parts.into_iter().enumerate() {
            if i > 0 {
                out.push(if backslash { '\\' } else { '/' });
            }
            out.push_str(part);
        }
        out
    })
}

fn policy() -> impl Strategy<Value = (Vec<&'static str>, bool, bool)> {
    (prop::collection::vec(select(&ROOTS[..]), 0..4), any::<bool>(), any::<bool>())
}

fn policy_json((roots, shell, readonly): &(Vec<&str>, bool, bool)) -> Value {
    json!({ "workspaceRoots": roots, "allowShell": shell, "readonly": readonly })
}

/// Routes of every builtin with the given statuses (cycled), `name`'s route set to `status`.
fn routes(name: &str, status: &str, others: &[&str]) -> Value {
    let catalog: Value = serde_json::from_str(&api::call("builtinCatalog", &[]).unwrap()).unwrap();
    let routes: Vec<Value> = catalog
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let n = t["name"].as_str().unwrap();
            let s = if n == name { status } else { others[i % others.len()] };
            json!({ "name": n, "status": s, "route": "disabled", "blockedReason": null, "reasons": [], "strategy": "auto", "executionMode": "parallel" })
        })
        .collect();
    Value::Array(routes)
}

fn route_decision(status: &str) -> Option<&'static str> {
    match status {
        "worker-local" => Some("worker-local"),
        "main-process-proxied" => Some("main-process-proxy"),
        _ => None,
    }
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    /// A route that is disabled or not selected never lets a call through, whatever the arguments.
    #[test]
    fn a_blocked_route_is_never_run(p in policy(), tool in select(&PATH_TOOLS[..]), status in select(&STATUSES[2..]), path in path_text(), others in prop::collection::vec(select(&STATUSES[..]), 1..4)) {
        let input = json!({ "policy": policy_json(&p), "routes": routes(tool.0, status, &others), "call": { "name": tool.0, "arguments": { "path": path, "content": "", "oldText": "a", "newText": "b", "pattern": "x" } } });
        let out = call(&input).unwrap();
        prop_assert_eq!(&out["decision"], "denied");
        prop_assert!(out["reason"].is_string());
    }

    /// The decision follows the oracle exactly: a path outside every root, a write under readonly or a
    /// relative path without roots is denied with its reason; otherwise the call runs where the route
    /// says, and the path reported is the oracle's (absolute, normalized, inside a root).
    #[test]
    fn paths_stay_inside_the_roots(p in policy(), tool in select(&PATH_TOOLS[..]), status in select(&STATUSES[..2]), path in path_text()) {
        let (roots, shell, readonly) = &p;
        let (name, write) = tool;
        let mut arguments = json!({ "path": path });
        match name {
            "write_file" => arguments["content"] = json!("x"),
            "edit" => { arguments["oldText"] = json!("a"); arguments["newText"] = json!("b"); }
            "grep" | "find_files" => arguments["pattern"] = json!("x"),
            _ => {}
        }
        let input = json!({ "policy": policy_json(&p), "routes": routes(name, status, &["worker-local"]), "call": { "name": name, "arguments": arguments } });
        let out = call(&input).unwrap();
        let roots: Vec<Resolved> = roots.iter().map(|r| absolute(r).unwrap()).collect();
        let expected: (&str, Option<&str>) = if roots.is_empty() {
            ("denied", Some("workspace_root_required"))
        } else if write && *readonly {
            ("denied", Some("write_blocked_by_readonly_policy"))
        } else if path.is_empty() {
            ("denied", Some("invalid_tool_arguments"))
        } else {
            match place(&path, &roots[0]) {
                Some(placed) if roots.iter().any(|r| inside(&placed, r)) => {
                    prop_assert_eq!(&out["paths"], &json!([{ "argument": "path", "path": render(&placed), "write": write }]));
                    (route_decision(status).unwrap(), None)
                }
                _ => ("denied", Some("path_outside_workspace")),
            }
        };
        let _ = shell;
        prop_assert_eq!((out["decision"].as_str().unwrap(), out["reason"].as_str()), expected, "{}", out);
        if out["decision"] == "denied" {
            prop_assert_eq!(&out["paths"], &json!([]));
            prop_assert!(out["detail"].is_string());
        } else {
            prop_assert!(out["reason"].is_null() && out["detail"].is_null());
        }
    }

    /// Every file a diff names is a write path, checked like any other: all inside and not readonly, or
    /// the call is denied.
    #[test]
    fn a_patch_touches_only_what_it_names(p in policy(), files in prop::collection::vec(path_text(), 1..4), status in select(&STATUSES[..2])) {
        let mut diff = String::new();
        for f in &files {
            diff.push_str(&format!("--- a/{f}\n+++ b/{f}\n@@ -1 +1 @@\n-old\n+new\n"));
        }
        let input = json!({ "policy": policy_json(&p), "routes": routes("patch", status, &["not-selected"]), "call": { "name": "patch", "arguments": { "patch": diff } } });
        let out = call(&input).unwrap();
        let roots: Vec<Resolved> = p.0.iter().map(|r| absolute(r).unwrap()).collect();
        if out["decision"] != "denied" {
            prop_assert!(!p.2, "a patch ran under readonly");
            let listed = out["paths"].as_array().unwrap();
            prop_assert!(!listed.is_empty());
            for entry in listed {
                let placed = absolute(entry["path"].as_str().unwrap()).unwrap();
                prop_assert!(roots.iter().any(|r| inside(&placed, r)), "{} outside {:?}", entry, p.0);
                prop_assert_eq!(&entry["write"], true);
            }
            for f in &files {
                let placed = place(f, &roots[0]);
                prop_assert!(placed.is_some_and(|pl| listed.iter().any(|e| e["path"] == render(&pl))), "{} not listed", f);
            }
        }
    }

    /// `bash` never runs without `allowShell`, whatever its route says.
    #[test]
    fn no_shell_without_allow_shell(p in policy(), status in select(&STATUSES[..])) {
        let input = json!({ "policy": policy_json(&p), "routes": routes("bash", status, &["worker-local"]), "call": { "name": "bash", "arguments": { "command": "id" } } });
        let out = call(&input).unwrap();
        if out["decision"] != "denied" {
            prop_assert!(p.1 && !p.0.is_empty());
            prop_assert_eq!(out["decision"].as_str(), route_decision(status));
        }
    }

    /// A name the routes do not list is denied `not_selected_for_subagent`.
    #[test]
    fn a_name_outside_the_routes_is_not_selected(p in policy(), name in "[a-z_]{1,12}", drop in select(&PATH_TOOLS[..])) {
        let mut all = routes("bash", "worker-local", &["worker-local"]);
        all.as_array_mut().unwrap().retain(|r| r["name"] != drop.0);
        for n in [name.as_str(), drop.0] {
            if all.as_array().unwrap().iter().any(|r| r["name"] == n) {
                continue;
            }
            let out = call(&json!({ "policy": policy_json(&p), "routes": all, "call": { "name": n, "arguments": { "path": "a" } } })).unwrap();
            prop_assert_eq!((out["decision"].as_str(), out["reason"].as_str()), (Some("denied"), Some("not_selected_for_subagent")));
        }
    }

    /// Malformed arguments are data (a denial); malformed input is an error naming its path.
    #[test]
    fn malformed_arguments_deny_and_malformed_input_throws(p in policy(), arguments in prop_oneof![Just(json!(null)), Just(json!("{}")), Just(json!(3)), Just(json!([])), Just(json!(true))], spoil in 0usize..5) {
        let good = json!({ "policy": policy_json(&p), "routes": routes("clarify", "main-process-proxied", &["worker-local"]), "call": { "name": "clarify", "arguments": arguments } });
        let out = call(&good).unwrap();
        prop_assert_eq!((out["decision"].as_str(), out["reason"].as_str()), (Some("denied"), Some("invalid_tool_arguments")));
        let mut bad = good.clone();
        let path = match spoil {
            0 => { bad.as_object_mut().unwrap().remove("routes"); "routes" }
            1 => { bad["policy"]["workspaceRoots"] = json!(["relative/root"]); "policy.workspaceRoots[0]" }
            2 => { bad["call"] = json!("read_file"); "call" }
            3 => { bad["routes"][0]["status"] = json!("running"); "routes[0].status" }
            _ => { bad["policy"].as_object_mut().unwrap().remove("readonly"); "policy.readonly" }
        };
        let (code, message) = call(&bad).unwrap_err();
        prop_assert_eq!(code, "invalid_input");
        prop_assert!(message.starts_with(path), "{} does not start with {}", message, path);
    }

    /// Same input, same bytes; the answer prints as JavaScript prints it.
    #[test]
    fn answers_are_deterministic(p in policy(), tool in select(&PATH_TOOLS[..]), path in path_text()) {
        let input = json!({ "policy": policy_json(&p), "routes": routes(tool.0, "worker-local", &["main-process-proxied"]), "call": { "name": tool.0, "arguments": { "path": path } } });
        let a = api::call("checkToolCall", std::slice::from_ref(&input)).unwrap();
        let b = api::call("checkToolCall", std::slice::from_ref(&input)).unwrap();
        prop_assert_eq!(&a, &b);
        let reparsed: Value = serde_json::from_str(&a).unwrap();
        prop_assert_eq!(netaclaw_tool_policy::json::to_string(&reparsed).unwrap(), a);
    }
}

/// Every builtin tool name, and two names no catalog has.
fn any_name() -> impl Strategy<Value = String> {
    let catalog: Value = serde_json::from_str(&api::call("builtinCatalog", &[]).unwrap()).unwrap();
    let mut names: Vec<String> = catalog.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    names.extend(["nope".to_string(), String::new()]);
    select(names)
}

/// Random JSON arguments: objects keyed by the builtins' argument names (and others), with strings
/// that look like paths, diffs and names, numbers, booleans, arrays and nested objects.
fn any_arguments() -> impl Strategy<Value = Value> {
    const KEYS: [&str; 14] =
        ["path", "content", "command", "timeoutMs", "offset", "limit", "pattern", "items", "text", "done", "name", "patch", "tasks", "extra"];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..700_000).prop_map(|n| json!(n)),
        Just(json!(1.5)),
        path_text().prop_map(Value::String),
        Just(json!("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")),
        Just(json!("")),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((select(&KEYS[..]), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    });
    prop_oneof![
        4 => prop::collection::vec((select(&KEYS[..]), value.clone()), 0..4).prop_map(|entries| Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        1 => value,
    ]
}

proptest! {
    #![proptest_config(config())]

    /// The prepared check (`ToolCallChecker`) answers what `checkToolCall` answers, byte for byte: from
    /// the call as a value (`check`), and from the arguments' JSON text (`checkText`, which adds the
    /// arguments it read).
    #[test]
    fn the_prepared_check_answers_as_the_stateless_one(p in policy(), name in any_name(), status in select(&STATUSES[..]), others in prop::collection::vec(select(&STATUSES[..]), 1..4), arguments in any_arguments()) {
        let input = json!({ "policy": policy_json(&p), "routes": routes(&name, status, &others), "call": { "name": name, "arguments": arguments } });
        let stateless = api::call("checkToolCall", std::slice::from_ref(&input)).unwrap();
        let checker = api::CallChecker::new(&input).unwrap();
        prop_assert_eq!(&checker.check_call(Some(&input["call"])).unwrap(), &stateless);
        // `checkText` answers the same decision with the arguments it read, added last.
        let read = netaclaw_tool_policy::json::to_string(&netaclaw_tool_policy::json::js_normalize(input["call"]["arguments"].clone())).unwrap();
        let with_arguments = format!("{},\"arguments\":{read}}}", &stateless[..stateless.len() - 1]);
        prop_assert_eq!(checker.check_text(&name, &input["call"]["arguments"].to_string()).unwrap(), with_arguments);
    }
}

#[test]
fn the_oracle_agrees_with_the_worked_examples() {
    let w = absolute("/srv/w").unwrap();
    assert_eq!(render(&place("a/../b", &w).unwrap()), "/srv/w/b");
    assert!(!inside(&absolute("/srv/w2/x").unwrap(), &w));
    assert!(inside(&absolute("/srv/w").unwrap(), &w));
    let c = absolute("c:/W").unwrap();
    assert_eq!(render(&place("x\\..\\y", &c).unwrap()), "C:\\W\\y");
    assert_eq!(place("\\x", &c), None);
    assert_eq!(place("C:x", &c), None);
}
