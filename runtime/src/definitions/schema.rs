//! Tool definitions' validity rules: MCP tool names and JSON Schemas.

use std::collections::HashSet;

use jsonschema::{PatternOptions, Validator};

use super::schema_cost::{Cost, CostModel};
use serde_json::{Map, Value};

/// The longest tool name MCP allows.
pub const MAX_TOOL_NAME: usize = 128;

/// Why a name is not an MCP tool name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolNameError {
    /// The name is empty.
    #[error("the tool name is empty")]
    Empty,
    /// The name is over [`MAX_TOOL_NAME`] (its length).
    #[error("the tool name is {0} characters long; the limit is {MAX_TOOL_NAME}")]
    TooLong(usize),
    /// The name holds a character MCP does not allow.
    #[error(
        "the tool name {name:?} contains {bad:?}; only A-Z, a-z, 0-9, '_', '.' and '-' are allowed"
    )]
    BadChar {
        /// The name.
        name: String,
        /// The first character not allowed.
        bad: char,
    },
}

/// Checks a tool name against the MCP rules (2025-11-25): 1 to 128
/// characters, each one of `A-Z a-z 0-9 _ . -`.
pub fn check_tool_name(name: &str) -> Result<(), ToolNameError> {
    if name.is_empty() {
        return Err(ToolNameError::Empty);
    }
    if name.len() > MAX_TOOL_NAME {
        return Err(ToolNameError::TooLong(name.len()));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(ToolNameError::BadChar {
            name: name.to_string(),
            bad,
        });
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

/// The most backtracking steps one match of a `pattern` (or
/// `patternProperties` key) may take; a match that needs more fails, and the
/// value is reported as not matching. fancy-regex's default is 1,000,000, about
/// 150 ms of host CPU for one string of a hostile pattern; this keeps one
/// string's worst case near 1.5 ms. Patterns without look-around or
/// back-references run on the linear-time `regex` engine and never backtrack.
pub const BACKTRACK_LIMIT: usize = 10_000;

/// The largest compiled form of one regular expression, in bytes (the
/// `regex` crate's default is 10 MiB): a plugin's patterns cost the host
/// memory for as long as it is loaded.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The largest instance (serialized, in bytes) of a schema without regular
/// expressions that is checked on the caller's thread; larger ones, and any
/// instance of a schema with `pattern` or `patternProperties`, are checked
/// off the async workers (see [`crate::call::offload`]).
pub const QUICK_CHECK_BYTES: usize = 16 * 1024;

/// The most violations one check lists; the rest are counted.
pub const MAX_VIOLATIONS: usize = 100;

/// Why a tool's schema is refused. `what` names the schema (e.g. "input
/// schema").
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The text is not JSON.
    #[error("the {what} is not valid JSON: {source}")]
    NotJson {
        /// The schema's name.
        what: String,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// The JSON is not an object.
    #[error("the {what} is not a JSON object")]
    NotObject {
        /// The schema's name.
        what: String,
    },
    /// `type` is there, but not `"object"`.
    #[error("the {what} must have \"type\": \"object\", not {found}")]
    NotObjectType {
        /// The schema's name.
        what: String,
        /// The `type` it has.
        found: Value,
    },
    /// `type` is missing.
    #[error("the {what} must have \"type\": \"object\"")]
    NoType {
        /// The schema's name.
        what: String,
    },
    /// Its `$ref`s and `allOf`s multiply past the limit.
    #[error("the {what} {source}")]
    Fanout {
        /// The schema's name.
        what: String,
        /// How.
        source: TooManyWays,
    },
    /// The compiler panicked on it.
    #[error("the {what} could not be compiled")]
    Panicked {
        /// The schema's name.
        what: String,
    },
    /// It is not a valid JSON Schema.
    #[error("the {what} is not a valid JSON Schema: {reason}")]
    Invalid {
        /// The schema's name.
        what: String,
        /// jsonschema's message.
        reason: String,
    },
}

/// A schema whose local `$ref`s and `allOf`s multiply past
/// `MAX_FANOUT_PATHS` (see `reference_fanout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "refers to itself too many ways through `$ref` and `allOf` (or `anyOf`, `oneOf`, `not`, `if`: more than {MAX_FANOUT_PATHS} schemas to visit from one place); refusing it rather than spend the host's CPU compiling it"
)]
pub struct TooManyWays;

