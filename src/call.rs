//! The call-level gate (`checkToolCall`, RUNTIME §4): one tool call decided against the worker's
//! policy and routes — the route, the policy's own permissions, the arguments against the tool's
//! `parameters` schema, and every path the call would touch, lexically normalized and kept inside
//! the workspace roots. The same function runs in the worker and in the main process.
//!
//! Arguments are validated against the tool's JSON Schema ([`crate::schema`]); a schema using a
//! keyword it does not understand fails closed. A string property marked `"x-netaclaw-path"` is a path the call touches:
//! `read` / `write` (a workspace path), `diff` (a unified diff: every file it names is a write path),
//! `name` (a plain name, one path segment) or `relative` (a path inside a folder the host chooses).

use crate::explain::DynamicRoute;
use crate::manifest::ToolManifest;
use crate::path::Path;
use crate::text::{concat, quote};
use crate::value::type_name;
use crate::value::Value;
use crate::vocab::{ReasonCode, RuntimeStatus, ToolCallDecision};
use crate::worker_policy::{Root, WorkerPolicy};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// One path a call touches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct ToolCallPath {
    /// The argument that names it (`path`, `items[0].path`); for a diff, the diff's argument.
    pub argument: String,
    /// Absolute and lexically normalized, inside a workspace root.
    pub path: String,
    /// Whether the call writes it.
    pub write: bool,
}

/// The decision on one call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct ToolCallCheck {
    pub decision: ToolCallDecision,
    /// Why the call is denied; `null` when it may run.
    #[cfg_attr(feature = "types", tsify(type = "ReasonCode | RuleReasonCode | null"))]
    pub reason: Option<ReasonCode>,
    /// Every path the call touches (empty for a denied call).
    pub paths: Vec<ToolCallPath>,
    /// A short English text naming what is wrong (`arguments.path: expected a string, got a number`),
    /// for the model; `null` when the call may run.
    #[cfg_attr(feature = "types", tsify(type = "string | null"))]
    pub detail: Option<String>,
    /// The rule that decided the call, when `rules` were given and one spoke (`crate::rules`); absent
    /// otherwise, so that a call no rule matches is answered exactly as without rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional))]
    pub rule: Option<crate::rules::RuleMatch>,
    /// For an `ask`: where the call runs once approved (`worker-local` or `main-process-proxy`).
    #[serde(rename = "onApproval", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "\"worker-local\" | \"main-process-proxy\""))]
    pub on_approval: Option<ToolCallDecision>,
    /// The arguments as read from the JSON text the model sent (an empty or blank text reads as `{}`):
    /// present for `checkText` whenever the text was read, so that the caller runs exactly what was
    /// decided on; absent for `check` / `checkToolCall` and for text that is not JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "unknown"))]
    pub arguments: Option<Value>,
}

/// A denial: the reason and its detail.
type Denied = (ReasonCode, String);

pub fn deny(reason: ReasonCode, detail: String) -> ToolCallCheck {
    ToolCallCheck {
        decision: ToolCallDecision::Denied,
        reason: Some(reason),
        paths: Vec::new(),
        detail: Some(detail),
        rule: None,
        on_approval: None,
        arguments: None,
    }
}

fn bad(detail: String) -> Denied {
    (ReasonCode::InvalidToolArguments, detail)
}

pub use crate::schema::PATH_MARKS;

/// `checkToolCall`: `tool` is the catalog's manifest of `name` (absent when the name is not in the
/// catalog), `route` the route of that name (absent when the routes do not list it), `policy` with
/// normalized roots.
pub fn check_tool_call(
    name: &str,
    tool: Option<&ToolManifest>,
    route: Option<&DynamicRoute>,
    policy: &WorkerPolicy,
    arguments: Option<&Value>,
) -> ToolCallCheck {
    check_tool_call_with(name, tool, route, policy, arguments, false)
}

/// Whether a tool's `parameters` schema uses only understood keywords ([`crate::schema`]) with values of the right shape: what a
/// prepared check works out once per tool (a schema that does not is checked again on each call, for
/// the denial naming what is wrong).
pub fn schema_is_valid(tool: &ToolManifest) -> bool {
    crate::schema::check(tool.parameters.as_value()).is_ok()
}

