//! Registry rules for the `netaclaw_tool` table (seed 001 Task 4): the catalog → table sync plan, and
//! the guard every admin update passes. Mirror fields belong to the code, human fields to the admin.

use crate::manifest::{Catalog, ToolManifest};
use crate::names::NameMap;
use crate::value::{Map, Value};
use crate::vocab::{ReasonCode, RoutingStrategy};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// The longest `label` a row may hold, in characters (the column's width).
pub const MAX_LABEL: usize = 200;
/// The longest `description` or `promptHint` a row may hold, in characters.
pub const MAX_TEXT: usize = 65_536;

/// Every field of a row, in the order of SPEC §7 (`set` and errors follow it).
pub const ROW_FIELDS: [&str; 13] = [
    "name", "label", "toolset", "description", "visibility", "capability", "status", "isCore", "canDisable", "promptHint", "sort", "extra",
    "workerRoutingStrategy",
];

/// Fields owned by the code: they follow the catalog and cannot be edited.
pub const MIRROR_FIELDS: [&str; 5] = ["toolset", "visibility", "capability", "isCore", "canDisable"];

/// A full `netaclaw_tool` row, as a sync inserts it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ToolGovernanceRow {
    pub name: String,
    pub label: String,
    pub toolset: String,
    pub description: String,
    pub visibility: crate::vocab::Visibility,
    pub capability: crate::vocab::Capability,
    #[cfg_attr(feature = "types", tsify(type = "0 | 1"))]
    pub status: u8,
    #[cfg_attr(feature = "types", tsify(type = "0 | 1"))]
    pub is_core: u8,
    #[cfg_attr(feature = "types", tsify(type = "0 | 1"))]
    pub can_disable: u8,
    #[cfg_attr(feature = "types", tsify(type = "string | null"))]
    pub prompt_hint: Option<String>,
    pub sort: i64,
    #[cfg_attr(feature = "types", tsify(type = "unknown"))]
    pub extra: Value,
    pub worker_routing_strategy: RoutingStrategy,
}

/// The changes one existing row needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct RowUpdate {
    pub name: String,
    /// Changed fields, in row-field order.
    #[cfg_attr(feature = "types", tsify(type = "Partial<ToolGovernanceRow>"))]
    pub set: NameMap<Value>,
}

/// What a sync must do to make the table follow the catalog.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct SyncPlan {
    pub inserts: Vec<ToolGovernanceRow>,
    pub updates: Vec<RowUpdate>,
    /// Rows whose tool left the catalog: listed, never deleted.
    pub orphans: Vec<String>,
}

fn flag(value: bool) -> u8 {
    u8::from(value)
}

/// `0|1|true|false` as a boolean; anything else is `None`.
fn as_flag(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) if n.as_f64() == Some(0.0) => Some(false),
        Value::Number(n) if n.as_f64() == Some(1.0) => Some(true),
        _ => None,
    }
}

/// A safe integer (what a JS number can hold exactly).
fn as_safe_integer(value: &Value) -> Option<i64> {
    let x = value.as_f64()?;
    (x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_991.0).then_some(x as i64)
}

fn within(text: &str, max: usize) -> bool {
    text.len() <= max || crate::text::scalar_count(text, max.saturating_add(1)) <= max
}

/// The mirror value of `field` for a manifest, as stored in the table.
fn mirror_value(tool: &ToolManifest, field: &str) -> Value {
    match field {
        "toolset" => Value::String(tool.toolset.clone()),
        "visibility" => Value::String(tool.visibility.as_str().to_string()),
        "capability" => Value::String(tool.capability.as_str().to_string()),
        "isCore" => Value::from(flag(tool.is_core)),
        _ => Value::from(flag(tool.can_disable)),
    }
}

/// Whether a stored mirror value equals the code's (`true`/`false` equal `1`/`0` for the flags).
fn mirror_equal(field: &str, stored: Option<&Value>, code: &Value) -> bool {
    match (field, stored) {
        (_, None) => false,
        ("isCore" | "canDisable", Some(v)) => as_flag(v).is_some() && as_flag(v) == as_flag(code),
        (_, Some(v)) => v == code,
    }
}

