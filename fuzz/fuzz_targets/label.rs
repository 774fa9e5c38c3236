#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// label(group, code, locale?): equals labels(locale)[group][code].
fuzz_target!(|data: &[u8]| {
    fuzz_call(data, "label", |e, mode| shapes::label_args(e, mode), |_, args, text| checks::check_label(args, text));
});
