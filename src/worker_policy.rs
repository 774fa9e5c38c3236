//! The sub-agent worker policy (seed 000 `buildSubprocessWorkerPolicy`): workspace roots normalized
//! once, into [`Root`] (at the edge, where each input path is known), and shell/write permissions
//! granted only when a selected tool needs them.

use crate::manifest::Catalog;
use crate::text::{concat, quote};
use crate::vocab::PolicyWarningCode;
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// A workspace root, absolute and lexically normalized ([`Root::new`]): POSIX `/…` or Windows `X:\…`,
/// `.` and `..` resolved, no repeated or trailing separator, an upper-case drive letter. The only way
/// to make one is to normalize a path, so every root the core sees has been normalized exactly once.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Root(String);

/// Why a path is not a workspace root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootError {
    Empty,
    TooLong,
    Nul,
    Unc(String),
    NotAbsolute(String),
}

impl RootError {
    /// What is wrong, as an invalid-input message says it after the path.
    pub fn what(&self) -> String {
        match self {
            RootError::Empty => "must not be empty".into(),
            RootError::TooLong => concat(&["is longer than ", &crate::text::decimal(Root::MAX_LEN as u64), " characters"]),
            RootError::Nul => "must not contain a NUL character".into(),
            RootError::Unc(text) => concat(&["UNC paths are not supported: ", &quote(text)]),
            RootError::NotAbsolute(text) => concat(&["must be an absolute path (POSIX /… or Windows C:\\…), got ", &quote(text)]),
        }
    }
}

impl Root {
    /// The longest root, in Unicode scalar values.
    pub const MAX_LEN: usize = 4_096;

    /// Normalizes one absolute path lexically: POSIX `/…` or Windows `X:\…` (either separator). `.` and
    /// `..` are resolved (`..` above the root stays at the root), repeated and trailing separators
    /// removed; Windows output uses `\` and an upper-case drive letter. Relative, empty, drive-relative
    /// (`C:x`) and UNC (`\\server\share`) paths are errors, as are paths holding a NUL character or
    /// longer than [`Root::MAX_LEN`].
    pub fn new(root: &str) -> Result<Root, RootError> {
        Root::from_string(root.to_string())
    }

    /// [`Root::new`] of a string of its own, kept as it is when already normalized (no copy).
    pub fn from_string(root: String) -> Result<Root, RootError> {
        if root.is_empty() {
            return Err(RootError::Empty);
        }
        if crate::text::scalar_count(&root, Self::MAX_LEN + 1) > Self::MAX_LEN {
            return Err(RootError::TooLong);
        }
        if root.contains('\0') {
            return Err(RootError::Nul);
        }
        if root.starts_with('/') {
            // Already normalized (no empty, `.` or `..` segment): taken as it is.
            if root.as_bytes().split(|b| *b == b'/').skip(1).all(|s| !matches!(s, b"" | b"." | b"..")) {
                return Ok(Root(root));
            }
            return Ok(Root(join("/", "/", root.split('/'))));
        }
        if root.starts_with("\\\\") {
            return Err(RootError::Unc(root));
        }
        if let [letter @ (b'a'..=b'z' | b'A'..=b'Z'), b':', b'\\' | b'/', ..] = root.as_bytes() {
            let mut drive = String::with_capacity(3);
            drive.push(char::from(letter.to_ascii_uppercase()));
            drive.push_str(":\\");
            return Ok(Root(join(&drive, "\\", root.get(3..).unwrap_or_default().split(['\\', '/']))));
        }
        Err(RootError::NotAbsolute(root))
    }

    /// The normalized text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The normalized text, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Whether this root lies inside `parent`, segment by segment ([`root_within`]).
    pub fn within(&self, parent: &Root) -> bool {
        root_within(&self.0, &parent.0)
    }
}