/// The row a new catalog tool gets.
pub fn insert_row(tool: &ToolManifest) -> ToolGovernanceRow {
    ToolGovernanceRow {
        name: tool.name.clone(),
        label: tool.name.clone(),
        toolset: tool.toolset.clone(),
        description: tool.description.clone(),
        visibility: tool.visibility,
        capability: tool.capability,
        status: 1,
        is_core: flag(tool.is_core),
        can_disable: flag(tool.can_disable),
        prompt_hint: None,
        sort: 0,
        extra: Value::Null,
        worker_routing_strategy: RoutingStrategy::Auto,
    }
}

/// What a human field of an existing row must become, if it is absent, null or outside its type.
fn repair_human_field(tool: &ToolManifest, field: &str, stored: Option<&Value>) -> Option<Value> {
    let present = stored.filter(|v| !v.is_null());
    match field {
        "label" => match present {
            Some(Value::String(s)) if within(s, MAX_LABEL) => None,
            _ => Some(Value::String(tool.name.clone())),
        },
        "description" => match present {
            Some(Value::String(_)) => None,
            _ => Some(Value::String(tool.description.clone())),
        },
        "status" => match present {
            Some(v) if as_flag(v).is_some() => None,
            None => Some(Value::from(1)),
            Some(_) => Some(Value::from(flag(tool.is_protected()))),
        },
        "promptHint" => match stored {
            None => Some(Value::Null),
            Some(Value::Null | Value::String(_)) => None,
            Some(_) => Some(Value::Null),
        },
        "sort" => match present {
            Some(v) if as_safe_integer(v).is_some() => None,
            _ => Some(Value::from(0)),
        },
        "extra" => stored.is_none().then_some(Value::Null),
        _ => match present {
            Some(Value::String(s)) if RoutingStrategy::parse(s).is_some() => None,
            _ => Some(Value::String(RoutingStrategy::Auto.as_str().to_string())),
        },
    }
}

/// `syncCatalog`: inserts for new tools; for existing rows, mirror fields that differ from the code and
/// human fields that are missing or outside their type; orphans listed, never deleted. Rows must have
/// distinct string names (checked at the edge). Applying the plan and syncing again yields nothing.
pub fn sync_catalog(catalog: &Catalog, rows: &[Map<String, Value>]) -> SyncPlan {
    let row_names: Vec<(&str, usize)> = rows.iter().enumerate().filter_map(|(i, r)| r.get("name").and_then(Value::as_str).map(|n| (n, i))).collect();
    let index = crate::names::FirstIndex::new(row_names);
    let row_of = |name: &str| index.get(name).and_then(|i| rows.get(i));
    let mut plan = SyncPlan { inserts: Vec::new(), updates: Vec::new(), orphans: Vec::new() };
    for tool in catalog.tools() {
        let Some(row) = row_of(&tool.name) else {
            plan.inserts.push(insert_row(tool));
            continue;
        };
        let mut set: Vec<(String, Value)> = Vec::new();
        for field in &ROW_FIELDS[1..] {
            let stored = row.get(*field);
            let change = if MIRROR_FIELDS.contains(field) {
                let code = mirror_value(tool, field);
                (!mirror_equal(field, stored, &code)).then_some(code)
            } else {
                repair_human_field(tool, field, stored)
            };
            if let Some(value) = change {
                set.push((field.to_string(), value));
            }
        }
        if !set.is_empty() {
            plan.updates.push(RowUpdate { name: tool.name.clone(), set: NameMap::new(set) });
        }
    }
    for row in rows {
        if let Some(name) = row.get("name").and_then(Value::as_str) {
            if catalog.position(name).is_none() {
                plan.orphans.push(name.to_string());
            }
        }
    }
    plan
}

/// One refused field of an update.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct FieldError {
    pub field: String,
    pub code: ReasonCode,
}

/// The guard's answer: `{ok: true, row, ignored}` or `{ok: false, errors, ignored}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UpdateOutcome {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<FieldError>>,
    /// Patch keys that are not row fields, in patch order.
    pub ignored: Vec<String>,
}

/// How the guard sees the row's tool: from the manifest, or from the row for an orphan.
pub(crate) struct Guarded {
    pub protected: bool,
    pub supports_prompt_hint: bool,
}

