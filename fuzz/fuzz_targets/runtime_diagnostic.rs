#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};
use std::slice::from_ref;

// runtimeDiagnostic(input): agrees with resolveTools; routes pass the policy; dropped tools not selected.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let input = shapes::diagnostic_input(&mut e, mode);
    if let Some(text) = run("runtimeDiagnostic", from_ref(&input), mode) {
        checks::check_diagnostic(&input, &text);
    }
});
