//! The JavaScript bindings: a thin layer over [`crate::api`]. Arguments cross as JSON text (read by
//! `JSON.stringify`), answers as JSON text (`JSON.parse`), so callers get plain objects whose bytes
//! equal the native answer, and nothing is left behind in wasm memory after a call.

use crate::api::{self, Function, Prepared};
use crate::error::Error;
use js_sys::{Reflect, JSON};
use crate::json::Value;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_INPUTS: &str = r#"
/** The fields of a `netaclaw_tool` row that the engine reads. */
export interface ToolGovernanceRowFields {
  name: string;
  label?: string | null;
  toolset?: string | null;
  description?: string | null;
  visibility?: Visibility | null;
  capability?: Capability | null;
  status?: 0 | 1 | boolean | null;
  isCore?: 0 | 1 | boolean | null;
  canDisable?: 0 | 1 | boolean | null;
  promptHint?: string | null;
  sort?: number | null;
  extra?: unknown;
  workerRoutingStrategy?: RoutingStrategy | null;
}

/**
 * A `netaclaw_tool` row as the engine reads it: any object with the row's fields (a literal, a
 * `ToolGovernanceRow`, an ORM entity); other keys (`id`, `createTime`, …) are ignored.
 */
export type ToolGovernanceRowInput = ToolGovernanceRowFields | (ToolGovernanceRowFields & { [key: string]: unknown });

/** An agent's tool configuration: no `toolsets` = a legacy agent (it gets the defaults). */
export interface AgentToolConfig {
  toolsets?: string[] | null;
  tools?: { disabled?: string[] | null } | null;
}

/** The per-call part of `resolveTools` (what `ToolPolicyEngine.resolve` takes). */
export interface ResolveCallInput {
  agent?: AgentToolConfig | null;
  modelCapability?: Capability | null;
  memoryEnabled?: boolean | null;
  hasSkills?: boolean | null;
  crewRole?: CrewRole | null;
  toolsetDefaults?: string[] | null;
  /** Attach a decision trace (every layer consulted, with the input path that decided it). */
  trace?: boolean | null;
}

/** A catalog and its governance rows (absent catalog = the builtin catalog). */
export interface EngineOptions {
  catalog?: ToolSchema[] | null;
  governance?: ToolGovernanceRowInput[] | null;
}

export interface ResolveInput extends ResolveCallInput, EngineOptions {}

/** The per-call part of `runtimeDiagnostic` (what `ToolPolicyEngine.diagnose` takes). */
export interface DiagnosticCallInput extends ResolveCallInput {
  subagentTools?: string[] | null;
  sessionCwd?: string | null;
  workspaceRoots?: string[] | null;
  shellPermitted?: boolean | null;
  writePermitted?: boolean | null;
  /** The parent worker's policy: the sub-agent's policy is narrowed to fit it (`policyWarnings` says how). */
  parent?: WorkerPolicy | null;
}

export interface DiagnosticInput extends DiagnosticCallInput, EngineOptions {}

export interface WorkerPolicyInput {
  sessionCwd?: string | null;
  workspaceRoots?: string[] | null;
  selectedTools: string[];
  catalog?: ToolSchema[] | null;
  shellPermitted?: boolean | null;
  writePermitted?: boolean | null;
  /** The parent worker's policy: the answer never exceeds it and gains `warnings`. */
  parent?: WorkerPolicy | null;
}

export interface ProjectionInput {
  catalog?: ToolSchema[] | null;
  selectedTools: string[];
  policy: WorkerPolicy;
  strategies?: Record<string, RoutingStrategy> | null;
  notSelectedReasons?: Record<string, ReasonCode> | null;
  /** Attach a decision trace to every route. */
  trace?: boolean | null;
}

export interface ValidateToolUpdateInput {
  row: ToolGovernanceRowInput;
  patch: Record<string, unknown>;
  catalog?: ToolSchema[] | null;
}

export type UpdateOutcome =
  | { ok: true; row: ToolGovernanceRowFields & { [key: string]: unknown }; ignored: string[] }
  | { ok: false; errors: FieldError[]; ignored: string[] };

