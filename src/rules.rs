//! Rules finer than a tool: `allow`, `ask` and `deny` lists of patterns — a tool, a shell command
//! prefix, a path read or written, a host reached — at three levels (global, agent, session), narrowing only.
//! The contract is in docs/package.md ("Rules"); in short:
//!
//! - A call is cut into *subjects*: a `bash` call into its simple commands (read by [`crate::shell`])
//!   and the files it redirects to, any other call into its tool name; then every path the call
//!   touches, read or written.
//! - Each level gives each subject a verdict: the strongest of its matching patterns (deny over ask
//!   over allow), else the level's `default` (commands and tool names only; absent: no verdict).
//!   Protected paths are `deny` write patterns of the global level.
//! - The call's verdict is the strongest over every level and every subject: a child level can only
//!   add `ask` and `deny`, never allow what its parent denies or asks.
//! - A command text the reader does not understand never matches an `allow` pattern: it is `ask`
//!   unless something denies.
//! - Approvals ("allow for this session", the user's answers) turn a subject's `ask` into `allow` when
//!   they match it; never a `deny`.
//! - A host (`net(…)`) is decided by `net(…)` patterns alone: no level's `default` speaks for it, and
//!   one that no pattern allows is denied (the package's default: no host).

use crate::host::{self, Host};
use crate::shell::{self, Word};
use crate::text::concat;
use crate::vocab::string_enum;
use crate::worker_policy::Root;
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

string_enum!(
    /// What a rule does to what it matches; ordered from the weakest.
    Effect { Allow = "allow", Ask = "ask", Deny = "deny" }
);
string_enum!(
    /// Where a rule comes from: the admin's global rules, the agent's, the session's (or a sub-agent's).
    Level { Global = "global", Agent = "agent", Session = "session" }
);
string_enum!(
    /// The kinds of pattern: `read_file` or `mcp:github/*` (a tool), `bash(git status)` (a command),
    /// `read(.env*)` or `write(.git/hooks/**)` (a path), `net(*.npmjs.org:443)` (a host and port).
    PatternKind { Tool = "tool", Bash = "bash", Read = "read", Write = "write", Net = "net" }
);

/// The protected paths of every writable root when the global rules do not list their own.
pub const DEFAULT_PROTECTED_PATHS: [&str; 2] = [".git/hooks/**", ".git/config"];

/// The longest pattern, in bytes.
pub const MAX_PATTERN: usize = 1_024;

/// One parsed pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub kind: PatternKind,
    /// The pattern as written (`bash(git status:*)`).
    pub text: String,
    body: Body,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Body {
    /// A tool name glob (`*` any characters).
    Tool(String),
    /// A command: its words (each a glob of `*` within the word), then whether any further words
    /// may follow (`:*` or a last word `*`); `text` is the body as written, for approvals of a whole
    /// command text.
    Command { words: Vec<String>, tail: bool, text: String },
    /// A path glob: `/`-separated segments, absolute (`/x`, `C:/x`) or relative to each root.
    Path { segments: Vec<String>, absolute: bool },
    /// A host (and a port, when written).
    Net { host: NetHost, port: Option<u16> },
}

/// The host of a `net(…)` pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
enum NetHost {
    /// `net(*)`: every host name (never an IP literal).
    Any,
    /// `net(example.org)`: that name; `net(127.0.0.1)`, `net([::1])`: that address.
    Exact(Host),
    /// `net(*.example.org)`: every name below it (`a.example.org`, `a.b.example.org`), not the name itself.
    Below(String),
}

impl Pattern {
    /// Parses one pattern; the error says what is wrong (the caller names where).
    pub fn parse(text: &str) -> Result<Pattern, String> {
        if text.is_empty() {
            return Err("must not be empty".into());
        }
        if text.len() > MAX_PATTERN {
            return Err(concat(&["is longer than ", &crate::text::decimal(MAX_PATTERN as u64), " bytes"]));
        }
        if text.contains('\0') {
            return Err("must not contain a NUL character".into());
        }
        let Some((kind, body)) = text.strip_suffix(')').and_then(|t| t.split_once('(')) else {
            if text.contains(['(', ')']) {
                return Err("must be a tool name, or kind(…) with kind bash, read, write or net".into());
            }
            return Ok(Pattern { kind: PatternKind::Tool, text: text.into(), body: Body::Tool(tool_glob(text)?) });
        };
        let body = match kind {
            "bash" => command_body(body)?,
            "read" | "write" => path_body(body)?,
            "net" => net_body(body)?,
            _ => return Err(concat(&["has an unknown kind ", &crate::text::quote(kind), " (one of bash, read, write, net, or a tool name)"])),
        };
        let kind = match kind {
            "bash" => PatternKind::Bash,
            "read" => PatternKind::Read,
            "net" => PatternKind::Net,
            _ => PatternKind::Write,
        };
        Ok(Pattern { kind, text: text.into(), body })
    }

