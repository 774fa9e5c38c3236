//! Decision traces: for one tool, every layer consulted, in the order the engine consults them —
//! catalog, agent toolsets, agent disabled list, governance row, model capability, scene gating,
//! sub-agent selection, routing strategy, worker policy, manifest — each with its outcome and the
//! exact input path that decided it (`governance[3].status`, `agent.tools.disabled[0]`, `sessionCwd`,
//! `catalog[5].workerRoutingHint`, `builtin:bash`).
//!
//! A trace is built only when the input asks for it (`trace: true`), beside the decision it explains:
//! the decision itself is never taken here, and the first `block` of a trace is always the decision's
//! first reason.

use crate::catalog::{builtin, ToolSchema, TOOLSET_DEFAULTS};
use crate::governance::{resolve_tools, Governance, ResolveInput, ResolveResult};
use crate::json::Path;
use crate::manifest::Catalog;
use crate::projection::{route, ProjectionInput, RouteInput, ToolRuntimeRoute};
use crate::vocab::{CrewRole, ReasonCode, RoutingStrategy, ToolKind, WorkerRoutingHint};
use crate::worker_policy::WorkerPolicy;
use serde::Serialize;
#[cfg(feature = "wasm")]
use tsify::Tsify;

use crate::vocab::string_enum;

string_enum!(
    /// A layer of the decision.
    TraceLayer {
        Catalog = "catalog",
        AgentToolsets = "agent-toolsets",
        AgentDisabled = "agent-disabled",
        Governance = "governance",
        ModelCapability = "model-capability",
        Scene = "scene",
        SubagentSelection = "subagent-selection",
        RoutingStrategy = "routing-strategy",
        WorkerPolicy = "worker-policy",
        Manifest = "manifest",
    }
);

string_enum!(
    /// What a layer said: `pass` let the tool through, `block` stopped it (its `reason` says why),
    /// `overridden` would have stopped it but did not apply (a protected core tool, or a strategy the
    /// manifest refuses), `local` / `proxy` is the route the routing layer chose.
    TraceOutcome { Pass = "pass", Block = "block", Overridden = "overridden", Local = "local", Proxy = "proxy" }
);

/// One consulted layer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(Tsify))]
pub struct TraceEntry {
    pub layer: TraceLayer,
    pub outcome: TraceOutcome,
    /// The input path (or `builtin:…` table entry) that decided this outcome.
    pub source: String,
    /// The code this layer contributed (or, for `overridden`, the one it would have).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub reason: Option<ReasonCode>,
}

fn entry(layer: TraceLayer, outcome: TraceOutcome, source: impl Into<String>, reason: Option<ReasonCode>) -> TraceEntry {
    TraceEntry { layer, outcome, source: source.into(), reason }
}

/// `base[index]`.
pub fn indexed(base: &str, index: usize) -> String {
    let mut out = String::with_capacity(base.len() + 6);
    out.push_str(base);
    out.push('[');
    out.push_str(&crate::json::decimal(index as u64));
    out.push(']');
    out
}

const HINT: u8 = 1;
const IN_WORKER: u8 = 2;

/// Where each catalog tool's profile came from: the builtin catalog (the input had none), or the
/// input's `catalog[i]`, with the runtime fields its schema set.
#[derive(Clone, Debug, Default)]
pub struct CatalogSources {
    custom: Option<Vec<u8>>,
}

impl CatalogSources {
    /// The builtin catalog (no `catalog` in the input).
    pub fn builtin() -> Self {
        CatalogSources { custom: None }
    }

    /// A catalog given as `catalog`.
    pub fn from_schemas(schemas: &[ToolSchema]) -> Self {
        let bits = schemas
            .iter()
            .map(|s| (if s.worker_routing_hint.is_some() { HINT } else { 0 }) | (if s.supported_in_worker.is_some() { IN_WORKER } else { 0 }))
            .collect();
        CatalogSources { custom: Some(bits) }
    }

    /// `builtin:{name}` or `catalog[i]`.
    pub fn tool(&self, position: usize, name: &str) -> String {
        match self.custom {
            None => builtin_source(name),
            Some(_) => indexed("catalog", position),
        }
    }

