//! The JavaScript bindings in a real browser (`wasm-pack test --headless --chrome -- --features wasm
//! --test web`): every golden vector replayed through the binding functions, answers compared byte
//! for byte with the native expectation, errors as plain `Error`s with `code: 'invalid_input'`,
//! `ToolPolicyEngine` identical to the functions, and inputs JSON cannot hold refused, never a trap.
//!
//! The vectors come from `tests/golden.bundle.json`, embedded at compile time; `tests/golden_bundle.rs`
//! fails whenever it differs from `tests/golden/`.
#![cfg(all(target_arch = "wasm32", feature = "wasm"))]

use js_sys::{Array, Function, Object, Reflect, JSON};
use netaclaw_tool_policy::edge::api;
use netaclaw_tool_policy::edge::wasm::{self, ToolCallChecker, ToolPolicyEngine};
use netaclaw_tool_policy::json;
use netaclaw_tool_policy::json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BUNDLE: &str = include_str!("golden.bundle.json");

/// Every exported function (JS names), from the export table; each golden folder is named after one,
/// or after one of [`METHODS`].
const FUNCTIONS: &[&str] = api::Function::NAMES;

/// The class methods with golden folders: `checker.checkText` vectors' `args` are
/// `[options, name, argumentsJson]`, replayed as `new ToolCallChecker(options).checkText(name, argumentsJson)`.
const METHODS: &[&str] = &["checker.checkText"];

/// One golden vector: its file, the document parsed by the browser's `JSON.parse` (what a JS caller
/// passes) and by the crate (for the expectation).
struct Vector {
    file: String,
    js: JsValue,
    doc: Value,
}

impl Vector {
    fn function(&self) -> &str {
        self.doc["function"].as_str().unwrap_or_default()
    }

    /// The arguments as JavaScript values.
    fn args(&self) -> Vec<JsValue> {
        let args = Reflect::get(&self.js, &"args".into()).unwrap();
        Array::from(&args).iter().collect()
    }

    /// What the call must give: the answer printed as `JSON.stringify` prints it, or the error.
    fn expected(&self) -> Outcome {
        if let Some(expected) = self.doc.get("expected") {
            Outcome::Answer(json::to_string(&json::js_normalize(expected.clone())).unwrap())
        } else {
            let error = &self.doc["error"];
            Outcome::Error { code: error["code"].as_str().unwrap().into(), message: error["message"].as_str().unwrap().into() }
        }
    }
}

fn vectors() -> Vec<Vector> {
    let bundle: Value = json::parse(BUNDLE).expect("the bundle is JSON");
    let items = bundle["vectors"].as_array().expect("the bundle lists vectors");
    items
        .iter()
        .map(|item| {
            let file = item["file"].as_str().unwrap().to_string();
            let text = item["text"].as_str().unwrap();
            let js = JSON::parse(text).unwrap_or_else(|e| panic!("{file}: JSON.parse failed: {e:?}"));
            let doc = json::parse(text).unwrap_or_else(|e| panic!("{file}: {e}"));
            Vector { file, js, doc }
        })
        .collect()
}

fn vectors_of(function: &str) -> Vec<Vector> {
    vectors().into_iter().filter(|v| v.file.split('/').next() == Some(function)).collect()
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Answer(String),
    Error { code: String, message: String },
}

/// Turns a binding's result into its `JSON.stringify` text, or the thrown error — which must be a
/// plain `Error` (not a `WebAssembly.RuntimeError`) carrying a string `code`.
fn outcome(result: Result<JsValue, JsValue>) -> Outcome {
    match result {
        Ok(value) => Outcome::Answer(JSON::stringify(&value).unwrap().as_string().unwrap()),
        Err(thrown) => {
            assert!(thrown.is_instance_of::<js_sys::Error>(), "threw a non-Error: {thrown:?}");
            assert!(!thrown.is_instance_of::<js_sys::WebAssembly::RuntimeError>(), "trapped: {thrown:?}");
            let error: &js_sys::Error = thrown.unchecked_ref();
            let code = Reflect::get(&thrown, &"code".into()).unwrap().as_string().unwrap_or_default();
            Outcome::Error { code, message: error.message().into() }
        }
    }
}

fn arg(args: &[JsValue], i: usize) -> JsValue {
    args.get(i).cloned().unwrap_or(JsValue::UNDEFINED)
}