    /// An approval ("allow for this session"): a pattern, or `bash(<text>)` holding a whole command
    /// text the reader does not understand, which then approves exactly that text.
    pub fn approval(text: &str) -> Result<Pattern, String> {
        match Pattern::parse(text) {
            Ok(pattern) => Ok(pattern),
            Err(why) => match text.strip_prefix("bash(").and_then(|t| t.strip_suffix(')')) {
                Some(body) if !body.trim().is_empty() && !body.contains('\0') && text.len() <= MAX_PATTERN => {
                    Ok(Pattern { kind: PatternKind::Bash, text: text.into(), body: Body::Command { words: Vec::new(), tail: false, text: body.into() } })
                }
                _ => Err(why),
            },
        }
    }

    /// A protected path: a path glob written without `write(…)` (`.git/hooks/**`).
    pub fn protected(glob: &str) -> Result<Pattern, String> {
        if glob.len() > MAX_PATTERN {
            return Err(concat(&["is longer than ", &crate::text::decimal(MAX_PATTERN as u64), " bytes"]));
        }
        if glob.contains('\0') {
            return Err("must not contain a NUL character".into());
        }
        Ok(Pattern { kind: PatternKind::Write, text: concat(&["write(", glob, ")"]), body: path_body(glob)? })
    }
}

/// A tool name glob; `mcp:<server>/<tool>` stands for the MCP tool `mcp__<server>__<tool>`.
fn tool_glob(text: &str) -> Result<String, String> {
    let name = match text.strip_prefix("mcp:") {
        Some(rest) => {
            let (server, tool) = rest.split_once('/').ok_or("an MCP pattern reads mcp:<server>/<tool> (either may be *)")?;
            concat(&["mcp__", server, "__", tool])
        }
        None => text.into(),
    };
    if name.bytes().any(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'*'))) {
        return Err("a tool pattern may hold letters, digits, _ - . and *".into());
    }
    Ok(name)
}

/// The body of `bash(…)`: words read as the shell reader reads them (quotes allowed), then an
/// optional `:*` (or a last word `*`) for any further words.
fn command_body(body: &str) -> Result<Body, String> {
    let (head, tail) = match body.strip_suffix(":*") {
        Some(head) => (head, true),
        None => (body, false),
    };
    let reading = shell::read(head);
    let Some(words) = reading.commands.first().filter(|_| reading.commands.len() == 1 && reading.redirects.is_empty() && reading.unreadable.is_none()) else {
        // `*` alone, or a bare glob: read as plain words.
        let words: Vec<String> = head.split_whitespace().map(String::from).collect();
        if words.first().is_some_and(|w| w == "*") && words.len() == 1 && !tail {
            return Ok(Body::Command { words: Vec::new(), tail: true, text: body.into() });
        }
        if words.is_empty() {
            return Err("a bash pattern names a command: bash(git status), bash(npm run test:*)".into());
        }
        if words.iter().any(|w| w.contains(['$', '`', '(', ')', ';', '&', '|', '<', '>', '\'', '"', '\\'])) || !head.contains('*') {
            return Err("a bash pattern is one simple command: words, an optional :* at the end (no operators, redirections or substitutions)".into());
        }
        return command_words(words, tail, body);
    };
    command_words(words.iter().map(|w: &Word| w.text.clone()).collect(), tail, body)
}

fn command_words(mut words: Vec<String>, mut tail: bool, body: &str) -> Result<Body, String> {
    if !tail && words.last().is_some_and(|w| w == "*") {
        words.pop();
        tail = true;
    }
    if words.first().is_some_and(|w| w.contains('*')) && words.len() > 1 {
        return Err("a bash pattern's command name may not hold * unless it is the only word".into());
    }
    Ok(Body::Command { words, tail, text: body.into() })
}

