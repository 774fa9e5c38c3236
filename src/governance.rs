//! The governance resolver (SPEC §5 `resolveTools`, seed 001 Task 5): which catalog tools an agent
//! gets, and for each one it does not, the first check that dropped it.

use crate::catalog::TOOLSET_DEFAULTS;
use crate::manifest::Catalog;
use crate::names::NameMap;
use crate::sink::{NoTrace, Sink, Source};
use crate::vocab::{Capability, CrewRole, ReasonCode, RoutingStrategy, ToolKind, TraceLayer, TraceOutcome};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// What the core reads from one `netaclaw_tool` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowPolicy {
    pub name: String,
    /// `status` is 1, or absent/null.
    pub enabled: bool,
    /// The admin's prompt hint, trimmed; `None` when absent or blank.
    pub prompt_hint: Option<String>,
    pub strategy: RoutingStrategy,
}

impl RowPolicy {
    /// An enabled row with no hint and the `auto` strategy.
    pub fn new(name: impl Into<String>) -> Self {
        RowPolicy { name: name.into(), enabled: true, prompt_hint: None, strategy: RoutingStrategy::Auto }
    }
}

/// Governance rows lined up with a catalog: the row of each catalog tool, if any. Rows of names not in
/// the catalog (orphans) are kept aside and change nothing.
#[derive(Clone, Debug, Default)]
pub struct Governance {
    by_tool: Vec<Option<RowPolicy>>,
    /// The index in the given rows of each catalog tool's row (the source a trace names).
    row_index: Vec<Option<usize>>,
}

impl Governance {
    /// Lines `rows` up with `catalog`. Names must be distinct (checked at the edge).
    pub fn new(catalog: &Catalog, rows: Vec<RowPolicy>) -> Governance {
        let mut by_tool: Vec<Option<RowPolicy>> = vec![None; catalog.tools().len()];
        let mut row_index: Vec<Option<usize>> = vec![None; catalog.tools().len()];
        for (r, row) in rows.into_iter().enumerate() {
            if let Some(i) = catalog.position(&row.name) {
                by_tool[i] = Some(row);
                row_index[i] = Some(r);
            }
        }
        Governance { by_tool, row_index }
    }

    /// The row of the catalog tool at `position`.
    pub fn row(&self, position: usize) -> Option<&RowPolicy> {
        self.by_tool.get(position).and_then(Option::as_ref)
    }

    /// The index, in the rows given to [`Governance::new`], of the row of the catalog tool at `position`.
    pub fn row_index(&self, position: usize) -> Option<usize> {
        self.row_index.get(position).copied().flatten()
    }

    /// The routing strategy of the catalog tool at `position` (`auto` without a row).
    pub fn strategy(&self, position: usize) -> RoutingStrategy {
        self.row(position).map_or(RoutingStrategy::Auto, |r| r.strategy)
    }
}

/// An agent's tool configuration. `toolsets: None` is a legacy agent (it gets the defaults).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentToolConfig {
    pub toolsets: Option<Vec<String>>,
    pub disabled: Vec<String>,
}

/// The per-call input of the resolver (the catalog and governance are prepared apart).
#[derive(Clone, Debug, Default)]
pub struct ResolveInput {
    pub agent: Option<AgentToolConfig>,
    pub model_capability: Option<Capability>,
    pub memory_enabled: bool,
    pub has_skills: bool,
    pub crew_role: Option<CrewRole>,
    /// `None` = `TOOLSET_DEFAULTS`.
    pub toolset_defaults: Option<Vec<String>>,
}

/// A tool the resolver dropped, and the first check that dropped it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct DisabledReason {
    pub name: String,
    pub reason: ReasonCode,
    /// Every layer consulted, in order (only when the input asks for `trace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional))]
    pub trace: Option<Vec<crate::sink::TraceEntry>>,
}

impl DisabledReason {
    /// A dropped tool and its reason, without a trace.
    pub fn new(name: impl Into<String>, reason: ReasonCode) -> Self {
        DisabledReason { name: name.into(), reason, trace: None }
    }
}

/// Something worth telling that does not change the outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct Warning {
    pub code: ReasonCode,
    pub subject: String,
}

