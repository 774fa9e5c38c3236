//! The JavaScript bindings, one per row of the export table ([`crate::edge::exports`]): a thin layer
//! over [`crate::edge::api`]. Arguments cross as JSON text (written by `JSON.stringify`, passed as
//! wasm-bindgen passes a `String`), answers as JSON text (read by `JSON.parse`), so callers get plain
//! objects whose bytes equal the native answer, and nothing is left behind in wasm memory after a call.
//! The bindings use only wasm-bindgen's generated glue: no JavaScript of the package's own.

use crate::edge::api::{self, CallChecker, Function, Prepared};
use crate::error::Error;
use crate::value::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

// The answers' types (derived from the Rust types by tsify; `tests/types.rs` keeps the file equal to them).
#[wasm_bindgen(typescript_custom_section)]
const TS_OUTPUTS: &str = include_str!("types.ts");

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

/**
 * The reason codes of rules: `denied_by_rule` (`checkToolCall` with `rules`), `approval_required` (the
 * runtime's), `host_not_allowed` (`checkNetwork`: no `net(…)` rule allows the host).
 */
export type RuleReasonCode = "denied_by_rule" | "approval_required" | "host_not_allowed";

/**
 * A pattern: a tool (`read_file`, `mcp:github/*`), a command (`bash(git status)`, `bash(npm run test:*)`),
 * a path glob read or written (`read(**\/.env*)`, `write(.git/**)`), relative to each root or absolute,
 * or a host a sandbox connects to (`net(api.github.com)`, `net(*.npmjs.org:443)`, `net([::1]:8080)`).
 */
export type RulePattern = string;

/** The rules of one level: patterns by effect, and what an unmatched command or tool call gets. */
export interface LevelRulesInput {
  allow?: RulePattern[] | null;
  ask?: RulePattern[] | null;
  deny?: RulePattern[] | null;
  default?: Effect | null;
}

/**
 * Rules at three levels, narrowing only (deny over ask over allow, the strongest over every level), the
 * protected paths of every writable root (global; absent: `ruleDefaults().protectedPaths`), and the
 * session's approvals ("allow for this session"), which answer an `ask`, never a `deny`.
 */
export interface RulesInput {
  global?: (LevelRulesInput & { protectedPaths?: string[] | null }) | null;
  agent?: LevelRulesInput | null;
  session?: LevelRulesInput | null;
  approvals?: RulePattern[] | null;
}

/** The input of `checkToolCall`: the worker's policy and routes (from `runtimeDiagnostic`), one call. */
export interface CheckToolCallInput {
  policy: WorkerPolicy;
  routes: ToolRuntimeRoute[];
  call: ToolCall;
  catalog?: ToolSchema[] | null;
  rules?: RulesInput | null;
}

/** What `ToolCallChecker` holds: the worker's policy and routes (from `runtimeDiagnostic`) and the catalog. */
export interface ToolCallCheckerOptions {
  policy: WorkerPolicy;
  routes: ToolRuntimeRoute[];
  catalog?: ToolSchema[] | null;
  rules?: RulesInput | null;
}

/** The input of `checkRules`: the rules, the policy (its roots anchor paths), and one thing to try. */
export type CheckRulesInput = { rules?: RulesInput | null; policy?: WorkerPolicy | null } & (
  | { tool: string }
  | { command: string }
  | { read: string }
  | { write: string }
  | { net: string }
);

/**
 * The input of `checkNetwork`: the rules and one connection, a host name or IP literal (`example.org`,
 * `127.0.0.1`, `::1` or `[::1]`) and a port 1–65535.
 */
export interface CheckNetworkInput {
  rules?: RulesInput | null;
  host: string;
  port: number;
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

// The few JavaScript built-ins the bindings use, declared here rather than through `js-sys`.
#[wasm_bindgen]
extern "C" {
    /// A JavaScript `Error`.
    #[wasm_bindgen(js_name = Error)]
    type JsError;
    #[wasm_bindgen(constructor, js_class = Error)]
    fn new(message: &str) -> JsError;
    #[wasm_bindgen(method, setter)]
    fn set_code(this: &JsError, code: &str);
    // Strings, not `JsValue`s, come back from the two imports that may throw: a `catch` import whose
    // answer is a `JsValue` leaves that answer's externref slot behind when it throws.
    #[wasm_bindgen(method, getter, structural, catch)]
    fn message(this: &JsError) -> Result<Option<String>, JsValue>;
    /// `JSON.parse` of an answer (always JSON text).
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    fn json_parse(text: &str) -> Result<JsValue, JsValue>;
    /// `JSON.stringify` of an argument: a string, or `undefined` (a function or symbol alone); it
    /// throws on a cycle, a BigInt inside, or a throwing getter or Proxy trap.
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = stringify)]
    fn json_stringify(value: &JsValue) -> Result<Option<String>, JsValue>;
}

/// A JS `Error` with `code: 'invalid_input'`.
fn invalid(error: &Error) -> JsValue {
    let js = JsError::new(&error.message());
    js.set_code(Error::CODE);
    js.into()
}