/// The body of `read(…)` / `write(…)`: a glob of `/`-separated segments (`\` reads as `/`), each
/// `**` (any number of segments) or a segment glob of `*` and `?`; no empty, `.` or `..` segment.
fn path_body(body: &str) -> Result<Body, String> {
    let normalized = body.replace('\\', "/");
    let drive = matches!(normalized.as_bytes(), [b'a'..=b'z' | b'A'..=b'Z', b':', b'/', ..]);
    let absolute = normalized.starts_with('/') || drive;
    let rest = if drive { &normalized[3..] } else { normalized.trim_start_matches('/') };
    if body.is_empty() {
        return Err("a path pattern names a path: read(**/.env*), write(.git/**)".into());
    }
    if normalized.starts_with("//") {
        return Err("a path pattern may not be a UNC path".into());
    }
    let mut segments: Vec<String> = Vec::new();
    if drive {
        segments.push(normalized[..2].to_ascii_uppercase());
    }
    if !rest.is_empty() {
        for segment in rest.split('/') {
            if matches!(segment, "" | "." | "..") {
                return Err("a path pattern has no empty, . or .. segment".into());
            }
            if segment.contains("**") && segment != "**" {
                return Err("** must be a whole segment (a/**/b)".into());
            }
            segments.push(segment.into());
        }
    }
    if !absolute && segments.is_empty() {
        return Err("a path pattern names a path: read(**/.env*), write(.git/**)".into());
    }
    Ok(Body::Path { segments, absolute })
}

/// The body of `net(…)`: `*`, a host name, `*.` and a host name, an IPv4 address or a bracketed IPv6
/// one, then an optional `:port`.
fn net_body(body: &str) -> Result<Body, String> {
    const HELP: &str = " (net(example.org), net(*.example.org:443), net(127.0.0.1:8080), net([::1]:443), net(*))";
    let with_help = |why: String| concat(&["a net pattern ", &why, HELP]);
    let (text, port) = host::split_port(body).map_err(with_help)?;
    let host = match text {
        "*" => NetHost::Any,
        _ => match text.strip_prefix("*.") {
            Some(name) => NetHost::Below(host::host_name(name.strip_suffix('.').unwrap_or(name)).map_err(with_help)?),
            None if text.contains('*') => return Err(with_help("has * only as the whole host or as its first label (*.example.org)".into())),
            None => NetHost::Exact(Host::parse(text).map_err(with_help)?),
        },
    };
    Ok(Body::Net { host, port })
}

/// Whether a `net(…)` pattern matches a host and port.
fn net_match(pattern: &NetHost, want: Option<u16>, host: &Host, port: u16) -> bool {
    let hosts = match (pattern, host) {
        (NetHost::Any, Host::Name(_)) => true,
        (NetHost::Exact(h), _) => h == host,
        (NetHost::Below(suffix), Host::Name(name)) => {
            name.len() > suffix.len() + 1 && name.ends_with(suffix.as_str()) && name.as_bytes()[name.len() - suffix.len() - 1] == b'.'
        }
        _ => false,
    };
    hosts && want.is_none_or(|p| p == port)
}

/// Whether `text` matches a glob of `*` (any characters) and `?` (one character).
fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, usize::MAX, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) && p[pi] != '*' {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = pi;
            mark = ti;
            pi += 1;
        } else if star != usize::MAX {
            pi = star + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Whether path segments match glob segments (`**`: any number of segments).
fn segments_match(pattern: &[String], path: &[&str]) -> bool {
    // reach[j]: the pattern's first i segments can match the path's first j.
    let mut reach = vec![false; path.len() + 1];
    reach[0] = true;
    for segment in pattern {
        let mut next = vec![false; path.len() + 1];
        if segment == "**" {
            let mut any = false;
            for j in 0..=path.len() {
                any |= reach[j];
                next[j] = any;
            }
        } else {
            for j in 0..path.len() {
                next[j + 1] = reach[j] && glob(segment, path[j]);
            }
        }
        reach = next;
    }
    reach[path.len()]
}

/// How surely a pattern matches a command: an open word may turn out to match, or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sure {
    No,
    Maybe,
    Yes,
}

