//! The runtime policy projection (seed 000 `projectRuntimePolicy`): for every catalog tool, where it
//! runs in this worker — locally, proxied to the main process, or not at all — and every reason why.

use crate::manifest::{Catalog, ToolManifest};
use crate::vocab::{ExecutionMode, FrontendRoute, ReasonCode, RoutingStrategy, RuntimeStatus, WorkerRoutingHint};
use crate::worker_policy::WorkerPolicy;
use serde::Serialize;
#[cfg(feature = "wasm")]
use tsify::Tsify;

/// One tool's route in a worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolRuntimeRoute {
    pub name: String,
    pub status: RuntimeStatus,
    pub route: FrontendRoute,
    /// `reasons[0]`, or `null` for a tool that runs locally with nothing to say.
    #[cfg_attr(feature = "wasm", tsify(type = "ReasonCode | null"))]
    pub blocked_reason: Option<ReasonCode>,
    pub reasons: Vec<ReasonCode>,
    pub strategy: RoutingStrategy,
    pub execution_mode: ExecutionMode,
    /// Every layer consulted, in order (only when the input asks for `trace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub trace: Option<Vec<crate::trace::TraceEntry>>,
}

/// The per-tool inputs of one route decision.
#[derive(Clone, Copy, Debug)]
pub struct RouteInput {
    pub selected: bool,
    /// Why a tool is not selected (defaults to `not_selected_for_subagent`).
    pub not_selected_reason: Option<ReasonCode>,
    pub strategy: RoutingStrategy,
}

/// Decides one tool's status and reasons (SPEC §5 checks 1–6, §7 "Worker policy and projection").
/// `reasons` receives every applicable code in order; the status is returned.
pub fn decide_route(tool: &ToolManifest, input: RouteInput, policy: &WorkerPolicy, reasons: &mut Vec<ReasonCode>) -> RuntimeStatus {
    if !input.selected {
        reasons.push(input.not_selected_reason.unwrap_or(ReasonCode::NotSelectedForSubagent));
        return RuntimeStatus::NotSelected;
    }
    let mut blocked = false;
    if input.strategy == RoutingStrategy::ForceDisabled {
        reasons.push(ReasonCode::DisabledByRoutingStrategy);
        blocked = true;
    }
    if tool.requires_workspace_root && policy.workspace_roots.is_empty() {
        reasons.push(ReasonCode::WorkspaceRootRequired);
        blocked = true;
    }
    if tool.requires_shell && !policy.allow_shell {
        reasons.push(ReasonCode::ShellDisabledByPolicy);
        blocked = true;
    }
    if tool.requires_write && policy.readonly {
        reasons.push(ReasonCode::WriteBlockedByReadonlyPolicy);
        blocked = true;
    }
    // A strategy can move a tool between local and proxy, never route one whose manifest says disabled.
    let hint = match (tool.worker_routing_hint, input.strategy) {
        (WorkerRoutingHint::Disabled, _) => WorkerRoutingHint::Disabled,
        (_, RoutingStrategy::ForceLocal) => WorkerRoutingHint::Local,
        (_, RoutingStrategy::ForceMainProcessProxy) => WorkerRoutingHint::MainProcessProxy,
        (hint, _) => hint,
    };
    let routed = match hint {
        WorkerRoutingHint::Local if tool.supported_in_worker => RuntimeStatus::WorkerLocal,
        WorkerRoutingHint::MainProcessProxy => {
            reasons.push(ReasonCode::RequiresMainProcessProxy);
            RuntimeStatus::MainProcessProxied
        }
        WorkerRoutingHint::Local | WorkerRoutingHint::Disabled => {
            reasons.push(ReasonCode::UnsupportedInWorker);
            RuntimeStatus::DisabledInWorker
        }
    };
    if blocked {
        RuntimeStatus::DisabledInWorker
    } else {
        routed
    }
}

/// One route, built from a decision.
pub fn route(tool: &ToolManifest, input: RouteInput, policy: &WorkerPolicy) -> ToolRuntimeRoute {
    let mut reasons = Vec::new();
    let status = decide_route(tool, input, policy, &mut reasons);
    ToolRuntimeRoute {
        name: tool.name.clone(),
        status,
        route: status.route(),
        blocked_reason: reasons.first().copied(),
        reasons,
        strategy: input.strategy,
        execution_mode: tool.execution_mode,
        trace: None,
    }
}