    /// The source of one runtime field: `catalog[i].{field}` when the schema set it, else the builtin
    /// table (`builtin:{name}`) for a builtin name, else the defaults of its kind (`catalog[i]`).
    fn field(&self, position: usize, name: &str, bit: u8, field: &str) -> String {
        match &self.custom {
            None => builtin_source(name),
            Some(bits) if bits.get(position).is_some_and(|b| b & bit != 0) => {
                let mut out = indexed("catalog", position);
                out.push('.');
                out.push_str(field);
                out
            }
            Some(_) if builtin(name).is_some() => builtin_source(name),
            Some(_) => indexed("catalog", position),
        }
    }
}

fn builtin_source(name: &str) -> String {
    let mut out = String::from("builtin:");
    out.push_str(name);
    out
}

/// The resolver's layers for the catalog tool at `position`, mirroring `governance::decide`: it stops
/// at the first block, except for a protected core tool, whose toolset, agent and table checks are
/// `overridden` and whose capability and scene checks still apply.
pub fn resolver_trace(catalog: &Catalog, governance: &Governance, sources: &CatalogSources, input: &ResolveInput, position: usize) -> Vec<TraceEntry> {
    let tool = &catalog.tools()[position];
    let mut out = vec![entry(TraceLayer::Catalog, TraceOutcome::Pass, sources.tool(position, &tool.name), None)];
    let protected = tool.is_protected();
    let refused = if protected { TraceOutcome::Overridden } else { TraceOutcome::Block };
    let agent = input.agent.as_ref();

    let (base, position_in): (&str, Option<usize>) = match (agent.and_then(|a| a.toolsets.as_ref()), &input.toolset_defaults) {
        (Some(list), _) => ("agent.toolsets", list.iter().position(|t| *t == tool.toolset)),
        (None, Some(list)) => ("toolsetDefaults", list.iter().position(|t| *t == tool.toolset)),
        (None, None) => ("builtin:TOOLSET_DEFAULTS", TOOLSET_DEFAULTS.iter().position(|t| *t == tool.toolset)),
    };
    match position_in {
        Some(k) if !base.starts_with("builtin:") => out.push(entry(TraceLayer::AgentToolsets, TraceOutcome::Pass, indexed(base, k), None)),
        Some(_) => out.push(entry(TraceLayer::AgentToolsets, TraceOutcome::Pass, base, None)),
        None => {
            out.push(entry(TraceLayer::AgentToolsets, refused, base, Some(ReasonCode::ToolsetNotSelected)));
            if !protected {
                return out;
            }
        }
    }

    let disabled: &[String] = agent.map_or(&[], |a| a.disabled.as_slice());
    match disabled.iter().position(|d| *d == tool.name) {
        Some(k) => {
            out.push(entry(TraceLayer::AgentDisabled, refused, indexed("agent.tools.disabled", k), Some(ReasonCode::DisabledByAgent)));
            if !protected {
                return out;
            }
        }
        None => out.push(entry(TraceLayer::AgentDisabled, TraceOutcome::Pass, "agent.tools.disabled", None)),
    }

    match (governance.row(position), governance.row_index(position)) {
        (Some(row), Some(r)) => {
            let mut source = indexed("governance", r);
            source.push_str(".status");
            if row.enabled {
                out.push(entry(TraceLayer::Governance, TraceOutcome::Pass, source, None));
            } else {
                out.push(entry(TraceLayer::Governance, refused, source, Some(ReasonCode::DisabledGlobally)));
                if !protected {
                    return out;
                }
            }
        }
        _ => out.push(entry(TraceLayer::Governance, TraceOutcome::Pass, "governance", None)),
    }

    let model = input.model_capability.unwrap_or(crate::vocab::Capability::Text);
    if model.serves(tool.capability) {
        out.push(entry(TraceLayer::ModelCapability, TraceOutcome::Pass, "modelCapability", None));
    } else {
        out.push(entry(TraceLayer::ModelCapability, TraceOutcome::Block, "modelCapability", Some(ReasonCode::CapabilityMismatch)));
        return out;
    }

    let scene = match tool.kind {
        ToolKind::Memory => Some(("memoryEnabled", input.memory_enabled, ReasonCode::MemoryDisabled)),
        ToolKind::Skill => Some(("hasSkills", input.has_skills, ReasonCode::NoSkillsBound)),
        ToolKind::Delegation => Some(("crewRole", input.crew_role == Some(CrewRole::Master), ReasonCode::CrewMasterOnly)),
        _ => None,
    };
    if let Some((source, ok, reason)) = scene {
        let (outcome, reason) = if ok { (TraceOutcome::Pass, None) } else { (TraceOutcome::Block, Some(reason)) };
        out.push(entry(TraceLayer::Scene, outcome, source, reason));
    }
    out
}

