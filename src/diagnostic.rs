//! The runtime diagnostic: resolver, worker policy and projection composed, as the three pages and the
//! backend consume it — `profiles` is the static picture, `routes` the dynamic one.

use crate::error::Error;
use crate::governance::{decide, result, Governance, ResolveInput, ResolveResult};
use crate::manifest::{Catalog, ToolManifest};
use crate::projection::{route, RouteInput, ToolRuntimeRoute};
use crate::trace::{resolver_trace, route_trace, CatalogSources, RouteSources};
use crate::worker_policy::{bound_by_parent, normalize_root, normalize_roots, policy_for, PolicyWarning, WorkerPolicy};
use serde::Serialize;
#[cfg(feature = "wasm")]
use tsify::Tsify;

/// The per-call input of [`runtime_diagnostic`].
#[derive(Clone, Debug, Default)]
pub struct DiagnosticInput {
    pub resolve: ResolveInput,
    /// The sub-agent batch's tools; `None` = every resolved tool.
    pub subagent_tools: Option<Vec<String>>,
    pub session_cwd: Option<String>,
    pub workspace_roots: Vec<String>,
    pub shell_permitted: bool,
    pub write_permitted: bool,
}

/// What the pages show.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(Tsify))]
pub struct RuntimeDiagnostic {
    pub resolved: ResolveResult,
    pub policy: WorkerPolicy,
    /// How the policy was narrowed to fit its `parent` (present only when a parent was given).
    #[serde(rename = "policyWarnings", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub policy_warnings: Option<Vec<PolicyWarning>>,
    /// The manifest of every catalog tool (the static picture).
    pub profiles: Vec<ToolManifest>,
    /// The route of every catalog tool in this worker (the dynamic picture).
    pub routes: Vec<ToolRuntimeRoute>,
}

/// `runtimeDiagnostic`: resolve; select `subagentTools ∩ toolNames` in catalog order (every resolved
/// tool when absent); build the worker policy from that selection; project with the governance rows'
/// strategies. Tools the resolver dropped are `not-selected` with the resolver's reason.
pub fn runtime_diagnostic(catalog: &Catalog, governance: &Governance, input: &DiagnosticInput) -> Result<RuntimeDiagnostic, Error> {
    runtime_diagnostic_with(catalog, governance, input, &DiagnosticOptions::default())
}

/// The options of [`runtime_diagnostic_with`] beyond the diagnostic's input; the defaults change nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiagnosticOptions<'a> {
    /// The parent worker's policy (roots normalized): the sub-agent's policy never exceeds it.
    pub parent: Option<&'a WorkerPolicy>,
    /// Trace every route, naming catalog entries with these sources.
    pub trace: Option<&'a CatalogSources>,
}

