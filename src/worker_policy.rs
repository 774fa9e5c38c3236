//! The sub-agent worker policy (seed 000 `buildSubprocessWorkerPolicy`): workspace roots normalized
//! once, here at the edge, and shell/write permissions granted only when a selected tool needs them.

use crate::json::Path;
use crate::error::Error;
use crate::manifest::Catalog;
use serde::Serialize;
#[cfg(feature = "wasm")]
use tsify::Tsify;

/// What a sub-agent worker may do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct WorkerPolicy {
    /// Absolute, lexically normalized, without duplicates; the session's cwd first.
    pub workspace_roots: Vec<String>,
    pub allow_shell: bool,
    pub readonly: bool,
}

/// The input of [`build_subprocess_worker_policy`], roots not yet normalized.
#[derive(Clone, Debug, Default)]
pub struct WorkerPolicyInput {
    pub session_cwd: Option<String>,
    pub workspace_roots: Vec<String>,
    pub selected_tools: Vec<String>,
    pub shell_permitted: bool,
    pub write_permitted: bool,
}

/// Normalizes one absolute root lexically: POSIX `/…` or Windows `X:\…` (either separator). `.` and
/// `..` are resolved (`..` above the root stays at the root), repeated and trailing separators removed;
/// Windows output uses `\` and an upper-case drive letter. Relative, empty, drive-relative (`C:x`) and
/// UNC (`\\server\share`) paths are errors, as are paths holding a NUL character.
pub fn normalize_root(root: &str, path: &Path) -> Result<String, Error> {
    if root.is_empty() {
        return Err(path.error("must not be empty"));
    }
    crate::json::check_len(root, path, 1, crate::json::limits::MAX_PATH)?;
    if root.contains('\0') {
        return Err(path.error("must not contain a NUL character"));
    }
    if root.starts_with('/') {
        return Ok(join("/", "/", root.split('/')));
    }
    if root.starts_with("\\\\") {
        return Err(path.error(crate::json::concat(&["UNC paths are not supported: ", &quoted(root)])));
    }
    if let [letter @ (b'a'..=b'z' | b'A'..=b'Z'), b':', b'\\' | b'/', ..] = root.as_bytes() {
        let mut drive = String::with_capacity(3);
        drive.push(char::from(letter.to_ascii_uppercase()));
        drive.push_str(":\\");
        return Ok(join(&drive, "\\", root.get(3..).unwrap_or_default().split(['\\', '/'])));
    }
    Err(path.error(crate::json::concat(&["must be an absolute path (POSIX /… or Windows C:\\…), got ", &quoted(root)])))
}

fn quoted(text: &str) -> String {
    crate::json::quote(text)
}

fn join<'a>(prefix: &str, separator: &str, parts: impl Iterator<Item = &'a str>) -> String {
    let mut stack: Vec<&str> = Vec::new();
    for part in parts {
        match part {
            "" | "." => {}
            ".." => {
                stack.pop();
            }
            other => stack.push(other),
        }
    }
    let mut out = String::from(prefix);
    out.push_str(&crate::json::join(&stack, separator));
    out
}

/// The session's cwd then the extra roots, each normalized, exact duplicates dropped (first kept).
pub fn normalize_roots(session_cwd: Option<&str>, extra: &[String]) -> Result<Vec<String>, Error> {
    let mut roots: Vec<String> = Vec::with_capacity(extra.len() + 1);
    if let Some(cwd) = session_cwd {
        roots.push(normalize_root(cwd, &Path::Root("sessionCwd"))?);
    }
    let base = Path::Root("workspaceRoots");
    for (i, root) in extra.iter().enumerate() {
        roots.push(normalize_root(root, &base.index(i))?);
    }
    Ok(first_occurrences(roots))
}

/// `roots` without exact duplicates, the first occurrence of each kept in place.
fn first_occurrences(roots: Vec<String>) -> Vec<String> {
    let keep: Vec<bool> = {
        let index = crate::names::FirstIndex::new(crate::names::positions(&roots));
        roots.iter().enumerate().map(|(i, r)| index.is_first(r, i)).collect()
    };
    roots.into_iter().zip(keep).filter_map(|(r, k)| k.then_some(r)).collect()
}

