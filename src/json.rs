//! The JSON codec: JSON text read into [`Value`], and values written exactly as JavaScript's
//! `JSON.stringify` would print them (key order and number format), so that native, Node and browser
//! answers are byte-identical. It knows nothing of the package's inputs: their limits and the paths
//! invalid input names are the edge's (`crate::edge::read`).
//!
//! The reader accepts exactly what `serde_json` accepts and reports the same errors at the same line
//! and column; numbers are rounded correctly (as `JSON.parse` does). The writer prints numbers as
//! JavaScript's `Number.prototype.toString` does.
//!
//! Why the reader and the writer are this module's own rather than `serde_json`'s: measured on the
//! package's `.wasm` (gzip -9, the budget is 65,536), `serde_json::from_str` into [`Value`] (a
//! `Deserialize` for the list-backed value) adds 14,570 bytes, and `serde_json`'s writer with a
//! formatter printing numbers as JavaScript does adds 2,416 bytes, against a build with a few hundred
//! bytes to spare (`scripts/size-check.sh` prints how many). Natively, where size does not matter, the tests compare both with `serde_json`.

use crate::error::Error;
use serde::ser::{self, Serialize};
pub use crate::value::{Map, Number, Value};
use crate::text::{decimal, write_str, write_u128, write_u64};

/// Parses JSON text. Accepts exactly what `serde_json` accepts, with the same
/// error messages; numbers are rounded to the nearest double, as `JSON.parse` rounds them.
pub fn parse(text: &str) -> Result<Value, Error> {
    let mut reader = Reader { text, bytes: text.as_bytes(), index: 0, depth: 128 };
    let value = reader.value().and_then(|value| match reader.whitespace() {
        Some(_) => Err(reader.peek_error(Fault::TrailingCharacters)),
        None => Ok(value),
    });
    value.map_err(|failure| {
        let what = match failure.fault {
            Fault::RecursionLimit => String::from("is nested too deeply"),
            // In the WebAssembly build the text is `JSON.stringify`'s, so the one way to get here is a
            // string holding a lone surrogate (which JSON.stringify escapes and JSON forbids).
            #[cfg(all(target_arch = "wasm32", feature = "wasm"))]
            _ => {
                let _ = (failure.line, failure.column);
                String::from("is not valid JSON (a string holds a lone surrogate)")
            }
            #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
            fault => crate::text::concat(&["is not valid JSON (", fault.message(), " at line ", &decimal(failure.line as u64), " column ", &decimal(failure.column as u64), ")"]),
        };
        Error::invalid("input", what)
    })
}

/// Reorders a value as JavaScript would hold it, so that echoing it gives JavaScript's bytes:
/// object keys that are array indices come first in ascending order, then the others in insertion
/// order; numbers are IEEE doubles.
pub fn js_normalize(value: Value) -> Value {
    match value {
        Value::Object(mut map) => {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            let Some(order) = js_positions(&keys) else {
                for v in map.values_mut() {
                    *v = js_normalize(std::mem::take(v));
                }
                return Value::Object(map);
            };
            let mut entries: Vec<Option<(String, Value)>> = map.into_iter().map(Some).collect();
            let mut out = Map::new();
            for position in order {
                if let Some((k, v)) = entries.get_mut(position).and_then(Option::take) {
                    out.insert(k, js_normalize(v));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(js_normalize).collect()),
        Value::Number(n) => match n.as_f64().and_then(Number::from_f64) {
            Some(n) => Value::Number(n),
            None => Value::Null,
        },
        other => other,
    }
}

/// An input value as JavaScript holds it ([`js_normalize`]). In the WebAssembly build every input is
/// read from `JSON.stringify`'s text, which already lists keys in JavaScript's order and prints
/// numbers as JavaScript holds them, so the value is taken as it is.
pub fn from_javascript(value: Value) -> Value {
    #[cfg(all(target_arch = "wasm32", feature = "wasm"))]
    return value;
    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    js_normalize(value)
}

/// The array index a key denotes in JavaScript (`"0"`, `"17"`; not `"01"` nor `"4294967295"`).
pub fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || (bytes.len() > 1 && bytes[0] == b'0') {
        return None;
    }
    let mut n: u64 = 0;
    for &b in bytes {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(b - b'0');
    }
    if n < u64::from(u32::MAX) {
        Some(n as u32)
    } else {
        None
    }
}

/// The positions of `keys` in the order a JavaScript object lists them (array indices ascending, then
/// the others as given), or `None` when no key is an array index (the order is the given one).
fn js_positions(keys: &[&str]) -> Option<Vec<usize>> {
    let mut indexed: Vec<(u32, usize)> = Vec::new();
    for (position, key) in keys.iter().enumerate() {
        if let Some(index) = array_index(key) {
            indexed.push((index, position));
        }
    }
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

/// Orders `(key, value)` pairs as a JavaScript object would list them.
///
/// In the WebAssembly build the pairs are kept as they are: an input object comes from
/// `JSON.stringify`, already in this order, and an answer goes through `JSON.parse`, which lists an
/// object's keys in this order whatever the text's.
pub fn js_key_order<T>(pairs: Vec<(String, T)>) -> Vec<(String, T)> {
    #[cfg(all(target_arch = "wasm32", feature = "wasm"))]
    return pairs;
    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    js_positions_order(pairs)
}

#[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
fn js_positions_order<T>(pairs: Vec<(String, T)>) -> Vec<(String, T)> {
    let keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    let Some(order) = js_positions(&keys) else { return pairs };
    let mut taken: Vec<Option<(String, T)>> = pairs.into_iter().map(Some).collect();
    order.into_iter().filter_map(|position| taken.get_mut(position).and_then(Option::take)).collect()
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

/// A name map prints in JavaScript's key order (array-index keys first, ascending). In the
/// WebAssembly build it prints in insertion order: the answer goes through `JSON.parse`, which lists
/// an object's keys in that order whatever the text's.
impl<T: Serialize> Serialize for crate::names::NameMap<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
        if let Some(order) = js_positions(&self.0.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>()) {
            for (k, v) in order.into_iter().filter_map(|i| self.0.get(i)) {
                map.serialize_entry(k, v)?;
            }
            return map.end();
        }
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Serializes an output exactly as `JSON.stringify` prints the same value in JavaScript.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut writer = Writer::new();
    let written = value.serialize(&mut writer).is_ok();
    finish(writer, written)
}

impl Writer {
    /// A writer printing as `JSON.stringify` (kept out of line: [`to_string`] is compiled per type).
    #[inline(never)]
    fn new() -> Writer {
        Writer { out: String::with_capacity(256), rust_floats: false }
    }
}

/// The text a writer produced (apart from the generic part, so that it is compiled once).
#[inline(never)]
fn finish(writer: Writer, written: bool) -> Result<String, Error> {
    if !written {
        return Err(Error::invalid("output", "cannot be written as JSON"));
    }
    Ok(writer.out)
}

/// A value as `serde_json` displays it (compact; a float keeps a `.0` and switches to exponent
/// notation outside `1e-5..1e16`), as error messages show input values.
pub fn display(value: &Value) -> String {
    let mut writer = Writer { out: String::new(), rust_floats: true };
    match value.serialize(&mut writer) {
        Ok(()) => writer.out,
        Err(_) => String::new(),
    }
}

fn write_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    write_u64(out, n.unsigned_abs());
}

/// Writes the serde data model as `JSON.stringify` prints it (or, with `rust_floats`, with floats as
/// `serde_json` displays them).
struct Writer {
    out: String,
    rust_floats: bool,
}

/// A value the writer cannot print: a custom error of a `Serialize` impl, or a map key that is not a
/// string.
#[derive(Debug)]
struct WriteError;

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cannot be written as JSON")
    }
}