/// [`check_tool_call`] knowing beforehand whether the tool's schema is valid (`schema_valid`; false:
/// checked here). The answer is the same either way.
pub fn check_tool_call_with(
    name: &str,
    tool: Option<&ToolManifest>,
    route: Option<&DynamicRoute>,
    policy: &WorkerPolicy,
    arguments: Option<&Value>,
    schema_valid: bool,
) -> ToolCallCheck {
    let (Some(route), Some(tool)) = (route, tool) else {
        return deny(ReasonCode::NotSelectedForSubagent, concat(&["no route for tool ", &quote(name)]));
    };
    let decision = match route.status {
        RuntimeStatus::WorkerLocal => ToolCallDecision::WorkerLocal,
        RuntimeStatus::MainProcessProxied => ToolCallDecision::MainProcessProxy,
        status => {
            let fallback = if status == RuntimeStatus::NotSelected { ReasonCode::NotSelectedForSubagent } else { ReasonCode::UnsupportedInWorker };
            return deny(route.reasons.first().copied().unwrap_or(fallback), concat(&["the route of ", &quote(name), " is ", status.as_str()]));
        }
    };
    // The route is what the projection said; the policy is checked again (fail closed).
    let policy_checks = [
        (tool.requires_workspace_root && policy.workspace_roots.is_empty(), ReasonCode::WorkspaceRootRequired, "policy.workspaceRoots is empty"),
        (tool.requires_shell && !policy.allow_shell, ReasonCode::ShellDisabledByPolicy, "policy.allowShell is false"),
        (tool.requires_write && policy.readonly, ReasonCode::WriteBlockedByReadonlyPolicy, "policy.readonly is true"),
    ];
    if let Some((_, reason, detail)) = policy_checks.iter().find(|c| c.0) {
        return deny(*reason, (*detail).to_string());
    }
    match check_arguments(tool.parameters.as_value(), schema_valid, arguments, policy) {
        Ok(paths) => ToolCallCheck { decision, reason: None, paths, detail: None, rule: None, on_approval: None, arguments: None },
        Err((reason, detail)) => deny(reason, detail),
    }
}

/// Validates `arguments` against `schema`, then resolves every marked path.
fn check_arguments(schema: &Value, schema_valid: bool, arguments: Option<&Value>, policy: &WorkerPolicy) -> Result<Vec<ToolCallPath>, Denied> {
    let at = Path::Root("arguments");
    if !schema_valid {
        crate::schema::check(schema).map_err(bad)?;
    }
    let arguments = match arguments {
        Some(v @ Value::Object(_)) => v,
        other => return Err(bad(concat(&["arguments: expected an object, got ", type_name(other.unwrap_or(&Value::Null))]))),
    };
    let mut marked = Vec::new();
    crate::schema::Validation::new(schema).validate(schema, arguments, &at, 0, &mut marked).map_err(bad)?;
    let mut paths = Vec::new();
    for m in marked {
        // Where a denial names the argument; printed only for a denial.
        let at = |what: &str| concat(&["arguments", if m.argument.is_empty() || m.argument.starts_with('[') { "" } else { "." }, &m.argument, ": ", what]);
        let write = m.mark != "read";
        match m.mark {
            "name" | "relative" => plain(m.text.unwrap_or_default(), m.mark == "name").map_err(|what| bad(at(what)))?,
            "diff" => {
                let files = diff_files(m.text.unwrap_or_default()).map_err(|what| bad(at(what)))?;
                for file in files {
                    let path = workspace_path(Some(file), write, policy).map_err(|(reason, what)| (reason, at(&what)))?;
                    paths.push(ToolCallPath { argument: m.argument.clone(), path, write });
                }
            }
            _ => {
                let path = workspace_path(m.text, write, policy).map_err(|(reason, what)| (reason, at(&what)))?;
                paths.push(ToolCallPath { argument: m.argument, path, write });
            }
        }
    }
    Ok(paths)
}

