//! Decision traces: for one tool, every layer consulted, in the order the engine consults them —
//! catalog, agent toolsets, agent disabled list, governance row, model capability, scene gating,
//! sub-agent selection, routing strategy, worker policy, manifest — each with its outcome and the
//! exact input path that decided it (`governance[3].status`, `agent.tools.disabled[0]`, `sessionCwd`,
//! `catalog[5].workerRoutingHint`, `builtin:bash`).
//!
//! A trace is built only when the input asks for it (`trace: true`). The deciding code records its
//! own steps into a [`Recorder`] (see [`crate::sink`]); this module only renders each step's source as
//! an input path, so a trace is always what the decision did.

use crate::catalog::{builtin, ToolSchema};
use crate::governance::{decide_with, result, Governance, ResolveInput, ResolveResult};
use crate::manifest::Catalog;
use crate::names::FirstIndex;
use crate::path::Path;
use crate::projection::{route_with, ProjectionInput, RoutePolicy, ToolRuntimeRoute};
pub use crate::sink::TraceEntry;
use crate::sink::{Sink, Source};
use crate::vocab::{ReasonCode, TraceLayer, TraceOutcome};

/// `base[index]`.
pub fn indexed(base: &str, index: usize) -> String {
    let mut out = String::with_capacity(base.len() + 6);
    out.push_str(base);
    out.push('[');
    out.push_str(&crate::text::decimal(index as u64));
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
    pub fn field(&self, position: usize, name: &str, bit: u8, field: &str) -> String {
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

/// How route-level sources are named: by `runtimeDiagnostic` (the batch, the governance rows, and
/// what gave the policy its roots and permissions) or by `projectRuntimePolicy` (its own inputs).
pub enum RouteNames<'a> {
    /// No routes are decided (`resolveTools`).
    None,
    Diagnostic {
        /// The first index of each name in `subagentTools`.
        batch: FirstIndex<'a>,
        roots: String,
        shell: String,
        write: String,
    },
    Projection {
        /// The first index of each name in `selectedTools`.
        selected: FirstIndex<'a>,
        input: &'a ProjectionInput,
    },
}

/// The sink that keeps a trace per catalog tool, each step's source rendered as an input path.
pub struct Recorder<'a> {
    catalog: &'a Catalog,
    sources: &'a CatalogSources,
    /// Where the selected toolsets come from: `agent.toolsets`, `toolsetDefaults` or the builtin defaults.
    toolsets: &'static str,
    governance: Option<&'a Governance>,
    routes: RouteNames<'a>,
    current: usize,
    traces: Vec<Vec<TraceEntry>>,
}

const BUILTIN_DEFAULTS: &str = "builtin:TOOLSET_DEFAULTS";

impl<'a> Recorder<'a> {
    /// A recorder for `catalog`, naming its entries by `sources`.
    pub fn new(catalog: &'a Catalog, sources: &'a CatalogSources) -> Self {
        let traces = catalog.tools().iter().map(|_| Vec::new()).collect();
        Recorder { catalog, sources, toolsets: BUILTIN_DEFAULTS, governance: None, routes: RouteNames::None, current: 0, traces }
    }

    /// Names the resolver's sources after its input and the governance rows.
    pub fn resolving(mut self, input: &ResolveInput, governance: &'a Governance) -> Self {
        self.toolsets = if input.agent.as_ref().is_some_and(|a| a.toolsets.is_some()) {
            "agent.toolsets"
        } else if input.toolset_defaults.is_some() {
            "toolsetDefaults"
        } else {
            BUILTIN_DEFAULTS
        };
        self.governance = Some(governance);
        self
    }

    /// Names the route-level sources.
    pub fn set_routes(&mut self, routes: RouteNames<'a>) {
        self.routes = routes;
    }

    /// The trace of the catalog tool at `position` (taken out of the recorder).
    pub fn take(&mut self, position: usize) -> Vec<TraceEntry> {
        self.traces.get_mut(position).map(std::mem::take).unwrap_or_default()
    }