/// `runtimeDiagnostic` with a parent policy and/or traces.
pub fn runtime_diagnostic_with(catalog: &Catalog, governance: &Governance, input: &DiagnosticInput, options: &DiagnosticOptions) -> Result<RuntimeDiagnostic, Error> {
    let workspace_roots = normalize_roots(input.session_cwd.as_deref(), &input.workspace_roots)?;
    let mut decisions = decide(catalog, governance, &input.resolve);
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
    let selected: Vec<bool> = decisions
        .reasons
        .iter()
        .enumerate()
        .map(|(i, reason)| reason.is_none() && wanted.as_ref().is_none_or(|w| w[i]))
        .collect();
    let mut policy = policy_for(catalog, workspace_roots, selected.iter().enumerate().filter(|(_, s)| **s).map(|(i, _)| i), input.shell_permitted, input.write_permitted);
    let mut policy_warnings = None;
    let unbounded_roots = !policy.workspace_roots.is_empty();
    if let Some(parent) = options.parent {
        let bounded = bound_by_parent(policy, parent);
        policy = bounded.policy();
        policy_warnings = Some(bounded.warnings);
    }
    let mut routes: Vec<ToolRuntimeRoute> = catalog
        .tools()
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            let route_input = RouteInput { selected: selected[i], not_selected_reason: decisions.reasons[i], strategy: governance.strategy(i) };
            route(tool, route_input, &policy)
        })
        .collect();
    let mut resolved = result(catalog, governance, &decisions);
    if let Some(sources) = options.trace {
        let mut src = RouteSources {
            roots: roots_source(input, &policy, options.parent.is_some() && unbounded_roots),
            shell: permission_source(policy.allow_shell, input.shell_permitted, options.parent.is_some_and(|p| !p.allow_shell), "shellPermitted", "parent.allowShell"),
            write: permission_source(!policy.readonly, input.write_permitted, options.parent.is_some_and(|p| p.readonly), "writePermitted", "parent.readonly"),
            ..RouteSources::default()
        };
        let batch = input.subagent_tools.as_deref().map(crate::trace::first_indices).unwrap_or_default();
        let mut next_dropped = 0;
        for (i, r) in routes.iter_mut().enumerate() {
            let mut trace = resolver_trace(catalog, governance, sources, &input.resolve, i);
            if decisions.reasons[i].is_none() {
                src.selection = match batch.get(&r.name) {
                    Some(k) => crate::trace::indexed("subagentTools", k),
                    None => "subagentTools".into(),
                };
                src.strategy = governance.row_index(i).map_or_else(|| "governance".into(), |k| crate::trace::indexed("governance", k) + ".workerRoutingStrategy");
                let route_input = RouteInput { selected: selected[i], not_selected_reason: None, strategy: governance.strategy(i) };
                route_trace(catalog, sources, i, route_input, &policy, &src, &mut trace);
            } else {
                // `disabledReasons` lists the dropped tools in catalog order.
                if let Some(dropped) = resolved.disabled_reasons.get_mut(next_dropped) {
                    dropped.trace = Some(trace.clone());
                }
                next_dropped += 1;
            }
            r.trace = Some(trace);
        }
    }
    Ok(RuntimeDiagnostic { resolved, policy, policy_warnings, profiles: catalog.tools().to_vec(), routes })
}

/// What gave the policy its first root (`sessionCwd` or `workspaceRoots[i]`), or, without roots,
/// what left it without: the parent (`parent.workspaceRoots`) or the session (`sessionCwd`).
fn roots_source(input: &DiagnosticInput, policy: &WorkerPolicy, dropped_by_parent: bool) -> String {
    let Some(first) = policy.workspace_roots.first() else {
        return if dropped_by_parent { "parent.workspaceRoots".into() } else { "sessionCwd".into() };
    };
    let probe = crate::json::Path::Root("");
    if input.session_cwd.as_deref().is_some_and(|cwd| normalize_root(cwd, &probe).is_ok_and(|r| r == *first)) {
        return "sessionCwd".into();
    }
    match input.workspace_roots.iter().position(|r| normalize_root(r, &probe).is_ok_and(|r| r == *first)) {
        Some(k) => crate::trace::indexed("workspaceRoots", k),
        None => "workspaceRoots".into(),
    }
}

/// The permission itself when granted or refused by the session; the parent when it took it away.
fn permission_source(granted: bool, permitted: bool, parent_refuses: bool, own: &str, parent: &str) -> String {
    if !granted && permitted && parent_refuses { parent.into() } else { own.into() }
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
            resolve: ResolveInput { agent: Some(AgentToolConfig { toolsets: None, disabled: vec!["grep".into()] }), crew_role: Some(CrewRole::Master), ..Default::default() },
            subagent_tools: Some(vec!["bash".into(), "read_file".into(), "grep".into(), "ghost".into()]),
            session_cwd: Some("/srv/app/".into()),
            shell_permitted: true,
            ..Default::default()
        };
        let d = runtime_diagnostic(&catalog, &Governance::default(), &input).unwrap();
        assert_eq!(d.policy, WorkerPolicy { workspace_roots: vec!["/srv/app".into()], allow_shell: true, readonly: true });
        let status = |n: &str| d.routes.iter().find(|r| r.name == n).map(|r| (r.status, r.reasons.clone())).unwrap();
        assert_eq!(status("bash"), (RuntimeStatus::WorkerLocal, vec![]));
        assert_eq!(status("grep"), (RuntimeStatus::NotSelected, vec![ReasonCode::DisabledByAgent]));
        assert_eq!(status("list_dir"), (RuntimeStatus::NotSelected, vec![ReasonCode::NotSelectedForSubagent]));
        assert!(d.resolved.warnings.iter().any(|w| w.code == ReasonCode::UnknownTool && w.subject == "ghost"));
        assert_eq!(d.profiles.len(), 19);
    }
}
