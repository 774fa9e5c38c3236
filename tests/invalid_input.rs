//! Invalid input: every path of SPEC §5 "Errors" and §7 "Errors" through the public JSON API. Each
//! case asserts the code `invalid_input` and the exact message, whose start is the offending path.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use netaclaw_tool_policy::edge::api;
use netaclaw_tool_policy::edge::input::catalog_of;
use netaclaw_tool_policy::ToolSchema;
use serde_json::{json, Value};

/// The message of the invalid-input error a call must raise.
fn error(function: &str, args: &[Value]) -> String {
    match api::call(function, args) {
        Ok(answer) => panic!("{function}({args:?}) answered {answer} instead of failing"),
        Err(e) => {
            assert_eq!(e.code(), "invalid_input");
            assert_eq!(e.to_string(), e.message());
            assert!(e.message().starts_with(e.path()), "{} does not start with its path {}", e.message(), e.path());
            e.message()
        }
    }
}

/// Asserts every `(function, args, message)` case, reporting all mismatches at once.
fn check(cases: &[(&str, Value, &str)]) {
    let mut wrong = Vec::new();
    for (function, args, expected) in cases {
        let args = args.as_array().cloned().unwrap_or_else(|| vec![args.clone()]);
        let actual = error(function, &args);
        if actual != *expected {
            wrong.push(format!("{function}({}):\n  expected {expected}\n  actual   {actual}", Value::Array(args)));
        }
    }
    assert!(wrong.is_empty(), "{} case(s) wrong:\n{}", wrong.len(), wrong.join("\n"));
}

