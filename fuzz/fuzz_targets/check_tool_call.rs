#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// checkToolCall(input): never runs a call whose route is blocked, a path outside every root, a write
// path under readonly or a shell without allowShell; the decision is the route's; malformed arguments
// are a denial, never an error.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "checkToolCall",
        |e, mode| vec![shapes::call_input(e, mode)],
        |_, args, text| {
            checks::check_call(&args[0], text);
        },
    );
});
