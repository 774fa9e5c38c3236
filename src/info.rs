//! What the pages and the backend read instead of restating it (SPEC §8): the catalog's toolsets and
//! every vocabulary (`catalogInfo`), one tool's row as the tool page shows it (`toolRowView`), an agent
//! row mapped to the resolver's input (`agentResolveInput`), and an MCP tool as a `ToolSchema`
//! (`fromMcpTool`).

use crate::catalog::{ToolSchema, RESERVED_TOOLSETS, TOOLSET_DEFAULTS};
use crate::manifest::Catalog;
use crate::registry::{MIRROR_FIELDS, ROW_FIELDS};
use crate::vocab::{Capability, CrewRole, ExecutionMode, FrontendRoute, ReasonCode, RoutingStrategy, RuntimeStatus, ToolKind, Visibility, WorkerRoutingHint};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// One toolset of a catalog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolsetInfo {
    pub name: String,
    /// The toolset's tools, in catalog order.
    pub tools: Vec<String>,
    /// A legacy agent (no `toolsets`) gets it.
    pub is_default: bool,
    /// `vision` or `document`: known even with no tool.
    pub reserved: bool,
}

/// Every vocabulary of SPEC §2, each in declaration order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CatalogVocabulary {
    #[cfg_attr(feature = "types", tsify(type = "ToolKind[]"))]
    pub kind: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "ExecutionMode[]"))]
    pub execution_mode: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "WorkerRoutingHint[]"))]
    pub worker_routing_hint: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "RoutingStrategy[]"))]
    pub routing_strategy: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "Visibility[]"))]
    pub visibility: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "Capability[]"))]
    pub capability: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "CrewRole[]"))]
    pub crew_role: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "RuntimeStatus[]"))]
    pub status: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "FrontendRoute[]"))]
    pub route: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "ReasonCode[]"))]
    pub reason: &'static [&'static str],
}

/// `catalogInfo(catalog?)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CatalogInfo {
    pub toolsets: Vec<ToolsetInfo>,
    #[cfg_attr(feature = "types", tsify(type = "string[]"))]
    pub toolset_defaults: &'static [&'static str],
    /// Row fields an admin edits.
    #[cfg_attr(feature = "types", tsify(type = "string[]"))]
    pub human_fields: Vec<&'static str>,
    /// Row fields that follow the code.
    #[cfg_attr(feature = "types", tsify(type = "string[]"))]
    pub mirror_fields: &'static [&'static str],
    pub vocabulary: CatalogVocabulary,
}

/// `catalogInfo`: toolsets in order of first appearance, then the reserved ones the catalog lacks.
pub fn catalog_info(catalog: &Catalog) -> CatalogInfo {
    let mut names: Vec<&str> = catalog.toolsets().iter().map(String::as_str).collect();
    for reserved in RESERVED_TOOLSETS {
        if !names.contains(&reserved) {
            names.push(reserved);
        }
    }
    let toolsets = names
        .into_iter()
        .map(|name| ToolsetInfo {
            name: name.to_string(),
            tools: tools_of(catalog, name),
            is_default: TOOLSET_DEFAULTS.contains(&name),
            reserved: RESERVED_TOOLSETS.contains(&name),
        })
        .collect();
    CatalogInfo {
        toolsets,
        toolset_defaults: &TOOLSET_DEFAULTS,
        human_fields: ROW_FIELDS.iter().copied().filter(|f| *f != "name" && !MIRROR_FIELDS.contains(f)).collect(),
        mirror_fields: &MIRROR_FIELDS,
        vocabulary: CatalogVocabulary {
            kind: ToolKind::NAMES,
            execution_mode: ExecutionMode::NAMES,
            worker_routing_hint: WorkerRoutingHint::NAMES,
            routing_strategy: RoutingStrategy::NAMES,
            visibility: Visibility::NAMES,
            capability: Capability::NAMES,
            crew_role: CrewRole::NAMES,
            status: RuntimeStatus::NAMES,
            route: FrontendRoute::NAMES,
            reason: ReasonCode::LISTED_NAMES,
        },
    }
}

/// `getToolNamesByToolset`: the tools of `toolset`, in catalog order (none for an unknown toolset).
pub fn tools_of(catalog: &Catalog, toolset: &str) -> Vec<String> {
    catalog.tools().iter().filter(|t| t.toolset == toolset).map(|t| t.name.clone()).collect()
}

/// How the tool page shows a row's prompt hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptHintState {
    /// The row has a non-blank hint, and the tool supports one.
    Overridden,
    /// No hint: the package's default guidance applies.
    Default,
    /// The tool takes no prompt hint (or the row's tool left the catalog).
    Unsupported,
}

impl Serialize for PromptHintState {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(["overridden", "default", "unsupported"].get(*self as usize).copied().unwrap_or_default())
    }
}