pub(crate) fn guarded(catalog: &Catalog, row: &Map<String, Value>, name: &str) -> Guarded {
    match catalog.get(name) {
        Some(tool) => Guarded { protected: tool.is_protected(), supports_prompt_hint: tool.supports_prompt_hint },
        None => {
            let is_core = row.get("isCore").and_then(as_flag).unwrap_or(false);
            let can_disable = row.get("canDisable").and_then(as_flag).unwrap_or(!is_core);
            Guarded { protected: is_core && !can_disable, supports_prompt_hint: false }
        }
    }
}

/// The value a human field takes from a patch value, or the error code refusing it.
fn patched_human_value(field: &str, value: &Value, name: &str, guard: &Guarded) -> Result<Value, ReasonCode> {
    let invalid = Err(ReasonCode::InvalidValue);
    match (field, value) {
        ("label", Value::Null) => Ok(Value::String(name.to_string())),
        ("label", Value::String(s)) if within(s, MAX_LABEL) => Ok(value.clone()),
        ("description", Value::Null) => Ok(Value::String(String::new())),
        ("description" | "promptHint", Value::String(s)) if !within(s, MAX_TEXT) => invalid,
        ("description", Value::String(_)) => Ok(value.clone()),
        ("status", v) if as_safe_integer(v) == Some(0) && !v.is_boolean() => {
            if guard.protected {
                Err(ReasonCode::CoreToolCannotBeDisabled)
            } else {
                Ok(Value::from(0))
            }
        }
        ("status", v) if as_safe_integer(v) == Some(1) && !v.is_boolean() => Ok(Value::from(1)),
        ("promptHint", Value::Null) => Ok(Value::Null),
        ("promptHint", Value::String(s)) if !s.trim().is_empty() && !guard.supports_prompt_hint => Err(ReasonCode::PromptHintNotSupported),
        ("promptHint", Value::String(_)) => Ok(value.clone()),
        ("sort", Value::Null) => Ok(Value::from(0)),
        ("sort", v) => as_safe_integer(v).map(Value::from).ok_or(ReasonCode::InvalidValue),
        ("extra", v) => Ok(v.clone()),
        ("workerRoutingStrategy", Value::Null) => Ok(Value::String(RoutingStrategy::Auto.as_str().to_string())),
        ("workerRoutingStrategy", Value::String(s)) if RoutingStrategy::parse(s).is_some() => Ok(value.clone()),
        _ => invalid,
    }
}

