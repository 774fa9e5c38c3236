//! The layering of `src/`, read from the code itself: every `crate::…` path a module's library code
//! names (outside comments and its unit tests) is an arrow. The core modules never name the JSON edge
//! (`src/edge/`, with its codec `edge::json`, also reachable as `crate::json`): they return typed
//! values, and only the edge reads or prints wire text. The arrows
//! between modules form no cycle. `cargo test --test layers -- --nocapture` prints the graph.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The module a source file belongs to: `src/x.rs` and `src/x/…` are `x`.
fn module_of(relative: &str) -> String {
    let first = relative.split('/').next().unwrap_or(relative);
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::name` a line of code names (`use crate::{a, b::c}` names `a` and `b`).
fn named_modules(code: &str, out: &mut BTreeSet<String>) {
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
        rest = after;
    }
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The arrows between the crate's top-level modules (`lib` left out: it only declares them).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    files(&src, &mut paths);
    let modules: BTreeSet<String> = paths.iter().map(|p| module_of(&p.strip_prefix(&src).unwrap().to_string_lossy())).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &paths {
        let module = module_of(&path.strip_prefix(&src).unwrap().to_string_lossy());
        if module == "lib" {
            continue;
        }
        let mut named = BTreeSet::new();
        // The library's code: a module's unit tests (`mod tests`, at the end of a file) are left out.
        for line in fs::read_to_string(path).unwrap().lines().take_while(|l| !l.starts_with("mod tests")) {
            let code = line.split("//").next().unwrap_or("");
            named_modules(code, &mut named);
        }
        let arrows = graph.entry(module.clone()).or_default();
        // `crate::json` is the edge's codec re-exported at the crate root: naming it is naming the edge.
        arrows.extend(named.into_iter().map(|n| if n == "json" { String::from("edge") } else { n }).filter(|n| *n != module && modules.contains(n)));
    }
    graph
}

#[test]
fn the_core_never_names_the_edge() {
    let graph = graph();
    assert!(graph.contains_key("edge") && graph.contains_key("governance"), "the modules were found");
    let offenders: Vec<&String> = graph.iter().filter(|(m, arrows)| *m != "edge" && arrows.contains("edge")).map(|(m, _)| m).collect();
    assert!(offenders.is_empty(), "core modules naming the edge: {offenders:?}");
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = graph();
    for (module, arrows) in &graph {
        println!("{module} -> {}", arrows.iter().cloned().collect::<Vec<_>>().join(", "));
    }
    // Depth-first search; a module met again while still on the path closes a cycle.
    fn visit<'a>(m: &'a str, graph: &'a BTreeMap<String, BTreeSet<String>>, path: &mut Vec<&'a str>, done: &mut BTreeSet<&'a str>) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| *p == m) {
            let mut cycle: Vec<String> = path[at..].iter().map(|s| s.to_string()).collect();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m);
        for next in graph.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(m);
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        let cycle = visit(module, &graph, &mut Vec::new(), &mut done);
        assert!(cycle.is_none(), "import cycle: {}", cycle.unwrap_or_default().join(" -> "));
    }
}

#[test]
fn the_reader_of_paths_sees_groups_and_nesting() {
    let mut named = BTreeSet::new();
    named_modules("use crate::{edge::api, catalog}; let x = crate::json::parse(t);", &mut named);
    assert_eq!(named.into_iter().collect::<Vec<_>>(), ["catalog", "edge", "json"]);
}