/// The input paths a route decision reads, named once per call.
#[derive(Clone, Debug, Default)]
pub struct RouteSources {
    /// What selected (or did not select) this tool.
    pub selection: String,
    /// Where this tool's routing strategy was set (read only for a strategy other than `auto`).
    pub strategy: String,
    /// What gave the policy its roots (or left it without).
    pub roots: String,
    /// What decided `allowShell`.
    pub shell: String,
    /// What decided `readonly`.
    pub write: String,
}

/// The projection's layers for the catalog tool at `position`, mirroring `projection::decide_route`.
pub fn route_trace(catalog: &Catalog, sources: &CatalogSources, position: usize, input: RouteInput, policy: &WorkerPolicy, src: &RouteSources, out: &mut Vec<TraceEntry>) {
    let tool = &catalog.tools()[position];
    if !input.selected {
        let reason = input.not_selected_reason.unwrap_or(ReasonCode::NotSelectedForSubagent);
        out.push(entry(TraceLayer::SubagentSelection, TraceOutcome::Block, src.selection.as_str(), Some(reason)));
        return;
    }
    out.push(entry(TraceLayer::SubagentSelection, TraceOutcome::Pass, src.selection.as_str(), None));
    if input.strategy == RoutingStrategy::ForceDisabled {
        out.push(entry(TraceLayer::RoutingStrategy, TraceOutcome::Block, src.strategy.as_str(), Some(ReasonCode::DisabledByRoutingStrategy)));
    }
    let checks = [
        (tool.requires_workspace_root, policy.workspace_roots.is_empty(), &src.roots, ReasonCode::WorkspaceRootRequired),
        (tool.requires_shell, !policy.allow_shell, &src.shell, ReasonCode::ShellDisabledByPolicy),
        (tool.requires_write, policy.readonly, &src.write, ReasonCode::WriteBlockedByReadonlyPolicy),
    ];
    for (required, missing, source, reason) in checks {
        if required {
            let (outcome, reason) = if missing { (TraceOutcome::Block, Some(reason)) } else { (TraceOutcome::Pass, None) };
            out.push(entry(TraceLayer::WorkerPolicy, outcome, source.as_str(), reason));
        }
    }
    let forced = matches!(input.strategy, RoutingStrategy::ForceLocal | RoutingStrategy::ForceMainProcessProxy);
    let manifest_hint = tool.worker_routing_hint;
    let hint_source = || sources.field(position, &tool.name, HINT, "workerRoutingHint");
    let (layer, hint, source) = if forced && manifest_hint != WorkerRoutingHint::Disabled {
        let hint = if input.strategy == RoutingStrategy::ForceLocal { WorkerRoutingHint::Local } else { WorkerRoutingHint::MainProcessProxy };
        (TraceLayer::RoutingStrategy, hint, src.strategy.clone())
    } else {
        if forced {
            out.push(entry(TraceLayer::RoutingStrategy, TraceOutcome::Overridden, src.strategy.as_str(), None));
        }
        (TraceLayer::Manifest, manifest_hint, hint_source())
    };
    out.push(match hint {
        WorkerRoutingHint::Local if tool.supported_in_worker => entry(layer, TraceOutcome::Local, source, None),
        WorkerRoutingHint::MainProcessProxy => entry(layer, TraceOutcome::Proxy, source, Some(ReasonCode::RequiresMainProcessProxy)),
        WorkerRoutingHint::Local => {
            let source = sources.field(position, &tool.name, IN_WORKER, "supportedInWorker");
            entry(TraceLayer::Manifest, TraceOutcome::Block, source, Some(ReasonCode::UnsupportedInWorker))
        }
        WorkerRoutingHint::Disabled => entry(TraceLayer::Manifest, TraceOutcome::Block, source, Some(ReasonCode::UnsupportedInWorker)),
    });
}

