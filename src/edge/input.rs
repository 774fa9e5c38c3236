//! Reading JSON input into the core's types, once, at the edge. Every error names the offending path.

use crate::catalog::ToolSchema;
use crate::diagnostic::DiagnosticInput;
use crate::edge::json;
use crate::edge::read::{array, boolean, check_len, enum_value, field, limits, name_list, object, string};
use crate::error::Error;
use crate::governance::{AgentToolConfig, Governance, ResolveInput, RowPolicy};
use crate::manifest::{Catalog, DuplicateTool};
use crate::path::Path;
use crate::projection::ProjectionInput;
use crate::projection::RoutePolicy;
use crate::value::type_name;
use crate::value::{Map, Value};
use crate::vocab::{Capability, CrewRole, ExecutionMode, ReasonCode, RoutingStrategy, ToolKind, Visibility, WorkerRoutingHint};
use crate::worker_policy::{first_occurrences, Root, WorkerPolicy, WorkerPolicyInput};

macro_rules! opt_enum {
    ($map:expr, $path:expr, $key:literal, $ty:ty) => {
        match field($map, $key) {
            None => None,
            Some(v) => Some(enum_value(v, &$path.key($key), <$ty>::parse, <$ty>::NAMES)?),
        }
    };
}

pub fn opt_bool(map: &Map<String, Value>, path: &Path, key: &str) -> Result<Option<bool>, Error> {
    field(map, key).map(|v| boolean(v, &path.key(key))).transpose()
}

fn flag(map: &Map<String, Value>, path: &Path, key: &str) -> Result<bool, Error> {
    Ok(opt_bool(map, path, key)?.unwrap_or(false))
}

fn owned(names: Option<Vec<&str>>) -> Option<Vec<String>> {
    names.map(|n| n.into_iter().map(str::to_string).collect())
}

/// One `ToolSchema`.
pub fn schema(value: &Value, path: &Path) -> Result<ToolSchema, Error> {
    let map = object(value, path)?;
    let name = string(map.get("name").unwrap_or(&Value::Null), &path.key("name"), 1, limits::MAX_NAME)?;
    let toolset = string(map.get("toolset").unwrap_or(&Value::Null), &path.key("toolset"), 1, limits::MAX_TOOLSET)?;
    let description = field(map, "description").map(|v| string(v, &path.key("description"), 0, limits::MAX_TEXT)).transpose()?;
    Ok(ToolSchema {
        name: name.to_string(),
        toolset: toolset.to_string(),
        description: description.map(str::to_string),
        visibility: opt_enum!(map, path, "visibility", Visibility),
        capability: opt_enum!(map, path, "capability", Capability),
        is_core: opt_bool(map, path, "isCore")?,
        can_disable: opt_bool(map, path, "canDisable")?,
        supports_prompt_hint: opt_bool(map, path, "supportsPromptHint")?,
        kind: opt_enum!(map, path, "kind", ToolKind),
        execution_mode: opt_enum!(map, path, "executionMode", ExecutionMode),
        supported_in_worker: opt_bool(map, path, "supportedInWorker")?,
        worker_routing_hint: opt_enum!(map, path, "workerRoutingHint", WorkerRoutingHint),
        requires_shell: opt_bool(map, path, "requiresShell")?,
        requires_write: opt_bool(map, path, "requiresWrite")?,
        requires_skill_scope: opt_bool(map, path, "requiresSkillScope")?,
        requires_workspace_root: opt_bool(map, path, "requiresWorkspaceRoot")?,
        parameters: match field(map, "parameters") {
            None => None,
            Some(v) => {
                object(v, &path.key("parameters"))?;
                Some(v.clone().into())
            }
        },
        unusable_reason: None,
    })
}

/// A catalog: absent or `null` = the builtin catalog.
pub fn catalog(value: Option<&Value>, path: &Path) -> Result<Catalog, Error> {
    Ok(catalog_with_sources(value, path)?.0)
}

/// Checks a list of row-like objects for a string `name` each, distinct; returns the names.
fn row_names<'v>(items: &'v [Value], path: &Path) -> Result<Vec<&'v str>, Error> {
    let mut names = Vec::with_capacity(items.len());
    let mut failure = None;
    for (i, item) in items.iter().enumerate() {
        let item_path = path.index(i);
        let name = object(item, &item_path).and_then(|map| string(map.get("name").unwrap_or(&Value::Null), &item_path.key("name"), 1, limits::MAX_NAME));
        match name {
            Ok(name) => names.push(name),
            Err(error) => {
                failure = Some(error);
                break;
            }
        }
    }
    // The first error by position: a repeated name before the first invalid row.
    if let Some((i, first)) = crate::names::first_duplicate(crate::names::positions(&names)) {
        let mut what = String::from("duplicate row name ");
        what.push_str(&crate::text::quote(names.get(i).copied().unwrap_or_default()));
        what.push_str(" (also ");
        what.push_str(&path.render());
        what.push('[');
        what.push_str(&crate::text::decimal(first as u64));
        what.push_str("].name)");
        return Err(path.index(i).key("name").error(what));
    }
    match failure {
        Some(error) => Err(error),
        None => Ok(names),
    }
}

