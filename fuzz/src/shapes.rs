//! Random JSON inputs for every exported function, drawn from any source of entropy: the fuzz targets
//! draw from libFuzzer's bytes (`arbitrary::Unstructured`), the differential generator from a seeded
//! PRNG. In `valid` mode every input is one the package must accept; otherwise some values are made
//! wrong (types, enum strings, lengths, duplicate names, relative roots) so that error paths run too.
#![allow(dead_code)]

use serde_json::{json, Map, Number, Value};

/// A source of choices.
pub trait Entropy {
    /// A number in `0..n` (`n > 0`). A source that has run dry answers 0.
    fn below(&mut self, n: u32) -> u32;
}

/// splitmix64: a small, seedable PRNG for reproducible runs.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Entropy for SplitMix {
    fn below(&mut self, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        (self.next_u64() % u64::from(n)) as u32
    }
}

pub const BUILTIN_NAMES: [&str; 19] = [
    "bash", "read_file", "list_dir", "find_files", "grep", "write_file", "edit", "patch", "todo", "clarify", "escalate", "read_skill", "read_skill_file",
    "skill_manage", "execute_skill", "memory_save", "memory_recall", "delegate_task", "delegate_parallel",
];

/// Names that are not builtin, chosen to stress JS object semantics and key order.
pub const OTHER_NAMES: [&str; 18] = [
    "web_search", "deploy", "db_query", "x", "a b", "__proto__", "constructor", "toString", "hasOwnProperty", "0", "1", "10", "01", "4294967295", "名前",
    "tool-ß", "😀", "line\u{2028}sep",
];

pub const TOOLSETS: [&str; 11] = ["base", "planning", "skills", "memory", "delegation", "admin", "vision", "document", "research", "ops", "工具"];
pub const KINDS: [&str; 6] = ["builtin", "memory", "skill", "delegation", "admin", "custom"];
pub const MODES: [&str; 2] = ["parallel", "sequential"];
pub const HINTS: [&str; 3] = ["local", "main-process-proxy", "disabled"];
pub const STRATEGIES: [&str; 4] = ["auto", "force-local", "force-main-process-proxy", "force-disabled"];
pub const VISIBILITIES: [&str; 3] = ["internal", "tool", "skill"];
pub const CAPABILITIES: [&str; 3] = ["text", "vision", "multimodal"];
pub const CREW_ROLES: [&str; 2] = ["master", "sub"];
pub const STATUSES: [&str; 4] = ["worker-local", "main-process-proxied", "disabled-in-worker", "not-selected"];
pub const ROUTES: [&str; 3] = ["worker-local", "main-process-proxy", "disabled"];
pub const REASONS: [&str; 25] = [
    "workspace_root_required", "shell_disabled_by_policy", "write_blocked_by_readonly_policy", "requires_main_process_proxy", "unsupported_in_worker",
    "not_selected_for_subagent", "disabled_by_routing_strategy", "toolset_not_selected", "disabled_by_agent", "disabled_globally", "capability_mismatch",
    "memory_disabled", "no_skills_bound", "crew_master_only", "core_tool_cannot_be_disabled", "unknown_tool", "unknown_toolset", "capability_fallback_text",
    "field_is_readonly", "prompt_hint_not_supported", "invalid_value", "path_outside_workspace", "invalid_tool_arguments", "tool_not_offered",
    "shell_sandbox_unavailable",
];
pub const LOCALES: [&str; 7] = ["zh-CN", "en", "en-US", "zh-Hans", "EN", "zh_TW", "en-GB"];
pub const BAD_LOCALES: [&str; 4] = ["fr", "", "de-DE", "e"];
pub const ROOTS: [&str; 16] = [
    "/", "/w", "/w/", "/w/./a/../b", "//srv//x/", "/a/..", "/../..", "/home/u/proj", "/home/u/proj/", "C:\\x", "c:/y/../z", "D:\\", "d:\\Work\\.\\repo\\",
    "/w", "/tmp/中文/dir", "Z:/a//b/..",
];
pub const BAD_ROOTS: [&str; 5] = ["rel", "", "\\\\srv\\share", "./x", "C:"];
pub const ROW_FIELDS: [&str; 13] = [
    "name", "label", "toolset", "description", "visibility", "capability", "status", "isCore", "canDisable", "promptHint", "sort", "extra",
    "workerRoutingStrategy",
];
pub const TEXTS: [&str; 12] = [
    "", "  ", "Prefer small hunks.", "Use it wisely", "提示：先读后写", "tab\tand\nnewline", "quote \" and \\ backslash", "\u{0}nul", "\u{1f}unit", "emoji 😀",
    "\u{7f}del\u{2029}", "  padded  ",
];

