//! Model Context Protocol export: a tool manifest as MCP `ToolAnnotations` (`toMcpAnnotations`).
//!
//! MCP annotations are hints a client uses to decide what to ask the user before a call. Each is
//! derived from the manifest alone, and when the manifest cannot tell, the hint takes the cautious
//! side (not read-only, destructive, not idempotent, open world), as the MCP defaults do.

use crate::manifest::ToolManifest;
use crate::vocab::ToolKind;
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// MCP `ToolAnnotations`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// The name in words: `_` and `-` become spaces, the first letter upper case (`read_file` → `Read file`).
    pub title: String,
    /// Does not modify its environment: a `builtin` or `skill` tool that requires neither write nor shell.
    pub read_only_hint: bool,
    /// May destroy or overwrite: not read-only, and it writes, runs a shell, or is `admin` / `custom`.
    pub destructive_hint: bool,
    /// Repeating a call has no further effect: read-only tools only.
    pub idempotent_hint: bool,
    /// May reach beyond the workspace and the agent's own state: it runs a shell, or is `delegation` / `custom`.
    pub open_world_hint: bool,
}

/// The name in words: separators to spaces, the first ASCII letter upper case.
pub fn title(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        out.push(match c {
            '_' | '-' => ' ',
            c if out.is_empty() => c.to_ascii_uppercase(),
            c => c,
        });
    }
    out
}

/// `toMcpAnnotations`.
pub fn to_mcp_annotations(m: &ToolManifest) -> ToolAnnotations {
    let read_only = matches!(m.kind, ToolKind::Builtin | ToolKind::Skill) && !m.requires_write && !m.requires_shell;
    ToolAnnotations {
        title: title(&m.name),
        read_only_hint: read_only,
        destructive_hint: !read_only && (m.requires_write || m.requires_shell || matches!(m.kind, ToolKind::Admin | ToolKind::Custom)),
        idempotent_hint: read_only,
        open_world_hint: m.requires_shell || matches!(m.kind, ToolKind::Delegation | ToolKind::Custom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ToolSchema;
    use crate::manifest::{tool_manifest, Catalog};

    fn hints(name: &str) -> (bool, bool, bool, bool) {
        let catalog = Catalog::builtin();
        let a = to_mcp_annotations(catalog.get(name).unwrap());
        (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
    }

    #[test]
    fn builtin_tools_get_the_expected_hints() {
        assert_eq!(hints("read_file"), (true, false, true, false));
        assert_eq!(hints("grep"), (true, false, true, false));
        assert_eq!(hints("bash"), (false, true, false, true));
        assert_eq!(hints("write_file"), (false, true, false, false));
        assert_eq!(hints("skill_manage"), (false, true, false, false));
        assert_eq!(hints("execute_skill"), (false, true, false, true));
        assert_eq!(hints("read_skill"), (true, false, true, false));
        assert_eq!(hints("memory_save"), (false, false, false, false));
        assert_eq!(hints("delegate_task"), (false, false, false, true));
    }

    #[test]
    fn an_unknown_custom_tool_takes_the_cautious_side() {
        let a = to_mcp_annotations(&tool_manifest(&ToolSchema::new("web-search", "research")));
        assert_eq!(a.title, "Web search");
        assert!(!a.read_only_hint && a.destructive_hint && !a.idempotent_hint && a.open_world_hint);
        assert_eq!(title("read_file"), "Read file");
        assert_eq!(title("工具_a"), "工具 a");
        assert_eq!(title(""), "");
    }
}