/// `buildSubprocessWorkerPolicy`: shell only when permitted and a selected tool needs it; writable
/// only when permitted and a selected tool writes. Unknown selected names are ignored.
pub fn build_subprocess_worker_policy(catalog: &Catalog, input: &WorkerPolicyInput) -> Result<WorkerPolicy, Error> {
    let workspace_roots = normalize_roots(input.session_cwd.as_deref(), &input.workspace_roots)?;
    Ok(policy_for(catalog, workspace_roots, input.selected_tools.iter().filter_map(|n| catalog.position(n)), input.shell_permitted, input.write_permitted))
}

/// The policy for already-normalized roots and a selection given by catalog positions.
pub fn policy_for(catalog: &Catalog, workspace_roots: Vec<String>, selected: impl Iterator<Item = usize>, shell_permitted: bool, write_permitted: bool) -> WorkerPolicy {
    let (mut needs_shell, mut needs_write) = (false, false);
    for i in selected {
        if let Some(tool) = catalog.tools().get(i) {
            needs_shell |= tool.requires_shell;
            needs_write |= tool.requires_write;
        }
    }
    WorkerPolicy { workspace_roots, allow_shell: shell_permitted && needs_shell, readonly: !(write_permitted && needs_write) }
}

/// Why a sub-agent's policy was narrowed to fit its parent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "wasm", derive(Tsify))]
pub enum PolicyWarningCode {
    /// A root of the child lies outside every root of the parent; it was dropped.
    #[cfg_attr(feature = "wasm", serde(rename = "root_outside_parent"))]
    RootOutsideParent,
    /// The child would allow the shell, the parent does not; shell was turned off.
    #[cfg_attr(feature = "wasm", serde(rename = "shell_not_allowed_by_parent"))]
    ShellNotAllowedByParent,
    /// The child would be writable, the parent is readonly; the child was made readonly.
    #[cfg_attr(feature = "wasm", serde(rename = "write_not_allowed_by_parent"))]
    WriteNotAllowedByParent,
}

impl PolicyWarningCode {
    /// Every code, in the order above.
    pub const ALL: &'static [PolicyWarningCode] =
        &[PolicyWarningCode::RootOutsideParent, PolicyWarningCode::ShellNotAllowedByParent, PolicyWarningCode::WriteNotAllowedByParent];

    /// The string of every code, in the order of [`Self::ALL`].
    pub const NAMES: &'static [&'static str] = &["root_outside_parent", "shell_not_allowed_by_parent", "write_not_allowed_by_parent"];

    /// The exact JSON string.
    pub fn as_str(self) -> &'static str {
        Self::NAMES.get(self as usize).copied().unwrap_or_default()
    }

    /// The code named by `text`, if any.
    pub fn parse(text: &str) -> Option<Self> {
        crate::vocab::index_of(Self::NAMES, text).and_then(|i| Self::ALL.get(i).copied())
    }
}

impl Serialize for PolicyWarningCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One narrowing of a child policy: `subject` is the dropped root, or `allowShell` / `readonly`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(Tsify))]
pub struct PolicyWarning {
    pub code: PolicyWarningCode,
    pub subject: String,
}

/// A worker policy bounded by its parent's, with every narrowing reported (the answer of
/// `buildSubprocessWorkerPolicy` when a `parent` is given).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct BoundedWorkerPolicy {
    pub workspace_roots: Vec<String>,
    pub allow_shell: bool,
    pub readonly: bool,
    pub warnings: Vec<PolicyWarning>,
}

/// Whether the normalized root `child` lies inside the normalized root `parent`, segment by segment:
/// `/a/b` is inside `/a` and `/a`, `/ab` is not; POSIX and Windows roots never contain each other.
/// Both are outputs of [`normalize_root`], so a Windows drive letter is already upper case.
pub fn root_within(child: &str, parent: &str) -> bool {
    let Some(rest) = child.strip_prefix(parent) else { return false };
    if rest.is_empty() {
        return true;
    }
    // `/` and `X:\` end with their separator; any other root is followed by one in a descendant.
    let separator = if parent.starts_with('/') { '/' } else { '\\' };
    parent.ends_with(separator) || rest.starts_with(separator)
}