/// One workspace path: absolute, or relative to the first root (absent = the first root); inside a
/// root; not written under `readonly`. A denial's detail is what follows the argument's name.
pub(crate) fn workspace_path(text: Option<&str>, write: bool, policy: &WorkerPolicy) -> Result<String, Denied> {
    let Some(first) = policy.workspace_roots.first() else {
        return Err((ReasonCode::WorkspaceRootRequired, "a path needs a workspace root, and the policy has none".into()));
    };
    let text = text.unwrap_or(first);
    if text.contains('\0') {
        return Err(bad("must not contain a NUL character".into()));
    }
    let bytes = text.as_bytes();
    let windows_absolute = matches!(bytes, [b'a'..=b'z' | b'A'..=b'Z', b':', b'\\' | b'/', ..]);
    let full = if text.starts_with('/') || windows_absolute {
        text.to_string()
    } else if first.starts_with('/') {
        // POSIX: a backslash is an ordinary character of a file name.
        concat(&[first, "/", text])
    } else if text.starts_with('\\') || bytes.get(1) == Some(&b':') {
        // Windows: root-relative (`\x`), UNC (`\\server`) and drive-relative (`C:x`) paths fail closed.
        return Err(outside(text));
    } else {
        concat(&[first, "\\", text])
    };
    // Joined once, and kept as it is when already normalized.
    let path = Root::from_string(full).map_err(|e| bad(e.what()))?;
    if !policy.workspace_roots.iter().any(|root| path.within(root)) {
        return Err(outside(&path));
    }
    let path = path.into_string();
    if write && policy.readonly {
        return Err((ReasonCode::WriteBlockedByReadonlyPolicy, concat(&[&quote(&path), " would be written, and the policy is readonly"])));
    }
    Ok(path)
}

fn outside(path: &str) -> Denied {
    (ReasonCode::PathOutsideWorkspace, concat(&[&quote(path), " is outside every workspace root"]))
}

/// A plain name (one path segment: 1–100 characters, no `/`, `\` or NUL, not `.` or `..`), or, when
/// not `segment`, a relative path that stays inside its folder (not absolute, no `..` segment, no NUL).
fn plain(text: &str, segment: bool) -> Result<(), &'static str> {
    if text.contains('\0') {
        return Err("must not contain a NUL character");
    }
    let parts = text.split(['\\', '/']);
    let bad = if segment {
        parts.count() != 1 || text.is_empty() || crate::text::scalar_count(text, 101) > 100 || text == "." || text == ".."
    } else {
        // Absolute (`/x`, `\x`, `C:x`) or with a `..` segment.
        text.as_bytes().get(1) == Some(&b':') || parts.enumerate().any(|(i, s)| (i == 0 && s.is_empty() && !text.is_empty()) || s == "..")
    };
    if bad {
        return Err(if segment {
            "must be a plain name (1 to 100 characters, no / or \\, not . or ..)"
        } else {
            "must be a relative path inside the folder (not absolute, no .. segment)"
        });
    }
    Ok(())
}

