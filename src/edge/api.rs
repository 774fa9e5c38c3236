//! The JSON API: every exported function of SPEC §5 and §7 taking JSON values and answering the exact
//! JSON the JavaScript package returns. The wasm bindings, the golden vectors and the CLI all go
//! through here, so every runtime gives the same bytes.

use crate::diagnostic::{runtime_diagnostic_with, DiagnosticOptions, RuntimeDiagnostic};
pub use crate::edge::exports::{Answer, Export, Function, Param, EXPORTS};
use crate::edge::input;
use crate::edge::json;
use crate::edge::read::{field, limits, object, string};
use crate::error::Error;
use crate::explain::{explain_tool, profile_route_diff};
use crate::governance::{resolve_tools, Governance, ResolveResult};
use crate::labels::{label, labels, parse_locale};
use crate::manifest::{tool_manifest, Catalog};
use crate::mcp::to_mcp_annotations;
use crate::path::Path;
use crate::projection::project_runtime_policy;
use crate::registry::{sync_catalog, validate_tool_update};
use crate::trace::{traced_projection, traced_resolve, CatalogSources};
use crate::value::{Map, Value};
use crate::worker_policy::{build_bounded_worker_policy, build_subprocess_worker_policy};
use crate::{catalog, guidance};

const ROOT: Path<'static> = Path::Root("");

/// The top-level object of an object input (`input` in errors when it is not one).
fn top(value: &Value) -> Result<&Map<String, Value>, Error> {
    object(value, &ROOT)
}

/// A catalog and its governance rows, read and indexed once (`ToolPolicyEngine`).
#[derive(Clone, Debug)]
pub struct Prepared {
    catalog: Catalog,
    governance: Governance,
    /// Where each catalog entry came from, for traces.
    sources: CatalogSources,
}

impl Prepared {
    /// Reads `{ catalog?, governance? }` (the fields of any object input; other fields are ignored).
    pub fn new(value: &Value) -> Result<Prepared, Error> {
        let map = top(value)?;
        let (catalog, sources) = input::catalog_with_sources(field(map, "catalog"), &ROOT.key("catalog"))?;
        let governance = input::governance(field(map, "governance"), &ROOT.key("governance"), &catalog)?;
        Ok(Prepared { catalog, governance, sources })
    }

    /// The prepared catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// `resolveTools` with this catalog and governance (`catalog`/`governance` in `value` are ignored).
    pub fn resolve(&self, value: &Value) -> Result<ResolveResult, Error> {
        let map = top(value)?;
        let resolve_input = input::resolve_input(map, &ROOT)?;
        if input::trace_flag(map, &ROOT)? {
            return Ok(traced_resolve(&self.catalog, &self.governance, &self.sources, &resolve_input));
        }
        Ok(resolve_tools(&self.catalog, &self.governance, &resolve_input))
    }

    /// `runtimeDiagnostic` with this catalog and governance.
    pub fn diagnose(&self, value: &Value) -> Result<RuntimeDiagnostic<'_>, Error> {
        self.diagnose_traced(value, false)
    }

    /// The catalog's manifests: the static part of every diagnostic of this engine (its `profiles`).
    pub fn profiles(&self) -> &Vec<crate::manifest::ToolManifest> {
        self.catalog.manifests()
    }

    /// `runtimeDiagnostic` without `profiles` ([`Prepared::profiles`] hands them back once), as JSON.
    pub fn diagnose_routes(&self, value: &Value) -> Result<String, Error> {
        self.diagnose_json(value, true)
    }

    /// `runtimeDiagnostic` (without `profiles` when `without_profiles`) as JSON.
    pub fn diagnose_json(&self, value: &Value, without_profiles: bool) -> Result<String, Error> {
        let d = self.diagnose_with(value, false, without_profiles)?;
        if without_profiles {
            json::to_string(&d.routes_only())
        } else {
            json::to_string(&d)
        }
    }

    /// `runtimeDiagnostic`, traced when `force_trace` or the input's `trace` asks for it.
    fn diagnose_traced(&self, value: &Value, force_trace: bool) -> Result<RuntimeDiagnostic<'_>, Error> {
        self.diagnose_with(value, force_trace, false)
    }

    fn diagnose_with(&self, value: &Value, force_trace: bool, without_profiles: bool) -> Result<RuntimeDiagnostic<'_>, Error> {
        let map = top(value)?;
        let (mut diagnostic_input, roots) = input::diagnostic_input(map, &ROOT)?;
        let trace = input::trace_flag(map, &ROOT)? || force_trace;
        let parent = input::parent_policy(map, &ROOT)?;
        (diagnostic_input.session_cwd, diagnostic_input.workspace_roots) = roots.normalize()?;
        let options = DiagnosticOptions { parent: parent.as_ref(), trace: trace.then_some(&self.sources), without_profiles };
        Ok(runtime_diagnostic_with(&self.catalog, &self.governance, &diagnostic_input, &options))
    }

    /// `explainTool` with this catalog and governance.
    pub fn explain(&self, value: &Value, name: &str, locale: crate::labels::Locale) -> Result<String, Error> {
        Ok(explain_tool(&self.diagnose_traced(value, true)?, name, locale))
    }
}