fn command_match(words: &[String], tail: bool, command: &[Word]) -> Sure {
    // A command name the shell would expand is matched by nothing: the text is not understood (ask).
    if command.first().is_none_or(|w| w.open) {
        return Sure::No;
    }
    for (i, pattern) in words.iter().enumerate() {
        let Some(word) = command.get(i) else { return Sure::No };
        if word.open {
            return Sure::Maybe;
        }
        if !glob(pattern, &word.text) {
            return Sure::No;
        }
    }
    match command.get(words.len()) {
        None => Sure::Yes,
        Some(_) if tail => Sure::Yes,
        // An open word may expand to nothing.
        Some(_) if command[words.len()..].iter().all(|w| w.open) => Sure::Maybe,
        Some(_) => Sure::No,
    }
}

/// The rules of one level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LevelRules {
    pub allow: Vec<Pattern>,
    pub ask: Vec<Pattern>,
    pub deny: Vec<Pattern>,
    /// What a command or a tool call that no pattern of this level matches gets (`None`: nothing).
    pub default: Option<Effect>,
}

impl LevelRules {
    fn list(&self, effect: Effect) -> &[Pattern] {
        match effect {
            Effect::Allow => &self.allow,
            Effect::Ask => &self.ask,
            Effect::Deny => &self.deny,
        }
    }
}

/// Every rule of a call: the three levels, the protected paths, the session's approvals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// By [`Level`]: global, agent, session.
    pub levels: [LevelRules; 3],
    /// Write globs denied in every writable root (global; [`DEFAULT_PROTECTED_PATHS`] unless given).
    pub protected: Vec<Pattern>,
    /// The user's "allow for this session" answers: patterns that turn an `ask` into `allow`.
    pub approvals: Vec<Pattern>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules { levels: Default::default(), protected: default_protected(), approvals: Vec::new() }
    }
}

/// [`DEFAULT_PROTECTED_PATHS`], parsed.
pub fn default_protected() -> Vec<Pattern> {
    DEFAULT_PROTECTED_PATHS.iter().filter_map(|g| Pattern::protected(g).ok()).collect()
}

/// What the rules editor offers (`ruleDefaults()`): the default protected paths, the effects, the
/// levels and the pattern kinds, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RuleDefaults {
    pub protected_paths: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "Effect[]"))]
    pub effects: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "Level[]"))]
    pub levels: &'static [&'static str],
    #[cfg_attr(feature = "types", tsify(type = "PatternKind[]"))]
    pub kinds: &'static [&'static str],
    /// The commands the shell reader never lets an `allow` match (they run other commands).
    pub runs_other_commands: Vec<&'static str>,
    /// Interpreters read as not understood when given inline code (`-c`, `-e`, `-p`, `-r`, `--eval` …).
    pub interpreters: &'static [&'static str],
}

/// [`RuleDefaults`].
pub fn rule_defaults() -> RuleDefaults {
    RuleDefaults {
        protected_paths: &DEFAULT_PROTECTED_PATHS,
        effects: Effect::NAMES,
        levels: Level::NAMES,
        kinds: PatternKind::NAMES,
        runs_other_commands: shell::RUNS_OTHERS.iter().chain(shell::SHELLS.iter()).copied().collect(),
        interpreters: &shell::INTERPRETERS,
    }
}

/// The rule that decided a subject.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RuleMatch {
    pub effect: Effect,
    /// The level of the rule; `null` for a command the reader does not understand and for a host no
    /// `net(…)` rule allows (the default: no host).
    #[cfg_attr(feature = "types", tsify(type = "Level | null"))]
    pub level: Option<Level>,
    /// Where the rule sits in the input: `rules.agent.ask[0]`, `rules.global.protectedPaths[1]`
    /// (the default list when none is given), `rules.session.default`, `rules.approvals[2]`; `null`
    /// for a command the reader does not understand and for a host no rule allows.
    #[cfg_attr(feature = "types", tsify(type = "string | null"))]
    pub source: Option<String>,
    /// The pattern as written (`bash(git push:*)`; a protected path as `write(.git/hooks/**)`);
    /// `null` for a level's default and for a command the reader does not understand.
    #[cfg_attr(feature = "types", tsify(type = "string | null"))]
    pub pattern: Option<String>,
    /// What it matched: the kind of subject and its text (a simple command's words joined by one
    /// space, a normalized path, a tool name, or the whole command text).
    pub kind: PatternKind,
    pub subject: String,
    /// Why the command was not understood (`command substitution`, …); `null` when it was.
    #[cfg_attr(feature = "types", tsify(type = "string | null"))]
    pub unreadable: Option<&'static str>,
}

