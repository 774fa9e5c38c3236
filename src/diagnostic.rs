//! The runtime diagnostic: resolver, worker policy and projection composed, as the three pages and the
//! backend consume it — `profiles` is the static picture, `routes` the dynamic one.

use crate::governance::{decide, decide_with, result, Governance, ResolveInput, ResolveResult};
use crate::manifest::{Catalog, ToolManifest};
use crate::projection::{route, route_with, RouteInput, ToolRuntimeRoute};
use crate::sink::Sink;
use crate::trace::{CatalogSources, Recorder, RouteNames};
use crate::vocab::{CrewRole, FrontendRoute, ToolKind};
use crate::worker_policy::{bound_by_parent, policy_for, roots_of, PolicyWarning, Root, WorkerPolicy};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// The per-call input of [`runtime_diagnostic`].
#[derive(Clone, Debug, Default)]
pub struct DiagnosticInput {
    pub resolve: ResolveInput,
    /// The sub-agent batch's tools; `None` = every resolved tool.
    pub subagent_tools: Option<Vec<String>>,
    pub session_cwd: Option<Root>,
    pub workspace_roots: Vec<Root>,
    pub shell_permitted: bool,
    pub write_permitted: bool,
}

/// What the pages show.
// Its `profiles` are the catalog's manifests, borrowed: a diagnostic copies none.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct RuntimeDiagnostic<'c> {
    pub resolved: ResolveResult,
    pub policy: WorkerPolicy,
    /// How the policy was narrowed to fit its `parent` (present only when a parent was given).
    #[serde(rename = "policyWarnings", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional))]
    pub policy_warnings: Option<Vec<PolicyWarning>>,
    /// The manifest of every catalog tool (the static picture).
    #[cfg_attr(feature = "types", tsify(type = "ToolManifest[]"))]
    pub profiles: &'c [ToolManifest],
    /// The route of every catalog tool in this worker (the dynamic picture).
    pub routes: Vec<ToolRuntimeRoute>,
    /// The tools the agent's model is offered: the selected tools whose route is not `disabled`, in
    /// catalog order. Every other tool's route says why it is not.
    pub offered: Vec<String>,
}

/// `runtimeDiagnostic`: resolve; select `subagentTools ∩ toolNames` in catalog order (every resolved
/// tool when absent); build the worker policy from that selection; project with the governance rows'
/// strategies. Tools the resolver dropped are `not-selected` with the resolver's reason.
pub fn runtime_diagnostic<'c>(catalog: &'c Catalog, governance: &Governance, input: &DiagnosticInput) -> RuntimeDiagnostic<'c> {
    runtime_diagnostic_with(catalog, governance, input, &DiagnosticOptions::default())
}

/// The options of [`runtime_diagnostic_with`] beyond the diagnostic's input; the defaults change nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiagnosticOptions<'a> {
    /// The parent worker's policy: the sub-agent's policy never exceeds it.
    pub parent: Option<&'a WorkerPolicy>,
    /// Trace every route, naming catalog entries with these sources.
    pub trace: Option<&'a CatalogSources>,
    /// Leave `profiles` empty: the caller hands the catalog's manifests back once, apart
    /// (`ToolPolicyEngine.profiles()` beside `diagnoseRoutes`).
    pub without_profiles: bool,
}