impl std::error::Error for WriteError {}

impl ser::Error for WriteError {
    fn custom<T: std::fmt::Display>(_message: T) -> Self {
        WriteError
    }
}

/// An array or object being written; `close` ends it (two bytes for an enum variant's wrapper).
struct Compound<'a> {
    w: &'a mut Writer,
    first: bool,
    close: &'static str,
}

impl Compound<'_> {
    fn comma(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.w.out.push(',');
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WriteError> {
        self.comma();
        value.serialize(&mut *self.w)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), WriteError> {
        self.key(key);
        value.serialize(&mut *self.w)
    }

    /// `,"key":` (apart from the generic part, so that it is compiled once).
    #[inline(never)]
    fn key(&mut self, key: &str) {
        self.comma();
        write_str(&mut self.w.out, key);
        self.w.out.push(':');
    }

    fn finish(self) -> Result<(), WriteError> {
        self.w.out.push_str(self.close);
        Ok(())
    }
}

impl Writer {
    fn open(&mut self, prefix: &str, variant: Option<&str>, close: &'static str) -> Compound<'_> {
        if let Some(variant) = variant {
            self.out.push('{');
            write_str(&mut self.out, variant);
            self.out.push(':');
        }
        self.out.push_str(prefix);
        Compound { w: self, first: true, close }
    }

    fn float(&mut self, value: f64) {
        if !value.is_finite() {
            self.out.push_str("null");
        } else if cfg!(not(all(target_arch = "wasm32", feature = "wasm"))) && self.rust_floats {
            // `display` (native tests only; the package's messages print numbers as JavaScript does).
            #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
            number::write_rust_f64(&mut self.out, value);
        } else {
            number::write_js_f64(&mut self.out, value);
        }
    }
}

/// Serializer methods of narrower integers, each passing its value on widened.
macro_rules! widened {
    ($($method:ident($narrow:ty)),+ => $wide:ident($to:ty)) => {
        $(
            fn $method(self, v: $narrow) -> Result<(), WriteError> {
                self.$wide(<$to>::from(v))
            }
        )+
    };
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = WriteError;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), WriteError> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    widened!(serialize_i8(i8), serialize_i16(i16), serialize_i32(i32) => serialize_i64(i64));
    fn serialize_i64(self, v: i64) -> Result<(), WriteError> {
        write_i64(&mut self.out, v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), WriteError> {
        if v < 0 {
            self.out.push('-');
        }
        write_u128(&mut self.out, v.unsigned_abs());
        Ok(())
    }
    widened!(serialize_u8(u8), serialize_u16(u16), serialize_u32(u32) => serialize_u64(u64));
    fn serialize_u64(self, v: u64) -> Result<(), WriteError> {
        write_u64(&mut self.out, v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), WriteError> {
        write_u128(&mut self.out, v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), WriteError> {
        self.float(f64::from(v));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), WriteError> {
        self.float(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), WriteError> {
        write_str(&mut self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), WriteError> {
        write_str(&mut self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), WriteError> {
        let mut seq = self.open("[", None, "]");
        for byte in v {
            seq.element(byte)?;
        }
        seq.finish()
    }
    fn serialize_none(self) -> Result<(), WriteError> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), WriteError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), WriteError> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), WriteError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), WriteError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<(), WriteError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(self, _name: &'static str, _index: u32, variant: &'static str, value: &T) -> Result<(), WriteError> {
        let wrapper = self.open("", Some(variant), "}");
        value.serialize(&mut *wrapper.w)?;
        wrapper.finish()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, WriteError> {
        Ok(self.open("[", None, "]"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, WriteError> {
        Ok(self.open("[", None, "]"))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, WriteError> {
        Ok(self.open("[", None, "]"))
    }
    fn serialize_tuple_variant(self, _name: &'static str, _index: u32, variant: &'static str, _len: usize) -> Result<Compound<'a>, WriteError> {
        Ok(self.open("[", Some(variant), "]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, WriteError> {
        Ok(self.open("{", None, "}"))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, WriteError> {
        Ok(self.open("{", None, "}"))
    }
    fn serialize_struct_variant(self, _name: &'static str, _index: u32, variant: &'static str, _len: usize) -> Result<Compound<'a>, WriteError> {
        Ok(self.open("{", Some(variant), "}}"))
    }
}

/// The sequence-like serde traits: each element written after a comma, the compound closed at the end.
macro_rules! sequence_traits {
    ($($trait_:ident :: $method:ident),+) => {
        $(
            impl ser::$trait_ for Compound<'_> {
                type Ok = ();
                type Error = WriteError;
                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WriteError> {
                    self.element(value)
                }
                fn end(self) -> Result<(), WriteError> {
                    self.finish()
                }
            }
        )+
    };
}

sequence_traits!(SerializeSeq::serialize_element, SerializeTuple::serialize_element, SerializeTupleStruct::serialize_field, SerializeTupleVariant::serialize_field);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = WriteError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), WriteError> {
        self.comma();
        key.serialize(KeyWriter(&mut *self.w))?;
        self.w.out.push(':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WriteError> {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), WriteError> {
        self.finish()
    }
}

/// The struct-like serde traits: each field written as `"key":value` after a comma.
macro_rules! struct_traits {
    ($($trait_:ident),+) => {
        $(
            impl ser::$trait_ for Compound<'_> {
                type Ok = ();
                type Error = WriteError;
                fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), WriteError> {
                    self.field(key, value)
                }
                fn end(self) -> Result<(), WriteError> {
                    self.finish()
                }
            }
        )+
    };
}

struct_traits!(SerializeStruct, SerializeStructVariant);

/// Writes a map key: a string, or a number or boolean as a string (what `serde_json` accepts).
struct KeyWriter<'a>(&'a mut Writer);

impl KeyWriter<'_> {
    fn quoted(self, write: impl FnOnce(&mut String)) -> Result<(), WriteError> {
        self.0.out.push('"');
        write(&mut self.0.out);
        self.0.out.push('"');
        Ok(())
    }
}

type NoCompound = ser::Impossible<(), WriteError>;

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = WriteError;
    type SerializeSeq = NoCompound;
    type SerializeTuple = NoCompound;
    type SerializeTupleStruct = NoCompound;
    type SerializeTupleVariant = NoCompound;
    type SerializeMap = NoCompound;
    type SerializeStruct = NoCompound;
    type SerializeStructVariant = NoCompound;

    fn serialize_str(self, v: &str) -> Result<(), WriteError> {
        write_str(&mut self.0.out, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), WriteError> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_bool(self, v: bool) -> Result<(), WriteError> {
        self.quoted(|out| out.push_str(if v { "true" } else { "false" }))
    }
    widened!(serialize_i8(i8), serialize_i16(i16), serialize_i32(i32) => serialize_i64(i64));
    fn serialize_i64(self, v: i64) -> Result<(), WriteError> {
        self.quoted(|out| write_i64(out, v))
    }
    widened!(serialize_u8(u8), serialize_u16(u16), serialize_u32(u32) => serialize_u64(u64));
    fn serialize_u64(self, v: u64) -> Result<(), WriteError> {
        self.quoted(|out| write_u64(out, v))
    }
    fn serialize_f32(self, v: f32) -> Result<(), WriteError> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), WriteError> {
        if !v.is_finite() {
            return Err(WriteError);
        }
        self.quoted(|out| number::write_js_f64(out, v))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), WriteError> {
        Err(WriteError)
    }
    fn serialize_none(self) -> Result<(), WriteError> {
        Err(WriteError)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), WriteError> {
        Err(WriteError)
    }
    fn serialize_unit(self) -> Result<(), WriteError> {
        Err(WriteError)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), WriteError> {
        Err(WriteError)
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), WriteError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<(), WriteError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(self, _name: &'static str, _index: u32, _variant: &'static str, _value: &T) -> Result<(), WriteError> {
        Err(WriteError)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<NoCompound, WriteError> {
        Err(WriteError)
    }
    fn serialize_tuple(self, _len: usize) -> Result<NoCompound, WriteError> {
        Err(WriteError)
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<NoCompound, WriteError> {
        Err(WriteError)
    }
    fn serialize_tuple_variant(self, _name: &'static str, _index: u32, _variant: &'static str, _len: usize) -> Result<NoCompound, WriteError> {
        Err(WriteError)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<NoCompound, WriteError> {
        Err(WriteError)
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<NoCompound, WriteError> {
        Err(WriteError)
    }
    fn serialize_struct_variant(self, _name: &'static str, _index: u32, _variant: &'static str, _len: usize) -> Result<NoCompound, WriteError> {
        Err(WriteError)
    }
}

/// Why a text is not JSON (the messages are `serde_json`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    EofList,
    EofObject,
    EofString,
    EofValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedIdent,
    ExpectedValue,
    InvalidEscape,
    InvalidNumber,
    NumberOutOfRange,
    ControlCharacter,
    KeyMustBeAString,
    LoneLeadingSurrogate,
    TrailingComma,
    TrailingCharacters,
    UnexpectedEndOfHexEscape,
    RecursionLimit,
}

impl Fault {
    #[cfg_attr(all(target_arch = "wasm32", feature = "wasm"), allow(dead_code))]
    fn message(self) -> &'static str {
        match self {
            Fault::EofList => "EOF while parsing a list",
            Fault::EofObject => "EOF while parsing an object",
            Fault::EofString => "EOF while parsing a string",
            Fault::EofValue => "EOF while parsing a value",
            Fault::ExpectedColon => "expected `:`",
            Fault::ExpectedListCommaOrEnd => "expected `,` or `]`",
            Fault::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            Fault::ExpectedIdent => "expected ident",
            Fault::ExpectedValue => "expected value",
            Fault::InvalidEscape => "invalid escape",
            Fault::InvalidNumber => "invalid number",
            Fault::NumberOutOfRange => "number out of range",
            Fault::ControlCharacter => "control character (\\u0000-\\u001F) found while parsing a string",
            Fault::KeyMustBeAString => "key must be a string",
            Fault::LoneLeadingSurrogate => "lone leading surrogate in hex escape",
            Fault::TrailingComma => "trailing comma",
            Fault::TrailingCharacters => "trailing characters",
            Fault::UnexpectedEndOfHexEscape => "unexpected end of hex escape",
            Fault::RecursionLimit => "recursion limit exceeded",
        }
    }
}

/// A fault and where it was found (line from 1, column in bytes from the line's start).
struct Failure {
    fault: Fault,
    line: usize,
    column: usize,
}

/// A recursive-descent reader over one JSON text. Objects nest at most 127 deep, as in `serde_json`.
struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    index: usize,
    depth: u8,
}

impl Reader<'_> {
    fn failure_at(&self, fault: Fault, index: usize) -> Failure {
        let before = &self.bytes[..index.min(self.bytes.len())];
        let start_of_line = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let line = 1 + before[..start_of_line].iter().filter(|&&b| b == b'\n').count();
        Failure { fault, line, column: before.len() - start_of_line }
    }

    /// A fault at the byte just read.
    fn error(&self, fault: Fault) -> Failure {
        self.failure_at(fault, self.index)
    }

    /// A fault at the byte about to be read.
    fn peek_error(&self, fault: Fault) -> Failure {
        self.failure_at(fault, (self.index + 1).min(self.bytes.len()))
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.index).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek();
        if byte.is_some() {
            self.index += 1;
        }
        byte
    }

