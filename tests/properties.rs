//! Property tests: one or more per guarantee of SPEC §6, over random catalogs, governance rows, agents
//! and policies.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use netaclaw_tool_policy::edge::api;
use netaclaw_tool_policy::json;
use netaclaw_tool_policy::vocab::{Capability, CrewRole, ExecutionMode, ReasonCode, RoutingStrategy, RuntimeStatus, ToolKind, Visibility, WorkerRoutingHint};
use netaclaw_tool_policy::worker_policy::Root;
use netaclaw_tool_policy::{
    build_subprocess_worker_policy, project_runtime_policy, resolve_tools, runtime_diagnostic, sync_catalog, validate_tool_update, AgentToolConfig, Catalog,
    DiagnosticInput, Governance, ProjectionInput, ResolveInput, RowPolicy, ToolRuntimeRoute, ToolSchema, WorkerPolicy, WorkerPolicyInput,
};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::{select, subsequence};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

const BUILTIN_NAMES: [&str; 19] = [
    "bash", "read_file", "list_dir", "find_files", "grep", "write_file", "edit", "patch", "todo", "clarify", "escalate", "read_skill", "read_skill_file",
    "skill_manage", "execute_skill", "memory_save", "memory_recall", "delegate_task", "delegate_parallel",
];
const TOOLSETS: [&str; 10] = ["base", "planning", "memory", "skills", "delegation", "admin", "research", "vision", "document", "x"];
const ORPHANS: [&str; 2] = ["retired_tool", "old_tool"];

// ---------------------------------------------------------------- generators

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![select(&BUILTIN_NAMES[..]).prop_map(String::from), "[a-z]{1,4}(_[a-z0-9]{1,3})?"]
}

fn toolset() -> impl Strategy<Value = String> {
    select(&TOOLSETS[..]).prop_map(String::from)
}

fn opt_bool() -> impl Strategy<Value = Option<bool>> {
    option::of(any::<bool>())
}

/// A catalog entry: a builtin name or a random one, any toolset, every optional field maybe set.
fn schema() -> impl Strategy<Value = ToolSchema> {
    (
        (tool_name(), toolset(), option::of("[A-Za-z ]{0,12}")),
        (option::of(select(Visibility::ALL)), option::of(select(Capability::ALL)), opt_bool(), opt_bool(), opt_bool()),
        (option::of(select(ToolKind::ALL)), option::of(select(ExecutionMode::ALL)), opt_bool(), option::of(select(WorkerRoutingHint::ALL))),
        (opt_bool(), opt_bool(), opt_bool(), opt_bool()),
    )
        .prop_map(
            |(
                (name, toolset, description),
                (visibility, capability, is_core, can_disable, hint_support),
                (kind, mode, in_worker, hint),
                (shell, write, skill, root),
            )| {
                ToolSchema {
                    description,
                    visibility,
                    capability,
                    is_core,
                    can_disable,
                    supports_prompt_hint: hint_support,
                    kind,
                    execution_mode: mode,
                    supported_in_worker: in_worker,
                    worker_routing_hint: hint,
                    requires_shell: shell,
                    requires_write: write,
                    requires_skill_scope: skill,
                    requires_workspace_root: root,
                    ..ToolSchema::new(name, toolset)
                }
            },
        )
}

/// Schemas with distinct names (later duplicates dropped).
fn schemas() -> impl Strategy<Value = Vec<ToolSchema>> {
    vec(schema(), 0..12).prop_map(|all| {
        let mut seen = BTreeSet::new();
        all.into_iter().filter(|s| seen.insert(s.name.clone())).collect()
    })
}

fn catalog_of(schemas: &[ToolSchema]) -> Catalog {
    Catalog::from_schemas(schemas).expect("generated catalogs are valid")
}

fn names_of(schemas: &[ToolSchema]) -> Vec<String> {
    schemas.iter().map(|s| s.name.clone()).collect()
}

/// A governance row as the admin table holds it.
#[derive(Clone, Debug)]
struct RowSpec {
    name: String,
    enabled: bool,
    hint: Option<String>,
    strategy: RoutingStrategy,
}

impl RowSpec {
    fn policy(&self) -> RowPolicy {
        let hint = self.hint.as_deref().map(str::trim).filter(|h| !h.is_empty()).map(str::to_string);
        RowPolicy { enabled: self.enabled, prompt_hint: hint, strategy: self.strategy, ..RowPolicy::new(self.name.clone()) }
    }

    fn json(&self) -> Value {
        json!({ "id": 1, "name": self.name, "status": u8::from(self.enabled), "promptHint": self.hint, "workerRoutingStrategy": self.strategy.as_str() })
    }
}

fn governance_of(catalog: &Catalog, rows: &[RowSpec]) -> Governance {
    Governance::new(catalog, rows.iter().map(RowSpec::policy).collect())
}