/// `builtinCatalog()`.
pub fn builtin_catalog() -> Result<String, Error> {
    json::to_string(&catalog::builtin_catalog())
}

/// `toolManifest(schema)`.
pub fn tool_manifest_json(schema: &Value) -> Result<String, Error> {
    json::to_string(&tool_manifest(&input::schema(schema, &Path::Root("schema"))?))
}

/// `resolveTools(input)`.
pub fn resolve_tools_json(value: &Value) -> Result<String, Error> {
    json::to_string(&Prepared::new(value)?.resolve(value)?)
}

/// `runtimeDiagnostic(input)`.
pub fn runtime_diagnostic_json(value: &Value) -> Result<String, Error> {
    Prepared::new(value)?.diagnose_json(value, false)
}

/// `buildSubprocessWorkerPolicy(input)`.
pub fn build_subprocess_worker_policy_json(value: &Value) -> Result<String, Error> {
    let map = top(value)?;
    let catalog = input::catalog(field(map, "catalog"), &ROOT.key("catalog"))?;
    let (mut policy_input, roots) = input::worker_policy_input(map, &ROOT)?;
    let parent = input::parent_policy(map, &ROOT)?;
    (policy_input.session_cwd, policy_input.workspace_roots) = roots.normalize()?;
    match parent {
        Some(parent) => json::to_string(&build_bounded_worker_policy(&catalog, &policy_input, &parent)),
        None => json::to_string(&build_subprocess_worker_policy(&catalog, &policy_input)),
    }
}

/// `projectRuntimePolicy(input)`.
pub fn project_runtime_policy_json(value: &Value) -> Result<String, Error> {
    let map = top(value)?;
    let (catalog, sources) = input::catalog_with_sources(field(map, "catalog"), &ROOT.key("catalog"))?;
    let policy_value = map.get("policy").filter(|v| !v.is_null()).ok_or_else(|| ROOT.key("policy").error("is required"))?;
    let policy = input::route_policy(policy_value, &ROOT.key("policy"))?;
    let projection_input = input::projection_input(map, &ROOT, &catalog)?;
    if input::trace_flag(map, &ROOT)? {
        let names = input::names(map.get("selectedTools").unwrap_or(&Value::Null), &ROOT.key("selectedTools"))?;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        return json::to_string(&traced_projection(&catalog, &sources, policy, &projection_input, &names));
    }
    json::to_string(&project_runtime_policy(&catalog, policy, &projection_input))
}

/// `syncCatalog(catalog, rows)`.
pub fn sync_catalog_json(catalog_value: &Value, rows: &Value) -> Result<String, Error> {
    let catalog = input::catalog(Some(catalog_value), &Path::Root("catalog"))?;
    let rows = input::sync_rows(rows, &Path::Root("rows"))?;
    json::to_string(&sync_catalog(&catalog, &rows))
}

/// `validateToolUpdate({ row, patch, catalog? })`.
pub fn validate_tool_update_json(value: &Value) -> Result<String, Error> {
    let map = top(value)?;
    let catalog = input::catalog(field(map, "catalog"), &ROOT.key("catalog"))?;
    let row = input::plain_object(field(map, "row"), &ROOT.key("row"))?;
    let name = string(row.get("name").unwrap_or(&Value::Null), &ROOT.key("row").key("name"), 0, limits::MAX_TEXT)?.to_string();
    let patch = input::plain_object(field(map, "patch"), &ROOT.key("patch"))?;
    json::to_string(&validate_tool_update(&catalog, &row, &name, &patch))
}

/// `toolBehaviorGuidance(toolNames, toolPromptHints?)`.
pub fn tool_behavior_guidance_json(tool_names: &Value, hints: Option<&Value>) -> Result<String, Error> {
    let names = input::names(tool_names, &Path::Root("toolNames"))?;
    let hints = input::hints(hints, &Path::Root("toolPromptHints"))?;
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    json::to_string(&guidance::tool_behavior_guidance(&refs, hints.as_ref()))
}