/// Narrows `child` to fit `parent` (both with normalized roots): roots outside every parent root are
/// dropped, the shell is allowed only if the parent allows it, and a readonly parent makes the child
/// readonly. Each narrowing is reported, in that order (roots in the child's order).
pub fn bound_by_parent(child: WorkerPolicy, parent: &WorkerPolicy) -> BoundedWorkerPolicy {
    let mut warnings = Vec::new();
    let mut workspace_roots = Vec::with_capacity(child.workspace_roots.len());
    for root in child.workspace_roots {
        if parent.workspace_roots.iter().any(|p| root_within(&root, p)) {
            workspace_roots.push(root);
        } else {
            warnings.push(PolicyWarning { code: PolicyWarningCode::RootOutsideParent, subject: root });
        }
    }
    let allow_shell = child.allow_shell && parent.allow_shell;
    if child.allow_shell && !allow_shell {
        warnings.push(PolicyWarning { code: PolicyWarningCode::ShellNotAllowedByParent, subject: "allowShell".into() });
    }
    let readonly = child.readonly || parent.readonly;
    if readonly && !child.readonly {
        warnings.push(PolicyWarning { code: PolicyWarningCode::WriteNotAllowedByParent, subject: "readonly".into() });
    }
    BoundedWorkerPolicy { workspace_roots, allow_shell, readonly, warnings }
}

impl BoundedWorkerPolicy {
    /// The policy without its warnings.
    pub fn policy(&self) -> WorkerPolicy {
        WorkerPolicy { workspace_roots: self.workspace_roots.clone(), allow_shell: self.allow_shell, readonly: self.readonly }
    }
}

/// `buildSubprocessWorkerPolicy` with a `parent`: the child's policy, then bounded by the parent's
/// (whose roots are normalized here; a relative one is invalid input at `parent.workspaceRoots[i]`).
pub fn build_bounded_worker_policy(catalog: &Catalog, input: &WorkerPolicyInput, parent: &WorkerPolicy) -> Result<BoundedWorkerPolicy, Error> {
    let child = build_subprocess_worker_policy(catalog, input)?;
    Ok(bound_by_parent(child, parent))
}

/// A parent policy with its roots normalized (errors at `parent.workspaceRoots[i]`).
pub fn normalize_parent(parent: WorkerPolicy) -> Result<WorkerPolicy, Error> {
    normalize_policy(parent, "parent")
}

