//! The argument schema of a tool (`parameters`): JSON Schema as MCP servers write it (drafts 7 and
//! 2020-12), checked once when a tool is registered ([`check`]) and applied to each call's arguments
//! ([`validate`]).
//!
//! Keywords are of three kinds: those the validator applies ([`APPLIED`]), annotations that change no
//! answer ([`ANNOTATIONS`], any `x-*`), and every other keyword, which makes the schema unusable — the
//! tool is reported unusable at registration (`fromMcpTool`'s `unusableReason`), and each of its calls
//! is denied with the same reason. A `$ref` names a local JSON pointer (`#`, `#/$defs/x`,
//! `#/definitions/x`); `pattern` and `patternProperties` run on the linear-time engine of
//! [`crate::pattern`], which reads ECMA-262 and refuses at registration what it does not read.
//!
//! A string under `"x-netaclaw-path"` is a path the call touches. Every subschema the arguments
//! validate against contributes its marks: those of `allOf`, `$ref`, `then`/`else`, and of each
//! branch of `anyOf`/`oneOf` that the value matches; marks under `not` never count (the value does
//! not match what is inside).

use crate::path::Path;
use crate::text::{concat, quote};
use crate::value::{type_name, Map, Value};

/// A denial's detail (the reason is always `invalid_tool_arguments`).
pub type Failure = String;

/// Keywords the validator applies.
pub const APPLIED: [&str; 45] = [
    "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties",
    "dependentRequired", "dependentSchemas", "dependencies", "items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains",
    "minContains", "maxContains", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "anyOf",
    "oneOf", "allOf", "not", "if", "then", "else", "$ref", "$defs", "definitions", "x-netaclaw-path", "format", "$schema", "$id", "$anchor",
];

/// Keywords that annotate and change no answer (beside every `x-*` keyword). `format` is an
/// annotation, as 2020-12 makes it by default; `$id` only at the top (a base that `$ref`s resolve
/// against is refused below it).
pub const ANNOTATIONS: [&str; 12] = [
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment", "contentMediaType", "contentEncoding", "contentSchema",
    "$vocabulary",
];

/// The values of `x-netaclaw-path`.
pub const PATH_MARKS: [&str; 5] = ["read", "write", "diff", "name", "relative"];

/// How deep subschemas may nest while one value is checked (a `$ref` cycle that consumes no value
/// stops here), and how many subschemas one call may apply in all.
pub const MAX_DEPTH: usize = 128;
pub const MAX_STEPS: usize = 100_000;

const TYPES: [(&str, &str); 7] = [
    ("object", "an object"),
    ("array", "an array"),
    ("string", "a string"),
    ("number", "a number"),
    ("integer", "an integer"),
    ("boolean", "a boolean"),
    ("null", "null"),
];

/// A marked string found in the arguments: its argument path, the text (absent: defaulted to the
/// first root) and the mark.
#[derive(PartialEq)]
pub struct Marked<'v> {
    pub argument: String,
    pub text: Option<&'v str>,
    pub mark: &'v str,
}

// ---------------------------------------------------------------------------------------------
// Registration

/// Checks that `schema` (the whole `parameters`) uses only understood keywords, with values of the
/// right shape, every `$ref` resolving and every pattern compiling. The error names where and why.
pub fn check(schema: &Value) -> Result<(), Failure> {
    check_at(schema, schema, &Path::Root("parameters"), true)
}