/** `zh-CN` (default), `en`, or a tag starting with `zh` / `en`. */
export type Locale = "zh-CN" | "en" | (string & {});

/** A `labels()` group, or one of the groups only `label()` reads. */
export type LabelGroupName = keyof Labels | "traceLayers" | "traceOutcomes" | "policyWarnings";

/**
 * A JSON Schema object. `checkToolCall` reads the keywords `type properties required additionalProperties
 * items enum minimum maximum minLength maxLength minItems maxItems` and the path mark `x-netaclaw-path`
 * (`read`, `write`, `diff`, `name`, `relative`); a schema with any other keyword (annotations aside)
 * fails closed.
 */
export type JsonSchema = { [key: string]: unknown };

/** One tool call as the model made it: `arguments` should be an object (anything else is denied). */
export interface ToolCall {
  name: string;
  arguments?: unknown;
}

/** The input of `checkToolCall`: the worker's policy and routes (from `runtimeDiagnostic`), one call. */
export interface CheckToolCallInput {
  policy: WorkerPolicy;
  routes: ToolRuntimeRoute[];
  call: ToolCall;
  catalog?: ToolSchema[] | null;
}

/** The input of `toolRowView`: one `netaclaw_tool` row. */
export interface ToolRowViewInput {
  row: ToolGovernanceRowInput;
  catalog?: ToolSchema[] | null;
}

/** The fields of a `netaclaw_agent` row (or a draft of one) that `agentResolveInput` reads. */
export interface AgentRowFields {
  toolsets?: string[] | null;
  tools?: { disabled?: string[] | null } | null;
  skills?: unknown[] | null;
  memoryEnabled?: boolean | 0 | 1 | null;
  modelCapability?: Capability | null;
  crewRole?: CrewRole | null;
}

/** An agent row: any object with the fields above; other keys (`id`, `name`, …) are ignored. */
export type AgentRowInput = AgentRowFields | (AgentRowFields & { [key: string]: unknown });

/** A model channel row: its `capability` wins over the agent's; other keys are ignored. */
export type ModelChannelInput = { capability?: Capability | null } | ({ capability?: Capability | null } & { [key: string]: unknown });

/** The input of `agentResolveInput`: the agent, its model channel, and the crew role of this run. */
export interface AgentResolveSource {
  agent: AgentRowInput;
  channel?: ModelChannelInput | null;
  crewRole?: CrewRole | null;
}

/** An MCP `tools/list` entry (the fields `fromMcpTool` reads; others are ignored). */
export interface McpToolFields {
  name: string;
  description?: string | null;
  inputSchema?: JsonSchema | null;
  annotations?: { readOnlyHint?: boolean | null } | ({ readOnlyHint?: boolean | null } & { [key: string]: unknown }) | null;
}

/** The input of `fromMcpTool`: the server's name and one of its tools. */
export interface McpToolInput {
  server: string;
  tool: McpToolFields | (McpToolFields & { [key: string]: unknown });
}

/** The error every function throws for invalid input. */
export interface InvalidInputError extends Error {
  code: "invalid_input";
}
"#;

/// A JS `Error` with `code: 'invalid_input'`.
fn invalid(error: &Error) -> JsValue {
    let js = js_sys::Error::new(&error.message());
    // Setting a property on a fresh Error cannot fail.
    let _ = Reflect::set(&js, &JsValue::from_str("code"), &JsValue::from_str(Error::CODE));
    js.into()
}

#[wasm_bindgen]
extern "C" {
    /// `JSON.stringify` answering the text through linear memory: when it throws (a cycle, a BigInt,
    /// a throwing getter or Proxy trap) nothing is left behind, whereas an import answering a JS value
    /// leaves one externref slot taken for each caught exception.
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = stringify)]
    fn stringify(value: &JsValue) -> Result<Option<String>, JsValue>;
}

