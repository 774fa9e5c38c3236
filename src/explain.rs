//! Explanations built on the diagnostic: one readable paragraph per tool (`explainTool`), and the tools
//! whose static profile and dynamic route disagree (`profileRouteDiff`) — seed 000's "Agent 编辑页显示
//! 允许，但运行时还是 blocked": the edit page shows the profile, the chat page the route.

use crate::diagnostic::RuntimeDiagnostic;
use crate::labels::{reason_label, route_label, status_label, trace_layer, trace_outcome, Locale};
use crate::vocab::{ReasonCode, RuntimeStatus, WorkerRoutingHint};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// What the static profile of a tool says about the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticProfile {
    pub name: String,
    pub supported_in_worker: bool,
    pub worker_routing_hint: WorkerRoutingHint,
}

/// What the dynamic route of a tool is in one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicRoute {
    pub name: String,
    pub status: RuntimeStatus,
    pub reasons: Vec<ReasonCode>,
}

/// A tool whose static profile says it can run in a worker while this run's route blocks it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ProfileRouteDiff {
    pub name: String,
    /// The profile's `supportedInWorker`.
    pub supported_in_worker: bool,
    /// The profile's `workerRoutingHint`.
    pub worker_routing_hint: WorkerRoutingHint,
    /// The route's status: `disabled-in-worker` or `not-selected`.
    pub status: RuntimeStatus,
    /// The route's reasons, first the one that blocks.
    pub reasons: Vec<ReasonCode>,
}

/// The static profile says the tool can run in a worker: check 6 of the projection on the manifest
/// alone — hint `local` with a worker implementation, or hint `main-process-proxy`. A `local` hint
/// without one is not runnable (`unsupported_in_worker`), whatever the session.
pub fn statically_runnable(supported_in_worker: bool, hint: WorkerRoutingHint) -> bool {
    match hint {
        WorkerRoutingHint::Local => supported_in_worker,
        WorkerRoutingHint::MainProcessProxy => true,
        WorkerRoutingHint::Disabled => false,
    }
}

/// The route blocks the tool in this worker.
pub fn dynamically_blocked(status: RuntimeStatus) -> bool {
    matches!(status, RuntimeStatus::DisabledInWorker | RuntimeStatus::NotSelected)
}

/// The profile named `name`: the one at `position` when the lists are aligned (a diagnostic's are),
/// else the first of that name.
pub fn find_profile<'p>(profiles: &'p [StaticProfile], position: usize, name: &str) -> Option<&'p StaticProfile> {
    profiles.get(position).filter(|p| p.name == name).or_else(|| profiles.iter().find(|p| p.name == name))
}

/// `profileRouteDiff`: in route order, every tool statically runnable in a worker and dynamically
/// blocked. Routes of names without a profile are left out.
pub fn profile_route_diff(profiles: &[StaticProfile], routes: &[DynamicRoute]) -> Vec<ProfileRouteDiff> {
    let mut out = Vec::new();
    for (i, r) in routes.iter().enumerate() {
        let Some(p) = find_profile(profiles, i, &r.name) else { continue };
        if dynamically_blocked(r.status) && statically_runnable(p.supported_in_worker, p.worker_routing_hint) {
            out.push(ProfileRouteDiff {
                name: r.name.clone(),
                supported_in_worker: p.supported_in_worker,
                worker_routing_hint: p.worker_routing_hint,
                status: r.status,
                reasons: r.reasons.clone(),
            });
        }
    }
    out
}

/// `profileRouteDiff` of a diagnostic built here.
pub fn diagnostic_diff(d: &RuntimeDiagnostic) -> Vec<ProfileRouteDiff> {
    let profiles: Vec<StaticProfile> = d
        .profiles
        .iter()
        .map(|p| StaticProfile { name: p.name.clone(), supported_in_worker: p.supported_in_worker, worker_routing_hint: p.worker_routing_hint })
        .collect();
    let routes: Vec<DynamicRoute> = d.routes.iter().map(|r| DynamicRoute { name: r.name.clone(), status: r.status, reasons: r.reasons.clone() }).collect();
    profile_route_diff(&profiles, &routes)
}

struct Words {
    colon: &'static str,
    open: &'static str,
    close: &'static str,
    separator: &'static str,
    stop: &'static str,
    status: &'static str,
    route: &'static str,
    reasons: &'static str,
    path: &'static str,
    protected: &'static str,
    static_vs_dynamic: &'static str,
    unknown: &'static str,
}