/// The files a unified diff names in its `---` / `+++` headers (`a/` and `b/` prefixes stripped,
/// `/dev/null` left out), hunks skipped by their line counts. Git's rename and copy headers, quoted
/// names and a diff naming no file are refused, so that every file the diff touches is listed.
pub fn diff_files(diff: &str) -> Result<Vec<&str>, &'static str> {
    let mut files = Vec::new();
    // The newline that ends the last line does not start another one.
    let mut lines = diff.strip_suffix('\n').unwrap_or(diff).split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let mut header = false;
    while let Some(line) = lines.next() {
        if let Some(old) = line.strip_prefix("--- ") {
            let new = lines.next().and_then(|l| l.strip_prefix("+++ ")).ok_or("a \"---\" header must be followed by a \"+++\" header")?;
            for name in [old, new] {
                let name = name.split('\t').next().unwrap_or_default();
                if name.starts_with('"') || name.is_empty() {
                    return Err("a file header must name a file without quotes");
                }
                let name = name.strip_prefix("a/").or_else(|| name.strip_prefix("b/")).unwrap_or(name);
                if name != "/dev/null" && !files.contains(&name) {
                    files.push(name);
                }
            }
            header = true;
        } else if let Some(range) = line.strip_prefix("@@ -") {
            if !header {
                return Err("a hunk comes before any file header");
            }
            let mut fields = range.split(' ');
            let (Some(mut old), Some(mut new), Some("@@")) =
                (fields.next().and_then(|r| line_count(r, "")), fields.next().and_then(|r| line_count(r, "+")), fields.next())
            else {
                return Err("a hunk header must read @@ -a,b +c,d @@");
            };
            while old > 0 || new > 0 {
                let line = lines.next().ok_or("a hunk has fewer lines than its header says")?;
                let (o, n) = match line.as_bytes().first() {
                    None | Some(b' ') => (1, 1),
                    Some(b'-') => (1, 0),
                    Some(b'+') => (0, 1),
                    Some(b'\\') => (0, 0),
                    Some(_) => return Err("a hunk has fewer lines than its header says"),
                };
                if o > old || n > new {
                    return Err("a hunk has more lines than its header says");
                }
                old -= o;
                new -= n;
            }
        } else if line.starts_with("rename ") || line.starts_with("copy ") || line.starts_with("GIT binary patch") {
            return Err("git rename, copy and binary patches are not supported");
        }
    }
    if files.is_empty() {
        return Err("the diff names no file");
    }
    Ok(files)
}

