//! The runtime policy projection (seed 000 `projectRuntimePolicy`): for every catalog tool, where it
//! runs in this worker — locally, proxied to the main process, or not at all — and every reason why.

use crate::manifest::{Catalog, ToolManifest};
use crate::sink::{NoTrace, Sink, Source};
use crate::vocab::{ExecutionMode, FrontendRoute, ReasonCode, RoutingStrategy, RuntimeStatus, TraceLayer, TraceOutcome, WorkerRoutingHint};
use crate::worker_policy::WorkerPolicy;
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// One tool's route in a worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolRuntimeRoute {
    pub name: String,
    pub status: RuntimeStatus,
    pub route: FrontendRoute,
    /// `reasons[0]`, or `null` for a tool that runs locally with nothing to say.
    #[cfg_attr(feature = "types", tsify(type = "ReasonCode | null"))]
    pub blocked_reason: Option<ReasonCode>,
    pub reasons: Vec<ReasonCode>,
    pub strategy: RoutingStrategy,
    pub execution_mode: ExecutionMode,
    /// Every layer consulted, in order (only when the input asks for `trace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional))]
    pub trace: Option<Vec<crate::sink::TraceEntry>>,
}

/// What a route decision reads of a worker policy. The projection needs only whether the policy
/// has roots, not which: `projectRuntimePolicy` takes a policy's roots as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoutePolicy {
    pub has_roots: bool,
    pub allow_shell: bool,
    pub readonly: bool,
}

impl From<&WorkerPolicy> for RoutePolicy {
    fn from(policy: &WorkerPolicy) -> Self {
        RoutePolicy { has_roots: !policy.workspace_roots.is_empty(), allow_shell: policy.allow_shell, readonly: policy.readonly }
    }
}

impl From<&RoutePolicy> for RoutePolicy {
    fn from(policy: &RoutePolicy) -> Self {
        *policy
    }
}

/// The per-tool inputs of one route decision.
#[derive(Clone, Copy, Debug)]
pub struct RouteInput {
    pub selected: bool,
    /// Why a tool is not selected (defaults to `not_selected_for_subagent`).
    pub not_selected_reason: Option<ReasonCode>,
    pub strategy: RoutingStrategy,
    /// The executor in the main process runs this tool itself when nothing but the worker's lack of
    /// support blocks it (the delegation tools outside a `sub` agent): proxied, not disabled.
    pub main_process: bool,
}

/// Decides one tool's status and reasons (SPEC §5 checks 1–6, §7 "Worker policy and projection").
/// `reasons` receives every applicable code in order; the status is returned.
pub fn decide_route(tool: &ToolManifest, input: RouteInput, policy: impl Into<RoutePolicy>, reasons: &mut Vec<ReasonCode>) -> RuntimeStatus {
    decide_route_with(tool, input, policy.into(), reasons, crate::sink::erase(&mut NoTrace))
}

