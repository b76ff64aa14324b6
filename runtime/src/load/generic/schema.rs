//! The JSON Schema of each WIT value type, as natural JSON (the mapping
//! `docs/generic-components.md` documents; [`super::value`] converts values
//! the same way), and a generic function's input and output schemas.

use serde_json::{Map, Value, json};

use super::types::WitType;

/// The strings that stand for the floats JSON has no number for.
pub const NON_FINITE: [&str; 3] = ["NaN", "Infinity", "-Infinity"];

/// The largest number an `f32` takes: `f32::MAX` as it is written
/// (3.4028235e38), a little above its exact value; anything larger rounds to
/// infinity.
pub const F32_MAX: f64 = 3.4028235e38;

/// The field a function's result is wrapped in when it is not a record.
pub const RESULT_FIELD: &str = "result";

/// The field the `err` of a function's `result` is given in.
pub const ERROR_FIELD: &str = "error";

/// The field that carries the value of `some` in an `option<option<T>>`
/// (where `null` alone could not tell `none` from `some(none)`).
pub const SOME_FIELD: &str = "some";

/// Whether the JSON of a value of `ty` may be `null` (only an option's is).
pub fn nullable(ty: &WitType) -> bool {
    matches!(ty, WitType::Option(_))
}

fn object(properties: Map<String, Value>, required: Vec<String>) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), false.into());
    Value::Object(schema)
}

/// An object with exactly one property, `key`, of schema `value`: a
/// variant's case with a payload.
fn tagged(key: &str, value: Value) -> Value {
    let mut properties = Map::new();
    properties.insert(key.to_string(), value);
    object(properties, vec![key.to_string()])
}

/// The schema of an integer type: `integer` with its exact bounds.
fn integer(ty: &WitType) -> Value {
    let (min, max) = ty.integer_bounds().unwrap_or_default();
    json!({"type": "integer", "minimum": number(min), "maximum": number(max)})
}

fn number(n: i128) -> Value {
    if n < 0 {
        Value::from(n as i64)
    } else {
        Value::from(n as u64)
    }
}

fn float(max: f64) -> Value {
    json!({"anyOf": [
        {"type": "number", "minimum": -max, "maximum": max},
        {"type": "string", "enum": NON_FINITE},
    ]})
}

/// The cases of a variant (or a result) as one schema: the cases without a
/// payload as one string `enum`, each case with a payload as an object with
/// that one property; `anyOf` when there is more than one shape.
fn cases<'a>(cases: impl Iterator<Item = (&'a str, Option<&'a WitType>)>) -> Value {
    let mut bare = Vec::new();
    let mut shapes = Vec::new();
    for (name, payload) in cases {
        match payload {
            None => bare.push(name),
            Some(t) => shapes.push(tagged(name, schema(t))),
        }
    }
    if !bare.is_empty() {
        shapes.insert(0, json!({"type": "string", "enum": bare}));
    }
    match shapes.len() {
        1 => shapes.pop().unwrap_or_default(),
        _ => json!({ "anyOf": shapes }),
    }
}

/// The schema of values of `ty`.
pub fn schema(ty: &WitType) -> Value {
    match ty {
        WitType::Bool => json!({"type": "boolean"}),
        WitType::S8
        | WitType::U8
        | WitType::S16
        | WitType::U16
        | WitType::S32
        | WitType::U32
        | WitType::S64
        | WitType::U64 => integer(ty),
        // f32::MAX's shortest decimal: every number up to it rounds to a
        // finite f32.
        WitType::F32 => float(F32_MAX),
        WitType::F64 => float(f64::MAX),
        WitType::Char => json!({"type": "string", "minLength": 1, "maxLength": 1}),
        WitType::String => json!({"type": "string"}),
        WitType::List(t) => json!({"type": "array", "items": schema(t)}),
        WitType::Record { fields, .. } => fields_object(fields.iter().map(|(n, t)| (n, t, None))),
        WitType::Tuple(ts) => json!({
            "type": "array",
            "prefixItems": ts.iter().map(schema).collect::<Vec<_>>(),
            "minItems": ts.len(),
            "maxItems": ts.len(),
        }),
        WitType::Variant { cases: cs, .. } => {
            cases(cs.iter().map(|(n, t)| (n.as_str(), t.as_ref())))
        }
        WitType::Result { ok, err } => {
            cases([("ok", ok.as_deref()), ("err", err.as_deref())].into_iter())
        }
        WitType::Enum { cases, .. } => json!({"type": "string", "enum": cases}),
        WitType::Option(t) => {
            let some = if nullable(t) {
                tagged(SOME_FIELD, schema(t))
            } else {
                schema(t)
            };
            json!({"anyOf": [some, {"type": "null"}]})
        }
        WitType::Flags { names, .. } if names.is_empty() => {
            json!({"type": "array", "maxItems": 0})
        }
        WitType::Flags { names, .. } => json!({
            "type": "array",
            "items": {"type": "string", "enum": names},
            "uniqueItems": true,
        }),
    }
}