/// One thing of a call a rule can match.
#[derive(Clone, Debug)]
pub enum Subject<'a> {
    /// A call of a tool other than `bash`.
    Tool(&'a str),
    /// A simple command of a `bash` call.
    Command(&'a [Word]),
    /// A path the call reads or writes: absolute, normalized.
    Path { path: &'a str, write: bool },
    /// A host and port a sandbox connects to.
    Net { host: &'a Host, port: u16 },
}

impl Subject<'_> {
    fn kind(&self) -> PatternKind {
        match self {
            Subject::Tool(_) => PatternKind::Tool,
            Subject::Command(_) => PatternKind::Bash,
            Subject::Path { write: true, .. } => PatternKind::Write,
            Subject::Path { .. } => PatternKind::Read,
            Subject::Net { .. } => PatternKind::Net,
        }
    }

    fn text(&self) -> String {
        match self {
            Subject::Tool(name) => (*name).into(),
            Subject::Command(words) => words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" "),
            Subject::Path { path, .. } => (*path).into(),
            Subject::Net { host, port } => concat(&[&host.text(), ":", &crate::text::decimal(u64::from(*port))]),
        }
    }
}

/// How surely `pattern` matches `subject` (`roots`: the relative path patterns' roots).
fn pattern_match(pattern: &Pattern, subject: &Subject, roots: &[Root]) -> Sure {
    match (&pattern.body, subject) {
        (Body::Tool(g), Subject::Tool(name)) => sure(glob(g, name)),
        // A tool pattern naming `bash` matches each of its commands.
        (Body::Tool(g), Subject::Command(_)) => sure(glob(g, "bash")),
        (Body::Command { words, tail, .. }, Subject::Command(command)) => command_match(words, *tail, command),
        (Body::Path { segments, absolute }, Subject::Path { path, write }) if (pattern.kind == PatternKind::Write) == *write => {
            sure(path_match(segments, *absolute, path, roots))
        }
        (Body::Net { host: pattern, port: want }, Subject::Net { host, port }) => sure(net_match(pattern, *want, host, *port)),
        _ => Sure::No,
    }
}

fn sure(yes: bool) -> Sure {
    if yes {
        Sure::Yes
    } else {
        Sure::No
    }
}

fn split_path(path: &str) -> Vec<&str> {
    path.split(['/', '\\']).filter(|s| !s.is_empty()).collect()
}

/// Whether a normalized absolute path matches a path glob: an absolute glob against the whole path, a
/// relative one against the path below each root that holds it.
fn path_match(segments: &[String], absolute: bool, path: &str, roots: &[Root]) -> bool {
    if absolute {
        return segments_match(segments, &split_path(path));
    }
    roots.iter().any(|root| {
        let Ok(p) = Root::new(path) else { return false };
        if !p.within(root) {
            return false;
        }
        let below = &path[root.as_str().len().min(path.len())..];
        segments_match(segments, &split_path(below))
    })
}

/// One level's verdict on one subject.
fn level_verdict(rules: &LevelRules, level: Level, subject: &Subject, roots: &[Root], readable: bool) -> Option<RuleMatch> {
    for effect in [Effect::Deny, Effect::Ask, Effect::Allow] {
        for (i, pattern) in rules.list(effect).iter().enumerate() {
            let m = pattern_match(pattern, subject, roots);
            // An `allow` needs a sure match on a readable command; `deny` and `ask` take a maybe.
            let counts = match effect {
                Effect::Allow => m == Sure::Yes && readable,
                _ => m != Sure::No,
            };
            if counts {
                let source = concat(&["rules.", level.as_str(), ".", effect.as_str(), "[", &crate::text::decimal(i as u64), "]"]);
                return Some(found(effect, Some(level), Some(source), Some(pattern.text.clone()), subject));
            }
        }
    }
    let default = rules.default.filter(|_| !matches!(subject, Subject::Path { .. } | Subject::Net { .. }))?;
    Some(found(default, Some(level), Some(concat(&["rules.", level.as_str(), ".default"])), None, subject))
}

fn found(effect: Effect, level: Option<Level>, source: Option<String>, pattern: Option<String>, subject: &Subject) -> RuleMatch {
    RuleMatch { effect, level, source, pattern, kind: subject.kind(), subject: subject.text(), unreadable: None }
}

/// The verdict on one subject over every level (the strongest; the first level of it), then the
/// approvals on an `ask`.
fn subject_verdict(rules: &Rules, subject: &Subject, roots: &[Root], readable: bool) -> Option<RuleMatch> {
    let mut best: Option<RuleMatch> = None;
    if let Subject::Path { write: true, .. } = subject {
        for (i, pattern) in rules.protected.iter().enumerate() {
            if pattern_match(pattern, subject, roots) == Sure::Yes {
                let source = concat(&["rules.global.protectedPaths[", &crate::text::decimal(i as u64), "]"]);
                return Some(found(Effect::Deny, Some(Level::Global), Some(source), Some(pattern.text.clone()), subject));
            }
        }
    }
    for level in Level::ALL {
        if let Some(m) = level_verdict(&rules.levels[*level as usize], *level, subject, roots, readable) {
            if best.as_ref().is_none_or(|b| m.effect > b.effect) {
                best = Some(m);
            }
        }
    }
    if best.as_ref().is_some_and(|b| b.effect == Effect::Ask) && readable {
        for (i, pattern) in rules.approvals.iter().enumerate() {
            if pattern_match(pattern, subject, roots) == Sure::Yes {
                let source = concat(&["rules.approvals[", &crate::text::decimal(i as u64), "]"]);
                return Some(found(Effect::Allow, Some(Level::Session), Some(source), Some(pattern.text.clone()), subject));
            }
        }
    }
    best
}

/// Whether any level says something about commands: a `bash(…)` pattern, a tool pattern that names
/// `bash`, or a `default` of `ask` or `deny`. Only then can a command the reader does not understand
/// get around a rule, and only then is it asked (paths are held by the OS sandbox as well).
fn speaks_of_commands(rules: &Rules) -> bool {
    rules.levels.iter().any(|level| {
        matches!(level.default, Some(Effect::Ask | Effect::Deny))
            || [&level.allow, &level.ask, &level.deny].iter().any(|list| {
                list.iter().any(|p| match &p.body {
                    Body::Command { .. } => true,
                    Body::Tool(g) => glob(g, "bash"),
                    Body::Path { .. } | Body::Net { .. } => false,
                })
            })
    })
}

/// A `bash` command text, read: its simple commands and whether it was understood.
pub struct Command<'a> {
    pub text: &'a str,
    pub reading: &'a shell::Reading,
}