/// The message of what `JSON.stringify` threw: an `Error`'s message, a thrown string, else empty.
fn thrown_message(thrown: &JsValue) -> String {
    match thrown.dyn_ref::<JsError>() {
        Some(error) => error.message().ok().flatten().unwrap_or_default(),
        None => thrown.as_string().unwrap_or_default(),
    }
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
        return Err(unreadable(path, &["cannot be read as JSON: got ", kind]));
    }
    let text = match json_stringify(value) {
        Ok(Some(text)) => text,
        Ok(None) => return Err(unreadable(path, &["cannot be read as JSON"])),
        Err(thrown) => return Err(stringify_threw(path, &thrown)),
    };
    crate::edge::read::parse_input(&text).map_err(|e| unreadable(path, &[e.what()]))
}

/// The error of an argument that cannot be read: `path: what`. Out of line, as every error path of
/// the reading (docs/architecture.md, "The first call").
#[cold]
#[inline(never)]
fn unreadable(path: &str, what: &[&str]) -> JsValue {
    invalid(&Error::invalid(path, crate::text::concat(what)))
}

/// The error of an argument whose `JSON.stringify` threw, with what it threw.
#[cold]
#[inline(never)]
fn stringify_threw(path: &str, thrown: &JsValue) -> JsValue {
    let why = thrown_message(thrown);
    unreadable(path, &["cannot be read as JSON (", if why.is_empty() { "JSON.stringify threw" } else { &why }, ")"])
}

/// The top-level object argument (`input` in error paths).
fn read_input(value: &JsValue) -> Result<Value, JsValue> {
    read(value, "input")
}

fn answer(result: Result<String, Error>) -> Result<JsValue, JsValue> {
    let text = result.map_err(|e| invalid(&e))?;
    json_parse(&text)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(text: &str);
}

/// Reports anything unexpected on the console — the panic's message and where it was raised — before
/// the module traps (installed once, on the first call). No input reaches a panic (the fuzz targets
/// hold that); this is for what nobody foresaw. It does what `console_error_panic_hook` does, without
/// its formatting of the whole `PanicHookInfo` and its `Error().stack` capture: measured on the
/// package's `.wasm`, that crate's hook adds 1,162 bytes gzip -9, this one 564 (of which about 390
/// is `std::panic::set_hook` itself, whatever the hook prints).
fn panic_hook() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if !INSTALLED.swap(true, Ordering::Relaxed) {
        std::panic::set_hook(Box::new(report_panic));
    }
}

fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    let mut text = String::from("@netaclaw/tool-policy panicked: ");
    let payload = info.payload();
    let message = payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    text.push_str(message.unwrap_or("(no message)"));
    if let Some(at) = info.location() {
        text.push_str(" at ");
        text.push_str(at.file());
        text.push(':');
        text.push_str(&crate::text::decimal(u64::from(at.line())));
    }
    console_error(&text);
}

