#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// toolBehaviorGuidance(toolNames, toolPromptHints?): one line per distinct tool, hint or default.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "toolBehaviorGuidance",
        |e, mode| shapes::guidance_args(e, mode),
        |_, args, text| {
            checks::check_guidance(args, text);
        },
    );
});
