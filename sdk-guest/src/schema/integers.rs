//! Exact integer bounds: the `minimum` and `maximum` of every integer type's
//! schema, which `schemars` leaves out for some widths.

use schemars::Schema;
use schemars::transform::{Transform, transform_subschemas};
use serde_json::{Map, Value};

/// A `schemars` transform that gives every integer schema the bounds of its
/// Rust type, as JSON integers.
///
/// `schemars` writes `minimum` and `maximum` for `i8`, `u8`, `i16` and
/// `u16`, only `"minimum": 0` for `u32`, `u64` and `usize`, and no bound at
/// all for `i32`, `i64` and `isize`. A client then cannot tell from the
/// schema what the tool takes, and learns it only from serde's refusal. This
/// transform adds each missing bound, from the `format` `schemars` writes
/// (`int32`, `uint64`, ...); a bound the schema already has (from
/// `#[schemars(range(...))]`, say) is kept. `i128` and `u128` get the range
/// the host carries exactly, `i64::MIN` to `u64::MAX`: a JSON number beyond
/// it reaches a plugin as the double nearest to it, which serde refuses for
/// an integer.
///
/// The SDK applies it to every schema it derives, before
/// [`Portable`](super::Portable).
///
/// ```
/// use mcp_wasm_sdk::schema::IntegerBounds;
/// use mcp_wasm_sdk::schemars::{json_schema, transform::Transform};
/// use mcp_wasm_sdk::serde_json::json;
///
/// let mut schema = json_schema!({"type": "integer", "format": "uint64", "minimum": 0});
/// IntegerBounds.transform(&mut schema);
/// assert_eq!(schema.get("maximum"), Some(&json!(u64::MAX)));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IntegerBounds;

impl Transform for IntegerBounds {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(object) = schema.as_object_mut() {
            add_bounds(object);
        }
        transform_subschemas(self, schema);
    }
}

/// The bounds of the integer type `schemars` names by `format`.
fn bounds(format: &str) -> Option<(Value, Value)> {
    let (min, max): (Value, Value) = match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "int" => (isize::MIN.into(), isize::MAX.into()),
        "int128" => (i64::MIN.into(), u64::MAX.into()),
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" | "uint128" => (0.into(), u64::MAX.into()),
        "uint" => (0.into(), usize::MAX.into()),
        _ => return None,
    };
    Some((min, max))
}

