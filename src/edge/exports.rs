//! The export table: every function of the package, once. The JSON API's [`Function`] list
//! (`crate::edge::api`), the JavaScript bindings (`crate::edge::wasm`, each generated from its row)
//! and, through `tests/exports.rs`, `js/test/lib/functions.json` and the golden
//! folders are all made from or checked against these rows.
//!
//! A row: the [`Function`] variant, the binding's Rust name, the JS name, what it answers (`json` with
//! its TypeScript type, `text`, or `version`), then each parameter: its Rust and JS names, whether it
//! is required (`unchecked_param_type`) or optional (`unchecked_optional_param_type`), its type.

/// Hands the rows of the export table to the macro `$apply`.
macro_rules! export_table {
    ($apply:ident) => {
        $apply! {
            /// Every tool of the builtin catalog, every field present, in the order of the spec.
            BuiltinCatalog builtin_catalog builtinCatalog json "ToolSchema[]" [];
            /// Resolves every field of a schema.
            ToolManifest tool_manifest toolManifest json "ToolManifest" [schema schema unchecked_param_type "ToolSchema"];
            /// Which tools an agent gets, and the first reason each other tool was dropped.
            ResolveTools resolve_tools resolveTools json "ResolveResult" [input input unchecked_param_type "ResolveInput"];
            /// The worker's roots and permissions for a selection of tools.
            BuildSubprocessWorkerPolicy build_subprocess_worker_policy buildSubprocessWorkerPolicy json "WorkerPolicy & { warnings?: PolicyWarning[] }"
                [input input unchecked_param_type "WorkerPolicyInput"];
            /// One route per catalog tool under a worker policy.
            ProjectRuntimePolicy project_runtime_policy projectRuntimePolicy json "ToolRuntimeRoute[]" [input input unchecked_param_type "ProjectionInput"];
            /// Resolver, worker policy and projection composed: what the pages show.
            RuntimeDiagnostic runtime_diagnostic runtimeDiagnostic json "RuntimeDiagnostic" [input input unchecked_param_type "DiagnosticInput"];
            /// The plan that makes the `netaclaw_tool` table follow the catalog (`null` = builtin catalog).
            SyncCatalog sync_catalog syncCatalog json "SyncPlan"
                [catalog catalog unchecked_param_type "ToolSchema[] | null | undefined", rows rows unchecked_param_type "ToolGovernanceRowInput[]"];
            /// The guard of an admin update: every refused field, or the updated row.
            ValidateToolUpdate validate_tool_update validateToolUpdate json "UpdateOutcome" [input input unchecked_param_type "ValidateToolUpdateInput"];
            /// The tool-guidance prompt layer.
            ToolBehaviorGuidance tool_behavior_guidance toolBehaviorGuidance text "string"
                [tool_names toolNames unchecked_param_type "string[]", hints toolPromptHints unchecked_optional_param_type "Record<string, string> | null"];
            /// Every label of a locale.
            Labels labels labels json "Labels" [locale locale unchecked_optional_param_type "Locale | null"];
            /// One label.
            Label label label text "string"
                [group group unchecked_param_type "LabelGroupName", code code unchecked_param_type "string", locale locale unchecked_optional_param_type "Locale | null"];
            /// The package version.
            Version version version version "string" [];
            /// One readable paragraph on one tool of a diagnostic: status, reasons, and every layer consulted.
            ExplainTool explain_tool explainTool text "string"
                [input input unchecked_param_type "DiagnosticInput", name name unchecked_param_type "string", locale locale unchecked_optional_param_type "Locale | null"];
            /// The tools whose static profile can run in a worker while the diagnostic's route blocks them.
            ProfileRouteDiff profile_route_diff profileRouteDiff json "ProfileRouteDiff[]" [diagnostic diagnostic unchecked_param_type "RuntimeDiagnostic"];
            /// A tool manifest as Model Context Protocol `ToolAnnotations`.
            ToMcpAnnotations to_mcp_annotations toMcpAnnotations json "ToolAnnotations" [manifest manifest unchecked_param_type "ToolSchema | ToolManifest"];
            /// Decides one tool call against the worker's policy and routes: where it runs, or why it is denied.
            CheckToolCall check_tool_call checkToolCall json "ToolCallCheck" [input input unchecked_param_type "CheckToolCallInput"];
            /// The catalog's toolsets, the default toolsets, the row's human and mirror fields, every vocabulary.
            CatalogInfo catalog_info catalogInfo json "CatalogInfo" [catalog catalog unchecked_optional_param_type "ToolSchema[] | null"];
            /// The manifest of one tool, or `null` when the catalog has no such tool.
            GetToolSchema get_tool_schema getToolSchema json "ToolManifest | null"
                [name name unchecked_param_type "string", catalog catalog unchecked_optional_param_type "ToolSchema[] | null"];
            /// The tools of one toolset, in catalog order.
            GetToolNamesByToolset get_tool_names_by_toolset getToolNamesByToolset json "string[]"
                [toolset toolset unchecked_param_type "string", catalog catalog unchecked_optional_param_type "ToolSchema[] | null"];
            /// What the tool page shows for one row: protection, status, prompt hint, strategy.
            ToolRowView tool_row_view toolRowView json "ToolRowView" [input input unchecked_param_type "ToolRowViewInput"];
            /// The resolver's per-call input for an agent row and its model channel.
            AgentResolveInput agent_resolve_input agentResolveInput json "AgentResolveInput" [input input unchecked_param_type "AgentResolveSource"];
            /// An MCP tool as a catalog entry (proxied, never in a worker, writing unless read-only).
            FromMcpTool from_mcp_tool fromMcpTool json "ToolSchema" [input input unchecked_param_type "McpToolInput"];
            /// The rules' decision on one tool, command, path or host ("try it"): decision, rule, level.
            CheckRules check_rules checkRules json "RuleCheck" [input input unchecked_param_type "CheckRulesInput"];
            /// The default protected paths and the vocabulary of the rules editor.
            RuleDefaults rule_defaults ruleDefaults json "RuleDefaults" [];
            /// The rules' decision on a sandbox's connection to a host and port: allow, ask or deny, the rule and its level.
            CheckNetwork check_network checkNetwork json "NetworkCheck" [input input unchecked_param_type "CheckNetworkInput"];
        }
    };
}
#[cfg_attr(not(feature = "wasm"), allow(unused_imports))]
pub(crate) use export_table;