/// Rows for some of `names` plus maybe orphans.
fn rows_for(names: Vec<String>) -> impl Strategy<Value = Vec<RowSpec>> {
    let mut pool = names;
    pool.extend(ORPHANS.iter().map(|s| s.to_string()));
    let len = pool.len();
    subsequence(pool, 0..=len).prop_flat_map(|picked| {
        let n = picked.len();
        (Just(picked), vec((any::<bool>(), option::of("[ a-z]{0,6}"), select(RoutingStrategy::ALL)), n..=n)).prop_map(|(picked, attrs)| {
            picked.into_iter().zip(attrs).map(|(name, (enabled, hint, strategy))| RowSpec { name, enabled, hint, strategy }).collect()
        })
    })
}

/// An agent: legacy (no toolsets) or some toolsets (maybe unknown ones), and some disabled names.
fn agent_for(names: Vec<String>) -> impl Strategy<Value = Option<AgentToolConfig>> {
    let mut pool = names;
    pool.push("ghost".into());
    let len = pool.len();
    let toolsets = option::of(vec(prop_oneof![toolset(), Just("nope".to_string())], 0..5));
    option::of((toolsets, subsequence(pool, 0..=len)).prop_map(|(toolsets, disabled)| AgentToolConfig { toolsets, disabled }))
}

fn resolve_input_for(names: Vec<String>) -> impl Strategy<Value = ResolveInput> {
    (agent_for(names), option::of(select(Capability::ALL)), any::<bool>(), any::<bool>(), option::of(select(CrewRole::ALL))).prop_map(
        |(agent, model_capability, memory_enabled, has_skills, crew_role)| ResolveInput {
            agent,
            model_capability,
            memory_enabled,
            has_skills,
            crew_role,
            ..Default::default()
        },
    )
}

/// A catalog with rows and a resolver input for it.
fn scenario() -> impl Strategy<Value = (Vec<ToolSchema>, Vec<RowSpec>, ResolveInput)> {
    schemas().prop_flat_map(|s| {
        let names = names_of(&s);
        (Just(s), rows_for(names.clone()), resolve_input_for(names))
    })
}

/// A root from a path the generators make absolute.
fn root_of(text: &str) -> Root {
    Root::new(text).expect("generated roots are absolute")
}

fn policy() -> impl Strategy<Value = WorkerPolicy> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(roots, allow_shell, readonly)| WorkerPolicy {
        workspace_roots: if roots { vec![root_of("/w")] } else { vec![] },
        allow_shell,
        readonly,
    })
}

/// A catalog, a selection, strategies by position and a policy.
fn projection_case() -> impl Strategy<Value = (Vec<ToolSchema>, Vec<bool>, Vec<RoutingStrategy>, WorkerPolicy)> {
    schemas().prop_flat_map(|s| {
        let n = s.len();
        (Just(s), vec(any::<bool>(), n..=n), vec(select(RoutingStrategy::ALL), n..=n), policy())
    })
}

fn projection_input(selected: Vec<bool>, strategies: Vec<RoutingStrategy>) -> ProjectionInput {
    let n = selected.len();
    ProjectionInput { selected, strategies, not_selected_reasons: vec![None; n] }
}

fn routed(route: &ToolRuntimeRoute) -> bool {
    matches!(route.status, RuntimeStatus::WorkerLocal | RuntimeStatus::MainProcessProxied)
}

// ------------------------------------------------------------ JSON helpers

fn agent_json(agent: &Option<AgentToolConfig>) -> Value {
    match agent {
        None => Value::Null,
        Some(a) => json!({ "toolsets": a.toolsets, "tools": { "disabled": a.disabled } }),
    }
}

fn resolve_json(schemas: &[ToolSchema], rows: &[RowSpec], input: &ResolveInput) -> Value {
    json!({
        "catalog": schemas,
        "governance": rows.iter().map(RowSpec::json).collect::<Vec<_>>(),
        "agent": agent_json(&input.agent),
        "modelCapability": input.model_capability.map(Capability::as_str),
        "memoryEnabled": input.memory_enabled,
        "hasSkills": input.has_skills,
        "crewRole": input.crew_role.map(CrewRole::as_str),
    })
}

/// What the JavaScript package holds after `JSON.parse` and sends after `JSON.stringify`.
fn javascript_round_trip(value: &Value) -> Value {
    serde_json::from_str(&json::to_string(&json::js_normalize(value.clone())).unwrap()).unwrap()
}

/// Output bytes survive `JSON.parse` then `JSON.stringify` unchanged.
fn stable_in_javascript(text: &str) -> bool {
    let parsed: Value = serde_json::from_str(text).unwrap();
    json::to_string(&json::js_normalize(parsed)).unwrap() == text
}