/// An object whose properties are `fields` (name, type, description): every
/// field is required but an option, which may be left out (`none`).
fn fields_object<'a>(
    fields: impl Iterator<Item = (&'a String, &'a WitType, Option<&'a str>)>,
) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, ty, description) in fields {
        let mut s = schema(ty);
        if let (Some(d), Value::Object(o)) = (description, &mut s) {
            o.insert("description".into(), d.into());
        }
        properties.insert(name.clone(), s);
        if !nullable(ty) {
            required.push(name.clone());
        }
    }
    object(properties, required)
}

/// A function's input schema: an object with one property per parameter,
/// each described by `descriptions` (parameter name, text) if it names it.
pub fn input(params: &[(String, WitType)], descriptions: &[(String, String)]) -> Value {
    fields_object(params.iter().map(|(n, t)| {
        let d = descriptions
            .iter()
            .find(|(p, _)| p == n)
            .map(|(_, d)| d.as_str());
        (n, t, d)
    }))
}

/// What a function returns on success, as a tool's structured content: its
/// result (the `ok` of a `result`), if it has one.
pub fn served_result(result: Option<&WitType>) -> Option<&WitType> {
    match result? {
        WitType::Result { ok, .. } => ok.as_deref(),
        other => Some(other),
    }
}

/// A function's output schema: its served result's schema if that is a
/// record (an object already), else an object with that value in
/// [`RESULT_FIELD`]; none when it returns nothing on success.
pub fn output(result: Option<&WitType>) -> Option<Value> {
    let served = served_result(result)?;
    Some(match served {
        WitType::Record { .. } => schema(served),
        other => tagged(RESULT_FIELD, schema(other)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_carry_their_exact_bounds() {
        assert_eq!(
            schema(&WitType::U64),
            json!({"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64})
        );
        assert_eq!(
            schema(&WitType::S64),
            json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX})
        );
        assert_eq!(
            schema(&WitType::S8),
            json!({"type": "integer", "minimum": -128, "maximum": 127})
        );
    }

    #[test]
    fn options_are_any_of_with_null_and_nested_ones_are_tagged() {
        let opt = WitType::Option(Box::new(WitType::Bool));
        assert_eq!(
            schema(&opt),
            json!({"anyOf": [{"type": "boolean"}, {"type": "null"}]})
        );
        assert_eq!(
            schema(&WitType::Option(Box::new(opt))),
            json!({"anyOf": [
                {"type": "object", "properties": {"some": {"anyOf": [{"type": "boolean"}, {"type": "null"}]}},
                 "required": ["some"], "additionalProperties": false},
                {"type": "null"}
            ]})
        );
    }

    #[test]
    fn variants_are_one_shape_per_case_with_bare_cases_as_strings() {
        let v = WitType::Variant {
            name: None,
            cases: vec![
                ("none".into(), None),
                ("all".into(), None),
                ("some".into(), Some(WitType::U8)),
            ],
        };
        assert_eq!(
            schema(&v),
            json!({"anyOf": [
                {"type": "string", "enum": ["none", "all"]},
                {"type": "object", "properties": {"some": {"type": "integer", "minimum": 0, "maximum": 255}},
                 "required": ["some"], "additionalProperties": false},
            ]})
        );
        let r = WitType::Result {
            ok: None,
            err: None,
        };
        assert_eq!(schema(&r), json!({"type": "string", "enum": ["ok", "err"]}));
    }

    #[test]
    fn records_require_every_field_but_options() {
        let r = WitType::Record {
            name: Some("r".into()),
            fields: vec![
                ("a-b".into(), WitType::String),
                ("c".into(), WitType::Option(Box::new(WitType::Char))),
            ],
        };
        let s = schema(&r);
        assert_eq!(s["required"], json!(["a-b"]));
        assert_eq!(s["additionalProperties"], json!(false));
        assert_eq!(output(Some(&r)), Some(s));
        assert_eq!(
            output(Some(&WitType::Bool)),
            Some(
                json!({"type": "object", "properties": {"result": {"type": "boolean"}}, "required": ["result"], "additionalProperties": false})
            )
        );
        let unit = WitType::Result {
            ok: None,
            err: Some(Box::new(WitType::String)),
        };
        assert_eq!(output(Some(&unit)), None);
        assert_eq!(output(None), None);
    }
}