/// Calls one exported function of [`api::call`] with its arguments read as JSON, each named by its
/// path in errors: every export goes through here, so the reading and the dispatch are compiled once.
#[inline(never)]
fn call(function: Function, args: &[(&JsValue, &str)]) -> Result<JsValue, JsValue> {
    panic_hook();
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

/// Every exported function of the export table as a `#[wasm_bindgen]` function (see `binding!`).
macro_rules! bindings {
    ($( $(#[$doc:meta])* $variant:ident $rust:ident $js:ident $kind:ident $ts:literal [$($p:ident $pjs:ident $attr:ident $pts:literal),*]; )*) => {
        $( binding!($(#[$doc])* $variant $rust $js $kind $ts [$($p $pjs $attr $pts),*]); )*
    };
}

/// One binding: its arguments read as JSON, each named by its JS name in errors, through [`call`].
macro_rules! binding {
    ($(#[$doc:meta])* $variant:ident $rust:ident $js:ident json $ts:literal [$($p:ident $pjs:ident $attr:ident $pts:literal),*]) => {
        $(#[$doc])*
        #[wasm_bindgen(js_name = $js, unchecked_return_type = $ts)]
        pub fn $rust($(#[wasm_bindgen(js_name = $pjs, $attr = $pts)] $p: JsValue),*) -> Result<JsValue, JsValue> {
            call(Function::$variant, &[$((&$p, stringify!($pjs))),*])
        }
    };
    ($(#[$doc:meta])* $variant:ident $rust:ident $js:ident text $ts:literal [$($p:ident $pjs:ident $attr:ident $pts:literal),*]) => {
        $(#[$doc])*
        #[wasm_bindgen(js_name = $js)]
        pub fn $rust($(#[wasm_bindgen(js_name = $pjs, $attr = $pts)] $p: JsValue),*) -> Result<String, JsValue> {
            call_text(Function::$variant, &[$((&$p, stringify!($pjs))),*])
        }
    };
    ($(#[$doc:meta])* $variant:ident $rust:ident $js:ident version $ts:literal []) => {
        $(#[$doc])*
        #[wasm_bindgen(js_name = $js)]
        pub fn $rust() -> String {
            api::version().to_string()
        }
    };
}

crate::edge::exports::export_table!(bindings);

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
        panic_hook();
        let mut value = read(&options, "input")?;
        if value.is_null() {
            value = Value::Object(crate::value::Map::new());
        }
        Ok(ToolPolicyEngine { prepared: Prepared::new(&value).map_err(|e| invalid(&e))? })
    }

    /// `resolveTools` for this catalog and governance.
    #[wasm_bindgen(unchecked_return_type = "ResolveResult")]
    pub fn resolve(&self, #[wasm_bindgen(unchecked_param_type = "ResolveCallInput")] input: JsValue) -> Result<JsValue, JsValue> {
        engine_call(&self.prepared, &input, EngineCall::Resolve)
    }

    /// `runtimeDiagnostic` for this catalog and governance.
    #[wasm_bindgen(unchecked_return_type = "RuntimeDiagnostic")]
    pub fn diagnose(&self, #[wasm_bindgen(unchecked_param_type = "DiagnosticCallInput")] input: JsValue) -> Result<JsValue, JsValue> {
        engine_call(&self.prepared, &input, EngineCall::Diagnose)
    }

    /// `runtimeDiagnostic` less its static part, `profiles` (the same for every call of this engine:
    /// `profiles()` gives it once). Byte-identical to `diagnose` without that key.
    #[wasm_bindgen(js_name = diagnoseRoutes, unchecked_return_type = "Omit<RuntimeDiagnostic, \"profiles\">")]
    pub fn diagnose_routes(&self, #[wasm_bindgen(unchecked_param_type = "DiagnosticCallInput")] input: JsValue) -> Result<JsValue, JsValue> {
        engine_call(&self.prepared, &input, EngineCall::DiagnoseRoutes)
    }

    /// The manifest of every catalog tool: the `profiles` of every diagnostic of this engine.
    #[wasm_bindgen(unchecked_return_type = "ToolManifest[]")]
    pub fn profiles(&self) -> Result<JsValue, JsValue> {
        answer(crate::json::to_string(self.prepared.profiles()))
    }
}

/// What an engine call answers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EngineCall {
    Resolve,
    Diagnose,
    DiagnoseRoutes,
}

/// A method of a prepared engine taking the per-call input: every method shares this code.
#[inline(never)]
fn engine_call(prepared: &Prepared, input: &JsValue, call: EngineCall) -> Result<JsValue, JsValue> {
    let value = read_input(input)?;
    answer(match call {
        EngineCall::Resolve => prepared.resolve(&value).and_then(|r| crate::json::to_string(&r)),
        EngineCall::Diagnose => prepared.diagnose_json(&value, false),
        EngineCall::DiagnoseRoutes => prepared.diagnose_routes(&value),
    })
}

/// A worker's policy and routes (and the catalog) read once: `check(call)` answers what
/// `checkToolCall({ policy, routes, catalog, call })` answers, byte for byte, without reading them again.
#[wasm_bindgen(js_name = ToolCallChecker)]
pub struct ToolCallChecker {
    checker: CallChecker,
}

#[wasm_bindgen(js_class = ToolCallChecker)]
impl ToolCallChecker {
    /// Reads `{ policy, routes, catalog? }` as `checkToolCall` reads them.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "ToolCallCheckerOptions")] options: JsValue) -> Result<ToolCallChecker, JsValue> {
        panic_hook();
        let value = read_input(&options)?;
        Ok(ToolCallChecker { checker: CallChecker::new(&value).map_err(|e| invalid(&e))? })
    }

    /// Decides one call `{ name, arguments }`.
    #[wasm_bindgen(unchecked_return_type = "ToolCallCheck")]
    pub fn check(&self, #[wasm_bindgen(unchecked_param_type = "ToolCall")] call: JsValue) -> Result<JsValue, JsValue> {
        let value = read(&call, "call")?;
        answer(self.checker.check_call(Some(&value)))
    }

    /// Decides a call of `name` whose arguments are the JSON text the model sent (no `JSON.parse` or
    /// `JSON.stringify` needed; empty or blank text is `{}`); text that is not JSON is a denied call,
    /// `invalid_tool_arguments`. The answer carries the `arguments` read, the value to run.
    /// Both strings cross as wasm-bindgen passes strings (UTF-8; a lone surrogate becomes U+FFFD).
    #[wasm_bindgen(js_name = checkText, unchecked_return_type = "ToolCallCheck")]
    pub fn check_text(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(js_name = argumentsJson, unchecked_param_type = "string")] arguments: JsValue,
    ) -> Result<JsValue, JsValue> {
        let expected = |path: &str| invalid(&Error::invalid(path, "expected a string"));
        let name = name.as_string().ok_or_else(|| expected("name"))?;
        let arguments = arguments.as_string().ok_or_else(|| expected("argumentsJson"))?;
        answer(self.checker.check_text(&name, &arguments))
    }
}