/// One governance row as the resolver reads it. `status` must be 0, 1, a boolean, or null.
pub fn row_policy(value: &Value, name: &str, path: &Path) -> Result<RowPolicy, Error> {
    let map = object(value, path)?;
    let enabled = match field(map, "status") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(v) if v.as_f64() == Some(1.0) => true,
        Some(v) if v.as_f64() == Some(0.0) => false,
        Some(v) => return Err(path.key("status").error(crate::text::concat(&["expected 0 or 1, got ", &short(v)]))),
    };
    let prompt_hint = match field(map, "promptHint") {
        None => None,
        Some(v) => Some(string(v, &path.key("promptHint"), 0, limits::MAX_TEXT)?.trim()).filter(|h| !h.is_empty()).map(str::to_string),
    };
    let strategy = opt_enum!(map, path, "workerRoutingStrategy", RoutingStrategy).unwrap_or(RoutingStrategy::Auto);
    Ok(RowPolicy { name: name.to_string(), enabled, prompt_hint, strategy })
}

fn short(value: &Value) -> String {
    match value {
        // As JavaScript prints them (the value the caller passed).
        Value::Number(_) | Value::Bool(_) => json::to_string(value).unwrap_or_default(),
        Value::String(s) if crate::text::scalar_count(s, 41) <= 40 => crate::text::quote(s),
        other => type_name(other).to_string(),
    }
}

/// Governance rows lined up with `catalog` (absent or `null` = none).
#[inline]
pub fn governance(value: Option<&Value>, path: &Path, catalog: &Catalog) -> Result<Governance, Error> {
    match value.filter(|v| !v.is_null()) {
        None => Ok(Governance::default()),
        Some(value) => governance_of(value, path, catalog),
    }
}

/// Governance rows given (out of line).
#[inline(never)]
fn governance_of(value: &Value, path: &Path, catalog: &Catalog) -> Result<Governance, Error> {
    let items = array(value, path)?;
    let names = row_names(items, path)?;
    let mut rows = Vec::with_capacity(items.len());
    for (i, (item, name)) in items.iter().zip(names).enumerate() {
        rows.push(row_policy(item, name, &path.index(i))?);
    }
    Ok(Governance::new(catalog, rows))
}

/// `AgentToolConfig` (absent or `null` = none).
#[inline]
pub fn agent(value: Option<&Value>, path: &Path) -> Result<Option<AgentToolConfig>, Error> {
    match value {
        None => Ok(None),
        Some(value) => agent_of(value, path).map(Some),
    }
}

/// An agent given (out of line, as every reader of an optional field: docs/architecture.md, "The first call").
#[inline(never)]
fn agent_of(value: &Value, path: &Path) -> Result<AgentToolConfig, Error> {
    let map = object(value, path)?;
    let toolsets = owned(name_list(field(map, "toolsets"), &path.key("toolsets"), limits::MAX_TOOLSET)?);
    let disabled = match field(map, "tools") {
        None => Vec::new(),
        Some(tools) => {
            let tools_path = path.key("tools");
            let tools_map = object(tools, &tools_path)?;
            owned(name_list(field(tools_map, "disabled"), &tools_path.key("disabled"), limits::MAX_NAME)?).unwrap_or_default()
        }
    };
    Ok(AgentToolConfig { toolsets, disabled })
}

/// The per-call fields of the resolver's input (everything but `catalog` and `governance`).
pub fn resolve_input(map: &Map<String, Value>, path: &Path) -> Result<ResolveInput, Error> {
    Ok(ResolveInput {
        agent: agent(field(map, "agent"), &path.key("agent"))?,
        model_capability: opt_enum!(map, path, "modelCapability", Capability),
        memory_enabled: flag(map, path, "memoryEnabled")?,
        has_skills: flag(map, path, "hasSkills")?,
        crew_role: opt_enum!(map, path, "crewRole", CrewRole),
        toolset_defaults: owned(name_list(field(map, "toolsetDefaults"), &path.key("toolsetDefaults"), limits::MAX_TOOLSET)?),
    })
}

/// `sessionCwd` and `workspaceRoots` as given, before they are normalized ([`RawRoots::normalize`]).
#[derive(Clone, Debug, Default)]
pub struct RawRoots<'v> {
    session_cwd: Option<&'v str>,
    workspace_roots: Vec<&'v str>,
}

