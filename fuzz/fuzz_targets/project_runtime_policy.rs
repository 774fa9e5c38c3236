#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};
use std::slice::from_ref;

// projectRuntimePolicy(input): fail closed, readonly/allowShell/roots respected whatever the strategy,
// and monotone under a stricter policy.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let input = shapes::projection_input(&mut e, mode);
    if let Some(text) = run("projectRuntimePolicy", from_ref(&input), mode) {
        let stricter = [shapes::chance(&mut e, 1, 2), shapes::chance(&mut e, 1, 2), shapes::chance(&mut e, 1, 2), shapes::chance(&mut e, 1, 2)];
        checks::check_projection(&input, &text, stricter);
    }
});