/// `cases` per property (`PROPTEST_CASES` overrides it, for longer runs).
fn config_with(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(cases);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn config() -> ProptestConfig {
    config_with(256)
}

// ------------------------------------------------------ §6.1 determinism

proptest! {
    #![proptest_config(config())]

    /// Same input, same bytes: twice in a row, after a JSON round trip of the input, and the output
    /// prints back to itself through a JSON round trip (what Node and a browser would hold).
    #[test]
    fn resolve_and_diagnose_are_deterministic((schemas, rows, input) in scenario(), cwd in option::of(select(&["/w/", "C:\\w", "/"][..])), shell in any::<bool>(), write in any::<bool>()) {
        let mut resolve = resolve_json(&schemas, &rows, &input);
        for function in ["resolveTools", "runtimeDiagnostic"] {
            if function == "runtimeDiagnostic" {
                let map = resolve.as_object_mut().unwrap();
                map.insert("sessionCwd".into(), json!(cwd));
                map.insert("shellPermitted".into(), json!(shell));
                map.insert("writePermitted".into(), json!(write));
            }
            let first = api::call(function, std::slice::from_ref(&resolve)).unwrap();
            let second = api::call(function, std::slice::from_ref(&resolve)).unwrap();
            prop_assert_eq!(&first, &second);
            let third = api::call(function, &[javascript_round_trip(&resolve)]).unwrap();
            prop_assert_eq!(&first, &third);
            prop_assert!(stable_in_javascript(&first), "{}", first);
        }
    }

    /// The typed API and the JSON API give the same answer.
    #[test]
    fn the_json_api_prints_the_typed_answer((schemas, rows, input) in scenario()) {
        let catalog = catalog_of(&schemas);
        let typed = resolve_tools(&catalog, &governance_of(&catalog, &rows), &input);
        let text = api::call("resolveTools", &[resolve_json(&schemas, &rows, &input)]).unwrap();
        prop_assert_eq!(json::to_string(&typed).unwrap(), text);
    }

    #[test]
    fn projection_and_sync_are_deterministic((schemas, selected, strategies, policy) in projection_case(), rows in vec((select(&BUILTIN_NAMES[..]), any::<u8>()), 0..6)) {
        let names: Vec<&str> = schemas.iter().zip(&selected).filter(|(_, s)| **s).map(|(t, _)| t.name.as_str()).collect();
        let strategy_map: Map<String, Value> = schemas.iter().zip(&strategies).map(|(t, s)| (t.name.clone(), json!(s.as_str()))).collect();
        let input = json!({ "catalog": schemas, "selectedTools": names, "policy": policy, "strategies": strategy_map });
        let first = api::call("projectRuntimePolicy", std::slice::from_ref(&input)).unwrap();
        prop_assert_eq!(&first, &api::call("projectRuntimePolicy", &[javascript_round_trip(&input)]).unwrap());
        prop_assert!(stable_in_javascript(&first));

        let mut seen = BTreeSet::new();
        let table: Vec<Value> = rows.into_iter().filter(|(n, _)| seen.insert(*n)).map(|(n, status)| json!({ "name": n, "status": status % 3, "sort": status })).collect();
        let args = [json!(schemas), json!(table)];
        let plan = api::call("syncCatalog", &args).unwrap();
        prop_assert_eq!(&plan, &api::call("syncCatalog", &[javascript_round_trip(&args[0]), javascript_round_trip(&args[1])]).unwrap());
        prop_assert!(stable_in_javascript(&plan));
    }
}

// ------------------------------------------------------ §6.2 fail closed

proptest! {
    #![proptest_config(config())]

    /// A tool with no runtime profile (not a builtin name, no hint, no worker support) is never routed,
    /// whatever the strategy or the policy.
    #[test]
    fn an_unknown_tool_is_never_routed(name in "[a-z]{1,6}_x", ts in toolset(), kind in option::of(select(&[ToolKind::Custom, ToolKind::Builtin, ToolKind::Admin, ToolKind::Delegation][..])), strategy in select(RoutingStrategy::ALL), policy in policy(), capability in option::of(select(Capability::ALL))) {
        prop_assume!(!matches!(ts.as_str(), "memory" | "skills") || kind.is_some());
        let schema = ToolSchema { kind, capability, ..ToolSchema::new(name, ts) };
        let catalog = catalog_of(std::slice::from_ref(&schema));
        let routes = project_runtime_policy(&catalog, &policy, &projection_input(vec![true], vec![strategy]));
        prop_assert_eq!(routes[0].status, RuntimeStatus::DisabledInWorker);
        prop_assert!(routes[0].reasons.contains(&ReasonCode::UnsupportedInWorker));
    }

    /// A tool whose manifest hint is `disabled`, or that has no worker support and no proxy, is never
    /// routed under any strategy.
    #[test]
    fn a_disabled_hint_is_never_routed((schemas, selected, strategies, policy) in projection_case()) {
        let catalog = catalog_of(&schemas);
        let routes = project_runtime_policy(&catalog, &policy, &projection_input(selected, strategies));
        for (tool, route) in catalog.tools().iter().zip(&routes) {
            if tool.worker_routing_hint == WorkerRoutingHint::Disabled {
                prop_assert!(!routed(route), "{:?}", route);
            }
            if route.status == RuntimeStatus::WorkerLocal {
                prop_assert!(tool.supported_in_worker, "{:?}", route);
            }
        }
    }

    /// `force-local` (or any strategy) never lifts a root, shell or write block: the codes of checks
    /// 3–5 are the same under every strategy, and any of them keeps the tool from running.
    #[test]
    fn no_strategy_lifts_a_block((schemas, _selected, _strategies, policy) in projection_case()) {
        let catalog = catalog_of(&schemas);
        let n = schemas.len();
        let blocks = |r: &ToolRuntimeRoute| -> Vec<ReasonCode> {
            r.reasons.iter().copied().filter(|c| matches!(c, ReasonCode::WorkspaceRootRequired | ReasonCode::ShellDisabledByPolicy | ReasonCode::WriteBlockedByReadonlyPolicy)).collect()
        };
        let auto = project_runtime_policy(&catalog, &policy, &projection_input(vec![true; n], vec![RoutingStrategy::Auto; n]));
        for strategy in RoutingStrategy::ALL {
            let forced = project_runtime_policy(&catalog, &policy, &projection_input(vec![true; n], vec![*strategy; n]));
            for (a, f) in auto.iter().zip(&forced) {
                prop_assert_eq!(blocks(a), blocks(f));
                if !blocks(f).is_empty() {
                    prop_assert_eq!(f.status, RuntimeStatus::DisabledInWorker);
                }
            }
        }
    }
}

// ------------------------------------------------------ §6.3 monotonicity

/// A stricter policy and selection: roots dropped, shell or write withdrawn, tools unselected.
fn stricter(policy: &WorkerPolicy, selected: &[bool], keep_roots: bool, keep_shell: bool, keep_write: bool, keep: &[bool]) -> (WorkerPolicy, Vec<bool>) {
    let strict = WorkerPolicy {
        workspace_roots: if keep_roots { policy.workspace_roots.clone() } else { vec![] },
        allow_shell: policy.allow_shell && keep_shell,
        readonly: policy.readonly || !keep_write,
    };
    (strict, selected.iter().zip(keep).map(|(s, k)| *s && *k).collect())
}

proptest! {
    #![proptest_config(config_with(768))]

    #[test]
    fn a_stricter_policy_never_routes_a_blocked_tool(
        (schemas, selected, strategies, policy) in projection_case(),
        keep_roots in any::<bool>(), keep_shell in any::<bool>(), keep_write in any::<bool>(), keep in vec(any::<bool>(), 12),
    ) {
        let catalog = catalog_of(&schemas);
        let (strict, strict_selected) = stricter(&policy, &selected, keep_roots, keep_shell, keep_write, &keep);
        let loose = project_runtime_policy(&catalog, &policy, &projection_input(selected, strategies.clone()));
        let tight = project_runtime_policy(&catalog, &strict, &projection_input(strict_selected, strategies));
        for (l, t) in loose.iter().zip(&tight) {
            if !routed(l) {
                prop_assert!(!routed(t), "{:?} became {:?}", l, t);
            }
        }
    }

    /// The whole pipeline: fewer roots, permissions withdrawn, a smaller batch, more tools disabled by
    /// the agent, more rows at status 0 and fewer toolsets never route a tool that was not routed.
    #[test]
    fn a_stricter_diagnostic_never_routes_a_blocked_tool(
        (schemas, rows, input) in scenario(),
        cwd in option::of(select(&["/w", "/v"][..])), shell in any::<bool>(), write in any::<bool>(),
        batch in option::of(vec(any::<bool>(), 12)),
        drop_cwd in any::<bool>(), drop_shell in any::<bool>(), drop_write in any::<bool>(),
        shrink in vec(any::<bool>(), 16), more_disabled in vec(any::<bool>(), 12), more_off in vec(any::<bool>(), 16), fewer_toolsets in vec(any::<bool>(), 5),
    ) {
        let catalog = catalog_of(&schemas);
        let names = names_of(&schemas);
        let subagent = batch.as_ref().map(|b| names.iter().zip(b).filter(|(_, k)| **k).map(|(n, _)| n.clone()).collect::<Vec<_>>());
        let loose_input = DiagnosticInput { resolve: input.clone(), subagent_tools: subagent.clone(), session_cwd: cwd.map(root_of), shell_permitted: shell, write_permitted: write, ..Default::default() };

        // Stricter: every change below can only narrow.
        let strict_subagent = match subagent {
            Some(list) => Some(list.into_iter().zip(&shrink).filter(|(_, k)| **k).map(|(n, _)| n).collect()),
            None if shrink[15] => Some(names.iter().zip(&shrink).filter(|(_, k)| **k).map(|(n, _)| n.clone()).collect()),
            None => None,
        };
        let mut agent = input.agent.clone().unwrap_or_default();
        agent.disabled.extend(names.iter().zip(&more_disabled).filter(|(_, d)| **d).map(|(n, _)| n.clone()));
        if let Some(toolsets) = agent.toolsets.as_mut() {
            let kept: Vec<String> = toolsets.iter().zip(fewer_toolsets.iter().chain(std::iter::repeat(&true))).filter(|(_, k)| **k).map(|(t, _)| t.clone()).collect();
            *toolsets = kept;
        }
        // A legacy agent keeps the defaults: making it `Some(agent)` with toolsets None changes nothing.
        let strict_rows: Vec<RowSpec> = {
            let mut out: Vec<RowSpec> = rows.iter().zip(more_off.iter().chain(std::iter::repeat(&false))).map(|(r, off)| RowSpec { enabled: r.enabled && !off, ..r.clone() }).collect();
            for (n, off) in names.iter().zip(more_off.iter().skip(rows.len())) {
                if *off && !out.iter().any(|r| r.name == *n) {
                    out.push(RowSpec { name: n.clone(), enabled: false, hint: None, strategy: RoutingStrategy::Auto });
                }
            }
            out
        };
        // New rows must keep the loose run's strategies (auto) for a fair comparison: rows only add status 0.
        let strict_input = DiagnosticInput {
            resolve: ResolveInput { agent: Some(agent), ..input.clone() },
            subagent_tools: strict_subagent,
            session_cwd: if drop_cwd { None } else { cwd.map(root_of) },
            shell_permitted: shell && !drop_shell,
            write_permitted: write && !drop_write,
            ..Default::default()
        };
        let loose = runtime_diagnostic(&catalog, &governance_of(&catalog, &rows), &loose_input);
        let tight = runtime_diagnostic(&catalog, &governance_of(&catalog, &strict_rows), &strict_input);
        for (l, t) in loose.routes.iter().zip(&tight.routes) {
            if !routed(l) {
                prop_assert!(!routed(t), "{:?} became {:?}", l, t);
            }
        }
        let loose_names: BTreeSet<_> = loose.resolved.tool_names.iter().collect();
        for name in &tight.resolved.tool_names {
            prop_assert!(loose_names.contains(name), "{} injected only under the stricter input", name);
        }
    }
}

// ------------------------------------------------------ §6.4 readonly and shell

proptest! {
    #![proptest_config(config())]

    #[test]
    fn readonly_and_no_shell_are_never_bypassed((schemas, selected, strategies, policy) in projection_case()) {
        let catalog = catalog_of(&schemas);
        let routes = project_runtime_policy(&catalog, &policy, &projection_input(selected, strategies));
        for (tool, route) in catalog.tools().iter().zip(&routes) {
            if policy.readonly && tool.requires_write {
                prop_assert!(!routed(route), "{:?}", route);
            }
            if !policy.allow_shell && tool.requires_shell {
                prop_assert!(!routed(route), "{:?}", route);
            }
            if policy.workspace_roots.is_empty() && tool.requires_workspace_root {
                prop_assert!(!routed(route), "{:?}", route);
            }
        }
    }

    /// Through the pipeline: the policy grants shell or write only when permitted and needed by a
    /// selected tool, and the routes respect it.
    #[test]
    fn the_diagnostic_policy_is_least_privilege((schemas, rows, input) in scenario(), shell in any::<bool>(), write in any::<bool>(), cwd in any::<bool>(), batch in option::of(vec(any::<bool>(), 12))) {
        let catalog = catalog_of(&schemas);
        let subagent_tools = batch.map(|b| schemas.iter().zip(b).filter(|(_, k)| *k).map(|(t, _)| t.name.clone()).collect::<Vec<_>>());
        let d = runtime_diagnostic(&catalog, &governance_of(&catalog, &rows), &DiagnosticInput {
            resolve: input, subagent_tools: subagent_tools.clone(), session_cwd: cwd.then(|| root_of("/w")), shell_permitted: shell, write_permitted: write, ..Default::default()
        });
        // The selection is `subagentTools ∩ toolNames` (every resolved tool without a batch).
        for (tool, route) in catalog.tools().iter().zip(&d.routes) {
            let resolved = d.resolved.tool_names.contains(&tool.name);
            let in_batch = subagent_tools.as_ref().is_none_or(|b| b.contains(&tool.name));
            prop_assert_eq!(route.status != RuntimeStatus::NotSelected, resolved && in_batch, "{:?}", route);
        }
        let selected: Vec<_> = catalog.tools().iter().zip(&d.routes).filter(|(_, r)| r.status != RuntimeStatus::NotSelected).map(|(t, _)| t).collect();
        prop_assert_eq!(d.policy.allow_shell, shell && selected.iter().any(|t| t.requires_shell));
        prop_assert_eq!(d.policy.readonly, !(write && selected.iter().any(|t| t.requires_write)));
        for (tool, route) in catalog.tools().iter().zip(&d.routes) {
            if (d.policy.readonly && tool.requires_write) || (!d.policy.allow_shell && tool.requires_shell) {
                prop_assert!(!routed(route), "{:?}", route);
            }
        }
        // The builder agrees with the diagnostic's policy for the same selection.
        let built = build_subprocess_worker_policy(&catalog, &WorkerPolicyInput {
            session_cwd: cwd.then(|| root_of("/w/")), selected_tools: selected.iter().map(|t| t.name.clone()).collect(),
            shell_permitted: shell, write_permitted: write, ..Default::default()
        });
        prop_assert_eq!(built, d.policy);
    }
}

// ------------------------------------------------------ §6.5 core tools

proptest! {
    #![proptest_config(config())]

    /// A protected core tool is never dropped by checks 1–3, and an agent or a row that tried raises
    /// exactly one warning for it.
    #[test]
    fn protected_core_tools_survive_agents_and_the_table((schemas, rows, input) in scenario()) {
        let catalog = catalog_of(&schemas);
        let r = resolve_tools(&catalog, &governance_of(&catalog, &rows), &input);
        for tool in catalog.tools().iter().filter(|t| t.is_protected()) {
            let dropped = r.disabled_reasons.iter().find(|d| d.name == tool.name).map(|d| d.reason);
            prop_assert!(!matches!(dropped, Some(ReasonCode::ToolsetNotSelected | ReasonCode::DisabledByAgent | ReasonCode::DisabledGlobally)), "{} dropped: {:?}", tool.name, dropped);
            let tried = input.agent.as_ref().is_some_and(|a| a.disabled.contains(&tool.name)) || rows.iter().any(|row| row.name == tool.name && !row.enabled);
            let warned = r.warnings.iter().filter(|w| w.code == ReasonCode::CoreToolCannotBeDisabled && w.subject == tool.name).count();
            prop_assert_eq!(warned, usize::from(tried));
            // Checks 4 and 5 alone decide it.
            let fits = input.model_capability.unwrap_or(Capability::Text).serves(tool.capability);
            let scene = match tool.kind {
                ToolKind::Memory => input.memory_enabled,
                ToolKind::Skill => input.has_skills,
                ToolKind::Delegation => input.crew_role == Some(CrewRole::Master),
                _ => true,
            };
            prop_assert_eq!(r.tool_names.contains(&tool.name), fits && scene);
        }
    }

    /// The admin guard refuses status 0 on every protected core tool, whatever else the patch holds.
    #[test]
    fn the_table_cannot_switch_off_a_protected_tool(schemas in schemas(), label in option::of("[a-z]{0,8}"), sort in option::of(0i64..100)) {
        let catalog = catalog_of(&schemas);
        for tool in catalog.tools() {
            let row: Map<String, Value> = [("name".to_string(), json!(tool.name)), ("status".to_string(), json!(1))].into_iter().collect();
            let mut patch: Map<String, Value> = [("status".to_string(), json!(0.0))].into_iter().collect();
            if let Some(l) = &label { patch.insert("label".into(), json!(l)); }
            if let Some(s) = sort { patch.insert("sort".into(), json!(s as f64)); }
            let out = validate_tool_update(&catalog, &row, &tool.name, &patch);
            let refused = out.errors.as_ref().is_some_and(|e| e.iter().any(|e| e.field == "status" && e.code == ReasonCode::CoreToolCannotBeDisabled));
            prop_assert_eq!(refused, tool.is_protected());
            prop_assert_eq!(out.ok, !tool.is_protected());
        }
    }
}

// ------------------------------------------------------ §6.6 sync

/// A value for a row field: in type, out of type, or null.
fn field_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u8..3).prop_map(Value::from),
        Just(json!(7)),
        Just(json!(1.5)),
        "[a-z]{0,5}".prop_map(Value::from),
        select(&["base", "memory", "tool", "internal", "skill", "text", "vision", "auto", "force-local", "force-disabled"][..]).prop_map(Value::from),
        Just(json!({"k": [1, 2]})),
    ]
}