/// The decision of the rules on one call: the strongest verdict over its subjects (the first subject
/// of it), or `None` when no rule speaks (the call keeps the answer it had without rules).
/// `command`: a `bash` call's command; `paths`: every path it touches (`write` when written).
pub fn decide(rules: &Rules, tool: Option<&str>, command: Option<Command>, paths: &[(&str, bool)], roots: &[Root]) -> Option<RuleMatch> {
    let mut best: Option<RuleMatch> = None;
    let mut consider = |m: Option<RuleMatch>| {
        if let Some(m) = m {
            if best.as_ref().is_none_or(|b| m.effect > b.effect) {
                best = Some(m);
            }
        }
    };
    match &command {
        Some(c) if !c.reading.commands.is_empty() => {
            let readable = c.reading.unreadable.is_none();
            for words in &c.reading.commands {
                consider(subject_verdict(rules, &Subject::Command(words), roots, readable));
            }
        }
        _ => {
            if let Some(tool) = tool {
                consider(subject_verdict(rules, &Subject::Tool(tool), roots, true));
            }
        }
    }
    for (path, write) in paths {
        consider(subject_verdict(rules, &Subject::Path { path, write: *write }, roots, true));
    }
    if let Some(c) = command.as_ref().filter(|c| c.reading.unreadable.is_some() && speaks_of_commands(rules)) {
        if best.as_ref().is_none_or(|b| b.effect < Effect::Deny) {
            // Understood by nobody: asked, unless the user approved this exact text for the session.
            let subject = c.text.trim();
            let approval = rules.approvals.iter().position(|p| matches!(&p.body, Body::Command { text, tail: false, .. } if text.trim() == subject));
            return Some(match approval {
                Some(i) => RuleMatch {
                    effect: Effect::Allow,
                    level: Some(Level::Session),
                    source: Some(concat(&["rules.approvals[", &crate::text::decimal(i as u64), "]"])),
                    pattern: Some(rules.approvals[i].text.clone()),
                    kind: PatternKind::Bash,
                    subject: subject.into(),
                    unreadable: c.reading.unreadable,
                },
                None => RuleMatch {
                    effect: Effect::Ask,
                    level: None,
                    source: None,
                    pattern: None,
                    kind: PatternKind::Bash,
                    subject: subject.into(),
                    unreadable: c.reading.unreadable,
                },
            });
        }
    }
    best
}

