//! The export table (`edge::exports`) is the one list of the package's functions: the JavaScript
//! entries and every test's function list are made from it or checked against it here.
//! `EXPORTS_WRITE=1 cargo test --test exports` rewrites the generated files.
#![cfg(not(target_arch = "wasm32"))]

use netaclaw_tool_policy::edge::api::{Answer, Function, EXPORTS};
use std::fs;
use std::path::Path;

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Compares a generated file with its text (or writes it under `EXPORTS_WRITE=1`).
fn generated(path: &str, text: &str) {
    let file = repo(path);
    if std::env::var_os("EXPORTS_WRITE").is_some() {
        fs::write(&file, text).unwrap();
        return;
    }
    let on_disk = fs::read_to_string(&file).unwrap_or_default();
    assert!(on_disk == text, "{path} is not what the export table makes; run EXPORTS_WRITE=1 cargo test --test exports\n--- expected ---\n{text}");
}

#[test]
fn the_table_names_each_function_once_in_the_order_of_the_enum() {
    assert_eq!(EXPORTS.len(), Function::ALL.len());
    for (i, export) in EXPORTS.iter().enumerate() {
        assert_eq!(export.function as usize, i);
        assert_eq!(export.function.export(), export);
        assert_eq!(Function::parse(export.name), Some(export.function));
        assert!(EXPORTS.iter().filter(|e| e.name == export.name).count() == 1, "{} twice", export.name);
        let optional_then_required = export.params.windows(2).any(|w| w[0].optional && !w[1].optional);
        assert!(!optional_then_required, "{}: an optional parameter before a required one", export.name);
    }
    assert_eq!(Function::parse("nope"), None);
    assert!(matches!(Function::Version.export().answer, Answer::Text));
}

#[test]
fn the_node_test_function_list_is_the_table() {
    let mut text = String::from("[\n");
    for (i, export) in EXPORTS.iter().enumerate() {
        text.push_str("  \"");
        text.push_str(export.name);
        text.push_str(if i + 1 < EXPORTS.len() { "\",\n" } else { "\"\n" });
    }
    text.push_str("]\n");
    generated("js/test/lib/functions.json", &text);
}

#[test]
fn every_function_has_golden_vectors_and_every_other_folder_a_function() {
    let folders: Vec<String> = fs::read_dir(repo("tests/golden")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    for export in EXPORTS {
        assert!(folders.iter().any(|f| f == export.name), "no tests/golden/{}/", export.name);
    }
    // Besides the functions, one folder holds vectors of a class method (`tests/golden.rs` replays it).
    for folder in folders.iter().filter(|f| *f != "checker.checkText") {
        assert!(Function::parse(folder).is_some(), "tests/golden/{folder}/ is not an exported function");
    }
}
