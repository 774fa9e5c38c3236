//! JSON at the edge: reading input values with exact error paths, and writing output exactly as
//! JavaScript's `JSON.stringify` would print the same value (key order and number format), so that
//! native, Node and browser answers are byte-identical.

use crate::error::Error;
use serde::Serialize;
use serde_json::{Map, Value};
use std::io;

/// Input limits. Anything larger is invalid input with a message naming the limit.
pub mod limits {
    /// Tools in a catalog, rows in a governance list, names in any list.
    pub const MAX_ITEMS: usize = 10_000;
    /// A tool name (`ToolSchema.name`, SPEC §3).
    pub const MAX_NAME: usize = 100;
    /// A toolset name.
    pub const MAX_TOOLSET: usize = 50;
    /// A row label.
    pub const MAX_LABEL: usize = 200;
    /// Free text: descriptions, prompt hints.
    pub const MAX_TEXT: usize = 65_536;
    /// A workspace root.
    pub const MAX_PATH: usize = 4_096;
    /// The JSON text of one call's input, in bytes.
    pub const MAX_INPUT_BYTES: usize = 32 * 1024 * 1024;
}

/// Where a value sits in the input; rendered only when an error is raised.
#[derive(Clone, Copy)]
pub enum Path<'a> {
    /// A positional argument (`catalog`), or `""` for the fields of an object input.
    Root(&'a str),
    /// A key of an object.
    Key(&'a Path<'a>, &'a str),
    /// An index of an array.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The path of `key` inside this object.
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The path of item `index` inside this array.
    pub fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }

    /// `agent.toolsets[2]`, `catalog[3].name`, `strategies["a b"]`; `input` for the top level.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        if out.is_empty() {
            out.push_str("input");
        }
        out
    }

    fn render_into(&self, out: &mut String) {
        match self {
            Path::Root(name) => out.push_str(name),
            Path::Key(parent, key) => {
                parent.render_into(out);
                if is_identifier(key) {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                } else {
                    out.push('[');
                    out.push_str(&Value::String((*key).to_string()).to_string());
                    out.push(']');
                }
            }
            Path::Index(parent, index) => {
                parent.render_into(out);
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }

    /// An invalid-input error at this path.
    pub fn error(&self, what: impl Into<String>) -> Error {
        Error::invalid(self.render(), what)
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// The JSON type name used in error messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn expected(path: &Path, what: &str, got: &Value) -> Error {
    path.error(format!("expected {what}, got {}", type_name(got)))
}

/// `value` as an object.
pub fn object<'v>(value: &'v Value, path: &Path) -> Result<&'v Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| expected(path, "an object", value))
}

/// The field `key` of `map`, with `null` read as absent.
pub fn field<'v>(map: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    match map.get(key) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v),
    }
}

/// `value` as an array of at most [`limits::MAX_ITEMS`] items.
pub fn array<'v>(value: &'v Value, path: &Path) -> Result<&'v Vec<Value>, Error> {
    let items = value.as_array().ok_or_else(|| expected(path, "an array", value))?;
    if items.len() > limits::MAX_ITEMS {
        return Err(path.error(format!("has {} items; at most {} are allowed", items.len(), limits::MAX_ITEMS)));
    }
    Ok(items)
}

/// `value` as a string of `min..=max` Unicode scalar values, without NUL characters.
pub fn string<'v>(value: &'v Value, path: &Path, min: usize, max: usize) -> Result<&'v str, Error> {
    let text = value.as_str().ok_or_else(|| expected(path, "a string", value))?;
    check_len(text, path, min, max)?;
    Ok(text)
}

/// Checks that `text` has `min..=max` Unicode scalar values.
pub fn check_len(text: &str, path: &Path, min: usize, max: usize) -> Result<(), Error> {
    // Cheap upper bound first: a string of at most `max` bytes has at most `max` scalar values.
    let len = if text.len() <= max { text.chars().count() } else { text.chars().take(max + 1).count() };
    if len < min {
        return Err(if min == 1 { path.error("must not be empty") } else { path.error(format!("must have at least {min} characters")) });
    }
    if len > max {
        return Err(path.error(format!("is longer than {max} characters")));
    }
    Ok(())
}

/// `value` as a boolean.
pub fn boolean(value: &Value, path: &Path) -> Result<bool, Error> {
    value.as_bool().ok_or_else(|| expected(path, "a boolean", value))
}

/// `value` as one of an enum's strings.
pub fn enum_value<E>(value: &Value, path: &Path, parse: fn(&str) -> Option<E>, all: &[&str]) -> Result<E, Error> {
    let text = value.as_str().ok_or_else(|| expected(path, "a string", value))?;
    parse(text).ok_or_else(|| path.error(format!("unknown value {}; expected one of {}", Value::String(text.to_string()), all.join(", "))))
}

/// An optional list of names (`null` or absent = `None`).
pub fn name_list<'v>(value: Option<&'v Value>, path: &Path, max_len: usize) -> Result<Option<Vec<&'v str>>, Error> {
    let Some(value) = value else { return Ok(None) };
    let items = array(value, path)?;
    let mut names = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        names.push(string(item, &path.index(i), 0, max_len)?);
    }
    Ok(Some(names))
}

