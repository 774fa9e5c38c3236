#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};
use std::slice::from_ref;

// buildSubprocessWorkerPolicy(input): normalized distinct roots; shell/write only when permitted and needed.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let input = shapes::worker_policy_input(&mut e, mode);
    if let Some(text) = run("buildSubprocessWorkerPolicy", from_ref(&input), mode) {
        checks::check_worker_policy(&input, &text);
    }
});
