//! The JSON data model the core works on where a value really is free-form JSON: a tool's argument
//! schema (`parameters`), the arguments of one call, a governance row's extra keys. Natively these are
//! `serde_json`'s types; the WebAssembly build uses the crate's own list-backed ones ([`list`]), which
//! behave the same and are much smaller.

#[cfg(not(all(target_arch = "wasm32", feature = "wasm")))]
pub use serde_json::{Map, Number, Value};
#[cfg(all(target_arch = "wasm32", feature = "wasm"))]
pub use list::{Map, Number, Value};

#[cfg(any(test, all(target_arch = "wasm32", feature = "wasm")))]
pub mod list;

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

