#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};
use std::slice::from_ref;

// resolveTools(input): a partition of the catalog; protected core tools never dropped by checks 1–3;
// disabling one more tool never adds one.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let input = shapes::resolve_input(&mut e, mode);
    if let Some(text) = run("resolveTools", from_ref(&input), mode) {
        let extra = shapes::name(&mut e);
        checks::check_resolve(&input, &text, Some(&extra));
    }
});
