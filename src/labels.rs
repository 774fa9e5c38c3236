//! Display labels in zh-CN (default) and en. The zh-CN runtime labels are seed 000's tables.

use crate::error::Error;
pub use crate::vocab::Locale;
use crate::vocab::{FrontendRoute, PolicyWarningCode, ReasonCode, RoutingStrategy, RuntimeStatus, ToolKind, TraceLayer, TraceOutcome};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// `zh-CN` when absent; `zh-CN`, `en`, or any tag starting with `zh` / `en` (`en-US`, `zh-Hans`).
pub fn parse_locale(locale: Option<&str>) -> Result<Locale, Error> {
    let Some(tag) = locale else { return Ok(Locale::ZhCn) };
    match Locale::from_tag(tag) {
        Some(locale) => Ok(locale),
        None => Err(Error::invalid("locale", crate::text::concat(&["unsupported locale ", &crate::text::quote(tag), "; use zh-CN or en"]))),
    }
}

/// Label groups, as `labels()` keys them.
pub const GROUPS: [&str; 5] = ["reasons", "statuses", "routes", "kinds", "strategies"];

fn reason(code: ReasonCode, locale: Locale) -> &'static str {
    use ReasonCode::*;
    let (zh, en) = match code {
        WorkspaceRootRequired => {
            ("工具需要 workspace root，但当前 session 没有 cwd/root", "The tool needs a workspace root, but the session has no cwd or root")
        }
        ShellDisabledByPolicy => ("bash 等 shell 工具被策略禁用", "Shell tools such as bash are disabled by the policy"),
        WriteBlockedByReadonlyPolicy => ("写入类工具被 readonly 策略阻止", "Write tools are blocked by the readonly policy"),
        RequiresMainProcessProxy => ("工具需要主进程代理", "The tool runs through the main-process proxy"),
        UnsupportedInWorker => ("工具没有 worker 支持", "The tool has no worker support"),
        NotSelectedForSubagent => ("未被选入子 Agent 工具集", "Not selected for the sub-agent's tool set"),
        DisabledByRoutingStrategy => ("被路由策略强制禁用", "Disabled by the routing strategy"),
        ToolsetNotSelected => ("所属 toolset 未被 Agent 选中", "The agent has not selected the tool's toolset"),
        DisabledByAgent => ("被 Agent 单独禁用", "Disabled for this agent"),
        DisabledGlobally => ("已在 Tool 管理中全局禁用", "Disabled globally in tool management"),
        CapabilityMismatch => ("模型能力不满足工具要求", "The model's capability does not meet the tool's requirement"),
        MemoryDisabled => ("当前 Agent 未启用记忆", "Memory is not enabled for this agent"),
        NoSkillsBound => ("当前 Agent 未绑定 Skill", "No skills are bound to this agent"),
        CrewMasterOnly => ("仅 Crew 主 Agent 可用", "Only available to a crew's master agent"),
        CoreToolCannotBeDisabled => ("核心工具不可禁用", "Core tools cannot be disabled"),
        UnknownTool => ("未知工具", "Unknown tool"),
        UnknownToolset => ("未知 toolset", "Unknown toolset"),
        CapabilityFallbackText => ("未提供模型能力，按 text 处理", "No model capability given; treated as text"),
        FieldIsReadonly => ("该字段由代码注册，只读", "This field is registered in code and is read-only"),
        PromptHintNotSupported => ("该工具不支持 Prompt Hint", "This tool does not support a prompt hint"),
        InvalidValue => ("值不合法", "Invalid value"),
        PathOutsideWorkspace => ("路径超出 workspace 范围", "The path lies outside the workspace roots"),
        InvalidToolArguments => ("工具参数不合法", "The tool's arguments are invalid"),
        ToolNotOffered => ("工具未提供给当前 Agent", "The tool was not offered to this agent"),
        ShellSandboxUnavailable => ("Shell 沙箱不可用", "The shell sandbox is unavailable"),
        DeniedByRule => ("被规则拒绝", "Denied by a rule"),
        ApprovalRequired => ("需要批准，但无人批准", "Approval was required and nobody gave it"),
        HostNotAllowed => ("没有网络规则允许该主机", "No network rule allows this host"),
    };
    pick(locale, zh, en)
}

fn status(s: RuntimeStatus, locale: Locale) -> &'static str {
    let (zh, en) = match s {
        RuntimeStatus::WorkerLocal => ("子进程可以本地执行", "Runs locally in the worker"),
        RuntimeStatus::MainProcessProxied => ("子进程请求父进程代理执行", "The worker asks the main process to run it"),
        RuntimeStatus::DisabledInWorker => ("当前 worker 策略下不能执行", "Cannot run under the current worker policy"),
        RuntimeStatus::NotSelected => ("没有被选入当前子 Agent 工具集", "Not selected for the current sub-agent's tool set"),
    };
    pick(locale, zh, en)
}

