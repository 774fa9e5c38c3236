#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};

// syncCatalog(catalog, rows): idempotent, never deleting, human fields kept.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let args = shapes::sync_args(&mut e, mode);
    if let Some(text) = run("syncCatalog", &args, mode) {
        checks::check_sync(&args[0], &args[1], &text);
    }
});