impl RawRoots<'_> {
    /// Each root normalized, once (errors at `sessionCwd` or `workspaceRoots[i]`).
    pub fn normalize(&self) -> Result<(Option<Root>, Vec<Root>), Error> {
        let cwd = match self.session_cwd {
            Some(cwd) => Some(root(cwd, &Path::Root("sessionCwd"))?),
            None => None,
        };
        let roots = if self.workspace_roots.is_empty() { Vec::new() } else { normalized_roots(&self.workspace_roots, &Path::Root("workspaceRoots"))? };
        Ok((cwd, roots))
    }
}

/// A list of roots, each normalized (an error names `path[i]`).
#[inline(never)]
fn normalized_roots(texts: &[&str], path: &Path) -> Result<Vec<Root>, Error> {
    let mut out = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        out.push(root(text, &path.index(i))?);
    }
    Ok(out)
}

/// One root, normalized (an error names `path`).
pub fn root(text: &str, path: &Path) -> Result<Root, Error> {
    Root::new(text).map_err(|e| path.error(e.what()))
}

fn roots_fields<'v>(map: &'v Map<String, Value>, path: &Path) -> Result<RawRoots<'v>, Error> {
    let session_cwd = field(map, "sessionCwd").map(|v| string(v, &path.key("sessionCwd"), 0, limits::MAX_PATH)).transpose()?;
    let workspace_roots = name_list(field(map, "workspaceRoots"), &path.key("workspaceRoots"), limits::MAX_PATH)?.unwrap_or_default();
    Ok(RawRoots { session_cwd, workspace_roots })
}

/// The per-call fields of the diagnostic's input, and its roots as given: the caller normalizes them
/// (after reading the rest of the input, so that every runtime reports the same first error).
pub fn diagnostic_input<'v>(map: &'v Map<String, Value>, path: &Path) -> Result<(DiagnosticInput, RawRoots<'v>), Error> {
    let roots = roots_fields(map, path)?;
    let input = DiagnosticInput {
        resolve: resolve_input(map, path)?,
        subagent_tools: owned(name_list(field(map, "subagentTools"), &path.key("subagentTools"), limits::MAX_NAME)?),
        session_cwd: None,
        workspace_roots: Vec::new(),
        shell_permitted: flag(map, path, "shellPermitted")?,
        write_permitted: flag(map, path, "writePermitted")?,
    };
    Ok((input, roots))
}

fn required<'v>(map: &'v Map<String, Value>, path: &Path, key: &str) -> Result<&'v Value, Error> {
    field(map, key).ok_or_else(|| path.key(key).error("is required"))
}

/// The worker-policy builder's input, and its roots as given (normalized by the caller).
pub fn worker_policy_input<'v>(map: &'v Map<String, Value>, path: &Path) -> Result<(WorkerPolicyInput, RawRoots<'v>), Error> {
    let roots = roots_fields(map, path)?;
    let selected_tools = owned(name_list(Some(required(map, path, "selectedTools")?), &path.key("selectedTools"), limits::MAX_NAME)?).unwrap_or_default();
    let input = WorkerPolicyInput {
        session_cwd: None,
        workspace_roots: Vec::new(),
        selected_tools,
        shell_permitted: flag(map, path, "shellPermitted")?,
        write_permitted: flag(map, path, "writePermitted")?,
    };
    Ok((input, roots))
}

/// A `WorkerPolicy`'s fields: every one required; the roots as given.
fn policy_fields<'v>(value: &'v Value, path: &Path) -> Result<(Vec<&'v str>, bool, bool), Error> {
    let map = object(value, path)?;
    let roots = name_list(Some(required(map, path, "workspaceRoots")?), &path.key("workspaceRoots"), limits::MAX_PATH)?.unwrap_or_default();
    let allow_shell = boolean(required(map, path, "allowShell")?, &path.key("allowShell"))?;
    let readonly = boolean(required(map, path, "readonly")?, &path.key("readonly"))?;
    Ok((roots, allow_shell, readonly))
}

/// A `WorkerPolicy` given to the projection, which reads only whether it has roots: they are taken
/// as given (a relative string still counts as a root).
pub fn route_policy(value: &Value, path: &Path) -> Result<RoutePolicy, Error> {
    let (roots, allow_shell, readonly) = policy_fields(value, path)?;
    Ok(RoutePolicy { has_roots: !roots.is_empty(), allow_shell, readonly })
}

/// A `WorkerPolicy` given as input (`checkToolCall`'s `policy`, a `parent`): every field required,
/// its roots normalized, exact duplicates dropped (errors at `….workspaceRoots[i]`).
#[inline(never)]
pub fn worker_policy(value: &Value, path: &Path) -> Result<WorkerPolicy, Error> {
    let (roots, allow_shell, readonly) = policy_fields(value, path)?;
    let roots = normalized_roots(&roots, &path.key("workspaceRoots"))?;
    Ok(WorkerPolicy { workspace_roots: first_occurrences(roots), allow_shell, readonly })
}

