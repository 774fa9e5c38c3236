#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// toolManifest(schema): no panic, deterministic, defaults and fail-closed profile of unknown tools.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "toolManifest",
        |e, mode| shapes::manifest_args(e, mode),
        |_, args, text| {
            checks::check_manifest(&args[0], text);
        },
    );
});