    fn peek_digit(&self) -> bool {
        matches!(self.peek(), Some(b'0'..=b'9'))
    }

    /// Skips whitespace; the next byte, not consumed.
    fn whitespace(&mut self) -> Option<u8> {
        loop {
            match self.peek() {
                Some(b' ' | b'\n' | b'\t' | b'\r') => self.index += 1,
                other => return other,
            }
        }
    }

    fn value(&mut self) -> Result<Value, Failure> {
        let Some(peek) = self.whitespace() else { return Err(self.peek_error(Fault::EofValue)) };
        match peek {
            b'n' => {
                self.index += 1;
                self.ident(b"ull").map(|()| Value::Null)
            }
            b't' => {
                self.index += 1;
                self.ident(b"rue").map(|()| Value::Bool(true))
            }
            b'f' => {
                self.index += 1;
                self.ident(b"alse").map(|()| Value::Bool(false))
            }
            b'-' => {
                self.index += 1;
                self.number(false)
            }
            b'0'..=b'9' => self.number(true),
            b'"' => {
                self.index += 1;
                self.string().map(Value::String)
            }
            b'[' | b'{' => {
                self.depth -= 1;
                if self.depth == 0 {
                    return Err(self.peek_error(Fault::RecursionLimit));
                }
                self.index += 1;
                let value = if peek == b'[' { self.array() } else { self.object() };
                self.depth += 1;
                value
            }
            _ => Err(self.peek_error(Fault::ExpectedValue)),
        }
    }