/// The per-call input of the projection; maps are by catalog position.
#[derive(Clone, Debug, Default)]
pub struct ProjectionInput {
    pub selected: Vec<bool>,
    pub strategies: Vec<RoutingStrategy>,
    pub not_selected_reasons: Vec<Option<ReasonCode>>,
}

impl ProjectionInput {
    /// The route input of the catalog tool at `position` (not selected, `auto` when unlisted).
    pub fn route_input(&self, position: usize) -> RouteInput {
        RouteInput {
            selected: self.selected.get(position).copied().unwrap_or(false),
            not_selected_reason: self.not_selected_reasons.get(position).copied().flatten(),
            strategy: self.strategies.get(position).copied().unwrap_or(RoutingStrategy::Auto),
        }
    }
}

/// `projectRuntimePolicy`: one route per catalog tool, in catalog order.
pub fn project_runtime_policy(catalog: &Catalog, policy: &WorkerPolicy, input: &ProjectionInput) -> Vec<ToolRuntimeRoute> {
    catalog
        .tools()
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            route(tool, input.route_input(i), policy)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::ReasonCode::*;

    fn policy(roots: bool, shell: bool, readonly: bool) -> WorkerPolicy {
        WorkerPolicy { workspace_roots: if roots { vec!["/w".into()] } else { vec![] }, allow_shell: shell, readonly }
    }

    fn one(name: &str, strategy: RoutingStrategy, p: &WorkerPolicy) -> ToolRuntimeRoute {
        let catalog = Catalog::builtin();
        let tool = catalog.get(name).unwrap();
        route(tool, RouteInput { selected: true, not_selected_reason: None, strategy }, p)
    }

    #[test]
    fn a_readonly_write_file_lists_both_codes() {
        let r = one("write_file", RoutingStrategy::Auto, &policy(true, false, true));
        assert_eq!(r.reasons, [WriteBlockedByReadonlyPolicy, RequiresMainProcessProxy]);
        assert_eq!((r.status, r.route, r.blocked_reason), (RuntimeStatus::DisabledInWorker, FrontendRoute::Disabled, Some(WriteBlockedByReadonlyPolicy)));
    }

    #[test]
    fn routed_tools() {
        let open = policy(true, true, false);
        let bash = one("bash", RoutingStrategy::Auto, &open);
        assert_eq!((bash.status, bash.blocked_reason), (RuntimeStatus::WorkerLocal, None));
        let patch = one("patch", RoutingStrategy::Auto, &open);
        assert_eq!((patch.status, patch.route, patch.blocked_reason), (RuntimeStatus::MainProcessProxied, FrontendRoute::MainProcessProxy, Some(RequiresMainProcessProxy)));
        assert_eq!(patch.execution_mode, ExecutionMode::Sequential);
    }

    #[test]
    fn strategies_move_but_never_lift() {
        let closed = policy(false, false, true);
        let bash = one("bash", RoutingStrategy::ForceLocal, &closed);
        assert_eq!(bash.reasons, [WorkspaceRootRequired, ShellDisabledByPolicy]);
        assert_eq!(bash.status, RuntimeStatus::DisabledInWorker);
        let open = policy(true, true, false);
        assert_eq!(one("bash", RoutingStrategy::ForceMainProcessProxy, &open).status, RuntimeStatus::MainProcessProxied);
        assert_eq!(one("write_file", RoutingStrategy::ForceLocal, &open).reasons, [UnsupportedInWorker]);
        assert_eq!(one("delegate_task", RoutingStrategy::ForceMainProcessProxy, &open).reasons, [UnsupportedInWorker]);
        assert_eq!(one("bash", RoutingStrategy::ForceDisabled, &open).reasons, [DisabledByRoutingStrategy]);
    }

    #[test]
    fn not_selected_stops_at_check_one() {
        let catalog = Catalog::builtin();
        let tool = catalog.get("bash").unwrap();
        let r = route(tool, RouteInput { selected: false, not_selected_reason: Some(DisabledByAgent), strategy: RoutingStrategy::Auto }, &policy(false, false, true));
        assert_eq!((r.status, r.reasons.as_slice()), (RuntimeStatus::NotSelected, &[DisabledByAgent][..]));
    }
}