/// Adds the missing bounds to a schema of `"type": "integer"` (alone or in
/// a type array) whose `format` names an integer type.
fn add_bounds(object: &mut Map<String, Value>) {
    let integer = match object.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    };
    let Some((min, max)) = object
        .get("format")
        .and_then(Value::as_str)
        .filter(|_| integer)
        .and_then(bounds)
    else {
        return;
    };
    object.entry("minimum").or_insert(min);
    object.entry("maximum").or_insert(max);
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    use super::*;

    /// Every integer width of a plugin's arguments.
    #[derive(Deserialize, Serialize, JsonSchema, Debug, PartialEq)]
    struct Widths {
        s8: i8,
        u8: u8,
        s16: i16,
        u16: u16,
        s32: i32,
        u32: u32,
        s64: i64,
        u64: u64,
        size: usize,
        offset: isize,
        maybe: Option<i64>,
        list: Vec<u32>,
        #[schemars(range(min = -5))]
        ranged: i32,
    }

    fn zero_args() -> Value {
        json!({
            "s8": 0, "u8": 0, "s16": 0, "u16": 0, "s32": 0, "u32": 0, "s64": 0, "u64": 0,
            "size": 0, "offset": 0, "maybe": null, "list": [], "ranged": 0
        })
    }

    /// The bounds a derived schema gives each width are the type's own, as
    /// JSON integers (never a double's rounding of them), in a nullable
    /// field's branch and an array's items too; a bound of the field's own
    /// is kept.
    #[test]
    fn every_width_gets_its_own_bounds() {
        let schema = crate::tool::input_schema::<Widths>();
        let props = &schema["properties"];
        let bounds = |s: &Value| (s["minimum"].clone(), s["maximum"].clone());
        let cases = [
            ("s8", json!(i8::MIN), json!(i8::MAX)),
            ("u8", json!(0), json!(u8::MAX)),
            ("s16", json!(i16::MIN), json!(i16::MAX)),
            ("u16", json!(0), json!(u16::MAX)),
            ("s32", json!(i32::MIN), json!(i32::MAX)),
            ("u32", json!(0), json!(u32::MAX)),
            ("s64", json!(i64::MIN), json!(i64::MAX)),
            ("u64", json!(0), json!(u64::MAX)),
            ("size", json!(0), json!(usize::MAX)),
            ("offset", json!(isize::MIN), json!(isize::MAX)),
        ];
        for (field, min, max) in &cases {
            assert_eq!(bounds(&props[field]), (min.clone(), max.clone()), "{field}");
            assert!(min.is_i64() || min.is_u64(), "{field}: {min}");
            assert!(max.is_i64() || max.is_u64(), "{field}: {max}");
        }
        assert_eq!(
            props["maybe"]["anyOf"][0],
            json!({"type": "integer", "format": "int64", "minimum": i64::MIN, "maximum": i64::MAX})
        );
        assert_eq!(bounds(&props["list"]["items"]), (json!(0), json!(u32::MAX)));
        assert_eq!(bounds(&props["ranged"]), (json!(-5), json!(i32::MAX)));
        assert_eq!(
            bounds(&crate::tool::output_schema::<Widths>()["properties"]["u64"]),
            (json!(0), json!(u64::MAX))
        );
    }

    /// The schema and serde agree at every edge: the bounds the host's
    /// validator (`jsonschema`) admits, serde reads as that very integer; one
    /// past a bound both refuse. A float-form value, which the schema admits
    /// as an integer, serde refuses rather than round.
    #[test]
    fn the_schema_and_serde_agree_at_every_edge() {
        let schema = crate::tool::input_schema::<Widths>();
        let validator = jsonschema::validator_for(&schema).expect("valid schema");
        let check = |field: &str, text: &str| {
            let args = zero_args()
                .to_string()
                .replace(&format!("\"{field}\":0"), &format!("\"{field}\":{text}"));
            let value: Value = serde_json::from_str(&args).expect("JSON");
            (
                validator.is_valid(&value),
                serde_json::from_str::<Widths>(&args),
            )
        };
        let edges: [(&str, i128, i128); 8] = [
            ("s8", i8::MIN.into(), i8::MAX.into()),
            ("u8", 0, u8::MAX.into()),
            ("s16", i16::MIN.into(), i16::MAX.into()),
            ("u16", 0, u16::MAX.into()),
            ("s32", i32::MIN.into(), i32::MAX.into()),
            ("u32", 0, u32::MAX.into()),
            ("s64", i64::MIN.into(), i64::MAX.into()),
            ("u64", 0, u64::MAX.into()),
        ];
        for (field, min, max) in edges {
            for n in [min, max] {
                let (valid, read) = check(field, &n.to_string());
                let read = read.unwrap_or_else(|e| panic!("{field} = {n}: {e}"));
                assert!(valid, "{field} = {n}");
                let got = serde_json::to_value(&read).expect("JSON")[field].to_string();
                assert_eq!(got, n.to_string(), "{field}");
            }
            for n in [min - 1, max + 1] {
                let (valid, read) = check(field, &n.to_string());
                assert!(read.is_err(), "{field} = {n} was read");
                // Beyond 64 bits serde_json reads a double, which may round
                // onto the bound (-2^63 - 1 does): serde refuses it as a float.
                if !field.ends_with("64") {
                    assert!(!valid, "{field} = {n} passed the schema");
                }
            }
        }
        let (valid, read) = check("u64", "9007199254740993");
        assert!(valid);
        assert_eq!(read.expect("read").u64, 9_007_199_254_740_993);
        for (field, text) in [
            ("u64", "9007199254740993.0"),
            ("s64", "1e3"),
            ("s32", "5.0"),
        ] {
            assert!(check(field, text).1.is_err(), "{field} = {text}");
        }
    }
}
