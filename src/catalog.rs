//! The tool catalog: `ToolSchema` (a catalog entry as registered in code) and the builtin catalog of
//! SPEC §4 with `TOOLSET_DEFAULTS`.

use crate::value::{Static, Value};
use crate::vocab::{Capability, ExecutionMode, ToolKind, Visibility, WorkerRoutingHint};
use serde::Serialize;
use std::sync::{Arc, OnceLock};
#[cfg(feature = "types")]
use tsify::Tsify;

/// The toolsets a legacy agent (no `toolsets`) gets.
pub const TOOLSET_DEFAULTS: [&str; 5] = ["base", "planning", "memory", "skills", "delegation"];

/// Toolsets that exist even when no tool of the catalog is in them (reserved for OCR and documents).
pub const RESERVED_TOOLSETS: [&str; 2] = ["vision", "document"];

/// A catalog entry. `name` (1–100 characters) and `toolset` (1–50) are required; every other field
/// falls back to the builtin table (for a builtin name) or to the defaults of its kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Default)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolSchema {
    pub name: String,
    pub toolset: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "string | null"))]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "Visibility | null"))]
    pub visibility: Option<Visibility>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "Capability | null"))]
    pub capability: Option<Capability>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "boolean | null"))]
    pub is_core: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "boolean | null"))]
    pub can_disable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "boolean | null"))]
    pub supports_prompt_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "ToolKind | null"))]
    pub kind: Option<ToolKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "ExecutionMode | null"))]
    pub execution_mode: Option<ExecutionMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "boolean | null"))]
    pub supported_in_worker: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "WorkerRoutingHint | null"))]
    pub worker_routing_hint: Option<WorkerRoutingHint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "boolean | null"))]
    pub requires_shell: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "boolean | null"))]
    pub requires_write: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "boolean | null"))]
    pub requires_skill_scope: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "boolean | null"))]
    pub requires_workspace_root: Option<bool>,
    /// The tool's arguments as a JSON Schema object: what a model is offered and what `checkToolCall`
    /// validates (shared, so that copying a schema or a manifest does not copy it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "JsonSchema | null"))]
    pub parameters: Option<Parameters>,
    /// Set by `fromMcpTool` when the tool cannot be called: its argument schema uses a keyword the
    /// call check does not understand (or a malformed one), and this says which and where; every
    /// call of the tool is denied with the same text. Absent: usable. A catalog reads no such field.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional, type = "string"))]
    pub unusable_reason: Option<String>,
}

impl ToolSchema {
    /// A schema with only the required fields.
    pub fn new(name: impl Into<String>, toolset: impl Into<String>) -> Self {
        ToolSchema { name: name.into(), toolset: toolset.into(), ..Default::default() }
    }
}

/// One row of the builtin table (SPEC §4).
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    pub name: &'static str,
    pub toolset: &'static str,
    pub description: &'static str,
    pub kind: ToolKind,
    pub is_core: bool,
    pub visibility: Visibility,
    pub hint: WorkerRoutingHint,
    pub in_worker: bool,
    pub mode: ExecutionMode,
    pub shell: bool,
    pub write: bool,
    pub skill: bool,
    pub root: bool,
}

macro_rules! builtin {
    ($name:literal, $toolset:literal, $kind:ident, $core:literal, $vis:ident, $hint:ident, $worker:literal, $mode:ident,
     shell $shell:literal, write $write:literal, skill $skill:literal, root $root:literal, $desc:literal) => {
        Builtin {
            name: $name,
            toolset: $toolset,
            description: $desc,
            kind: ToolKind::$kind,
            is_core: $core,
            visibility: Visibility::$vis,
            hint: WorkerRoutingHint::$hint,
            in_worker: $worker,
            mode: ExecutionMode::$mode,
            shell: $shell,
            write: $write,
            skill: $skill,
            root: $root,
        }
    };
}

