#![no_main]
use libfuzzer_sys::fuzz_target;
use netaclaw_tool_policy::rules::{Effect, Rules};
use netaclaw_tool_policy::ruling::{check_rules, Trial};
use netaclaw_tool_policy::shell::{read, INTERPRETERS, RUNS_OTHERS, SHELLS};
use netaclaw_tool_policy::worker_policy::{Root, WorkerPolicy};

/// The text where the shell expands (single-quoted parts and backslash-escaped characters taken out,
/// comments too), and the part of it outside double quotes (a scanner of its own, not the reader's).
fn unquoted(text: &str) -> (String, String) {
    let (mut expanding, mut outside) = (String::new(), String::new());
    let mut chars = text.chars();
    let mut double = false;
    while let Some(c) = chars.next() {
        let word_start = expanding.chars().last().is_none_or(|p| p.is_whitespace() || ";&|()<>".contains(p));
        let mut push = |c: char, outside_too: bool| {
            expanding.push(c);
            outside.push(if outside_too { c } else { ' ' });
        };
        match c {
            '#' if !double && word_start => {
                for q in chars.by_ref() {
                    if q == '\n' {
                        break;
                    }
                }
                push('\n', true);
            }
            '\'' if !double => {
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                }
                push(' ', true);
            }
            '"' => {
                double = !double;
                push(' ', true);
            }
            '\\' => {
                chars.next();
                push(' ', true);
            }
            _ => push(c, !double),
        }
    }
    (expanding, outside)
}

/// Whether a redirection's file stays in the root `/w`: not absolute (`/x`, or `d:/x`, `d:\\x`, which the
/// call gate takes for a Windows path and keeps outside a POSIX root), no `..` segment.
fn inside_root(path: &str) -> bool {
    let windows = matches!(path.as_bytes(), [b'a'..=b'z' | b'A'..=b'Z', b':', b'\\' | b'/', ..]);
    !path.starts_with('/') && !windows && !path.split('/').any(|s| s == "..")
}

// The shell reader on any text: it never panics, reads the same text the same way, and what it calls
// understood holds no substitution, no command that runs others, no open or assigned command name; a
// text it does not understand is never allowed by the rules, even by bash(*).
fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let reading = read(&text);
    assert_eq!(reading, read(&text), "the reader is deterministic");
    for command in &reading.commands {
        assert!(!command.is_empty(), "a simple command has a word");
    }
    if reading.unreadable.is_none() {
        let (expanding, outside) = unquoted(&text);
        for construct in ["$(", "`"] {
            assert!(!expanding.contains(construct), "{construct} read as understood in {text:?}");
        }
        for construct in ["<(", ">("] {
            assert!(!outside.contains(construct), "{construct} read as understood in {text:?}");
        }
        for command in &reading.commands {
            let name = &command[0];
            assert!(!name.open, "an open command name read as understood: {text:?}");
            let base = name.text.rsplit('/').next().unwrap_or_default();
            assert!(!RUNS_OTHERS.contains(&base) && !SHELLS.contains(&base), "{base} read as understood: {text:?}");
            if INTERPRETERS.contains(&base) {
                assert!(!command.iter().any(|w| w.text == "-c" || w.text == "-e"), "inline code read as understood: {text:?}");
            }
            // `NAME=...` with NAME a shell name is an assignment; a word with other characters before
            // its `=` is a command's name (bash runs `FOOé=1` as a command).
            let assigned = name.text.split_once('=').is_some_and(|(n, _)| {
                let n = n.strip_suffix('+').unwrap_or(n);
                n.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            });
            assert!(!assigned, "an assignment read as a command: {text:?}");
        }
    }
    let rules = Rules { levels: Default::default(), protected: Vec::new(), approvals: Vec::new() };
    let mut rules = rules;
    rules.levels[1].allow = vec![netaclaw_tool_policy::rules::Pattern::parse("bash(*)").expect("a pattern")];
    rules.levels[1].default = Some(Effect::Ask);
    let policy = WorkerPolicy { workspace_roots: vec![Root::new("/w").expect("a root")], allow_shell: true, readonly: false };
    let answer = check_rules(&rules, &Trial::Command(text.to_string()), &policy);
    if reading.unreadable.is_some() {
        assert_ne!(answer.decision, Effect::Allow, "a text not understood was allowed: {text:?}");
    } else if !reading.commands.is_empty() && reading.redirects.iter().all(|r| inside_root(&r.path)) {
        assert_eq!(answer.decision, Effect::Allow, "bash(*) allows every understood text with no absolute redirection: {text:?}");
    }
});