/// Reads one argument as JSON. `undefined` is `null`; values JSON cannot hold (functions, symbols)
/// are absent inside objects; a BigInt, a cycle or a throwing getter is invalid input.
fn read(value: &JsValue, path: &str) -> Result<Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Value::Null);
    }
    let kind = if value.is_function() {
        Some("a function")
    } else if value.is_symbol() {
        Some("a symbol")
    } else if value.is_bigint() {
        Some("a BigInt")
    } else {
        None
    };
    if let Some(kind) = kind {
        return Err(invalid(&Error::invalid(path, crate::json::concat(&["cannot be read as JSON: got ", kind]))));
    }
    let text = stringify(value)
        .map_err(|e| {
            let why = e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).filter(|w| !w.is_empty());
            let why = why.unwrap_or_else(|| "JSON.stringify threw".to_string());
            invalid(&Error::invalid(path, crate::json::concat(&["cannot be read as JSON (", &why, ")"])))
        })?
        .ok_or_else(|| invalid(&Error::invalid(path, "cannot be read as JSON")))?;
    crate::json::parse(&text).map_err(|e| invalid(&Error::invalid(path, e.what())))
}

/// The top-level object argument (`input` in error paths).
fn read_input(value: &JsValue) -> Result<Value, JsValue> {
    read(value, "input")
}

fn answer(result: Result<String, Error>) -> Result<JsValue, JsValue> {
    let text = result.map_err(|e| invalid(&e))?;
    JSON::parse(&text)
}

/// Calls one exported function of [`api::call`] with its arguments read as JSON, each named by its
/// path in errors: every export goes through here, so the reading and the dispatch are compiled once.
#[inline(never)]
fn call(function: Function, args: &[(&JsValue, &str)]) -> Result<JsValue, JsValue> {
    let mut values = Vec::with_capacity(args.len());
    for (value, path) in args {
        values.push(read(value, path)?);
    }
    answer(api::call_function(function, &values))
}

/// [`call`] for a function answering a string.
#[inline(never)]
fn call_text(function: Function, args: &[(&JsValue, &str)]) -> Result<String, JsValue> {
    call(function, args)?.as_string().ok_or_else(|| invalid(&Error::invalid("output", "not a string")))
}

/// Every tool of the builtin catalog, every field present, in the order of the spec.
#[wasm_bindgen(js_name = builtinCatalog, unchecked_return_type = "ToolSchema[]")]
pub fn builtin_catalog() -> Result<JsValue, JsValue> {
    call(Function::BuiltinCatalog, &[])
}

/// Resolves every field of a schema.
#[wasm_bindgen(js_name = toolManifest, unchecked_return_type = "ToolManifest")]
pub fn tool_manifest(#[wasm_bindgen(unchecked_param_type = "ToolSchema")] schema: JsValue) -> Result<JsValue, JsValue> {
    call(Function::ToolManifest, &[(&schema, "schema")])
}

/// Which tools an agent gets, and the first reason each other tool was dropped.
#[wasm_bindgen(js_name = resolveTools, unchecked_return_type = "ResolveResult")]
pub fn resolve_tools(#[wasm_bindgen(unchecked_param_type = "ResolveInput")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::ResolveTools, &[(&input, "input")])
}

/// The worker's roots and permissions for a selection of tools.
#[wasm_bindgen(js_name = buildSubprocessWorkerPolicy, unchecked_return_type = "WorkerPolicy & { warnings?: PolicyWarning[] }")]
pub fn build_subprocess_worker_policy(#[wasm_bindgen(unchecked_param_type = "WorkerPolicyInput")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::BuildSubprocessWorkerPolicy, &[(&input, "input")])
}

/// One route per catalog tool under a worker policy.
#[wasm_bindgen(js_name = projectRuntimePolicy, unchecked_return_type = "ToolRuntimeRoute[]")]
pub fn project_runtime_policy(#[wasm_bindgen(unchecked_param_type = "ProjectionInput")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::ProjectRuntimePolicy, &[(&input, "input")])
}

/// Resolver, worker policy and projection composed: what the pages show.
#[wasm_bindgen(js_name = runtimeDiagnostic, unchecked_return_type = "RuntimeDiagnostic")]
pub fn runtime_diagnostic(#[wasm_bindgen(unchecked_param_type = "DiagnosticInput")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::RuntimeDiagnostic, &[(&input, "input")])
}