/// One parameter of an exported function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its JS name (the path invalid input names).
    pub name: &'static str,
    /// Whether it may be left out (`undefined` / `null`).
    pub optional: bool,
    /// Its TypeScript type.
    pub ts_type: &'static str,
}

/// What an exported function answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A JSON value (a plain object, array, string or `null`), of this TypeScript type.
    Json(&'static str),
    /// A string.
    Text,
}

/// One row of the export table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Export {
    pub function: Function,
    /// The JS name.
    pub name: &'static str,
    pub params: &'static [Param],
    pub answer: Answer,
}

macro_rules! answer_of {
    (json $ts:literal) => {
        Answer::Json($ts)
    };
    (text $ts:literal) => {
        Answer::Text
    };
    (version $ts:literal) => {
        Answer::Text
    };
}

macro_rules! optional_of {
    (unchecked_param_type) => {
        false
    };
    (unchecked_optional_param_type) => {
        true
    };
}

macro_rules! declare_table {
    ($( $(#[$doc:meta])* $variant:ident $rust:ident $js:ident $kind:ident $ts:literal [$($p:ident $pjs:ident $attr:ident $pts:literal),*]; )*) => {
        /// Every exported function, by its JS name ([`Function::NAMES`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Function {
            $( $(#[$doc])* $variant, )*
        }

        impl Function {
            /// Every function, in the order of the table.
            pub const ALL: &'static [Function] = &[$(Function::$variant),*];

            /// The JS names, in the order of the table.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($js)),*];
        }

        /// The export table's rows, in order.
        pub const EXPORTS: &[Export] = &[$(
            Export {
                function: Function::$variant,
                name: stringify!($js),
                params: &[$(Param { name: stringify!($pjs), optional: optional_of!($attr), ts_type: $pts }),*],
                answer: answer_of!($kind $ts),
            }
        ),*];
    };
}

export_table!(declare_table);

impl Function {
    /// The function named `name`.
    pub fn parse(name: &str) -> Option<Function> {
        crate::vocab::index_of(Self::NAMES, name).and_then(|i| Self::ALL.get(i).copied())
    }

    /// Its row of the export table.
    pub fn export(self) -> &'static Export {
        &EXPORTS[self as usize]
    }
}
