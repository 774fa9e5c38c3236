#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// validateToolUpdate(input): mirror fields never change, protected core tools never disabled.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "validateToolUpdate",
        |e, mode| vec![shapes::update_input(e, mode)],
        |_, args, text| {
            checks::check_update(&args[0], text);
        },
    );
});
