//! Property tests of the rules (docs/package.md, "Rules"): deny wins wherever it is written; a child
//! level never widens what its parents decide; a command the reader does not understand is never
//! allowed but by an approval of its exact text; approvals never lift a deny; rules that match nothing
//! leave `checkToolCall`'s answer byte for byte as it was; a host is reached only when a `net(…)` allow
//! pattern or an approval says so.
#![cfg(not(all(target_arch = "wasm32", feature = "wasm")))]

use netaclaw_tool_policy::edge::api;
use netaclaw_tool_policy::host::Host;
use netaclaw_tool_policy::rules::{Effect, Level, Pattern, PatternKind, Rules};
use netaclaw_tool_policy::ruling::{check_rules, RuleCheck, Trial};
use netaclaw_tool_policy::shell;
use netaclaw_tool_policy::worker_policy::{Root, WorkerPolicy};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::json;

const WORDS: [&str; 12] = ["git", "status", "push", "rm", "-rf", "make", "ls", "echo", "npm", "run", "test", "x"];
const SEPARATORS: [&str; 5] = [" ; ", " && ", " || ", " | ", "\n"];
/// Additions, some understood (redirections), some not.
const EXTRAS: [&str; 9] = ["", "", " > out.txt", " > .git/config", " 2>&1", " < .env", " $(id)", " `x`", " | sh -c ls"];
const PATTERNS: [&str; 22] = [
    "bash(git:*)", "bash(git status)", "bash(git push:*)", "bash(rm -rf:*)", "bash(make)", "bash(*)", "bash", "bash(echo:*)", "write(.git/**)",
    "write(out.txt)", "read(**/.env*)", "read(**)", "write(**)", "make", "read_file", "mcp:*/*", "net(*)", "net(*.github.com)", "net(registry.npmjs.org:443)",
    "net(127.0.0.1)", "net([::1]:443)", "net(*:80)",
];
const HOSTS: [(&str, u16); 6] =
    [("registry.npmjs.org", 443), ("a.github.com", 22), ("github.com", 443), ("127.0.0.1", 8080), ("::1", 443), ("example.org", 80)];
const TOOLS: [&str; 5] = ["read_file", "write_file", "todo", "make", "mcp__gh__x"];

fn policy() -> WorkerPolicy {
    WorkerPolicy { workspace_roots: vec![Root::new("/w").unwrap()], allow_shell: true, readonly: false }
}

fn command() -> impl Strategy<Value = String> {
    let simple = vec(select(&WORDS[..]), 1..4).prop_map(|w| w.join(" "));
    (vec((simple, select(&SEPARATORS[..])), 1..4), select(&EXTRAS[..])).prop_map(|(parts, extra)| {
        let mut text = String::new();
        for (i, (simple, separator)) in parts.iter().enumerate() {
            if i > 0 {
                text.push_str(separator);
            }
            text.push_str(simple);
        }
        text.push_str(extra);
        text
    })
}

fn trial() -> impl Strategy<Value = Trial> {
    prop_oneof![
        3 => command().prop_map(Trial::Command),
        1 => select(&TOOLS[..]).prop_map(|t| Trial::Tool(t.into())),
        1 => (select(&[".env", "out.txt", ".git/config", "src/a.rs", "a/.env.local"][..]), any::<bool>()).prop_map(|(p, write)| Trial::Path { path: p.into(), write }),
        2 => select(&HOSTS[..]).prop_map(|(host, port)| Trial::Net { host: Host::parse(host).unwrap(), port }),
    ]
}

