//! The JSON data model the core works on where a value really is free-form JSON: a tool's argument
//! schema (`parameters`), the arguments of one call, a governance row's extra keys. These are
//! `serde_json`'s types, in every build: what the native tests run is what the WebAssembly package
//! ships.
//!
//! Beside them, how JavaScript holds and prints such a value: object keys that are array indices
//! listed first ([`js_normalize`], [`js_key_order`]), numbers as IEEE doubles printed as
//! `Number.prototype.toString` prints them ([`JsFormatter`], through `ryu-js`). The core prints a value
//! into a message with [`js_text`]; the wire (reading input, printing answers) is the edge's
//! (`crate::edge::json`).

pub use serde_json::{Map, Number, Value};

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

/// `serde_json`'s compact formatter, with floats printed as JavaScript's `Number.prototype.toString`
/// prints them (`1e21`, `1.5e-7`, `5` for `5.0`). Integers print as `serde_json` prints them, which
/// is JavaScript's text for every integer a double holds exactly.
#[derive(Clone, Copy, Debug, Default)]
pub struct JsFormatter;

impl serde_json::ser::Formatter for JsFormatter {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, value: f64) -> std::io::Result<()> {
        // `serde_json` writes `null` for a non-finite float before it asks the formatter.
        writer.write_all(ryu_js::Buffer::new().format_finite(value).as_bytes())
    }

    fn write_f32<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, value: f32) -> std::io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }
}

/// `value` as `JSON.stringify` prints the same value in JavaScript (for a value already in
/// JavaScript's key order: see [`js_normalize`]); `None` when a `Serialize` implementation fails,
/// which none of the crate's does.
pub fn to_js_string<T: serde::Serialize + ?Sized>(value: &T) -> Option<String> {
    let mut out = Vec::with_capacity(128);
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, JsFormatter)).ok()?;
    text_of(out)
}

/// The text `serde_json` wrote (valid UTF-8: it writes nothing else). Not generic, so that it is
/// compiled once for every type [`to_js_string`] prints.
fn text_of(bytes: Vec<u8>) -> Option<String> {
    String::from_utf8(bytes).ok()
}

/// A value printed into a message as JavaScript prints it (empty when it cannot be printed).
pub fn js_text(value: &Value) -> String {
    to_js_string(value).unwrap_or_default()
}

/// Reorders a value as JavaScript would hold it, so that echoing it gives JavaScript's bytes:
/// object keys that are array indices come first in ascending order, then the others in insertion
/// order; numbers are IEEE doubles.
pub fn js_normalize(mut value: Value) -> Value {
    normalize_in_place(&mut value);
    value
}

/// [`js_normalize`] on a value in place: an object is rebuilt only when it has an array-index key.
fn normalize_in_place(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.keys().any(|k| array_index(k).is_some()) {
                let entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                *map = js_key_order(entries).into_iter().collect();
            }
            map.values_mut().for_each(normalize_in_place);
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_in_place),
        Value::Number(n) => *value = js_number(n.as_f64().unwrap_or(f64::NAN)),
        _ => {}
    }
}

/// A JSON value fixed when the crate is built (the builtin argument schemas, written by `build.rs`
/// from `src/parameters.json`): it prints exactly as the same [`Value`] prints, without one being
/// built; [`Static::to_value`] builds it where a value is needed.
#[derive(Debug, PartialEq, Eq)]
pub enum Static {
    Null,
    Bool(bool),
    /// A non-negative integer (as `serde_json` holds `1`).
    U32(u32),
    Str(&'static str),
    Array(&'static [Static]),
    /// An object's entries, in JavaScript's key order.
    Object(&'static [(&'static str, Static)]),
}

impl Static {
    /// The `serde_json` value this data holds.
    pub fn to_value(&self) -> Value {
        match self {
            Static::Null => Value::Null,
            Static::Bool(b) => Value::Bool(*b),
            Static::U32(n) => Value::Number(Number::from(*n)),
            Static::Str(text) => Value::String((*text).to_string()),
            Static::Array(items) => Value::Array(items.iter().map(Static::to_value).collect()),
            Static::Object(entries) => Value::Object(entries.iter().map(|(k, v)| ((*k).to_string(), v.to_value())).collect()),
        }
    }
}

/// The calls `serde_json`'s `Value` makes of the serializer for the same value.
impl serde::Serialize for Static {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Static::Null => serializer.serialize_unit(),
            Static::Bool(b) => serializer.serialize_bool(*b),
            // As `serde_json` prints a non-negative integer it holds.
            Static::U32(n) => serializer.serialize_u64(u64::from(*n)),
            Static::Str(text) => serializer.serialize_str(text),
            Static::Array(items) => serializer.collect_seq(items.iter()),
            Static::Object(entries) => serializer.collect_map(entries.iter().map(|(k, v)| (*k, v))),
        }
    }
}