/// Picks one of `items`.
pub fn pick<'a, E: Entropy + ?Sized>(e: &mut E, items: &[&'a str]) -> &'a str {
    items[e.below(items.len() as u32) as usize]
}

/// True with probability `num / den`.
pub fn chance<E: Entropy + ?Sized>(e: &mut E, num: u32, den: u32) -> bool {
    e.below(den) < num
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

/// How the generator behaves.
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    /// Only inputs the package must accept.
    pub valid: bool,
    /// Upper bound on list lengths.
    pub max_items: u32,
}

impl Mode {
    pub fn valid(max_items: u32) -> Mode {
        Mode { valid: true, max_items }
    }

    /// Whether to spoil this value (never in valid mode; rarely otherwise).
    pub fn spoil<E: Entropy + ?Sized>(&self, e: &mut E) -> bool {
        !self.valid && chance(e, 1, 12)
    }
}

/// A value of the wrong kind for any field.
pub fn wrong<E: Entropy + ?Sized>(e: &mut E) -> Value {
    match e.below(9) {
        0 => Value::Bool(true),
        1 => json!(2),
        2 => json!(-1.5),
        3 => s("nope"),
        4 => json!([]),
        5 => json!({}),
        6 => s(""),
        7 => s(&"n".repeat(101)),
        _ => json!([1, {"a": null}]),
    }
}

/// A number a JS engine and serde might print differently if the edge were careless.
pub fn number<E: Entropy + ?Sized>(e: &mut E) -> Value {
    let f = |x: f64| Number::from_f64(x).map_or(Value::Null, Value::Number);
    match e.below(16) {
        0 => json!(0),
        1 => json!(1),
        2 => json!(-1),
        3 => f(0.5),
        4 => f(1.5),
        5 => f(-0.0),
        6 => f(1e21),
        7 => f(1e-7),
        8 => json!(123_456_789_012_i64),
        9 => json!(9_007_199_254_740_991_i64),
        10 => json!(9_007_199_254_740_993_u64),
        11 => f(0.1 + 0.2),
        12 => f(1e300),
        13 => f(5e-324),
        14 => f(1.0),
        _ => json!(e.below(1000)),
    }
}

/// Any JSON value (depth-limited).
pub fn any<E: Entropy + ?Sized>(e: &mut E, depth: u32) -> Value {
    let top = if depth == 0 { 4 } else { 6 };
    match e.below(top) {
        0 => Value::Null,
        1 => Value::Bool(chance(e, 1, 2)),
        2 => number(e),
        3 => s(pick(e, &TEXTS)),
        4 => {
            let n = e.below(4);
            Value::Array((0..n).map(|_| any(e, depth - 1)).collect())
        }
        _ => {
            let n = e.below(4);
            let mut map = Map::new();
            for _ in 0..n {
                let key = if chance(e, 1, 2) { pick(e, &OTHER_NAMES) } else { pick(e, &ROW_FIELDS) };
                map.insert(key.to_string(), any(e, depth - 1));
            }
            Value::Object(map)
        }
    }
}

/// A tool name: builtin, other, or numbered.
pub fn name<E: Entropy + ?Sized>(e: &mut E) -> String {
    match e.below(3) {
        0 => pick(e, &BUILTIN_NAMES).to_string(),
        1 => pick(e, &OTHER_NAMES).to_string(),
        _ => format!("t{}", e.below(40)),
    }
}

fn name_value<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    if mode.spoil(e) {
        return wrong(e);
    }
    s(&name(e))
}

fn enum_value<E: Entropy + ?Sized>(e: &mut E, mode: Mode, values: &[&str]) -> Value {
    if mode.spoil(e) {
        return if chance(e, 1, 2) { s("Unknown") } else { wrong(e) };
    }
    s(pick(e, values))
}

fn boolean<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    if mode.spoil(e) {
        return if chance(e, 1, 2) { json!(1) } else { s("true") };
    }
    Value::Bool(chance(e, 1, 2))
}

/// Sets `key` to `make()` with probability 1/2, or to `null` now and then (optional fields).
fn maybe<E: Entropy + ?Sized>(e: &mut E, map: &mut Map<String, Value>, key: &str, make: impl FnOnce(&mut E) -> Value) {
    match e.below(8) {
        0..=3 => {}
        4 => {
            map.insert(key.to_string(), Value::Null);
        }
        _ => {
            let v = make(e);
            map.insert(key.to_string(), v);
        }
    }
}

