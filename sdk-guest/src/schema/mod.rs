//! Portable JSON schemas with exact integer bounds: the rewrites applied to
//! every derived schema.

mod integers;

pub use integers::IntegerBounds;

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value, json};

/// A `schemars` transform that makes a schema portable to every MCP client
/// without changing what it accepts.
///
/// The SDK applies it to every input and output schema it derives, so a
/// plugin does not need it unless it builds schemas of its own, for example
/// for [`ToolDef::raw_input_schema`](crate::ToolDef::raw_input_schema).
/// Some clients map tool schemas onto a dialect with a single `type` per
/// schema (such as the OpenAPI subset of Gemini's function declarations) and
/// reject or drop what does not fit; the MCP Inspector's `--strict` check
/// reports the same cases. It rewrites, in the schema and every subschema:
///
/// - a `type` array, which `schemars` derives for `Option<T>`
///   (`{"type": ["string", "null"]}`), as `anyOf` branches of a single
///   `type` each (`{"anyOf": [{"type": "string"}, {"type": "null"}]}`).
///   With one type besides `null`, that type's own keywords (`format`,
///   `minimum`, `properties`, ...) move into its branch; annotations
///   (`description`, `default`, ...) stay outside;
/// - a schema that constrains nothing (the `true` schema, or one with
///   annotations only, which `schemars` derives for
///   [`serde_json::Value`]) as `anyOf` of every JSON type, and the `false`
///   schema as `{"not": {}}`. Under `additionalProperties`,
///   `unevaluatedProperties`, `additionalItems` and `unevaluatedItems`, where
///   `true` and `false` are the usual spelling, they stay as they are.
///
/// Either rewrite accepts exactly the values the original accepts.
///
/// ```
/// use mcp_wasm_sdk::schema::Portable;
/// use mcp_wasm_sdk::schemars::{generate::SchemaSettings, transform::Transform, json_schema};
/// use mcp_wasm_sdk::serde_json::json;
///
/// let mut schema = json_schema!({
///     "type": "object",
///     "properties": {
///         "name": {"description": "Who.", "type": ["string", "null"], "maxLength": 9}
///     }
/// });
/// Portable.transform(&mut schema);
/// assert_eq!(
///     schema.as_value()["properties"]["name"],
///     json!({
///         "description": "Who.",
///         "anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}]
///     })
/// );
///
/// // Or for every schema a generator derives:
/// let generator = SchemaSettings::draft2020_12().with_transform(Portable).into_generator();
/// # let _ = generator;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Portable;

impl Transform for Portable {
    fn transform(&mut self, schema: &mut Schema) {
        match schema.as_bool() {
            Some(b) => *schema = Schema::from(bool_schema(b)),
            None => {
                if let Some(object) = schema.as_object_mut() {
                    portable_object(object, false);
                }
            }
        }
    }
}

/// Keywords whose value is one subschema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contentSchema",
];

/// Keywords whose value is an array of subschemas (and `items` in drafts
/// before 2020-12).
const ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Keywords whose value maps names to subschemas.
const MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
];

/// Where `true` and `false` are the usual, portable spelling of a schema.
const BOOLEAN_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];

/// Keywords that constrain a value (assertions, applicators, references):
/// a schema with none of them accepts anything.
const CONSTRAINING: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];

/// Keywords that apply to values of one type only: with a single type
/// besides `null`, they move into that type's `anyOf` branch. (`format` and
/// the `content*` keywords apply to strings, or in `schemars`' use of
/// `format` to numbers; either way never to `null`.)
const TYPE_SPECIFIC: &[&str] = &[
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "items",
    "prefixItems",
    "contains",
    "maxContains",
    "minContains",
    "maxItems",
    "minItems",
    "uniqueItems",
    "additionalItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
];

/// Every JSON type (`integer` is a kind of `number`).
const ALL_TYPES: &[&str] = &["object", "array", "string", "number", "boolean", "null"];

