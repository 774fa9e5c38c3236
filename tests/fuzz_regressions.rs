//! Regressions found by fuzzing and by differential testing, through `api::call` with arguments exactly
//! as given (not reordered as JavaScript would hold them), as the native callers pass them.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use netaclaw_tool_policy::edge::api;
use serde_json::{json, Value};

fn message(function: &str, args: &[Value]) -> String {
    match api::call(function, args) {
        Ok(answer) => panic!("{function} answered {answer} instead of refusing"),
        Err(e) => e.message(),
    }
}

/// Of several bad entries of a name-keyed object, the one reported is the first in JavaScript's key
/// order (array-index keys first), whatever order the native caller's map holds: every runtime names
/// the same path.
#[test]
fn the_first_bad_entry_is_the_first_in_javascript_key_order() {
    let hints: Value = serde_json::from_str(r#"{"edit": -1.5, "1": [1, {"a": null}], "escalate": "fine"}"#).unwrap();
    assert_eq!(message("toolBehaviorGuidance", &[json!([]), hints]), r#"toolPromptHints["1"]: expected a string, got an array"#);
    let input: Value = serde_json::from_str(
        r#"{"selectedTools": ["bash"], "policy": {"workspaceRoots": ["/w"], "allowShell": true, "readonly": false},
            "strategies": {"bash": 5, "10": "sideways", "2": true}}"#,
    )
    .unwrap();
    assert_eq!(message("projectRuntimePolicy", std::slice::from_ref(&input)), r#"strategies["2"]: expected a string, got a boolean"#);
    let mut reasons = input.clone();
    reasons["strategies"] = json!({});
    reasons["notSelectedReasons"] = serde_json::from_str(r#"{"grep": "nope", "7": 1}"#).unwrap();
    assert_eq!(message("projectRuntimePolicy", &[reasons]), r#"notSelectedReasons["7"]: expected a string, got a number"#);
}
