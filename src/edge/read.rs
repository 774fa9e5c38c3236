//! Reading input values: the limits of SPEC's inputs and the checks that name the path of anything
//! invalid (`agent.toolsets[2]: expected a string, got a number`).

use crate::edge::json;
use crate::error::Error;
use crate::path::Path;
use crate::text::{concat, decimal, join, quote, scalar_count};
use crate::value::{type_name, Map, Value};

/// Input limits. Anything larger is invalid input with a message naming the limit.
pub mod limits {
    /// Tools in a catalog, rows in a governance list, names in any list.
    pub const MAX_ITEMS: usize = 10_000;
    /// A tool name (`ToolSchema.name`, SPEC §3).
    pub const MAX_NAME: usize = 100;
    /// A toolset name.
    pub const MAX_TOOLSET: usize = 50;
    /// A row label (the table's column).
    pub const MAX_LABEL: usize = crate::registry::MAX_LABEL;
    /// Free text: descriptions, prompt hints.
    pub const MAX_TEXT: usize = crate::registry::MAX_TEXT;
    /// A workspace root.
    pub const MAX_PATH: usize = crate::worker_policy::Root::MAX_LEN;
    /// The JSON text of one call's input, in bytes.
    pub const MAX_INPUT_BYTES: usize = 32 * 1024 * 1024;
}

fn expected(path: &Path, what: &str, got: &Value) -> Error {
    path.error(concat(&["expected ", what, ", got ", type_name(got)]))
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
        return Err(path.error(concat(&["has ", &decimal(items.len() as u64), " items; at most ", &decimal(limits::MAX_ITEMS as u64), " are allowed"])));
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
    let len = scalar_count(text, max.saturating_add(1));
    if len < min {
        return Err(if min == 1 { path.error("must not be empty") } else { path.error(concat(&["must have at least ", &decimal(min as u64), " characters"])) });
    }
    if len > max {
        return Err(path.error(concat(&["is longer than ", &decimal(max as u64), " characters"])));
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
    parse(text).ok_or_else(|| path.error(concat(&["unknown value ", &quote(text), "; expected one of ", &join(all, ", ")])))
}

/// An optional list of names (`null` or absent = `None`).
#[inline]
pub fn name_list<'v>(value: Option<&'v Value>, path: &Path, max_len: usize) -> Result<Option<Vec<&'v str>>, Error> {
    match value {
        None => Ok(None),
        Some(value) => names_of(value, path, max_len).map(Some),
    }
}

/// A list of names given (out of line: an input without one runs none of this code; see
/// docs/architecture.md, "The first call").
#[inline(never)]
fn names_of<'v>(value: &'v Value, path: &Path, max_len: usize) -> Result<Vec<&'v str>, Error> {
    let items = array(value, path)?;
    let mut names = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        names.push(string(item, &path.index(i), 0, max_len)?);
    }
    Ok(names)
}

/// Reads the JSON text of one input (at most [`limits::MAX_INPUT_BYTES`]) as JavaScript holds it.
pub fn parse_input(text: &str) -> Result<Value, Error> {
    if text.len() > limits::MAX_INPUT_BYTES {
        return Err(Error::invalid("input", concat(&["is larger than ", &decimal(limits::MAX_INPUT_BYTES as u64), " bytes"])));
    }
    json::parse(text).map(json::js_normalize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_count_scalar_values() {
        let p = Path::Root("name");
        assert!(check_len(&"界".repeat(100), &p, 1, 100).is_ok());
        assert!(check_len(&"界".repeat(101), &p, 1, 100).is_err());
        assert_eq!(check_len("", &p, 1, 100).unwrap_err().to_string(), "name: must not be empty");
        assert_eq!(check_len("ab", &p, 3, 100).unwrap_err().to_string(), "name: must have at least 3 characters");
        assert_eq!(check_len("abc", &p, 0, 2).unwrap_err().to_string(), "name: is longer than 2 characters");
    }
}