/// The portable spelling of a boolean schema: `anyOf` every type for
/// `true`, `{"not": {}}` for `false`.
fn bool_schema(accepts: bool) -> Map<String, Value> {
    let mut map = Map::new();
    if accepts {
        let types = ALL_TYPES.iter().map(|t| json!({ "type": t })).collect();
        map.insert("anyOf".into(), Value::Array(types));
    } else {
        map.insert("not".into(), Value::Object(Map::new()));
    }
    map
}

/// Makes the schema object `object` and its subschemas portable. `under_not`:
/// the schema is the operand of `not`, where `{}` is the exact spelling of
/// "anything" and a type would change the meaning.
fn portable_object(object: &mut Map<String, Value>, under_not: bool) {
    for (key, value) in object.iter_mut() {
        let key = key.as_str();
        if SCHEMA_KEYWORDS.contains(&key) && !value.is_array() {
            portable_subschema(value, key);
        } else if ARRAY_KEYWORDS.contains(&key) {
            if let Value::Array(items) = value {
                for item in items {
                    portable_subschema(item, key);
                }
            }
        } else if MAP_KEYWORDS.contains(&key)
            && let Value::Object(map) = value
        {
            for item in map.values_mut() {
                portable_subschema(item, key);
            }
        }
    }
    split_type_array(object);
    if !under_not && !constrains(object) {
        object.extend(bool_schema(true));
    }
}

/// Makes the subschema `value`, found under `keyword`, portable.
fn portable_subschema(value: &mut Value, keyword: &str) {
    match value {
        Value::Bool(accepts) if !BOOLEAN_KEYWORDS.contains(&keyword) => {
            *value = Value::Object(bool_schema(*accepts));
        }
        Value::Object(object) => portable_object(object, keyword == "not"),
        _ => {}
    }
}

/// Whether a schema object constrains the values it accepts.
fn constrains(object: &Map<String, Value>) -> bool {
    object
        .keys()
        .any(|key| CONSTRAINING.contains(&key.as_str()))
        || (object.contains_key("if")
            && (object.contains_key("then") || object.contains_key("else")))
}

