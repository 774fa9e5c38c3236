//! The tool manifest: a schema with every field resolved (SPEC §3, §7 "Manifest"), and `Catalog`,
//! a validated list of manifests with a name index.

use crate::catalog::{builtin, builtin_catalog, ToolSchema, RESERVED_TOOLSETS};
use crate::vocab::{Capability, ExecutionMode, ToolKind, Visibility, WorkerRoutingHint};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// A tool's stable profile: every field of `ToolSchema` resolved, none optional.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolManifest {
    pub name: String,
    pub toolset: String,
    pub description: String,
    pub visibility: Visibility,
    pub capability: Capability,
    pub is_core: bool,
    pub can_disable: bool,
    pub supports_prompt_hint: bool,
    pub kind: ToolKind,
    pub execution_mode: ExecutionMode,
    pub supported_in_worker: bool,
    pub worker_routing_hint: WorkerRoutingHint,
    pub requires_shell: bool,
    pub requires_write: bool,
    pub requires_skill_scope: bool,
    pub requires_workspace_root: bool,
    /// The JSON Schema of the tool's arguments: the schema's own, the builtin's, or any object
    /// (`{"type":"object","properties":{}}`) when none is declared.
    #[cfg_attr(feature = "types", tsify(type = "JsonSchema"))]
    pub parameters: crate::catalog::Parameters,
}

impl ToolManifest {
    /// A core tool that cannot be disabled: neither an agent nor the table can remove it.
    pub fn is_protected(&self) -> bool {
        self.is_core && !self.can_disable
    }
}

/// The kind a non-builtin tool gets from its toolset when the schema does not say.
fn kind_of_toolset(toolset: &str) -> ToolKind {
    match toolset {
        "memory" => ToolKind::Memory,
        "skills" => ToolKind::Skill,
        "delegation" => ToolKind::Delegation,
        "admin" => ToolKind::Admin,
        _ => ToolKind::Custom,
    }
}

/// Resolves a schema: the schema's fields win; a builtin name takes the table's value for every absent
/// field; any other name takes the defaults of its kind, failing closed (no worker support, hint
/// `disabled` unless its kind is proxied).
pub fn tool_manifest(schema: &ToolSchema) -> ToolManifest {
    if let Some(table) = builtin(&schema.name) {
        return ToolManifest {
            name: schema.name.clone(),
            toolset: schema.toolset.clone(),
            description: schema.description.clone().unwrap_or_else(|| table.description.to_string()),
            visibility: schema.visibility.unwrap_or(table.visibility),
            capability: schema.capability.unwrap_or(Capability::Text),
            is_core: schema.is_core.unwrap_or(table.is_core),
            can_disable: schema.can_disable.unwrap_or(!table.is_core),
            supports_prompt_hint: schema.supports_prompt_hint.unwrap_or(table.kind == ToolKind::Builtin),
            kind: schema.kind.unwrap_or(table.kind),
            execution_mode: schema.execution_mode.unwrap_or(table.mode),
            supported_in_worker: schema.supported_in_worker.unwrap_or(table.in_worker),
            worker_routing_hint: schema.worker_routing_hint.unwrap_or(table.hint),
            requires_shell: schema.requires_shell.unwrap_or(table.shell),
            requires_write: schema.requires_write.unwrap_or(table.write),
            requires_skill_scope: schema.requires_skill_scope.unwrap_or(table.skill),
            requires_workspace_root: schema.requires_workspace_root.unwrap_or(table.root),
            parameters: schema.parameters.clone().unwrap_or_else(|| table.parameters()),
        };
    }
    custom_manifest(schema)
}

/// [`tool_manifest`] of a name that is not a builtin's (out of line: the builtin catalog runs none of
/// it; docs/architecture.md, "The first call").
#[inline(never)]
fn custom_manifest(schema: &ToolSchema) -> ToolManifest {
    let kind = schema.kind.unwrap_or_else(|| kind_of_toolset(&schema.toolset));
    let (hint, mode) = match kind {
        ToolKind::Memory | ToolKind::Skill => (WorkerRoutingHint::MainProcessProxy, ExecutionMode::Parallel),
        ToolKind::Delegation | ToolKind::Admin => (WorkerRoutingHint::Disabled, ExecutionMode::Sequential),
        ToolKind::Builtin | ToolKind::Custom => (WorkerRoutingHint::Disabled, ExecutionMode::Parallel),
    };
    let is_core = schema.is_core.unwrap_or(false);
    ToolManifest {
        name: schema.name.clone(),
        toolset: schema.toolset.clone(),
        description: schema.description.clone().unwrap_or_default(),
        visibility: schema.visibility.unwrap_or(Visibility::Tool),
        capability: schema.capability.unwrap_or(Capability::Text),
        is_core,
        can_disable: schema.can_disable.unwrap_or(!is_core),
        supports_prompt_hint: schema.supports_prompt_hint.unwrap_or(kind == ToolKind::Builtin),
        kind,
        execution_mode: schema.execution_mode.unwrap_or(mode),
        supported_in_worker: schema.supported_in_worker.unwrap_or(false),
        worker_routing_hint: schema.worker_routing_hint.unwrap_or(hint),
        requires_shell: schema.requires_shell.unwrap_or(false),
        requires_write: schema.requires_write.unwrap_or(false),
        requires_skill_scope: schema.requires_skill_scope.unwrap_or(kind == ToolKind::Skill),
        requires_workspace_root: schema.requires_workspace_root.unwrap_or(false),
        parameters: schema.parameters.clone().unwrap_or_else(crate::catalog::empty_parameters),
    }
}

