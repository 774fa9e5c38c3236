#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, run, shapes, Bytes};

// label(group, code, locale?): equals labels(locale)[group][code].
fuzz_target!(|data: &[u8]| {
    let mut e = Bytes::new(data);
    let mode = e.mode();
    let args = shapes::label_args(&mut e, mode);
    if let Some(text) = run("label", &args, mode) {
        checks::check_label(&args, &text);
    }
});