/// One `ToolSchema` named `name`.
pub fn schema<E: Entropy + ?Sized>(e: &mut E, mode: Mode, name: &str) -> Value {
    let mut map = Map::new();
    map.insert("name".into(), if mode.spoil(e) { wrong(e) } else { s(name) });
    map.insert("toolset".into(), if mode.spoil(e) { wrong(e) } else { s(pick(e, &TOOLSETS)) });
    maybe(e, &mut map, "description", |e| if mode.spoil(e) { json!(3) } else { s(pick(e, &TEXTS)) });
    maybe(e, &mut map, "visibility", |e| enum_value(e, mode, &VISIBILITIES));
    maybe(e, &mut map, "capability", |e| enum_value(e, mode, &CAPABILITIES));
    for key in ["isCore", "canDisable", "supportsPromptHint"] {
        maybe(e, &mut map, key, |e| boolean(e, mode));
    }
    maybe(e, &mut map, "kind", |e| enum_value(e, mode, &KINDS));
    maybe(e, &mut map, "executionMode", |e| enum_value(e, mode, &MODES));
    maybe(e, &mut map, "supportedInWorker", |e| boolean(e, mode));
    maybe(e, &mut map, "workerRoutingHint", |e| enum_value(e, mode, &HINTS));
    for key in ["requiresShell", "requiresWrite", "requiresSkillScope", "requiresWorkspaceRoot"] {
        maybe(e, &mut map, key, |e| boolean(e, mode));
    }
    if chance(e, 1, 10) {
        map.insert("unknownField".into(), any(e, 1));
    }
    Value::Object(map)
}

/// A catalog: `None` (absent), `null`, or a list of schemas with distinct names (in valid mode).
/// Returns the value and the names of its tools (the builtin names for an absent catalog).
pub fn catalog<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> (Option<Value>, Vec<String>) {
    let builtin = || BUILTIN_NAMES.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    match e.below(6) {
        0 => return (None, builtin()),
        1 => return (Some(Value::Null), builtin()),
        _ => {}
    }
    if mode.spoil(e) {
        return (Some(wrong(e)), Vec::new());
    }
    let n = e.below(mode.max_items + 1);
    let mut names: Vec<String> = Vec::new();
    let mut items = Vec::new();
    for _ in 0..n {
        let candidate = name(e);
        if names.contains(&candidate) && !mode.spoil(e) {
            continue;
        }
        items.push(schema(e, mode, &candidate));
        names.push(candidate);
    }
    (Some(Value::Array(items)), names)
}

/// A name from `known` most of the time, else any name.
pub fn name_from<E: Entropy + ?Sized>(e: &mut E, known: &[String]) -> String {
    if !known.is_empty() && chance(e, 4, 5) {
        known[e.below(known.len() as u32) as usize].clone()
    } else {
        name(e)
    }
}

/// A list of names, mostly from `known`.
pub fn names<E: Entropy + ?Sized>(e: &mut E, mode: Mode, known: &[String]) -> Value {
    if mode.spoil(e) {
        return wrong(e);
    }
    let n = e.below(mode.max_items + 1);
    Value::Array((0..n).map(|_| if mode.spoil(e) { wrong(e) } else { s(&name_from(e, known)) }).collect())
}

fn status<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    if mode.spoil(e) {
        return if chance(e, 1, 2) { json!(2) } else { s("1") };
    }
    match e.below(6) {
        0 => json!(0),
        1 => Value::Bool(false),
        2 => Value::Bool(true),
        3 => Value::Null,
        _ => json!(1),
    }
}

/// Rows with distinct names (in valid mode; a repeated one now and then otherwise), mostly names of
/// `known`: `row` makes the row of each name. Otherwise now and then a wrong value for the whole list.
fn distinct_rows<E: Entropy + ?Sized>(e: &mut E, mode: Mode, known: &[String], mut row: impl FnMut(&mut E, &str) -> Map<String, Value>) -> Value {
    if mode.spoil(e) {
        return wrong(e);
    }
    let n = e.below(mode.max_items + 1);
    let mut used: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for _ in 0..n {
        let row_name = name_from(e, known);
        if used.contains(&row_name) && !mode.spoil(e) {
            continue;
        }
        used.push(row_name.clone());
        rows.push(Value::Object(row(e, &row_name)));
    }
    Value::Array(rows)
}

