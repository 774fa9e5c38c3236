#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// runtimeDiagnostic(input): agrees with resolveTools; routes pass the policy; dropped tools not selected.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "runtimeDiagnostic",
        |e, mode| vec![shapes::diagnostic_input(e, mode)],
        |_, args, text| {
            checks::check_diagnostic(&args[0], text);
        },
    );
});
