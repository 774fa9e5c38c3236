#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};
use std::slice::from_ref;

// validateToolUpdate(input): mirror fields never change, protected core tools never disabled.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let input = shapes::update_input(&mut e, mode);
    if let Some(text) = run("validateToolUpdate", from_ref(&input), mode) {
        checks::check_update(&input, &text);
    }
});