fn route(r: FrontendRoute, locale: Locale) -> &'static str {
    let (zh, en) = match r {
        FrontendRoute::WorkerLocal => ("Worker 本地", "Worker local"),
        FrontendRoute::MainProcessProxy => ("主进程代理", "Main-process proxy"),
        FrontendRoute::Disabled => ("禁用", "Disabled"),
    };
    pick(locale, zh, en)
}

fn kind(k: ToolKind, locale: Locale) -> &'static str {
    let (zh, en) = match k {
        ToolKind::Builtin => ("内置工具", "Builtin"),
        ToolKind::Memory => ("记忆工具", "Memory"),
        ToolKind::Skill => ("Skill 工具", "Skill"),
        ToolKind::Delegation => ("委派工具", "Delegation"),
        ToolKind::Admin => ("管理工具", "Admin"),
        ToolKind::Custom => ("自定义工具", "Custom"),
    };
    pick(locale, zh, en)
}

fn strategy(s: RoutingStrategy, locale: Locale) -> &'static str {
    let (zh, en) = match s {
        RoutingStrategy::Auto => ("自动", "Automatic"),
        RoutingStrategy::ForceLocal => ("强制 Worker 本地", "Force worker-local"),
        RoutingStrategy::ForceMainProcessProxy => ("强制主进程代理", "Force main-process proxy"),
        RoutingStrategy::ForceDisabled => ("强制禁用", "Force disabled"),
    };
    pick(locale, zh, en)
}

/// The label of a reason code.
pub fn reason_label(code: ReasonCode, locale: Locale) -> &'static str {
    reason(code, locale)
}

/// The label of a runtime status.
pub fn status_label(s: RuntimeStatus, locale: Locale) -> &'static str {
    status(s, locale)
}

/// The label of a frontend route.
pub fn route_label(r: FrontendRoute, locale: Locale) -> &'static str {
    route(r, locale)
}

/// The label of a trace layer.
pub fn trace_layer(layer: TraceLayer, locale: Locale) -> &'static str {
    let (zh, en) = match layer {
        TraceLayer::Catalog => ("工具目录", "catalog"),
        TraceLayer::AgentToolsets => ("Agent toolset", "agent toolsets"),
        TraceLayer::AgentDisabled => ("Agent 禁用列表", "agent disabled list"),
        TraceLayer::Governance => ("Tool 管理表", "governance table"),
        TraceLayer::ModelCapability => ("模型能力", "model capability"),
        TraceLayer::Scene => ("场景", "scene"),
        TraceLayer::SubagentSelection => ("子 Agent 工具选择", "sub-agent selection"),
        TraceLayer::RoutingStrategy => ("路由策略", "routing strategy"),
        TraceLayer::WorkerPolicy => ("worker 策略", "worker policy"),
        TraceLayer::Manifest => ("工具画像", "manifest"),
    };
    pick(locale, zh, en)
}

/// The label of a trace outcome.
pub fn trace_outcome(outcome: TraceOutcome, locale: Locale) -> &'static str {
    let (zh, en) = match outcome {
        TraceOutcome::Pass => ("通过", "passed"),
        TraceOutcome::Block => ("阻断", "blocked"),
        TraceOutcome::Overridden => ("未生效", "overridden"),
        TraceOutcome::Local => ("Worker 本地", "worker-local"),
        TraceOutcome::Proxy => ("主进程代理", "proxied"),
    };
    pick(locale, zh, en)
}

/// The label of a parent-bound policy warning.
pub fn policy_warning(code: PolicyWarningCode, locale: Locale) -> &'static str {
    let (zh, en) = match code {
        PolicyWarningCode::RootOutsideParent => {
            ("workspace root 不在父 Agent 的 root 之内，已移除", "The workspace root lies outside the parent's roots and was dropped")
        }
        PolicyWarningCode::ShellNotAllowedByParent => {
            ("父 Agent 不允许 shell，子 Agent 也不允许", "The parent does not allow the shell, so the child does not either")
        }
        PolicyWarningCode::WriteNotAllowedByParent => ("父 Agent 为只读，子 Agent 也只读", "The parent is readonly, so the child is readonly too"),
    };
    pick(locale, zh, en)
}

fn pick(locale: Locale, zh: &'static str, en: &'static str) -> &'static str {
    match locale {
        Locale::ZhCn => zh,
        Locale::En => en,
    }
}

/// One group of labels: `[code, label]` pairs in vocabulary order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelGroup(pub Vec<(&'static str, &'static str)>);