/// The line count of one side of a hunk header (`a,b` → `b`; `a` alone counts 1 line).
fn line_count(range: &str, sign: &str) -> Option<u32> {
    fn number(text: &str) -> Option<u32> {
        let mut n: u32 = 0;
        for b in text.bytes() {
            if !b.is_ascii_digit() {
                return None;
            }
            n = n.checked_mul(10)?.checked_add(u32::from(b - b'0'))?;
        }
        (!text.is_empty()).then_some(n)
    }
    let mut parts = range.strip_prefix(sign)?.split(',');
    number(parts.next()?)?;
    let count = parts.next().map_or(Some(1), number);
    parts.next().is_none().then_some(count)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Catalog;
    use serde_json::json;

    fn policy(roots: &[&str], shell: bool, readonly: bool) -> WorkerPolicy {
        WorkerPolicy { workspace_roots: roots.iter().map(|r| Root::new(r).unwrap()).collect(), allow_shell: shell, readonly }
    }

    fn route(name: &str, status: RuntimeStatus, reasons: &[ReasonCode]) -> DynamicRoute {
        DynamicRoute { name: name.into(), status, reasons: reasons.to_vec() }
    }

    /// Checks one call of a builtin whose route is `status`.
    fn check(name: &str, status: RuntimeStatus, p: &WorkerPolicy, arguments: Value) -> ToolCallCheck {
        let catalog = Catalog::builtin();
        check_tool_call(name, catalog.get(name), Some(&route(name, status, &[])), p, Some(&arguments))
    }

    fn denied(c: &ToolCallCheck) -> (Option<ReasonCode>, &str) {
        assert_eq!(c.decision, ToolCallDecision::Denied);
        assert!(c.paths.is_empty());
        (c.reason, c.detail.as_deref().unwrap_or_default())
    }

    const LOCAL: RuntimeStatus = RuntimeStatus::WorkerLocal;
    const PROXY: RuntimeStatus = RuntimeStatus::MainProcessProxied;

    #[test]
    fn paths_resolve_against_the_first_root_and_stay_inside() {
        let p = policy(&["/srv/w", "/data"], false, true);
        let c = check("read_file", LOCAL, &p, json!({"path": "src/../lib.rs"}));
        assert_eq!((c.decision, c.reason, c.detail.as_deref()), (ToolCallDecision::WorkerLocal, None, None));
        assert_eq!(c.paths, [ToolCallPath { argument: "path".into(), path: "/srv/w/lib.rs".into(), write: false }]);
        assert_eq!(check("read_file", LOCAL, &p, json!({"path": "/data//x/./y"})).paths[0].path, "/data/x/y");
        let c = check("read_file", LOCAL, &p, json!({"path": "../w2/secret"}));
        assert_eq!(denied(&c), (Some(ReasonCode::PathOutsideWorkspace), "arguments.path: \"/srv/w2/secret\" is outside every workspace root"));
        assert_eq!(denied(&check("read_file", LOCAL, &p, json!({"path": "/srv/w2"}))).0, Some(ReasonCode::PathOutsideWorkspace));
        assert_eq!(denied(&check("read_file", LOCAL, &p, json!({"path": "C:\\srv\\w"}))).0, Some(ReasonCode::PathOutsideWorkspace));
        assert_eq!(check("read_file", LOCAL, &p, json!({"path": "/srv/w"})).paths[0].path, "/srv/w");
        // A backslash is an ordinary character on POSIX.
        assert_eq!(check("read_file", LOCAL, &p, json!({"path": "a\\..\\..\\b"})).paths[0].path, "/srv/w/a\\..\\..\\b");
        let nul = check("read_file", LOCAL, &p, json!({"path": "a\u{0}b"}));
        assert_eq!(denied(&nul), (Some(ReasonCode::InvalidToolArguments), "arguments.path: must not contain a NUL character"));
    }

    #[test]
    fn windows_roots_take_windows_paths() {
        let p = policy(&["C:\\work"], false, false);
        assert_eq!(check("read_file", LOCAL, &p, json!({"path": "src/a.rs"})).paths[0].path, "C:\\work\\src\\a.rs");
        assert_eq!(check("read_file", LOCAL, &p, json!({"path": "c:/work/b"})).paths[0].path, "C:\\work\\b");
        for outside in ["\\\\server\\share\\x", "\\work\\x", "C:work", "D:\\work", "/work", "..\\..\\x"] {
            assert_eq!(denied(&check("read_file", LOCAL, &p, json!({ "path": outside }))).0, Some(ReasonCode::PathOutsideWorkspace), "{outside}");
        }
    }

    #[test]
    fn optional_paths_default_to_the_first_root() {
        let p = policy(&["/w"], false, true);
        assert_eq!(check("list_dir", LOCAL, &p, json!({})).paths, [ToolCallPath { argument: "path".into(), path: "/w".into(), write: false }]);
        assert_eq!(check("grep", LOCAL, &p, json!({"pattern": "x"})).paths[0].path, "/w");
        let none = policy(&[], false, true);
        let custom = Catalog::from_schemas(&[crate::catalog::ToolSchema {
            parameters: Some(json!({"type": "object", "properties": {"p": {"type": "string", "x-netaclaw-path": "read"}}}).into()),
            ..crate::catalog::ToolSchema::new("look", "x")
        }])
        .unwrap();
        let c = check_tool_call("look", custom.get("look"), Some(&route("look", PROXY, &[])), &none, Some(&json!({})));
        assert_eq!(denied(&c).0, Some(ReasonCode::WorkspaceRootRequired));
    }

    #[test]
    fn writes_are_refused_under_readonly_and_the_policy_is_checked_again() {
        let ro = policy(&["/w"], true, true);
        let c = check("write_file", PROXY, &ro, json!({"path": "a", "content": ""}));
        assert_eq!(denied(&c), (Some(ReasonCode::WriteBlockedByReadonlyPolicy), "policy.readonly is true"));
        assert_eq!(denied(&check("bash", LOCAL, &policy(&["/w"], false, false), json!({"command": "ls"}))).0, Some(ReasonCode::ShellDisabledByPolicy));
        assert_eq!(denied(&check("grep", LOCAL, &policy(&[], true, false), json!({"pattern": "x"}))).0, Some(ReasonCode::WorkspaceRootRequired));
        let rw = policy(&["/w"], true, false);
        let c = check("edit", PROXY, &rw, json!({"path": "/w/a", "oldText": "x", "newText": "y"}));
        assert_eq!((c.decision, c.paths[0].write), (ToolCallDecision::MainProcessProxy, true));
        assert_eq!(check("bash", LOCAL, &rw, json!({"command": "ls", "timeoutMs": 600000})).decision, ToolCallDecision::WorkerLocal);
    }

    #[test]
    fn routes_decide_first() {
        let p = policy(&["/w"], true, false);
        let catalog = Catalog::builtin();
        let c = check_tool_call("nope", None, None, &p, Some(&json!({})));
        assert_eq!(denied(&c), (Some(ReasonCode::NotSelectedForSubagent), "no route for tool \"nope\""));
        let r = route("write_file", RuntimeStatus::DisabledInWorker, &[ReasonCode::DisabledByRoutingStrategy, ReasonCode::RequiresMainProcessProxy]);
        let c = check_tool_call("write_file", catalog.get("write_file"), Some(&r), &p, Some(&json!({"path": "a", "content": "b"})));
        assert_eq!(denied(&c), (Some(ReasonCode::DisabledByRoutingStrategy), "the route of \"write_file\" is disabled-in-worker"));
        let c = check_tool_call("grep", catalog.get("grep"), Some(&route("grep", RuntimeStatus::NotSelected, &[])), &p, None);
        assert_eq!(denied(&c).0, Some(ReasonCode::NotSelectedForSubagent));
    }

    #[test]
    fn malformed_arguments_are_denied_with_a_detail() {
        let p = policy(&["/w"], true, false);
        let cases = [
            (json!("{\"path\": \"a\"}"), "arguments: expected an object, got a string"),
            (json!({}), "arguments.path: is required"),
            (json!({"path": 3}), "arguments.path: expected a string, got a number"),
            (json!({"path": ""}), "arguments.path: must not be empty"),
            (json!({"path": "a", "extra": true}), "arguments.extra: is not an allowed property"),
            (json!({"path": "a", "offset": 1.5}), "arguments.offset: expected an integer, got a number"),
            (json!({"path": "a", "limit": 0}), "arguments.limit: must be at least 1"),
        ];
        for (arguments, detail) in cases {
            assert_eq!(denied(&check("read_file", LOCAL, &p, arguments)), (Some(ReasonCode::InvalidToolArguments), detail));
        }
        let c = check("bash", LOCAL, &p, json!({"command": "ls", "timeoutMs": 600001}));
        assert_eq!(denied(&c).1, "arguments.timeoutMs: must be at most 600000");
        let c = check("skill_manage", PROXY, &p, json!({"action": "rename", "name": "x"}));
        assert_eq!(denied(&c).1, "arguments.action: must be one of [\"create\",\"update\",\"delete\"]");
        let c = check("todo", PROXY, &p, json!({"items": [{"text": "a"}, {"text": "b", "done": "yes"}]}));
        assert_eq!(denied(&c).1, "arguments.items[1].done: expected a boolean, got a string");
        let c = check("delegate_parallel", PROXY, &p, json!({"tasks": []}));
        assert_eq!(denied(&c).1, "arguments.tasks: must not be empty");
        let catalog = Catalog::builtin();
        let c = check_tool_call("clarify", catalog.get("clarify"), Some(&route("clarify", PROXY, &[])), &p, None);
        assert_eq!(denied(&c).1, "arguments: expected an object, got null");
    }

    #[test]
    fn skill_names_and_folder_paths_stay_plain() {
        let p = policy(&[], false, true);
        assert_eq!(check("read_skill_file", PROXY, &p, json!({"name": "pdf", "path": "docs/a.md"})).decision, ToolCallDecision::MainProcessProxy);
        for name in ["..", ".", "a/b", "a\\b", "a\u{0}"] {
            assert_eq!(denied(&check("read_skill", PROXY, &p, json!({ "name": name }))).0, Some(ReasonCode::InvalidToolArguments), "{name}");
        }
        for path in ["/etc/passwd", "\\x", "C:x", "a/../../b", "..", "../x", "a\\..\\b"] {
            let c = check("read_skill_file", PROXY, &p, json!({"name": "pdf", "path": path}));
            assert_eq!(denied(&c).1, "arguments.path: must be a relative path inside the folder (not absolute, no .. segment)", "{path}");
        }
        assert_eq!(check("execute_skill", PROXY, &policy(&[], true, true), json!({"name": "pdf", "script": "run.sh", "args": ["-x"]})).reason, None);
    }

    #[test]
    fn a_diff_names_its_files_and_each_is_a_write_path() {
        let p = policy(&["/w"], false, false);
        let diff = "diff --git a/src/x.rs b/src/x.rs\n--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1 +1 @@\n--- not a header\n+++ nor this\n--- /dev/null\n+++ b/new.txt\t2024-01-01\n@@ -0,0 +1 @@\n+hello\n";
        let c = check("patch", PROXY, &p, json!({ "patch": diff }));
        let paths: Vec<_> = c.paths.iter().map(|p| (p.argument.as_str(), p.path.as_str(), p.write)).collect();
        assert_eq!(paths, [("patch", "/w/src/x.rs", true), ("patch", "/w/new.txt", true)]);
        let outside = check("patch", PROXY, &p, json!({"patch": "--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n"}));
        assert_eq!(denied(&outside), (Some(ReasonCode::PathOutsideWorkspace), "arguments.patch: \"/etc/passwd\" is outside every workspace root"));
        for (bad, why) in [
            ("hello", "the diff names no file"),
            ("--- a/x\n@@ -1 +1 @@\n", "a \"---\" header must be followed by a \"+++\" header"),
            ("@@ -1 +1 @@\n-a\n+b\n", "a hunk comes before any file header"),
            ("--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n", "a hunk has fewer lines than its header says"),
            ("--- a/x\n+++ b/x\n@@ -x +1 @@\n", "a hunk header must read @@ -a,b +c,d @@"),
            ("diff --git a/x b/y\nrename from x\nrename to y\n", "git rename, copy and binary patches are not supported"),
            ("--- \"a/x y\"\n+++ \"b/x y\"\n", "a file header must name a file without quotes"),
            ("--- /dev/null\n+++ /dev/null\n", "the diff names no file"),
        ] {
            assert_eq!(diff_files(bad), Err(why), "{bad:?}");
        }
    }

    #[test]
    fn unsupported_schema_keywords_fail_closed() {
        let p = policy(&["/w"], false, false);
        let schema = |parameters: Value| {
            Catalog::from_schemas(&[crate::catalog::ToolSchema { parameters: Some(parameters.into()), ..crate::catalog::ToolSchema::new("t", "x") }]).unwrap()
        };
        let run = |catalog: &Catalog, arguments: Value| check_tool_call("t", catalog.get("t"), Some(&route("t", PROXY, &[])), &p, Some(&arguments));
        let unknown = schema(json!({"type": "object", "properties": {"a": {"unevaluatedProperties": false}}}));
        assert_eq!(denied(&run(&unknown, json!({}))).1, "parameters.properties.a: unsupported schema keyword \"unevaluatedProperties\"");
        // The JSON Schema MCP servers write is understood (src/schema.rs).
        let any_of = schema(json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}));
        assert_eq!(run(&any_of, json!({"a": null})).decision, ToolCallDecision::MainProcessProxy);
        let malformed = schema(json!({"type": "object", "properties": {"a": {"maxLength": "3"}}}));
        assert_eq!(denied(&run(&malformed, json!({}))).1, "parameters.properties.a.maxLength: is not a valid value of this schema keyword");
        let unknown_mark = schema(json!({"properties": {"a": {"x-netaclaw-path": "exec"}}}));
        assert_eq!(denied(&run(&unknown_mark, json!({}))).0, Some(ReasonCode::InvalidToolArguments));
        // Annotations are fine; a custom write mark is a write path.
        let ok = schema(
            json!({"$schema": "x", "title": "t", "type": "object", "properties": {"out": {"type": ["string", "null"], "default": null, "x-netaclaw-path": "write", "examples": ["a"]}}}),
        );
        let c = run(&ok, json!({"out": "o.txt"}));
        assert_eq!(c.paths, [ToolCallPath { argument: "out".into(), path: "/w/o.txt".into(), write: true }]);
        assert_eq!(denied(&run(&ok, json!({"out": null}))).1, "arguments.out: expected a string, got null");
        // No parameters: any object.
        let open = Catalog::from_schemas(&[crate::catalog::ToolSchema::new("t", "x")]).unwrap();
        assert_eq!(run(&open, json!({"anything": [1, {"x": 2}]})).decision, ToolCallDecision::MainProcessProxy);
        assert_eq!(denied(&run(&open, json!([1]))).1, "arguments: expected an object, got an array");
    }
}