/// An object with more than [`limits::MAX_ITEMS`] keys.
fn too_many_keys(map: &Map<String, Value>, path: &Path) -> Error {
    path.error(crate::text::concat(&[
        "has ",
        &crate::text::decimal(map.len() as u64),
        " keys; at most ",
        &crate::text::decimal(limits::MAX_ITEMS as u64),
        " are allowed",
    ]))
}

/// The entries of an object in the order JavaScript lists them (array-index keys first), so that the
/// first invalid entry reported is the one every runtime reports.
fn js_entries(map: &Map<String, Value>) -> Vec<(String, &Value)> {
    json::js_key_order(map.iter().map(|(k, v)| (k.clone(), v)).collect())
}

/// A `{name: value}` object read into a by-position list (names not in the catalog are ignored).
fn by_position<T: Copy>(
    value: Option<&Value>,
    path: &Path,
    catalog: &Catalog,
    parse: impl Fn(&Value, &Path) -> Result<T, Error>,
) -> Result<Vec<Option<T>>, Error> {
    let mut out = vec![None; catalog.tools().len()];
    let Some(value) = value else { return Ok(out) };
    let map = object(value, path)?;
    if map.len() > limits::MAX_ITEMS {
        return Err(too_many_keys(map, path));
    }
    for (name, v) in js_entries(map) {
        let parsed = parse(v, &path.key(&name))?;
        if let Some(i) = catalog.position(&name) {
            out[i] = Some(parsed);
        }
    }
    Ok(out)
}

/// The projection's per-call input: selection, strategies and not-selected reasons by position.
pub fn projection_input(map: &Map<String, Value>, path: &Path, catalog: &Catalog) -> Result<ProjectionInput, Error> {
    let selected_names = name_list(Some(required(map, path, "selectedTools")?), &path.key("selectedTools"), limits::MAX_NAME)?.unwrap_or_default();
    let mut selected = vec![false; catalog.tools().len()];
    for name in selected_names {
        if let Some(i) = catalog.position(name) {
            selected[i] = true;
        }
    }
    let strategies =
        by_position(field(map, "strategies"), &path.key("strategies"), catalog, |v, p| enum_value(v, p, RoutingStrategy::parse, RoutingStrategy::NAMES))?
            .into_iter()
            .map(|s| s.unwrap_or(RoutingStrategy::Auto))
            .collect();
    let not_selected_reasons = by_position(field(map, "notSelectedReasons"), &path.key("notSelectedReasons"), catalog, |v, p| {
        enum_value(v, p, listed_reason, ReasonCode::LISTED_NAMES)
    })?;
    Ok(ProjectionInput { selected, strategies, not_selected_reasons })
}