fn locale_arg(value: Option<&Value>) -> Result<crate::labels::Locale, Error> {
    match value.filter(|v| !v.is_null()) {
        None => parse_locale(None),
        Some(v) => parse_locale(Some(string(v, &Path::Root("locale"), 0, 64)?)),
    }
}

/// `labels(locale?)`.
pub fn labels_json(locale: Option<&Value>) -> Result<String, Error> {
    json::to_string(&labels(locale_arg(locale)?))
}

/// `label(group, code, locale?)`.
pub fn label_json(group: &Value, code: &Value, locale: Option<&Value>) -> Result<String, Error> {
    let group = string(group, &Path::Root("group"), 0, 64)?;
    let code = string(code, &Path::Root("code"), 0, 64)?;
    json::to_string(label(group, code, locale_arg(locale)?)?)
}

/// `explainTool(input, name, locale?)`: one paragraph on one tool of the diagnostic of `input`.
pub fn explain_tool_json(value: &Value, name: &Value, locale: Option<&Value>) -> Result<String, Error> {
    let prepared = Prepared::new(value)?;
    let name = string(name, &Path::Root("name"), 1, limits::MAX_NAME)?;
    let locale = locale_arg(locale)?;
    json::to_string(&prepared.explain(value, name, locale)?)
}

/// `profileRouteDiff(diagnostic)`.
pub fn profile_route_diff_json(diagnostic: &Value) -> Result<String, Error> {
    let (profiles, routes) = input::diff_input(diagnostic, &Path::Root("diagnostic"))?;
    json::to_string(&profile_route_diff(&profiles, &routes))
}

/// `toMcpAnnotations(manifest)`: a manifest (or any schema, resolved first) as MCP `ToolAnnotations`.
pub fn to_mcp_annotations_json(manifest: &Value) -> Result<String, Error> {
    json::to_string(&to_mcp_annotations(&tool_manifest(&input::schema(manifest, &Path::Root("manifest"))?)))
}

/// `checkToolCall({ policy, routes, call: { name, arguments }, catalog? })`.
pub fn check_tool_call_json(value: &Value) -> Result<String, Error> {
    json::to_string(&check_tool_call_decision(value)?)
}

/// [`check_tool_call_json`]'s decision, before it is printed.
pub fn check_tool_call_decision(value: &Value) -> Result<crate::call::ToolCallCheck, Error> {
    CallChecker::read(value, false)?.decide_call(field(top(value)?, "call"))
}

/// A worker's policy and routes read once, with the catalog and every tool's parameter schema checked
/// once (`ToolCallChecker`): each call is then decided with no reading of anything but the call, and
/// answered byte-identically to `checkToolCall` with the same policy, routes and catalog.
#[derive(Clone, Debug)]
pub struct CallChecker {
    catalog: Catalog,
    policy: crate::worker_policy::WorkerPolicy,
    routes: Vec<crate::explain::DynamicRoute>,
    /// The position in `routes` of each catalog tool's route, by the tool's position (`usize::MAX`: none).
    route_at: Vec<usize>,
    /// Whether each catalog tool's `parameters` schema is valid, by position; empty when checked per call.
    schemas_valid: Vec<bool>,
    /// The rules (`rules`), parsed once; `None`: decided as without rules.
    rules: Option<crate::rules::Rules>,
}

impl CallChecker {
    /// Reads `{ policy, routes, catalog? }` (other fields are ignored), as `checkToolCall` reads them.
    pub fn new(value: &Value) -> Result<CallChecker, Error> {
        CallChecker::read(value, true)
    }

    fn read(value: &Value, prepare: bool) -> Result<CallChecker, Error> {
        let map = top(value)?;
        let catalog = input::catalog(field(map, "catalog"), &ROOT.key("catalog"))?;
        let policy_path = ROOT.key("policy");
        let policy = input::worker_policy(field(map, "policy").ok_or_else(|| policy_path.error("is required"))?, &policy_path)?;
        // Each route names a catalog tool, once.
        let mut route_at = vec![usize::MAX; catalog.tools().len()];
        let routes = input::dynamic_routes(map, &ROOT, &mut |i, name| {
            let at = catalog.position(name).ok_or("no tool of the catalog is named ")?;
            match route_at.get_mut(at) {
                Some(r) if *r == usize::MAX => {
                    *r = i;
                    Ok(())
                }
                _ => Err("duplicate route name "),
            }
        })?;
        let mut schemas_valid = Vec::new();
        for tool in catalog.tools().iter().filter(|_| prepare) {
            schemas_valid.push(crate::call::schema_is_valid(tool));
        }
        let rules = input::rules(field(map, "rules"), &ROOT.key("rules"))?;
        Ok(CallChecker { catalog, policy, routes, route_at, schemas_valid, rules })
    }

