#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// syncCatalog(catalog, rows): idempotent, never deleting, human fields kept.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "syncCatalog",
        |e, mode| shapes::sync_args(e, mode),
        |_, args, text| {
            checks::check_sync(&args[0], &args[1], text);
        },
    );
});