/// The first index of each name in a list.
pub fn first_indices<S: AsRef<str>>(names: &[S]) -> crate::names::FirstIndex<'_> {
    crate::names::FirstIndex::new(crate::names::positions(names))
}

/// `resolveTools` with `trace: true`: every dropped tool carries its trace.
pub fn traced_resolve(catalog: &Catalog, governance: &Governance, sources: &CatalogSources, input: &ResolveInput) -> ResolveResult {
    let mut result = resolve_tools(catalog, governance, input);
    for dropped in &mut result.disabled_reasons {
        if let Some(i) = catalog.position(&dropped.name) {
            dropped.trace = Some(resolver_trace(catalog, governance, sources, input, i));
        }
    }
    result
}

/// `projectRuntimePolicy` with `trace: true`. `selected_names` is the input's `selectedTools`.
pub fn traced_projection(catalog: &Catalog, sources: &CatalogSources, policy: &WorkerPolicy, input: &ProjectionInput, selected_names: &[&str]) -> Vec<ToolRuntimeRoute> {
    let strategies = Path::Root("strategies");
    let reasons = Path::Root("notSelectedReasons");
    let mut src = RouteSources {
        roots: "policy.workspaceRoots".into(),
        shell: "policy.allowShell".into(),
        write: "policy.readonly".into(),
        ..RouteSources::default()
    };
    let selected_at = first_indices(selected_names);
    catalog
        .tools()
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            let route_input = input.route_input(i);
            src.selection = match selected_at.get(&tool.name) {
                Some(k) => indexed("selectedTools", k),
                None if route_input.not_selected_reason.is_some() => reasons.key(&tool.name).render(),
                None => "selectedTools".into(),
            };
            src.strategy = strategies.key(&tool.name).render();
            let mut trace = vec![entry(TraceLayer::Catalog, TraceOutcome::Pass, sources.tool(i, &tool.name), None)];
            route_trace(catalog, sources, i, route_input, policy, &src, &mut trace);
            let mut r = route(tool, route_input, policy);
            r.trace = Some(trace);
            r
        })
        .collect()
}

