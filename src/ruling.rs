//! The rules applied to one call (`checkToolCall` / `ToolCallChecker` with `rules`), to one connection
//! (`checkNetwork`) and to one thing the pages try (`checkRules`): the same functions answer both, so
//! the "try it" box says what the backend and the network proxy will decide.

use crate::call::{workspace_path, ToolCallCheck};
use crate::host::Host;
use crate::rules::{decide, decide_net, Command, Effect, RuleMatch, Rules};
use crate::shell;
use crate::text::{concat, quote};
use crate::value::Value;
use crate::vocab::{ReasonCode, ToolCallDecision};
use crate::worker_policy::WorkerPolicy;
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// The rules' verdict on a call of `tool` (absent: a path alone) with a `bash` command text (absent:
/// not a shell call) touching `paths` (normalized, `true` when written), under `policy` (its roots
/// anchor relative patterns and redirections). `None`: no rule speaks.
pub fn rule_call(
    rules: &Rules,
    tool: Option<&str>,
    command: Option<&str>,
    paths: &[(&str, bool)],
    policy: &WorkerPolicy,
) -> (Option<RuleMatch>, Option<shell::Reading>) {
    let mut reading = command.map(shell::read);
    let mut all: Vec<(String, bool)> = paths.iter().map(|(p, w)| ((*p).to_string(), *w)).collect();
    if let Some(reading) = reading.as_mut() {
        // The code given to a shell with `-c`, read again (three levels deep at most): what it holds
        // can be denied or asked, never allowed (the whole text is already not understood).
        let mut redirects = std::mem::take(&mut reading.redirects);
        let mut queue = std::mem::take(&mut reading.inner);
        for _ in 0..3 {
            let mut next = Vec::new();
            for code in queue {
                let inner = shell::read(&code);
                reading.commands.extend(inner.commands);
                redirects.extend(inner.redirects);
                next.extend(inner.inner);
            }
            queue = next;
        }
        for redirect in &redirects {
            match workspace_path(Some(&redirect.path), redirect.write, policy) {
                Ok(path) => all.push((path, redirect.write)),
                Err((reason, _)) if reading.unreadable.is_none() => {
                    reading.unreadable = Some(if reason == ReasonCode::WriteBlockedByReadonlyPolicy {
                        "a redirection writing under a readonly policy"
                    } else {
                        "a redirection to a path outside the workspace roots"
                    });
                }
                Err(_) => {}
            }
        }
        reading.redirects = redirects;
    }
    let refs: Vec<(&str, bool)> = all.iter().map(|(p, w)| (p.as_str(), *w)).collect();
    let command = command.zip(reading.as_ref()).map(|(text, reading)| Command { text, reading });
    (decide(rules, tool, command, &refs, &policy.workspace_roots), reading)
}

/// What the rule says, for the model and the logs: `bash(git push:*) (rules.agent.ask[0])`.
fn describe(rule: &RuleMatch) -> String {
    match (&rule.pattern, &rule.source, rule.unreadable) {
        (_, None, Some(why)) => concat(&["the shell reader does not fully understand it (", why, ")"]),
        (Some(pattern), Some(source), _) => concat(&[pattern, " (", source, ")"]),
        (None, Some(source), _) => concat(&["the default of ", source.trim_end_matches(".default")]),
        _ => String::new(),
    }
}

/// `check` (today's answer on a call) under `rules`: a call that is already denied, or that no rule
/// speaks to, is answered as it was; otherwise `denied` (`denied_by_rule`), `ask`, or the same answer
/// naming the `allow` rule.
pub fn apply(check: ToolCallCheck, rules: &Rules, name: &str, arguments: Option<&Value>, policy: &WorkerPolicy) -> ToolCallCheck {
    if check.decision == ToolCallDecision::Denied {
        return check;
    }
    let command = if name == "bash" { arguments.and_then(|a| a.get("command")).and_then(Value::as_str) } else { None };
    let paths: Vec<(&str, bool)> = check.paths.iter().map(|p| (p.path.as_str(), p.write)).collect();
    let (Some(rule), _) = rule_call(rules, Some(name), command, &paths, policy) else { return check };
    match rule.effect {
        Effect::Allow => ToolCallCheck { rule: Some(rule), ..check },
        Effect::Deny => {
            let detail = concat(&[&quote(&rule.subject), " is denied by ", &describe(&rule)]);
            ToolCallCheck {
                decision: ToolCallDecision::Denied,
                reason: Some(ReasonCode::DeniedByRule),
                paths: Vec::new(),
                detail: Some(detail),
                rule: Some(rule),
                on_approval: None,
                arguments: check.arguments,
            }
        }
        Effect::Ask => {
            let detail = concat(&[&quote(&rule.subject), " needs the user's approval: ", &describe(&rule)]);
            ToolCallCheck { decision: ToolCallDecision::Ask, reason: None, detail: Some(detail), rule: Some(rule), on_approval: Some(check.decision), ..check }
        }
    }
}