/// A parsed and compiled JSON Schema.
#[derive(Debug)]
pub struct Schema {
    /// The schema as the plugin gave it.
    pub json: Map<String, Value>,
    validator: Validator,
    /// Whether it matches regular expressions anywhere.
    has_patterns: bool,
    /// What a check of a value costs (see [`super::schema_cost`]).
    cost: CostModel,
    /// Its name in messages ("input schema").
    what: String,
}

impl Schema {
    /// Parses `text` as an object schema (`"type": "object"`) and compiles
    /// it. `what` names the schema in error messages.
    pub fn compile_object(what: &str, text: &str) -> Result<Self, SchemaError> {
        let what = || what.to_string();
        let value: Value = serde_json::from_str(text).map_err(|source| SchemaError::NotJson {
            what: what(),
            source,
        })?;
        let Value::Object(json) = value else {
            return Err(SchemaError::NotObject { what: what() });
        };
        match json.get("type") {
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => {
                return Err(SchemaError::NotObjectType {
                    what: what(),
                    found: other.clone(),
                });
            }
            None => return Err(SchemaError::NoType { what: what() }),
        }
        let as_value = Value::Object(json);
        reference_fanout(&as_value).map_err(|source| SchemaError::Fanout {
            what: what(),
            source,
        })?;
        // jsonschema checks the schema against its meta-schema while
        // compiling; guard against a panic on hostile input all the same.
        let compiled = std::panic::catch_unwind(|| {
            jsonschema::options()
                .with_pattern_options(
                    PatternOptions::fancy_regex()
                        .backtrack_limit(BACKTRACK_LIMIT)
                        .size_limit(REGEX_SIZE_LIMIT),
                )
                .build(&as_value)
        })
        .map_err(|_| SchemaError::Panicked { what: what() })?
        .map_err(|e| SchemaError::Invalid {
            what: what(),
            reason: e.to_string(),
        })?;
        let cost = CostModel::build(&as_value).map_err(|_| SchemaError::Fanout {
            what: what(),
            source: TooManyWays,
        })?;
        let Value::Object(json) = as_value else {
            unreachable!("checked to be an object above")
        };
        Ok(Schema {
            has_patterns: has_patterns(&json),
            json,
            validator: compiled,
            cost,
            what: what(),
        })
    }

    /// Whether checking an instance of `len` serialized bytes is certainly
    /// quick: a small instance and no regular expressions.
    pub fn is_quick_to_check(&self, len: usize) -> bool {
        !self.has_patterns && len <= QUICK_CHECK_BYTES
    }

    /// Every way `instance` breaks the schema, each as `at PATH: problem`
    /// (the path is a JSON pointer; empty means the whole value), each
    /// once and at most [`MAX_VIOLATIONS`] of them. A value whose check
    /// would cost more than its budget (see [`super::schema_cost`]) is not
    /// checked, and that is its one violation.
    pub fn violations(&self, instance: &Value) -> Vec<String> {
        if let Cost::Over { budget } = self.cost.cost(instance) {
            return vec![format!(
                "not checked: checking this value against the {} would apply the schema's \
                 parts more than {budget} times, because the schema applies some of its parts \
                 to the same value more than once at each level (through `$ref`, `allOf`, \
                 `anyOf` or `oneOf`); the plugin's schema needs fixing",
                self.what
            )];
        }
        // jsonschema remembers answers within a yes-or-no check, not
        // within a full report: most values are valid, and cost no report.
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        let mut seen = HashSet::new();
        let mut listed = Vec::new();
        let mut more = 0usize;
        for e in self.validator.iter_errors(instance) {
            let path = e.instance_path().to_string();
            let text = if path.is_empty() {
                e.to_string()
            } else {
                format!("at {path}: {e}")
            };
            if !seen.insert(text.clone()) {
                continue;
            }
            if listed.len() < MAX_VIOLATIONS {
                listed.push(text);
            } else {
                more += 1;
            }
        }
        if more > 0 {
            listed.push(format!("and {more} more"));
        }
        listed
    }
}