/// Governance rows, names distinct (in valid mode), mostly catalog tools.
pub fn governance<E: Entropy + ?Sized>(e: &mut E, mode: Mode, known: &[String]) -> Value {
    distinct_rows(e, mode, known, |e, row_name| {
        let mut map = Map::new();
        if chance(e, 1, 4) {
            map.insert("id".into(), number(e));
        }
        map.insert("name".into(), if mode.spoil(e) { wrong(e) } else { s(row_name) });
        maybe(e, &mut map, "label", |e| s(pick(e, &TEXTS)));
        maybe(e, &mut map, "toolset", |e| s(pick(e, &TOOLSETS)));
        if chance(e, 3, 4) {
            map.insert("status".into(), status(e, mode));
        }
        maybe(e, &mut map, "isCore", |e| if chance(e, 1, 2) { json!(1) } else { Value::Bool(false) });
        maybe(e, &mut map, "promptHint", |e| if mode.spoil(e) { json!(7) } else { s(pick(e, &TEXTS)) });
        maybe(e, &mut map, "sort", |e| number(e));
        maybe(e, &mut map, "extra", |e| any(e, 2));
        maybe(e, &mut map, "workerRoutingStrategy", |e| enum_value(e, mode, &STRATEGIES));
        if chance(e, 1, 6) {
            map.insert("createTime".into(), s("2024-05-01 12:00:00"));
        }
        map
    })
}

fn toolset_list<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    if mode.spoil(e) {
        return wrong(e);
    }
    let n = e.below(6);
    Value::Array((0..n).map(|_| if mode.spoil(e) { wrong(e) } else { s(pick(e, &TOOLSETS)) }).collect())
}

/// `AgentToolConfig`.
pub fn agent<E: Entropy + ?Sized>(e: &mut E, mode: Mode, known: &[String]) -> Value {
    if mode.spoil(e) {
        return wrong(e);
    }
    let mut map = Map::new();
    maybe(e, &mut map, "toolsets", |e| toolset_list(e, mode));
    maybe(e, &mut map, "tools", |e| {
        let mut tools = Map::new();
        maybe(e, &mut tools, "disabled", |e| names(e, mode, known));
        Value::Object(tools)
    });
    Value::Object(map)
}

/// The fields of `resolveTools`' input (catalog and governance included when `engine` is false).
pub fn resolve_fields<E: Entropy + ?Sized>(e: &mut E, mode: Mode, map: &mut Map<String, Value>, known: &[String]) {
    maybe(e, map, "agent", |e| agent(e, mode, known));
    maybe(e, map, "modelCapability", |e| enum_value(e, mode, &CAPABILITIES));
    maybe(e, map, "memoryEnabled", |e| boolean(e, mode));
    maybe(e, map, "hasSkills", |e| boolean(e, mode));
    maybe(e, map, "crewRole", |e| enum_value(e, mode, &CREW_ROLES));
    if chance(e, 1, 5) {
        map.insert("toolsetDefaults".into(), toolset_list(e, mode));
    }
    if chance(e, 1, 6) {
        map.insert("trace".into(), boolean(e, mode));
    }
}

/// A parent worker's policy now and then (the child is narrowed to fit it).
fn parent_field<E: Entropy + ?Sized>(e: &mut E, mode: Mode, map: &mut Map<String, Value>) {
    if chance(e, 1, 4) {
        map.insert("parent".into(), policy(e, mode));
    }
}

/// A workspace root.
pub fn root<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    if mode.spoil(e) {
        return if chance(e, 2, 3) { s(pick(e, &BAD_ROOTS)) } else { wrong(e) };
    }
    s(pick(e, &ROOTS))
}

/// `sessionCwd` and `workspaceRoots`.
pub fn root_fields<E: Entropy + ?Sized>(e: &mut E, mode: Mode, map: &mut Map<String, Value>) {
    maybe(e, map, "sessionCwd", |e| root(e, mode));
    maybe(e, map, "workspaceRoots", |e| {
        let n = e.below(5);
        Value::Array((0..n).map(|_| root(e, mode)).collect())
    });
}

/// `{ catalog?, governance? }` for an engine, with the catalog's tool names.
pub fn engine_options<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> (Value, Vec<String>) {
    let (cat, known) = catalog(e, mode);
    let mut map = Map::new();
    if let Some(cat) = cat {
        map.insert("catalog".into(), cat);
    }
    maybe(e, &mut map, "governance", |e| governance(e, mode, &known));
    (Value::Object(map), known)
}

/// `resolveTools(input)`.
pub fn resolve_input<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    let (options, known) = engine_options(e, mode);
    let Value::Object(mut map) = options else { return options };
    resolve_fields(e, mode, &mut map, &known);
    Value::Object(map)
}