    fn name(&self) -> &'a str {
        self.catalog.tools().get(self.current).map_or("", |t| t.name.as_str())
    }

    fn row_source(&self, field: &str, none: &str) -> String {
        match self.governance.and_then(|g| g.row_index(self.current)) {
            Some(r) => indexed("governance", r) + field,
            None => none.into(),
        }
    }

    /// The input path of `source` for the current tool.
    fn render(&self, source: Source) -> String {
        let (position, name) = (self.current, self.name());
        match (source, &self.routes) {
            (Source::Toolsets(Some(k)), _) if self.toolsets != BUILTIN_DEFAULTS => indexed(self.toolsets, k),
            (Source::Toolsets(_), _) => self.toolsets.into(),
            (Source::Disabled(Some(k)), _) => indexed("agent.tools.disabled", k),
            (Source::Disabled(None), _) => "agent.tools.disabled".into(),
            (Source::Status, _) => self.row_source(".status", "governance"),
            (Source::ModelCapability, _) => "modelCapability".into(),
            (Source::MemoryEnabled, _) => "memoryEnabled".into(),
            (Source::HasSkills, _) => "hasSkills".into(),
            (Source::CrewRole, _) => "crewRole".into(),
            (Source::RoutingHint, _) => self.sources.field(position, name, HINT, "workerRoutingHint"),
            (Source::SupportedInWorker, _) => self.sources.field(position, name, IN_WORKER, "supportedInWorker"),
            (Source::Selection, RouteNames::Diagnostic { batch, .. }) => {
                batch.get(name).map_or_else(|| "subagentTools".into(), |k| indexed("subagentTools", k))
            }
            (Source::Strategy, RouteNames::Diagnostic { .. }) => self.row_source(".workerRoutingStrategy", "governance"),
            (Source::Roots, RouteNames::Diagnostic { roots, .. }) => roots.clone(),
            (Source::Shell, RouteNames::Diagnostic { shell, .. }) => shell.clone(),
            (Source::Write, RouteNames::Diagnostic { write, .. }) => write.clone(),
            (Source::Selection, RouteNames::Projection { selected, input }) => match selected.get(name) {
                Some(k) => indexed("selectedTools", k),
                None if input.route_input(position).not_selected_reason.is_some() => Path::Root("notSelectedReasons").key(name).render(),
                None => "selectedTools".into(),
            },
            (Source::Strategy, RouteNames::Projection { .. }) => Path::Root("strategies").key(name).render(),
            (Source::Roots, RouteNames::Projection { .. }) => "policy.workspaceRoots".into(),
            (Source::Shell, RouteNames::Projection { .. }) => "policy.allowShell".into(),
            (Source::Write, RouteNames::Projection { .. }) => "policy.readonly".into(),
            (Source::Selection | Source::Strategy | Source::Roots | Source::Shell | Source::Write, RouteNames::None) => String::new(),
        }
    }
}

impl Sink for Recorder<'_> {
    /// Starts the tool's trace with the catalog entry it came from (or goes on with it).
    fn tool(&mut self, position: usize) {
        self.current = position;
        let source = self.sources.tool(position, self.name());
        if let Some(trace) = self.traces.get_mut(position).filter(|t| t.is_empty()) {
            trace.push(TraceEntry { layer: TraceLayer::Catalog, outcome: TraceOutcome::Pass, source, reason: None });
        }
    }

    fn record(&mut self, layer: TraceLayer, outcome: TraceOutcome, source: Source, reason: Option<ReasonCode>) {
        let source = self.render(source);
        if let Some(trace) = self.traces.get_mut(self.current) {
            trace.push(TraceEntry { layer, outcome, source, reason });
        }
    }
}

/// The first index of each name in a list.
pub fn first_indices<S: AsRef<str>>(names: &[S]) -> FirstIndex<'_> {
    FirstIndex::new(crate::names::positions(names))
}

/// `resolveTools` with `trace: true`: every dropped tool carries its trace.
pub fn traced_resolve(catalog: &Catalog, governance: &Governance, sources: &CatalogSources, input: &ResolveInput) -> ResolveResult {
    let mut recorder = Recorder::new(catalog, sources).resolving(input, governance);
    let decisions = decide_with(catalog, governance, input, crate::sink::erase(&mut recorder));
    let mut result = result(catalog, governance, &decisions);
    // `disabledReasons` lists the dropped tools in catalog order.
    let dropped = decisions.reasons.iter().enumerate().filter(|(_, r)| r.is_some()).map(|(i, _)| i);
    for (entry, position) in result.disabled_reasons.iter_mut().zip(dropped) {
        entry.trace = Some(recorder.take(position));
    }
    result
}