/// [`decide_route`], recording every step into `sink`.
pub fn decide_route_with<S: Sink + ?Sized>(
    tool: &ToolManifest,
    input: RouteInput,
    policy: RoutePolicy,
    reasons: &mut Vec<ReasonCode>,
    sink: &mut S,
) -> RuntimeStatus {
    if !input.selected {
        let reason = input.not_selected_reason.unwrap_or(ReasonCode::NotSelectedForSubagent);
        reasons.push(reason);
        sink.record(TraceLayer::SubagentSelection, TraceOutcome::Block, Source::Selection, Some(reason));
        return RuntimeStatus::NotSelected;
    }
    sink.record(TraceLayer::SubagentSelection, TraceOutcome::Pass, Source::Selection, None);
    let mut blocked = false;
    if input.strategy == RoutingStrategy::ForceDisabled {
        reasons.push(ReasonCode::DisabledByRoutingStrategy);
        sink.record(TraceLayer::RoutingStrategy, TraceOutcome::Block, Source::Strategy, Some(ReasonCode::DisabledByRoutingStrategy));
        blocked = true;
    }
    let checks = [
        (tool.requires_workspace_root, !policy.has_roots, Source::Roots, ReasonCode::WorkspaceRootRequired),
        (tool.requires_shell, !policy.allow_shell, Source::Shell, ReasonCode::ShellDisabledByPolicy),
        (tool.requires_write, policy.readonly, Source::Write, ReasonCode::WriteBlockedByReadonlyPolicy),
    ];
    for (required, missing, source, reason) in checks {
        if required && missing {
            reasons.push(reason);
            sink.record(TraceLayer::WorkerPolicy, TraceOutcome::Block, source, Some(reason));
            blocked = true;
        } else if required {
            sink.record(TraceLayer::WorkerPolicy, TraceOutcome::Pass, source, None);
        }
    }
    // A strategy can move a tool between local and proxy, never route one whose manifest says disabled.
    let forced = matches!(input.strategy, RoutingStrategy::ForceLocal | RoutingStrategy::ForceMainProcessProxy);
    let (layer, hint, source) = if forced && tool.worker_routing_hint != WorkerRoutingHint::Disabled {
        let hint = if input.strategy == RoutingStrategy::ForceLocal { WorkerRoutingHint::Local } else { WorkerRoutingHint::MainProcessProxy };
        (TraceLayer::RoutingStrategy, hint, Source::Strategy)
    } else {
        if forced {
            sink.record(TraceLayer::RoutingStrategy, TraceOutcome::Overridden, Source::Strategy, None);
        }
        (TraceLayer::Manifest, tool.worker_routing_hint, Source::RoutingHint)
    };
    let routed = match hint {
        WorkerRoutingHint::Local if tool.supported_in_worker => {
            sink.record(layer, TraceOutcome::Local, source, None);
            RuntimeStatus::WorkerLocal
        }
        WorkerRoutingHint::MainProcessProxy => {
            reasons.push(ReasonCode::RequiresMainProcessProxy);
            sink.record(layer, TraceOutcome::Proxy, source, Some(ReasonCode::RequiresMainProcessProxy));
            RuntimeStatus::MainProcessProxied
        }
        // What the worker cannot run, the main process runs when it may and nothing else blocks it.
        _ if input.main_process && !blocked => {
            reasons.push(ReasonCode::RequiresMainProcessProxy);
            sink.record(TraceLayer::Manifest, TraceOutcome::Proxy, Source::CrewRole, Some(ReasonCode::RequiresMainProcessProxy));
            RuntimeStatus::MainProcessProxied
        }
        WorkerRoutingHint::Local | WorkerRoutingHint::Disabled => {
            reasons.push(ReasonCode::UnsupportedInWorker);
            let source = if hint == WorkerRoutingHint::Local { Source::SupportedInWorker } else { source };
            sink.record(TraceLayer::Manifest, TraceOutcome::Block, source, Some(ReasonCode::UnsupportedInWorker));
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
pub fn route(tool: &ToolManifest, input: RouteInput, policy: impl Into<RoutePolicy>) -> ToolRuntimeRoute {
    route_with(tool, input, policy.into(), crate::sink::erase(&mut NoTrace))
}

/// [`route`], recording every step into `sink`.
pub fn route_with<S: Sink + ?Sized>(tool: &ToolManifest, input: RouteInput, policy: RoutePolicy, sink: &mut S) -> ToolRuntimeRoute {
    let mut reasons = Vec::new();
    let status = decide_route_with(tool, input, policy, &mut reasons, sink);
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
            main_process: false,
        }
    }
}

/// `projectRuntimePolicy`: one route per catalog tool, in catalog order.
pub fn project_runtime_policy(catalog: &Catalog, policy: impl Into<RoutePolicy>, input: &ProjectionInput) -> Vec<ToolRuntimeRoute> {
    let policy = policy.into();
    catalog.tools().iter().enumerate().map(|(i, tool)| route(tool, input.route_input(i), policy)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::ReasonCode::*;

    fn policy(roots: bool, shell: bool, readonly: bool) -> RoutePolicy {
        RoutePolicy { has_roots: roots, allow_shell: shell, readonly }
    }

    fn one(name: &str, strategy: RoutingStrategy, p: &RoutePolicy) -> ToolRuntimeRoute {
        let catalog = Catalog::builtin();
        let tool = catalog.get(name).unwrap();
        route(tool, RouteInput { selected: true, not_selected_reason: None, strategy, main_process: false }, p)
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
        assert_eq!(
            (patch.status, patch.route, patch.blocked_reason),
            (RuntimeStatus::MainProcessProxied, FrontendRoute::MainProcessProxy, Some(RequiresMainProcessProxy))
        );
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
        let r = route(
            tool,
            RouteInput { selected: false, not_selected_reason: Some(DisabledByAgent), strategy: RoutingStrategy::Auto, main_process: false },
            policy(false, false, true),
        );
        assert_eq!((r.status, r.reasons.as_slice()), (RuntimeStatus::NotSelected, &[DisabledByAgent][..]));
    }
}