impl std::ops::Deref for Root {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Root {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Root {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Root {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// What a sub-agent worker may do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct WorkerPolicy {
    /// Absolute, lexically normalized, without duplicates; the session's cwd first.
    #[cfg_attr(feature = "types", tsify(type = "string[]"))]
    pub workspace_roots: Vec<Root>,
    pub allow_shell: bool,
    pub readonly: bool,
}

/// The input of [`build_subprocess_worker_policy`].
#[derive(Clone, Debug, Default)]
pub struct WorkerPolicyInput {
    pub session_cwd: Option<Root>,
    pub workspace_roots: Vec<Root>,
    pub selected_tools: Vec<String>,
    pub shell_permitted: bool,
    pub write_permitted: bool,
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
    let mut out = String::with_capacity(64);
    out.push_str(prefix);
    for (i, part) in stack.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(part);
    }
    out
}

/// The session's cwd then the extra roots, exact duplicates dropped (first kept).
pub fn roots_of(session_cwd: Option<&Root>, extra: &[Root]) -> Vec<Root> {
    let mut roots = Vec::with_capacity(extra.len() + 1);
    if let Some(cwd) = session_cwd {
        roots.push(cwd.clone());
    }
    for root in extra {
        roots.push(root.clone());
    }
    first_occurrences(roots)
}

/// `roots` without exact duplicates, the first occurrence of each kept in place.
pub fn first_occurrences(roots: Vec<Root>) -> Vec<Root> {
    // No list of fewer than two roots repeats one.
    if roots.len() < 2 {
        return roots;
    }
    let keep: Vec<bool> = {
        let index = crate::names::FirstIndex::new(crate::names::positions(&roots));
        roots.iter().enumerate().map(|(i, r)| index.is_first(r, i)).collect()
    };
    roots.into_iter().zip(keep).filter_map(|(r, k)| k.then_some(r)).collect()
}

/// `buildSubprocessWorkerPolicy`: shell only when permitted and a selected tool needs it; writable
/// only when permitted and a selected tool writes. Unknown selected names are ignored.
pub fn build_subprocess_worker_policy(catalog: &Catalog, input: &WorkerPolicyInput) -> WorkerPolicy {
    let workspace_roots = roots_of(input.session_cwd.as_ref(), &input.workspace_roots);
    policy_for(catalog, workspace_roots, input.selected_tools.iter().filter_map(|n| catalog.position(n)), input.shell_permitted, input.write_permitted)
}

/// The policy for already-normalized roots and a selection given by catalog positions.
pub fn policy_for(
    catalog: &Catalog,
    workspace_roots: Vec<Root>,
    selected: impl Iterator<Item = usize>,
    shell_permitted: bool,
    write_permitted: bool,
) -> WorkerPolicy {
    let (mut needs_shell, mut needs_write) = (false, false);
    for i in selected {
        if let Some(tool) = catalog.tools().get(i) {
            needs_shell |= tool.requires_shell;
            needs_write |= tool.requires_write;
        }
    }
    WorkerPolicy { workspace_roots, allow_shell: shell_permitted && needs_shell, readonly: !(write_permitted && needs_write) }
}

/// One narrowing of a child policy: `subject` is the dropped root, or `allowShell` / `readonly`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct PolicyWarning {
    pub code: PolicyWarningCode,
    pub subject: String,
}

/// A worker policy bounded by its parent's, with every narrowing reported (the answer of
/// `buildSubprocessWorkerPolicy` when a `parent` is given).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct BoundedWorkerPolicy {
    #[cfg_attr(feature = "types", tsify(type = "string[]"))]
    pub workspace_roots: Vec<Root>,
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
        if parent.workspace_roots.iter().any(|p| root.within(p)) {
            workspace_roots.push(root);
        } else {
            warnings.push(PolicyWarning { code: PolicyWarningCode::RootOutsideParent, subject: root.0 });
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

/// `buildSubprocessWorkerPolicy` with a `parent`: the child's policy, then bounded by the parent's.
pub fn build_bounded_worker_policy(catalog: &Catalog, input: &WorkerPolicyInput, parent: &WorkerPolicy) -> BoundedWorkerPolicy {
    bound_by_parent(build_subprocess_worker_policy(catalog, input), parent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(root: &str) -> Result<String, String> {
        Root::new(root).map(|r| r.as_str().to_string()).map_err(|e| concat(&["sessionCwd: ", &e.what()]))
    }

    fn roots(texts: &[&str]) -> Vec<Root> {
        texts.iter().map(|t| Root::new(t).unwrap()).collect()
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
    fn a_normalized_root_is_taken_as_it_is_and_equals_its_normalization() {
        for root in
            ["/", "/a", "/srv/work/src/lib.rs", "/a/b.", "/a/..b", "/a/.b/c", "/a\\..\\b", "/a//b", "/a/./b", "/a/../b", "/a/", "/a/.", "/a/..", "//", "/../x"]
        {
            assert_eq!(Root::new(root).unwrap().as_str(), join("/", "/", root.split('/')), "{root}");
        }
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
        let cwd = Root::new("/w/").unwrap();
        assert_eq!(roots_of(Some(&cwd), &roots(&["/w", "/x/../w", "/y"])), ["/w", "/y"]);
        // Around the short path of fewer than two roots: none, one, and two that repeat.
        assert!(roots_of(None, &[]).is_empty());
        assert_eq!(roots_of(Some(&cwd), &[]), ["/w"]);
        assert_eq!(roots_of(Some(&cwd), &roots(&["/w"])), ["/w"]);
        assert_eq!(first_occurrences(roots(&["/y", "/y"])), ["/y"]);
        assert_eq!(first_occurrences(roots(&["/y", "/w"])), ["/y", "/w"]);
        assert!(norm(&"a".repeat(5000)).unwrap_err().ends_with("is longer than 4096 characters"));
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
        let parent = WorkerPolicy { workspace_roots: roots(&["/srv/app/", "c:/Data"]), allow_shell: false, readonly: true };
        assert_eq!(parent.workspace_roots, ["/srv/app", "C:\\Data"]);
        let child = WorkerPolicy { workspace_roots: roots(&["/srv/app/web", "/srv/apple", "C:\\Data\\x", "/"]), allow_shell: true, readonly: false };
        let b = bound_by_parent(child, &parent);
        assert_eq!(b.workspace_roots, ["/srv/app/web", "C:\\Data\\x"]);
        assert!(!b.allow_shell && b.readonly);
        let codes: Vec<_> = b.warnings.iter().map(|w| (w.code.as_str(), w.subject.as_str())).collect();
        assert_eq!(
            codes,
            [
                ("root_outside_parent", "/srv/apple"),
                ("root_outside_parent", "/"),
                ("shell_not_allowed_by_parent", "allowShell"),
                ("write_not_allowed_by_parent", "readonly")
            ]
        );
        // Within its parent, a child is unchanged and nothing is reported.
        let open = WorkerPolicy { workspace_roots: roots(&["/"]), allow_shell: true, readonly: false };
        let child = WorkerPolicy { workspace_roots: roots(&["/w"]), allow_shell: true, readonly: false };
        let b = bound_by_parent(child.clone(), &open);
        assert_eq!((b.policy(), b.warnings.len()), (child, 0));
    }

    #[test]
    fn permissions_need_a_tool_that_uses_them() {
        let catalog = Catalog::builtin();
        let input = |tools: &[&str], shell, write| WorkerPolicyInput {
            session_cwd: Some(Root::new("/w").unwrap()),
            selected_tools: tools.iter().map(|s| s.to_string()).collect(),
            shell_permitted: shell,
            write_permitted: write,
            ..Default::default()
        };
        let p = build_subprocess_worker_policy(&catalog, &input(&["read_file"], true, true));
        assert!(!p.allow_shell && p.readonly);
        let p = build_subprocess_worker_policy(&catalog, &input(&["bash", "patch", "nope"], true, true));
        assert!(p.allow_shell && !p.readonly);
        let p = build_subprocess_worker_policy(&catalog, &input(&["bash", "patch"], false, false));
        assert!(!p.allow_shell && p.readonly);
    }
}
