#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy_fuzz::{checks, fuzz_call, shapes};

// labels(locale?): no panic, deterministic, every group present.
fuzz_target!(|data: &[u8]| {
    fuzz_call(
        data,
        "labels",
        |e, mode| shapes::labels_args(e, mode),
        |_, _, text| {
            let out = checks::parse(text);
            for group in ["reasons", "statuses", "routes", "kinds", "strategies"] {
                let codes = shapes::group_codes(group);
                let labels = out[group].as_object().map(|m| m.len());
                assert_eq!(labels, Some(codes.len()), "labels.{group} has one label per code");
                for code in codes {
                    assert!(out[group][*code].as_str().is_some_and(|l| !l.is_empty()), "labels.{group}.{code} is missing");
                }
            }
        },
    );
});
