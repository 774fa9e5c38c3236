#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// resolveTools(input): a partition of the catalog; protected core tools never dropped by checks 1–3;
// disabling one more tool never adds one.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "resolveTools",
        |e, mode| vec![shapes::resolve_input(e, mode)],
        |e, args, text| {
            let extra = shapes::name(e);
            checks::check_resolve(&args[0], text, Some(&extra));
        },
    );
});