/// `projectRuntimePolicy` with `trace: true`. `selected_names` is the input's `selectedTools`.
pub fn traced_projection(
    catalog: &Catalog,
    sources: &CatalogSources,
    policy: RoutePolicy,
    input: &ProjectionInput,
    selected_names: &[&str],
) -> Vec<ToolRuntimeRoute> {
    let mut recorder = Recorder::new(catalog, sources);
    recorder.set_routes(RouteNames::Projection { selected: first_indices(selected_names), input });
    let mut routes = Vec::with_capacity(catalog.tools().len());
    for (i, tool) in catalog.tools().iter().enumerate() {
        recorder.tool(i);
        let mut r = route_with(tool, input.route_input(i), policy, crate::sink::erase(&mut recorder));
        r.trace = Some(recorder.take(i));
        routes.push(r);
    }
    routes
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
    use crate::governance::{resolve_tools, AgentToolConfig, RowPolicy};
    use crate::projection::RouteInput;
    use crate::vocab::{Capability, RoutingStrategy, WorkerRoutingHint};

    fn sources_of(trace: &[TraceEntry]) -> Vec<(&str, &str, &str)> {
        trace.iter().map(|e| (e.layer.as_str(), e.outcome.as_str(), e.source.as_str())).collect()
    }

    /// The resolver's trace of every tool.
    fn resolver_traces(catalog: &Catalog, governance: &Governance, sources: &CatalogSources, input: &ResolveInput) -> Vec<Vec<TraceEntry>> {
        let mut recorder = Recorder::new(catalog, sources).resolving(input, governance);
        decide_with(catalog, governance, input, &mut recorder);
        (0..catalog.tools().len()).map(|i| recorder.take(i)).collect()
    }

    /// The route trace of the tool at `position`, sources named as a projection names them.
    fn route_trace(catalog: &Catalog, sources: &CatalogSources, position: usize, input: RouteInput, policy: RoutePolicy) -> Vec<TraceEntry> {
        let projection = ProjectionInput::default();
        let mut recorder = Recorder::new(catalog, sources);
        recorder.set_routes(RouteNames::Projection { selected: first_indices::<&str>(&[]), input: &projection });
        recorder.tool(position);
        route_with(&catalog.tools()[position], input, policy, &mut recorder);
        recorder.take(position).split_off(1)
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
        let todo = resolver_traces(&catalog, &governance, &sources, &input).swap_remove(catalog.position("todo").unwrap());
        let overridden = TraceEntry {
            layer: TraceLayer::AgentDisabled,
            outcome: TraceOutcome::Overridden,
            source: "agent.tools.disabled[0]".into(),
            reason: Some(ReasonCode::DisabledByAgent),
        };
        assert_eq!(todo[2], overridden);
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
        let traces = resolver_traces(&catalog, &Governance::default(), &sources, &input);
        assert_eq!(sources_of(&traces[0])[..2], [("catalog", "pass", "catalog[0]"), ("agent-toolsets", "pass", "toolsetDefaults[0]")]);
        assert_eq!(
            traces[2].last().map(|e| (e.layer, e.source.as_str(), e.reason)),
            Some((TraceLayer::Scene, "memoryEnabled", Some(ReasonCode::MemoryDisabled)))
        );
        let policy = RoutePolicy { has_roots: true, allow_shell: true, readonly: true };
        let selected = RouteInput { selected: true, not_selected_reason: None, strategy: RoutingStrategy::Auto, main_process: false };
        // The schema set the hint (local) but not supportedInWorker: the default of its kind decides.
        let t = route_trace(&catalog, &sources, 0, selected, policy);
        assert_eq!(t.last().map(|e| (e.source.as_str(), e.reason)), Some(("catalog[0]", Some(ReasonCode::UnsupportedInWorker))));
        let t = route_trace(&catalog, &sources, 1, selected, policy);
        assert_eq!(
            sources_of(&t),
            [
                ("subagent-selection", "pass", "selectedTools"),
                ("worker-policy", "pass", "policy.workspaceRoots"),
                ("worker-policy", "pass", "policy.allowShell"),
                ("manifest", "local", "builtin:bash")
            ]
        );
        // force-local on a proxied tool without worker support: its supportedInWorker (a default) blocks.
        let forced = RouteInput { strategy: RoutingStrategy::ForceLocal, ..selected };
        let t = route_trace(&catalog, &sources, 2, forced, policy);
        assert_eq!(sources_of(&t), [("subagent-selection", "pass", "selectedTools"), ("manifest", "block", "catalog[2]")]);
        assert_eq!(first_reason(&t), Some(ReasonCode::UnsupportedInWorker));
        let proxied = RouteInput { strategy: RoutingStrategy::ForceMainProcessProxy, ..selected };
        let t = route_trace(&catalog, &sources, 1, proxied, policy);
        assert_eq!(t.last().map(|e| (e.layer, e.outcome, e.source.as_str())), Some((TraceLayer::RoutingStrategy, TraceOutcome::Proxy, "strategies.bash")));
        assert_eq!(first_reason(&t), Some(ReasonCode::RequiresMainProcessProxy));
    }
}