/// The per-call part of `runtimeDiagnostic` (no catalog, no governance).
pub fn diagnostic_fields<E: Entropy + ?Sized>(e: &mut E, mode: Mode, map: &mut Map<String, Value>, known: &[String]) {
    resolve_fields(e, mode, map, known);
    maybe(e, map, "subagentTools", |e| names(e, mode, known));
    root_fields(e, mode, map);
    maybe(e, map, "shellPermitted", |e| boolean(e, mode));
    maybe(e, map, "writePermitted", |e| boolean(e, mode));
    parent_field(e, mode, map);
}

/// `runtimeDiagnostic(input)`.
pub fn diagnostic_input<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    let (options, known) = engine_options(e, mode);
    let Value::Object(mut map) = options else { return options };
    diagnostic_fields(e, mode, &mut map, &known);
    Value::Object(map)
}

/// `buildSubprocessWorkerPolicy(input)`.
pub fn worker_policy_input<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    let (cat, known) = catalog(e, mode);
    let mut map = Map::new();
    if let Some(cat) = cat {
        map.insert("catalog".into(), cat);
    }
    root_fields(e, mode, &mut map);
    if !mode.spoil(e) {
        map.insert("selectedTools".into(), names(e, mode, &known));
    }
    maybe(e, &mut map, "shellPermitted", |e| boolean(e, mode));
    maybe(e, &mut map, "writePermitted", |e| boolean(e, mode));
    parent_field(e, mode, &mut map);
    Value::Object(map)
}

/// A `WorkerPolicy` as the projection takes it.
pub fn policy<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    if mode.spoil(e) {
        return wrong(e);
    }
    let n = e.below(3);
    let roots: Vec<Value> = (0..n).map(|_| s(pick(e, &ROOTS))).collect();
    let mut map = Map::new();
    map.insert("workspaceRoots".into(), Value::Array(roots));
    map.insert("allowShell".into(), boolean(e, mode));
    map.insert("readonly".into(), boolean(e, mode));
    if mode.spoil(e) {
        map.remove("readonly");
    }
    Value::Object(map)
}

/// A `{name: value}` object over mostly known names.
fn by_name<E: Entropy + ?Sized>(e: &mut E, mode: Mode, known: &[String], values: &[&str]) -> Value {
    let n = e.below(mode.max_items + 1);
    let mut map = Map::new();
    for _ in 0..n {
        let key = name_from(e, known);
        map.insert(key, enum_value(e, mode, values));
    }
    Value::Object(map)
}

/// `projectRuntimePolicy(input)`.
pub fn projection_input<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    let (cat, known) = catalog(e, mode);
    let mut map = Map::new();
    if let Some(cat) = cat {
        map.insert("catalog".into(), cat);
    }
    map.insert("selectedTools".into(), names(e, mode, &known));
    map.insert("policy".into(), policy(e, mode));
    maybe(e, &mut map, "strategies", |e| by_name(e, mode, &known, &STRATEGIES));
    maybe(e, &mut map, "notSelectedReasons", |e| by_name(e, mode, &known, &REASONS));
    Value::Object(map)
}

/// Rows as stored in the table: any values in any field but `name` (distinct strings).
pub fn sync_rows<E: Entropy + ?Sized>(e: &mut E, mode: Mode, known: &[String]) -> Value {
    distinct_rows(e, mode, known, |e, row_name| {
        let mut map = Map::new();
        if chance(e, 1, 3) {
            map.insert("id".into(), json!(e.below(100_000)));
        }
        map.insert("name".into(), if mode.spoil(e) { wrong(e) } else { s(row_name) });
        for field in &ROW_FIELDS[1..] {
            match e.below(10) {
                0..=3 => {}
                4 => {
                    map.insert(field.to_string(), Value::Null);
                }
                5 => {
                    map.insert(field.to_string(), any(e, 1));
                }
                _ => {
                    let v = plausible(e, field, row_name);
                    map.insert(field.to_string(), v);
                }
            }
        }
        map
    })
}

/// A value of the right type for a row field.
pub fn plausible<E: Entropy + ?Sized>(e: &mut E, field: &str, row_name: &str) -> Value {
    match field {
        "name" => s(row_name),
        "label" => {
            if chance(e, 1, 8) {
                s(&"长".repeat(201))
            } else {
                s(pick(e, &TEXTS))
            }
        }
        "toolset" => s(pick(e, &TOOLSETS)),
        "description" | "promptHint" => s(pick(e, &TEXTS)),
        "visibility" => s(pick(e, &VISIBILITIES)),
        "capability" => s(pick(e, &CAPABILITIES)),
        "status" | "isCore" | "canDisable" => match e.below(5) {
            0 => Value::Bool(true),
            1 => Value::Bool(false),
            2 => json!(0),
            3 => json!(7),
            _ => json!(1),
        },
        "sort" => number(e),
        "extra" => any(e, 2),
        _ => s(if chance(e, 1, 6) { "x" } else { pick(e, &STRATEGIES) }),
    }
}