/// A catalog whose schemas repeat a name: the schema at `at` repeats the name of the one at `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DuplicateTool {
    pub at: usize,
    pub first: usize,
}

/// A validated catalog: manifests in catalog order, unique names, and an index by name.
#[derive(Clone, Debug)]
pub struct Catalog {
    tools: Vec<ToolManifest>,
    /// The positions of `tools`, sorted by name.
    index: Vec<usize>,
    toolsets: Vec<String>,
}

impl Catalog {
    /// The builtin catalog.
    pub fn builtin() -> Catalog {
        // The builtin table has unique names; the constructor cannot fail on it.
        Self::build(builtin_catalog().iter().map(tool_manifest).collect())
    }

    /// A catalog of `schemas`, whose names must be unique: the error names the first repetition
    /// (the lengths and count of names are checked where the schemas are read, at the edge).
    pub fn from_schemas(schemas: &[ToolSchema]) -> Result<Catalog, DuplicateTool> {
        if let Some((at, first)) = crate::names::first_duplicate(schemas.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect()) {
            return Err(DuplicateTool { at, first });
        }
        Ok(Self::build(schemas.iter().map(tool_manifest).collect()))
    }

    fn build(tools: Vec<ToolManifest>) -> Catalog {
        let names = tools.iter().enumerate().map(|(i, t)| (t.name.as_str(), i)).collect();
        let index = crate::names::sorted(names).into_iter().map(|(_, i)| i).collect();
        let mut toolsets: Vec<String> = Vec::new();
        for t in &tools {
            if !toolsets.contains(&t.toolset) {
                toolsets.push(t.toolset.clone());
            }
        }
        Catalog { tools, index, toolsets }
    }

    /// The manifests, in catalog order.
    pub fn tools(&self) -> &[ToolManifest] {
        &self.tools
    }

    /// The manifests as the list a diagnostic's `profiles` holds (printed by the same code).
    pub fn manifests(&self) -> &Vec<ToolManifest> {
        &self.tools
    }

    /// The position of `name` in the catalog.
    pub fn position(&self, name: &str) -> Option<usize> {
        let at = self.index.binary_search_by(|&i| self.tools.get(i).map_or("", |t| t.name.as_str()).cmp(name)).ok()?;
        self.index.get(at).copied()
    }

    /// The manifest of `name`.
    pub fn get(&self, name: &str) -> Option<&ToolManifest> {
        self.position(name).and_then(|i| self.tools.get(i))
    }

    /// The catalog's toolsets, in order of first appearance.
    pub fn toolsets(&self) -> &[String] {
        &self.toolsets
    }

    /// Whether `toolset` is known: a toolset of the catalog, or a reserved one (`vision`, `document`).
    pub fn knows_toolset(&self, toolset: &str) -> bool {
        RESERVED_TOOLSETS.contains(&toolset) || self.toolsets.iter().any(|t| t == toolset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_tool_fails_closed() {
        let m = tool_manifest(&ToolSchema::new("web_search", "research"));
        assert_eq!(m.kind, ToolKind::Custom);
        assert!(!m.supported_in_worker);
        assert_eq!(m.worker_routing_hint, WorkerRoutingHint::Disabled);
        assert!(!m.requires_shell && !m.requires_write && !m.supports_prompt_hint);
        assert_eq!(m.description, "");
    }

    #[test]
    fn kinds_follow_the_toolset_and_give_their_defaults() {
        let skill = tool_manifest(&ToolSchema::new("x", "skills"));
        assert_eq!((skill.kind, skill.worker_routing_hint, skill.requires_skill_scope), (ToolKind::Skill, WorkerRoutingHint::MainProcessProxy, true));
        let admin = tool_manifest(&ToolSchema::new("x", "admin"));
        assert_eq!((admin.kind, admin.execution_mode), (ToolKind::Admin, ExecutionMode::Sequential));
        let core = tool_manifest(&ToolSchema { is_core: Some(true), ..ToolSchema::new("x", "base") });
        assert!(core.is_protected());
    }

    #[test]
    fn a_builtin_name_takes_the_table_and_the_schema_wins() {
        let bash = tool_manifest(&ToolSchema::new("bash", "base"));
        assert!(bash.requires_shell && bash.supported_in_worker && bash.requires_workspace_root);
        let changed = tool_manifest(&ToolSchema { requires_shell: Some(false), ..ToolSchema::new("bash", "ops") });
        assert!(!changed.requires_shell);
        assert_eq!(changed.toolset, "ops");
        assert!(tool_manifest(&ToolSchema::new("todo", "planning")).is_protected());
    }

    #[test]
    fn duplicate_names_are_refused() {
        let err = Catalog::from_schemas(&[ToolSchema::new("a", "x"), ToolSchema::new("b", "y"), ToolSchema::new("a", "y")]).unwrap_err();
        assert_eq!(err, DuplicateTool { at: 2, first: 0 });
    }

    #[test]
    fn a_catalog_finds_every_tool_by_name() {
        let schemas: Vec<ToolSchema> = (0..300u32).map(|i| ToolSchema::new(((i * 7919) % 1009).to_string(), "x")).collect();
        let catalog = Catalog::from_schemas(&schemas).unwrap();
        for (i, s) in schemas.iter().enumerate() {
            assert_eq!(catalog.position(&s.name), Some(i));
        }
        assert_eq!(catalog.position("nope"), None);
        assert_eq!(Catalog::builtin().position("bash"), Some(0));
    }
}
