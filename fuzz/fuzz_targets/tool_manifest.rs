#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};

// toolManifest(schema): no panic, deterministic, defaults and fail-closed profile of unknown tools.
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let args = shapes::manifest_args(&mut e, mode);
    if let Some(text) = run("toolManifest", &args, mode) {
        checks::check_manifest(&args[0], &text);
    }
});