    fn ident(&mut self, rest: &[u8]) -> Result<(), Failure> {
        for &expected in rest {
            match self.next() {
                None => return Err(self.error(Fault::EofValue)),
                Some(b) if b != expected => return Err(self.error(Fault::ExpectedIdent)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn array(&mut self) -> Result<Value, Failure> {
        let mut items = Vec::new();
        loop {
            let Some(peek) = self.whitespace() else { return Err(self.peek_error(Fault::EofList)) };
            if peek == b']' {
                self.index += 1;
                return Ok(Value::Array(items));
            }
            if !items.is_empty() {
                if peek != b',' {
                    return Err(self.peek_error(Fault::ExpectedListCommaOrEnd));
                }
                self.index += 1;
                match self.whitespace() {
                    Some(b']') => return Err(self.peek_error(Fault::TrailingComma)),
                    Some(_) => {}
                    None => return Err(self.peek_error(Fault::EofValue)),
                }
            }
            items.push(self.value()?);
        }
    }

    fn object(&mut self) -> Result<Value, Failure> {
        let mut map = Vec::new();
        let mut first = true;
        loop {
            let Some(peek) = self.whitespace() else { return Err(self.peek_error(Fault::EofObject)) };
            if peek == b'}' {
                self.index += 1;
                return Ok(object_of(map));
            }
            if first {
                first = false;
                if peek != b'"' {
                    return Err(self.peek_error(Fault::KeyMustBeAString));
                }
            } else if peek == b',' {
                self.index += 1;
                match self.whitespace() {
                    Some(b'"') => {}
                    Some(b'}') => return Err(self.peek_error(Fault::TrailingComma)),
                    Some(_) => return Err(self.peek_error(Fault::KeyMustBeAString)),
                    None => return Err(self.peek_error(Fault::EofValue)),
                }
            } else {
                return Err(self.peek_error(Fault::ExpectedObjectCommaOrEnd));
            }
            self.index += 1;
            let key = self.string()?;
            match self.whitespace() {
                Some(b':') => self.index += 1,
                Some(_) => return Err(self.peek_error(Fault::ExpectedColon)),
                None => return Err(self.peek_error(Fault::EofObject)),
            }
            let value = self.value()?;
            map.push((key, value));
        }
    }

    /// The text between `from` and `to` (both at character boundaries: after an ASCII byte).
    fn slice(&self, from: usize, to: usize) -> &str {
        self.text.get(from..to).unwrap_or_default()
    }

    /// A string's contents, the opening quote already read.
    fn string(&mut self) -> Result<String, Failure> {
        let mut start = self.index;
        let mut out = String::new();
        loop {
            while self.index < self.bytes.len() && !matches!(self.bytes[self.index], b'"' | b'\\' | 0..=0x1f) {
                self.index += 1;
            }
            let Some(byte) = self.peek() else { return Err(self.error(Fault::EofString)) };
            match byte {
                b'"' => {
                    out.push_str(self.slice(start, self.index));
                    self.index += 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(self.slice(start, self.index));
                    self.index += 1;
                    self.escape(&mut out)?;
                    start = self.index;
                }
                _ => {
                    self.index += 1;
                    return Err(self.error(Fault::ControlCharacter));
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), Failure> {
        let Some(byte) = self.next() else { return Err(self.error(Fault::EofString)) };
        let c = match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(out),
            _ => return Err(self.error(Fault::InvalidEscape)),
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, Failure> {
        let Some(digits) = self.bytes.get(self.index..self.index + 4) else {
            self.index = self.bytes.len();
            return Err(self.error(Fault::EofString));
        };
        let mut n = 0;
        let mut valid = true;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => {
                    valid = false;
                    0
                }
            };
            n = (n << 4) | u32::from(v);
        }
        self.index += 4;
        if valid {
            Ok(n)
        } else {
            Err(self.error(Fault::InvalidEscape))
        }
    }

    /// `\uXXXX`, the `\u` already read; a surrogate must be a leading one followed by a trailing one.
    fn unicode_escape(&mut self, out: &mut String) -> Result<(), Failure> {
        let first = self.hex4()?;
        let code = match first {
            0xDC00..=0xDFFF => return Err(self.error(Fault::LoneLeadingSurrogate)),
            0xD800..=0xDBFF => {
                for expected in [b'\\', b'u'] {
                    match self.peek() {
                        None => return Err(self.error(Fault::EofString)),
                        Some(b) => {
                            self.index += 1;
                            if b != expected {
                                return Err(self.error(Fault::UnexpectedEndOfHexEscape));
                            }
                        }
                    }
                }
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error(Fault::LoneLeadingSurrogate));
                }
                (((first - 0xD800) << 10) | (second - 0xDC00)) + 0x1_0000
            }
            other => other,
        };
        if let Some(c) = char::from_u32(code) {
            out.push(c);
        }
        Ok(())
    }

    /// A number, its sign already read: an integer that fits 64 bits stays one (as in `serde_json`),
    /// anything else is the nearest double; out of the double range is an error.
    fn number(&mut self, positive: bool) -> Result<Value, Failure> {
        let start = self.index;
        match self.next() {
            None => return Err(self.error(Fault::EofValue)),
            Some(b'0') => {
                if self.peek_digit() {
                    return Err(self.peek_error(Fault::InvalidNumber));
                }
            }
            Some(b'1'..=b'9') => {
                while self.peek_digit() {
                    self.index += 1;
                }
            }
            Some(_) => return Err(self.error(Fault::InvalidNumber)),
        }
        let integer = start..self.index;
        let mut fraction = self.index..self.index;
        let mut is_float = false;
        if self.peek() == Some(b'.') {
            self.index += 1;
            let from = self.index;
            while self.peek_digit() {
                self.index += 1;
            }
            if self.index == from {
                let fault = if self.peek().is_some() { Fault::InvalidNumber } else { Fault::EofValue };
                return Err(self.peek_error(fault));
            }
            fraction = from..self.index;
            is_float = true;
        }
        let all_zero = |r: &Reader| r.bytes[integer.clone()].iter().chain(&r.bytes[fraction.clone()]).all(|&d| d == b'0');
        let mut exponent: i64 = 0;
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.index += 1;
            is_float = true;
            let positive_exponent = match self.peek() {
                Some(b'+') => {
                    self.index += 1;
                    true
                }
                Some(b'-') => {
                    self.index += 1;
                    false
                }
                _ => true,
            };
            let mut e: i32 = match self.next() {
                None => return Err(self.error(Fault::EofValue)),
                Some(d @ b'0'..=b'9') => i32::from(d - b'0'),
                Some(_) => return Err(self.error(Fault::InvalidNumber)),
            };
            while let Some(d @ b'0'..=b'9') = self.peek() {
                self.index += 1;
                let d = i32::from(d - b'0');
                if e >= i32::MAX / 10 && (e > i32::MAX / 10 || d > i32::MAX % 10) {
                    // An exponent beyond 32 bits: infinity is an error, anything else is zero.
                    if positive_exponent && !all_zero(self) {
                        return Err(self.error(Fault::NumberOutOfRange));
                    }
                    while self.peek_digit() {
                        self.index += 1;
                    }
                    return Ok(float_value(if positive { 0.0 } else { -0.0 }));
                }
                e = e * 10 + d;
            }
            exponent = i64::from(if positive_exponent { e } else { -e });
        }
        let digits = &self.bytes[integer.clone()];
        if !is_float {
            let mut n: u64 = 0;
            let fits = digits.iter().all(|&d| match n.checked_mul(10).and_then(|m| m.checked_add(u64::from(d - b'0'))) {
                Some(m) => {
                    n = m;
                    true
                }
                None => false,
            });
            if fits {
                if positive {
                    return Ok(Value::Number(Number::from(n)));
                }
                let negated = (n as i64).wrapping_neg();
                return Ok(if negated >= 0 { float_value(-(n as f64)) } else { Value::Number(Number::from(negated)) });
            }
        }
        #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
        let magnitude = {
            let fraction_digits = &self.bytes[fraction];
            number::decimal_to_f64(digits, fraction_digits, exponent - fraction_digits.len() as i64)
        };
        // In the WebAssembly build every text read is `JSON.stringify`'s: its numbers are read back as
        // JavaScript reads them, correctly rounded as `decimal_to_f64` rounds them.
        #[cfg(all(target_arch = "wasm32", feature = "wasm"))]
        let magnitude = {
            let _ = (digits, fraction, exponent);
            crate::json::js::parse_float(self.slice(start, self.index))
        };
        if magnitude.is_infinite() {
            return Err(self.error(Fault::NumberOutOfRange));
        }
        Ok(float_value(if positive { magnitude } else { -magnitude }))
    }
}

/// An object from its entries in text order (a repeated key: first position, last value).
fn object_of(entries: Vec<(String, Value)>) -> Value {
    #[cfg(all(target_arch = "wasm32", feature = "wasm"))]
    return Value::Object(Map::from_entries(entries));
    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    {
        let mut map = Map::new();
        for (key, value) in entries {
            map.insert(key, value);
        }
        Value::Object(map)
    }
}

fn float_value(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// Number text: JavaScript's and `serde_json`'s printing, and correctly rounded reading.
mod number {
    /// `value` (finite) as JavaScript's `Number.prototype.toString` prints it.
    pub fn write_js_f64(out: &mut String, value: f64) {
        out.push_str(&js_text(value));
    }

    /// `value` (finite) as JavaScript prints it: ryu-js natively, and in the WebAssembly build
    /// JavaScript's own `Number.prototype.toString` (the same text, without the formatting tables).
    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    fn js_text(value: f64) -> String {
        ryu_js::Buffer::new().format_finite(value).to_string()
    }

    #[cfg(all(target_arch = "wasm32", feature = "wasm"))]
    fn js_text(value: f64) -> String {
        crate::json::js::number_text(value)
    }

    /// `value` (finite) as `serde_json` displays it: the same shortest digits, with a `.0` on integers
    /// and exponent notation (`1e+16`, `1e-6`) outside `1e-5 ..= 1e16`.
    #[cfg_attr(all(target_arch = "wasm32", feature = "wasm"), allow(dead_code))]
    pub fn write_rust_f64(out: &mut String, value: f64) {
        let mut text = Vec::new();
        rust_f64_text(&mut text, value);
        out.extend(text.iter().map(|&b| char::from(b)));
    }

    /// The ASCII text of [`write_rust_f64`].
    #[cfg_attr(all(target_arch = "wasm32", feature = "wasm"), allow(dead_code))]
    fn rust_f64_text(out: &mut Vec<u8>, value: f64) {
        if value.is_sign_negative() {
            out.push(b'-');
        }
        let text = js_text(value.abs());
        let js = text.as_bytes();
        // Split JavaScript's text into its digits and the position of the decimal point.
        let (mantissa, exponent) = match js.iter().position(|&b| b == b'e') {
            Some(e) => (&js[..e], parse_exponent(&js[e + 1..])),
            None => (js, 0),
        };
        let point = mantissa.iter().position(|&b| b == b'.').unwrap_or(mantissa.len());
        let mut digits: Vec<u8> = mantissa.iter().copied().filter(|&b| b != b'.').collect();
        let mut point = point as i32 + exponent;
        let leading = digits.iter().take_while(|&&d| d == b'0').count();
        digits.drain(..leading);
        point -= leading as i32;
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        if digits.is_empty() {
            out.extend_from_slice(b"0.0");
            return;
        }
        let n = digits.len() as i32;
        let dec_exp = point - 1;
        if (-5..=15).contains(&dec_exp) {
            if n <= point {
                out.extend_from_slice(&digits);
                out.resize(out.len() + (point - n) as usize, b'0');
                out.extend_from_slice(b".0");
            } else if point > 0 {
                out.extend_from_slice(&digits[..point as usize]);
                out.push(b'.');
                out.extend_from_slice(&digits[point as usize..]);
            } else {
                out.extend_from_slice(b"0.");
                out.resize(out.len() + (-point) as usize, b'0');
                out.extend_from_slice(&digits);
            }
            return;
        }
        out.push(digits[0]);
        if n > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.extend_from_slice(if dec_exp < 0 { b"e-" } else { b"e+" });
        out.extend_from_slice(super::decimal(u64::from(dec_exp.unsigned_abs())).as_bytes());
    }

    #[cfg_attr(all(target_arch = "wasm32", feature = "wasm"), allow(dead_code))]
    fn parse_exponent(text: &[u8]) -> i32 {
        let (negative, digits) = match text.first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let magnitude = digits.iter().fold(0i32, |n, &d| n * 10 + i32::from(d.wrapping_sub(b'0')));
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// A natural number in base 2^32, least significant limb first, without high zero limbs.
    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    #[derive(Clone)]
    struct Big(Vec<u32>);

    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    impl Big {
        fn trim(&mut self) {
            while self.0.last() == Some(&0) {
                self.0.pop();
            }
        }

        fn mul_add(&mut self, factor: u32, addend: u32) {
            let mut carry = u64::from(addend);
            for limb in &mut self.0 {
                let v = u64::from(*limb) * u64::from(factor) + carry;
                *limb = v as u32;
                carry = v >> 32;
            }
            if carry != 0 {
                self.0.push(carry as u32);
            }
        }

        fn mul_pow10(&mut self, mut n: u64) {
            while n >= 9 {
                self.mul_add(1_000_000_000, 0);
                n -= 9;
            }
            if n > 0 {
                self.mul_add(10u32.pow(n as u32), 0);
            }
        }

        fn bits(&self) -> u64 {
            match self.0.last() {
                None => 0,
                Some(top) => (self.0.len() as u64 - 1) * 32 + u64::from(32 - top.leading_zeros()),
            }
        }

        fn bit(&self, i: u64) -> bool {
            self.0.get((i / 32) as usize).is_some_and(|limb| limb >> (i % 32) & 1 == 1)
        }

        fn any_below(&self, i: u64) -> bool {
            let whole = (i / 32) as usize;
            self.0.iter().take(whole).any(|&l| l != 0) || self.0.get(whole).is_some_and(|l| l & ((1u32 << (i % 32)) - 1) != 0)
        }

        fn shl(&mut self, n: u64) {
            if self.0.is_empty() {
                return;
            }
            for _ in 0..n / 32 {
                self.0.insert(0, 0);
            }
            let bits = (n % 32) as u32;
            if bits > 0 {
                let mut carry = 0;
                for limb in &mut self.0 {
                    let v = *limb;
                    *limb = (v << bits) | carry;
                    carry = v >> (32 - bits);
                }
                if carry != 0 {
                    self.0.push(carry);
                }
            }
        }

        fn shr1(&mut self) {
            let mut carry = 0;
            for limb in self.0.iter_mut().rev() {
                let v = *limb;
                *limb = (v >> 1) | carry;
                carry = v << 31;
            }
            self.trim();
        }

        fn ge(&self, other: &Big) -> bool {
            if self.0.len() != other.0.len() {
                return self.0.len() > other.0.len();
            }
            for (a, b) in self.0.iter().rev().zip(other.0.iter().rev()) {
                if a != b {
                    return a > b;
                }
            }
            true
        }

        /// `self -= other`, for `self >= other`.
        fn sub(&mut self, other: &Big) {
            let mut borrow = 0i64;
            for (i, limb) in self.0.iter_mut().enumerate() {
                let v = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
                borrow = i64::from(v < 0);
                *limb = v.rem_euclid(1 << 32) as u32;
            }
            self.trim();
        }

        /// The 64 bits from bit `from` up.
        fn bits_from(&self, from: u64) -> u64 {
            (0..64).fold(0u64, |acc, i| acc | (u64::from(self.bit(from + i)) << i))
        }
    }

    /// `2^e` for `-1074 <= e <= 1023`.
    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    fn pow2(e: i64) -> f64 {
        if e >= -1022 {
            f64::from_bits(((e + 1023) as u64) << 52)
        } else {
            f64::from_bits(1u64 << (e + 1074))
        }
    }

    /// The double nearest to `(q + sticky·ε) · 2^e2` (ties to even), infinity when too large.
    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    fn round(q: u64, e2: i64, sticky: bool) -> f64 {
        if q == 0 {
            return 0.0;
        }
        let bits = i64::from(64 - q.leading_zeros());
        let top = bits - 1 + e2;
        if top > 1023 {
            return f64::INFINITY;
        }
        let unit = (top - 52).max(-1074);
        let drop = unit - e2;
        if drop <= 0 {
            // Exact: fewer than 54 significant bits, and the unit is not below 2^-1074.
            return q as f64 * pow2(e2);
        }
        if drop > 64 {
            return 0.0;
        }
        let wide = u128::from(q);
        let mut m = (wide >> drop) as u64;
        let half = (wide >> (drop - 1)) & 1 == 1;
        let rest = sticky || wide & ((1u128 << (drop - 1)) - 1) != 0;
        if half && (rest || m & 1 == 1) {
            m += 1;
        }
        m as f64 * pow2(unit)
    }

    /// The double nearest to the decimal `int.frac × 10^exp` (`int` and `frac` are ASCII digits), ties
    /// to even: a single rounding when digits and power of ten are exact doubles, else exact big-number
    /// arithmetic. Positive; infinity when beyond the double range.
    #[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
    pub fn decimal_to_f64(int: &[u8], frac: &[u8], exp: i64) -> f64 {
        let all = || int.iter().chain(frac).copied();
        let leading = all().take_while(|&d| d == b'0').count();
        let total = int.len() + frac.len();
        let trailing = all().rev().take_while(|&d| d == b'0').count();
        if leading == total {
            return 0.0;
        }
        let count = total - leading - trailing;
        // The value is 0.d1d2…dn × 10^point, with d1 non-zero.
        let significant = || all().skip(leading).take(count);
        let mut e10 = exp + trailing as i64;
        let point = count as i64 + e10;
        if point > 310 {
            return f64::INFINITY;
        }
        if point < -324 {
            return 0.0;
        }
        if count <= 15 && (-22..=22).contains(&e10) {
            // Both the digits and the power of ten are exact doubles: one rounding.
            let n = significant().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            let p = (0..e10.unsigned_abs()).fold(1.0f64, |p, _| p * 10.0);
            return if e10 < 0 { n as f64 / p } else { n as f64 * p };
        }
        // 800 digits decide the rounding; further (non-zero) digits only break a tie, as a final 1.
        const KEEP: usize = 800;
        let mut n = Big(Vec::new());
        for d in significant().take(KEEP) {
            n.mul_add(10, u32::from(d - b'0'));
        }
        if count > KEEP {
            n.mul_add(10, 1);
            e10 += (count - KEEP) as i64 - 1;
        }
        if e10 >= 0 {
            n.mul_pow10(e10 as u64);
            let bits = n.bits();
            if bits <= 64 {
                return round(n.bits_from(0), 0, false);
            }
            let from = bits - 64;
            return round(n.bits_from(from), from as i64, n.any_below(from));
        }
        // n / 10^-e10: a quotient of 56–58 bits by long division, the remainder as the sticky bit.
        let mut d = Big(vec![1]);
        d.mul_pow10(e10.unsigned_abs());
        let k = d.bits() as i64 + 56 - n.bits() as i64;
        if k >= 0 {
            n.shl(k as u64);
        } else {
            d.shl(k.unsigned_abs());
        }
        d.shl(57);
        let mut q = 0u64;
        for _ in 0..58 {
            q <<= 1;
            if n.ge(&d) {
                n.sub(&d);
                q |= 1;
            }
            d.shr1();
        }
        round(q, -k, !n.0.is_empty())
    }
}

#[cfg(all(test, not(all(target_arch = "wasm32", feature = "wasm"))))]
// Native only: the tests build `serde_json` values, the crate's own `Value` in the WebAssembly build.
mod tests {
    use super::*;
    use crate::names::NameMap;
    use crate::text::quote;
    use proptest::prelude::*;

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
        assert_eq!(array_index("9999999999"), None);
        assert_eq!(array_index("01"), None);
        assert_eq!(array_index("-1"), None);
        assert_eq!(array_index("1a"), None);
        assert_eq!(array_index(""), None);
    }

    #[test]
    fn deep_nesting_is_invalid_input_not_a_crash() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(parse(&deep).unwrap_err().to_string(), "input: is nested too deeply");
        assert!(parse(&("[".repeat(127) + &"]".repeat(127))).is_ok());
    }

    #[test]
    fn keys_sort_like_a_javascript_object() {
        let pairs = vec![("b".to_string(), 1), ("7".to_string(), 2), ("a".to_string(), 3), ("0".to_string(), 4), ("10".to_string(), 5), ("07".to_string(), 6)];
        let keys: Vec<String> = js_key_order(pairs).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["0", "7", "10", "b", "a", "07"]);
        let mut many: Vec<(u32, usize)> = (0..500u32).map(|i| ((i * 7919) % 503, i as usize)).collect();
        heap_sort(&mut many);
        assert!(many.windows(2).all(|w| w[0] <= w[1]));
    }

    // ---- The reader against serde_json (the accepted language, the values, the error messages) ----

    /// What serde_json answers for a text, in this module's message format.
    fn reference_parse(text: &str) -> Result<Value, String> {
        serde_json::from_str::<Value>(text).map_err(|e| {
            if e.to_string().contains("recursion limit") {
                "input: is nested too deeply".to_string()
            } else {
                format!("input: is not valid JSON ({e})")
            }
        })
    }

    /// Values compared with their number representation (u64, i64 or f64, and the sign of zero).
    fn same(a: &Value, b: &Value) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    fn check_parse(text: &str) {
        let ours = parse(text).map_err(|e| e.to_string());
        let theirs = reference_parse(text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert!(same(a, b), "{text:?}: {a:?} != {b:?}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "{text:?}"),
            _ => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    const CORNERS: &[&str] = &[
        "", " ", "null", "true", "false", "nul", "tru", "fals", "nulL", "trUe", "n", "0", "-0", "-", "- 1", "01", "-01", "1.", "1.x", ".5", "1e", "1e+", "1e-",
        "1ex", "1E5", "1e-5", "-0.0", "0.0", "1.0", "2.5e3", "00", "0x1", "+1", "1e+0", "1e-0", "1.5e", "1.5e+", "-a", "1 ", " 1", "\t\n\r 1 \r\n",
        "18446744073709551615", "18446744073709551616", "-18446744073709551615", "-9223372036854775808", "-9223372036854775809",
        "123456789012345678901234567890", "1e400", "-1e400", "1e-400", "4.9e-324", "2.4e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
        "2.5e-324", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1.797693134862315807e308", "1.797693134862315808e308",
        "0.1", "0.30000000000000004", "9007199254740993", "9007199254740993.0", "9007199254740993e0", "1.2345678901234567e-300", "123456789.123", "1e21",
        "1e+21", "100000000000000000000", "2.2250738585072011e-308", "2.2250738585072012e-308", "2.225073858507201136057409796709131975934819546351645648e-308",
        "1e2147483647", "1e2147483648", "1e99999999999", "0e99999999999", "1e-99999999999", "-1e99999999999", "0.0e2147483648", "1.5e-2147483648",
        "1e-2147483647", "0.000000000000000000000000000000000000000000001e45", "123456789012345678901234567890e-30", "7.0e-10", "1e23", "8.98846567431158e307",
        "\"", "\"abc", "\"a\\\"b\"", "\"\\u0041\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800x\"", "\"\\ud800\\u0041\"",
        "\"\\ud800\\ud800\"", "\"\\ud800\\", "\"\\ud800\\x", "\"\\ud800\\u12", "\"\\u12\"", "\"\\u12", "\"\\uZZZZ\"", "\"\\u00G0\"", "\"\\x\"", "\"\\", "\"a\nb\"",
        "\"a\tb\"", "\"\u{1}\"", "\"\u{7f}\"", "\"é\"", "\"😀\"", "\"\\/\"", "\"\\b\\f\\n\\r\\t\"", "\"\\DBFF\"", "\"\\uDBFF\\uDFFF\"", "\"\\uD800\\uDC00x\"",
        "[", "]", "[1", "[1,", "[1,]", "[1 2]", "[,1]", "[1,,2]", "[ ]", "[\n]", "{", "}", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,", "{\"a\":1,}", "{\"a\" 1}",
        "{a:1}", "{1:1}", "{\"a\":1 \"b\":2}", "{\"a\":1}x", "[] []", "1 2", "  [ 1 , 2 ] ", "\n\n[1,\n  x]", "\r\n{\"a\":\r\n  tru}", "{,}", "{\"a\":1,,}",
        "{\"b\":1,\"a\":2,\"b\":3}", "{\"2\":1,\"1\":2,\"a\":3}", "[null,true,false,0,-1,1.5,\"s\",[],{}]", "\t1", "\u{a0}1", "\u{feff}1", "1\u{0}", "[1]\n\n ",
        "{\"a\":[{\"b\":[1,{\"c\":null}]}]}", "[1,2,3,]", "{\"\":\"\"}", "[\"\\u0000\"]", "{\"a\":1,\"a\":{\"b\":2}}",
    ];

    #[test]
    fn the_reader_matches_serde_json_on_corner_cases() {
        for text in CORNERS {
            check_parse(text);
        }
        for depth in [126, 127, 128, 129, 200] {
            check_parse(&("[".repeat(depth) + &"]".repeat(depth)));
            check_parse(&("{\"a\":".repeat(depth) + "1" + &"}".repeat(depth)));
            check_parse(&"[".repeat(depth));
        }
        let long_digits = "1".repeat(900);
        for text in [
            long_digits.clone(),
            format!("0.{long_digits}"),
            format!("{long_digits}e-1200"),
            format!("{long_digits}.5e-890"),
            format!("0.{}1", "0".repeat(400)),
            "2.47032822920623272088284396434110686182529901307162382212792841250337753635104375932649918180817996189898282347722858865463328355177969898199387398005390939063150356595155702263922908583924491051844359318028499365361525003193704576782492193656236698636584807570015857692699037063119282795585513329278343384093519780155312465972635795746227664652728272200563740064854999770965994704540208281662262378573934507363390079677619305775067401763246736009689513405355374585166611342237666786041621596804619144672918403005300575308490487653917113865916462395249126236538818796362393732804238910186723484976682350898633885879256283027559956575244555072551893136908362547791869486679949683240497058210285131854513962138377228261454376934125320985913276672363281255e-324".to_string(),
            format!("1{}e-{}", "0".repeat(700), 1024),
        ] {
            check_parse(&text);
            check_parse(&format!("-{text}"));
            check_parse(&format!("[{text}]"));
        }
    }

    #[test]
    fn error_lines_and_columns_count_bytes_after_the_last_newline() {
        assert_eq!(parse("[1,\n  x]").unwrap_err().to_string(), "input: is not valid JSON (expected value at line 2 column 3)");
        assert_eq!(parse("\"é\u{1}\"").unwrap_err().to_string(), "input: is not valid JSON (control character (\\u0000-\\u001F) found while parsing a string at line 1 column 4)");
        assert_eq!(parse("").unwrap_err().to_string(), "input: is not valid JSON (EOF while parsing a value at line 1 column 0)");
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f).map(Value::Number)),
            (-1000i32..1000, 0u32..6).prop_map(|(m, e)| Value::from(f64::from(m) / 10f64.powi(e as i32))),
            "[a-z0-9\"\\\\\\n\\t\u{1}-\u{1f}\u{7f}é界😀 ]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[a-z0-9\"]{0,4}", inner), 0..6).prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }

    const NOISE: &[&str] = &["\"", ",", "]", "}", "{", "[", ":", "x", "\\", "\n", " ", "1", "-", ".", "e", "\u{1}", "é", "tru", "\\u", "\\ud800", "0", "E+"];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(if cfg!(target_arch = "wasm32") { 100 } else { 3000 }))]