/// The builtin table, in the order of SPEC §4.
pub const BUILTINS: [Builtin; 19] = [
    builtin!("bash", "base", Builtin, false, Tool, Local, true, Parallel, shell true, write false, skill false, root true,
        "Run a shell command in the session's workspace."),
    builtin!("read_file", "base", Builtin, false, Tool, Local, true, Parallel, shell false, write false, skill false, root true,
        "Read a text file from the workspace."),
    builtin!("list_dir", "base", Builtin, false, Tool, Local, true, Parallel, shell false, write false, skill false, root true,
        "List the entries of a directory in the workspace."),
    builtin!("find_files", "base", Builtin, false, Tool, Local, true, Parallel, shell false, write false, skill false, root true,
        "Find files in the workspace by name pattern."),
    builtin!("grep", "base", Builtin, false, Tool, Local, true, Parallel, shell false, write false, skill false, root true,
        "Search file contents in the workspace with a regular expression."),
    builtin!("write_file", "base", Builtin, false, Tool, MainProcessProxy, false, Sequential, shell false, write true, skill false, root true,
        "Create or overwrite a file in the workspace."),
    builtin!("edit", "base", Builtin, false, Tool, MainProcessProxy, false, Sequential, shell false, write true, skill false, root true,
        "Replace an exact span of text in a workspace file."),
    builtin!("patch", "base", Builtin, false, Tool, MainProcessProxy, false, Sequential, shell false, write true, skill false, root true,
        "Apply a unified diff to files in the workspace."),
    builtin!("todo", "planning", Builtin, true, Internal, MainProcessProxy, false, Parallel, shell false, write false, skill false, root false,
        "Keep the agent's task list for the current session."),
    builtin!("clarify", "planning", Builtin, true, Tool, MainProcessProxy, false, Sequential, shell false, write false, skill false, root false,
        "Ask the user a clarifying question and wait for the answer."),
    builtin!("escalate", "planning", Builtin, false, Tool, MainProcessProxy, false, Sequential, shell false, write false, skill false, root false,
        "Hand the conversation over to a human operator."),
    builtin!("read_skill", "skills", Skill, false, Tool, MainProcessProxy, false, Parallel, shell false, write false, skill true, root false,
        "Read the instructions of a skill bound to the agent."),
    builtin!("read_skill_file", "skills", Skill, false, Tool, MainProcessProxy, false, Parallel, shell false, write false, skill true, root false,
        "Read a file shipped with a bound skill."),
    builtin!("skill_manage", "skills", Skill, false, Tool, MainProcessProxy, false, Parallel, shell false, write true, skill true, root false,
        "Create, update or delete the agent's skills."),
    builtin!("execute_skill", "skills", Skill, false, Tool, MainProcessProxy, false, Parallel, shell true, write false, skill true, root false,
        "Run a script shipped with a bound skill."),
    builtin!("memory_save", "memory", Memory, false, Tool, MainProcessProxy, false, Parallel, shell false, write false, skill false, root false,
        "Save a fact to the agent's long-term memory."),
    builtin!("memory_recall", "memory", Memory, false, Tool, MainProcessProxy, false, Parallel, shell false, write false, skill false, root false,
        "Recall facts from the agent's long-term memory."),
    builtin!("delegate_task", "delegation", Delegation, false, Tool, Disabled, false, Sequential, shell false, write false, skill false, root false,
        "Delegate a task to a crew sub-agent."),
    builtin!("delegate_parallel", "delegation", Delegation, false, Tool, Disabled, false, Sequential, shell false, write false, skill false, root false,
        "Delegate several tasks to crew sub-agents in parallel."),
];

/// The builtin table row of `name`, if it is a builtin tool.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

impl Builtin {
    /// The full schema of this builtin: every field present.
    pub fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name.to_string(),
            toolset: self.toolset.to_string(),
            description: Some(self.description.to_string()),
            visibility: Some(self.visibility),
            capability: Some(Capability::Text),
            is_core: Some(self.is_core),
            can_disable: Some(!self.is_core),
            supports_prompt_hint: Some(self.kind == ToolKind::Builtin),
            kind: Some(self.kind),
            execution_mode: Some(self.mode),
            supported_in_worker: Some(self.in_worker),
            worker_routing_hint: Some(self.hint),
            requires_shell: Some(self.shell),
            requires_write: Some(self.write),
            requires_skill_scope: Some(self.skill),
            requires_workspace_root: Some(self.root),
            parameters: Some(self.parameters()),
            unusable_reason: None,
        }
    }

    /// The JSON Schema of this builtin's arguments.
    pub fn parameters(&self) -> Parameters {
        Parameters::Builtin(BUILTINS.iter().position(|b| b.name == self.name).unwrap_or(usize::MAX))
    }
}

/// A tool's arguments as a JSON Schema object: a builtin's, fixed when the crate is built, or one
/// given as JSON (shared, so that copying a schema or a manifest does not copy it). Both print as
/// JSON alike; [`Parameters::as_value`] is the schema as a `serde_json` value.
#[derive(Clone, Debug)]
pub enum Parameters {
    /// The schema at this position of the builtin schemas: a builtin's (the order of [`BUILTINS`]),
    /// or, after them, the empty schema.
    Builtin(usize),
    Given(Arc<Value>),
}

impl Parameters {
    /// The schema as a JSON value (a builtin's is built once, the first time one is asked for).
    pub fn as_value(&self) -> &Value {
        static NULL: Value = Value::Null;
        match self {
            Parameters::Builtin(at) => builtin_values().get(*at).unwrap_or(&NULL),
            Parameters::Given(value) => value,
        }
    }
}

impl From<Value> for Parameters {
    fn from(value: Value) -> Self {
        Parameters::Given(Arc::new(value))
    }
}

impl PartialEq for Parameters {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Parameters::Builtin(a), Parameters::Builtin(b)) if a == b => true,
            _ => self.as_value() == other.as_value(),
        }
    }
}

impl Eq for Parameters {}