const ZH: Words = Words {
    colon: "：",
    open: "（",
    close: "）",
    separator: "；",
    stop: "。",
    status: "状态 ",
    route: "，路由：",
    reasons: "原因：",
    path: "判定过程：",
    protected: "它是不可禁用的核心工具，Agent 和 Tool 管理表都不能移除它。",
    static_vs_dynamic: "静态画像显示它可以在 worker 中运行，但本次动态路由阻断了它：请以动态路由为准。",
    unknown: "不在工具目录中，是未知工具；按失败关闭处理，不会被注入，也不会被路由。",
};

const EN: Words = Words {
    colon: ": ",
    open: " (",
    close: ")",
    separator: "; ",
    stop: ". ",
    status: "status ",
    route: ", route: ",
    reasons: "Reasons: ",
    path: "Decision path: ",
    protected: "It is a core tool that cannot be disabled: neither the agent nor the governance table can remove it. ",
    static_vs_dynamic: "Its static profile says it can run in a worker, but this run's dynamic route blocks it: the dynamic route is what applies. ",
    unknown: "not in the catalog, so it is an unknown tool; it fails closed: it is never injected and never routed.",
};

/// `explainTool`: one paragraph for `name`, built from a traced diagnostic — its status and route, its
/// reasons, every consulted layer with the input path that decided it, and whether its static profile
/// and dynamic route disagree. A name not in the catalog gets a paragraph saying it is unknown and
/// fails closed.
pub fn explain_tool(d: &RuntimeDiagnostic, name: &str, locale: Locale) -> String {
    let w = if locale == Locale::ZhCn { &ZH } else { &EN };
    let mut out = String::with_capacity(512);
    out.push_str(name);
    out.push_str(w.colon);
    let Some(route) = d.routes.iter().find(|r| r.name == name) else {
        out.push_str(w.unknown);
        return out;
    };
    out.push_str(status_label(route.status, locale));
    out.push_str(w.open);
    out.push_str(w.status);
    out.push_str(route.status.as_str());
    out.push_str(w.route);
    out.push_str(route_label(route.route, locale));
    out.push_str(w.close);
    out.push_str(w.stop);
    if !route.reasons.is_empty() {
        out.push_str(w.reasons);
        for (k, code) in route.reasons.iter().enumerate() {
            if k > 0 {
                out.push_str(w.separator);
            }
            out.push_str(reason_label(*code, locale));
        }
        out.push_str(w.stop);
    }
    if let Some(trace) = route.trace.as_ref().filter(|t| !t.is_empty()) {
        out.push_str(w.path);
        for (k, e) in trace.iter().enumerate() {
            if k > 0 {
                out.push_str(w.separator);
            }
            out.push_str(trace_layer(e.layer, locale));
            out.push_str(w.open);
            out.push_str(&e.source);
            out.push_str(w.close);
            if locale == Locale::En {
                out.push(' ');
            }
            out.push_str(trace_outcome(e.outcome, locale));
            if let Some(code) = e.reason {
                out.push_str(w.colon);
                out.push_str(reason_label(code, locale));
            }
        }
        out.push_str(w.stop);
    }
    let profile = d.profiles.iter().find(|p| p.name == name);
    if profile.is_some_and(|p| p.is_protected()) {
        out.push_str(w.protected);
    }
    if profile.is_some_and(|p| statically_runnable(p.supported_in_worker, p.worker_routing_hint)) && dynamically_blocked(route.status) {
        out.push_str(w.static_vs_dynamic);
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{runtime_diagnostic, runtime_diagnostic_with, DiagnosticInput, DiagnosticOptions};
    use crate::governance::{AgentToolConfig, Governance, ResolveInput};
    use crate::manifest::Catalog;
    use crate::trace::CatalogSources;
    use crate::worker_policy::Root;

    fn diagnostic(trace: bool) -> RuntimeDiagnostic<'static> {
        static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
        let catalog = CATALOG.get_or_init(Catalog::builtin);
        let input = DiagnosticInput {
            resolve: ResolveInput {
                agent: Some(AgentToolConfig { toolsets: Some(vec!["base".into(), "planning".into()]), disabled: vec!["grep".into()] }),
                ..Default::default()
            },
            session_cwd: Some(Root::new("/srv/app").unwrap()),
            subagent_tools: Some(vec!["bash".into(), "read_file".into(), "write_file".into(), "todo".into()]),
            ..Default::default()
        };
        let sources = CatalogSources::builtin();
        let options = DiagnosticOptions { trace: trace.then_some(&sources), ..Default::default() };
        runtime_diagnostic_with(catalog, &Governance::default(), &input, &options)
    }

    #[test]
    fn statically_runnable_is_check_six_on_the_manifest() {
        use WorkerRoutingHint::*;
        assert!(statically_runnable(true, Local) && !statically_runnable(false, Local));
        assert!(statically_runnable(false, MainProcessProxy) && statically_runnable(true, MainProcessProxy));
        assert!(!statically_runnable(true, Disabled) && !statically_runnable(false, Disabled));
    }

    #[test]
    fn the_diff_lists_statically_runnable_tools_the_route_blocks() {
        let d = diagnostic(false);
        let diff = diagnostic_diff(&d);
        let names: Vec<_> = diff.iter().map(|x| (x.name.as_str(), x.status, x.reasons[0])).collect();
        // bash: local in its profile, shell not permitted; write_file: proxied, readonly; grep: disabled by
        // the agent; list_dir etc.: not in the batch; memory/skills: toolset not selected.
        assert!(names.contains(&("bash", RuntimeStatus::DisabledInWorker, ReasonCode::ShellDisabledByPolicy)));
        assert!(names.contains(&("write_file", RuntimeStatus::DisabledInWorker, ReasonCode::WriteBlockedByReadonlyPolicy)));
        assert!(names.contains(&("grep", RuntimeStatus::NotSelected, ReasonCode::DisabledByAgent)));
        assert!(names.contains(&("list_dir", RuntimeStatus::NotSelected, ReasonCode::NotSelectedForSubagent)));
        // Routed tools and tools whose profile already says "disabled" are not differences.
        assert!(!names.iter().any(|(n, _, _)| ["read_file", "todo", "delegate_task", "delegate_parallel"].contains(n)));
        assert_eq!(diff.len(), d.routes.iter().filter(|r| dynamically_blocked(r.status) && !r.name.starts_with("delegate_")).count());
        // The untraced diagnostic is the one runtime_diagnostic gives.
        assert_eq!(
            d,
            runtime_diagnostic(
                &Catalog::builtin(),
                &Governance::default(),
                &DiagnosticInput {
                    resolve: ResolveInput {
                        agent: Some(AgentToolConfig { toolsets: Some(vec!["base".into(), "planning".into()]), disabled: vec!["grep".into()] }),
                        ..Default::default()
                    },
                    session_cwd: Some(Root::new("/srv/app").unwrap()),
                    subagent_tools: Some(vec!["bash".into(), "read_file".into(), "write_file".into(), "todo".into()]),
                    ..Default::default()
                }
            )
        );
    }

    #[test]
    fn a_paragraph_names_status_reasons_sources_and_the_disagreement() {
        let d = diagnostic(true);
        let en = explain_tool(&d, "bash", Locale::En);
        assert!(en.starts_with("bash: Cannot run under the current worker policy (status disabled-in-worker, route: Disabled)."), "{en}");
        assert!(en.contains("worker policy (shellPermitted) blocked: Shell tools such as bash are disabled by the policy"), "{en}");
        assert!(en.contains("sub-agent selection (subagentTools[0]) passed"), "{en}");
        assert!(en.ends_with("the dynamic route is what applies."), "{en}");
        let zh = explain_tool(&d, "bash", Locale::ZhCn);
        assert!(zh.contains("worker 策略（shellPermitted）阻断：bash 等 shell 工具被策略禁用"), "{zh}");
        assert!(zh.contains("静态画像"), "{zh}");
        let todo = explain_tool(&d, "todo", Locale::En);
        assert!(todo.contains("core tool") && !todo.contains("static profile"), "{todo}");
        let grep = explain_tool(&d, "grep", Locale::En);
        assert!(grep.contains("agent disabled list (agent.tools.disabled[0]) blocked: Disabled for this agent"), "{grep}");
        let ghost = explain_tool(&d, "ghost", Locale::En);
        assert_eq!(ghost, "ghost: not in the catalog, so it is an unknown tool; it fails closed: it is never injected and never routed.");
        assert!(explain_tool(&d, "ghost", Locale::ZhCn).contains("未知工具"));
    }
}
