//! The JSON value of the WebAssembly build: the part of `serde_json`'s `Value`, `Map` and `Number` API
//! the crate uses, with the same semantics (integers that fit 64 bits stay integers; object keys keep
//! their first position, a repeated key takes the last value), but objects held as a plain list of
//! entries instead of a hash-indexed map — the hashing and table code is a tenth of the package.
//! Native builds use `serde_json`'s types (see [`crate::value`]), so every test compares the two.

use serde::ser::{Serialize, SerializeMap, Serializer};

/// A JSON value.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map<String, Value>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum N {
    PosInt(u64),
    NegInt(i64),
    Float(f64),
}

/// A JSON number: a `u64`, a negative `i64`, or a finite `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number(N);

// Floats are finite, so equality is an equivalence.
impl Eq for Number {}

impl Number {
    /// A finite float as a number (`None` for NaN and infinities).
    pub fn from_f64(f: f64) -> Option<Number> {
        f.is_finite().then_some(Number(N::Float(f)))
    }

    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            N::PosInt(n) => n as f64,
            N::NegInt(n) => n as f64,
            N::Float(f) => f,
        })
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            N::PosInt(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            N::PosInt(n) => i64::try_from(n).ok(),
            N::NegInt(n) => Some(n),
            N::Float(_) => None,
        }
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Self {
        Number(N::PosInt(n))
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Self {
        Number(if n < 0 { N::NegInt(n) } else { N::PosInt(n as u64) })
    }
}

/// A JSON object: entries in insertion order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Map<K, V> {
    entries: Vec<(K, V)>,
}

impl Map<String, Value> {
    pub fn new() -> Self {
        Map { entries: Vec::new() }
    }

    /// An object from its entries in text order: a repeated key keeps its first position and takes
    /// its last value (`n log n`, so that a hostile object of a million keys stays cheap).
    pub fn from_entries(entries: Vec<(String, Value)>) -> Self {
        // A small object (a tool call's arguments) is compared pair by pair, with nothing allocated.
        if entries.len() <= 8 && !entries.iter().enumerate().any(|(i, (key, _))| entries.get(..i).unwrap_or_default().iter().any(|(k, _)| k == key)) {
            return Map { entries };
        }
        // The first position of each position's key.
        let mut first_of: Vec<usize> = (0..entries.len()).collect();
        let mut repeated = false;
        {
            let pairs = entries.iter().enumerate().map(|(i, (k, _))| (k.as_str(), i)).collect();
            let mut head: Option<(&str, usize)> = None;
            for (key, at) in crate::names::sorted(pairs) {
                match head {
                    Some((k, first)) if k == key => {
                        if let Some(f) = first_of.get_mut(at) {
                            *f = first;
                        }
                        repeated = true;
                    }
                    _ => head = Some((key, at)),
                }
            }
        }
        if !repeated {
            return Map { entries };
        }
        let mut out: Vec<(String, Value)> = Vec::with_capacity(entries.len());
        let mut slot = vec![0; entries.len()];
        for (at, (key, value)) in entries.into_iter().enumerate() {
            let first = first_of.get(at).copied().unwrap_or(at);
            if first == at {
                if let Some(s) = slot.get_mut(at) {
                    *s = out.len();
                }
                out.push((key, value));
            } else if let Some(entry) = slot.get(first).and_then(|&s| out.get_mut(s)) {
                entry.1 = value;
            }
        }
        Map { entries: out }
    }

