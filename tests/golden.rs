//! Golden vectors: `tests/golden/<functionName>/<case>.json`, each
//! `{ "description", "function", "args": [...], "expected": <JSON> }` or
//! `{ "description", "function", "args": [...], "error": { "code", "message" } }`.
//!
//! The same files are replayed by the JavaScript package in Node and in a browser, so they are data:
//! the arguments cross as JavaScript would pass them (`JSON.stringify` of the parsed file), and the
//! answer is compared byte for byte with the expectation printed as `JSON.stringify` prints it.
//!
//! A folder named `checker.checkText` holds vectors of a prepared checker's method: `args` is
//! `[options, name, argumentsJson]`, replayed as `new ToolCallChecker(options).checkText(name, argumentsJson)`.
//!
//! `GOLDEN_BLESS=1 cargo test --test golden -- --nocapture` writes the actual answer into every vector
//! whose expectation is missing or different, and lists the files it wrote. Read each of them against
//! the spec before keeping it: a blessed vector pins what the code does, not what the spec says.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use netaclaw_tool_policy::edge::api;
use netaclaw_tool_policy::json;
use serde_json::{Map, Value};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Every exported function (JS names), from the export table; each golden folder is named after one,
/// or after one of [`METHODS`].
const FUNCTIONS: &[&str] = api::Function::NAMES;

/// The methods of the package's classes that have golden folders of their own.
const METHODS: &[&str] = &["checker.checkText"];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

fn blessing() -> bool {
    std::env::var("GOLDEN_BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The vector files of one function folder, sorted by name.
fn vector_files(function: &str) -> Vec<PathBuf> {
    let dir = golden_dir().join(function);
    let Ok(entries) = fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    files
}

/// What a call gave: the JSON text of the answer, or the error's code and message.
#[derive(Debug, PartialEq)]
enum Outcome {
    Answer(String),
    Error { code: String, message: String },
}

impl Outcome {
    fn render(&self) -> String {
        match self {
            Outcome::Answer(text) => format!("answer {}", pretty_text(text)),
            Outcome::Error { code, message } => format!("error {code}: {message}"),
        }
    }
}

fn pretty_text(text: &str) -> String {
    serde_json::from_str::<Value>(text).ok().and_then(|v| serde_json::to_string_pretty(&v).ok()).unwrap_or_else(|| text.to_string())
}

/// An argument as the JavaScript package receives it: parsed by `JSON.parse`, printed by `JSON.stringify`.
fn as_javascript_passes_it(arg: &Value) -> Value {
    let text = json::to_string(&json::js_normalize(arg.clone())).expect("a JSON value prints");
    serde_json::from_str(&text).expect("printed JSON parses")
}

/// `new ToolCallChecker(options).checkText(name, argumentsJson)`, with the binding's errors.
fn check_text(args: &[Value]) -> Result<String, netaclaw_tool_policy::Error> {
    let checker = api::CallChecker::new(args.first().unwrap_or(&Value::Null))?;
    let text = |i: usize, path: &str| args.get(i).and_then(Value::as_str).ok_or_else(|| netaclaw_tool_policy::Error::invalid(path, "expected a string"));
    checker.check_text(text(1, "name")?, text(2, "argumentsJson")?)
}

fn run(function: &str, args: &[Value]) -> Outcome {
    let args: Vec<Value> = args.iter().map(as_javascript_passes_it).collect();
    let answer = if function == "checker.checkText" { check_text(&args) } else { api::call(function, &args) };
    match answer {
        Ok(text) => Outcome::Answer(text),
        Err(e) => Outcome::Error { code: e.code().to_string(), message: e.message() },
    }
}

/// A vector file read and checked for shape.
struct Vector {
    file: PathBuf,
    doc: Map<String, Value>,
    args: Vec<Value>,
    expected: Option<Outcome>,
}

fn read_vector(file: &Path, function: &str) -> Result<Vector, String> {
    let text = fs::read_to_string(file).map_err(|e| format!("cannot read: {e}"))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(doc) = doc else { return Err("not a JSON object".into()) };
    let allowed = ["description", "function", "args", "expected", "error"];
    if let Some(key) = doc.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("unexpected key {key:?}"));
    }
    match doc.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => {}
        _ => return Err("\"description\" must be a non-empty string".into()),
    }
    if doc.get("function").and_then(Value::as_str) != Some(function) {
        return Err(format!("\"function\" must be {function:?}, the name of its folder"));
    }
    let Some(Value::Array(args)) = doc.get("args") else { return Err("\"args\" must be an array".into()) };
    let args = args.clone();
    let expected = match (doc.get("expected"), doc.get("error")) {
        (Some(_), Some(_)) => return Err("has both \"expected\" and \"error\"".into()),
        (Some(expected), None) => {
            let text = json::to_string(&json::js_normalize(expected.clone())).map_err(|e| e.message())?;
            Some(Outcome::Answer(text))
        }
        (None, Some(error)) => {
            let code = error.get("code").and_then(Value::as_str);
            let message = error.get("message").and_then(Value::as_str);
            match (code, message) {
                (Some(code), Some(message)) if error.as_object().is_some_and(|e| e.len() == 2) => {
                    Some(Outcome::Error { code: code.to_string(), message: message.to_string() })
                }
                _ => return Err("\"error\" must be exactly { \"code\": string, \"message\": string }".into()),
            }
        }
        (None, None) => None,
    };
    Ok(Vector { file: file.to_path_buf(), doc, args, expected })
}