        #[test]
        fn the_reader_matches_serde_json_on_any_text(value in arb_value(), cut in any::<prop::sample::Index>(), op in 0usize..5, noise in prop::sample::select(NOISE)) {
            let text = if op % 2 == 0 { serde_json::to_string(&value).unwrap() } else { serde_json::to_string_pretty(&value).unwrap() };
            check_parse(&text);
            let bytes = text.as_bytes();
            let mut at = cut.index(bytes.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mutated = match op {
                0 => text[..at].to_string(),
                1 | 2 => format!("{}{}{}", &text[..at], noise, &text[at..]),
                _ => {
                    let mut end = at + 1;
                    while end < text.len() && !text.is_char_boundary(end) {
                        end += 1;
                    }
                    format!("{}{}", &text[..at], &text[end.min(text.len())..])
                }
            };
            check_parse(&mutated);
        }

        #[test]
        fn decimals_round_like_the_standard_library(digits in "[0-9]{1,40}", point in 0usize..42, exp in -360i32..330, tail in "[0-9]{0,30}") {
            let point = point.min(digits.len());
            let int = if point == 0 { "0" } else { digits[..point].trim_start_matches('0') };
            let int = if int.is_empty() { "0" } else { int };
            let frac = format!("{}{}", &digits[point..], tail);
            let frac = if frac.is_empty() { "0".to_string() } else { frac };
            let text = format!("{int}.{frac}e{exp}");
            let expected: f64 = text.parse().unwrap();
            match parse(&text) {
                Ok(v) => prop_assert_eq!(v.as_f64().unwrap().to_bits(), expected.to_bits(), "{}", text),
                Err(e) => prop_assert!(expected.is_infinite(), "{} {}", text, e),
            }
            check_parse(&text);
        }

        #[test]
        fn every_double_reads_back_from_its_shortest_text(bits in any::<u64>()) {
            let f = f64::from_bits(bits);
            prop_assume!(f.is_finite());
            for text in [ryu_js::Buffer::new().format_finite(f).to_string(), format!("{f:e}"), format!("{f:?}")] {
                let v = parse(&text).unwrap();
                prop_assert_eq!(v.as_f64().unwrap().to_bits(), f.to_bits(), "{}", text);
            }
        }

        #[test]
        fn the_writer_matches_the_reference_writer(value in arb_value()) {
            prop_assert_eq!(to_string(&value).unwrap(), reference_to_string(&value));
            let normalized = js_normalize(value.clone());
            prop_assert_eq!(to_string(&normalized).unwrap(), reference_to_string(&normalized));
            prop_assert_eq!(display(&value), value.to_string());
        }

        #[test]
        fn display_and_quote_match_serde_json(bits in any::<u64>(), text in "\\PC{0,20}|[\u{0}-\u{1f}\"\\\\]{0,5}") {
            let f = f64::from_bits(bits);
            if let Some(n) = serde_json::Number::from_f64(f) {
                let v = Value::Number(n);
                prop_assert_eq!(display(&v), v.to_string());
            }
            prop_assert_eq!(quote(&text), Value::String(text.clone()).to_string());
        }
    }