/// Calls the binding of `function` as `pkg[function](...args)` would.
fn call(function: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let a = |i| arg(args, i);
    match function {
        "builtinCatalog" => wasm::builtin_catalog(),
        "toolManifest" => wasm::tool_manifest(a(0)),
        "resolveTools" => wasm::resolve_tools(a(0)),
        "buildSubprocessWorkerPolicy" => wasm::build_subprocess_worker_policy(a(0)),
        "projectRuntimePolicy" => wasm::project_runtime_policy(a(0)),
        "runtimeDiagnostic" => wasm::runtime_diagnostic(a(0)),
        "syncCatalog" => wasm::sync_catalog(a(0), a(1)),
        "validateToolUpdate" => wasm::validate_tool_update(a(0)),
        "toolBehaviorGuidance" => wasm::tool_behavior_guidance(a(0), a(1)).map(JsValue::from),
        "labels" => wasm::labels(a(0)),
        "label" => wasm::label(a(0), a(1), a(2)).map(JsValue::from),
        "version" => Ok(JsValue::from(wasm::version())),
        "explainTool" => wasm::explain_tool(a(0), a(1), a(2)).map(JsValue::from),
        "profileRouteDiff" => wasm::profile_route_diff(a(0)),
        "toMcpAnnotations" => wasm::to_mcp_annotations(a(0)),
        "checkToolCall" => wasm::check_tool_call(a(0)),
        "catalogInfo" => wasm::catalog_info(a(0)),
        "getToolSchema" => wasm::get_tool_schema(a(0), a(1)),
        "getToolNamesByToolset" => wasm::get_tool_names_by_toolset(a(0), a(1)),
        "toolRowView" => wasm::tool_row_view(a(0)),
        "agentResolveInput" => wasm::agent_resolve_input(a(0)),
        "fromMcpTool" => wasm::from_mcp_tool(a(0)),
        "checkRules" => wasm::check_rules(a(0)),
        "ruleDefaults" => wasm::rule_defaults(),
        "checkNetwork" => wasm::check_network(a(0)),
        "checker.checkText" => ToolCallChecker::new(a(0)).and_then(|checker| checker.check_text(a(1), a(2))),
        other => panic!("no binding {other}"),
    }
}

