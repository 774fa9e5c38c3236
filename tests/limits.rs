//! The input limits of SECURITY.md (`edge::read::limits`), through the JSON API every runtime calls: at the
//! limit an input is read, one past it is `invalid_input` with a message naming the path and the limit.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use netaclaw_tool_policy::edge::api;
use netaclaw_tool_policy::edge::read::{limits, parse_input};
use serde_json::{json, Map, Value};

fn refused(function: &str, args: &[Value]) -> String {
    match api::call(function, args) {
        Ok(answer) => panic!("{function} answered {} instead of refusing", &answer[..answer.len().min(200)]),
        Err(e) => {
            assert_eq!(e.code(), "invalid_input");
            e.message()
        }
    }
}

fn accepted(function: &str, args: &[Value]) -> Value {
    let text = api::call(function, args).unwrap_or_else(|e| panic!("{function} refused: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("tool_{i}")).collect()
}

fn object_of(keys: &[String], value: Value) -> Value {
    Value::Object(keys.iter().map(|k| (k.clone(), value.clone())).collect::<Map<_, _>>())
}

#[test]
fn lists_hold_at_most_10_000_items() {
    assert_eq!(limits::MAX_ITEMS, 10_000);
    let catalog = |n: usize| Value::Array(names(n).into_iter().map(|name| json!({ "name": name, "toolset": "base" })).collect());
    let resolved = accepted("resolveTools", &[json!({ "catalog": catalog(10_000) })]);
    assert_eq!(resolved["toolNames"].as_array().map(Vec::len), Some(10_000));
    assert_eq!(refused("resolveTools", &[json!({ "catalog": catalog(10_001) })]), "catalog: has 10001 items; at most 10000 are allowed");
    assert_eq!(refused("syncCatalog", &[catalog(10_001), json!([])]), "catalog: has 10001 items; at most 10000 are allowed");
    let rows = Value::Array(names(10_001).into_iter().map(|name| json!({ "name": name })).collect());
    assert_eq!(refused("syncCatalog", &[Value::Null, rows.clone()]), "rows: has 10001 items; at most 10000 are allowed");
    assert_eq!(refused("runtimeDiagnostic", &[json!({ "governance": rows })]), "governance: has 10001 items; at most 10000 are allowed");
    let many = json!(names(10_001));
    assert_eq!(refused("toolBehaviorGuidance", std::slice::from_ref(&many)), "toolNames: has 10001 items; at most 10000 are allowed");
    assert_eq!(refused("runtimeDiagnostic", &[json!({ "subagentTools": many })]), "subagentTools: has 10001 items; at most 10000 are allowed");
}

#[test]
fn name_keyed_objects_hold_at_most_10_000_keys() {
    let policy = json!({ "workspaceRoots": [], "allowShell": false, "readonly": true });
    let strategies = object_of(&names(10_001), json!("auto"));
    let message = refused("projectRuntimePolicy", &[json!({ "selectedTools": [], "policy": policy, "strategies": strategies })]);
    assert_eq!(message, "strategies: has 10001 keys; at most 10000 are allowed");
    // Prompt hints too: without the limit, 10,000 names against a huge hint object cost O(names × keys).
    let hints = object_of(&names(10_001), json!("hint"));
    assert_eq!(refused("toolBehaviorGuidance", &[json!(["bash"]), hints]), "toolPromptHints: has 10001 keys; at most 10000 are allowed");
    let hints = object_of(&names(10_000), json!("hint"));
    let text = accepted("toolBehaviorGuidance", &[json!(["tool_9999", "bash"]), hints]);
    assert!(text.as_str().is_some_and(|t| t.starts_with("- tool_9999: hint\n- bash: ")), "{text}");
}

#[test]
fn texts_have_maximum_lengths_in_characters() {
    let schema = |name: &str, toolset: &str, description: &str| json!({ "name": name, "toolset": toolset, "description": description });
    assert_eq!(refused("toolManifest", &[schema(&"n".repeat(101), "x", "")]), "schema.name: is longer than 100 characters");
    assert_eq!(accepted("toolManifest", &[schema(&"界".repeat(100), "x", "")])["name"].as_str().map(|s| s.chars().count()), Some(100));
    assert_eq!(refused("toolManifest", &[schema("a", &"t".repeat(51), "")]), "schema.toolset: is longer than 50 characters");
    let long = "d".repeat(limits::MAX_TEXT + 1);
    assert_eq!(refused("toolManifest", &[schema("a", "x", &long)]), "schema.description: is longer than 65536 characters");
    let root = format!("/{}", "r".repeat(limits::MAX_PATH));
    assert_eq!(refused("buildSubprocessWorkerPolicy", &[json!({ "sessionCwd": root, "selectedTools": [] })]), "sessionCwd: is longer than 4096 characters");
    let update = accepted("validateToolUpdate", &[json!({ "row": { "name": "bash" }, "patch": { "label": "l".repeat(limits::MAX_LABEL + 1) } })]);
    assert_eq!(update["errors"], json!([{ "field": "label", "code": "invalid_value" }]));
    assert_eq!(refused("labels", &[json!("e".repeat(65))]), "locale: is longer than 64 characters");
}

#[test]
fn input_text_is_limited_in_bytes_and_nesting() {
    assert_eq!(limits::MAX_INPUT_BYTES, 32 * 1024 * 1024);
    let big = format!("\"{}\"", "x".repeat(limits::MAX_INPUT_BYTES));
    assert_eq!(parse_input(&big).map_err(|e| e.message()), Err("input: is larger than 33554432 bytes".to_string()));
    let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
    assert!(parse_input(&nested(127)).is_ok(), "127 levels are read");
    assert_eq!(parse_input(&nested(128)).map_err(|e| e.message()), Err("input: is nested too deeply".to_string()));
    assert_eq!(parse_input(&nested(100_000)).map_err(|e| e.message()), Err("input: is nested too deeply".to_string()));
}