/// `runtimeDiagnostic` with a parent policy and/or traces. With traces, the resolver and every
/// resolved tool's route record their steps into a [`Recorder`]: the same decisions, written down.
pub fn runtime_diagnostic_with<'c>(
    catalog: &'c Catalog,
    governance: &Governance,
    input: &DiagnosticInput,
    options: &DiagnosticOptions,
) -> RuntimeDiagnostic<'c> {
    let mut recorder = options.trace.map(|sources| Recorder::new(catalog, sources).resolving(&input.resolve, governance));
    let mut decisions = match recorder.as_mut() {
        Some(recorder) => decide_with(catalog, governance, &input.resolve, crate::sink::erase(recorder)),
        None => decide(catalog, governance, &input.resolve),
    };
    let wanted: Option<Vec<bool>> = input.subagent_tools.as_ref().map(|names| {
        let mut wanted = vec![false; catalog.tools().len()];
        for name in names {
            match catalog.position(name) {
                Some(i) => wanted[i] = true,
                None => decisions.warnings.unknown_tools.push(name.clone()),
            }
        }
        wanted
    });
    let selected: Vec<bool> = decisions.reasons.iter().enumerate().map(|(i, reason)| reason.is_none() && wanted.as_ref().is_none_or(|w| w[i])).collect();
    let workspace_roots = roots_of(input.session_cwd.as_ref(), &input.workspace_roots);
    let mut policy =
        policy_for(catalog, workspace_roots, selected.iter().enumerate().filter(|(_, s)| **s).map(|(i, _)| i), input.shell_permitted, input.write_permitted);
    let mut policy_warnings = None;
    let unbounded_roots = !policy.workspace_roots.is_empty();
    if let Some(parent) = options.parent {
        let bounded = bound_by_parent(policy, parent);
        policy = bounded.policy();
        policy_warnings = Some(bounded.warnings);
    }
    if let Some(recorder) = recorder.as_mut() {
        name_route_sources(recorder, input, &policy, options.parent, unbounded_roots);
    }
    // Outside a sub-agent the executor in the main process runs the delegation tools itself; a
    // sub-agent delegates no further.
    let delegates = input.resolve.crew_role != Some(CrewRole::Sub);
    let mut routes: Vec<ToolRuntimeRoute> = Vec::with_capacity(catalog.tools().len());
    let mut offered = Vec::new();
    for (i, tool) in catalog.tools().iter().enumerate() {
        let main_process = delegates && tool.kind == ToolKind::Delegation;
        let route_input = RouteInput { selected: selected[i], not_selected_reason: decisions.reasons[i], strategy: governance.strategy(i), main_process };
        // A tool the resolver dropped has no route to trace: its trace ends at the resolver's block.
        let r = match recorder.as_mut().filter(|_| decisions.reasons[i].is_none()) {
            Some(recorder) => {
                recorder.tool(i);
                route_with(tool, route_input, (&policy).into(), crate::sink::erase(recorder))
            }
            None => route(tool, route_input, &policy),
        };
        // The model is offered what runs somewhere: worker-local or proxied.
        if r.route != FrontendRoute::Disabled {
            offered.push(r.name.clone());
        }
        routes.push(r);
    }
    let mut resolved = result(catalog, governance, &decisions);
    if let Some(recorder) = recorder.as_mut() {
        attach_traces(recorder, &decisions.reasons, &mut resolved, &mut routes);
    }
    let profiles = if options.without_profiles { &[] } else { catalog.tools() };
    RuntimeDiagnostic { resolved, policy, policy_warnings, profiles, routes, offered }
}

/// A diagnostic without its static part: `runtimeDiagnostic`'s answer less `profiles`, the keys in
/// the same order (what `ToolPolicyEngine.diagnoseRoutes` answers).
#[derive(Serialize)]
pub struct DiagnosticRoutes<'a> {
    pub resolved: &'a ResolveResult,
    pub policy: &'a WorkerPolicy,
    #[serde(rename = "policyWarnings", skip_serializing_if = "Option::is_none")]
    pub policy_warnings: &'a Option<Vec<PolicyWarning>>,
    pub routes: &'a Vec<ToolRuntimeRoute>,
    pub offered: &'a Vec<String>,
}

impl RuntimeDiagnostic<'_> {
    /// This diagnostic without `profiles`.
    pub fn routes_only(&self) -> DiagnosticRoutes<'_> {
        DiagnosticRoutes {
            resolved: &self.resolved,
            policy: &self.policy,
            policy_warnings: &self.policy_warnings,
            routes: &self.routes,
            offered: &self.offered,
        }
    }
}

/// Names, in the recorder, what gave the routes their roots, shell and write permissions (a traced
/// diagnostic only: out of line, so that an untraced one compiles none of it; docs/architecture.md,
/// "The first call").
#[inline(never)]
fn name_route_sources<'a>(
    recorder: &mut Recorder<'a>,
    input: &'a DiagnosticInput,
    policy: &WorkerPolicy,
    parent: Option<&WorkerPolicy>,
    unbounded_roots: bool,
) {
    recorder.set_routes(RouteNames::Diagnostic {
        batch: input.subagent_tools.as_deref().map(crate::trace::first_indices).unwrap_or_default(),
        roots: roots_source(input, policy, parent.is_some() && unbounded_roots),
        shell: permission_source(policy.allow_shell, input.shell_permitted, parent.is_some_and(|p| !p.allow_shell), "shellPermitted", "parent.allowShell"),
        write: permission_source(!policy.readonly, input.write_permitted, parent.is_some_and(|p| p.readonly), "writePermitted", "parent.readonly"),
    });
}