    /// Inserts or replaces (a replaced key keeps its position); answers the old value.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.get_mut(key.as_str()) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    pub fn get<Q: AsRef<str> + ?Sized>(&self, key: &Q) -> Option<&Value> {
        let key = key.as_ref();
        // Lengths first: most keys of a schema differ in length from the one looked up.
        self.entries.iter().find(|(k, _)| k.len() == key.len() && k == key).map(|(_, v)| v)
    }

    pub fn get_mut<Q: AsRef<str> + ?Sized>(&mut self, key: &Q) -> Option<&mut Value> {
        let key = key.as_ref();
        self.entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key<Q: AsRef<str> + ?Sized>(&self, key: &Q) -> bool {
        self.get(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

impl IntoIterator for Map<String, Value> {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map<String, Value> {
    type Item = (&'a String, &'a Value);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (String, Value)>, fn(&'a (String, Value)) -> (&'a String, &'a Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|m| m.get(key))
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }
}

/// `value["key"]`: the field, or `null` (as `serde_json` answers).
impl std::ops::Index<&str> for Value {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Number(n.into())
    }
}

impl From<u8> for Value {
    fn from(n: u8) -> Self {
        Value::Number(u64::from(n).into())
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Number(n.into())
    }
}

impl From<i32> for Value {
    fn from(n: i32) -> Self {
        Value::Number(i64::from(n).into())
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(items)
    }
}

impl From<Map<String, Value>> for Value {
    fn from(map: Map<String, Value>) -> Self {
        Value::Object(map)
    }
}

impl Serialize for Map<String, Value> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            out.serialize_entry(k, v)?;
        }
        out.end()
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(Number(N::PosInt(n))) => serializer.serialize_u64(*n),
            Value::Number(Number(N::NegInt(n))) => serializer.serialize_i64(*n),
            Value::Number(Number(N::Float(f))) => serializer.serialize_f64(*f),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => serializer.collect_seq(items),
            Value::Object(map) => map.serialize(serializer),
        }
    }
}

#[cfg(all(test, not(all(target_arch = "wasm32", feature = "wasm"))))]
// Native only: compared with `serde_json`'s map, which the native build uses.
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_keep_the_first_position_and_the_last_value_as_serde_json_does() {
        let read = |keys: &[&str]| {
            let entries: Vec<(String, Value)> = keys.iter().enumerate().map(|(i, k)| (k.to_string(), Value::from(i as u64))).collect();
            let ours = Map::from_entries(entries);
            let mut theirs = serde_json::Map::new();
            for (i, k) in keys.iter().enumerate() {
                theirs.insert(k.to_string(), serde_json::Value::from(i as u64));
            }
            let ours: Vec<(String, u64)> = ours.iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap())).collect();
            let theirs: Vec<(String, u64)> = theirs.iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap())).collect();
            assert_eq!(ours, theirs, "{keys:?}");
            ours
        };
        assert_eq!(read(&["b", "a", "b", "c", "a", "b", "d"]), [("b".to_string(), 5), ("a".to_string(), 4), ("c".to_string(), 3), ("d".to_string(), 6)]);
        // Small objects are compared pair by pair, larger ones sorted: both alike.
        for keys in [&["p", "p"][..], &["a", "b", "c", "d", "e", "f", "g", "h"], &["a", "b", "c", "d", "e", "f", "g", "h", "a"], &["x", "b", "c", "d", "e", "f", "g", "h", "i", "j"]] {
            read(keys);
        }
        // A map of distinct keys is kept as it is; insert replaces in place.
        let mut m = Map::from_entries(vec![("x".into(), Value::Null), ("y".into(), Value::from(true))]);
        assert_eq!(m.insert("x".into(), Value::from("v")), Some(Value::Null));
        assert_eq!(m.keys().cloned().collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(m.get("x"), Some(&Value::from("v")));
    }

    #[test]
    fn numbers_compare_and_convert_as_serde_json_numbers_do() {
        assert_ne!(Value::from(1u64), Value::Number(Number::from_f64(1.0).unwrap()));
        assert_eq!(Value::from(-3i64).as_f64(), Some(-3.0));
        assert_eq!(Number::from(-3i64).as_u64(), None);
        assert_eq!(Number::from(7i64).as_u64(), Some(7));
        assert_eq!(Number::from_f64(f64::NAN), None);
        assert_eq!(Value::Null["missing"], Value::Null);
    }
}
