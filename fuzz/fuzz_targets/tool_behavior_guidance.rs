#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};

// toolBehaviorGuidance(toolNames, toolPromptHints?): one line per distinct tool, hint or default.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let args = shapes::guidance_args(&mut e, mode);
    if let Some(text) = run("toolBehaviorGuidance", &args, mode) {
        checks::check_guidance(&args, &text);
    }
});