impl Serialize for Parameters {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Parameters::Builtin(at) => BUILTIN_PARAMETERS.get(*at).unwrap_or(&Static::Null).serialize(serializer),
            Parameters::Given(value) => value.serialize(serializer),
        }
    }
}

/// The argument schemas of the builtins, in the order of [`BUILTINS`], then the empty schema:
/// `src/parameters.json` as Rust data (`build.rs`).
static BUILTIN_PARAMETERS: &[Static] = include!(concat!(env!("OUT_DIR"), "/parameters.rs"));

/// [`BUILTIN_PARAMETERS`] as JSON values, built once.
fn builtin_values() -> &'static [Value] {
    static VALUES: OnceLock<Vec<Value>> = OnceLock::new();
    VALUES.get_or_init(|| BUILTIN_PARAMETERS.iter().map(Static::to_value).collect())
}

/// The schema of a tool that declares no arguments: any object (`{"type":"object","properties":{}}`).
pub fn empty_parameters() -> Parameters {
    Parameters::Builtin(BUILTINS.len())
}

/// The builtin catalog: every field present, in the order of SPEC §4.
pub fn builtin_catalog() -> Vec<ToolSchema> {
    BUILTINS.iter().map(Builtin::schema).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_catalog_matches_the_spec_table() {
        let names: Vec<_> = BUILTINS.iter().map(|b| b.name).collect();
        assert_eq!(
            names,
            [
                "bash", "read_file", "list_dir", "find_files", "grep", "write_file", "edit", "patch", "todo", "clarify", "escalate", "read_skill",
                "read_skill_file", "skill_manage", "execute_skill", "memory_save", "memory_recall", "delegate_task", "delegate_parallel"
            ]
        );
        let core: Vec<_> = BUILTINS.iter().filter(|b| b.is_core).map(|b| b.name).collect();
        assert_eq!(core, ["todo", "clarify"]);
        let shell: Vec<_> = BUILTINS.iter().filter(|b| b.shell).map(|b| b.name).collect();
        assert_eq!(shell, ["bash", "execute_skill"]);
        let write: Vec<_> = BUILTINS.iter().filter(|b| b.write).map(|b| b.name).collect();
        assert_eq!(write, ["write_file", "edit", "patch", "skill_manage"]);
        let local: Vec<_> = BUILTINS.iter().filter(|b| b.hint == WorkerRoutingHint::Local).map(|b| b.name).collect();
        assert_eq!(local, ["bash", "read_file", "list_dir", "find_files", "grep"]);
        assert!(BUILTINS.iter().all(|b| b.in_worker == (b.hint == WorkerRoutingHint::Local)));
        let todo = builtin("todo").map(Builtin::schema).unwrap();
        assert_eq!(todo.visibility, Some(Visibility::Internal));
        assert_eq!(todo.can_disable, Some(false));
    }

    #[test]
    fn the_builtin_schemas_are_the_json_text_as_javascript_reads_it() {
        let text: Value = serde_json::from_str(include_str!("parameters.json")).unwrap();
        let read = crate::value::js_normalize(text);
        let read = read.as_array().unwrap();
        assert_eq!(BUILTIN_PARAMETERS.len(), BUILTINS.len() + 1, "one schema per builtin, then the empty schema");
        assert_eq!(read.len(), BUILTIN_PARAMETERS.len());
        for (at, value) in read.iter().enumerate() {
            let parameters = Parameters::Builtin(at);
            assert_eq!(parameters.as_value(), value, "schema {at} as a value");
            // Printed without a value, byte for byte as the value prints.
            assert_eq!(crate::value::js_text(&serde_json::to_value(&parameters).unwrap()), crate::value::js_text(value));
            assert_eq!(crate::value::to_js_string(&parameters).unwrap(), crate::value::js_text(value), "schema {at} printed");
            assert_eq!(parameters, Parameters::from(value.clone()), "a builtin schema equals the same schema given");
        }
        assert_eq!(empty_parameters().as_value(), &serde_json::json!({"type": "object", "properties": {}}));
        assert_ne!(Parameters::Builtin(0), Parameters::Builtin(1));
        assert_eq!(builtin("grep").unwrap().parameters(), Parameters::Builtin(4));
    }

    #[test]
    fn static_json_prints_as_the_same_value_prints() {
        static V: Static = Static::Object(&[
            ("b", Static::Array(&[Static::Null, Static::Bool(true), Static::U32(7), Static::U32(4_294_967_295), Static::Str("x\u{1f}\"\\")])),
            ("a", Static::Object(&[])),
        ]);
        let value = serde_json::json!({"b": [null, true, 7, 4_294_967_295u32, "x\u{1f}\"\\"], "a": {}});
        assert_eq!(V.to_value(), value);
        assert_eq!(crate::value::to_js_string(&V).unwrap(), crate::value::js_text(&value));
        assert_eq!(crate::value::to_js_string(&V).unwrap(), r#"{"b":[null,true,7,4294967295,"x\u001f\"\\"],"a":{}}"#);
    }
}