impl Serialize for LabelGroup {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Every label of one locale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct Labels {
    #[cfg_attr(feature = "types", tsify(type = "Record<ReasonCode, string>"))]
    pub reasons: LabelGroup,
    #[cfg_attr(feature = "types", tsify(type = "Record<RuntimeStatus, string>"))]
    pub statuses: LabelGroup,
    #[cfg_attr(feature = "types", tsify(type = "Record<FrontendRoute, string>"))]
    pub routes: LabelGroup,
    #[cfg_attr(feature = "types", tsify(type = "Record<ToolKind, string>"))]
    pub kinds: LabelGroup,
    #[cfg_attr(feature = "types", tsify(type = "Record<RoutingStrategy, string>"))]
    pub strategies: LabelGroup,
}

/// `labels(locale)`.
pub fn labels(locale: Locale) -> Labels {
    Labels {
        reasons: LabelGroup(ReasonCode::LISTED.iter().map(|c| (c.as_str(), reason(*c, locale))).collect()),
        statuses: LabelGroup(RuntimeStatus::ALL.iter().map(|c| (c.as_str(), status(*c, locale))).collect()),
        routes: LabelGroup(FrontendRoute::ALL.iter().map(|c| (c.as_str(), route(*c, locale))).collect()),
        kinds: LabelGroup(ToolKind::ALL.iter().map(|c| (c.as_str(), kind(*c, locale))).collect()),
        strategies: LabelGroup(RoutingStrategy::ALL.iter().map(|c| (c.as_str(), strategy(*c, locale))).collect()),
    }
}

/// `label(group, code, locale)`: an unknown group or code is invalid input.
pub fn label(group: &str, code: &str, locale: Locale) -> Result<&'static str, Error> {
    let unknown = || Error::invalid("code", crate::text::concat(&["unknown ", group, " code ", &crate::text::quote(code)]));
    match group {
        "reasons" => ReasonCode::parse(code).map(|c| reason(c, locale)).ok_or_else(unknown),
        "statuses" => RuntimeStatus::parse(code).map(|c| status(c, locale)).ok_or_else(unknown),
        "routes" => FrontendRoute::parse(code).map(|c| route(c, locale)).ok_or_else(unknown),
        "kinds" => ToolKind::parse(code).map(|c| kind(c, locale)).ok_or_else(unknown),
        "strategies" => RoutingStrategy::parse(code).map(|c| strategy(c, locale)).ok_or_else(unknown),
        // Groups beyond `labels()`: trace layers and outcomes, parent-bound policy warnings.
        "traceLayers" => TraceLayer::parse(code).map(|c| trace_layer(c, locale)).ok_or_else(unknown),
        "traceOutcomes" => TraceOutcome::parse(code).map(|c| trace_outcome(c, locale)).ok_or_else(unknown),
        "policyWarnings" => PolicyWarningCode::parse(code).map(|c| policy_warning(c, locale)).ok_or_else(unknown),
        _ => Err(Error::invalid(
            "group",
            crate::text::concat(&["unknown label group ", &crate::text::quote(group), "; expected one of ", &crate::text::join(&GROUPS, ", ")]),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_labels_and_both_locales() {
        assert_eq!(label("reasons", "write_blocked_by_readonly_policy", Locale::ZhCn).unwrap(), "写入类工具被 readonly 策略阻止");
        assert_eq!(label("statuses", "worker-local", Locale::ZhCn).unwrap(), "子进程可以本地执行");
        for locale in [Locale::ZhCn, Locale::En] {
            let all = labels(locale);
            assert_eq!(all.reasons.0.len(), ReasonCode::LISTED.len());
            assert!(all.reasons.0.iter().all(|(_, l)| !l.is_empty() && !l.contains('`') && !l.contains('*')));
        }
        assert_ne!(label("kinds", "skill", Locale::En).unwrap(), label("kinds", "skill", Locale::ZhCn).unwrap());
    }

    #[test]
    fn trace_and_policy_warning_labels_exist_in_both_locales() {
        for locale in [Locale::ZhCn, Locale::En] {
            for layer in TraceLayer::ALL {
                assert!(!trace_layer(*layer, locale).is_empty());
                assert_eq!(label("traceLayers", layer.as_str(), locale).unwrap(), trace_layer(*layer, locale));
            }
            for outcome in TraceOutcome::ALL {
                assert_eq!(label("traceOutcomes", outcome.as_str(), locale).unwrap(), trace_outcome(*outcome, locale));
            }
            for code in PolicyWarningCode::ALL {
                assert_eq!(label("policyWarnings", code.as_str(), locale).unwrap(), policy_warning(*code, locale));
            }
        }
        assert_ne!(policy_warning(PolicyWarningCode::RootOutsideParent, Locale::ZhCn), policy_warning(PolicyWarningCode::RootOutsideParent, Locale::En));
        assert_eq!(label("policyWarnings", "nope", Locale::En).unwrap_err().path(), "code");
        // `labels()` keeps its five groups.
        assert_eq!(GROUPS.len(), 5);
    }

    #[test]
    fn locales_and_unknown_names() {
        assert_eq!(parse_locale(Some("en-US")).unwrap(), Locale::En);
        assert_eq!(parse_locale(Some("zh-Hans")).unwrap(), Locale::ZhCn);
        assert_eq!(parse_locale(None).unwrap(), Locale::ZhCn);
        assert_eq!(parse_locale(Some("fr")).unwrap_err().path(), "locale");
        assert_eq!(parse_locale(Some("english")).unwrap_err().path(), "locale");
        assert_eq!(label("colors", "red", Locale::En).unwrap_err().path(), "group");
        assert_eq!(label("routes", "teleport", Locale::En).unwrap_err().path(), "code");
    }
}
