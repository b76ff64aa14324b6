//! Tool definitions' validity rules: MCP tool names and JSON Schemas.

use jsonschema::Validator;
use serde_json::{Map, Value};

/// The longest tool name MCP allows.
pub const MAX_TOOL_NAME: usize = 128;

/// Checks a tool name against the MCP rules (2025-11-25): 1 to 128
/// characters, each one of `A-Z a-z 0-9 _ . -`.
pub fn check_tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the tool name is empty".into());
    }
    if name.len() > MAX_TOOL_NAME {
        return Err(format!(
            "the tool name is {} characters long; the limit is {MAX_TOOL_NAME}",
            name.len()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(format!(
            "the tool name {name:?} contains {bad:?}; only A-Z, a-z, 0-9, '_', '.' and '-' are allowed"
        ));
    }
    Ok(())
}

/// Makes a plugin's file stem usable as a tool-name prefix: every character
/// outside `A-Z a-z 0-9 _ -` becomes `_`.
pub fn plugin_prefix(stem: &str) -> String {
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A parsed and compiled JSON Schema.
#[derive(Debug)]
pub struct Schema {
    /// The schema as the plugin gave it.
    pub json: Map<String, Value>,
    validator: Validator,
}

impl Schema {
    /// Parses `text` as an object schema (`"type": "object"`) and compiles
    /// it. `what` names the schema in error messages.
    pub fn compile_object(what: &str, text: &str) -> Result<Self, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("the {what} is not valid JSON: {e}"))?;
        let Value::Object(json) = value else {
            return Err(format!("the {what} is not a JSON object"));
        };
        match json.get("type") {
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => {
                return Err(format!(
                    "the {what} must have \"type\": \"object\", not {other}"
                ));
            }
            None => return Err(format!("the {what} must have \"type\": \"object\"")),
        }
        let as_value = Value::Object(json);
        // jsonschema checks the schema against its meta-schema while
        // compiling; guard against a panic on hostile input all the same.
        let compiled = std::panic::catch_unwind(|| jsonschema::validator_for(&as_value))
            .map_err(|_| format!("the {what} could not be compiled"))?
            .map_err(|e| format!("the {what} is not a valid JSON Schema: {e}"))?;
        let Value::Object(json) = as_value else {
            unreachable!("checked to be an object above")
        };
        Ok(Schema {
            json,
            validator: compiled,
        })
    }

    /// Every way `instance` breaks the schema, each as `at PATH: problem`
    /// (the path is a JSON pointer; empty means the whole value).
    pub fn violations(&self, instance: &Value) -> Vec<String> {
        self.validator
            .iter_errors(instance)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("at {path}: {e}")
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_names_follow_the_spec() {
        assert!(check_tool_name("sha256").is_ok());
        assert!(check_tool_name("a.b-c_D9").is_ok());
        assert!(check_tool_name(&"x".repeat(128)).is_ok());
        assert!(check_tool_name(&"x".repeat(129)).is_err());
        assert!(check_tool_name("").is_err());
        let e = check_tool_name("has space!").unwrap_err();
        assert!(e.contains("' '"), "{e}");
        assert!(check_tool_name("é").is_err());
    }

    #[test]
    fn prefixes_are_sanitized() {
        assert_eq!(plugin_prefix("my plugin.v2"), "my_plugin_v2");
        assert_eq!(plugin_prefix("text"), "text");
    }

    #[test]
    fn object_schemas_compile_and_validate() {
        let s = Schema::compile_object(
            "input schema",
            r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}"#,
        )
        .expect("valid");
        assert!(s.violations(&json!({"n": 1})).is_empty());
        let v = s.violations(&json!({"n": "x"}));
        assert_eq!(v.len(), 1);
        assert!(v[0].starts_with("at /n:"), "{v:?}");
        assert_eq!(s.violations(&json!({})).len(), 1);
        assert_eq!(s.violations(&json!({"n": 1, "extra": 2})).len(), 1);
    }

    #[test]
    fn bad_schemas_are_refused_with_a_reason() {
        for (text, needle) in [
            ("{", "not valid JSON"),
            ("[]", "not a JSON object"),
            (r#"{"type":"string"}"#, "must have \"type\": \"object\""),
            (r#"{"properties":{}}"#, "must have \"type\": \"object\""),
            (
                r#"{"type":"object","properties":{"a":{"type":42}}}"#,
                "not a valid JSON Schema",
            ),
            (
                r#"{"type":"object","minProperties":-1}"#,
                "not a valid JSON Schema",
            ),
        ] {
            let e = Schema::compile_object("input schema", text).unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn draft_2020_12_keywords_are_kept() {
        let text = r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}},"additionalProperties":false}"##;
        let s = Schema::compile_object("input schema", text).expect("valid");
        assert!(s.json.contains_key("$defs"));
        assert!(s.violations(&json!({"a": 1})).is_empty());
        assert_eq!(s.violations(&json!({"a": "no"})).len(), 1);
    }
}