/// The plan that makes the `netaclaw_tool` table follow the catalog (`null` = builtin catalog).
#[wasm_bindgen(js_name = syncCatalog, unchecked_return_type = "SyncPlan")]
pub fn sync_catalog(
    #[wasm_bindgen(unchecked_param_type = "ToolSchema[] | null | undefined")] catalog: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ToolGovernanceRowInput[]")] rows: JsValue,
) -> Result<JsValue, JsValue> {
    call(Function::SyncCatalog, &[(&catalog, "catalog"), (&rows, "rows")])
}

/// The guard of an admin update: every refused field, or the updated row.
#[wasm_bindgen(js_name = validateToolUpdate, unchecked_return_type = "UpdateOutcome")]
pub fn validate_tool_update(#[wasm_bindgen(unchecked_param_type = "ValidateToolUpdateInput")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::ValidateToolUpdate, &[(&input, "input")])
}

/// The tool-guidance prompt layer.
#[wasm_bindgen(js_name = toolBehaviorGuidance)]
pub fn tool_behavior_guidance(
    #[wasm_bindgen(js_name = toolNames, unchecked_param_type = "string[]")] tool_names: JsValue,
    #[wasm_bindgen(js_name = toolPromptHints, unchecked_optional_param_type = "Record<string, string> | null")] hints: JsValue,
) -> Result<String, JsValue> {
    call_text(Function::ToolBehaviorGuidance, &[(&tool_names, "toolNames"), (&hints, "toolPromptHints")])
}

/// Every label of a locale.
#[wasm_bindgen(js_name = labels, unchecked_return_type = "Labels")]
pub fn labels(#[wasm_bindgen(unchecked_optional_param_type = "Locale | null")] locale: JsValue) -> Result<JsValue, JsValue> {
    call(Function::Labels, &[(&locale, "locale")])
}

/// One label.
#[wasm_bindgen(js_name = label)]
pub fn label(
    #[wasm_bindgen(unchecked_param_type = "LabelGroupName")] group: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] code: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Locale | null")] locale: JsValue,
) -> Result<String, JsValue> {
    call_text(Function::Label, &[(&group, "group"), (&code, "code"), (&locale, "locale")])
}

/// One readable paragraph on one tool of a diagnostic: status, reasons, and every layer consulted.
#[wasm_bindgen(js_name = explainTool)]
pub fn explain_tool(
    #[wasm_bindgen(unchecked_param_type = "DiagnosticInput")] input: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Locale | null")] locale: JsValue,
) -> Result<String, JsValue> {
    call_text(Function::ExplainTool, &[(&input, "input"), (&name, "name"), (&locale, "locale")])
}

/// The tools whose static profile can run in a worker while the diagnostic's route blocks them.
#[wasm_bindgen(js_name = profileRouteDiff, unchecked_return_type = "ProfileRouteDiff[]")]
pub fn profile_route_diff(#[wasm_bindgen(unchecked_param_type = "RuntimeDiagnostic")] diagnostic: JsValue) -> Result<JsValue, JsValue> {
    call(Function::ProfileRouteDiff, &[(&diagnostic, "diagnostic")])
}

/// A tool manifest as Model Context Protocol `ToolAnnotations`.
#[wasm_bindgen(js_name = toMcpAnnotations, unchecked_return_type = "ToolAnnotations")]
pub fn to_mcp_annotations(#[wasm_bindgen(unchecked_param_type = "ToolSchema | ToolManifest")] manifest: JsValue) -> Result<JsValue, JsValue> {
    call(Function::ToMcpAnnotations, &[(&manifest, "manifest")])
}

/// Decides one tool call against the worker's policy and routes: where it runs, or why it is denied.
#[wasm_bindgen(js_name = checkToolCall, unchecked_return_type = "ToolCallCheck")]
pub fn check_tool_call(#[wasm_bindgen(unchecked_param_type = "CheckToolCallInput")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::CheckToolCall, &[(&input, "input")])
}

/// The catalog's toolsets, the default toolsets, the row's human and mirror fields, every vocabulary.
#[wasm_bindgen(js_name = catalogInfo, unchecked_return_type = "CatalogInfo")]
pub fn catalog_info(#[wasm_bindgen(unchecked_optional_param_type = "ToolSchema[] | null")] catalog: JsValue) -> Result<JsValue, JsValue> {
    call(Function::CatalogInfo, &[(&catalog, "catalog")])
}