/// Rewrites `"type": [...]` as `anyOf` branches of one type each (a
/// one-element array as that type).
fn split_type_array(object: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = object.get("type") else {
        return;
    };
    if !types.iter().all(Value::is_string) || types.is_empty() {
        return;
    }
    let types = match object.remove("type") {
        Some(Value::Array(types)) => types,
        _ => return,
    };
    if let [single] = types.as_slice() {
        object.insert("type".into(), single.clone());
        return;
    }
    let others: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
    let branches: Vec<Value> = if let [only] = others.as_slice() {
        let mut branch = Map::new();
        branch.insert("type".into(), (*only).clone());
        for key in TYPE_SPECIFIC {
            if let Some(value) = object.remove(*key) {
                branch.insert((*key).into(), value);
            }
        }
        types
            .iter()
            .map(|t| {
                if t == *only {
                    Value::Object(branch.clone())
                } else {
                    json!({ "type": t })
                }
            })
            .collect()
    } else {
        types.iter().map(|t| json!({ "type": t })).collect()
    };
    if object.contains_key("anyOf") {
        // Both must hold: the existing `anyOf` and the one for the types.
        let all_of = object
            .entry("allOf")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(all_of) = all_of {
            all_of.push(json!({ "anyOf": branches }));
        }
    } else {
        object.insert("anyOf".into(), Value::Array(branches));
    }
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::*;

    fn any_value() -> Value {
        Value::Object(bool_schema(true))
    }

    fn portable(value: Value) -> Value {
        let mut schema = Schema::try_from(value).expect("a schema");
        Portable.transform(&mut schema);
        schema.to_value()
    }

    /// Every way a schema can be unportable, as the MCP Inspector's
    /// `--strict` check sees it: a `type` array, or a schema (or bare
    /// `true`/`false`) without any constraining keyword, outside the
    /// boolean-valued keywords and `not`.
    fn unportable(schema: &Value, keyword: Option<&str>, path: &str, found: &mut Vec<String>) {
        let object = match schema {
            Value::Bool(_) => {
                if !keyword.is_some_and(|k| BOOLEAN_KEYWORDS.contains(&k)) {
                    found.push(format!("{path}: bare {schema}"));
                }
                return;
            }
            Value::Object(object) => object,
            _ => return,
        };
        if object.get("type").is_some_and(Value::is_array) {
            found.push(format!("{path}: type array"));
        }
        if keyword != Some("not") && !constrains(object) {
            found.push(format!("{path}: constrains nothing"));
        }
        for (key, value) in object {
            let k = key.as_str();
            if SCHEMA_KEYWORDS.contains(&k) && !value.is_array() {
                unportable(value, Some(k), &format!("{path}.{k}"), found);
            } else if ARRAY_KEYWORDS.contains(&k) {
                for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                    unportable(item, Some(k), &format!("{path}.{k}[{i}]"), found);
                }
            } else if MAP_KEYWORDS.contains(&k) {
                for (name, item) in value.as_object().into_iter().flatten() {
                    unportable(item, Some(k), &format!("{path}.{k}.{name}"), found);
                }
            }
        }
    }

    fn assert_portable(schema: &Value) {
        let mut found = Vec::new();
        unportable(schema, None, "", &mut found);
        assert!(found.is_empty(), "{found:?} in {schema:#}");
    }

    /// Arguments with every field shape `schemars` spells unportably.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// A nullable string.
        name: Option<String>,
        /// A nullable number with a range.
        rounds: Option<u32>,
        /// Anything at all.
        value: Value,
        /// Maybe anything.
        maybe: Option<Value>,
        /// A nullable list of nullable numbers.
        list: Option<Vec<Option<i64>>>,
        /// A nullable struct.
        inner: Option<Inner>,
        /// A map of anything.
        map: std::collections::BTreeMap<String, Value>,
    }

    /// A nested struct.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        /// Nullable inside a definition.
        label: Option<String>,
    }

    #[test]
    fn nullable_type_becomes_any_of_with_the_type_keywords_in_its_branch() {
        assert_eq!(
            portable(json!({
                "description": "How many.",
                "default": 3,
                "type": ["integer", "null"],
                "format": "uint32",
                "minimum": 0
            })),
            json!({
                "description": "How many.",
                "default": 3,
                "anyOf": [
                    {"type": "integer", "format": "uint32", "minimum": 0},
                    {"type": "null"}
                ]
            })
        );
    }

    #[test]
    fn enum_and_const_stay_outside_the_branches() {
        assert_eq!(
            portable(json!({"type": ["string", "null"], "enum": ["a", null], "maxLength": 1})),
            json!({
                "enum": ["a", null],
                "anyOf": [{"type": "string", "maxLength": 1}, {"type": "null"}]
            })
        );
    }

    #[test]
    fn several_types_keep_their_keywords_outside() {
        assert_eq!(
            portable(json!({"type": ["string", "number", "null"], "minimum": 1})),
            json!({
                "minimum": 1,
                "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]
            })
        );
        assert_eq!(
            portable(json!({"type": ["string"], "minLength": 1})),
            json!({"type": "string", "minLength": 1})
        );
    }

    #[test]
    fn an_existing_any_of_is_kept_beside_the_new_one() {
        assert_eq!(
            portable(
                json!({"type": ["string", "null"], "anyOf": [{"minLength": 1}, {"const": null}]})
            ),
            json!({
                "anyOf": [{"minLength": 1}, {"const": null}],
                "allOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]}]
            })
        );
    }

    #[test]
    fn schemas_that_constrain_nothing_name_every_type() {
        let any = any_value();
        assert_eq!(portable(json!(true)), any);
        assert_eq!(portable(json!(false)), json!({"not": {}}));
        let mut described = any.clone();
        described["description"] = json!("Anything.");
        assert_eq!(portable(json!({"description": "Anything."})), described);
        assert_eq!(
            portable(json!({"type": "array", "items": true, "prefixItems": [false]})),
            json!({"type": "array", "items": any, "prefixItems": [{"not": {}}]})
        );
    }

    #[test]
    fn boolean_keywords_and_not_are_left_alone() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "unevaluatedProperties": true,
            "not": {},
            "properties": {"a": {"type": "string"}}
        });
        assert_eq!(portable(schema.clone()), schema);
    }

    #[test]
    fn derived_schemas_are_portable_in_every_subschema() {
        let raw = schemars::schema_for!(Args).to_value();
        // What schemars derives on its own is not: the test would catch it.
        let mut found = Vec::new();
        unportable(&raw, None, "", &mut found);
        assert!(found.len() >= 4, "{found:?}");

        let schema = crate::tool::input_schema::<Args>();
        assert_portable(&schema);
        assert_eq!(
            schema["properties"]["name"],
            json!({
                "description": "A nullable string.",
                "anyOf": [{"type": "string"}, {"type": "null"}]
            })
        );
        assert_eq!(
            schema["properties"]["rounds"]["anyOf"][0],
            json!({"type": "integer", "format": "uint32", "minimum": 0, "maximum": u32::MAX})
        );
        assert_eq!(schema["properties"]["value"]["anyOf"], any_value()["anyOf"]);
        assert_eq!(
            schema["$defs"]["Inner"]["properties"]["label"]["anyOf"],
            json!([{"type": "string"}, {"type": "null"}])
        );
        assert_portable(&crate::tool::output_schema::<Inner>());
    }

    /// The rewritten schema accepts and refuses exactly what the original
    /// accepts, as the host's validator (`jsonschema`) sees it: every field
    /// of a valid argument object is swapped for each of a range of values.
    #[test]
    fn portable_schema_accepts_the_same_arguments() {
        // The bounds are added to both: the comparison is of the rewrite.
        let raw = schemars::SchemaGenerator::new(
            schemars::generate::SchemaSettings::draft2020_12()
                .for_deserialize()
                .with_transform(IntegerBounds),
        )
        .into_root_schema_for::<Args>()
        .to_value();
        let rewritten = crate::tool::input_schema::<Args>();
        assert_ne!(raw, rewritten);
        let raw = jsonschema::validator_for(&raw).expect("valid schema");
        let rewritten = jsonschema::validator_for(&rewritten).expect("valid schema");

        let valid = json!({
            "name": "a", "rounds": 1, "value": 1, "maybe": null, "list": [1, null],
            "inner": {"label": "x"}, "map": {"k": [1]}
        });
        assert!(rewritten.is_valid(&valid));
        let values = [
            json!(null),
            json!(0),
            json!(-1),
            json!(1.5),
            json!(4294967296u64),
            json!(""),
            json!("s"),
            json!(true),
            json!([]),
            json!([1, null]),
            json!([1.5]),
            json!(["x"]),
            json!({}),
            json!({"label": null}),
            json!({"label": 1}),
            json!({"k": "v"}),
        ];
        let mut checked = 0;
        for field in valid.as_object().expect("object").keys() {
            for value in &values {
                let mut args = valid.clone();
                args[field] = value.clone();
                assert_eq!(
                    raw.is_valid(&args),
                    rewritten.is_valid(&args),
                    "{field} = {value}"
                );
                checked += usize::from(!rewritten.is_valid(&args));
            }
            let mut args = valid.clone();
            args.as_object_mut().expect("object").remove(field);
            assert_eq!(
                raw.is_valid(&args),
                rewritten.is_valid(&args),
                "without {field}"
            );
        }
        // Both refuse some of them: the comparison means something.
        assert!(checked > 20, "{checked}");
    }
}