fn answer(function: &str, args: &[Value]) -> Value {
    let text = api::call(function, args).unwrap_or_else(|e| panic!("{function} failed: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn one(value: Value) -> Value {
    json!([value])
}

fn open() -> Value {
    json!({ "workspaceRoots": ["/w"], "allowShell": true, "readonly": false })
}

#[test]
fn a_top_level_value_that_is_not_an_object_is_input() {
    let mut cases = Vec::new();
    for function in ["resolveTools", "buildSubprocessWorkerPolicy", "projectRuntimePolicy", "runtimeDiagnostic", "validateToolUpdate"] {
        for (value, got) in [(json!(null), "null"), (json!(3), "a number"), (json!("x"), "a string"), (json!([1]), "an array"), (json!(true), "a boolean")] {
            cases.push((function, one(value), format!("input: expected an object, got {got}")));
        }
    }
    let cases: Vec<(&str, Value, &str)> = cases.iter().map(|(f, a, m)| (*f, a.clone(), m.as_str())).collect();
    check(&cases);
    // A missing argument is null.
    assert_eq!(error("resolveTools", &[]), "input: expected an object, got null");
}

#[test]
fn positional_arguments_are_named_by_the_argument() {
    check(&[
        ("toolManifest", one(json!(5)), "schema: expected an object, got a number"),
        ("toolManifest", json!([]), "schema: expected an object, got null"),
        ("syncCatalog", json!(["x", []]), "catalog: expected an array, got a string"),
        ("syncCatalog", json!([null, {"name": "bash"}]), "rows: expected an array, got an object"),
        ("syncCatalog", json!([null]), "rows: expected an array, got null"),
        ("toolBehaviorGuidance", json!([{"bash": 1}]), "toolNames: expected an array, got an object"),
        ("toolBehaviorGuidance", json!([["bash"], ["hint"]]), "toolPromptHints: expected an object, got an array"),
        ("labels", one(json!(["en"])), "locale: expected a string, got an array"),
        ("label", json!(["reasons", 7]), "code: expected a string, got a number"),
        ("label", json!([null, "disabled"]), "group: expected a string, got null"),
    ]);
}

#[test]
fn wrong_types_in_the_resolver_input_name_their_path() {
    check(&[
        ("resolveTools", one(json!({"agent": ["base"]})), "agent: expected an object, got an array"),
        ("resolveTools", one(json!({"agent": {"toolsets": "base"}})), "agent.toolsets: expected an array, got a string"),
        ("resolveTools", one(json!({"agent": {"toolsets": ["base", "planning", 3]}})), "agent.toolsets[2]: expected a string, got a number"),
        ("resolveTools", one(json!({"agent": {"tools": "bash"}})), "agent.tools: expected an object, got a string"),
        ("resolveTools", one(json!({"agent": {"tools": {"disabled": "bash"}}})), "agent.tools.disabled: expected an array, got a string"),
        ("resolveTools", one(json!({"agent": {"tools": {"disabled": ["bash", false]}}})), "agent.tools.disabled[1]: expected a string, got a boolean"),
        ("resolveTools", one(json!({"modelCapability": 1})), "modelCapability: expected a string, got a number"),
        ("resolveTools", one(json!({"memoryEnabled": "yes"})), "memoryEnabled: expected a boolean, got a string"),
        ("resolveTools", one(json!({"hasSkills": 0})), "hasSkills: expected a boolean, got a number"),
        ("resolveTools", one(json!({"crewRole": {}})), "crewRole: expected a string, got an object"),
        ("resolveTools", one(json!({"toolsetDefaults": ["base", null]})), "toolsetDefaults[1]: expected a string, got null"),
        ("resolveTools", one(json!({"governance": {"bash": 0}})), "governance: expected an array, got an object"),
        ("resolveTools", one(json!({"governance": ["bash"]})), "governance[0]: expected an object, got a string"),
        ("resolveTools", one(json!({"governance": [{"name": "bash"}, {"status": 0}]})), "governance[1].name: expected a string, got null"),
        ("resolveTools", one(json!({"governance": [{"name": ""}]})), "governance[0].name: must not be empty"),
        ("resolveTools", one(json!({"governance": [{"name": "bash", "status": "0"}]})), "governance[0].status: expected 0 or 1, got \"0\""),
        ("resolveTools", one(json!({"governance": [{"name": "bash", "status": 0.5}]})), "governance[0].status: expected 0 or 1, got 0.5"),
        ("resolveTools", one(json!({"governance": [{"name": "bash", "promptHint": 1}]})), "governance[0].promptHint: expected a string, got a number"),
        (
            "resolveTools",
            one(json!({"governance": [{"name": "bash", "workerRoutingStrategy": "local"}]})),
            "governance[0].workerRoutingStrategy: unknown value \"local\"; expected one of auto, force-local, force-main-process-proxy, force-disabled",
        ),
        ("resolveTools", one(json!({"catalog": {"name": "bash"}})), "catalog: expected an array, got an object"),
    ]);
}

#[test]
fn unknown_enum_strings_list_the_allowed_values() {
    check(&[
        ("resolveTools", one(json!({"modelCapability": "audio"})), "modelCapability: unknown value \"audio\"; expected one of text, vision, multimodal"),
        ("resolveTools", one(json!({"modelCapability": "Text"})), "modelCapability: unknown value \"Text\"; expected one of text, vision, multimodal"),
        ("runtimeDiagnostic", one(json!({"crewRole": "lead"})), "crewRole: unknown value \"lead\"; expected one of master, sub"),
        ("toolManifest", one(json!({"name": "x", "toolset": "y", "visibility": "public"})), "schema.visibility: unknown value \"public\"; expected one of internal, tool, skill"),
        ("toolManifest", one(json!({"name": "x", "toolset": "y", "executionMode": "serial"})), "schema.executionMode: unknown value \"serial\"; expected one of parallel, sequential"),
        (
            "toolManifest",
            one(json!({"name": "x", "toolset": "y", "workerRoutingHint": "remote"})),
            "schema.workerRoutingHint: unknown value \"remote\"; expected one of local, main-process-proxy, disabled",
        ),
        (
            "projectRuntimePolicy",
            one(json!({"selectedTools": [], "policy": open(), "strategies": {"my tool": "force"}})),
            "strategies[\"my tool\"]: unknown value \"force\"; expected one of auto, force-local, force-main-process-proxy, force-disabled",
        ),
        ("projectRuntimePolicy", one(json!({"selectedTools": [], "policy": open(), "strategies": {"bash": 1}})), "strategies.bash: expected a string, got a number"),
        ("projectRuntimePolicy", one(json!({"selectedTools": [], "policy": open(), "strategies": ["bash"]})), "strategies: expected an object, got an array"),
        ("projectRuntimePolicy", one(json!({"selectedTools": [], "policy": open(), "notSelectedReasons": {"bash": "Disabled_By_Agent"}})), "notSelectedReasons.bash: unknown value \"Disabled_By_Agent\"; expected one of workspace_root_required, shell_disabled_by_policy, write_blocked_by_readonly_policy, requires_main_process_proxy, unsupported_in_worker, not_selected_for_subagent, disabled_by_routing_strategy, toolset_not_selected, disabled_by_agent, disabled_globally, capability_mismatch, memory_disabled, no_skills_bound, crew_master_only, core_tool_cannot_be_disabled, unknown_tool, unknown_toolset, capability_fallback_text, field_is_readonly, prompt_hint_not_supported, invalid_value, path_outside_workspace, invalid_tool_arguments, tool_not_offered, shell_sandbox_unavailable"),
    ]);
}

#[test]
fn every_schema_field_is_type_checked() {
    let fields = [
        ("description", json!(1), "a string", "a number"),
        ("visibility", json!(true), "a string", "a boolean"),
        ("capability", json!([]), "a string", "an array"),
        ("isCore", json!("yes"), "a boolean", "a string"),
        ("canDisable", json!(0), "a boolean", "a number"),
        ("supportsPromptHint", json!({}), "a boolean", "an object"),
        ("kind", json!(2), "a string", "a number"),
        ("executionMode", json!(false), "a string", "a boolean"),
        ("supportedInWorker", json!(1), "a boolean", "a number"),
        ("workerRoutingHint", json!(["local"]), "a string", "an array"),
        ("requiresShell", json!("true"), "a boolean", "a string"),
        ("requiresWrite", json!(1), "a boolean", "a number"),
        ("requiresSkillScope", json!("no"), "a boolean", "a string"),
        ("requiresWorkspaceRoot", json!(0), "a boolean", "a number"),
    ];
    let mut owned = Vec::new();
    for (field, value, want, got) in fields {
        let mut schema = json!({"name": "x", "toolset": "y"});
        schema[field] = value;
        owned.push(("toolManifest", one(schema.clone()), format!("schema.{field}: expected {want}, got {got}")));
        // The same schema inside a catalog is named by its index.
        owned.push((
            "resolveTools",
            one(json!({"catalog": [{"name": "a", "toolset": "b"}, schema]})),
            format!("catalog[1].{field}: expected {want}, got {got}"),
        ));
    }
    let cases: Vec<(&str, Value, &str)> = owned.iter().map(|(f, a, m)| (*f, a.clone(), m.as_str())).collect();
    check(&cases);
}

#[test]
fn missing_required_fields_are_named() {
    check(&[
        ("buildSubprocessWorkerPolicy", one(json!({})), "selectedTools: is required"),
        ("buildSubprocessWorkerPolicy", one(json!({"selectedTools": null})), "selectedTools: is required"),
        ("projectRuntimePolicy", one(json!({"policy": open()})), "selectedTools: is required"),
        ("projectRuntimePolicy", one(json!({"selectedTools": []})), "policy: is required"),
        ("projectRuntimePolicy", one(json!({"selectedTools": [], "policy": null})), "policy: is required"),
        ("projectRuntimePolicy", one(json!({"selectedTools": [], "policy": {"allowShell": true, "readonly": true}})), "policy.workspaceRoots: is required"),
        ("projectRuntimePolicy", one(json!({"selectedTools": [], "policy": {"workspaceRoots": [], "readonly": true}})), "policy.allowShell: is required"),
        ("projectRuntimePolicy", one(json!({"selectedTools": [], "policy": {"workspaceRoots": [], "allowShell": false}})), "policy.readonly: is required"),
        (
            "projectRuntimePolicy",
            one(json!({"selectedTools": [], "policy": {"workspaceRoots": [], "allowShell": "no", "readonly": true}})),
            "policy.allowShell: expected a boolean, got a string",
        ),
        ("projectRuntimePolicy", one(json!({"selectedTools": [], "policy": "open"})), "policy: expected an object, got a string"),
        (
            "projectRuntimePolicy",
            one(json!({"selectedTools": [], "policy": {"workspaceRoots": [1], "allowShell": false, "readonly": true}})),
            "policy.workspaceRoots[0]: expected a string, got a number",
        ),
        ("toolManifest", one(json!({"toolset": "base"})), "schema.name: expected a string, got null"),
        ("toolManifest", one(json!({"name": "bash"})), "schema.toolset: expected a string, got null"),
        ("resolveTools", one(json!({"catalog": [{"name": "bash"}]})), "catalog[0].toolset: expected a string, got null"),
        ("syncCatalog", json!([null, [{"name": "bash"}, {"label": "x"}]]), "rows[1].name: expected a string, got null"),
        ("validateToolUpdate", one(json!({"patch": {}})), "row: is required"),
        ("validateToolUpdate", one(json!({"row": null, "patch": {}})), "row: is required"),
        ("validateToolUpdate", one(json!({"row": {"name": "bash"}})), "patch: is required"),
        ("validateToolUpdate", one(json!({"row": {}, "patch": {}})), "row.name: expected a string, got null"),
    ]);
}

#[test]
fn duplicate_names_are_invalid() {
    check(&[
        (
            "resolveTools",
            one(json!({"catalog": [{"name": "a", "toolset": "x"}, {"name": "b", "toolset": "x"}, {"name": "a", "toolset": "y"}]})),
            "catalog[2].name: duplicate tool name \"a\" (also catalog[0].name)",
        ),
        (
            "syncCatalog",
            json!([[{"name": "a", "toolset": "x"}, {"name": "a", "toolset": "x"}], []]),
            "catalog[1].name: duplicate tool name \"a\" (also catalog[0].name)",
        ),
        (
            "resolveTools",
            one(json!({"governance": [{"name": "bash"}, {"name": "bash"}]})),
            "governance[1].name: duplicate row name \"bash\" (also governance[0].name)",
        ),
        (
            "runtimeDiagnostic",
            one(json!({"governance": [{"name": "x"}, {"name": "y"}, {"name": "x", "status": 0}]})),
            "governance[2].name: duplicate row name \"x\" (also governance[0].name)",
        ),
        ("syncCatalog", json!([null, [{"name": "old"}, {"name": "old"}]]), "rows[1].name: duplicate row name \"old\" (also rows[0].name)"),
    ]);
}

#[test]
fn names_are_limited_to_100_unicode_scalar_values() {
    let long = "n".repeat(101);
    let cjk_ok = "名".repeat(100);
    let cjk_long = "名".repeat(101);
    check(&[
        ("toolManifest", one(json!({"name": long, "toolset": "x"})), "schema.name: is longer than 100 characters"),
        ("toolManifest", one(json!({"name": cjk_long, "toolset": "x"})), "schema.name: is longer than 100 characters"),
        ("toolManifest", one(json!({"name": "", "toolset": "x"})), "schema.name: must not be empty"),
        ("toolManifest", one(json!({"name": "x", "toolset": "t".repeat(51)})), "schema.toolset: is longer than 50 characters"),
        ("toolManifest", one(json!({"name": "x", "toolset": ""})), "schema.toolset: must not be empty"),
        (
            "resolveTools",
            one(json!({"catalog": [{"name": "ok", "toolset": "x"}, {"name": long, "toolset": "x"}]})),
            "catalog[1].name: is longer than 100 characters",
        ),
        ("resolveTools", one(json!({"governance": [{"name": long}]})), "governance[0].name: is longer than 100 characters"),
        ("resolveTools", one(json!({"agent": {"tools": {"disabled": [long]}}})), "agent.tools.disabled[0]: is longer than 100 characters"),
        ("resolveTools", one(json!({"agent": {"toolsets": ["t".repeat(51)]}})), "agent.toolsets[0]: is longer than 50 characters"),
        ("syncCatalog", json!([null, [{"name": cjk_long}]]), "rows[0].name: is longer than 100 characters"),
    ]);
    // Exactly 100 CJK characters (300 bytes) is fine, through the JSON API and the typed one.
    let manifest = answer("toolManifest", &[json!({"name": cjk_ok, "toolset": "工具".repeat(25)})]);
    assert_eq!(manifest["name"], json!(cjk_ok));
    assert!(catalog_of(&[ToolSchema::new(cjk_ok.clone(), "x")]).is_ok());
    assert_eq!(catalog_of(&[ToolSchema::new(cjk_long, "x")]).unwrap_err().message(), "catalog[0].name: is longer than 100 characters");
    // A label of 200 CJK characters passes the guard; 201 is a refused value, not an exception.
    let row = json!({"name": "bash"});
    assert_eq!(answer("validateToolUpdate", &[json!({"row": row, "patch": {"label": "标".repeat(200)}})])["ok"], json!(true));
    assert_eq!(
        answer("validateToolUpdate", &[json!({"row": row, "patch": {"label": "标".repeat(201)}})])["errors"],
        json!([{"field": "label", "code": "invalid_value"}])
    );
}

#[test]
fn roots_must_be_absolute_posix_or_windows_paths() {
    let absolute = "must be an absolute path (POSIX /… or Windows C:\\…), got";
    let owned: Vec<(&str, Value, String)> = vec![
        ("buildSubprocessWorkerPolicy", one(json!({"sessionCwd": ".", "selectedTools": []})), format!("sessionCwd: {absolute} \".\"")),
        ("buildSubprocessWorkerPolicy", one(json!({"sessionCwd": "src", "selectedTools": []})), format!("sessionCwd: {absolute} \"src\"")),
        (
            "buildSubprocessWorkerPolicy",
            one(json!({"workspaceRoots": ["/ok", "../up"], "selectedTools": []})),
            format!("workspaceRoots[1]: {absolute} \"../up\""),
        ),
        ("buildSubprocessWorkerPolicy", one(json!({"workspaceRoots": ["C:"], "selectedTools": []})), format!("workspaceRoots[0]: {absolute} \"C:\"")),
        ("buildSubprocessWorkerPolicy", one(json!({"workspaceRoots": ["C:foo"], "selectedTools": []})), format!("workspaceRoots[0]: {absolute} \"C:foo\"")),
        ("buildSubprocessWorkerPolicy", one(json!({"workspaceRoots": ["\\foo"], "selectedTools": []})), format!("workspaceRoots[0]: {absolute} \"\\\\foo\"")),
        ("buildSubprocessWorkerPolicy", one(json!({"workspaceRoots": ["~/work"], "selectedTools": []})), format!("workspaceRoots[0]: {absolute} \"~/work\"")),
        ("buildSubprocessWorkerPolicy", one(json!({"sessionCwd": "", "selectedTools": []})), "sessionCwd: must not be empty".into()),
        ("buildSubprocessWorkerPolicy", one(json!({"workspaceRoots": ["/a", ""], "selectedTools": []})), "workspaceRoots[1]: must not be empty".into()),
        (
            "buildSubprocessWorkerPolicy",
            one(json!({"workspaceRoots": ["\\\\server\\share"], "selectedTools": []})),
            "workspaceRoots[0]: UNC paths are not supported: \"\\\\\\\\server\\\\share\"".into(),
        ),
        (
            "buildSubprocessWorkerPolicy",
            one(json!({"sessionCwd": "//?/C:/x".replace('/', "\\"), "selectedTools": []})),
            "sessionCwd: UNC paths are not supported: \"\\\\\\\\?\\\\C:\\\\x\"".into(),
        ),
        ("buildSubprocessWorkerPolicy", one(json!({"sessionCwd": "/a\u{0}b", "selectedTools": []})), "sessionCwd: must not contain a NUL character".into()),
        ("buildSubprocessWorkerPolicy", one(json!({"sessionCwd": 42, "selectedTools": []})), "sessionCwd: expected a string, got a number".into()),
        ("buildSubprocessWorkerPolicy", one(json!({"workspaceRoots": "/w", "selectedTools": []})), "workspaceRoots: expected an array, got a string".into()),
        ("runtimeDiagnostic", one(json!({"sessionCwd": "relative/dir"})), format!("sessionCwd: {absolute} \"relative/dir\"")),
        ("runtimeDiagnostic", one(json!({"workspaceRoots": ["/a", "/b", "b"]})), format!("workspaceRoots[2]: {absolute} \"b\"")),
    ];
    let cases: Vec<(&str, Value, &str)> = owned.iter().map(|(f, a, m)| (*f, a.clone(), m.as_str())).collect();
    check(&cases);
}

#[test]
fn roots_normalize_lexically_through_the_public_api() {
    let roots = |cwd: Value, extra: Value| {
        answer("buildSubprocessWorkerPolicy", &[json!({"sessionCwd": cwd, "workspaceRoots": extra, "selectedTools": []})])["workspaceRoots"].clone()
    };
    assert_eq!(roots(json!("/a/../.."), json!([])), json!(["/"]));
    assert_eq!(roots(json!("C:\\a\\..\\b"), json!([])), json!(["C:\\b"]));
    assert_eq!(roots(json!("//a//b/"), json!([])), json!(["/a/b"]));
    assert_eq!(roots(json!("/"), json!(["/.", "/..", "//"])), json!(["/"]));
    assert_eq!(roots(json!("c:/x/./y/"), json!(["C:\\x\\y", "C:/x/z/..//y"])), json!(["C:\\x\\y"]));
    assert_eq!(roots(json!(null), json!(["D:\\", "d:/..", "/d"])), json!(["D:\\", "/d"]));
    assert_eq!(roots(json!("/srv/app"), json!(["/srv/app/..", "/srv"])), json!(["/srv/app", "/srv"]));
    // The same normalization serves the diagnostic.
    let d = answer("runtimeDiagnostic", &[json!({"sessionCwd": "//a//b/", "workspaceRoots": ["/a/b/c/.."], "catalog": []})]);
    assert_eq!(d["policy"]["workspaceRoots"], json!(["/a/b"]));
    assert_eq!(
        error("buildSubprocessWorkerPolicy", &[json!({"sessionCwd": ".", "selectedTools": []})]),
        "sessionCwd: must be an absolute path (POSIX /… or Windows C:\\…), got \".\""
    );
}

#[test]
fn rows_and_patches_of_the_admin_guard() {
    check(&[
        ("validateToolUpdate", one(json!({"row": "bash", "patch": {}})), "row: expected an object, got a string"),
        ("validateToolUpdate", one(json!({"row": ["bash"], "patch": {}})), "row: expected an object, got an array"),
        ("validateToolUpdate", one(json!({"row": {"name": "bash"}, "patch": "status=0"})), "patch: expected an object, got a string"),
        ("validateToolUpdate", one(json!({"row": {"name": "bash"}, "patch": [["status", 0]]})), "patch: expected an object, got an array"),
        ("validateToolUpdate", one(json!({"row": {"name": ["bash"]}, "patch": {}})), "row.name: expected a string, got an array"),
        (
            "validateToolUpdate",
            one(json!({"row": {"name": "bash"}, "patch": {}, "catalog": [{"name": 1, "toolset": "x"}]})),
            "catalog[0].name: expected a string, got a number",
        ),
        ("syncCatalog", json!([null, "rows"]), "rows: expected an array, got a string"),
        ("syncCatalog", json!([null, [{"name": "a"}, 5]]), "rows[1]: expected an object, got a number"),
        ("syncCatalog", json!([null, [{"name": 5}]]), "rows[0].name: expected a string, got a number"),
    ]);
    // Patch values are data, never thrown: every bad value is an `invalid_value` in the answer.
    let out =
        answer("validateToolUpdate", &[json!({"row": {"name": "bash"}, "patch": {"status": "on", "sort": 0.5, "label": [], "workerRoutingStrategy": 3}})]);
    assert_eq!(out["ok"], json!(false));
    assert_eq!(out["errors"].as_array().map(Vec::len), Some(4));
}

#[test]
fn locales_groups_and_codes() {
    check(&[
        ("labels", one(json!("fr")), "locale: unsupported locale \"fr\"; use zh-CN or en"),
        ("labels", one(json!("")), "locale: unsupported locale \"\"; use zh-CN or en"),
        ("labels", one(json!("english")), "locale: unsupported locale \"english\"; use zh-CN or en"),
        ("label", json!(["reasons", "unknown_tool", "ja-JP"]), "locale: unsupported locale \"ja-JP\"; use zh-CN or en"),
        ("label", json!(["reasons", "unknown_tool", 1]), "locale: expected a string, got a number"),
        ("label", json!(["reason", "unknown_tool"]), "group: unknown label group \"reason\"; expected one of reasons, statuses, routes, kinds, strategies"),
        ("label", json!(["reasons", "nope"]), "code: unknown reasons code \"nope\""),
        ("label", json!(["statuses", "worker_local"]), "code: unknown statuses code \"worker_local\""),
        ("label", json!(["kinds", "Builtin"]), "code: unknown kinds code \"Builtin\""),
        ("label", json!(["strategies", "force"]), "code: unknown strategies code \"force\""),
    ]);
    // Tags starting with en / zh are accepted, in any case.
    for (tag, text) in [("en", "Disabled"), ("EN-us", "Disabled"), ("en_GB", "Disabled"), ("zh", "禁用"), ("zh-TW", "禁用"), ("zh-CN", "禁用")] {
        assert_eq!(answer("label", &[json!("routes"), json!("disabled"), json!(tag)]), json!(text), "{tag}");
    }
}

#[test]
fn the_api_keeps_working_after_an_error() {
    assert_eq!(error("nope", &[]), "function: unknown function \"nope\"");
    let before = api::call("resolveTools", &[json!({})]).unwrap();
    for bad in [json!(1), json!({"agent": 1}), json!({"catalog": [{"name": "a", "toolset": "x"}, {"name": "a", "toolset": "x"}]})] {
        assert!(api::call("resolveTools", &[bad]).is_err());
    }
    assert_eq!(api::call("resolveTools", &[json!({})]).unwrap(), before);
}

#[test]
fn policy_outcomes_are_data_not_errors() {
    // Unknown names are warnings or ignored, never errors.
    let r =
        answer("resolveTools", &[json!({"agent": {"toolsets": ["nope"], "tools": {"disabled": ["ghost"]}}, "governance": [{"name": "orphan", "status": 0}]})]);
    assert_eq!(r["warnings"][0], json!({"code": "unknown_toolset", "subject": "nope"}));
    let routes = answer(
        "projectRuntimePolicy",
        &[json!({"selectedTools": ["ghost"], "policy": open(), "strategies": {"ghost": "force-local"}, "notSelectedReasons": {"ghost": "unknown_tool"}})],
    );
    assert_eq!(routes.as_array().map(Vec::len), Some(19));
    let d = answer("runtimeDiagnostic", &[json!({"subagentTools": ["ghost"]})]);
    assert!(d["resolved"]["warnings"].as_array().unwrap().contains(&json!({"code": "unknown_tool", "subject": "ghost"})));
    // A refused update is an answer.
    let out = answer("validateToolUpdate", &[json!({"row": {"name": "todo"}, "patch": {"status": 0}})]);
    assert_eq!(out, json!({"ok": false, "errors": [{"field": "status", "code": "core_tool_cannot_be_disabled"}], "ignored": []}));
}