/// A JavaScript number as a JSON value: an integer when it is a safe integer (`100.0` is `100`, as
/// in JavaScript, so that `as_u64` reads it), else a float; `null` when not finite.
pub fn js_number(f: f64) -> Value {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if f.fract() == 0.0 && f.abs() <= SAFE {
        return Value::Number(if f < 0.0 { Number::from(f as i64) } else { Number::from(f as u64) });
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// The array index a key denotes in JavaScript (`"0"`, `"17"`; not `"01"` nor `"4294967295"`).
pub fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || (bytes.len() > 1 && bytes[0] == b'0') || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = bytes.iter().fold(0u64, |n, &b| n * 10 + u64::from(b - b'0'));
    u32::try_from(n).ok().filter(|&n| n < u32::MAX)
}

/// Orders `(key, value)` pairs as a JavaScript object lists them: array-index keys first, ascending,
/// then the others in the given order.
pub fn js_key_order<T>(pairs: Vec<(String, T)>) -> Vec<(String, T)> {
    if pairs.iter().any(|(k, _)| array_index(k).is_some()) {
        js_reorder(pairs)
    } else {
        pairs
    }
}

/// [`js_key_order`] of pairs with an array-index key (out of line: most objects have none).
#[inline(never)]
fn js_reorder<T>(pairs: Vec<(String, T)>) -> Vec<(String, T)> {
    let Some(order) = js_positions(&pairs.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>()) else { return pairs };
    let mut taken: Vec<Option<(String, T)>> = pairs.into_iter().map(Some).collect();
    order.into_iter().filter_map(|position| taken.get_mut(position).and_then(Option::take)).collect()
}

/// The positions of `keys` in the order a JavaScript object lists them (array indices ascending, then
/// the others as given), or `None` when no key is an array index (the order is the given one). Not
/// generic, so that it is compiled once.
fn js_positions(keys: &[&str]) -> Option<Vec<usize>> {
    let mut indexed: Vec<(u32, usize)> = keys.iter().enumerate().filter_map(|(position, key)| array_index(key).map(|index| (index, position))).collect();
    if indexed.is_empty() {
        return None;
    }
    heap_sort(&mut indexed);
    let mut is_index = vec![false; keys.len()];
    let mut order = Vec::with_capacity(keys.len());
    for &(_, position) in &indexed {
        is_index[position] = true;
        order.push(position);
    }
    order.extend((0..keys.len()).filter(|&position| !is_index[position]));
    Some(order)
}

/// Sorts ascending (an in-place heap sort: small code, `n log n` time, no allocation).
fn heap_sort(items: &mut [(u32, usize)]) {
    fn sift_down(items: &mut [(u32, usize)], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && items[child] < items[child + 1] {
                child += 1;
            }
            if items[root] >= items[child] {
                return;
            }
            items.swap(root, child);
            root = child;
        }
    }
    let len = items.len();
    for root in (0..len / 2).rev() {
        sift_down(items, root, len);
    }
    for end in (1..len).rev() {
        items.swap(0, end);
        sift_down(items, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        let cases = [
            (json!(5.0), "5"),
            (json!(-0.0), "0"),
            (json!(1e21), "1e+21"),
            (json!(1.5e-7), "1.5e-7"),
            (json!(0.1), "0.1"),
            (json!(123456789012345680000.0), "123456789012345680000"),
        ];
        for (value, text) in cases {
            assert_eq!(js_text(&value), text);
        }
        assert_eq!(js_text(&json!({"a": [1, 2.5, null, "x\u{1f}\"\\"]})), r#"{"a":[1,2.5,null,"x\u001f\"\\"]}"#);
    }

    #[test]
    fn the_heap_sort_sorts() {
        let mut many: Vec<(u32, usize)> = (0..500u32).map(|i| ((i * 7919) % 503, i as usize)).collect();
        heap_sort(&mut many);
        assert!(many.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn index_keys_come_first() {
        let v = js_normalize(json!({"b": 1, "10": 2, "2": 3, "01": 4, "4294967295": 5, "4294967294": 6}));
        assert_eq!(js_text(&v), r#"{"2":3,"10":2,"4294967294":6,"b":1,"01":4,"4294967295":5}"#);
    }

    #[test]
    fn numbers_are_held_as_javascript_holds_them() {
        let v = js_normalize(json!([100.0, -3.0, -0.0, 0.5, 9007199254740993u64, 1e21, u64::MAX]));
        assert_eq!(v[0].as_u64(), Some(100));
        assert_eq!(v[1].as_i64(), Some(-3));
        assert_eq!(v[2].as_u64(), Some(0));
        assert_eq!(v[3].as_u64(), None);
        assert_eq!(js_text(&v), "[100,-3,0,0.5,9007199254740992,1e+21,18446744073709552000]");
    }
}
