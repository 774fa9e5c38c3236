#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy::edge::api::{self, Prepared};
use netaclaw_tool_policy::json;
use serde_json::Value;

/// Equal values, numbers compared as doubles within one unit in the last place (serde_json's default
/// float parsing is not always correctly rounded; the package's reader is).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y || (x - y).abs() <= f64::EPSILON * y.abs(),
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().zip(y).all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy)),
        _ => a == b,
    }
}

const FUNCTIONS: [&str; 17] = [
    "toolManifest", "resolveTools", "buildSubprocessWorkerPolicy", "projectRuntimePolicy", "runtimeDiagnostic", "syncCatalog", "validateToolUpdate",
    "toolBehaviorGuidance", "labels", "label", "builtinCatalog", "version", "engine", "noSuchFunction", "explainTool", "profileRouteDiff", "toMcpAnnotations",
];

// Arbitrary text as input: the first byte picks a function (and whether a top-level array spreads into
// positional arguments), the rest is parsed as JSON. No panic, errors are invalid_input, answers
// deterministic and valid JSON.
fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    // The reader accepts exactly what serde_json accepts, and the writer's text reads back as the value.
    let reference = serde_json::from_str::<Value>(text);
    let parsed = json::parse(text);
    match (&parsed, &reference) {
        (Ok(ours), Ok(theirs)) => assert!(same(ours, theirs), "the reader and serde_json read {text:?} differently: {ours} / {theirs}"),
        (Err(_), Err(_)) => {}
        _ => panic!("the reader and serde_json disagree on {text:?}: {parsed:?} / {reference:?}"),
    }
    if let Ok(value) = &parsed {
        let normalized = json::js_normalize(value.clone());
        let printed = json::to_string(&normalized).unwrap_or_else(|e| panic!("cannot print {normalized}: {e}"));
        let again = json::parse(&printed).unwrap_or_else(|e| panic!("printed text does not read back: {printed} ({e})"));
        assert!(same(&json::js_normalize(again), &normalized), "print/read round trip changed {text:?}: {printed}");
    }
    let value = match parsed {
        Ok(v) => v,
        Err(e) => {
            assert_eq!(e.code(), "invalid_input");
            assert!(e.message().starts_with("input: "), "{}", e.message());
            return;
        }
    };
    let function = FUNCTIONS[selector as usize % FUNCTIONS.len()];
    if function == "engine" {
        if let Ok(engine) = Prepared::new(&value) {
            let a = engine.resolve(&value).and_then(|r| json::to_string(&r));
            let b = api::call("resolveTools", std::slice::from_ref(&value));
            assert_eq!(a, b, "the engine and resolveTools disagree");
            let a = engine.diagnose(&value).and_then(|r| json::to_string(&r));
            let b = api::call("runtimeDiagnostic", std::slice::from_ref(&value));
            assert_eq!(a, b, "the engine and runtimeDiagnostic disagree");
        }
        return;
    }
    let args = match value {
        Value::Array(items) if selector >= 128 => items,
        other => vec![other],
    };
    let first = api::call(function, &args);
    let second = api::call(function, &args);
    assert_eq!(first, second, "{function} is not deterministic");
    match first {
        Ok(out) => {
            serde_json::from_str::<Value>(&out).unwrap_or_else(|e| panic!("{function} answered invalid JSON ({e}): {out}"));
        }
        Err(e) => assert_eq!(e.code(), "invalid_input"),
    }
});