fn check_at(root: &Value, schema: &Value, at: &Path, top: bool) -> Result<(), Failure> {
    let map = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(map) => map,
        other => return Err(concat(&[&at.render(), ": expected a schema (an object or a boolean), got ", type_name(other)])),
    };
    let sub = |value: &Value, here: &Path| check_at(root, value, here, false);
    let each = |value: &Value, here: &Path, nonempty: bool| -> Result<bool, Failure> {
        match value {
            Value::Array(list) if !nonempty || !list.is_empty() => {
                for (i, s) in list.iter().enumerate() {
                    sub(s, &here.index(i))?;
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    };
    let named = |value: &Value, here: &Path| -> Result<bool, Failure> {
        match value {
            Value::Object(m) => {
                for (k, s) in m {
                    sub(s, &here.key(k))?;
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    };
    for (key, value) in map {
        let here = at.key(key);
        let ok = match key.as_str() {
            "type" => match value {
                Value::Array(list) => !list.is_empty() && list.iter().all(|t| t.as_str().is_some_and(type_known)),
                t => t.as_str().is_some_and(type_known),
            },
            "properties" | "$defs" | "definitions" | "dependentSchemas" => named(value, &here)?,
            "patternProperties" => {
                let Value::Object(m) = value else { return Err(malformed(&here)) };
                for (p, s) in m {
                    regex(p).map_err(|why| concat(&[&here.key(p).render(), ": ", &why]))?;
                    sub(s, &here.key(p))?;
                }
                true
            }
            "additionalProperties" | "propertyNames" | "additionalItems" | "contains" | "not" | "if" | "then" | "else" => {
                sub(value, &here)?;
                true
            }
            "items" => {
                if value.is_array() {
                    if map.contains_key("prefixItems") {
                        return Err(concat(&[&here.render(), ": an array of items beside prefixItems is not supported"]));
                    }
                    each(value, &here, false)?
                } else {
                    sub(value, &here)?;
                    true
                }
            }
            "prefixItems" => each(value, &here, true)?,
            "anyOf" | "oneOf" | "allOf" => each(value, &here, true)?,
            "required" => string_list(value),
            "dependentRequired" => value.as_object().is_some_and(|m| m.values().all(string_list)),
            "dependencies" => match value {
                Value::Object(m) => {
                    for (k, d) in m {
                        if !string_list(d) {
                            sub(d, &here.key(k))?;
                        }
                    }
                    true
                }
                _ => false,
            },
            "enum" => value.is_array(),
            "const" => true,
            "minimum" | "maximum" => value.is_number(),
            "exclusiveMinimum" | "exclusiveMaximum" => value.is_number() || value.is_boolean(),
            "multipleOf" => value.as_f64().is_some_and(|m| m > 0.0),
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" | "minContains" | "maxContains" => value.as_u64().is_some(),
            "uniqueItems" => value.is_boolean(),
            "pattern" => {
                let Value::String(p) = value else { return Err(malformed(&here)) };
                regex(p).map_err(|why| concat(&[&here.render(), ": ", &why]))?;
                true
            }
            "$ref" => {
                let Value::String(r) = value else { return Err(malformed(&here)) };
                if resolve(root, r).is_none() {
                    return Err(concat(&[
                        &here.render(),
                        ": ",
                        &quote(r),
                        " is not a local reference (#/$defs/... or #/definitions/...) to a schema of this document",
                    ]));
                }
                true
            }
            "format" | "$anchor" => value.is_string(),
            "$schema" => true,
            "$id" if top => true,
            "x-netaclaw-path" => value.as_str().is_some_and(|m| PATH_MARKS.contains(&m)),
            k if k.starts_with("x-") || ANNOTATIONS.contains(&k) => true,
            other => return Err(concat(&[&at.render(), ": unsupported schema keyword ", &quote(other)])),
        };
        if !ok {
            return Err(malformed(&here));
        }
    }
    Ok(())
}

fn malformed(at: &Path) -> Failure {
    concat(&[&at.render(), ": is not a valid value of this schema keyword"])
}

fn string_list(value: &Value) -> bool {
    value.as_array().is_some_and(|r| r.iter().all(Value::is_string))
}

fn type_known(name: &str) -> bool {
    TYPES.iter().any(|(t, _)| *t == name)
}

/// The schema a local reference names: `#` or a JSON pointer `#/a/b` (`~0`, `~1` and `%25`-style
/// escapes of RFC 6901 and 3986 read).
fn resolve<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    let mut here = root;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = percent_decode(token)?.replace("~1", "/").replace("~0", "~");
        here = match here {
            Value::Object(m) => m.get(&token)?,
            Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    (here.is_object() || here.is_boolean()).then_some(here)
}

fn percent_decode(token: &str) -> Option<String> {
    if !token.contains('%') {
        return Some(token.to_string());
    }
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = token.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

// ---------------------------------------------------------------------------------------------
// Patterns

/// A pattern compiled, or why it is refused ([`crate::pattern`]).
pub fn regex(pattern: &str) -> Result<crate::pattern::Regex, String> {
    crate::pattern::Regex::new(pattern)
}

// ---------------------------------------------------------------------------------------------
// Validation

/// One call's validation: the root (for `$ref`), the step count, compiled patterns.
pub struct Validation<'s> {
    root: &'s Value,
    steps: usize,
    patterns: Vec<(&'s str, crate::pattern::Regex)>,
}

impl<'s> Validation<'s> {
    pub fn new(root: &'s Value) -> Self {
        Validation { root, steps: 0, patterns: Vec::new() }
    }

    /// Validates `value` against `schema` (a checked subschema of the root), collecting marked strings
    /// in document order.
    pub fn validate<'v>(&mut self, schema: &'s Value, value: &'v Value, at: &Path, depth: usize, marked: &mut Vec<Marked<'v>>) -> Result<(), Failure>
    where
        's: 'v,
    {
        let fail = |what: &str| Err(concat(&[&at.render(), ": ", what]));
        self.steps += 1;
        if depth > MAX_DEPTH || self.steps > MAX_STEPS {
            return fail(if depth > MAX_DEPTH {
                "the schema nests deeper than 128 subschemas here (a $ref cycle?)"
            } else {
                "the schema takes more than 100000 steps to check these arguments"
            });
        }
        let map = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Object(map) => map,
            _ => return fail("is not allowed"),
        };
        let mark = map.get("x-netaclaw-path").and_then(Value::as_str);
        if let Some(types) = map.get("type") {
            let names = types.as_array().map_or(std::slice::from_ref(types), Vec::as_slice);
            if !names.iter().any(|t| t.as_str().is_some_and(|t| has_type(value, t))) {
                let mut wanted = String::new();
                for (_, a) in names.iter().filter_map(|t| TYPES.iter().find(|(n, _)| Some(*n) == t.as_str())) {
                    if !wanted.is_empty() {
                        wanted.push_str(" or ");
                    }
                    wanted.push_str(a);
                }
                return fail(&concat(&["expected ", &wanted, ", got ", type_name(value)]));
            }
        }
        if let Some(Value::Array(options)) = map.get("enum") {
            if !options.iter().any(|o| equal(o, value)) {
                return fail(&concat(&["must be one of ", &crate::value::to_js_string(options).unwrap_or_default()]));
            }
        }
        if let Some(c) = map.get("const") {
            if !equal(c, value) {
                return fail(&concat(&["must be ", &crate::value::js_text(c), " (const)"]));
            }
        }
        // The bounds of the value's kind: its number, its length in characters, its count of items.
        let (measure, keys, unit) = match value {
            Value::Number(n) => (n.as_f64(), ["minimum", "maximum"], ""),
            Value::String(text) => (Some(crate::text::scalar_count(text, usize::MAX) as f64), ["minLength", "maxLength"], " characters"),
            Value::Array(items) => (Some(items.len() as f64), ["minItems", "maxItems"], " items"),
            Value::Object(o) => (Some(o.len() as f64), ["minProperties", "maxProperties"], " properties"),
            _ => (None, ["", ""], ""),
        };
        if let Some(x) = measure {
            for (k, key) in keys.into_iter().enumerate() {
                if let Some(bound) = map.get(key).filter(|b| b.as_f64().is_some_and(|b| if k == 0 { x < b } else { x > b })) {
                    let bound = crate::value::js_text(bound);
                    if k == 0 && bound == "1" && !unit.is_empty() {
                        return fail("must not be empty");
                    }
                    return fail(&concat(&[
                        "must ",
                        if unit.is_empty() { "be" } else { "have" },
                        if k == 0 { " at least " } else { " at most " },
                        &bound,
                        unit,
                    ]));
                }
            }
        }
        if let Value::Number(n) = value {
            let x = n.as_f64().unwrap_or(f64::NAN);
            for (key, bool_of, below) in [("exclusiveMinimum", "minimum", true), ("exclusiveMaximum", "maximum", false)] {
                let bound = match map.get(key) {
                    Some(Value::Bool(true)) => map.get(bool_of),
                    Some(b @ Value::Number(_)) => Some(b),
                    _ => None,
                };
                if let Some(b) = bound.filter(|b| b.as_f64().is_some_and(|b| if below { x <= b } else { x >= b })) {
                    return fail(&concat(&["must be ", if below { "greater" } else { "less" }, " than ", &crate::value::js_text(b), " (", key, ")"]));
                }
            }
            // `x / m` an integer below 1e21 in IEEE doubles: what Ajv computes (`parseInt` of the quotient).
            if let Some(m) =
                map.get("multipleOf").filter(|m| m.as_f64().is_some_and(|m| (x / m).fract() != 0.0 || (x / m).abs() >= 1e21 || !(x / m).is_finite()))
            {
                return fail(&concat(&["must be a multiple of ", &crate::value::js_text(m), " (multipleOf)"]));
            }
        }
        if let (Value::String(text), Some(Value::String(p))) = (value, map.get("pattern")) {
            if !self.matches(p, text)? {
                return fail(&concat(&["must match the pattern ", &quote(p), " (pattern)"]));
            }
        }
        match value {
            Value::Array(items) => self.array(map, items, at, depth, marked)?,
            Value::Object(object) => self.object(map, value, object, at, depth, marked)?,
            _ => {}
        }
        // Subschemas that apply to the same value.
        if let Some(r) = map.get("$ref").and_then(Value::as_str) {
            let target = resolve(self.root, r).ok_or_else(|| concat(&[&at.render(), ": unresolved $ref ", &quote(r)]))?;
            self.validate(target, value, at, depth + 1, marked)?;
        }
        if let Some(Value::Array(all)) = map.get("allOf") {
            for s in all {
                self.validate(s, value, at, depth + 1, marked)?;
            }
        }
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(options)) = map.get(key) else { continue };
            let mut passed = 0;
            let mut why = Vec::new();
            for s in options {
                let mut mine = Vec::new();
                match self.validate(s, value, at, depth + 1, &mut mine) {
                    Ok(()) => {
                        passed += 1;
                        for m in mine {
                            if !marked.contains(&m) {
                                marked.push(m);
                            }
                        }
                    }
                    Err(e) => why.push(e),
                }
                // A step or depth bound reached inside a branch denies the call as a whole.
                if self.steps > MAX_STEPS {
                    return fail("the schema takes more than 100000 steps to check these arguments");
                }
            }
            if passed == 0 {
                // Each branch's reason, the whole cut to 1,000 characters (nested branches multiply).
                let mut reasons = why.join("; ");
                if let Some((cut, _)) = reasons.char_indices().nth(1000) {
                    reasons.truncate(cut);
                    reasons.push('…');
                }
                return fail(&concat(&["matches no schema of ", key, " (", &reasons, ")"]));
            }
            if key == "oneOf" && passed > 1 {
                return fail(&concat(&["matches ", &crate::text::decimal(passed as u64), " schemas of oneOf, and must match exactly one"]));
            }
        }
        if let Some(s) = map.get("not") {
            if self.validate(s, value, at, depth + 1, &mut Vec::new()).is_ok() {
                return fail("matches the schema of not");
            }
        }
        if let Some(s) = map.get("if") {
            let mut mine = Vec::new();
            let branch = if self.validate(s, value, at, depth + 1, &mut mine).is_ok() {
                marked.append(&mut mine);
                "then"
            } else {
                "else"
            };
            if let Some(s) = map.get(branch) {
                self.validate(s, value, at, depth + 1, marked)?;
            }
        }
        if self.steps > MAX_STEPS {
            return fail("the schema takes more than 100000 steps to check these arguments");
        }
        if let Some(mark) = mark {
            let Value::String(text) = value else { return fail(&concat(&["expected a string, got ", type_name(value)])) };
            let m = Marked { argument: at.render_below_root(), text: Some(text), mark };
            if !marked.contains(&m) {
                marked.push(m);
            }
        }
        Ok(())
    }

    fn matches(&mut self, pattern: &'s str, text: &str) -> Result<bool, Failure> {
        if let Some((_, r)) = self.patterns.iter().find(|(p, _)| *p == pattern) {
            return Ok(r.is_match(text));
        }
        let r = regex(pattern)?;
        let answer = r.is_match(text);
        self.patterns.push((pattern, r));
        Ok(answer)
    }

    fn array<'v>(&mut self, map: &'s Map<String, Value>, items: &'v [Value], at: &Path, depth: usize, marked: &mut Vec<Marked<'v>>) -> Result<(), Failure>
    where
        's: 'v,
    {
        // The items a tuple (`prefixItems`, or `items` as an array) describes one by one; the rest
        // follow `items` (2020-12) or `additionalItems` (draft 7).
        let (tuple, rest) = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(t)), rest) => (t.as_slice(), rest),
            (None, Some(Value::Array(t))) => (t.as_slice(), map.get("additionalItems")),
            (_, rest) => (&[][..], rest),
        };
        for (i, item) in items.iter().enumerate() {
            if let Some(s) = tuple.get(i).or(if i >= tuple.len() { rest } else { None }) {
                if *s == Value::Bool(false) {
                    return Err(concat(&[&at.render(), ": must have at most ", &crate::text::decimal(tuple.len() as u64), " items"]));
                }
                self.validate(s, item, &at.index(i), depth + 1, marked)?;
            }
        }
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (i, a) in items.iter().enumerate() {
                if let Some(j) = items[..i].iter().position(|b| equal(a, b)) {
                    return Err(concat(&[
                        &at.render(),
                        ": items ",
                        &crate::text::decimal(j as u64),
                        " and ",
                        &crate::text::decimal(i as u64),
                        " are equal (uniqueItems)",
                    ]));
                }
            }
        }
        if let Some(s) = map.get("contains") {
            let mut count = 0u64;
            for (i, item) in items.iter().enumerate() {
                let mut mine = Vec::new();
                if self.validate(s, item, &at.index(i), depth + 1, &mut mine).is_ok() {
                    count += 1;
                    marked.append(&mut mine);
                }
            }
            let min = map.get("minContains").and_then(Value::as_u64).unwrap_or(1);
            let max = map.get("maxContains").and_then(Value::as_u64);
            if count < min || max.is_some_and(|m| count > m) {
                return Err(concat(&[
                    &at.render(),
                    ": has ",
                    &crate::text::decimal(count),
                    " items that match contains (",
                    if count < min { "minContains " } else { "maxContains " },
                    &crate::text::decimal(if count < min { min } else { max.unwrap_or(0) }),
                    ")",
                ]));
            }
        }
        Ok(())
    }

    fn object<'v>(
        &mut self,
        schema: &'s Map<String, Value>,
        whole: &'v Value,
        object: &'v Map<String, Value>,
        at: &Path,
        depth: usize,
        marked: &mut Vec<Marked<'v>>,
    ) -> Result<(), Failure>
    where
        's: 'v,
    {
        let properties = schema.get("properties").and_then(Value::as_object);
        for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                return Err(concat(&[&at.key(name).render(), ": is required"]));
            }
        }
        for key in ["dependentRequired", "dependencies"] {
            for (name, needs) in schema.get(key).and_then(Value::as_object).into_iter().flatten().filter(|(n, _)| object.contains_key(n.as_str())) {
                for needed in needs.as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if !object.contains_key(needed) {
                        return Err(concat(&[&at.key(needed).render(), ": is required when ", &quote(name), " is given (", key, ")"]));
                    }
                }
            }
        }
        for key in ["dependentSchemas", "dependencies"] {
            for (name, s) in schema.get(key).and_then(Value::as_object).into_iter().flatten() {
                if object.contains_key(name.as_str()) && !s.is_array() {
                    self.validate(s, whole, at, depth + 1, marked)?;
                }
            }
        }
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        for (key, value) in object {
            let here = at.key(key);
            if let Some(names) = schema.get("propertyNames") {
                let name = Value::String(key.clone());
                self.validate(names, &name, &here, depth + 1, &mut Vec::new())
                    .map_err(|e| concat(&[&here.render(), ": is not an allowed property name (propertyNames: ", &e, ")"]))?;
            }
            let mut matched = false;
            if let Some(property) = properties.and_then(|p| p.get(key)) {
                matched = true;
                self.validate(property, value, &here, depth + 1, marked)?;
            }
            for (p, s) in patterns.into_iter().flatten() {
                if self.matches(p, key)? {
                    matched = true;
                    self.validate(s, value, &here, depth + 1, marked)?;
                }
            }
            if !matched {
                match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => return Err(concat(&[&here.render(), ": is not an allowed property"])),
                    Some(additional) => self.validate(additional, value, &here, depth + 1, marked)?,
                    None => {}
                }
            }
        }
        // An absent optional workspace path stands for the first root (`list_dir`, `find_files`, `grep`).
        for (name, property) in properties.into_iter().flatten() {
            if let Some(mark) =
                property.get("x-netaclaw-path").and_then(Value::as_str).filter(|m| !object.contains_key(name.as_str()) && (*m == "read" || *m == "write"))
            {
                marked.push(Marked { argument: at.key(name).render_below_root(), text: None, mark });
            }
        }
        Ok(())
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    kind == name || (name == "integer" && value.as_f64().is_some_and(|f| f.fract() == 0.0))
}