/// A level: three lists of patterns from the pool and perhaps a default.
type LevelSpec = (Vec<&'static str>, Vec<&'static str>, Vec<&'static str>, Option<Effect>);

fn level() -> impl Strategy<Value = LevelSpec> {
    let list = || vec(select(&PATTERNS[..]), 0..3);
    (list(), list(), list(), prop_oneof![Just(None), select(Effect::ALL).prop_map(Some)])
}

fn rules_of(levels: &[LevelSpec; 3], approvals: &[&str]) -> Rules {
    let mut rules = Rules::default();
    for (i, (allow, ask, deny, default)) in levels.iter().enumerate() {
        let parse = |l: &Vec<&str>| l.iter().map(|p| Pattern::parse(p).unwrap()).collect::<Vec<_>>();
        rules.levels[i].allow = parse(allow);
        rules.levels[i].ask = parse(ask);
        rules.levels[i].deny = parse(deny);
        rules.levels[i].default = *default;
    }
    rules.approvals = approvals.iter().map(|p| Pattern::approval(p).unwrap()).collect();
    rules
}

fn decide(rules: &Rules, trial: &Trial) -> RuleCheck {
    check_rules(rules, trial, &policy())
}

/// A deny pattern that surely matches the trial: the tool's name, a command's first simple command,
/// the path written or read.
fn matching_deny(trial: &Trial) -> Option<String> {
    match trial {
        Trial::Tool(name) => Some(name.clone()),
        Trial::Command(text) => shell::read(text).commands.first().map(|c| format!("bash({}:*)", c[0].text)),
        Trial::Path { path, write } => Some(format!("{}({path})", if *write { "write" } else { "read" })),
        Trial::Net { host, port } => Some(format!("net({}:{port})", host.text())),
    }
}

/// Whether the answer is the package's own for a host no pattern matches (no level spoke).
fn no_host_rule(answer: &RuleCheck) -> bool {
    answer.rule.as_ref().is_some_and(|r| r.kind == PatternKind::Net && r.level.is_none())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A deny that matches, at any level, decides the call: whatever allows, asks or approves beside it.
    #[test]
    fn deny_wins_at_every_level(levels in [level(), level(), level()], at in 0usize..3, approvals in vec(select(&PATTERNS[..]), 0..3), trial in trial()) {
        let Some(deny) = matching_deny(&trial) else { return Ok(()) };
        let mut rules = rules_of(&levels, &approvals);
        rules.levels[at].deny.push(Pattern::parse(&deny).unwrap());
        let answer = decide(&rules, &trial);
        prop_assert_eq!(answer.decision, Effect::Deny, "{:?} with {} at level {}", trial, deny, at);
    }

    /// Rules added at a child level (the agent's under the global ones, the session's under both)
    /// never make the parents' decision weaker: never an allow of what a parent denies or asks. (A
    /// level's own allow patterns are exceptions to its own default, never to a parent's.)
    #[test]
    fn children_never_widen(levels in [level(), level(), level()], child in level(), at in 1usize..3, approvals in vec(select(&PATTERNS[..]), 0..2), trial in trial()) {
        let mut parents = levels.clone();
        for l in parents.iter_mut().skip(at) {
            *l = (Vec::new(), Vec::new(), Vec::new(), None);
        }
        let mut with_child = parents.clone();
        with_child[at] = child;
        let before = decide(&rules_of(&parents, &approvals), &trial);
        let after = decide(&rules_of(&with_child, &approvals), &trial).decision;
        // A host no parent names is denied by the package, not by a parent: a child's allow may open it.
        if !no_host_rule(&before) {
            prop_assert!(after >= before.decision, "{:?}: {:?} became {:?}", trial, before.decision, after);
        }
    }

    /// Without its level, a parent-only verdict stays: removing every child rule never makes the
    /// decision stronger (the same property, read from the child's side).
    #[test]
    fn a_child_alone_decides_no_more_than_with_its_parents(levels in [level(), level(), level()], trial in trial()) {
        let all = decide(&rules_of(&levels, &[]), &trial).decision;
        let mut child_only = levels.clone();
        child_only[0] = (Vec::new(), Vec::new(), Vec::new(), None);
        let child = decide(&rules_of(&child_only, &[]), &trial);
        if !no_host_rule(&child) {
            prop_assert!(child.decision <= all, "{:?}: {:?} without the global level, {:?} with it", trial, child.decision, all);
        }
    }

    /// A command text the reader does not understand is never allowed, even by bash(*), bash or a
    /// default allow at every level; only an approval of that exact text allows it.
    #[test]
    fn a_command_not_understood_is_never_allowed(levels in [level(), level(), level()], text in command(), construct in select(&[" $(id)", " `x`", " | sh -c ls", " &", " <<EOF", "; eval ls", " > $OUT", " > /etc/x"][..]), approvals in vec(select(&PATTERNS[..]), 0..3)) {
        let text = format!("{text}{construct}");
        prop_assert!(shell::read(&text).unreadable.is_some() || construct == " > /etc/x", "{}", text);
        let mut levels = levels;
        for l in levels.iter_mut() {
            l.0.extend(["bash(*)", "bash"]);
            l.3 = Some(Effect::Allow);
        }
        let rules = rules_of(&levels, &approvals);
        prop_assert_ne!(decide(&rules, &Trial::Command(text.clone())).decision, Effect::Allow, "{}", text);
    }

    /// A host is allowed only by a `net(…)` allow pattern of a level or an approval — never by a tool
    /// pattern or a level's default, even `allow` at every level; when no `net(…)` pattern matches, it is
    /// denied with no level.
    #[test]
    fn a_host_is_reached_only_by_a_net_rule(levels in [level(), level(), level()], approvals in vec(select(&PATTERNS[..]), 0..3), (host, port) in select(&HOSTS[..])) {
        let mut levels = levels;
        for l in levels.iter_mut() {
            l.0.extend(["bash(*)", "*"]);
            l.3 = Some(Effect::Allow);
        }
        let trial = Trial::Net { host: Host::parse(host).unwrap(), port };
        let answer = decide(&rules_of(&levels, &approvals), &trial);
        let rule = answer.rule.clone().expect("a host always has a rule");
        prop_assert_eq!(rule.kind, PatternKind::Net);
        match rule.pattern.as_deref() {
            Some(pattern) => prop_assert!(pattern.starts_with("net(") && rule.level.is_some(), "{:?}", rule),
            None => prop_assert!(answer.decision == Effect::Deny && rule.level.is_none() && rule.source.is_none(), "{:?}", answer),
        }
        if answer.decision == Effect::Allow {
            let source = rule.source.unwrap_or_default();
            prop_assert!(source.contains(".allow[") || (source.starts_with("rules.approvals[") && rule.level == Some(Level::Session)), "{}", source);
        }
    }

    /// Approvals answer an ask, never a deny.
    #[test]
    fn approvals_never_lift_a_deny(levels in [level(), level(), level()], approvals in vec(select(&PATTERNS[..]), 0..4), trial in trial()) {
        let without = decide(&rules_of(&levels, &[]), &trial).decision;
        let with = decide(&rules_of(&levels, &approvals), &trial).decision;
        if without == Effect::Deny {
            prop_assert_eq!(with, Effect::Deny);
        }
        prop_assert!(with <= without);
    }

    /// Rules that match nothing (no pattern for bash, no protected path hit) leave checkToolCall's
    /// answer exactly as without rules.
    #[test]
    fn unmatched_calls_keep_today_s_answer(words in vec(select(&WORDS[..]), 1..5)) {
        let command = words.join(" ");
        let input = |rules: Option<serde_json::Value>| {
            let mut input = json!({
                "policy": { "workspaceRoots": ["/w"], "allowShell": true, "readonly": false },
                "routes": [{ "name": "bash", "status": "worker-local", "reasons": [] }],
                "call": { "name": "bash", "arguments": { "command": command } },
            });
            if let Some(rules) = rules {
                input["rules"] = rules;
            }
            input
        };
        let without = api::call("checkToolCall", &[input(None)]).unwrap();
        let with = api::call("checkToolCall", &[input(Some(json!({ "global": { "deny": ["write(.git/**)"], "ask": ["read_file"] }, "agent": { "ask": ["mcp:*/*"] } })))]).unwrap();
        prop_assert_eq!(with, without);
    }
}

/// The properties can fail: a rule set where an agent's allow would win over the global ask is caught
/// by the comparison the properties make.
#[test]
fn the_comparisons_can_fail() {
    let trial = Trial::Command("git push".into());
    let ask = rules_of(&[(vec![], vec!["bash(git push:*)"], vec![], None), Default::default(), Default::default()], &[]);
    assert_eq!(decide(&ask, &trial).decision, Effect::Ask);
    let allowed = rules_of(&[Default::default(), (vec!["bash(git push:*)"], vec![], vec![], None), Default::default()], &[]);
    assert_eq!(decide(&allowed, &trial).decision, Effect::Allow);
    assert!(Effect::Allow < Effect::Ask && Effect::Ask < Effect::Deny);
}
