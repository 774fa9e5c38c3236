#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// projectRuntimePolicy(input): fail closed, readonly/allowShell/roots respected whatever the strategy,
// and monotone under a stricter policy.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "projectRuntimePolicy",
        |e, mode| vec![shapes::projection_input(e, mode)],
        |e, args, text| {
            let stricter = [shapes::chance(e, 1, 2), shapes::chance(e, 1, 2), shapes::chance(e, 1, 2), shapes::chance(e, 1, 2)];
            checks::check_projection(&args[0], text, stricter);
        },
    );
});
