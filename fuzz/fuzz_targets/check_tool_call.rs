#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};
use std::slice::from_ref;

// checkToolCall(input): never runs a call whose route is blocked, a path outside every root, a write
// path under readonly or a shell without allowShell; the decision is the route's; malformed arguments
// are a denial, never an error.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let input = shapes::call_input(&mut e, mode);
    if let Some(text) = run("checkToolCall", from_ref(&input), mode) {
        checks::check_call(&input, &text);
    }
});