/// `syncCatalog(catalog, rows)`: the two arguments.
pub fn sync_args<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Vec<Value> {
    let (cat, known) = catalog(e, mode);
    vec![cat.unwrap_or(Value::Null), sync_rows(e, mode, &known)]
}

/// `validateToolUpdate({ row, patch, catalog? })`.
pub fn update_input<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    let (cat, known) = catalog(e, mode);
    let row_name = name_from(e, &known);
    let mut row = Map::new();
    if chance(e, 1, 2) {
        row.insert("id".into(), json!(e.below(1000)));
    }
    row.insert("name".into(), if mode.spoil(e) { wrong(e) } else { s(&row_name) });
    for field in &ROW_FIELDS[1..] {
        if chance(e, 1, 2) {
            let v = plausible(e, field, &row_name);
            row.insert(field.to_string(), v);
        }
    }
    let mut patch = Map::new();
    let n = e.below(6);
    for _ in 0..n {
        let field = if chance(e, 1, 6) { pick(e, &OTHER_NAMES) } else { pick(e, &ROW_FIELDS) };
        let value = match e.below(4) {
            0 => row.get(field).cloned().unwrap_or(Value::Null),
            1 => any(e, 1),
            _ => plausible(e, field, &row_name),
        };
        patch.insert(field.to_string(), value);
    }
    let mut map = Map::new();
    map.insert("row".into(), if mode.spoil(e) { wrong(e) } else { Value::Object(row) });
    map.insert("patch".into(), if mode.spoil(e) { wrong(e) } else { Value::Object(patch) });
    if let Some(cat) = cat {
        map.insert("catalog".into(), cat);
    }
    Value::Object(map)
}

/// `toolBehaviorGuidance(toolNames, toolPromptHints?)`: the arguments.
pub fn guidance_args<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Vec<Value> {
    let known: Vec<String> = BUILTIN_NAMES.iter().map(|n| n.to_string()).collect();
    let tool_names = names(e, mode, &known);
    let hints = match e.below(4) {
        0 => return vec![tool_names],
        1 => Value::Null,
        _ => {
            let n = e.below(mode.max_items + 1);
            let mut map = Map::new();
            for _ in 0..n {
                let key = name_from(e, &known);
                map.insert(key, if mode.spoil(e) { wrong(e) } else { s(pick(e, &TEXTS)) });
            }
            Value::Object(map)
        }
    };
    vec![tool_names, hints]
}

fn locale<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Option<Value> {
    match e.below(5) {
        0 => None,
        1 => Some(Value::Null),
        _ if mode.spoil(e) => Some(if chance(e, 1, 2) { s(pick(e, &BAD_LOCALES)) } else { wrong(e) }),
        _ => Some(s(pick(e, &LOCALES))),
    }
}

/// `labels(locale?)`: the arguments.
pub fn labels_args<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Vec<Value> {
    locale(e, mode).into_iter().collect()
}

/// The codes of one label group.
pub fn group_codes(group: &str) -> &'static [&'static str] {
    match group {
        "reasons" => &REASONS,
        "statuses" => &STATUSES,
        "routes" => &ROUTES,
        "kinds" => &KINDS,
        _ => &STRATEGIES,
    }
}

/// `label(group, code, locale?)`: the arguments.
pub fn label_args<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Vec<Value> {
    let groups = ["reasons", "statuses", "routes", "kinds", "strategies"];
    let group = pick(e, &groups);
    let group_value = if mode.spoil(e) {
        if chance(e, 1, 2) {
            s("colors")
        } else {
            wrong(e)
        }
    } else {
        s(group)
    };
    let code_value = if mode.spoil(e) {
        if chance(e, 1, 2) {
            s("unknown_code")
        } else {
            wrong(e)
        }
    } else {
        s(pick(e, group_codes(group)))
    };
    let mut args = vec![group_value, code_value];
    if let Some(l) = locale(e, mode) {
        args.push(l);
    }
    args
}

/// `toolManifest(schema)`: the argument.
pub fn manifest_args<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Vec<Value> {
    let tool = name(e);
    vec![schema(e, mode, &tool)]
}