/// `toolRowView({ row, catalog? })`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolRowView {
    pub name: String,
    pub in_catalog: bool,
    /// A core tool that cannot be disabled (`isCore` and not `canDisable`).
    pub protected: bool,
    /// Whether the admin may switch `status` (not for a protected tool).
    pub status_editable: bool,
    #[cfg_attr(feature = "types", tsify(type = "\"overridden\" | \"default\" | \"unsupported\""))]
    pub prompt_hint: PromptHintState,
    pub strategy: RoutingStrategy,
}

/// `toolRowView`: protection and prompt-hint support from the manifest; for a row whose tool left the
/// catalog, protection from the row and no prompt hint.
pub fn tool_row_view(catalog: &Catalog, row: &crate::value::Map<String, crate::value::Value>, policy: &crate::governance::RowPolicy) -> ToolRowView {
    let guard = crate::registry::guarded(catalog, row, &policy.name);
    let prompt_hint = match (guard.supports_prompt_hint, &policy.prompt_hint) {
        (false, _) => PromptHintState::Unsupported,
        (true, Some(_)) => PromptHintState::Overridden,
        (true, None) => PromptHintState::Default,
    };
    ToolRowView {
        name: policy.name.clone(),
        in_catalog: catalog.position(&policy.name).is_some(),
        protected: guard.protected,
        status_editable: !guard.protected,
        prompt_hint,
        strategy: policy.strategy,
    }
}

/// The agent part of `agentResolveInput`'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct AgentTools {
    /// `null`: a legacy agent (the package's default toolsets).
    #[cfg_attr(feature = "types", tsify(type = "string[] | null"))]
    pub toolsets: Option<Vec<String>>,
    #[cfg_attr(feature = "types", tsify(type = "{ disabled: string[] } | null"))]
    pub tools: Option<DisabledTools>,
}

/// `{ disabled }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct DisabledTools {
    pub disabled: Vec<String>,
}

/// `agentResolveInput(...)`: the resolver's per-call input for an agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct AgentResolveInput {
    pub agent: AgentTools,
    #[cfg_attr(feature = "types", tsify(type = "Capability | null"))]
    pub model_capability: Option<Capability>,
    pub memory_enabled: bool,
    pub has_skills: bool,
    #[cfg_attr(feature = "types", tsify(type = "CrewRole | null"))]
    pub crew_role: Option<CrewRole>,
}

/// `fromMcpTool`: an MCP `tools/list` entry of `server` as a catalog entry, proxied through the main
/// process, writing unless it says it is read-only, never run in a worker; `unusableReason` when its
/// `inputSchema` is not one the call check understands (registration, not each call, tells).
pub fn from_mcp_tool(server: &str, tool: &str, description: Option<String>, read_only: bool, parameters: crate::value::Value) -> ToolSchema {
    ToolSchema {
        description,
        kind: Some(ToolKind::Custom),
        supported_in_worker: Some(false),
        worker_routing_hint: Some(WorkerRoutingHint::MainProcessProxy),
        requires_write: Some(!read_only),
        unusable_reason: crate::schema::check(&parameters).err(),
        parameters: Some(parameters.into()),
        ..ToolSchema::new(crate::text::concat(&["mcp__", server, "__", tool]), crate::text::concat(&["mcp:", server]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_info_lists_toolsets_defaults_fields_and_vocabularies() {
        let info = catalog_info(&Catalog::builtin());
        let names: Vec<_> = info.toolsets.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["base", "planning", "skills", "memory", "delegation", "vision", "document"]);
        assert_eq!(info.toolsets[0].tools.len(), 8);
        assert!(info.toolsets[0].is_default && !info.toolsets[0].reserved);
        assert!(info.toolsets[5].reserved && info.toolsets[5].tools.is_empty() && !info.toolsets[5].is_default);
        assert_eq!(info.human_fields, ["label", "description", "status", "promptHint", "sort", "extra", "workerRoutingStrategy"]);
        assert_eq!(info.vocabulary.reason.len(), 25);
        assert_eq!(info.vocabulary.reason.last(), Some(&"shell_sandbox_unavailable"));
    }

    #[test]
    fn an_mcp_tool_is_proxied_and_writes_unless_read_only() {
        let s = from_mcp_tool("fs", "read", None, true, serde_json::json!({"type": "object"}));
        assert_eq!((s.name.as_str(), s.toolset.as_str(), s.requires_write), ("mcp__fs__read", "mcp:fs", Some(false)));
        let m = crate::manifest::tool_manifest(&from_mcp_tool("fs", "rm", None, false, serde_json::json!({})));
        assert!(m.requires_write && !m.supported_in_worker);
        assert_eq!(m.worker_routing_hint, WorkerRoutingHint::MainProcessProxy);
    }
}
