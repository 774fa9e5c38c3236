#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy::edge::api::Prepared;
use netaclaw_tool_policy::json;
use netaclaw_tool_policy_fuzz::shapes::Entropy;
use netaclaw_tool_policy_fuzz::{checks, shapes, Bytes};
use serde_json::Value;

// ToolPolicyEngine (api::Prepared): one engine answers several calls byte-identically to
// resolveTools / runtimeDiagnostic given the same catalog and governance, and keeps no state.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let (options, known) = shapes::engine_options(&mut e, mode);
    let prepared = Prepared::new(&options);
    let calls = 1 + e.below(3);
    for _ in 0..calls {
        let mut map = serde_json::Map::new();
        let diagnose = shapes::chance(&mut e, 1, 2);
        if diagnose {
            shapes::diagnostic_fields(&mut e, mode, &mut map, &known);
        } else {
            shapes::resolve_fields(&mut e, mode, &mut map, &known);
        }
        let call_input = Value::Object(map.clone());
        let mut merged = map;
        for key in ["catalog", "governance"] {
            if let Some(v) = options.get(key) {
                merged.insert(key.to_string(), v.clone());
            }
        }
        let merged = Value::Object(merged);
        let function = if diagnose { "runtimeDiagnostic" } else { "resolveTools" };
        let direct = checks::call(function, std::slice::from_ref(&merged));
        let Ok(prepared) = prepared.as_ref() else {
            let message = prepared.as_ref().err().map(|e| e.message());
            assert_eq!(direct.err(), message, "the engine and {function} disagree on bad options");
            assert!(!mode.valid, "the engine refused valid options: {message:?}");
            return;
        };
        let answer = |p: &Prepared| {
            if diagnose {
                p.diagnose(&call_input).and_then(|r| json::to_string(&r))
            } else {
                p.resolve(&call_input).and_then(|r| json::to_string(&r))
            }
        };
        let first = answer(prepared).map_err(|e| e.message());
        let second = answer(prepared).map_err(|e| e.message());
        assert_eq!(first, second, "the engine is not deterministic");
        assert_eq!(first, direct, "the engine and {function} disagree");
        match first {
            Ok(text) if diagnose => checks::check_diagnostic(&merged, &text),
            Ok(text) => checks::check_resolve(&merged, &text, None),
            Err(message) => assert!(!mode.valid, "the engine refused a valid input: {message}"),
        }
    }
});