/// Writes the actual outcome into the vector (bless mode).
fn bless(vector: &Vector, actual: &Outcome) {
    let mut doc = Map::new();
    for key in ["description", "function", "args"] {
        if let Some(v) = vector.doc.get(key) {
            doc.insert(key.to_string(), v.clone());
        }
    }
    match actual {
        Outcome::Answer(text) => {
            doc.insert("expected".into(), serde_json::from_str(text).expect("the answer is JSON"));
        }
        Outcome::Error { code, message } => {
            let mut error = Map::new();
            error.insert("code".into(), Value::String(code.clone()));
            error.insert("message".into(), Value::String(message.clone()));
            doc.insert("error".into(), Value::Object(error));
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(doc)).expect("a vector prints");
    text.push('\n');
    fs::write(&vector.file, text).expect("the vector file is writable");
}

/// Replays every vector of one function; fails listing each failing file with expected and actual.
fn check_function(function: &str) {
    let files = vector_files(function);
    assert!(!files.is_empty(), "tests/golden/{function}/ has no vector");
    let mut report = String::new();
    let mut failures = 0;
    for file in &files {
        let name = file.strip_prefix(golden_dir()).unwrap_or(file).display().to_string();
        let vector = match read_vector(file, function) {
            Ok(v) => v,
            Err(why) => {
                failures += 1;
                let _ = writeln!(report, "\n✗ {name}: malformed vector: {why}");
                continue;
            }
        };
        let actual = run(function, &vector.args);
        if vector.expected.as_ref() == Some(&actual) {
            continue;
        }
        if blessing() {
            bless(&vector, &actual);
            eprintln!("blessed {name} ({})", if vector.expected.is_none() { "new" } else { "changed" });
            continue;
        }
        failures += 1;
        let expected = vector.expected.as_ref().map_or_else(|| "(none — write one, or run with GOLDEN_BLESS=1 and review it)".to_string(), Outcome::render);
        let _ = writeln!(report, "\n✗ {name}\n--- expected\n{expected}\n+++ actual\n{}", actual.render());
        if let (Some(Outcome::Answer(e)), Outcome::Answer(a)) = (&vector.expected, &actual) {
            let _ = writeln!(report, "--- expected (exact bytes)\n{e}\n+++ actual (exact bytes)\n{a}");
        }
    }
    assert!(failures == 0, "{failures} of {} golden vector(s) of {function} failed:{report}", files.len());
}

macro_rules! golden_tests {
    ($($test:ident => $function:literal),+ $(,)?) => {
        $(
            #[test]
            fn $test() {
                check_function($function);
            }
        )+

        #[test]
        fn every_function_has_a_test() {
            let tested = [$($function),+];
            assert_eq!(tested.len(), FUNCTIONS.len());
            for f in FUNCTIONS {
                assert!(tested.contains(&f), "no golden test for {f}");
            }
        }
    };
}

golden_tests!(
    golden_builtin_catalog => "builtinCatalog",
    golden_tool_manifest => "toolManifest",
    golden_resolve_tools => "resolveTools",
    golden_build_subprocess_worker_policy => "buildSubprocessWorkerPolicy",
    golden_project_runtime_policy => "projectRuntimePolicy",
    golden_runtime_diagnostic => "runtimeDiagnostic",
    golden_sync_catalog => "syncCatalog",
    golden_validate_tool_update => "validateToolUpdate",
    golden_tool_behavior_guidance => "toolBehaviorGuidance",
    golden_labels => "labels",
    golden_label => "label",
    golden_version => "version",
    golden_explain_tool => "explainTool",
    golden_profile_route_diff => "profileRouteDiff",
    golden_to_mcp_annotations => "toMcpAnnotations",
    golden_check_tool_call => "checkToolCall",
    golden_catalog_info => "catalogInfo",
    golden_get_tool_schema => "getToolSchema",
    golden_get_tool_names_by_toolset => "getToolNamesByToolset",
    golden_tool_row_view => "toolRowView",
    golden_agent_resolve_input => "agentResolveInput",
    golden_from_mcp_tool => "fromMcpTool",
    golden_check_rules => "checkRules",
    golden_rule_defaults => "ruleDefaults",
    golden_check_network => "checkNetwork",
);

/// Every `checkRules` vector with an answer says in its description what it decides (`… → ask`),
/// and the answer decides that: a vector blessed with a wrong decision fails here.
#[test]
fn every_rule_vector_decides_what_its_description_says() {
    let mut checked = 0;
    for file in vector_files("checkRules") {
        let vector = read_vector(&file, "checkRules").unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let Some(Outcome::Answer(answer)) = &vector.expected else { continue };
        let description = vector.doc["description"].as_str().unwrap_or_default();
        let said =
            description.rsplit_once(" → ").map(|(_, d)| d).unwrap_or_else(|| panic!("{}: the description ends with → allow, ask or deny", file.display()));
        let answer: Value = serde_json::from_str(answer).unwrap();
        assert_eq!(answer["decision"].as_str(), Some(said), "{}", file.display());
        checked += 1;
    }
    assert!(checked >= 150, "only {checked} rule vectors decide something");
}

#[test]
fn golden_checker_check_text() {
    check_function("checker.checkText");
}

#[test]
fn the_golden_folder_covers_every_function_and_nothing_else() {
    let dir = golden_dir();
    let entries: Vec<_> = fs::read_dir(&dir).map(|e| e.filter_map(Result::ok).collect()).unwrap_or_default();
    assert!(!entries.is_empty(), "{} is empty or missing", dir.display());
    for entry in &entries {
        let name = entry.file_name().to_string_lossy().to_string();
        assert!(entry.path().is_dir(), "tests/golden/{name} is not a function folder");
        assert!(FUNCTIONS.contains(&name.as_str()) || METHODS.contains(&name.as_str()), "tests/golden/{name}/ is not an exported function");
    }
    let mut total = 0;
    for function in FUNCTIONS.iter().chain(METHODS) {
        let n = vector_files(function).len();
        assert!(n > 0, "tests/golden/{function}/ has no vector");
        total += n;
    }
    assert!(total >= 70, "only {total} golden vectors");
}

#[test]
fn the_version_vector_is_the_cargo_version() {
    let files = vector_files("version");
    assert!(!files.is_empty());
    for file in files {
        let vector = read_vector(&file, "version").unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(vector.doc.get("expected"), Some(&Value::String(env!("CARGO_PKG_VERSION").to_string())), "{}", file.display());
    }
}

#[test]
fn the_runner_detects_a_wrong_expectation() {
    // A vector is only worth something if a different answer fails it.
    let actual = run("label", &[Value::from("routes"), Value::from("disabled"), Value::from("en")]);
    assert_eq!(actual, Outcome::Answer("\"Disabled\"".into()));
    assert_ne!(actual, Outcome::Answer("\"disabled\"".into()));
    let error = run("label", &[Value::from("colors"), Value::from("red")]);
    assert!(matches!(error, Outcome::Error { ref code, .. } if code == "invalid_input"), "{error:?}");
}

/// The prepared engine's split answer: on every `runtimeDiagnostic` vector with an answer,
/// `diagnose_routes` is the answer less `profiles` (same bytes otherwise) and `profiles()` is its
/// `profiles`.
#[test]
fn the_engine_hands_back_profiles_once_and_routes_per_call() {
    let mut compared = 0;
    for file in vector_files("runtimeDiagnostic") {
        let vector = read_vector(&file, "runtimeDiagnostic").unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let Some(Outcome::Answer(expected)) = vector.expected else { continue };
        let input = as_javascript_passes_it(&vector.args[0]);
        let engine = api::Prepared::new(&input).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let Value::Object(mut whole) = serde_json::from_str::<Value>(&expected).unwrap() else { panic!("an object") };
        let profiles = whole.shift_remove("profiles").expect("a diagnostic has profiles");
        let without = json::to_string(&json::js_normalize(Value::Object(whole))).unwrap();
        assert_eq!(engine.diagnose_routes(&input).unwrap(), without, "{}", file.display());
        let profiles_text = json::to_string(&json::js_normalize(profiles)).unwrap();
        assert_eq!(json::to_string(engine.profiles()).unwrap(), profiles_text, "{}", file.display());
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} vectors compared");
}

/// The prepared check (`api::CallChecker`, `ToolCallChecker`) on every `checkToolCall` vector: built
/// from the vector's policy, routes and catalog, it answers the call as `checkToolCall` does (the
/// same bytes, or the same error), from the call as a value and from its arguments' JSON text.
#[test]
fn the_prepared_check_replays_every_check_tool_call_vector() {
    let mut compared = 0;
    for file in vector_files("checkToolCall") {
        let vector = read_vector(&file, "checkToolCall").unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let stateless = run("checkToolCall", &vector.args);
        let input = as_javascript_passes_it(&vector.args[0]);
        let checker = match api::CallChecker::new(&input) {
            Ok(checker) => checker,
            Err(e) => {
                assert_eq!(Outcome::Error { code: e.code().to_string(), message: e.message() }, stateless, "{}", file.display());
                continue;
            }
        };
        let prepared = match checker.check_call(input.get("call").filter(|c| !c.is_null())) {
            Ok(text) => Outcome::Answer(text),
            Err(e) => Outcome::Error { code: e.code().to_string(), message: e.message() },
        };
        assert_eq!(prepared, stateless, "{}", file.display());
        if let (Some(name), Outcome::Answer(answer)) = (input["call"]["name"].as_str(), &stateless) {
            // Absent arguments read as `null`, which is what the text `null` says; the answer carries
            // the arguments it read.
            let text = input["call"].get("arguments").map_or_else(|| "null".to_string(), |a| json::to_string(a).unwrap());
            assert_eq!(checker.check_text(name, &text).unwrap(), with_arguments(answer, &text), "{}", file.display());
            compared += 1;
        }
    }
    assert!(compared >= 30, "only {compared} vectors compared");
}

/// A `check` answer (a JSON object) with `arguments` (JSON text) added last: what `checkText` answers.
fn with_arguments(answer: &str, arguments: &str) -> String {
    format!("{},\"arguments\":{arguments}}}", &answer[..answer.len() - 1])
}

/// `checkText` on text that is not what `JSON.stringify` prints: any JSON the model may send reads as
/// `JSON.parse` reads it (whitespace, escapes, a repeated key keeps its last value), and text that is
/// not JSON is a denied call, never an error.
#[test]
fn the_prepared_check_reads_the_model_s_text() {
    let input = serde_json::json!({
        "policy": { "workspaceRoots": ["/srv/w"], "allowShell": false, "readonly": true },
        "routes": [{ "name": "read_file", "status": "worker-local", "reasons": [] }],
    });
    let checker = api::CallChecker::new(&input).unwrap();
    let allowed =
        r#"{"decision":"worker-local","reason":null,"paths":[{"argument":"path","path":"/srv/w/b","write":false}],"detail":null,"arguments":{"path":"b"}}"#;
    for text in [" {\n \"path\" : \"b\" } ", r#"{"path":"a","path":"b"}"#, r#"{"path":"\u0062"}"#] {
        assert_eq!(checker.check_text("read_file", text).unwrap(), allowed, "{text}");
    }
    let not_json = r#"{"decision":"denied","reason":"invalid_tool_arguments","paths":[],"detail":"arguments: is not valid JSON (or longer than 32 MiB)"}"#;
    for text in ["{", "{\"path\": \"b\",}", "{\"path\": 1e400}", "nul", "{} {}", "\u{a0}", "\u{b}"] {
        assert_eq!(checker.check_text("read_file", text).unwrap(), not_json, "{text:?}");
    }
    let null = checker.check_text("read_file", "null").unwrap();
    assert!(null.contains("arguments: expected an object, got null") && null.ends_with(r#","arguments":null}"#), "{null}");
    // Empty text, or JSON whitespace only, is a call without arguments: `{}`.
    let list_dir = serde_json::json!({
        "policy": { "workspaceRoots": ["/srv/w"], "allowShell": false, "readonly": true },
        "routes": [{ "name": "list_dir", "status": "worker-local", "reasons": [] }],
    });
    let checker = api::CallChecker::new(&list_dir).unwrap();
    let first_root = r#"{"decision":"worker-local","reason":null,"paths":[{"argument":"path","path":"/srv/w","write":false}],"detail":null,"arguments":{}}"#;
    for text in ["", " ", " \t\r\n ", "{}", " {} "] {
        assert_eq!(checker.check_text("list_dir", text).unwrap(), first_root, "{text:?}");
    }
    // Over the input limit, blank or not, the text is not read.
    let blank = " ".repeat(32 * 1024 * 1024 + 1);
    assert_eq!(checker.check_text("list_dir", &blank).unwrap(), not_json);
}
