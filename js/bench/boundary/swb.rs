// The boundary experiment (scripts/boundary-experiment.sh appends this to a copy of
// src/edge/wasm.rs): the same functions with arguments read and answers written by
// serde-wasm-bindgen (`Serializer::json_compatible()`, plain objects) instead of JSON text.

fn swb_read(value: &JsValue, path: &str) -> Result<Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Value::Null);
    }
    serde_wasm_bindgen::from_value::<Value>(value.clone()).map_err(|e| invalid(&Error::invalid(path, e.to_string())))
}

fn swb_answer<T: serde::Serialize + ?Sized>(result: Result<&T, Error>) -> Result<JsValue, JsValue> {
    let value = result.map_err(|e| invalid(&e))?;
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| JsValue::from_str(&e.to_string()))
}

#[wasm_bindgen(js_name = swbRuntimeDiagnostic)]
pub fn swb_runtime_diagnostic(input: JsValue) -> Result<JsValue, JsValue> {
    let v = swb_read(&input, "input")?;
    let prepared = Prepared::new(&v).map_err(|e| invalid(&e))?;
    let d = prepared.diagnose(&v);
    swb_answer(d.as_ref().map_err(Clone::clone))
}

#[wasm_bindgen(js_name = swbToolManifest)]
pub fn swb_tool_manifest(schema: JsValue) -> Result<JsValue, JsValue> {
    let v = swb_read(&schema, "schema")?;
    let m = crate::edge::input::schema(&v, &crate::path::Path::Root("schema")).map(|s| crate::manifest::tool_manifest(&s));
    swb_answer(m.as_ref().map_err(Clone::clone))
}

#[wasm_bindgen(js_name = swbLabel)]
pub fn swb_label(group: JsValue, code: JsValue, locale: JsValue) -> Result<JsValue, JsValue> {
    let (g, c, l) = (swb_read(&group, "group")?, swb_read(&code, "code")?, swb_read(&locale, "locale")?);
    let locale = crate::labels::parse_locale(l.as_str()).map_err(|e| invalid(&e))?;
    let text = crate::labels::label(g.as_str().unwrap_or(""), c.as_str().unwrap_or(""), locale);
    swb_answer(text.as_ref().map(|t| *t).map_err(Clone::clone))
}

#[wasm_bindgen(js_name = swbCheckToolCall)]
pub fn swb_check_tool_call(input: JsValue) -> Result<JsValue, JsValue> {
    use crate::edge::input;
    use crate::edge::read::{field, object, string};
    let v = swb_read(&input, "input")?;
    let check = (|| {
        let root = crate::path::Path::Root("");
        let map = object(&v, &root)?;
        let catalog = input::catalog(field(map, "catalog"), &root.key("catalog"))?;
        let policy_path = root.key("policy");
        let policy = input::worker_policy(field(map, "policy").ok_or_else(|| policy_path.error("is required"))?, &policy_path)?;
        let routes = input::dynamic_routes(map, &root, &mut |_, name| catalog.position(name).map(|_| ()).ok_or("no tool of the catalog is named "))?;
        let call_path = root.key("call");
        let call = object(field(map, "call").ok_or_else(|| call_path.error("is required"))?, &call_path)?;
        let name = string(call.get("name").unwrap_or(&Value::Null), &call_path.key("name"), 0, usize::MAX)?;
        let route = routes.iter().find(|r| r.name == name);
        Ok(crate::call::check_tool_call(name, catalog.get(name), route, &policy, call.get("arguments")))
    })();
    swb_answer(check.as_ref().map_err(Clone::clone))
}
