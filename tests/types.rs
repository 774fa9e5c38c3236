//! The TypeScript declarations of the package's answers: `src/edge/types.ts` (which the WebAssembly
//! build puts into the package's `.d.ts`) is exactly what tsify derives from the Rust types, so the
//! declarations cannot drift from what the answers hold. `UPDATE_TYPES=1 cargo test --test types`
//! writes the file anew.
#![cfg(not(target_arch = "wasm32"))]

use netaclaw_tool_policy::{
    call, catalog, diagnostic, explain, governance, info, labels, manifest, mcp, projection, registry, rules, ruling, sink, vocab, worker_policy,
};
use std::path::Path;
use tsify::Tsify;

macro_rules! decls {
    ($($ty:path),+ $(,)?) => {
        [$(<$ty as Tsify>::DECL),+]
    };
}

fn declarations() -> Vec<&'static str> {
    decls![
        vocab::ToolKind,
        vocab::ExecutionMode,
        vocab::WorkerRoutingHint,
        vocab::RoutingStrategy,
        vocab::Visibility,
        vocab::Capability,
        vocab::CrewRole,
        vocab::RuntimeStatus,
        vocab::FrontendRoute,
        vocab::ReasonCode,
        vocab::ToolCallDecision,
        vocab::TraceLayer,
        vocab::TraceOutcome,
        vocab::PolicyWarningCode,
        catalog::ToolSchema,
        manifest::ToolManifest,
        governance::DisabledReason,
        governance::Warning,
        governance::ResolveResult,
        worker_policy::WorkerPolicy,
        worker_policy::PolicyWarning,
        worker_policy::BoundedWorkerPolicy,
        projection::ToolRuntimeRoute,
        sink::TraceEntry,
        diagnostic::RuntimeDiagnostic,
        registry::ToolGovernanceRow,
        registry::RowUpdate,
        registry::SyncPlan,
        registry::FieldError,
        labels::Labels,
        explain::ProfileRouteDiff,
        mcp::ToolAnnotations,
        rules::Effect,
        rules::Level,
        rules::PatternKind,
        rules::RuleMatch,
        rules::RuleDefaults,
        ruling::RuleCheck,
        ruling::NetworkCheck,
        call::ToolCallPath,
        call::ToolCallCheck,
        info::ToolsetInfo,
        info::CatalogVocabulary,
        info::CatalogInfo,
        info::ToolRowView,
        info::AgentTools,
        info::DisabledTools,
        info::AgentResolveInput,
    ]
    .to_vec()
}

fn expected() -> String {
    let mut out = String::from("// The answers' types, derived from the Rust types by tsify; written by `UPDATE_TYPES=1 cargo test --test types`.\n");
    for decl in declarations() {
        out.push('\n');
        out.push_str(decl);
        out.push('\n');
    }
    out
}

#[test]
fn every_derived_type_is_listed() {
    // Every `derive(Tsify)` of the crate: one per struct, one in the macro declaring the string enums.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut derives = 0;
    let mut enums = 0;
    for entry in std::fs::read_dir(&src).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        derives += text.matches("derive(Tsify)").count();
        enums += text.matches("\nstring_enum!(").count();
    }
    assert!(enums > 10, "the string enums were found");
    assert_eq!(declarations().len(), derives - 1 + enums, "a type deriving Tsify is missing from tests/types.rs");
}

#[test]
fn the_packaged_declarations_are_the_derived_ones() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/edge/types.ts");
    let expected = expected();
    if std::env::var_os("UPDATE_TYPES").is_some() {
        std::fs::write(&file, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(actual == expected, "src/edge/types.ts differs from the derived declarations; run UPDATE_TYPES=1 cargo test --test types");
}