impl Schema {
    /// The JSON pointers at which `instance` has a number the schema's
    /// `type` refuses for not being an integer (`"integer"` is asked for,
    /// `"number"` is not).
    pub(crate) fn integer_required_at(&self, instance: &Value) -> Vec<String> {
        use jsonschema::error::{TypeKind, ValidationErrorKind};
        use jsonschema::types::JsonType;
        if matches!(self.cost.cost(instance), Cost::Over { .. }) {
            return Vec::new();
        }
        self.validator
            .iter_errors(instance)
            .filter(|e| match e.kind() {
                ValidationErrorKind::Type {
                    kind: TypeKind::Single(JsonType::Integer),
                } => true,
                ValidationErrorKind::Type {
                    kind: TypeKind::Multiple(types),
                } => types.contains(JsonType::Integer) && !types.contains(JsonType::Number),
                _ => false,
            })
            .map(|e| e.instance_path().to_string())
            .collect()
    }
}

/// Whether a schema uses regular expressions (`pattern` or
/// `patternProperties`) anywhere, without recursing (a schema may be nested
/// deeper than the stack allows).
fn has_patterns(schema: &Map<String, Value>) -> bool {
    let mut stack: Vec<&Value> = schema.values().collect();
    if schema.contains_key("pattern") || schema.contains_key("patternProperties") {
        return true;
    }
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.contains_key("pattern") || map.contains_key("patternProperties") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// How deep jsonschema follows `$ref` and `allOf` when it looks for the
/// properties that tell `oneOf`/`anyOf` variants apart (its
/// `discriminator` pass stops at 16; one more for the start).
const FANOUT_DEPTH: usize = 17;
/// The most schemas that pass may visit from one place in a schema.
const MAX_FANOUT_PATHS: u64 = 100_000;

/// Refuses a schema whose local `$ref`s and `allOf`s multiply: a schema
/// such as `{"allOf": [{"$ref": "#"}, {"$ref": "#"}, {"$ref": "#"}]}` is
/// a few bytes, yet a pass of jsonschema's compiler that follows both
/// (to a depth of 16) would visit 3^16 schemas and hold a core for
/// minutes. Counts, for every object in the schema, the walks that pass
/// could take from it (memoized per object and depth), and refuses the
/// schema past [`MAX_FANOUT_PATHS`].
fn reference_fanout(root: &Value) -> Result<(), TooManyWays> {
    use std::collections::HashMap;
    fn walks<'a>(
        root: &'a Value,
        node: &'a Value,
        depth: usize,
        memo: &mut HashMap<(*const Value, usize), u64>,
    ) -> u64 {
        let Value::Object(map) = node else {
            return 0;
        };
        if depth == 0 {
            return 1;
        }
        let key = (std::ptr::from_ref(node), depth);
        if let Some(n) = memo.get(&key) {
            return *n;
        }
        let mut n: u64 = 1;
        if let Some(Value::String(reference)) = map.get("$ref")
            && let Some(pointer) = reference.strip_prefix('#')
            && let Some(target) = root.pointer(pointer)
        {
            n = n.saturating_add(walks(root, target, depth - 1, memo));
        }
        if let Some(Value::Array(items)) = map.get("allOf") {
            for item in items {
                n = n.saturating_add(walks(root, item, depth - 1, memo));
            }
        }
        let n = n.min(MAX_FANOUT_PATHS.saturating_add(1));
        memo.insert(key, n);
        n
    }
    fn every<'a>(
        root: &'a Value,
        node: &'a Value,
        memo: &mut HashMap<(*const Value, usize), u64>,
    ) -> Result<(), TooManyWays> {
        match node {
            Value::Object(map) => {
                if walks(root, node, FANOUT_DEPTH, memo) > MAX_FANOUT_PATHS {
                    return Err(TooManyWays);
                }
                map.values().try_for_each(|v| every(root, v, memo))
            }
            Value::Array(items) => items.iter().try_for_each(|v| every(root, v, memo)),
            _ => Ok(()),
        }
    }
    every(root, root, &mut HashMap::new())
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
        let e = check_tool_name("has space!").unwrap_err().to_string();
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
    fn a_match_past_the_backtracking_limit_is_a_violation() {
        let s = Schema::compile_object(
            "input schema",
            r#"{"type":"object","properties":{"w":{"type":"string","pattern":"^(?:(?=a)a|(?=a)aa)+b$"}}}"#,
        )
        .unwrap();
        assert!(s.violations(&json!({"w": "aab"})).is_empty());
        let v = s.violations(&json!({"w": "a".repeat(64)}));
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].starts_with("at /w:") && v[0].contains("backtrack"),
            "{v:?}"
        );
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
            let e = Schema::compile_object("input schema", text)
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn schemas_with_regular_expressions_are_never_checked_inline() {
        let plain = Schema::compile_object("s", r#"{"type":"object"}"#).unwrap();
        assert!(plain.is_quick_to_check(QUICK_CHECK_BYTES));
        assert!(!plain.is_quick_to_check(QUICK_CHECK_BYTES + 1));
        for text in [
            r#"{"type":"object","properties":{"a":{"type":"string","pattern":"^a"}}}"#,
            r#"{"type":"object","patternProperties":{"^x":{}}}"#,
            r#"{"type":"object","anyOf":[{"prefixItems":[{"pattern":"b"}]}]}"#,
        ] {
            let s = Schema::compile_object("s", text).unwrap();
            assert!(!s.is_quick_to_check(2), "{text}");
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

    #[test]
    fn schemas_whose_refs_multiply_are_refused_quickly_and_recursive_ones_are_not() {
        let refs = |to: &str, n: usize| vec![format!(r##"{{"$ref":"{to}"}}"##); n].join(",");
        let bomb = format!(r##"{{"type":"object","allOf":[{}]}}"##, refs("#", 8));
        let e = Schema::compile_object("output schema", &bomb)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`$ref` and `allOf`"), "{e}");
        let defs = format!(
            r##"{{"type":"object","$defs":{{"a":{{"allOf":[{}]}},"b":{{"allOf":[{}]}}}},"properties":{{"x":{{"$ref":"#/$defs/a"}}}}}}"##,
            refs("#/$defs/b", 6),
            refs("#/$defs/a", 7)
        );
        assert!(Schema::compile_object("output schema", &defs).is_err());
        // A few ways, as real schemas have: kept.
        let few = format!(r##"{{"type":"object","allOf":[{}]}}"##, refs("#", 2));
        Schema::compile_object("output schema", &few).unwrap();
        // A tree: recursive, one way at a time.
        let tree = r##"{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}}}"##;
        Schema::compile_object("output schema", tree).unwrap();
        let single = r##"{"type":"object","allOf":[{"$ref":"#"}]}"##;
        Schema::compile_object("output schema", single).unwrap();
    }

    #[test]
    fn a_check_that_would_multiply_is_refused_and_violations_are_listed_once_up_to_a_limit() {
        // Found by the argument_validation fuzz target: each level of the
        // value applied the schema eight ways, and the list of violations
        // of six levels filled 2.5 GB.
        let text = r##"{"type":"object","minProperties":141,"properties":{"":{"allOf":[{"type":"integer"},{"$ref":"#/properties/c"},{"$ref":"#"},{"$ref":"#/properties/c"},{"$ref":"#/properties/"}]},"c":{"$ref":"#/properties/"}},"propertyNames":{"$ref":"#/properties/c"}}"##;
        let s = Schema::compile_object("input schema", text).unwrap();
        let deep = (0..12).fold(json!({}), |inner, _| json!({ "": inner }));
        let v = s.violations(&deep);
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].starts_with("not checked")
                && v[0].contains("input schema")
                && v[0].contains("`$ref`"),
            "{v:?}"
        );
        assert!(s.integer_required_at(&deep).is_empty());
        // Two levels are cheap enough to check, and each problem is listed
        // once however many ways the schema reached it.
        let shallow = s.violations(&json!({"": {"": {}}}));
        let unique: HashSet<&String> = shallow.iter().collect();
        assert_eq!(unique.len(), shallow.len(), "{shallow:?}");
        // At most MAX_VIOLATIONS, then a count of the rest.
        let many = Schema::compile_object(
            "input schema",
            r#"{"type":"object","additionalProperties":{"type":"integer"}}"#,
        )
        .unwrap();
        let args: Map<String, Value> = (0..250).map(|i| (format!("k{i}"), json!("x"))).collect();
        let v = many.violations(&Value::Object(args));
        assert_eq!(v.len(), MAX_VIOLATIONS + 1);
        assert_eq!(v[MAX_VIOLATIONS], "and 150 more");
    }
}