/// The rows of `syncCatalog`: objects with distinct string names; other fields are taken as they are.
pub fn sync_rows(value: &Value, path: &Path) -> Result<Vec<Map<String, Value>>, Error> {
    let items = array(value, path)?;
    row_names(items, path)?;
    Ok(items
        .iter()
        .filter_map(|v| match json::js_normalize(v.clone()) {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .collect())
}

/// A row or patch of `validateToolUpdate`: an object, kept as JavaScript would hold it.
pub fn plain_object(value: Option<&Value>, path: &Path) -> Result<Map<String, Value>, Error> {
    let value = value.ok_or_else(|| path.error("is required"))?;
    object(value, path)?;
    match json::js_normalize(value.clone()) {
        Value::Object(m) => Ok(m),
        other => Err(path.error(crate::text::concat(&["expected an object, got ", type_name(&other)]))),
    }
}

/// A list of names given as a positional argument (`toolNames`).
pub fn names(value: &Value, path: &Path) -> Result<Vec<String>, Error> {
    Ok(owned(name_list(Some(value), path, limits::MAX_NAME)?).unwrap_or_default())
}

/// A `{name: hint}` object (absent or `null` = none).
pub fn hints(value: Option<&Value>, path: &Path) -> Result<Option<crate::names::NameMap<String>>, Error> {
    let Some(value) = value.filter(|v| !v.is_null()) else { return Ok(None) };
    let map = object(value, path)?;
    if map.len() > limits::MAX_ITEMS {
        return Err(too_many_keys(map, path));
    }
    let mut pairs = Vec::with_capacity(map.len());
    for (name, v) in js_entries(map) {
        let text = string(v, &path.key(&name), 0, limits::MAX_TEXT)?.to_string();
        pairs.push((name, text));
    }
    Ok(Some(crate::names::NameMap::new(pairs)))
}

/// A catalog of schemas, checked as input: at most [`limits::MAX_ITEMS`] tools, names 1–100 characters
/// and unique, toolsets 1–50. The first error by position is reported (a repeated name before a later
/// invalid field), naming `catalog[i].name` or `catalog[i].toolset`.
pub fn catalog_of(schemas: &[ToolSchema]) -> Result<Catalog, Error> {
    use crate::text::{concat, decimal};
    let path = Path::Root("catalog");
    if schemas.len() > limits::MAX_ITEMS {
        return Err(path.error(concat(&["has ", &decimal(schemas.len() as u64), " items; at most ", &decimal(limits::MAX_ITEMS as u64), " are allowed"])));
    }
    for (i, schema) in schemas.iter().enumerate() {
        let item = path.index(i);
        let checked = check_len(&schema.name, &item.key("name"), 1, limits::MAX_NAME)
            .and_then(|()| check_len(&schema.toolset, &item.key("toolset"), 1, limits::MAX_TOOLSET));
        if let Err(error) = checked {
            // A repeated name before the first invalid field is the first error.
            return Err(unique_catalog(schemas.get(..i).unwrap_or_default()).err().unwrap_or(error));
        }
    }
    unique_catalog(schemas)
}

/// The catalog of schemas whose lengths are checked: a repeated name is invalid input at
/// `catalog[i].name`, naming the first schema of that name.
fn unique_catalog(schemas: &[ToolSchema]) -> Result<Catalog, Error> {
    Catalog::from_schemas(schemas).map_err(|d: DuplicateTool| {
        let name = schemas.get(d.at).map_or("", |s| s.name.as_str());
        let what = crate::text::concat(&["duplicate tool name \"", name, "\" (also catalog[", &crate::text::decimal(d.first as u64), "].name)"]);
        Path::Root("catalog").index(d.at).key("name").error(what)
    })
}

/// A catalog and where its entries came from (for traces): absent or `null` = the builtin catalog.
#[inline]
pub fn catalog_with_sources(value: Option<&Value>, path: &Path) -> Result<(Catalog, crate::trace::CatalogSources), Error> {
    match value.filter(|v| !v.is_null()) {
        None => Ok((Catalog::builtin(), crate::trace::CatalogSources::builtin())),
        Some(value) => catalog_given(value, path),
    }
}

/// A catalog given (out of line).
#[inline(never)]
fn catalog_given(value: &Value, path: &Path) -> Result<(Catalog, crate::trace::CatalogSources), Error> {
    let items = array(value, path)?;
    let mut schemas = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        schemas.push(schema(item, &path.index(i))?);
    }
    // `schema` checked each name and toolset, `array` the count: only names can still repeat.
    Ok((unique_catalog(&schemas)?, crate::trace::CatalogSources::from_schemas(&schemas)))
}

/// The `trace` option (absent or `null` = off).
pub fn trace_flag(map: &Map<String, Value>, path: &Path) -> Result<bool, Error> {
    flag(map, path, "trace")
}

/// The `parent` option: a `WorkerPolicy` (every field required), its roots normalized.
#[inline]
pub fn parent_policy(map: &Map<String, Value>, path: &Path) -> Result<Option<WorkerPolicy>, Error> {
    match field(map, "parent") {
        None => Ok(None),
        Some(value) => Ok(Some(worker_policy(value, &path.key("parent"))?)),
    }
}

/// The diagnostic `profileRouteDiff` reads: `profiles[i]` `{ name, supportedInWorker, workerRoutingHint }`
/// and `routes[i]` `{ name, status, reasons }`; other fields are ignored. A route must have a profile.
pub fn diff_input(value: &Value, path: &Path) -> Result<(Vec<crate::explain::StaticProfile>, Vec<crate::explain::DynamicRoute>), Error> {
    use crate::explain::StaticProfile;
    let map = object(value, path)?;
    let profiles_path = path.key("profiles");
    let profile_items = array(required(map, path, "profiles")?, &profiles_path)?;
    let mut profiles = Vec::with_capacity(profile_items.len());
    for (i, item) in profile_items.iter().enumerate() {
        let p = profiles_path.index(i);
        let m = object(item, &p)?;
        profiles.push(StaticProfile {
            name: string(required(m, &p, "name")?, &p.key("name"), 1, limits::MAX_NAME)?.to_string(),
            supported_in_worker: boolean(required(m, &p, "supportedInWorker")?, &p.key("supportedInWorker"))?,
            worker_routing_hint: enum_value(
                required(m, &p, "workerRoutingHint")?,
                &p.key("workerRoutingHint"),
                WorkerRoutingHint::parse,
                WorkerRoutingHint::NAMES,
            )?,
        });
    }
    let routes =
        dynamic_routes(map, path, &mut |i, name| crate::explain::find_profile(&profiles, i, name).is_some().then_some(()).ok_or("no profile is named "))?;
    Ok((profiles, routes))
}

/// The `routes` of an input: `routes[i]` `{ name, status, reasons }` (other fields are ignored); `known`
/// says whether route `i` named `name` has what it needs, or the words of the error before its name.
pub fn dynamic_routes(
    map: &Map<String, Value>,
    path: &Path,
    known: &mut dyn FnMut(usize, &str) -> Result<(), &'static str>,
) -> Result<Vec<crate::explain::DynamicRoute>, Error> {
    use crate::explain::DynamicRoute;
    use crate::vocab::RuntimeStatus;
    let routes_path = path.key("routes");
    let route_items = array(required(map, path, "routes")?, &routes_path)?;
    let mut routes = Vec::with_capacity(route_items.len());
    for (i, item) in route_items.iter().enumerate() {
        let p = routes_path.index(i);
        let m = object(item, &p)?;
        let name = string(required(m, &p, "name")?, &p.key("name"), 1, limits::MAX_NAME)?;
        known(i, name).map_err(|what| p.key("name").error(crate::text::concat(&[what, &crate::text::quote(name)])))?;
        let reasons_path = p.key("reasons");
        let reason_items = array(required(m, &p, "reasons")?, &reasons_path)?;
        let mut reasons = Vec::with_capacity(reason_items.len());
        for (k, v) in reason_items.iter().enumerate() {
            reasons.push(enum_value(v, &reasons_path.index(k), listed_reason, ReasonCode::LISTED_NAMES)?);
        }
        routes.push(DynamicRoute {
            name: name.to_string(),
            status: enum_value(required(m, &p, "status")?, &p.key("status"), RuntimeStatus::parse, RuntimeStatus::NAMES)?,
            reasons,
        });
    }
    Ok(routes)
}

/// An optional vocabulary field (`null` or absent = `None`).
fn opt_vocab<E>(map: &Map<String, Value>, path: &Path, key: &str, parse: fn(&str) -> Option<E>, names: &[&str]) -> Result<Option<E>, Error> {
    field(map, key).map(|v| enum_value(v, &path.key(key), parse, names)).transpose()
}

/// `agentResolveInput({ agent, channel?, crewRole? })`: an agent row or draft (`toolsets`, `tools`,
/// `skills`, `memoryEnabled`, `modelCapability`, `crewRole`; other keys ignored) and a model channel
/// (`capability`). The channel's capability wins over the agent's, the `crewRole` argument over the
/// agent's; absent fields take the defaults of docs/backend-api.md.
pub fn agent_resolve_input(map: &Map<String, Value>, path: &Path) -> Result<crate::info::AgentResolveInput, Error> {
    use crate::info::{AgentResolveInput, AgentTools, DisabledTools};
    let agent_path = path.key("agent");
    let agent_value = required(map, path, "agent")?;
    let agent_map = object(agent_value, &agent_path)?;
    let config = agent(Some(agent_value), &agent_path)?.unwrap_or_default();
    let tools = field(agent_map, "tools").map(|_| DisabledTools { disabled: config.disabled });
    let has_skills = match field(agent_map, "skills") {
        None => false,
        Some(v) => !array(v, &agent_path.key("skills"))?.is_empty(),
    };
    // A database may hand a boolean column back as 0 or 1.
    let memory_enabled = match field(agent_map, "memoryEnabled") {
        Some(v) if v.as_f64() == Some(1.0) => true,
        Some(v) if v.as_f64() == Some(0.0) => false,
        _ => flag(agent_map, &agent_path, "memoryEnabled")?,
    };
    let channel_path = path.key("channel");
    let channel = field(map, "channel").map(|c| object(c, &channel_path)).transpose()?;
    let model_capability = match channel.map(|c| opt_vocab(c, &channel_path, "capability", Capability::parse, Capability::NAMES)).transpose()?.flatten() {
        Some(capability) => Some(capability),
        None => opt_vocab(agent_map, &agent_path, "modelCapability", Capability::parse, Capability::NAMES)?,
    };
    let crew_role = match opt_vocab(map, path, "crewRole", CrewRole::parse, CrewRole::NAMES)? {
        Some(role) => Some(role),
        None => opt_vocab(agent_map, &agent_path, "crewRole", CrewRole::parse, CrewRole::NAMES)?,
    };
    Ok(AgentResolveInput { agent: AgentTools { toolsets: config.toolsets, tools }, model_capability, memory_enabled, has_skills, crew_role })
}

/// `fromMcpTool({ server, tool })`: an MCP `tools/list` entry; anything missing or malformed is invalid.
pub fn mcp_tool(map: &Map<String, Value>, path: &Path) -> Result<ToolSchema, Error> {
    let server = string(required(map, path, "server")?, &path.key("server"), 1, limits::MAX_TOOLSET - 4)?;
    let tool_path = path.key("tool");
    let tool = object(required(map, path, "tool")?, &tool_path)?;
    // `mcp__<server>__<tool>` must fit a tool name.
    let room = limits::MAX_NAME - 7 - crate::text::scalar_count(server, limits::MAX_NAME);
    let name = string(tool.get("name").unwrap_or(&Value::Null), &tool_path.key("name"), 1, room)?;
    let description = field(tool, "description").map(|v| string(v, &tool_path.key("description"), 0, limits::MAX_TEXT)).transpose()?;
    let read_only = match field(tool, "annotations") {
        None => false,
        Some(a) => opt_bool(object(a, &tool_path.key("annotations"))?, &tool_path.key("annotations"), "readOnlyHint")? == Some(true),
    };
    let parameters = match field(tool, "inputSchema") {
        None => crate::catalog::empty_parameters().as_value().clone(),
        Some(v) => {
            object(v, &tool_path.key("inputSchema"))?;
            v.clone()
        }
    };
    Ok(crate::info::from_mcp_tool(server, name, description.map(str::to_string), read_only, parameters))
}

/// A reason code a route or a diagnostic input may hold (not a rule code).
fn listed_reason(text: &str) -> Option<ReasonCode> {
    ReasonCode::parse(text).filter(|c| ReasonCode::LISTED.contains(c))
}

/// `rules`: `{ global?, agent?, session?, approvals? }`, each level `{ allow?, ask?, deny?, default? }`
/// (the global level also `protectedPaths?`); every pattern parsed once, a bad one named by its path
/// (`rules.agent.deny[2]: has an unknown kind "fetch" …`). Absent or `null`: no rules.
pub fn rules(value: Option<&Value>, path: &Path) -> Result<Option<crate::rules::Rules>, Error> {
    match value {
        None => Ok(None),
        Some(value) => rules_of(value, path).map(Some),
    }
}

#[inline(never)]
fn rules_of(value: &Value, path: &Path) -> Result<crate::rules::Rules, Error> {
    use crate::rules::{Level, Pattern, Rules};
    let map = object(value, path)?;
    only_keys(map, path, &["global", "agent", "session", "approvals"])?;
    let mut rules = Rules::default();
    for level in Level::ALL {
        let at = path.key(level.as_str());
        let Some(value) = field(map, level.as_str()) else { continue };
        let m = object(value, &at)?;
        let global = *level == Level::Global;
        only_keys(m, &at, if global { &["allow", "ask", "deny", "default", "protectedPaths"] } else { &["allow", "ask", "deny", "default"] })?;
        let target = &mut rules.levels[*level as usize];
        for (key, list) in [("allow", &mut target.allow), ("ask", &mut target.ask), ("deny", &mut target.deny)] {
            *list = patterns(field(m, key), &at.key(key), Pattern::parse)?;
        }
        if let Some(v) = field(m, "default") {
            target.default = Some(enum_value(v, &at.key("default"), crate::rules::Effect::parse, crate::rules::Effect::NAMES)?);
        }
        if global {
            if let Some(v) = field(m, "protectedPaths") {
                rules.protected = patterns(Some(v), &at.key("protectedPaths"), Pattern::protected)?;
            }
        }
    }
    rules.approvals = patterns(field(map, "approvals"), &path.key("approvals"), Pattern::approval)?;
    Ok(rules)
}

fn only_keys(map: &Map<String, Value>, path: &Path, keys: &[&str]) -> Result<(), Error> {
    match map.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(key) => Err(path.key(key).error(crate::text::concat(&["is not a field of rules here; expected one of ", &crate::text::join(keys, ", ")]))),
        None => Ok(()),
    }
}