/// The decision of the rules on a connection to `host:port`: the strongest `net(…)` verdict over
/// every level (the approvals on an `ask`), or, when no pattern matches, `deny` with no level, source
/// or pattern — no host is reached unless a rule allows it.
pub fn decide_net(rules: &Rules, host: &Host, port: u16) -> RuleMatch {
    let subject = Subject::Net { host, port };
    subject_verdict(rules, &subject, &[], true).unwrap_or_else(|| found(Effect::Deny, None, None, None, &subject))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Pattern {
        Pattern::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn globs() {
        assert!(glob("*", ""));
        assert!(glob(".env*", ".env.local"));
        assert!(!glob(".env*", "a.env"));
        assert!(glob("a?c", "abc"));
        assert!(!glob("a?c", "ac"));
        let segs = |g: &str| g.split('/').map(String::from).collect::<Vec<_>>();
        assert!(segments_match(&segs("**/.env*"), &[".env"]));
        assert!(segments_match(&segs("**/.env*"), &["a", "b", ".env.x"]));
        assert!(segments_match(&segs(".git/**"), &[".git"]));
        assert!(segments_match(&segs(".git/**"), &[".git", "hooks", "x"]));
        assert!(!segments_match(&segs(".git/**"), &["a", ".git"]));
    }

    #[test]
    fn patterns_parse_or_say_why_not() {
        assert_eq!(p("bash(git status:*)").body, Body::Command { words: vec!["git".into(), "status".into()], tail: true, text: "git status:*".into() });
        assert_eq!(
            p("bash(npm run test *)").body,
            Body::Command { words: vec!["npm".into(), "run".into(), "test".into()], tail: true, text: "npm run test *".into() }
        );
        assert_eq!(p("mcp:github/*").body, Body::Tool("mcp__github__*".into()));
        for bad in [
            "", "net(ex*.org)", "net(a.*.org)", "net(::1)", "net(127.1)", "net()", "net(*.)", "net(a:0)", "net(*.0.1)", "bash()", "bash(a; b)",
            "bash(echo $(x))", "read(../x)", "write(a//b)", "read(a**b)", "x y", "Bash(git)",
        ] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn net_patterns_match_hosts_and_ports() {
        let host = |h: &str| Host::parse(h).unwrap();
        let m = |pattern: &str, h: &str, port: u16| pattern_match(&p(pattern), &Subject::Net { host: &host(h), port }, &[]) == Sure::Yes;
        assert!(m("net(example.org)", "EXAMPLE.org.", 443));
        assert!(m("net(example.org)", "example.org", 80));
        assert!(!m("net(example.org)", "a.example.org", 443));
        assert!(m("net(*.example.org)", "a.b.example.org", 443));
        assert!(!m("net(*.example.org)", "example.org", 443));
        assert!(!m("net(*.example.org)", "aexample.org", 443));
        assert!(m("net(example.org:443)", "example.org", 443));
        assert!(!m("net(example.org:443)", "example.org", 80));
        assert!(m("net(*)", "anything.test", 1));
        assert!(!m("net(*)", "127.0.0.1", 80));
        assert!(m("net(127.0.0.1:8080)", "127.0.0.1", 8080));
        assert!(m("net([::1]:443)", "::1", 443));
        assert!(m("net([0:0::1])", "[::1]", 443));
        assert!(!m("net(localhost)", "127.0.0.1", 80));
        // A tool pattern or a level's default never speaks for a host; no match is the default: deny.
        let rules = Rules {
            levels: [LevelRules { allow: vec![p("*")], default: Some(Effect::Allow), ..Default::default() }, LevelRules::default(), LevelRules::default()],
            ..Rules::default()
        };
        let d = decide_net(&rules, &host("example.org"), 443);
        assert_eq!((d.effect, d.level, d.source, d.subject.as_str()), (Effect::Deny, None, None, "example.org:443"));
    }
}