/// Every function with an input generator, by its JS name.
pub const FUNCTIONS: [&str; 13] = [
    "toolManifest", "resolveTools", "buildSubprocessWorkerPolicy", "projectRuntimePolicy", "runtimeDiagnostic", "syncCatalog", "validateToolUpdate",
    "toolBehaviorGuidance", "labels", "label", "engine.resolve", "engine.diagnose", "checkToolCall",
];

/// Positional arguments for `function` (one of [`FUNCTIONS`]). For `engine.*` the arguments are
/// `[options, input]`: the engine's constructor options and the per-call input.
pub fn args_for<E: Entropy + ?Sized>(e: &mut E, mode: Mode, function: &str) -> Vec<Value> {
    match function {
        "toolManifest" => manifest_args(e, mode),
        "resolveTools" => vec![resolve_input(e, mode)],
        "buildSubprocessWorkerPolicy" => vec![worker_policy_input(e, mode)],
        "projectRuntimePolicy" => vec![projection_input(e, mode)],
        "runtimeDiagnostic" => vec![diagnostic_input(e, mode)],
        "syncCatalog" => sync_args(e, mode),
        "validateToolUpdate" => vec![update_input(e, mode)],
        "toolBehaviorGuidance" => guidance_args(e, mode),
        "labels" => labels_args(e, mode),
        "label" => label_args(e, mode),
        "checkToolCall" => vec![call_input(e, mode)],
        "engine.resolve" | "engine.diagnose" => {
            let (options, known) = engine_options(e, mode);
            let mut map = Map::new();
            if function == "engine.resolve" {
                resolve_fields(e, mode, &mut map, &known);
            } else {
                diagnostic_fields(e, mode, &mut map, &known);
            }
            vec![options, Value::Object(map)]
        }
        _ => Vec::new(),
    }
}

/// Pieces of hostile paths: traversal, repeated separators, Windows roots and UNC prefixes, NUL, prefixes
/// that share a root's first letters (`/w` vs `/w2`).
pub const PATH_PARTS: [&str; 18] = ["..", ".", "", "a", "w", "w2", "srv", "etc", "passwd", "C:", "c:", "\\", "x\u{0}y", "中文", "w/..", "/", "\\", "..."];

/// A path argument: parts joined by `/` or `\\`, maybe absolute (POSIX or Windows).
pub fn path_arg<E: Entropy + ?Sized>(e: &mut E) -> Value {
    let n = e.below(6);
    let sep = if chance(e, 3, 4) { "/" } else { "\\" };
    let mut text = String::from(match e.below(4) {
        0 => "/",
        1 => "C:\\",
        _ => "",
    });
    for i in 0..n {
        if i > 0 {
            text.push_str(sep);
        }
        text.push_str(pick(e, &PATH_PARTS));
    }
    s(&text)
}

/// A unified diff naming one or two files (maybe `/dev/null`, maybe malformed).
pub fn diff_arg<E: Entropy + ?Sized>(e: &mut E) -> Value {
    let mut text = String::new();
    for _ in 0..=e.below(2) {
        let old = path_arg(e);
        let new = path_arg(e);
        let name = |v: &Value| v.as_str().unwrap_or("").to_string();
        text.push_str("--- ");
        text.push_str(if chance(e, 1, 5) { "/dev/null".into() } else { format!("a/{}", name(&old)) }.as_str());
        text.push('\n');
        if chance(e, 7, 8) {
            text.push_str("+++ b/");
            text.push_str(&name(&new));
            text.push('\n');
        }
        let (o, n) = (e.below(3), e.below(3));
        text.push_str(&format!("@@ -1,{o} +1,{n} @@\n"));
        for _ in 0..e.below(4) {
            text.push_str(pick(e, &[" ctx\n", "-old\n", "+new\n", "--- a/x\n", "+++ b/y\n", "\\ No newline at end of file\n"]));
        }
    }
    s(&text)
}

/// Arguments for a builtin or custom tool: mostly its own argument names, with paths, diffs, names
/// and values of every type.
pub fn call_arguments<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    if mode.spoil(e) && chance(e, 1, 2) {
        return wrong(e);
    }
    const KEYS: [&str; 16] = [
        "path", "content", "oldText", "newText", "patch", "command", "timeoutMs", "pattern", "glob", "name", "script", "args", "items", "tasks", "target",
        "extra",
    ];
    let mut map = Map::new();
    for _ in 0..e.below(4) {
        let key = pick(e, &KEYS);
        let value = match key {
            "path" | "target" | "script" => path_arg(e),
            "patch" => diff_arg(e),
            "timeoutMs" => number(e),
            "name" => s(pick(e, &["pdf", "..", ".", "a/b", "x\\y", "", "ok_name"])),
            "items" | "tasks" | "args" => any(e, 2),
            _ => {
                if chance(e, 3, 4) {
                    s(pick(e, &TEXTS))
                } else {
                    any(e, 1)
                }
            }
        };
        map.insert(key.to_string(), value);
    }
    Value::Object(map)
}

