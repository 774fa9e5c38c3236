//! `tests/golden.bundle.json` holds every golden vector of `tests/golden/` (file name and exact text)
//! so that the browser suite (`tests/web.rs`, compiled to wasm, where no file can be read) replays
//! them all. This test fails as soon as the bundle differs from the folder by one byte;
//! `GOLDEN_BUNDLE_WRITE=1 cargo test --test golden_bundle` rewrites it.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use serde_json::{Map, Value};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn writing() -> bool {
    std::env::var("GOLDEN_BUNDLE_WRITE").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `(file, text)` of every `tests/golden/<folder>/<case>.json`, sorted by folder then file name.
fn vectors(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut folders: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let mut files: Vec<PathBuf> = fs::read_dir(&folder)
            .expect("a golden folder is readable")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            let name = file.strip_prefix(dir).expect("inside the golden folder").to_string_lossy().replace('\\', "/");
            let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
            out.push((name, text));
        }
    }
    out
}

/// The bundle's text for these vectors.
fn bundle_text(vectors: &[(String, String)]) -> String {
    let items = vectors
        .iter()
        .map(|(file, text)| {
            let mut item = Map::new();
            item.insert("file".into(), Value::String(file.clone()));
            item.insert("text".into(), Value::String(text.clone()));
            Value::Object(item)
        })
        .collect();
    let mut doc = Map::new();
    doc.insert("vectors".into(), Value::Array(items));
    let mut text = serde_json::to_string_pretty(&Value::Object(doc)).expect("the bundle prints");
    text.push('\n');
    text
}

/// The `(file, text)` pairs a bundle holds.
fn read_bundle(text: &str) -> Vec<(String, String)> {
    let doc: Value = serde_json::from_str(text).expect("the bundle is JSON");
    doc["vectors"]
        .as_array()
        .expect("the bundle has a vectors array")
        .iter()
        .map(|v| (v["file"].as_str().expect("file").to_string(), v["text"].as_str().expect("text").to_string()))
        .collect()
}

/// What changed between two bundles, one line per file.
fn differences(old: &[(String, String)], new: &[(String, String)]) -> Vec<String> {
    let mut lines = Vec::new();
    for (file, text) in new {
        match old.iter().find(|(f, _)| f == file) {
            None => lines.push(format!("  added   {file}")),
            Some((_, t)) if t != text => lines.push(format!("  changed {file}")),
            Some(_) => {}
        }
    }
    for (file, _) in old {
        if !new.iter().any(|(f, _)| f == file) {
            lines.push(format!("  removed {file}"));
        }
    }
    lines
}

#[test]
fn the_bundle_holds_exactly_the_golden_folder() {
    let vectors = vectors(&root().join("golden"));
    assert!(!vectors.is_empty(), "tests/golden/ holds no vector");
    let expected = bundle_text(&vectors);
    let path = root().join("golden.bundle.json");
    let actual = fs::read_to_string(&path).unwrap_or_default();
    if actual == expected {
        return;
    }
    let old = if actual.is_empty() { Vec::new() } else { read_bundle(&actual) };
    let changes = differences(&old, &vectors);
    if writing() {
        fs::write(&path, &expected).expect("tests/golden.bundle.json is writable");
        eprintln!("wrote tests/golden.bundle.json ({} vectors):\n{}", vectors.len(), changes.join("\n"));
        return;
    }
    panic!(
        "tests/golden.bundle.json is out of date with tests/golden/ ({} change(s)):\n{}\nrun GOLDEN_BUNDLE_WRITE=1 cargo test --test golden_bundle",
        changes.len().max(1),
        if changes.is_empty() { "  (same files, different layout)".to_string() } else { changes.join("\n") },
    );
}

#[test]
fn the_sync_check_sees_every_kind_of_drift() {
    let a = vec![("f/a.json".to_string(), "{}".to_string()), ("f/b.json".to_string(), "[]".to_string())];
    let round_trip = read_bundle(&bundle_text(&a));
    assert_eq!(round_trip, a);
    let mut changed = a.clone();
    changed[1].1 = "[1]".into();
    assert_eq!(differences(&a, &changed), ["  changed f/b.json"]);
    assert_ne!(bundle_text(&a), bundle_text(&changed));
    assert_eq!(differences(&a, &a[..1]), ["  removed f/b.json"]);
    assert_eq!(differences(&a[..1], &a), ["  added   f/b.json"]);
    // One byte of whitespace in a vector file is drift too: the text is kept exactly.
    let spaced = vec![("f/a.json".to_string(), "{ }".to_string()), a[1].clone()];
    assert_ne!(bundle_text(&a), bundle_text(&spaced));
}