    /// Decides a call of `name` with these arguments (absent: `null`).
    pub fn check(&self, name: &str, arguments: Option<&Value>) -> crate::call::ToolCallCheck {
        let at = self.catalog.position(name);
        let tool = at.and_then(|at| self.catalog.tools().get(at));
        // Every route names a catalog tool: a name not in the catalog has none.
        let route = at.and_then(|at| self.route_at.get(at)).and_then(|r| self.routes.get(*r));
        let schema_valid = at.and_then(|at| self.schemas_valid.get(at)).is_some_and(|v| *v);
        let check = crate::call::check_tool_call_with(name, tool, route, &self.policy, arguments, schema_valid);
        match &self.rules {
            Some(rules) => crate::ruling::apply(check, rules, name, arguments, &self.policy),
            None => check,
        }
    }

    /// Reads the call `{ name, arguments }` (named `call` in errors) and answers its decision as JSON.
    pub fn check_call(&self, call: Option<&Value>) -> Result<String, Error> {
        json::to_string(&self.decide_call(call)?)
    }

    /// [`CallChecker::check_call`]'s decision, before it is printed.
    pub fn decide_call(&self, call: Option<&Value>) -> Result<crate::call::ToolCallCheck, Error> {
        let call_path = ROOT.key("call");
        let call = object(call.ok_or_else(|| call_path.error("is required"))?, &call_path)?;
        let name = string(call.get("name").unwrap_or(&Value::Null), &call_path.key("name"), 0, usize::MAX)?;
        Ok(self.check(name, call.get("arguments")))
    }

    /// Decides a call whose arguments are the JSON text the model sent, as `check` decides the call
    /// with the arguments `JSON.parse` reads from that text; an empty text, or one of JSON whitespace
    /// only, reads as `{}` (a call without arguments). The answer carries those `arguments`, the value
    /// decided on. Text that is not JSON (or longer than the input limit, 32 MiB) is a denied call,
    /// `invalid_tool_arguments`, without `arguments`.
    pub fn check_text(&self, name: &str, arguments: &str) -> Result<String, Error> {
        json::to_string(&self.decide_text(name, arguments))
    }

    /// [`CallChecker::check_text`]'s decision, before it is printed.
    pub fn decide_text(&self, name: &str, arguments: &str) -> crate::call::ToolCallCheck {
        // Blank text within the limit is `{}`; longer text is refused by the reader, blank or not.
        let blank = arguments.len() <= limits::MAX_INPUT_BYTES && arguments.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        match crate::edge::read::parse_input(if blank { "{}" } else { arguments }) {
            Ok(value) => {
                let mut check = self.check(name, Some(&value));
                check.arguments = Some(value);
                check
            }
            Err(_) => crate::call::deny(crate::vocab::ReasonCode::InvalidToolArguments, "arguments: is not valid JSON (or longer than 32 MiB)".into()),
        }
    }
}

/// `catalogInfo(catalog?)`.
pub fn catalog_info_json(catalog: Option<&Value>) -> Result<String, Error> {
    json::to_string(&crate::info::catalog_info(&input::catalog(catalog, &Path::Root("catalog"))?))
}

/// `getToolSchema(name, catalog?)`: the manifest, or `null`.
pub fn get_tool_schema_json(name: &Value, catalog: Option<&Value>) -> Result<String, Error> {
    let name = string(name, &Path::Root("name"), 0, usize::MAX)?;
    json::to_string(&input::catalog(catalog, &Path::Root("catalog"))?.get(name))
}

/// `getToolNamesByToolset(toolset, catalog?)`.
pub fn get_tool_names_by_toolset_json(toolset: &Value, catalog: Option<&Value>) -> Result<String, Error> {
    let toolset = string(toolset, &Path::Root("toolset"), 0, usize::MAX)?;
    json::to_string(&crate::info::tools_of(&input::catalog(catalog, &Path::Root("catalog"))?, toolset))
}