fn patterns(value: Option<&Value>, path: &Path, parse: fn(&str) -> Result<crate::rules::Pattern, String>) -> Result<Vec<crate::rules::Pattern>, Error> {
    let Some(texts) = name_list(value, path, crate::rules::MAX_PATTERN)? else { return Ok(Vec::new()) };
    let mut out = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        out.push(parse(text).map_err(|why| path.index(i).error(why))?);
    }
    Ok(out)
}

/// `checkRules`' input: `{ rules?, policy?, tool? | command? | read? | write? | net? }` (exactly one
/// thing tried; `policy` absent: no roots, not readonly; `net`: `host[:port]`, port 443 when absent).
pub fn rule_trial(map: &Map<String, Value>, path: &Path) -> Result<(crate::rules::Rules, crate::ruling::Trial, WorkerPolicy), Error> {
    use crate::ruling::Trial;
    let rules = rules(field(map, "rules"), &path.key("rules"))?.unwrap_or_default();
    let policy = match field(map, "policy") {
        Some(v) => worker_policy(v, &path.key("policy"))?,
        None => WorkerPolicy { workspace_roots: Vec::new(), allow_shell: true, readonly: false },
    };
    let mut trial = None;
    for key in ["tool", "command", "read", "write", "net"] {
        let Some(v) = field(map, key) else { continue };
        if trial.is_some() {
            return Err(path.key(key).error("try one thing at a time: one of tool, command, read, write, net"));
        }
        let text = string(v, &path.key(key), 1, if key == "tool" { limits::MAX_NAME } else { limits::MAX_TEXT.max(limits::MAX_PATH) })?.to_string();
        trial = Some(match key {
            "tool" => Trial::Tool(text),
            "command" => Trial::Command(text),
            "net" => {
                let at = path.key("net");
                let (host, port) = crate::host::split_port(&text).map_err(|why| at.error(why))?;
                Trial::Net { host: net_host(host, &at)?, port: port.unwrap_or(443) }
            }
            _ => Trial::Path { path: text, write: key == "write" },
        });
    }
    let trial = trial.ok_or_else(|| path.key("command").error("is required (or one of tool, read, write, net)"))?;
    Ok((rules, trial, policy))
}

