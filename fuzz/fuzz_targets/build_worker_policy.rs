#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// buildSubprocessWorkerPolicy(input): normalized distinct roots; shell/write only when permitted and needed.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "buildSubprocessWorkerPolicy",
        |e, mode| vec![shapes::worker_policy_input(e, mode)],
        |_, args, text| {
            checks::check_worker_policy(&args[0], text);
        },
    );
});