/// A fixed call whose answer must not change after an error.
fn probe() -> String {
    let input = JSON::parse(r#"{"sessionCwd":"/w","shellPermitted":true}"#).unwrap();
    JSON::stringify(&wasm::runtime_diagnostic(input).unwrap()).unwrap().as_string().unwrap()
}

/// Replays every vector of one function folder; fails listing each vector that differs.
fn replay(function: &str) {
    let vectors = vectors_of(function);
    assert!(!vectors.is_empty(), "no golden vector of {function} in the bundle");
    let baseline = probe();
    let mut failures = Vec::new();
    for v in &vectors {
        assert_eq!(v.function(), function, "{}: \"function\" differs from its folder", v.file);
        let expected = v.expected();
        let actual = outcome(call(function, &v.args()));
        if actual != expected {
            failures.push(format!("{}\n  expected {expected:?}\n  actual   {actual:?}", v.file));
        }
        if matches!(actual, Outcome::Error { .. }) {
            assert_eq!(probe(), baseline, "{}: the module answers differently after the error", v.file);
        }
    }
    assert!(failures.is_empty(), "{} of {} {function} vectors differ:\n{}", failures.len(), vectors.len(), failures.join("\n"));
}

#[wasm_bindgen_test]
fn the_bundle_holds_well_formed_vectors_of_exported_functions() {
    let vectors = vectors();
    assert!(!vectors.is_empty(), "the golden bundle is empty");
    for v in &vectors {
        let folder = v.file.split('/').next().unwrap();
        assert!(FUNCTIONS.contains(&folder) || METHODS.contains(&folder), "{}: not an exported function", v.file);
        assert_eq!(v.function(), folder, "{}", v.file);
        assert!(v.doc["args"].is_array(), "{}: args", v.file);
        assert!(v.doc.get("expected").is_some() != v.doc.get("error").is_some(), "{}: needs exactly one of expected and error", v.file);
        if let Some(error) = v.doc.get("error") {
            assert_eq!(error["code"].as_str(), Some("invalid_input"), "{}", v.file);
        }
    }
}

#[wasm_bindgen_test]
fn golden_builtin_catalog() {
    replay("builtinCatalog");
}

#[wasm_bindgen_test]
fn golden_tool_manifest() {
    replay("toolManifest");
}

#[wasm_bindgen_test]
fn golden_resolve_tools() {
    replay("resolveTools");
}

#[wasm_bindgen_test]
fn golden_build_subprocess_worker_policy() {
    replay("buildSubprocessWorkerPolicy");
}

#[wasm_bindgen_test]
fn golden_project_runtime_policy() {
    replay("projectRuntimePolicy");
}

#[wasm_bindgen_test]
fn golden_runtime_diagnostic() {
    replay("runtimeDiagnostic");
}

#[wasm_bindgen_test]
fn golden_sync_catalog() {
    replay("syncCatalog");
}

#[wasm_bindgen_test]
fn golden_validate_tool_update() {
    replay("validateToolUpdate");
}

#[wasm_bindgen_test]
fn golden_tool_behavior_guidance() {
    replay("toolBehaviorGuidance");
}

#[wasm_bindgen_test]
fn golden_labels() {
    replay("labels");
}

#[wasm_bindgen_test]
fn golden_label() {
    replay("label");
}

#[wasm_bindgen_test]
fn golden_version() {
    replay("version");
    assert_eq!(wasm::version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn golden_explain_tool() {
    replay("explainTool");
}

#[wasm_bindgen_test]
fn golden_profile_route_diff() {
    replay("profileRouteDiff");
}

#[wasm_bindgen_test]
fn golden_to_mcp_annotations() {
    replay("toMcpAnnotations");
}

#[wasm_bindgen_test]
fn golden_check_tool_call() {
    replay("checkToolCall");
}

#[wasm_bindgen_test]
fn golden_catalog_info() {
    replay("catalogInfo");
}

#[wasm_bindgen_test]
fn golden_get_tool_schema() {
    replay("getToolSchema");
}

#[wasm_bindgen_test]
fn golden_get_tool_names_by_toolset() {
    replay("getToolNamesByToolset");
}

#[wasm_bindgen_test]
fn golden_tool_row_view() {
    replay("toolRowView");
}

#[wasm_bindgen_test]
fn golden_agent_resolve_input() {
    replay("agentResolveInput");
}

#[wasm_bindgen_test]
fn golden_from_mcp_tool() {
    replay("fromMcpTool");
}

#[wasm_bindgen_test]
fn golden_check_rules() {
    replay("checkRules");
}

#[wasm_bindgen_test]
fn golden_rule_defaults() {
    replay("ruleDefaults");
}

#[wasm_bindgen_test]
fn golden_check_network() {
    replay("checkNetwork");
}

#[wasm_bindgen_test]
fn golden_checker_check_text() {
    replay("checker.checkText");
}

#[wasm_bindgen_test]
fn every_function_has_vectors() {
    let vectors = vectors();
    for function in FUNCTIONS {
        assert!(vectors.iter().any(|v| v.function() == *function), "no golden vector of {function}");
    }
}

#[wasm_bindgen_test]
fn the_bindings_answer_what_the_json_api_answers_inside_the_same_module() {
    // The bytes of the JSON API (what native Rust prints), compared with the binding's answer after
    // the round trip through JS objects.
    let mut compared = 0;
    for v in vectors().iter().filter(|v| v.doc.get("expected").is_some() && !METHODS.contains(&v.function())) {
        let args: Vec<Value> = v.doc["args"].as_array().unwrap().iter().map(|a| json::js_normalize(a.clone())).collect();
        // In this build the JSON API answers `checkToolCall` as the decision's fields (the binding builds
        // the object from them); its JSON is `check_tool_call_json`'s.
        let native = if v.function() == "checkToolCall" { api::check_tool_call_json(&args[0]) } else { api::call(v.function(), &args) };
        let native = native.unwrap_or_else(|e| panic!("{}: {e}", v.file));
        let native = json::to_string(&json::js_normalize(json::parse(&native).unwrap())).unwrap();
        assert_eq!(outcome(call(v.function(), &v.args())), Outcome::Answer(native), "{}", v.file);
        compared += 1;
    }
    assert!(compared > 0);
}

/// `new ToolPolicyEngine({ catalog, governance })[method](rest)` for an input of `resolveTools` /
/// `runtimeDiagnostic`; a non-object input goes to a default engine as it is.
fn via_engine(method: &str, input: &JsValue) -> Outcome {
    let options = Object::new();
    let mut rest = input.clone();
    if input.is_object() && !Array::is_array(input) {
        let copy = Object::assign(&Object::new(), input.unchecked_ref());
        for key in ["catalog", "governance"] {
            let value = Reflect::get(&copy, &key.into()).unwrap();
            if !value.is_undefined() {
                Reflect::set(&options, &key.into(), &value).unwrap();
            }
            Reflect::delete_property(&copy, &key.into()).unwrap();
        }
        rest = copy.into();
    }
    let engine = match ToolPolicyEngine::new(options.into()) {
        Ok(engine) => engine,
        Err(e) => return outcome(Err(e)),
    };
    outcome(if method == "resolve" { engine.resolve(rest) } else { engine.diagnose(rest) })
}

fn engine_identity(function: &str, method: &str) {
    let vectors = vectors_of(function);
    assert!(!vectors.is_empty(), "no {function} vector");
    for v in &vectors {
        let args = v.args();
        let direct = outcome(call(function, &args));
        assert_eq!(direct, v.expected(), "{}", v.file);
        assert_eq!(via_engine(method, &arg(&args, 0)), direct, "engine.{method} on {}", v.file);
    }
}

#[wasm_bindgen_test]
fn engine_resolve_is_resolve_tools_on_every_vector() {
    engine_identity("resolveTools", "resolve");
}

#[wasm_bindgen_test]
fn engine_diagnose_is_runtime_diagnostic_on_every_vector() {
    engine_identity("runtimeDiagnostic", "diagnose");
}

/// `new ToolCallChecker({ policy, routes, catalog })` on every `checkToolCall` vector: `check(call)`
/// answers what `checkToolCall` answers (the same bytes, or the same error), and so does
/// `checkText(name, JSON.stringify(arguments))` on every answered call, with the arguments it read.
#[wasm_bindgen_test]
fn the_checker_is_check_tool_call_on_every_vector() {
    let vectors = vectors_of("checkToolCall");
    assert!(vectors.len() >= 30, "only {} checkToolCall vectors", vectors.len());
    let mut texts = 0;
    for v in &vectors {
        let args = v.args();
        let input = arg(&args, 0);
        let direct = outcome(call("checkToolCall", &args));
        assert_eq!(direct, v.expected(), "{}", v.file);
        let call_value = if input.is_object() { Reflect::get(&input, &"call".into()).unwrap() } else { JsValue::UNDEFINED };
        let checker = match ToolCallChecker::new(input.clone()) {
            Ok(checker) => checker,
            Err(e) => {
                assert_eq!(outcome(Err(e)), direct, "new ToolCallChecker on {}", v.file);
                continue;
            }
        };
        if call_value.is_undefined() || call_value.is_null() {
            continue;
        }
        assert_eq!(outcome(checker.check(call_value.clone())), direct, "checker.check on {}", v.file);
        let name = Reflect::get(&call_value, &"name".into()).unwrap();
        if let (Outcome::Answer(_), true) = (&direct, name.is_string()) {
            let arguments = Reflect::get(&call_value, &"arguments".into()).unwrap();
            let text: String = if arguments.is_undefined() { "null".into() } else { JSON::stringify(&arguments).unwrap().into() };
            let answer = checker.check_text(name.clone(), text.clone().into());
            let Outcome::Answer(direct) = &direct else { unreachable!() };
            let read = json::to_string(&json::js_normalize(json::parse(&text).unwrap())).unwrap();
            let with_arguments = Outcome::Answer(format!("{},\"arguments\":{read}}}", &direct[..direct.len() - 1]));
            assert_eq!(outcome(answer), with_arguments, "checker.checkText on {}", v.file);
            texts += 1;
        }
    }
    assert!(texts >= 30, "only {texts} checkText comparisons");
}

#[wasm_bindgen_test]
fn one_engine_answers_many_calls() {
    let options = JSON::parse(r#"{"catalog":[{"name":"bash","toolset":"base"},{"name":"crm","toolset":"crm","supportedInWorker":true,"workerRoutingHint":"local"}],"governance":[{"name":"bash","status":1,"workerRoutingStrategy":"force-disabled","id":3}]}"#).unwrap();
    let engine = ToolPolicyEngine::new(options.clone()).unwrap();
    for call_input in [r#"{}"#, r#"{"agent":{"toolsets":["crm"]}}"#, r#"{"sessionCwd":"/a/./b/..","shellPermitted":true,"subagentTools":["bash","ghost"]}"#] {
        let input = JSON::parse(call_input).unwrap();
        let full = Object::assign(&Object::assign(&Object::new(), input.unchecked_ref()), options.unchecked_ref());
        for _ in 0..3 {
            assert_eq!(outcome(engine.resolve(input.clone())), outcome(wasm::resolve_tools(full.clone().into())));
            assert_eq!(outcome(engine.diagnose(input.clone())), outcome(wasm::runtime_diagnostic(full.clone().into())));
        }
    }
}

fn assert_invalid(result: Result<JsValue, JsValue>, message_start: &str) {
    match outcome(result) {
        Outcome::Error { code, message } => {
            assert_eq!(code, "invalid_input");
            assert!(message.starts_with(message_start), "message {message:?} does not start with {message_start:?}");
        }
        Outcome::Answer(a) => panic!("answered {a} instead of throwing"),
    }
}

#[wasm_bindgen_test]
fn invalid_input_throws_an_error_with_code_and_the_module_keeps_answering() {
    let baseline = probe();
    let bad = [
        (r#"{"agent":{"toolsets":["base",7]}}"#, "agent.toolsets[1]: expected a string, got a number"),
        (r#"{"modelCapability":"audio"}"#, "modelCapability: "),
        (r#"{"catalog":[{"name":"a","toolset":"x"},{"name":"a","toolset":"x"}]}"#, "catalog[1].name: "),
        (r#"[]"#, "input: expected an object, got an array"),
        (r#"{"workspaceRoots":["relative"]}"#, "workspaceRoots[0]: "),
    ];
    for (input, message) in bad {
        let input = JSON::parse(input).unwrap();
        assert_invalid(wasm::runtime_diagnostic(input), message);
        assert_eq!(probe(), baseline, "after {message}");
    }
    assert_invalid(wasm::resolve_tools(JsValue::from(5)), "input: expected an object, got a number");
    assert_invalid(wasm::label("colors".into(), "red".into(), JsValue::UNDEFINED).map(JsValue::from), "group: ");
    assert_invalid(wasm::labels("fr".into()), "locale: ");
    assert_eq!(probe(), baseline);
}

#[wasm_bindgen_test]
fn a_bigint_a_function_or_a_symbol_is_invalid_input_not_a_trap() {
    let baseline = probe();
    let bigint: JsValue = js_sys::BigInt::from(5u32).into();
    let function: JsValue = Function::new_no_args("return 1").into();
    let symbol: JsValue = js_sys::Symbol::for_("netaclaw").into();
    assert_invalid(wasm::resolve_tools(bigint.clone()), "input: cannot be read as JSON: got a BigInt");
    assert_invalid(wasm::resolve_tools(function.clone()), "input: cannot be read as JSON: got a function");
    assert_invalid(wasm::resolve_tools(symbol), "input: cannot be read as JSON: got a symbol");
    assert_invalid(wasm::tool_manifest(bigint.clone()), "schema: ");
    assert_invalid(wasm::sync_catalog(JsValue::NULL, bigint.clone()), "rows: ");
    assert_invalid(wasm::tool_behavior_guidance(function, JsValue::UNDEFINED).map(JsValue::from), "toolNames: ");
    // A BigInt nested in an object makes JSON.stringify throw: still invalid_input.
    let nested = Object::new();
    Reflect::set(&nested, &"sessionCwd".into(), &bigint).unwrap();
    assert_invalid(wasm::runtime_diagnostic(nested.into()), "input: cannot be read as JSON");
    let engine = ToolPolicyEngine::new(JsValue::UNDEFINED).unwrap();
    assert_invalid(engine.resolve(bigint), "input: ");
    assert_eq!(probe(), baseline);
}

#[wasm_bindgen_test]
fn a_cycle_or_a_throwing_getter_is_invalid_input() {
    let cyclic = Object::new();
    Reflect::set(&cyclic, &"agent".into(), &cyclic).unwrap();
    assert_invalid(wasm::resolve_tools(cyclic.into()), "input: cannot be read as JSON");
    let getter =
        Function::new_with_args("", "const o = {}; Object.defineProperty(o, 'agent', { enumerable: true, get() { throw new Error('boom'); } }); return o;")
            .call0(&JsValue::UNDEFINED)
            .unwrap();
    assert_invalid(wasm::resolve_tools(getter), "input: cannot be read as JSON (boom)");
    // A function-valued field is absent, as JSON.stringify leaves it out.
    let with_function = Object::new();
    Reflect::set(&with_function, &"agent".into(), &Function::new_no_args("return 1")).unwrap();
    assert_eq!(outcome(wasm::resolve_tools(with_function.into())), outcome(wasm::resolve_tools(Object::new().into())));
}

#[wasm_bindgen_test]
fn a_freed_engine_throws_a_plain_error() {
    let engine = ToolPolicyEngine::new(JsValue::NULL).unwrap();
    let js: JsValue = engine.into();
    let free: Function = Reflect::get(&js, &"free".into()).unwrap().unchecked_into();
    let resolve: Function = Reflect::get(&js, &"resolve".into()).unwrap().unchecked_into();
    let empty: JsValue = Object::new().into();
    assert!(resolve.call1(&js, &empty).is_ok());
    free.call0(&js).unwrap();
    let err = resolve.call1(&js, &empty).unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert!(!err.is_instance_of::<js_sys::WebAssembly::RuntimeError>());
    assert!(!probe().is_empty());
}

#[wasm_bindgen_test]
fn labels_are_plain_objects_and_label_agrees_with_labels() {
    for locale in [JsValue::UNDEFINED, JsValue::NULL, "zh-CN".into(), "en".into(), "en-US".into(), "zh-Hans".into()] {
        let labels = wasm::labels(locale.clone()).unwrap();
        assert_eq!(Object::get_prototype_of(&labels), Object::get_prototype_of(&Object::new()));
        let groups: Vec<String> = Object::keys(labels.unchecked_ref::<Object>()).iter().map(|k| k.as_string().unwrap()).collect();
        assert_eq!(groups, ["reasons", "statuses", "routes", "kinds", "strategies"]);
        for group in &groups {
            let entries = Reflect::get(&labels, &group.into()).unwrap();
            assert_eq!(Object::get_prototype_of(&entries), Object::get_prototype_of(&Object::new()));
            for code in Object::keys(entries.unchecked_ref::<Object>()).iter() {
                let text = Reflect::get(&entries, &code).unwrap().as_string().unwrap();
                assert!(!text.is_empty());
                assert_eq!(wasm::label(group.into(), code, locale.clone()).unwrap(), text);
            }
        }
    }
    let zh = JSON::stringify(&wasm::labels(JsValue::UNDEFINED).unwrap()).unwrap();
    assert_eq!(zh, JSON::stringify(&wasm::labels("zh-CN".into()).unwrap()).unwrap());
    assert_ne!(zh, JSON::stringify(&wasm::labels("en".into()).unwrap()).unwrap());
}

#[wasm_bindgen_test]
fn answers_are_plain_objects_with_string_keyed_prompt_hints() {
    let input = JSON::parse(r#"{"catalog":[{"name":"bash","toolset":"base"},{"name":"0","toolset":"base","kind":"builtin"}],"governance":[{"name":"bash","status":1,"promptHint":"Careful."},{"name":"0","status":1,"promptHint":"Zero."}]}"#).unwrap();
    let result = wasm::resolve_tools(input).unwrap();
    let hints = Reflect::get(&result, &"toolPromptHints".into()).unwrap();
    assert!(!hints.is_instance_of::<js_sys::Map>());
    assert_eq!(Object::get_prototype_of(&hints), Object::get_prototype_of(&Object::new()));
    assert_eq!(JSON::stringify(&hints).unwrap(), r#"{"0":"Zero.","bash":"Careful."}"#);
    let names = Reflect::get(&result, &"toolNames".into()).unwrap();
    assert!(Array::is_array(&names));
}

#[wasm_bindgen_test]
fn same_input_same_bytes() {
    for v in vectors().iter().filter(|v| v.doc.get("expected").is_some() && !METHODS.contains(&v.function())) {
        let first = outcome(call(v.function(), &v.args()));
        assert_eq!(outcome(call(v.function(), &v.args())), first, "{}", v.file);
    }
}
