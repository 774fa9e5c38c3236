// The boundary experiment (appended to a copy of src/value/list.rs): serde's `Deserialize` for the
// WebAssembly build's JSON value, so that serde-wasm-bindgen can read arguments into it.
impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Value, E> { Ok(Value::Bool(v)) }
            fn visit_i64<E>(self, v: i64) -> Result<Value, E> { Ok(Value::Number(v.into())) }
            fn visit_u64<E>(self, v: u64) -> Result<Value, E> { Ok(Value::Number(v.into())) }
            fn visit_f64<E>(self, v: f64) -> Result<Value, E> { Ok(Number::from_f64(v).map_or(Value::Null, Value::Number)) }
            fn visit_str<E>(self, v: &str) -> Result<Value, E> { Ok(Value::String(v.to_string())) }
            fn visit_string<E>(self, v: String) -> Result<Value, E> { Ok(Value::String(v)) }
            fn visit_unit<E>(self) -> Result<Value, E> { Ok(Value::Null) }
            fn visit_none<E>(self) -> Result<Value, E> { Ok(Value::Null) }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = a.next_element()? {
                    out.push(v);
                }
                Ok(Value::Array(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, Value>()? {
                    out.push((k, v));
                }
                Ok(Value::Object(Map::from_entries(out)))
            }
        }
        d.deserialize_any(V)
    }
}