/// A policy given as input (`field`: its name) with its roots normalized, exact duplicates dropped
/// (errors at `{field}.workspaceRoots[i]`).
pub fn normalize_policy(policy: WorkerPolicy, field: &str) -> Result<WorkerPolicy, Error> {
    let base = Path::Root(field);
    let roots_path = base.key("workspaceRoots");
    let mut roots: Vec<String> = Vec::with_capacity(policy.workspace_roots.len());
    for (i, root) in policy.workspace_roots.iter().enumerate() {
        roots.push(normalize_root(root, &roots_path.index(i))?);
    }
    Ok(WorkerPolicy { workspace_roots: first_occurrences(roots), ..policy })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(root: &str) -> Result<String, String> {
        normalize_root(root, &Path::Root("sessionCwd")).map_err(|e| e.to_string())
    }

    #[test]
    fn posix_roots_normalize_lexically() {
        assert_eq!(norm("/a/../..").unwrap(), "/");
        assert_eq!(norm("//a//b/").unwrap(), "/a/b");
        assert_eq!(norm("/").unwrap(), "/");
        assert_eq!(norm("/srv/./app/").unwrap(), "/srv/app");
        assert_eq!(norm("/a/b/../c/./d/..").unwrap(), "/a/c");
        assert_eq!(norm("/a\\b").unwrap(), "/a\\b");
    }

    #[test]
    fn windows_roots_normalize_lexically() {
        assert_eq!(norm("C:\\a\\..\\b").unwrap(), "C:\\b");
        assert_eq!(norm("c:/Users//me/").unwrap(), "C:\\Users\\me");
        assert_eq!(norm("C:\\").unwrap(), "C:\\");
        assert_eq!(norm("d:\\..\\..").unwrap(), "D:\\");
    }

    #[test]
    fn relative_empty_unc_and_nul_roots_are_invalid() {
        assert_eq!(norm(".").unwrap_err(), "sessionCwd: must be an absolute path (POSIX /… or Windows C:\\…), got \".\"");
        assert_eq!(norm("").unwrap_err(), "sessionCwd: must not be empty");
        assert!(norm("a/b").is_err());
        assert!(norm("C:").is_err());
        assert!(norm("C:foo").is_err());
        assert!(norm("\\foo").is_err());
        assert!(norm("\\\\server\\share").unwrap_err().contains("UNC"));
        assert!(norm("/a\0b").unwrap_err().contains("NUL"));
    }

    #[test]
    fn roots_keep_the_first_of_exact_duplicates() {
        let roots = normalize_roots(Some("/w/"), &["/w".into(), "/x/../w".into(), "/y".into()]).unwrap();
        assert_eq!(roots, ["/w", "/y"]);
        let err = normalize_roots(None, &["/ok".into(), "rel".into()]).unwrap_err();
        assert_eq!(err.path(), "workspaceRoots[1]");
    }

    #[test]
    fn containment_is_segment_wise() {
        assert!(root_within("/a/b", "/a"));
        assert!(root_within("/a", "/a"));
        assert!(!root_within("/ab", "/a"));
        assert!(!root_within("/a", "/a/b"));
        assert!(root_within("/anything", "/"));
        assert!(!root_within("/a\\b", "/a"));
        assert!(root_within("C:\\Users\\me", "C:\\Users"));
        assert!(!root_within("C:\\Usersx", "C:\\Users"));
        assert!(root_within("C:\\x", "C:\\"));
        assert!(!root_within("D:\\x", "C:\\"));
        assert!(!root_within("C:\\x", "/"));
        assert!(!root_within("/C:", "C:\\"));
        // Case matters beyond the drive letter (normalization upper-cases the drive only).
        assert!(!root_within("C:\\users\\me", "C:\\Users"));
    }

    #[test]
    fn a_child_is_clamped_to_its_parent_with_a_warning_per_narrowing() {
        let parent = normalize_parent(WorkerPolicy { workspace_roots: vec!["/srv/app/".into(), "c:/Data".into()], allow_shell: false, readonly: true }).unwrap();
        assert_eq!(parent.workspace_roots, ["/srv/app", "C:\\Data"]);
        let child = WorkerPolicy { workspace_roots: vec!["/srv/app/web".into(), "/srv/apple".into(), "C:\\Data\\x".into(), "/".into()], allow_shell: true, readonly: false };
        let b = bound_by_parent(child, &parent);
        assert_eq!(b.workspace_roots, ["/srv/app/web", "C:\\Data\\x"]);
        assert!(!b.allow_shell && b.readonly);
        let codes: Vec<_> = b.warnings.iter().map(|w| (w.code.as_str(), w.subject.as_str())).collect();
        assert_eq!(
            codes,
            [("root_outside_parent", "/srv/apple"), ("root_outside_parent", "/"), ("shell_not_allowed_by_parent", "allowShell"), ("write_not_allowed_by_parent", "readonly")]
        );
        // Within its parent, a child is unchanged and nothing is reported.
        let open = WorkerPolicy { workspace_roots: vec!["/".into()], allow_shell: true, readonly: false };
        let child = WorkerPolicy { workspace_roots: vec!["/w".into()], allow_shell: true, readonly: false };
        let b = bound_by_parent(child.clone(), &open);
        assert_eq!((b.policy(), b.warnings.len()), (child, 0));
        let err = normalize_parent(WorkerPolicy { workspace_roots: vec!["/ok".into(), "rel".into()], allow_shell: true, readonly: true }).unwrap_err();
        assert_eq!(err.path(), "parent.workspaceRoots[1]");
    }

    #[test]
    fn permissions_need_a_tool_that_uses_them() {
        let catalog = Catalog::builtin();
        let input = |tools: &[&str], shell, write| WorkerPolicyInput {
            session_cwd: Some("/w".into()),
            selected_tools: tools.iter().map(|s| s.to_string()).collect(),
            shell_permitted: shell,
            write_permitted: write,
            ..Default::default()
        };
        let p = build_subprocess_worker_policy(&catalog, &input(&["read_file"], true, true)).unwrap();
        assert!(!p.allow_shell && p.readonly);
        let p = build_subprocess_worker_policy(&catalog, &input(&["bash", "patch", "nope"], true, true)).unwrap();
        assert!(p.allow_shell && !p.readonly);
        let p = build_subprocess_worker_policy(&catalog, &input(&["bash", "patch"], false, false)).unwrap();
        assert!(!p.allow_shell && p.readonly);
    }
}
