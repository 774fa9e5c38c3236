//! The JSON codec of the wire: JSON text read into [`Value`] with `serde_json` (as JavaScript holds it:
//! [`js_normalize`]), and answers printed with `serde_json` exactly as JavaScript's `JSON.stringify`
//! prints them (`crate::value::JsFormatter`: numbers through `ryu-js`), so that native, Node and browser
//! answers are byte-identical. Every build runs this one path. It knows nothing of the package's
//! inputs: their limits and the paths invalid input names are [`crate::edge::read`]'s.

use crate::error::Error;
pub use crate::value::{array_index, js_key_order, js_normalize, Map, Number, Value};

/// Parses JSON text: what `serde_json` accepts, numbers rounded to the nearest double (as `JSON.parse`
/// rounds them). An error names what is wrong and where (`serde_json`'s message), or says that the
/// text is nested more than 128 levels deep.
pub fn parse(text: &str) -> Result<Value, Error> {
    serde_json::from_str(text).map_err(|e| {
        let what = e.to_string();
        if what.starts_with("recursion limit exceeded") {
            Error::invalid("input", "is nested too deeply")
        } else {
            Error::invalid("input", crate::text::concat(&["is not valid JSON (", &what, ")"]))
        }
    })
}

/// Serializes an answer exactly as `JSON.stringify` prints the same value in JavaScript.
pub fn to_string<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    crate::value::to_js_string(value).ok_or_else(unprintable)
}

/// The error of an answer that cannot be printed (no answer of the crate's is one): built once, out of
/// line, for every type `to_string` prints.
#[cold]
#[inline(never)]
fn unprintable() -> Error {
    Error::invalid("output", "cannot be written as JSON")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::NameMap;
    use serde::Serialize;

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
        assert_eq!(array_index("+1"), None);
        assert_eq!(array_index(""), None);
    }

    #[test]
    fn deep_nesting_is_invalid_input_not_a_crash() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(parse(&deep).unwrap_err().to_string(), "input: is nested too deeply");
        assert!(parse(&("[".repeat(127) + &"]".repeat(127))).is_ok());
        assert_eq!(parse(&("[".repeat(128) + &"]".repeat(128))).unwrap_err().to_string(), "input: is nested too deeply");
    }

    #[test]
    fn keys_sort_like_a_javascript_object() {
        let pairs = vec![("b".to_string(), 1), ("7".to_string(), 2), ("a".to_string(), 3), ("0".to_string(), 4), ("10".to_string(), 5), ("07".to_string(), 6)];
        let keys: Vec<String> = js_key_order(pairs).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["0", "7", "10", "b", "a", "07"]);
    }

    #[test]
    fn a_repeated_key_keeps_its_first_position_and_its_last_value() {
        assert_eq!(to_string(&parse(r#"{"b":1,"a":2,"b":3}"#).unwrap()).unwrap(), r#"{"b":3,"a":2}"#);
    }

    #[test]
    fn error_messages_name_what_and_where() {
        assert_eq!(parse("[1,\n  x]").unwrap_err().to_string(), "input: is not valid JSON (expected value at line 2 column 3)");
        assert_eq!(
            parse("\"é\u{1}\"").unwrap_err().to_string(),
            "input: is not valid JSON (control character (\\u0000-\\u001F) found while parsing a string at line 1 column 4)"
        );
        assert_eq!(parse("").unwrap_err().to_string(), "input: is not valid JSON (EOF while parsing a value at line 1 column 0)");
        assert_eq!(parse("\"\\ud800\"").unwrap_err().to_string(), "input: is not valid JSON (unexpected end of hex escape at line 1 column 8)");
    }

    #[test]
    fn numbers_round_as_javascript_reads_them() {
        for (text, expected) in [
            ("0.1", 0.1),
            ("9007199254740993", 9007199254740992.0),
            ("2.2250738585072011e-308", 2.225_073_858_507_201e-308),
            ("1.7976931348623157e308", f64::MAX),
        ] {
            assert_eq!(js_normalize(parse(text).unwrap()).as_f64().unwrap().to_bits(), expected.to_bits(), "{text}");
        }
        assert!(parse("1e400").is_err());
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    enum Shape {
        Unit,
        New(u8),
        Struct { a_b: Option<bool> },
    }

    #[test]
    fn the_writer_prints_the_data_model_as_javascript() {
        #[derive(Serialize)]
        struct Everything {
            text: &'static str,
            shapes: Vec<Shape>,
            floats: Vec<f64>,
            names: NameMap<Value>,
        }
        let value = Everything {
            text: "a\"\\\u{1}\u{8}\u{c}\n\r\t\u{7f}\u{2028}é",
            shapes: vec![Shape::Unit, Shape::New(4), Shape::Struct { a_b: None }],
            floats: vec![f64::NAN, f64::INFINITY, 5e-324, 123456789.123, 1e300, -1.5, 1e21, 1e-7],
            names: NameMap::new(vec![("b".into(), Value::from(1.5)), ("3".into(), Value::Null), ("1".into(), Value::from(2.0))]),
        };
        assert_eq!(
            to_string(&value).unwrap(),
            "{\"text\":\"a\\\"\\\\\\u0001\\b\\f\\n\\r\\t\u{7f}\u{2028}é\",\"shapes\":[\"unit\",{\"new\":4},{\"struct\":{\"a_b\":null}}],\"floats\":[null,null,5e-324,123456789.123,1e+300,-1.5,1e+21,1e-7],\"names\":{\"1\":2,\"3\":null,\"b\":1.5}}"
        );
    }
}