/// What `checkRules` tries: a tool call by name, a `bash` command, a path read or written, or a
/// connection to a host and port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trial {
    Tool(String),
    Command(String),
    Path { path: String, write: bool },
    Net { host: Host, port: u16 },
}

/// The answer of `checkRules`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct RuleCheck {
    /// `allow` when no rule objects (a call is then decided as without rules), `ask` or `deny`.
    pub decision: Effect,
    /// The rule that decided; `null` when none spoke (or the path is outside every root).
    #[cfg_attr(feature = "types", tsify(type = "RuleMatch | null"))]
    pub rule: Option<RuleMatch>,
    /// `path_outside_workspace` (a path outside every root, denied whatever the rules say),
    /// `denied_by_rule` for a rule's `deny`, `host_not_allowed` for a host no `net(…)` rule allows;
    /// otherwise `null`.
    #[cfg_attr(feature = "types", tsify(type = "ReasonCode | RuleReasonCode | null"))]
    pub reason: Option<ReasonCode>,
    /// A command's simple commands as the reader read them, each its words (`[]` otherwise).
    pub commands: Vec<Vec<String>>,
    /// A path tried, absolute and normalized (`null` otherwise, or when it is outside every root).
    #[cfg_attr(feature = "types", tsify(type = "string | null"))]
    pub path: Option<String>,
}

/// `checkRules`: the rules' decision on one thing, as `checkToolCall` would take it.
pub fn check_rules(rules: &Rules, trial: &Trial, policy: &WorkerPolicy) -> RuleCheck {
    let (rule, reading, path) = match trial {
        Trial::Tool(name) => {
            let (rule, _) = rule_call(rules, Some(name), None, &[], policy);
            (rule, None, None)
        }
        Trial::Command(text) => {
            let (rule, reading) = rule_call(rules, Some("bash"), Some(text), &[], policy);
            (rule, reading, None)
        }
        Trial::Path { path, write } => match workspace_path(Some(path), false, policy) {
            Ok(full) => {
                let (rule, _) = rule_call(rules, None, None, &[(&full, *write)], policy);
                (rule, None, Some(full))
            }
            Err((reason, _)) => return RuleCheck { decision: Effect::Deny, rule: None, reason: Some(reason), commands: Vec::new(), path: None },
        },
        Trial::Net { host, port } => (Some(decide_net(rules, host, *port)), None, None),
    };
    let decision = rule.as_ref().map_or(Effect::Allow, |r| r.effect);
    let commands = reading.map(|r| r.commands.iter().map(|c| c.iter().map(|w| w.text.clone()).collect()).collect()).unwrap_or_default();
    let reason = rule.as_ref().filter(|_| decision == Effect::Deny).map(deny_reason);
    RuleCheck { decision, reason, rule, commands, path }
}

/// Why a rule's verdict denies: a rule, or (no level) no `net(…)` rule allowing the host.
fn deny_reason(rule: &RuleMatch) -> ReasonCode {
    if rule.level.is_none() && rule.kind == crate::rules::PatternKind::Net {
        ReasonCode::HostNotAllowed
    } else {
        ReasonCode::DeniedByRule
    }
}

/// The answer of `checkNetwork`: whether a sandbox may connect to a host and port.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct NetworkCheck {
    /// `allow` (connect), `ask` (wait for the user's approval) or `deny` (refuse).
    pub decision: Effect,
    /// The rule that decided (`kind` `net`, `subject` `host:port`); for a host no pattern matches,
    /// `deny` with `level`, `source` and `pattern` `null` (the default: no host).
    pub rule: RuleMatch,
    /// `denied_by_rule` for a `deny` pattern, `host_not_allowed` for a host no pattern matches;
    /// otherwise `null`.
    #[cfg_attr(feature = "types", tsify(type = "RuleReasonCode | null"))]
    pub reason: Option<ReasonCode>,
    /// The host, normalized: lower case, no trailing dot, an IPv6 address in brackets (`[::1]`).
    pub host: String,
    pub port: u16,
    /// A sentence for the client, the model and the logs:
    /// `"example.org:443" is denied by net(*.example.org) (rules.global.deny[0])`.
    pub detail: String,
}

/// `checkNetwork`: the rules' decision on a connection to `host:port`.
pub fn check_network(rules: &Rules, host: &Host, port: u16) -> NetworkCheck {
    let rule = decide_net(rules, host, port);
    let subject = quote(&rule.subject);
    let detail = match rule.effect {
        Effect::Allow => concat(&[&subject, " is allowed by ", &describe(&rule)]),
        Effect::Ask => concat(&[&subject, " needs the user's approval: ", &describe(&rule)]),
        Effect::Deny if rule.level.is_none() => concat(&[&subject, " is denied: no net(…) rule allows it"]),
        Effect::Deny => concat(&[&subject, " is denied by ", &describe(&rule)]),
    };
    let reason = (rule.effect == Effect::Deny).then(|| deny_reason(&rule));
    NetworkCheck { decision: rule.effect, reason, host: host.text(), port, detail, rule }
}