/// `toolRowView({ row, catalog? })`.
pub fn tool_row_view_json(value: &Value) -> Result<String, Error> {
    let map = top(value)?;
    let catalog = input::catalog(field(map, "catalog"), &ROOT.key("catalog"))?;
    let row_path = ROOT.key("row");
    let row_value = field(map, "row").ok_or_else(|| row_path.error("is required"))?;
    let row = object(row_value, &row_path)?;
    let name = string(row.get("name").unwrap_or(&Value::Null), &row_path.key("name"), 1, limits::MAX_NAME)?;
    let policy = input::row_policy(row_value, name, &row_path)?;
    json::to_string(&crate::info::tool_row_view(&catalog, row, &policy))
}

/// `agentResolveInput({ agent, channel?, crewRole? })`.
pub fn agent_resolve_input_json(value: &Value) -> Result<String, Error> {
    json::to_string(&input::agent_resolve_input(top(value)?, &ROOT)?)
}

/// `fromMcpTool({ server, tool })`.
pub fn from_mcp_tool_json(value: &Value) -> Result<String, Error> {
    json::to_string(&input::mcp_tool(top(value)?, &ROOT)?)
}

/// `checkRules({ rules?, policy?, tool? | command? | read? | write? | net? })`: the "try it" answer.
pub fn check_rules_json(value: &Value) -> Result<String, Error> {
    let (rules, trial, policy) = input::rule_trial(top(value)?, &ROOT)?;
    json::to_string(&crate::ruling::check_rules(&rules, &trial, &policy))
}

/// `checkNetwork({ rules?, host, port })`: whether a sandbox may connect.
pub fn check_network_json(value: &Value) -> Result<String, Error> {
    let (rules, host, port) = input::network_trial(top(value)?, &ROOT)?;
    json::to_string(&crate::ruling::check_network(&rules, &host, port))
}

/// `ruleDefaults()`: what the rules editor offers.
pub fn rule_defaults_json() -> Result<String, Error> {
    json::to_string(&crate::rules::rule_defaults())
}

/// `version()`.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Calls an exported function by its JS name with positional JSON arguments (golden vectors, CLI).
pub fn call(function: &str, args: &[Value]) -> Result<String, Error> {
    match Function::parse(function) {
        Some(f) => call_function(f, args),
        None => Err(Error::invalid("function", crate::text::concat(&["unknown function ", &crate::text::quote(function)]))),
    }
}

/// Calls one exported function with positional JSON arguments (the WebAssembly exports call it
/// without the names).
pub fn call_function(function: Function, args: &[Value]) -> Result<String, Error> {
    let arg = |i: usize| args.get(i).unwrap_or(&Value::Null);
    let opt = |i: usize| args.get(i).filter(|v| !v.is_null());
    match function {
        Function::BuiltinCatalog => builtin_catalog(),
        Function::ToolManifest => tool_manifest_json(arg(0)),
        Function::ResolveTools => resolve_tools_json(arg(0)),
        Function::BuildSubprocessWorkerPolicy => build_subprocess_worker_policy_json(arg(0)),
        Function::ProjectRuntimePolicy => project_runtime_policy_json(arg(0)),
        Function::RuntimeDiagnostic => runtime_diagnostic_json(arg(0)),
        Function::SyncCatalog => sync_catalog_json(arg(0), arg(1)),
        Function::ValidateToolUpdate => validate_tool_update_json(arg(0)),
        Function::ToolBehaviorGuidance => tool_behavior_guidance_json(arg(0), opt(1)),
        Function::Labels => labels_json(opt(0)),
        Function::Label => label_json(arg(0), arg(1), opt(2)),
        Function::Version => json::to_string(version()),
        Function::ExplainTool => explain_tool_json(arg(0), arg(1), opt(2)),
        Function::ProfileRouteDiff => profile_route_diff_json(arg(0)),
        Function::ToMcpAnnotations => to_mcp_annotations_json(arg(0)),
        Function::CheckToolCall => check_tool_call_json(arg(0)),
        Function::CatalogInfo => catalog_info_json(opt(0)),
        Function::GetToolSchema => get_tool_schema_json(arg(0), opt(1)),
        Function::GetToolNamesByToolset => get_tool_names_by_toolset_json(arg(0), opt(1)),
        Function::ToolRowView => tool_row_view_json(arg(0)),
        Function::AgentResolveInput => agent_resolve_input_json(arg(0)),
        Function::FromMcpTool => from_mcp_tool_json(arg(0)),
        Function::CheckRules => check_rules_json(arg(0)),
        Function::RuleDefaults => rule_defaults_json(),
        Function::CheckNetwork => check_network_json(arg(0)),
    }
}