/// Parses JSON text (the input of one call).
pub fn parse(text: &str) -> Result<Value, Error> {
    if text.len() > limits::MAX_INPUT_BYTES {
        return Err(Error::invalid("input", format!("is larger than {} bytes", limits::MAX_INPUT_BYTES)));
    }
    serde_json::from_str(text).map_err(|e| {
        let what = if e.to_string().contains("recursion limit") { "is nested too deeply".to_string() } else { format!("is not valid JSON ({e})") };
        Error::invalid("input", what)
    })
}

/// Reorders a value as JavaScript would hold it, so that echoing it gives JavaScript's bytes:
/// object keys that are array indices come first in ascending order, then the others in insertion
/// order; numbers are IEEE doubles.
pub fn js_normalize(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(js_order(map)),
        Value::Array(items) => Value::Array(items.into_iter().map(js_normalize).collect()),
        Value::Number(n) => match n.as_f64().and_then(serde_json::Number::from_f64) {
            Some(n) => Value::Number(n),
            None => Value::Null,
        },
        other => other,
    }
}

fn js_order(map: Map<String, Value>) -> Map<String, Value> {
    let mut indices: Vec<(u32, String, Value)> = Vec::new();
    let mut others: Vec<(String, Value)> = Vec::with_capacity(map.len());
    for (key, value) in map {
        let value = js_normalize(value);
        match array_index(&key) {
            Some(i) => indices.push((i, key, value)),
            None => others.push((key, value)),
        }
    }
    indices.sort_by_key(|(i, _, _)| *i);
    indices.into_iter().map(|(_, k, v)| (k, v)).chain(others).collect()
}

/// The array index a key denotes in JavaScript (`"0"`, `"17"`; not `"01"` nor `"4294967295"`).
pub fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) || (key.len() > 1 && key.starts_with('0')) {
        return None;
    }
    match key.parse::<u64>() {
        Ok(n) if n < u32::MAX as u64 => Some(n as u32),
        _ => None,
    }
}

/// Orders `(key, value)` pairs as a JavaScript object would list them.
pub fn js_key_order<T>(mut pairs: Vec<(String, T)>) -> Vec<(String, T)> {
    let mut indexed: Vec<(u32, usize)> = pairs.iter().enumerate().filter_map(|(pos, (k, _))| array_index(k).map(|i| (i, pos))).collect();
    if indexed.is_empty() {
        return pairs;
    }
    indexed.sort();
    let mut taken: Vec<Option<(String, T)>> = pairs.drain(..).map(Some).collect();
    let mut out = Vec::with_capacity(taken.len());
    for (_, pos) in &indexed {
        if let Some(pair) = taken[*pos].take() {
            out.push(pair);
        }
    }
    out.extend(taken.into_iter().flatten());
    out
}

/// A string-keyed map that serializes in JavaScript's key order (the keys are tool names).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JsMap<T>(pub Vec<(String, T)>);

impl<T> JsMap<T> {
    /// Builds the map; keys must be distinct.
    pub fn new(pairs: Vec<(String, T)>) -> Self {
        JsMap(js_key_order(pairs))
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<T: Serialize> Serialize for JsMap<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Prints numbers as JavaScript's `Number.prototype.toString` does.
struct JsFormatter;

impl serde_json::ser::Formatter for JsFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        let mut buffer = ryu_js::Buffer::new();
        writer.write_all(buffer.format(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, value as f64)
    }
}

/// Serializes an output exactly as `JSON.stringify` prints the same value in JavaScript.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut out = Vec::with_capacity(256);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, JsFormatter);
    value.serialize(&mut serializer).map_err(|e| Error::invalid("output", e.to_string()))?;
    String::from_utf8(out).map_err(|e| Error::invalid("output", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_the_spec() {
        let root = Path::Root("");
        let agent = root.key("agent");
        let toolsets = agent.key("toolsets");
        assert_eq!(toolsets.index(2).render(), "agent.toolsets[2]");
        assert_eq!(root.render(), "input");
        let catalog = Path::Root("catalog");
        let item = catalog.index(3);
        assert_eq!(item.key("name").render(), "catalog[3].name");
        let strategies = root.key("strategies");
        assert_eq!(strategies.key("a b").render(), "strategies[\"a b\"]");
    }

    #[test]
    fn numbers_and_keys_print_as_javascript_does() {
        let v = js_normalize(parse(r#"{"b":1.0,"2":1e21,"a":0.000001,"10":-0.0,"01":[1.5,100]}"#).unwrap());
        assert_eq!(to_string(&v).unwrap(), r#"{"2":1e+21,"10":0,"b":1,"a":0.000001,"01":[1.5,100]}"#);
    }

    #[test]
    fn array_indices_are_canonical_u32_below_max() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("4294967294"), Some(4294967294));
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("01"), None);
        assert_eq!(array_index("-1"), None);
        assert_eq!(array_index(""), None);
    }

    #[test]
    fn lengths_count_scalar_values() {
        let p = Path::Root("name");
        assert!(check_len(&"界".repeat(100), &p, 1, 100).is_ok());
        assert!(check_len(&"界".repeat(101), &p, 1, 100).is_err());
        assert_eq!(check_len("", &p, 1, 100).unwrap_err().to_string(), "name: must not be empty");
    }

    #[test]
    fn deep_nesting_is_invalid_input_not_a_crash() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(parse(&deep).unwrap_err().to_string(), "input: is nested too deeply");
    }
}