fn net_host(text: &str, path: &Path) -> Result<crate::host::Host, Error> {
    crate::host::Host::parse(text).map_err(|why| path.error(why))
}

/// `checkNetwork`'s input: `{ rules?, host, port }` — a host name or IP literal (an IPv6 one with or
/// without brackets) and a port 1–65535.
pub fn network_trial(map: &Map<String, Value>, path: &Path) -> Result<(crate::rules::Rules, crate::host::Host, u16), Error> {
    let rules = rules(field(map, "rules"), &path.key("rules"))?.unwrap_or_default();
    let at = path.key("host");
    // A name of 253 bytes, a trailing dot, or an IPv6 address in brackets.
    let text = field(map, "host").ok_or_else(|| at.error("is required"))?;
    let host = net_host(string(text, &at, 1, 256)?, &at)?;
    let at = path.key("port");
    let port =
        field(map, "port").and_then(Value::as_u64).filter(|p| (1..=65_535).contains(p)).ok_or_else(|| at.error("must be a whole number from 1 to 65535"))?;
    Ok((rules, host, port as u16))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Errors come in input order: a repeated name before an invalid entry is reported, an invalid
    /// entry before a repeated name is.
    #[test]
    fn readers_report_the_first_error_by_position() {
        use crate::path::Path;
        use serde_json::json;
        let catalog = Catalog::builtin();
        let rows = |value: serde_json::Value| governance(Some(&value), &Path::Root("governance"), &catalog).map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(
            rows(json!([{"name": "a"}, {"name": "a"}, {"name": 5}])).unwrap_err(),
            "governance[1].name: duplicate row name \"a\" (also governance[0].name)"
        );
        assert_eq!(rows(json!([{"name": "a"}, {"name": 5}, {"name": "a"}])).unwrap_err(), "governance[1].name: expected a string, got a number");
        assert_eq!(rows(json!([{"name": "a"}, 7, {"name": "a"}])).unwrap_err(), "governance[1]: expected an object, got a number");
        assert_eq!(
            rows(json!([{"name": "b"}, {"name": "a"}, {"name": "a"}, {"name": "b"}])).unwrap_err(),
            "governance[2].name: duplicate row name \"a\" (also governance[1].name)"
        );
        assert!(rows(json!([{"name": "a"}, {"name": "b"}])).is_ok());

        let schema = |name: &str, toolset: &str| crate::catalog::ToolSchema::new(name, toolset);
        let err = |schemas: &[crate::catalog::ToolSchema]| catalog_of(schemas).map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(
            err(&[schema("a", "x"), schema("a", "x"), schema("b", "")]).unwrap_err(),
            "catalog[1].name: duplicate tool name \"a\" (also catalog[0].name)"
        );
        assert_eq!(err(&[schema("a", "x"), schema("a", ""), schema("b", "x")]).unwrap_err(), "catalog[1].toolset: must not be empty");
        assert_eq!(err(&[schema("a", "x"), schema("", "x"), schema("a", "x")]).unwrap_err(), "catalog[1].name: must not be empty");
        assert!(err(&[schema("a", "x"), schema("b", "x")]).is_ok());
    }

    #[test]
    fn duplicate_and_overlong_names_are_invalid() {
        let err = catalog_of(&[ToolSchema::new("a", "x"), ToolSchema::new("a", "y")]).unwrap_err();
        assert_eq!(err.to_string(), "catalog[1].name: duplicate tool name \"a\" (also catalog[0].name)");
        let err = catalog_of(&[ToolSchema::new("n".repeat(101), "x")]).unwrap_err();
        assert_eq!(err.path(), "catalog[0].name");
        let err = catalog_of(&[ToolSchema::new("a", "")]).unwrap_err();
        assert_eq!(err.path(), "catalog[0].toolset");
    }
}