/// JSON equality: numbers by value (`1` equals `1.0`), objects whatever their key order.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w))),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The detail of validating `value` against `schema` (checked first), or the marks found.
    fn run(schema: &Value, value: &Value) -> Result<Vec<(String, String)>, String> {
        check(schema)?;
        let mut marked = Vec::new();
        Validation::new(schema).validate(schema, value, &Path::Root("arguments"), 0, &mut marked)?;
        Ok(marked.into_iter().map(|m| (m.argument, m.mark.to_string())).collect())
    }

    #[test]
    fn each_keyword_allows_and_denies() {
        let cases = [
            (
                json!({"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}),
                json!({"a": null}),
                json!({"a": 1}),
                "arguments.a: matches no schema of anyOf (arguments.a: expected a string, got a number; arguments.a: expected null, got a number)",
            ),
            (
                json!({"properties": {"a": {"oneOf": [{"type": "integer"}, {"minimum": 2}]}}}),
                json!({"a": 1}),
                json!({"a": 3}),
                "arguments.a: matches 2 schemas of oneOf, and must match exactly one",
            ),
            (
                json!({"allOf": [{"required": ["a"]}, {"properties": {"a": {"type": "string"}}}]}),
                json!({"a": "x"}),
                json!({"a": 2}),
                "arguments.a: expected a string, got a number",
            ),
            (json!({"properties": {"a": {"not": {"const": "x"}}}}), json!({"a": "y"}), json!({"a": "x"}), "arguments.a: matches the schema of not"),
            (
                json!({"properties": {"a": {"const": {"k": [1]}}}}),
                json!({"a": {"k": [1.0]}}),
                json!({"a": {"k": [2]}}),
                "arguments.a: must be {\"k\":[1]} (const)",
            ),
            (
                json!({"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}),
                json!({"a": 1}),
                json!({"a": "1"}),
                "arguments.a: expected an integer, got a string",
            ),
            (
                json!({"definitions": {"a~b/c": {"maxLength": 1}}, "properties": {"a": {"$ref": "#/definitions/a~0b~1c"}}}),
                json!({"a": "x"}),
                json!({"a": "xy"}),
                "arguments.a: must have at most 1 characters",
            ),
            (
                json!({"properties": {"a": {"exclusiveMinimum": 0, "exclusiveMaximum": 1}}}),
                json!({"a": 0.5}),
                json!({"a": 0}),
                "arguments.a: must be greater than 0 (exclusiveMinimum)",
            ),
            (
                json!({"properties": {"a": {"maximum": 1, "exclusiveMaximum": true}}}),
                json!({"a": 0}),
                json!({"a": 1}),
                "arguments.a: must be less than 1 (exclusiveMaximum)",
            ),
            (json!({"properties": {"a": {"multipleOf": 0.5}}}), json!({"a": 2.5}), json!({"a": 0.3}), "arguments.a: must be a multiple of 0.5 (multipleOf)"),
            (
                json!({"properties": {"a": {"pattern": "^[a-z]+\\d$"}}}),
                json!({"a": "ab1"}),
                json!({"a": "AB1"}),
                "arguments.a: must match the pattern \"^[a-z]+\\\\d$\" (pattern)",
            ),
            (
                json!({"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}),
                json!({"x-a": "1"}),
                json!({"y": "1"}),
                "arguments.y: is not an allowed property",
            ),
            (
                json!({"propertyNames": {"maxLength": 2}}),
                json!({"ab": 1}),
                json!({"abc": 1}),
                "arguments.abc: is not an allowed property name (propertyNames: arguments.abc: must have at most 2 characters)",
            ),
            (
                json!({"properties": {"a": {"uniqueItems": true}}}),
                json!({"a": [1, "1", [1]]}),
                json!({"a": [{"x": 1, "y": 2}, {"y": 2, "x": 1.0}]}),
                "arguments.a: items 0 and 1 are equal (uniqueItems)",
            ),
            (json!({"minProperties": 1, "maxProperties": 1}), json!({"a": 1}), json!({}), "arguments: must not be empty"),
            (json!({"maxProperties": 1}), json!({}), json!({"a": 1, "b": 2}), "arguments: must have at most 1 properties"),
            (
                json!({"properties": {"a": {"prefixItems": [{"type": "string"}], "items": false}}}),
                json!({"a": ["x"]}),
                json!({"a": ["x", 1]}),
                "arguments.a: must have at most 1 items",
            ),
            (
                json!({"properties": {"a": {"items": [{"type": "string"}], "additionalItems": {"type": "integer"}}}}),
                json!({"a": ["x", 1]}),
                json!({"a": ["x", "y"]}),
                "arguments.a[1]: expected an integer, got a string",
            ),
            (json!({"dependentRequired": {"a": ["b"]}}), json!({"b": 1}), json!({"a": 1}), "arguments.b: is required when \"a\" is given (dependentRequired)"),
            (json!({"dependencies": {"a": {"required": ["c"]}}}), json!({"a": 1, "c": 2}), json!({"a": 1}), "arguments.c: is required"),
            (
                json!({"properties": {"a": {"contains": {"const": 1}, "maxContains": 1}}}),
                json!({"a": [0, 1]}),
                json!({"a": [1, 1]}),
                "arguments.a: has 2 items that match contains (maxContains 1)",
            ),
            (
                json!({"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}}),
                json!({"c": 1}),
                json!({}),
                "arguments.c: is required",
            ),
            (
                json!({"properties": {"a": {"type": ["integer", "null"], "format": "uuid", "deprecated": true, "x-k": 1}}}),
                json!({"a": null}),
                json!({"a": "x"}),
                "arguments.a: expected an integer or null, got a string",
            ),
        ];
        for (schema, good, bad, detail) in cases {
            assert_eq!(run(&schema, &good).map(|_| ()), Ok(()), "{schema} allows {good}");
            assert_eq!(run(&schema, &bad).map(|_| ()), Err(detail.to_string()), "{schema} denies {bad}");
        }
    }

    #[test]
    fn registration_names_what_is_not_understood() {
        let cases = [
            (json!({"unevaluatedProperties": false}), "parameters: unsupported schema keyword \"unevaluatedProperties\""),
            (json!({"properties": {"a": {"$ref": "other.json#/x"}}}), "parameters.properties.a.$ref: \"other.json#/x\" is not a local reference (#/$defs/... or #/definitions/...) to a schema of this document"),
            (json!({"$ref": "#/$defs/missing"}), "parameters.$ref: \"#/$defs/missing\" is not a local reference (#/$defs/... or #/definitions/...) to a schema of this document"),
            (json!({"properties": {"a": {"$id": "x", "type": "string"}}}), "parameters.properties.a: unsupported schema keyword \"$id\""),
            (json!({"properties": {"a": {"pattern": "(?<=a)b"}}}), "parameters.properties.a.pattern: the pattern \"(?<=a)b\" is not supported: it uses a group other than (…) and (?:…) (lookaround, a named group or flags)"),
            (json!({"properties": {"a": {"pattern": "(a)\\1"}}}), "parameters.properties.a.pattern: the pattern \"(a)\\\\1\" is not supported: it uses an escape this engine does not read (a back reference, \\p, \\c, \\k or an unknown letter)"),
            (json!({"properties": {"a": {"pattern": "\\p{L}"}}}), "parameters.properties.a.pattern: the pattern \"\\\\p{L}\" is not supported: it uses an escape this engine does not read (a back reference, \\p, \\c, \\k or an unknown letter)"),
            (json!({"patternProperties": {"[[a]]": {}}}), "parameters.patternProperties[\"[[a]]\"]: the pattern \"[[a]]\" is not supported: it uses a [ inside a class"),
            (json!({"properties": {"a": {"multipleOf": 0}}}), "parameters.properties.a.multipleOf: is not a valid value of this schema keyword"),
            (json!({"anyOf": []}), "parameters.anyOf: is not a valid value of this schema keyword"),
            (json!({"properties": {"a": {"x-netaclaw-path": "exec"}}}), "parameters.properties.a[\"x-netaclaw-path\"]: is not a valid value of this schema keyword"),
        ];
        for (schema, detail) in cases {
            assert_eq!(check(&schema), Err(detail.to_string()), "{schema}");
        }
        assert_eq!(
            check(
                &json!({"$id": "urn:x", "$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#", "$anchor": "a", "$comment": "c", "readOnly": true})
            ),
            Ok(())
        );
    }

    #[test]
    fn patterns_keep_their_ecma_meaning() {
        let m = |p: &str, t: &str| regex(p).unwrap().is_match(t);
        // `.` stops at every ECMA line terminator; `\s` is ECMA's white space.
        assert!(m("^a.b$", "a-b") && !m("^a.b$", "a\rb") && !m("^a.b$", "a\u{2028}b"));
        assert!(m("^\\s$", "\u{a0}") && m("^\\s$", "\u{feff}") && !m("^\\S$", "\u{3000}") && m("^[\\s]$", "\u{2003}"));
        assert!(m("^\\d+$", "12") && !m("^\\d$", "\u{0663}") && !m("^\\w$", "é"));
        assert!(m("^[# ]$", " ") && m("^(?:ab)+$", "abab") && m("^\\/\\.$", "/."));
    }

    #[test]
    fn cycles_and_blow_ups_are_bounded() {
        let cycle = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        assert_eq!(run(&cycle, &json!({})), Err("arguments: the schema nests deeper than 128 subschemas here (a $ref cycle?)".into()));
        // A recursive schema that consumes the value is fine.
        let tree = json!({"$defs": {"n": {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}}, "$ref": "#/$defs/n"});
        assert!(run(&tree, &json!({"c": [{"c": [{}]}]})).is_ok());
        assert_eq!(run(&tree, &json!({"c": [{"c": [1]}]})), Err("arguments.c[0].c[0]: expected an object, got a number".into()));
        let blow_up = json!({"$defs": {"x": {"anyOf": [{"$ref": "#/$defs/x"}, {"$ref": "#/$defs/x"}]}}, "$ref": "#/$defs/x"});
        assert_eq!(run(&blow_up, &json!({})), Err("arguments: the schema takes more than 100000 steps to check these arguments".into()));
        // The reasons of the branches are cut to 1,000 characters.
        let long = json!({"properties": {"a": {"anyOf": [{"const": "x".repeat(3000)}, {"type": "null"}]}}});
        let detail = run(&long, &json!({"a": 1})).unwrap_err();
        assert!(detail.starts_with("arguments.a: matches no schema of anyOf (arguments.a: must be \"xxx") && detail.ends_with("xx…)"), "{detail}");
        assert_eq!(detail.chars().count(), "arguments.a: matches no schema of anyOf (".len() + 1002);
    }

    #[test]
    fn marks_count_in_every_subschema_the_value_matches() {
        let schema = json!({
            "$defs": {"p": {"type": "string", "x-netaclaw-path": "write"}},
            "properties": {
                "a": {"anyOf": [{"type": "string", "x-netaclaw-path": "read"}, {"type": "null"}]},
                "b": {"$ref": "#/$defs/p"},
                "c": {"anyOf": [{"type": "string", "x-netaclaw-path": "read"}, {"type": "string", "x-netaclaw-path": "write"}]},
                "d": {"not": {"type": "integer", "x-netaclaw-path": "write"}}
            }
        });
        let marks = run(&schema, &json!({"a": "x", "b": "y", "c": "z", "d": "w"})).unwrap();
        let expect = [("a", "read"), ("b", "write"), ("c", "read"), ("c", "write")].map(|(a, m)| (a.to_string(), m.to_string()));
        assert_eq!(marks, expect);
        assert_eq!(run(&schema, &json!({"a": null})).unwrap(), []);
    }
}