/// The resolver's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ResolveResult {
    /// Every injected tool, in catalog order.
    pub tool_names: Vec<String>,
    /// The injected tools of kind `builtin` (what the skill context gets).
    pub builtin_tool_names: Vec<String>,
    /// Admin prompt hints of injected tools that support them.
    #[cfg_attr(feature = "types", tsify(type = "Record<string, string>"))]
    pub tool_prompt_hints: NameMap<String>,
    pub disabled_reasons: Vec<DisabledReason>,
    pub warnings: Vec<Warning>,
    /// The capability used (`text` when none was given).
    pub model_capability: Capability,
}

/// The resolver's decision for every catalog tool (by position): `None` = injected.
#[derive(Clone, Debug)]
pub struct Decisions {
    pub reasons: Vec<Option<ReasonCode>>,
    pub warnings: Warnings,
    pub model_capability: Capability,
}

/// Warnings gathered in their four groups, then ordered and de-duplicated by [`Warnings::finish`].
#[derive(Clone, Debug, Default)]
pub struct Warnings {
    pub unknown_toolsets: Vec<String>,
    pub unknown_tools: Vec<String>,
    pub capability_fallback: bool,
    pub core_tools: Vec<String>,
}

impl Warnings {
    /// `unknown_toolset`, `unknown_tool`, `capability_fallback_text`, then `core_tool_cannot_be_disabled`,
    /// each `(code, subject)` once.
    pub fn finish(&self) -> Vec<Warning> {
        // Each list holds one code: a subject is reported once per code, where it is first listed.
        fn push_firsts(out: &mut Vec<Warning>, code: ReasonCode, subjects: &[String]) {
            let index = crate::names::FirstIndex::new(crate::names::positions(subjects));
            for (k, s) in subjects.iter().enumerate() {
                if index.is_first(s, k) {
                    out.push(Warning { code, subject: s.clone() });
                }
            }
        }
        let mut out = Vec::new();
        push_firsts(&mut out, ReasonCode::UnknownToolset, &self.unknown_toolsets);
        push_firsts(&mut out, ReasonCode::UnknownTool, &self.unknown_tools);
        if self.capability_fallback {
            out.push(Warning { code: ReasonCode::CapabilityFallbackText, subject: "modelCapability".to_string() });
        }
        push_firsts(&mut out, ReasonCode::CoreToolCannotBeDisabled, &self.core_tools);
        out
    }
}

/// Decides every catalog tool. For each tool the first failing check is its reason:
/// toolset not selected, disabled by the agent, disabled globally (protected core tools skip these
/// three), capability mismatch, scene gating (memory, skills, crew master).
pub fn decide(catalog: &Catalog, governance: &Governance, input: &ResolveInput) -> Decisions {
    decide_with(catalog, governance, input, crate::sink::erase(&mut NoTrace))
}

/// [`decide`], recording every step into `sink`.
pub fn decide_with<S: Sink + ?Sized>(catalog: &Catalog, governance: &Governance, input: &ResolveInput, sink: &mut S) -> Decisions {
    let mut warnings = Warnings::default();
    let agent = input.agent.as_ref();

    let selected: Vec<&str> = match agent.and_then(|a| a.toolsets.as_ref()) {
        Some(toolsets) => {
            for t in toolsets {
                if !catalog.knows_toolset(t) {
                    warnings.unknown_toolsets.push(t.clone());
                }
            }
            toolsets.iter().map(String::as_str).collect()
        }
        None => match &input.toolset_defaults {
            Some(defaults) => defaults.iter().map(String::as_str).collect(),
            None => TOOLSET_DEFAULTS.to_vec(),
        },
    };
    let selected = crate::names::FirstIndex::new(crate::names::positions(&selected));
    let disabled: &[String] = agent.map_or(&[], |a| a.disabled.as_slice());
    // The first index in the agent's disabled list of each catalog tool it names.
    let mut agent_disabled_at: Vec<Option<usize>> = vec![None; catalog.tools().len()];
    for (k, name) in disabled.iter().enumerate() {
        match catalog.position(name).and_then(|i| agent_disabled_at.get_mut(i)) {
            Some(at) => {
                at.get_or_insert(k);
            }
            None => warnings.unknown_tools.push(name.clone()),
        }
    }
    let model = input.model_capability.unwrap_or(Capability::Text);
    warnings.capability_fallback = input.model_capability.is_none();

    let reasons = catalog
        .tools()
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            sink.tool(i);
            let check = ToolChecks { row: governance.row(i), agent_disabled: agent_disabled_at.get(i).copied().flatten(), selected: &selected, model, input };
            check.decide(tool, &mut warnings, sink)
        })
        .collect();
    Decisions { reasons, warnings, model_capability: model }
}

