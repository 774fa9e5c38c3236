//! The runtime diagnostic: resolver, worker policy and projection composed, as the three pages and the
//! backend consume it — `profiles` is the static picture, `routes` the dynamic one.

use crate::error::Error;
use crate::governance::{decide, result, Governance, ResolveInput, ResolveResult};
use crate::manifest::{Catalog, ToolManifest};
use crate::projection::{route, RouteInput, ToolRuntimeRoute};
use crate::worker_policy::{normalize_roots, policy_for, WorkerPolicy};
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
    /// The manifest of every catalog tool (the static picture).
    pub profiles: Vec<ToolManifest>,
    /// The route of every catalog tool in this worker (the dynamic picture).
    pub routes: Vec<ToolRuntimeRoute>,
}

/// `runtimeDiagnostic`: resolve; select `subagentTools ∩ toolNames` in catalog order (every resolved
/// tool when absent); build the worker policy from that selection; project with the governance rows'
/// strategies. Tools the resolver dropped are `not-selected` with the resolver's reason.
pub fn runtime_diagnostic(catalog: &Catalog, governance: &Governance, input: &DiagnosticInput) -> Result<RuntimeDiagnostic, Error> {
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
    let policy = policy_for(catalog, workspace_roots, selected.iter().enumerate().filter(|(_, s)| **s).map(|(i, _)| i), input.shell_permitted, input.write_permitted);
    let routes = catalog
        .tools()
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            let route_input = RouteInput { selected: selected[i], not_selected_reason: decisions.reasons[i], strategy: governance.strategy(i) };
            route(tool, route_input, &policy)
        })
        .collect();
    Ok(RuntimeDiagnostic { resolved: result(catalog, governance, &decisions), policy, profiles: catalog.tools().to_vec(), routes })
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