/// Arguments of the right shape for `name`, with generated paths and diffs.
pub fn well_formed_arguments<E: Entropy + ?Sized>(e: &mut E, name: &str) -> Value {
    use serde_json::json;
    let p = path_arg(e);
    match name {
        "read_file" | "list_dir" => json!({ "path": p }),
        "find_files" | "grep" => json!({ "pattern": "*.rs", "path": p }),
        "write_file" => json!({ "path": p, "content": "x" }),
        "edit" => json!({ "path": p, "oldText": "a", "newText": "b" }),
        "patch" => json!({ "patch": diff_arg(e) }),
        "bash" => json!({ "command": "ls", "timeoutMs": 1000 }),
        "read_skill" => json!({ "name": pick(e, &["pdf", "..", "a/b"]) }),
        "read_skill_file" => json!({ "name": "pdf", "path": p }),
        "custom_tool" => json!({ "target": p, "items": [{ "path": path_arg(e) }] }),
        "clarify" => json!({ "question": "why?" }),
        _ => json!({}),
    }
}

/// A custom tool with a `parameters` schema using marks, nested items, bounds and now and then a
/// keyword outside the subset.
pub fn custom_call_tool<E: Entropy + ?Sized>(e: &mut E) -> Value {
    let mark = pick(e, &["read", "write", "diff", "name", "relative", "exec"]);
    let extra = if chance(e, 1, 6) { pick(e, &["anyOf", "pattern", "format", "oneOf", "$ref"]) } else { "title" };
    serde_json::json!({
        "name": "custom_tool",
        "toolset": pick(e, &TOOLSETS),
        "workerRoutingHint": pick(e, &HINTS),
        "supportedInWorker": chance(e, 1, 2),
        "parameters": {
            "type": "object",
            "properties": {
                "target": { "type": "string", "x-netaclaw-path": mark, "maxLength": 200 },
                "items": { "type": "array", "maxItems": 3, "items": { "type": "object", "properties": { "path": { "type": "string", "x-netaclaw-path": "write" } } } },
                "n": { "type": ["integer", "null"], "minimum": 0, "maximum": 10, extra: "x" }
            },
            "required": ["target"],
            "additionalProperties": chance(e, 1, 2)
        }
    })
}

/// `checkToolCall(input)`: a policy, routes of every status (some forged), one call.
pub fn call_input<E: Entropy + ?Sized>(e: &mut E, mode: Mode) -> Value {
    let custom = chance(e, 1, 3);
    let mut names: Vec<String> = BUILTIN_NAMES.iter().map(|n| n.to_string()).collect();
    let mut map = Map::new();
    if custom {
        let mut catalog: Vec<Value> = BUILTIN_NAMES.iter().map(|n| serde_json::json!({"name": n, "toolset": "base"})).collect();
        catalog.push(custom_call_tool(e));
        names.push("custom_tool".into());
        map.insert("catalog".into(), Value::Array(catalog));
    }
    map.insert("policy".into(), policy(e, mode));
    let mut routes = Vec::new();
    for name in &names {
        if chance(e, 1, 8) {
            continue;
        }
        let status = if chance(e, 1, 2) { pick(e, &STATUSES[..2]) } else { pick(e, &STATUSES) };
        let reasons: Vec<Value> = (0..e.below(3)).map(|_| s(pick(e, &REASONS))).collect();
        routes.push(serde_json::json!({ "name": name, "status": status, "reasons": reasons }));
    }
    if mode.spoil(e) {
        routes.push(serde_json::json!({ "name": pick(e, &OTHER_NAMES), "status": "worker-local", "reasons": [] }));
    }
    map.insert("routes".into(), Value::Array(routes));
    let name = if chance(e, 1, 10) { pick(e, &OTHER_NAMES).to_string() } else { names[e.below(names.len() as u32) as usize].clone() };
    let mut call = Map::new();
    call.insert("name".into(), s(&name));
    if chance(e, 1, 2) {
        call.insert("arguments".into(), well_formed_arguments(e, &name));
    } else if !chance(e, 1, 20) {
        call.insert("arguments".into(), call_arguments(e, mode));
    }
    map.insert("call".into(), Value::Object(call));
    Value::Object(map)
}