/// Gives every route its trace, and every tool the resolver dropped the same trace in
/// `disabledReasons` (in catalog order), as the recorder took them down (a traced diagnostic only).
#[inline(never)]
fn attach_traces(recorder: &mut Recorder, reasons: &[Option<crate::vocab::ReasonCode>], resolved: &mut ResolveResult, routes: &mut [ToolRuntimeRoute]) {
    let mut dropped = resolved.disabled_reasons.iter_mut();
    for (i, r) in routes.iter_mut().enumerate() {
        let trace = recorder.take(i);
        if reasons[i].is_some() {
            if let Some(entry) = dropped.next() {
                entry.trace = Some(trace.clone());
            }
        }
        r.trace = Some(trace);
    }
}

/// What gave the policy its first root (`sessionCwd` or `workspaceRoots[i]`), or, without roots,
/// what left it without: the parent (`parent.workspaceRoots`) or the session (`sessionCwd`).
fn roots_source(input: &DiagnosticInput, policy: &WorkerPolicy, dropped_by_parent: bool) -> String {
    let Some(first) = policy.workspace_roots.first() else {
        return if dropped_by_parent { "parent.workspaceRoots".into() } else { "sessionCwd".into() };
    };
    if input.session_cwd.as_ref() == Some(first) {
        return "sessionCwd".into();
    }
    match input.workspace_roots.iter().position(|r| r == first) {
        Some(k) => crate::trace::indexed("workspaceRoots", k),
        None => "workspaceRoots".into(),
    }
}

/// The permission itself when granted or refused by the session; the parent when it took it away.
fn permission_source(granted: bool, permitted: bool, parent_refuses: bool, own: &str, parent: &str) -> String {
    if !granted && permitted && parent_refuses {
        parent.into()
    } else {
        own.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governance::AgentToolConfig;
    use crate::vocab::{CrewRole, ReasonCode, RuntimeStatus};

    #[test]
    fn a_batch_selects_from_the_resolved_tools_and_explains_the_rest() {
        let catalog = Catalog::builtin();
        let input = DiagnosticInput {
            resolve: ResolveInput {
                agent: Some(AgentToolConfig { toolsets: None, disabled: vec!["grep".into()] }),
                crew_role: Some(CrewRole::Master),
                ..Default::default()
            },
            subagent_tools: Some(vec!["bash".into(), "read_file".into(), "grep".into(), "ghost".into()]),
            session_cwd: Some(Root::new("/srv/app/").unwrap()),
            shell_permitted: true,
            ..Default::default()
        };
        let d = runtime_diagnostic(&catalog, &Governance::default(), &input);
        assert_eq!(d.policy, WorkerPolicy { workspace_roots: vec![Root::new("/srv/app").unwrap()], allow_shell: true, readonly: true });
        let status = |n: &str| d.routes.iter().find(|r| r.name == n).map(|r| (r.status, r.reasons.clone())).unwrap();
        assert_eq!(status("bash"), (RuntimeStatus::WorkerLocal, vec![]));
        assert_eq!(status("grep"), (RuntimeStatus::NotSelected, vec![ReasonCode::DisabledByAgent]));
        assert_eq!(status("list_dir"), (RuntimeStatus::NotSelected, vec![ReasonCode::NotSelectedForSubagent]));
        assert!(d.resolved.warnings.iter().any(|w| w.code == ReasonCode::UnknownTool && w.subject == "ghost"));
        assert_eq!(d.profiles.len(), 19);
        assert_eq!(d.offered, ["bash", "read_file"]);
    }

    #[test]
    fn a_master_s_executor_runs_the_delegation_tools_and_a_sub_agent_gets_none() {
        let catalog = Catalog::builtin();
        let diagnose = |crew_role| {
            let resolve =
                ResolveInput { agent: Some(AgentToolConfig { toolsets: Some(vec!["delegation".into()]), disabled: vec![] }), crew_role, ..Default::default() };
            runtime_diagnostic(&catalog, &Governance::default(), &DiagnosticInput { resolve, ..Default::default() })
        };
        let master = diagnose(Some(CrewRole::Master));
        let task = master.routes.iter().find(|r| r.name == "delegate_task").unwrap();
        assert_eq!((task.status, task.reasons.as_slice()), (RuntimeStatus::MainProcessProxied, &[ReasonCode::RequiresMainProcessProxy][..]));
        assert_eq!(master.offered, ["todo", "clarify", "delegate_task", "delegate_parallel"]);
        let sub = diagnose(Some(CrewRole::Sub));
        let task = sub.routes.iter().find(|r| r.name == "delegate_task").unwrap();
        assert_eq!((task.status, task.reasons.as_slice()), (RuntimeStatus::NotSelected, &[ReasonCode::CrewMasterOnly][..]));
        assert_eq!(sub.offered, ["todo", "clarify"]);
    }
}
