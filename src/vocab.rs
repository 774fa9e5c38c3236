//! The vocabulary of SPEC §2: every enum with its exact JSON string.

use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// Declares a string enum: exact JSON strings, `as_str`, `parse` and the lists of all values and of
/// their strings (`NAMES[v as usize]` is the string of `v`: one table, no code per value).
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "types", derive(Tsify))]
        pub enum $name {
            $($(#[$vmeta])* #[cfg_attr(feature = "types", serde(rename = $text))] $variant),+
        }

        impl $name {
            /// Every value, in the order of the spec.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The string of every value, in the order of [`Self::ALL`].
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The exact JSON string.
            pub fn as_str(self) -> &'static str {
                Self::NAMES.get(self as usize).copied().unwrap_or_default()
            }

            /// The value named by `text`, if any.
            pub fn parse(text: &str) -> Option<Self> {
                $crate::vocab::index_of(Self::NAMES, text).and_then(|i| Self::ALL.get(i).copied())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

pub(crate) use string_enum;

/// The position of `text` in `names`.
pub fn index_of(names: &[&str], text: &str) -> Option<usize> {
    names.iter().position(|n| *n == text)
}

string_enum!(
    /// What a tool is, which decides its scene gating and default runtime profile.
    ToolKind { Builtin = "builtin", Memory = "memory", Skill = "skill", Delegation = "delegation", Admin = "admin", Custom = "custom" }
);
string_enum!(
    /// Whether calls of a tool may run side by side.
    ExecutionMode { Parallel = "parallel", Sequential = "sequential" }
);
string_enum!(
    /// Where a tool would run in a sub-agent worker, by its manifest.
    WorkerRoutingHint { Local = "local", MainProcessProxy = "main-process-proxy", Disabled = "disabled" }
);
string_enum!(
    /// The admin's override of the routing hint (a `netaclaw_tool` column).
    RoutingStrategy {
        Auto = "auto",
        ForceLocal = "force-local",
        ForceMainProcessProxy = "force-main-process-proxy",
        ForceDisabled = "force-disabled",
    }
);
string_enum!(
    /// Who sees a tool.
    Visibility { Internal = "internal", Tool = "tool", Skill = "skill" }
);
string_enum!(
    /// What a tool needs from the model, or what a model offers.
    Capability { Text = "text", Vision = "vision", Multimodal = "multimodal" }
);
string_enum!(
    /// The agent's role in a crew.
    CrewRole { Master = "master", Sub = "sub" }
);
string_enum!(
    /// The runtime status of one tool in a sub-agent worker.
    RuntimeStatus {
        WorkerLocal = "worker-local",
        MainProcessProxied = "main-process-proxied",
        DisabledInWorker = "disabled-in-worker",
        NotSelected = "not-selected",
    }
);
string_enum!(
    /// The route the pages show for a runtime status.
    FrontendRoute { WorkerLocal = "worker-local", MainProcessProxy = "main-process-proxy", Disabled = "disabled" }
);
string_enum!(
    /// Every reason, warning and update-error code. Each has a zh-CN and an en label.
    ReasonCode {
        WorkspaceRootRequired = "workspace_root_required",
        ShellDisabledByPolicy = "shell_disabled_by_policy",
        WriteBlockedByReadonlyPolicy = "write_blocked_by_readonly_policy",
        RequiresMainProcessProxy = "requires_main_process_proxy",
        UnsupportedInWorker = "unsupported_in_worker",
        NotSelectedForSubagent = "not_selected_for_subagent",
        DisabledByRoutingStrategy = "disabled_by_routing_strategy",
        ToolsetNotSelected = "toolset_not_selected",
        DisabledByAgent = "disabled_by_agent",
        DisabledGlobally = "disabled_globally",
        CapabilityMismatch = "capability_mismatch",
        MemoryDisabled = "memory_disabled",
        NoSkillsBound = "no_skills_bound",
        CrewMasterOnly = "crew_master_only",
        CoreToolCannotBeDisabled = "core_tool_cannot_be_disabled",
        UnknownTool = "unknown_tool",
        UnknownToolset = "unknown_toolset",
        CapabilityFallbackText = "capability_fallback_text",
        FieldIsReadonly = "field_is_readonly",
        PromptHintNotSupported = "prompt_hint_not_supported",
        InvalidValue = "invalid_value",
        PathOutsideWorkspace = "path_outside_workspace",
        InvalidToolArguments = "invalid_tool_arguments",
        ToolNotOffered = "tool_not_offered",
        ShellSandboxUnavailable = "shell_sandbox_unavailable",
        /// A `deny` rule or a protected path matched the call (`checkToolCall` with `rules`). The rule
        /// codes are declared in TypeScript as `RuleReasonCode`, beside the listed codes' `ReasonCode`.
        #[cfg_attr(feature = "types", serde(skip))]
        DeniedByRule = "denied_by_rule",
        /// An `ask` nobody could answer (no user, or none in time): the runtime's, never the package's.
        #[cfg_attr(feature = "types", serde(skip))]
        ApprovalRequired = "approval_required",
        /// A connection to a host that no `net(…)` rule allows (the default: no host).
        #[cfg_attr(feature = "types", serde(skip))]
        HostNotAllowed = "host_not_allowed",
    }
);

impl ReasonCode {
    /// The codes `labels()`, `catalogInfo`'s vocabulary and the routes' `reasons` list: every code but
    /// the rule codes, which `checkToolCall` answers and `label("reasons", code)` names.
    pub const LISTED: &'static [ReasonCode] = Self::ALL.split_at(25).0;
    /// The strings of [`Self::LISTED`].
    pub const LISTED_NAMES: &'static [&'static str] = Self::NAMES.split_at(25).0;
}
string_enum!(
    /// What happens to one tool call (`checkToolCall`): it runs in the worker, in the main process, or not at all.
    ToolCallDecision { WorkerLocal = "worker-local", MainProcessProxy = "main-process-proxy", Denied = "denied", Ask = "ask" }
);

string_enum!(
    /// A layer of a decision trace (`trace: true`), in the order the engine consults them.
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
    /// What a traced layer said: `pass` let the tool through, `block` stopped it (its `reason` says why),
    /// `overridden` would have stopped it but did not apply (a protected core tool, or a strategy the
    /// manifest refuses), `local` / `proxy` is the route the routing layer chose.
    TraceOutcome { Pass = "pass", Block = "block", Overridden = "overridden", Local = "local", Proxy = "proxy" }
);
string_enum!(
    /// Why a sub-agent's policy was narrowed to fit its parent's.
    PolicyWarningCode {
        /// A root of the child lies outside every root of the parent; it was dropped.
        RootOutsideParent = "root_outside_parent",
        /// The child would allow the shell, the parent does not; shell was turned off.
        ShellNotAllowedByParent = "shell_not_allowed_by_parent",
        /// The child would be writable, the parent is readonly; the child was made readonly.
        WriteNotAllowedByParent = "write_not_allowed_by_parent",
    }
);

/// A label locale. Its TypeScript type (`"zh-CN" | "en" | (string & {})`) is declared with the
/// bindings, since any tag starting with `zh` or `en` is accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locale {
    ZhCn,
    En,
}

impl Locale {
    /// The canonical tags, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["zh-CN", "en"];

    /// The locale of a tag: `zh-CN`, `en`, or any tag whose primary subtag is `zh` / `en` (`en-US`,
    /// `zh-Hans`), case-insensitively.
    pub fn from_tag(tag: &str) -> Option<Locale> {
        let primary = tag.split(['-', '_']).next().unwrap_or("");
        if primary.eq_ignore_ascii_case("zh") {
            Some(Locale::ZhCn)
        } else if primary.eq_ignore_ascii_case("en") {
            Some(Locale::En)
        } else {
            None
        }
    }
}

impl Capability {
    /// Whether a model offering `self` can serve a tool that needs `needed`.
    pub fn serves(self, needed: Capability) -> bool {
        match needed {
            Capability::Text => true,
            Capability::Vision => matches!(self, Capability::Vision | Capability::Multimodal),
            Capability::Multimodal => self == Capability::Multimodal,
        }
    }
}

impl RuntimeStatus {
    /// The route the pages show for this status.
    pub fn route(self) -> FrontendRoute {
        match self {
            RuntimeStatus::WorkerLocal => FrontendRoute::WorkerLocal,
            RuntimeStatus::MainProcessProxied => FrontendRoute::MainProcessProxy,
            RuntimeStatus::DisabledInWorker | RuntimeStatus::NotSelected => FrontendRoute::Disabled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_round_trips_through_its_string() {
        for code in ReasonCode::ALL {
            assert_eq!(ReasonCode::parse(code.as_str()), Some(*code));
            assert_eq!(serde_json::to_string(code).unwrap(), format!("\"{}\"", code.as_str()));
        }
        for s in RoutingStrategy::ALL {
            assert_eq!(RoutingStrategy::parse(s.as_str()), Some(*s));
        }
        assert_eq!(ReasonCode::ALL.len(), 28);
        assert_eq!(ReasonCode::LISTED.len(), 25);
        assert_eq!(ReasonCode::LISTED_NAMES.last(), Some(&"shell_sandbox_unavailable"));
        assert_eq!(ReasonCode::parse("Unknown_Tool"), None);
    }

    #[test]
    fn capability_matching_follows_the_plan() {
        use Capability::*;
        assert!(Text.serves(Text) && Vision.serves(Text) && Multimodal.serves(Text));
        assert!(!Text.serves(Vision) && Vision.serves(Vision) && Multimodal.serves(Vision));
        assert!(!Text.serves(Multimodal) && !Vision.serves(Multimodal) && Multimodal.serves(Multimodal));
    }
}