    #[test]
    fn display_matches_serde_json_at_the_notation_boundaries() {
        for f in [0.0, -0.0, 1.0, 100.0, 1e15, 1e16, 1.5e16, 123456789012345680.0, 1e-5, 1e-6, 1.5e-5, 0.00001234, 5e-324, 1.7976931348623157e308, 1e21, 1e22, 0.1, 2.5] {
            for g in [f, -f] {
                let v = Value::from(g);
                assert_eq!(display(&v), v.to_string(), "{g}");
            }
        }
        assert_eq!(display(&serde_json::json!({"a": [1, -2, 2.5, "x\"", null, true]})), r#"{"a":[1,-2,2.5,"x\"",null,true]}"#);
    }

    /// The writer this module replaced: serde_json's serializer printing numbers with ryu-js.
    fn reference_to_string<T: Serialize>(value: &T) -> String {
        struct JsFormatter;
        impl serde_json::ser::Formatter for JsFormatter {
            fn write_f64<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, value: f64) -> std::io::Result<()> {
                writer.write_all(ryu_js::Buffer::new().format(value).as_bytes())
            }
            fn write_f32<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, value: f32) -> std::io::Result<()> {
                self.write_f64(writer, f64::from(value))
            }
        }
        let mut out = Vec::new();
        value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, JsFormatter)).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    enum Shape {
        Unit,
        New(u8),
        Tuple(i8, f32),
        Struct { a_b: Option<bool> },
    }

    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Everything<'a> {
        text: &'a str,
        c: char,
        small: i16,
        big: u128,
        neg: i128,
        none: Option<u8>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        unit: (),
        tuple: (u8, &'a str),
        shapes: Vec<Shape>,
        map: std::collections::BTreeMap<u32, f64>,
        bools: std::collections::BTreeMap<bool, i64>,
        floats: Vec<f64>,
        bytes: serde_bytes_like::Bytes<'a>,
        map_of_json: NameMap<Value>,
    }

    mod serde_bytes_like {
        pub struct Bytes<'a>(pub &'a [u8]);
        impl serde::Serialize for Bytes<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
    }

    #[test]
    fn the_writer_matches_the_reference_writer_on_the_whole_data_model() {
        let value = Everything {
            text: "a\"\\\u{1}\u{8}\u{c}\n\r\t\u{7f}\u{2028}é",
            c: '\n',
            small: -3,
            big: u128::MAX,
            neg: i128::MIN,
            none: None,
            skipped: None,
            unit: (),
            tuple: (7, "x"),
            shapes: vec![Shape::Unit, Shape::New(4), Shape::Tuple(-1, 0.1), Shape::Struct { a_b: Some(false) }, Shape::Struct { a_b: None }],
            map: [(3, 1e21), (1, -0.0), (2, 1e-7)].into_iter().collect(),
            bools: [(true, 1), (false, -1)].into_iter().collect(),
            floats: vec![f64::NAN, f64::INFINITY, 5e-324, 123456789.123, 1e300, -1.5],
            bytes: serde_bytes_like::Bytes(&[0, 1, 255]),
            map_of_json: NameMap::new(vec![("b".into(), Value::from(1.5)), ("3".into(), Value::Null), ("1".into(), serde_json::json!([{"x": u64::MAX}]))]),
        };
        assert_eq!(to_string(&value).unwrap(), reference_to_string(&value));
        assert_eq!(to_string(&"plain").unwrap(), "\"plain\"");
    }
}

/// The two JavaScript built-ins the WebAssembly build reads and prints numbers with.
#[cfg(all(target_arch = "wasm32", feature = "wasm"))]
mod js {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// `parseFloat`: JSON's number text read as JavaScript reads it.
        #[wasm_bindgen(js_name = parseFloat)]
        pub fn parse_float(text: &str) -> f64;
        /// `String(value)`: a number printed as `Number.prototype.toString` prints it.
        #[wasm_bindgen(js_name = String)]
        pub fn number_text(value: f64) -> String;
    }
}