/// The first reason a trace gives (its first `block`, or else its first code): equal to the decision's
/// first reason.
pub fn first_reason(trace: &[TraceEntry]) -> Option<ReasonCode> {
    trace
        .iter()
        .find(|e| e.outcome == TraceOutcome::Block)
        .or_else(|| trace.iter().find(|e| e.outcome != TraceOutcome::Overridden && e.reason.is_some()))
        .and_then(|e| e.reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::{AgentToolConfig, RowPolicy};
    use crate::vocab::Capability;

    fn sources_of(trace: &[TraceEntry]) -> Vec<(&str, &str, &str)> {
        trace.iter().map(|e| (e.layer.as_str(), e.outcome.as_str(), e.source.as_str())).collect()
    }

    #[test]
    fn a_dropped_tool_names_the_row_and_the_list_entry_that_dropped_it() {
        let catalog = Catalog::builtin();
        let governance = Governance::new(&catalog, vec![RowPolicy::new("grep"), RowPolicy { enabled: false, ..RowPolicy::new("list_dir") }]);
        let input = ResolveInput {
            agent: Some(AgentToolConfig { toolsets: Some(vec!["planning".into(), "base".into()]), disabled: vec!["todo".into(), "bash".into()] }),
            model_capability: Some(Capability::Text),
            ..Default::default()
        };
        let sources = CatalogSources::builtin();
        let r = traced_resolve(&catalog, &governance, &sources, &input);
        let bash = r.disabled_reasons.iter().find(|d| d.name == "bash").and_then(|d| d.trace.clone()).unwrap();
        assert_eq!(
            sources_of(&bash),
            [("catalog", "pass", "builtin:bash"), ("agent-toolsets", "pass", "agent.toolsets[1]"), ("agent-disabled", "block", "agent.tools.disabled[1]")]
        );
        let list_dir = r.disabled_reasons.iter().find(|d| d.name == "list_dir").and_then(|d| d.trace.clone()).unwrap();
        assert_eq!(list_dir.last().map(|e| (e.source.as_str(), e.reason)), Some(("governance[1].status", Some(ReasonCode::DisabledGlobally))));
        // A protected core tool is not dropped; its trace shows the agent's attempt overridden.
        let todo = resolver_trace(&catalog, &governance, &sources, &input, catalog.position("todo").unwrap());
        assert_eq!(todo[2], entry(TraceLayer::AgentDisabled, TraceOutcome::Overridden, "agent.tools.disabled[0]", Some(ReasonCode::DisabledByAgent)));
        assert!(todo.iter().all(|e| e.outcome != TraceOutcome::Block));
        // Untraced answers are unchanged.
        assert!(resolve_tools(&catalog, &governance, &input).disabled_reasons.iter().all(|d| d.trace.is_none()));
    }

    #[test]
    fn legacy_agents_and_custom_catalogs_name_their_sources() {
        let schemas = vec![
            ToolSchema { worker_routing_hint: Some(WorkerRoutingHint::Local), ..ToolSchema::new("probe", "ops") },
            ToolSchema::new("bash", "base"),
            ToolSchema::new("memo", "memory"),
        ];
        let catalog = Catalog::from_schemas(&schemas).unwrap();
        let sources = CatalogSources::from_schemas(&schemas);
        let input = ResolveInput { toolset_defaults: Some(vec!["ops".into(), "base".into(), "memory".into()]), ..Default::default() };
        let probe = resolver_trace(&catalog, &Governance::default(), &sources, &input, 0);
        assert_eq!(sources_of(&probe)[..2], [("catalog", "pass", "catalog[0]"), ("agent-toolsets", "pass", "toolsetDefaults[0]")]);
        let memo = resolver_trace(&catalog, &Governance::default(), &sources, &input, 2);
        assert_eq!(memo.last().map(|e| (e.layer, e.source.as_str(), e.reason)), Some((TraceLayer::Scene, "memoryEnabled", Some(ReasonCode::MemoryDisabled))));
        let policy = WorkerPolicy { workspace_roots: vec!["/w".into()], allow_shell: true, readonly: true };
        let src = RouteSources { selection: "s".into(), strategy: "st".into(), roots: "r".into(), shell: "sh".into(), write: "w".into() };
        let selected = RouteInput { selected: true, not_selected_reason: None, strategy: RoutingStrategy::Auto };
        let mut t = Vec::new();
        route_trace(&catalog, &sources, 0, selected, &policy, &src, &mut t);
        // The schema set the hint (local) but not supportedInWorker: the default of its kind decides.
        assert_eq!(t.last().map(|e| (e.source.as_str(), e.reason)), Some(("catalog[0]", Some(ReasonCode::UnsupportedInWorker))));
        let mut t = Vec::new();
        route_trace(&catalog, &sources, 1, selected, &policy, &src, &mut t);
        assert_eq!(sources_of(&t), [("subagent-selection", "pass", "s"), ("worker-policy", "pass", "r"), ("worker-policy", "pass", "sh"), ("manifest", "local", "builtin:bash")]);
        // force-local on a proxied tool without worker support: its supportedInWorker (a default) blocks.
        let mut t = Vec::new();
        let forced = RouteInput { strategy: RoutingStrategy::ForceLocal, ..selected };
        route_trace(&catalog, &sources, 2, forced, &policy, &src, &mut t);
        assert_eq!(sources_of(&t), [("subagent-selection", "pass", "s"), ("manifest", "block", "catalog[2]")]);
        assert_eq!(first_reason(&t), Some(ReasonCode::UnsupportedInWorker));
        let mut t = Vec::new();
        let proxied = RouteInput { strategy: RoutingStrategy::ForceMainProcessProxy, ..selected };
        route_trace(&catalog, &sources, 1, proxied, &policy, &src, &mut t);
        assert_eq!(t.last().map(|e| (e.layer, e.outcome, e.source.as_str())), Some((TraceLayer::RoutingStrategy, TraceOutcome::Proxy, "st")));
        assert_eq!(first_reason(&t), Some(ReasonCode::RequiresMainProcessProxy));
    }
}