/// What the resolver reads for one tool.
struct ToolChecks<'a> {
    row: Option<&'a RowPolicy>,
    /// The tool's index in the agent's disabled list.
    agent_disabled: Option<usize>,
    selected: &'a crate::names::FirstIndex<'a>,
    model: Capability,
    input: &'a ResolveInput,
}

impl ToolChecks<'_> {
    /// The first check that drops `tool`, each check recorded. A protected core tool passes the
    /// toolset, agent and table checks (recorded as `overridden`), and is still subject to the
    /// capability and scene checks.
    fn decide<S: Sink + ?Sized>(&self, tool: &crate::manifest::ToolManifest, warnings: &mut Warnings, sink: &mut S) -> Option<ReasonCode> {
        let protected = tool.is_protected();
        let refused = if protected { TraceOutcome::Overridden } else { TraceOutcome::Block };
        let globally_disabled = self.row.is_some_and(|r| !r.enabled);
        if protected && (self.agent_disabled.is_some() || globally_disabled) {
            warnings.core_tools.push(tool.name.clone());
        }
        let layers = [
            (TraceLayer::AgentToolsets, self.selected.get(&tool.toolset), true, ReasonCode::ToolsetNotSelected),
            (TraceLayer::AgentDisabled, self.agent_disabled, false, ReasonCode::DisabledByAgent),
        ];
        for (layer, found, passes_when_found, reason) in layers {
            let source = if layer == TraceLayer::AgentToolsets { Source::Toolsets(found) } else { Source::Disabled(found) };
            if found.is_some() == passes_when_found {
                sink.record(layer, TraceOutcome::Pass, source, None);
            } else {
                sink.record(layer, refused, source, Some(reason));
                if !protected {
                    return Some(reason);
                }
            }
        }
        if globally_disabled {
            sink.record(TraceLayer::Governance, refused, Source::Status, Some(ReasonCode::DisabledGlobally));
            if !protected {
                return Some(ReasonCode::DisabledGlobally);
            }
        } else {
            sink.record(TraceLayer::Governance, TraceOutcome::Pass, Source::Status, None);
        }
        if !self.model.serves(tool.capability) {
            sink.record(TraceLayer::ModelCapability, TraceOutcome::Block, Source::ModelCapability, Some(ReasonCode::CapabilityMismatch));
            return Some(ReasonCode::CapabilityMismatch);
        }
        sink.record(TraceLayer::ModelCapability, TraceOutcome::Pass, Source::ModelCapability, None);
        let input = self.input;
        let (source, ok, reason) = match tool.kind {
            ToolKind::Memory => (Source::MemoryEnabled, input.memory_enabled, ReasonCode::MemoryDisabled),
            ToolKind::Skill => (Source::HasSkills, input.has_skills, ReasonCode::NoSkillsBound),
            ToolKind::Delegation => (Source::CrewRole, input.crew_role == Some(CrewRole::Master), ReasonCode::CrewMasterOnly),
            _ => return None,
        };
        if ok {
            sink.record(TraceLayer::Scene, TraceOutcome::Pass, source, None);
            None
        } else {
            sink.record(TraceLayer::Scene, TraceOutcome::Block, source, Some(reason));
            Some(reason)
        }
    }
}

/// Turns decisions into the resolver's answer.
pub fn result(catalog: &Catalog, governance: &Governance, decisions: &Decisions) -> ResolveResult {
    let mut out = ResolveResult {
        tool_names: Vec::new(),
        builtin_tool_names: Vec::new(),
        tool_prompt_hints: NameMap::default(),
        disabled_reasons: Vec::new(),
        warnings: decisions.warnings.finish(),
        model_capability: decisions.model_capability,
    };
    let mut hints = Vec::new();
    for (i, (tool, reason)) in catalog.tools().iter().zip(&decisions.reasons).enumerate() {
        match reason {
            Some(reason) => out.disabled_reasons.push(DisabledReason::new(tool.name.clone(), *reason)),
            None => {
                out.tool_names.push(tool.name.clone());
                if tool.kind == ToolKind::Builtin {
                    out.builtin_tool_names.push(tool.name.clone());
                }
                if tool.supports_prompt_hint {
                    if let Some(hint) = governance.row(i).and_then(|r| r.prompt_hint.as_ref()) {
                        hints.push((tool.name.clone(), hint.clone()));
                    }
                }
            }
        }
    }
    out.tool_prompt_hints = NameMap::new(hints);
    out
}