const FIELDS: [&str; 14] = [
    "label", "toolset", "description", "visibility", "capability", "status", "isCore", "canDisable", "promptHint", "sort", "extra", "workerRoutingStrategy",
    "id", "createTime",
];

fn table_for(names: Vec<String>) -> impl Strategy<Value = Vec<Map<String, Value>>> {
    let mut pool = names;
    pool.extend(ORPHANS.iter().map(|s| s.to_string()));
    let len = pool.len();
    subsequence(pool, 0..=len).prop_flat_map(|picked| {
        let n = picked.len();
        (Just(picked), vec(vec(option::of(field_value()), FIELDS.len()..=FIELDS.len()), n..=n)).prop_map(|(picked, values)| {
            picked
                .into_iter()
                .zip(values)
                .map(|(name, vals)| {
                    let mut row = Map::new();
                    row.insert("name".into(), json!(name));
                    for (field, value) in FIELDS.iter().zip(vals) {
                        if let Some(v) = value {
                            row.insert(field.to_string(), v);
                        }
                    }
                    row
                })
                .collect()
        })
    })
}

fn apply(rows: &mut Vec<Map<String, Value>>, plan: &Value) {
    for insert in plan["inserts"].as_array().unwrap() {
        rows.push(insert.as_object().unwrap().clone());
    }
    for update in plan["updates"].as_array().unwrap() {
        let row = rows.iter_mut().find(|r| r["name"] == update["name"]).unwrap();
        for (k, v) in update["set"].as_object().unwrap() {
            row.insert(k.clone(), v.clone());
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// Applying a sync plan and syncing again yields no insert and no update; nothing is ever deleted;
    /// every catalog tool then has a row; orphans are exactly the rows outside the catalog, in order;
    /// human fields in their type and keys that are not row fields are never touched.
    #[test]
    fn sync_is_idempotent_and_never_deletes((schemas, table) in schemas().prop_flat_map(|s| { let n = names_of(&s); (Just(s), table_for(n)) })) {
        let catalog = catalog_of(&schemas);
        let args = [json!(schemas), Value::Array(table.iter().cloned().map(Value::Object).collect())];
        let plan: Value = serde_json::from_str(&api::call("syncCatalog", &args).unwrap()).unwrap();
        let names = names_of(&schemas);
        let expected_orphans: Vec<&Value> = table.iter().map(|r| &r["name"]).filter(|n| !names.iter().any(|c| *n == c.as_str())).collect();
        prop_assert_eq!(plan["orphans"].as_array().unwrap().iter().collect::<Vec<_>>(), expected_orphans.clone());
        for update in plan["updates"].as_array().unwrap() {
            for key in update["set"].as_object().unwrap().keys() {
                prop_assert!(!matches!(key.as_str(), "name" | "id" | "createTime"), "sync touched {}", key);
            }
        }

        let mut rows = table.clone();
        apply(&mut rows, &plan);
        for original in &table {
            prop_assert!(rows.iter().any(|r| r["name"] == original["name"]), "row {} deleted", original["name"]);
            let now = rows.iter().find(|r| r["name"] == original["name"]).unwrap();
            for key in ["id", "createTime"] {
                prop_assert_eq!(now.get(key), original.get(key));
            }
        }
        for name in &names {
            prop_assert!(rows.iter().any(|r| r["name"] == name.as_str()), "{} has no row", name);
        }
        let again = sync_catalog(&catalog, &rows);
        prop_assert!(again.inserts.is_empty() && again.updates.is_empty(), "{:?}", again);
        prop_assert_eq!(again.orphans.len(), expected_orphans.len());

        // Every synced row of a catalog tool reads back into a resolver input without error (orphans are
        // listed, never repaired).
        let governance = Value::Array(rows.into_iter().filter(|r| names.iter().any(|n| r["name"] == n.as_str())).map(Value::Object).collect());
        let read_back = api::call("resolveTools", &[json!({ "catalog": schemas, "governance": governance })]);
        prop_assert!(read_back.is_ok(), "{:?}", read_back);
    }
}

// ------------------------------------------------ roots (§5 worker policy)

/// An absolute root: POSIX or Windows, with `.`, `..`, empty segments and mixed separators.
fn root() -> impl Strategy<Value = (bool, String)> {
    let segment = select(&["a", "b", "src", "..", ".", "", "x y", "é"][..]);
    prop_oneof![
        vec(segment.clone(), 0..6).prop_map(|parts| (false, format!("/{}", parts.join("/")))),
        (select(&['c', 'C', 'd'][..]), vec((segment, select(&["\\", "/"][..])), 0..6)).prop_map(|(drive, parts)| {
            let mut out = format!("{drive}:{}", if parts.is_empty() { "\\" } else { "" });
            for (part, sep) in parts {
                out.push_str(sep);
                out.push_str(part);
            }
            (true, out)
        }),
    ]
}

/// An independent model of lexical normalization.
fn model_root(windows: bool, root: &str) -> String {
    let (prefix, sep, rest) = if windows { (format!("{}:\\", root[..1].to_ascii_uppercase()), "\\", &root[2..]) } else { ("/".to_string(), "/", root) };
    let mut stack: Vec<&str> = Vec::new();
    for part in rest.split(|c| c == '/' || (windows && c == '\\')) {
        match part {
            "" | "." => {}
            ".." => {
                stack.pop();
            }
            p => stack.push(p),
        }
    }
    prefix + &stack.join(sep)
}

proptest! {
    #![proptest_config(config())]

    /// Roots normalize as the model says, normalizing twice changes nothing, and duplicates after
    /// normalization keep only their first occurrence.
    #[test]
    fn roots_normalize_lexically_and_idempotently(roots in vec(root(), 1..6)) {
        let catalog = Catalog::builtin();
        let given: Vec<String> = roots.iter().map(|(_, r)| r.clone()).collect();
        let given: Vec<Root> = given.iter().map(|r| root_of(r)).collect();
        let policy = build_subprocess_worker_policy(&catalog, &WorkerPolicyInput { workspace_roots: given, ..Default::default() });
        let mut expected: Vec<String> = Vec::new();
        for (windows, r) in &roots {
            let m = model_root(*windows, r);
            if !expected.contains(&m) {
                expected.push(m);
            }
        }
        prop_assert_eq!(policy.workspace_roots.iter().map(|r| r.as_str()).collect::<Vec<_>>(), expected.iter().map(String::as_str).collect::<Vec<_>>());
        for r in &policy.workspace_roots {
            prop_assert!(!r.split(['/', '\\']).any(|s| s == "." || s == ".."), "{:?}", r);
            prop_assert!(r == "/" || r.len() == 3 || !(r.ends_with('/') || r.ends_with('\\')), "{:?}", r);
        }
        let again_given: Vec<Root> = policy.workspace_roots.iter().map(|r| root_of(r)).collect();
        let again = build_subprocess_worker_policy(&catalog, &WorkerPolicyInput { workspace_roots: again_given, ..Default::default() });
        prop_assert_eq!(again.workspace_roots, policy.workspace_roots);
    }
}

// ------------------------------------------------ the admin guard (§5 registry)

const ROW_FIELDS: [&str; 13] = [
    "name", "label", "toolset", "description", "visibility", "capability", "status", "isCore", "canDisable", "promptHint", "sort", "extra",
    "workerRoutingStrategy",
];

proptest! {
    #![proptest_config(config())]

    /// An edit form sending back the row's own name and mirror fields (flags as 0|1 or booleans) never
    /// meets `field_is_readonly`.
    #[test]
    fn mirror_fields_sent_back_unchanged_are_accepted(schemas in schemas().prop_filter("a tool", |s| !s.is_empty()), pick in any::<prop::sample::Index>(), send in vec(any::<bool>(), 6), as_bool in any::<bool>()) {
        let catalog = catalog_of(&schemas);
        let plan: Value = serde_json::from_str(&api::call("syncCatalog", &[json!(schemas), json!([])]).unwrap()).unwrap();
        let row = plan["inserts"][pick.index(schemas.len())].as_object().unwrap().clone();
        let mut patch = Map::new();
        for (field, send) in ["name", "toolset", "visibility", "capability", "isCore", "canDisable"].iter().zip(send) {
            if send {
                let v = row[*field].clone();
                let v = if as_bool && v.is_number() { Value::Bool(v == json!(1)) } else { v };
                patch.insert(field.to_string(), v);
            }
        }
        let name = row["name"].as_str().unwrap().to_string();
        let row = match json::js_normalize(Value::Object(row)) { Value::Object(m) => m, _ => unreachable!() };
        let patch = match json::js_normalize(Value::Object(patch)) { Value::Object(m) => m, _ => unreachable!() };
        let out = validate_tool_update(&catalog, &row, &name, &patch);
        prop_assert!(out.ok, "{:?}", out.errors);
    }

    /// Every error is reported once, in row-field order; `ok` exactly when there is none; keys that are
    /// not row fields are listed in `ignored`, in patch order.
    #[test]
    fn every_update_error_is_reported_in_row_field_order(
        schemas in schemas().prop_filter("a tool", |s| !s.is_empty()), pick in any::<prop::sample::Index>(),
        patch in vec((select(&["name", "label", "toolset", "description", "visibility", "capability", "status", "isCore", "canDisable", "promptHint", "sort", "extra", "workerRoutingStrategy", "id", "foo"][..]), field_value()), 0..10),
    ) {
        let catalog = catalog_of(&schemas);
        let tool = &schemas[pick.index(schemas.len())];
        let row: Map<String, Value> = [("name".to_string(), json!(tool.name)), ("status".to_string(), json!(1.0))].into_iter().collect();
        let patch: Map<String, Value> = patch.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let patch = match json::js_normalize(Value::Object(patch)) { Value::Object(m) => m, _ => unreachable!() };
        let out = validate_tool_update(&catalog, &row, &tool.name, &patch);
        let ignored: Vec<&String> = patch.keys().filter(|k| !ROW_FIELDS.contains(&k.as_str())).collect();
        prop_assert_eq!(out.ignored.iter().collect::<Vec<_>>(), ignored);
        match &out.errors {
            Some(errors) => {
                prop_assert!(!out.ok && !errors.is_empty() && out.row.is_none());
                let positions: Vec<usize> = errors.iter().map(|e| ROW_FIELDS.iter().position(|f| *f == e.field).unwrap()).collect();
                prop_assert!(positions.windows(2).all(|w| w[0] < w[1]), "{:?}", errors);
                for e in errors {
                    prop_assert!(patch.contains_key(&e.field));
                }
            }
            None => {
                prop_assert!(out.ok);
                let new_row = out.row.as_ref().unwrap();
                prop_assert_eq!(&new_row["name"], &json!(tool.name));
            }
        }
    }
}

// ------------------------------------------------ guidance (§5 prompt)

proptest! {
    #![proptest_config(config())]

    /// One line per distinct tool in the order given: the trimmed hint when it is not blank, else the
    /// default; a tool with neither is left out.
    #[test]
    fn guidance_prefers_the_hint_and_keeps_the_order(names in vec(tool_name(), 0..8), hinted in vec((tool_name(), "[ a-z]{0,6}"), 0..5)) {
        let hints: Map<String, Value> = hinted.iter().map(|(n, h)| (n.clone(), json!(h))).collect();
        let text: String = serde_json::from_str(&api::call("toolBehaviorGuidance", &[json!(names), Value::Object(hints.clone())]).unwrap()).unwrap();
        let defaults: String = serde_json::from_str(&api::call("toolBehaviorGuidance", &[json!(names)]).unwrap()).unwrap();
        let default_lines: Vec<&str> = defaults.lines().collect();
        let lines: Vec<&str> = if text.is_empty() { vec![] } else { text.split('\n').collect() };
        let mut expected_names: Vec<&String> = Vec::new();
        for n in &names {
            let hint = hints.get(n).and_then(Value::as_str).map(str::trim).filter(|h| !h.is_empty());
            let has_default = BUILTIN_NAMES.contains(&n.as_str());
            if !expected_names.contains(&n) && (hint.is_some() || has_default) {
                expected_names.push(n);
            }
        }
        prop_assert_eq!(lines.len(), expected_names.len(), "{}", text);
        for (line, name) in lines.iter().zip(&expected_names) {
            let prefix = format!("- {name}: ");
            prop_assert!(line.starts_with(&prefix), "{}", line);
            match hints.get(*name).and_then(Value::as_str).map(str::trim).filter(|h| !h.is_empty()) {
                Some(hint) => prop_assert_eq!(&line[prefix.len()..], hint),
                None => prop_assert!(default_lines.contains(line), "{}", line),
            }
        }
    }
}
