//! The tool-guidance prompt layer (seed 001 Task 10): one line per tool, the admin's prompt hint when
//! one is given, else the package's default guidance.

use crate::names::NameMap;

/// The default guidance of every builtin tool (English).
pub const DEFAULT_GUIDANCE: [(&str, &str); 19] = [
    ("bash", "Run shell commands only inside the workspace; prefer the file tools for reading and searching, and never run destructive commands without being asked."),
    ("read_file", "Read a file before changing it, and read only the part you need."),
    ("list_dir", "List a directory to learn the layout before guessing paths."),
    ("find_files", "Find files by name pattern instead of listing directories one by one."),
    ("grep", "Search file contents with a precise pattern; narrow the path to keep results short."),
    ("write_file", "Write whole files only for new files or full rewrites; prefer edit or patch for changes."),
    ("edit", "Replace one exact, unique span of text; include enough context to match it once."),
    ("patch", "Apply small unified diffs with correct context lines; re-read the file if a hunk fails."),
    ("todo", "Keep the task list current: add steps before starting, mark each done when it is done."),
    ("clarify", "Ask one short question when the request is ambiguous instead of guessing."),
    ("escalate", "Hand over to a human only when you cannot proceed safely or were asked to."),
    ("read_skill", "Read a bound skill's instructions before using the skill."),
    ("read_skill_file", "Read a skill's files only when its instructions point to them."),
    ("skill_manage", "Change skills only when the user asks; describe what changed."),
    ("execute_skill", "Run a skill's scripts only as its instructions describe."),
    ("memory_save", "Save durable facts the user will want remembered; never save secrets."),
    ("memory_recall", "Recall memory when earlier context may matter before answering."),
    ("delegate_task", "Delegate a well-scoped task to a sub-agent with everything it needs to finish alone."),
    ("delegate_parallel", "Delegate independent tasks in parallel; never split work that depends on itself."),
];

/// The default guidance of `name`, if it is a builtin tool.
pub fn default_guidance(name: &str) -> Option<&'static str> {
    DEFAULT_GUIDANCE.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// `toolBehaviorGuidance`: `- {name}: {text}` per tool, in the order given (each tool once), joined
/// by `\n`. A hint that is blank after trimming counts as absent; a tool with neither a hint nor a
/// default is left out.
pub fn tool_behavior_guidance(tool_names: &[&str], hints: Option<&NameMap<String>>) -> String {
    let mut out = String::new();
    let firsts = crate::names::FirstIndex::new(crate::names::positions(tool_names));
    let hint_index = hints.map(|h| crate::names::FirstIndex::new(h.entries().iter().enumerate().map(|(i, (k, _))| (k.as_str(), i)).collect()));
    for (position, name) in tool_names.iter().enumerate() {
        if !firsts.is_first(name, position) {
            continue;
        }
        let hint = hints
            .zip(hint_index.as_ref())
            .and_then(|(h, index)| index.get(name).and_then(|i| h.entries().get(i)))
            .map(|(_, h)| h.trim())
            .filter(|h| !h.is_empty());
        if let Some(text) = hint.or_else(|| default_guidance(name)) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str("- ");
            out.push_str(name);
            out.push_str(": ");
            out.push_str(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_win_over_defaults_and_unknown_tools_are_left_out() {
        let hints = NameMap::new(vec![("patch".to_string(), "  Keep hunks tiny. ".to_string()), ("grep".to_string(), " ".to_string())]);
        let text = tool_behavior_guidance(&["patch", "mystery", "grep", "patch"], Some(&hints));
        assert_eq!(text, format!("- patch: Keep hunks tiny.\n- grep: {}", default_guidance("grep").unwrap()));
        assert_eq!(tool_behavior_guidance(&[], None), "");
    }

    #[test]
    fn every_builtin_tool_has_a_default() {
        for b in crate::catalog::BUILTINS {
            assert!(default_guidance(b.name).is_some(), "{}", b.name);
        }
    }
}
