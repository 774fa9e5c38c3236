//! # netaclaw-tool-policy
//!
//! Which tools an agent gets, where each runs in a sub-agent worker, and why a tool is blocked —
//! derived once, here, for the admin pages, the chat page and the backend alike.
//!
//! The pipeline, one module per step, each a pure function from data to data:
//!
//! 1. [`catalog`] — `ToolSchema`, the builtin catalog and `TOOLSET_DEFAULTS`.
//! 2. [`manifest`] — every schema field resolved (`toolManifest`), fail-closed for unknown tools.
//! 3. [`governance`] — the resolver (`resolveTools`): toolsets, agent overrides, global status,
//!    model capability, scene gating; core tools protected.
//! 4. [`worker_policy`] — the worker's roots, shell and write permissions (`buildSubprocessWorkerPolicy`).
//! 5. [`projection`] — each tool's route in the worker and every reason (`projectRuntimePolicy`).
//! 6. [`diagnostic`] — 3 → 4 → 5 composed (`runtimeDiagnostic`), what the pages show.
//!
//! Beside it: [`registry`] (catalog → table sync plan, the admin update guard), [`guidance`] (the
//! tool-guidance prompt layer), [`labels`] (zh-CN and en), [`error`] (invalid input naming its path),
//! [`trace`] (each decision's layers and the input paths that decided them), [`explain`] (a paragraph
//! per tool, the static-profile vs dynamic-route diff), [`mcp`] (MCP tool annotations),
//! [`edge`] (the JSON edge: input limits and paths, reading input into the core's types, the export
//! table and the JSON API every runtime calls, and with the `wasm` feature the JavaScript bindings).

// The shared vocabulary and data: every enum with its JSON string, the one error, text helpers, the
// JSON data model (serde_json's, with JavaScript's key order and number format), name lookups, paths.
pub mod error;
pub mod names;
pub mod path;
pub mod text;
pub mod value;
pub mod vocab;

// The core: typed values in, typed values out; nothing here imports from `edge`.
pub mod catalog;
pub mod diagnostic;
pub mod governance;
pub mod manifest;
pub mod projection;
pub mod sink;
pub mod trace;
pub mod worker_policy;

pub mod call;
pub mod explain;
pub mod guidance;
pub mod host;
pub mod info;
pub mod labels;
pub mod mcp;
pub mod pattern;
pub mod registry;
pub mod rules;
pub mod ruling;
pub mod schema;
pub mod shell;

// The JSON edge: input limits and paths, reading input into the core's types, the export table and
// JSON API, the wasm bindings.
pub mod edge;

/// The JSON codec of the wire (it lives in the edge: no core module prints or reads wire text).
pub use edge::json;

pub use catalog::{builtin_catalog, ToolSchema, TOOLSET_DEFAULTS};
pub use diagnostic::{runtime_diagnostic, DiagnosticInput, RuntimeDiagnostic};
pub use error::Error;
pub use governance::{resolve_tools, AgentToolConfig, Governance, ResolveInput, ResolveResult, RowPolicy};
pub use manifest::{tool_manifest, Catalog, ToolManifest};
pub use projection::{project_runtime_policy, ProjectionInput, ToolRuntimeRoute};
pub use registry::{sync_catalog, validate_tool_update, SyncPlan, UpdateOutcome};
pub use worker_policy::{build_subprocess_worker_policy, WorkerPolicy, WorkerPolicyInput};