/// The manifest of one tool, or `null` when the catalog has no such tool.
#[wasm_bindgen(js_name = getToolSchema, unchecked_return_type = "ToolManifest | null")]
pub fn get_tool_schema(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ToolSchema[] | null")] catalog: JsValue,
) -> Result<JsValue, JsValue> {
    call(Function::GetToolSchema, &[(&name, "name"), (&catalog, "catalog")])
}

/// The tools of one toolset, in catalog order.
#[wasm_bindgen(js_name = getToolNamesByToolset, unchecked_return_type = "string[]")]
pub fn get_tool_names_by_toolset(
    #[wasm_bindgen(unchecked_param_type = "string")] toolset: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ToolSchema[] | null")] catalog: JsValue,
) -> Result<JsValue, JsValue> {
    call(Function::GetToolNamesByToolset, &[(&toolset, "toolset"), (&catalog, "catalog")])
}

/// What the tool page shows for one row: protection, status, prompt hint, strategy.
#[wasm_bindgen(js_name = toolRowView, unchecked_return_type = "ToolRowView")]
pub fn tool_row_view(#[wasm_bindgen(unchecked_param_type = "ToolRowViewInput")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::ToolRowView, &[(&input, "input")])
}

/// The resolver's per-call input for an agent row and its model channel.
#[wasm_bindgen(js_name = agentResolveInput, unchecked_return_type = "AgentResolveInput")]
pub fn agent_resolve_input(#[wasm_bindgen(unchecked_param_type = "AgentResolveSource")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::AgentResolveInput, &[(&input, "input")])
}

/// An MCP tool as a catalog entry (proxied, never in a worker, writing unless read-only).
#[wasm_bindgen(js_name = fromMcpTool, unchecked_return_type = "ToolSchema")]
pub fn from_mcp_tool(#[wasm_bindgen(unchecked_param_type = "McpToolInput")] input: JsValue) -> Result<JsValue, JsValue> {
    call(Function::FromMcpTool, &[(&input, "input")])
}

/// The package version.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    api::version().to_string()
}

/// A catalog and its governance rows read once; `resolve` and `diagnose` then take only the per-call
/// inputs and answer byte-identically to `resolveTools` / `runtimeDiagnostic`.
#[wasm_bindgen(js_name = ToolPolicyEngine)]
pub struct ToolPolicyEngine {
    prepared: Prepared,
}

#[wasm_bindgen(js_class = ToolPolicyEngine)]
impl ToolPolicyEngine {
    /// Reads `{ catalog?, governance? }`.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_optional_param_type = "EngineOptions | null")] options: JsValue) -> Result<ToolPolicyEngine, JsValue> {
            let mut value = read(&options, "input")?;
        if value.is_null() {
            value = Value::Object(crate::json::Map::new());
        }
        Ok(ToolPolicyEngine { prepared: Prepared::new(&value).map_err(|e| invalid(&e))? })
    }

    /// `resolveTools` for this catalog and governance.
    #[wasm_bindgen(unchecked_return_type = "ResolveResult")]
    pub fn resolve(&self, #[wasm_bindgen(unchecked_param_type = "ResolveCallInput")] input: JsValue) -> Result<JsValue, JsValue> {
        engine_call(&self.prepared, &input, false)
    }

    /// `runtimeDiagnostic` for this catalog and governance.
    #[wasm_bindgen(unchecked_return_type = "RuntimeDiagnostic")]
    pub fn diagnose(&self, #[wasm_bindgen(unchecked_param_type = "DiagnosticCallInput")] input: JsValue) -> Result<JsValue, JsValue> {
        engine_call(&self.prepared, &input, true)
    }
}

/// `resolve` (or, with `diagnose`, `diagnose`) of a prepared engine: both exports share this code.
#[inline(never)]
fn engine_call(prepared: &Prepared, input: &JsValue, diagnose: bool) -> Result<JsValue, JsValue> {
    let value = read_input(input)?;
    answer(if diagnose { prepared.diagnose(&value).and_then(|r| crate::json::to_string(&r)) } else { prepared.resolve(&value).and_then(|r| crate::json::to_string(&r)) })
}