/// `validateToolUpdate`: checks a patch against a row. Mirror fields and `name` may only be sent back
/// unchanged; a protected core tool cannot get `status` 0; prompt hints only where supported; values
/// of the wrong type are `invalid_value`. Every error is reported, in row-field order.
pub fn validate_tool_update(catalog: &Catalog, row: &Map<String, Value>, name: &str, patch: &Map<String, Value>) -> UpdateOutcome {
    let guard = guarded(catalog, row, name);
    let ignored: Vec<String> = patch.keys().filter(|k| !ROW_FIELDS.contains(&k.as_str())).cloned().collect();
    let mut errors = Vec::new();
    let mut changes: Vec<(&str, Value)> = Vec::new();
    for field in ROW_FIELDS {
        let Some(value) = patch.get(field) else { continue };
        if field == "name" || MIRROR_FIELDS.contains(&field) {
            let stored = row.get(field).unwrap_or(&Value::Null);
            let same = if matches!(field, "isCore" | "canDisable") { as_flag(stored).is_some() && as_flag(stored) == as_flag(value) } else { stored == value };
            if !same {
                errors.push(FieldError { field: field.to_string(), code: ReasonCode::FieldIsReadonly });
            }
            continue;
        }
        match patched_human_value(field, value, name, &guard) {
            Ok(v) => changes.push((field, v)),
            Err(code) => errors.push(FieldError { field: field.to_string(), code }),
        }
    }
    if !errors.is_empty() {
        return UpdateOutcome { ok: false, row: None, errors: Some(errors), ignored };
    }
    let mut out = row.clone();
    for (field, value) in changes {
        out.insert(field.to_string(), value);
    }
    UpdateOutcome { ok: true, row: Some(out), errors: None, ignored }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match crate::json::js_normalize(v) {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    fn apply(rows: &mut Vec<Map<String, Value>>, plan: &SyncPlan) {
        for insert in &plan.inserts {
            rows.push(obj(serde_json::to_value(insert).unwrap()));
        }
        for update in &plan.updates {
            let row = rows.iter_mut().find(|r| r["name"] == update.name.as_str()).unwrap();
            for (k, v) in update.set.entries() {
                row.insert(k.clone(), v.clone());
            }
        }
    }

    #[test]
    fn a_first_sync_inserts_everything_and_a_second_does_nothing() {
        let catalog = Catalog::builtin();
        let mut rows = vec![obj(json!({"id": 7, "name": "bash", "label": "Shell", "status": 0, "toolset": "legacy", "isCore": false, "canDisable": true}))];
        rows.push(obj(json!({"name": "old_tool", "status": 1})));
        let plan = sync_catalog(&catalog, &rows);
        assert_eq!(plan.inserts.len(), 18);
        assert_eq!(plan.orphans, ["old_tool"]);
        let bash = &plan.updates[0];
        let fields: Vec<_> = bash.set.entries().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(fields, ["toolset", "description", "visibility", "capability", "promptHint", "sort", "extra", "workerRoutingStrategy"]);
        apply(&mut rows, &plan);
        let again = sync_catalog(&catalog, &rows);
        assert!(again.inserts.is_empty() && again.updates.is_empty(), "{again:?}");
        assert_eq!(rows[0]["label"], "Shell");
        assert_eq!(rows[0]["status"], 0.0);
    }

    #[test]
    fn values_outside_their_type_are_reset() {
        let catalog = Catalog::builtin();
        let rows = vec![obj(json!({"name": "todo", "status": 7, "workerRoutingStrategy": "x", "sort": 1.5})), obj(json!({"name": "bash", "status": "on"}))];
        let plan = sync_catalog(&catalog, &rows);
        let get = |n: &str, f: &str| plan.updates.iter().find(|u| u.name == n).and_then(|u| u.set.get(f).cloned());
        assert_eq!(get("todo", "status"), Some(json!(1)));
        assert_eq!(get("bash", "status"), Some(json!(0)));
        assert_eq!(get("todo", "workerRoutingStrategy"), Some(json!("auto")));
        assert_eq!(get("todo", "sort"), Some(json!(0)));
    }

    #[test]
    fn the_guard_reports_every_error_in_field_order() {
        let catalog = Catalog::builtin();
        let row = obj(json!({"name": "todo", "toolset": "planning", "isCore": 1, "status": 1}));
        let patch = obj(json!({"workerRoutingStrategy": "sideways", "status": 0, "toolset": "other", "isCore": true, "promptHint": "x", "foo": 1}));
        let out = validate_tool_update(&catalog, &row, "todo", &patch);
        assert!(!out.ok);
        let errors: Vec<_> = out.errors.unwrap().into_iter().map(|e| (e.field, e.code.as_str())).collect();
        assert_eq!(
            errors,
            [
                ("toolset".to_string(), "field_is_readonly"),
                ("status".to_string(), "core_tool_cannot_be_disabled"),
                ("workerRoutingStrategy".to_string(), "invalid_value")
            ]
        );
        assert_eq!(out.ignored, ["foo"]);
    }

    #[test]
    fn an_accepted_patch_resets_nulls_to_defaults() {
        let catalog = Catalog::builtin();
        let row = obj(json!({"id": 3, "name": "read_skill", "label": "x", "sort": 4}));
        let out = validate_tool_update(&catalog, &row, "read_skill", &obj(json!({"label": null, "sort": null, "promptHint": "  "})));
        assert!(out.ok);
        assert_eq!(Value::Object(out.row.unwrap()), json!({"id": 3, "name": "read_skill", "label": "read_skill", "sort": 0, "promptHint": "  "}));
        let refused = validate_tool_update(&catalog, &row, "read_skill", &obj(json!({"promptHint": "use it"})));
        assert_eq!(refused.errors.unwrap()[0].code, ReasonCode::PromptHintNotSupported);
    }
}