/// `resolveTools`: which tools the agent gets, and why the others are dropped.
pub fn resolve_tools(catalog: &Catalog, governance: &Governance, input: &ResolveInput) -> ResolveResult {
    result(catalog, governance, &decide(catalog, governance, input))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(toolsets: Option<&[&str]>, disabled: &[&str]) -> Option<AgentToolConfig> {
        Some(AgentToolConfig {
            toolsets: toolsets.map(|t| t.iter().map(|s| s.to_string()).collect()),
            disabled: disabled.iter().map(|s| s.to_string()).collect(),
        })
    }

    #[test]
    fn plan_task_16_base_and_planning_without_bash() {
        let catalog = Catalog::builtin();
        let input = ResolveInput { agent: agent(Some(&["base", "planning"]), &["bash"]), ..Default::default() };
        let r = resolve_tools(&catalog, &Governance::default(), &input);
        assert!(!r.tool_names.contains(&"bash".to_string()));
        for name in ["read_file", "write_file", "list_dir", "patch", "todo"] {
            assert!(r.tool_names.iter().any(|n| n == name), "{name} missing");
        }
        assert_eq!(r.disabled_reasons[0], DisabledReason::new("bash", ReasonCode::DisabledByAgent));
        assert!(r.disabled_reasons.iter().any(|d| d.name == "memory_save" && d.reason == ReasonCode::ToolsetNotSelected));
        assert_eq!(r.warnings, vec![Warning { code: ReasonCode::CapabilityFallbackText, subject: "modelCapability".into() }]);
    }

    #[test]
    fn core_tools_survive_the_agent_and_the_table_with_a_warning() {
        let catalog = Catalog::builtin();
        let rows = vec![RowPolicy { enabled: false, ..RowPolicy::new("clarify") }, RowPolicy { enabled: false, ..RowPolicy::new("escalate") }];
        let governance = Governance::new(&catalog, rows);
        let input = ResolveInput { agent: agent(Some(&[]), &["todo", "todo"]), model_capability: Some(Capability::Text), ..Default::default() };
        let r = resolve_tools(&catalog, &governance, &input);
        assert_eq!(r.tool_names, ["todo", "clarify"]);
        let codes: Vec<_> = r.warnings.iter().map(|w| (w.code.as_str(), w.subject.as_str())).collect();
        assert_eq!(codes, [("core_tool_cannot_be_disabled", "todo"), ("core_tool_cannot_be_disabled", "clarify")]);
        assert!(r.disabled_reasons.iter().any(|d| d.name == "escalate" && d.reason == ReasonCode::ToolsetNotSelected));
    }

    #[test]
    fn scene_gating_and_prompt_hints() {
        let catalog = Catalog::builtin();
        let rows = vec![
            RowPolicy { prompt_hint: Some("Prefer small hunks.".into()), ..RowPolicy::new("patch") },
            RowPolicy { prompt_hint: Some("never shown".into()), ..RowPolicy::new("memory_save") },
        ];
        let governance = Governance::new(&catalog, rows);
        let input = ResolveInput { memory_enabled: true, crew_role: Some(CrewRole::Sub), ..Default::default() };
        let r = resolve_tools(&catalog, &governance, &input);
        assert_eq!(r.tool_prompt_hints.entries(), [("patch".to_string(), "Prefer small hunks.".to_string())]);
        let reason = |n: &str| r.disabled_reasons.iter().find(|d| d.name == n).map(|d| d.reason);
        assert_eq!(reason("read_skill"), Some(ReasonCode::NoSkillsBound));
        assert_eq!(reason("delegate_task"), Some(ReasonCode::CrewMasterOnly));
        assert_eq!(reason("memory_save"), None);
        assert_eq!(r.builtin_tool_names.len(), 11);
    }
}
