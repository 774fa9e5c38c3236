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
    let bytes = root.as_bytes();
    if root.starts_with('/') {
        return Ok(join("/", "/", root.split('/')));
    }
    if root.starts_with("\\\\") {
        return Err(path.error(format!("UNC paths are not supported: {}", quoted(root))));
    }
    if bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && (bytes[2] == b'\\' || bytes[2] == b'/') {
        let drive = format!("{}:\\", (bytes[0] as char).to_ascii_uppercase());
        return Ok(join(&drive, "\\", root[3..].split(['\\', '/'])));
    }
    Err(path.error(format!("must be an absolute path (POSIX /… or Windows C:\\…), got {}", quoted(root))))
}

fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
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
    out.push_str(&stack.join(separator));
    out
}

/// The session's cwd then the extra roots, each normalized, exact duplicates dropped (first kept).
pub fn normalize_roots(session_cwd: Option<&str>, extra: &[String]) -> Result<Vec<String>, Error> {
    let mut roots: Vec<String> = Vec::with_capacity(extra.len() + 1);
    let mut add = |root: String| {
        if !roots.contains(&root) {
            roots.push(root);
        }
    };
    if let Some(cwd) = session_cwd {
        add(normalize_root(cwd, &Path::Root("sessionCwd"))?);
    }
    let base = Path::Root("workspaceRoots");
    for (i, root) in extra.iter().enumerate() {
        add(normalize_root(root, &base.index(i))?);
    }
    Ok(roots)
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
        let tool = &catalog.tools()[i];
        needs_shell |= tool.requires_shell;
        needs_write |= tool.requires_write;
    }
    WorkerPolicy { workspace_roots, allow_shell: shell_permitted && needs_shell, readonly: !(write_permitted && needs_write) }
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
