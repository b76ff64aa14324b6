//! Example plugin: query, validate and format JSON documents.
//!
//! Tools (all read-only, idempotent and closed-world):
//!
//! - `json_query`: runs a JSONPath query (RFC 9535, with filters and the
//!   standard functions `length`, `count`, `match`, `search`, `value`) over a
//!   JSON document; returns each match with its normalized path and JSON
//!   pointer, as structured content.
//! - `json_validate`: validates a JSON document against a JSON Schema (drafts
//!   4, 6, 7, 2019-09 and 2020-12, detected from `$schema`); returns
//!   `{valid, error_count, errors: [{path, schema_path, message}]}` as
//!   structured content. Remote `$ref`s are not fetched.
//! - `json_format`: pretty-prints a JSON document with 1 to 8 spaces of
//!   indentation, or minifies it, optionally sorting object keys.
//!
//! Documents and schemas are passed as JSON text in string arguments, so the
//! model can hand over a document exactly as it got it.

use mcp_wasm_sdk::prelude::*;
use mcp_wasm_sdk::schemars;
use serde_json::Value;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use serde_json_path::JsonPath;

/// The most matches or errors a result lists.
const MAX_LIST: u32 = 1000;

// ---------------------------------------------------------------------------
// Arguments and results
// ---------------------------------------------------------------------------

/// Arguments of `json_query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct QueryArgs {
    /// The JSON document to query, as JSON text.
    document: String,
    /// The JSONPath query (RFC 9535), starting with `$`. Examples:
    /// `$.store.book[*].title`, `$..price`, `$.items[?@.stock > 0 && @.tags[0] == 'new']`,
    /// `$.users[?match(@.email, '.*@example\\.com')].name`, `$.a[-1]`, `$.a[0:5:2]`.
    path: String,
    /// The most matches to return, 1 to 1000. Default: 100. `count` still
    /// reports the total.
    #[serde(default = "defaults::u32::<100>")]
    #[schemars(range(min = 1, max = 1000))]
    limit: u32,
}

/// One node a query matched.
#[derive(Debug, Serialize, JsonSchema)]
struct Match {
    /// Where the node is, as an RFC 9535 normalized path, e.g.
    /// `$['store']['book'][0]['title']`.
    path: String,
    /// Where the node is, as an RFC 6901 JSON pointer, e.g.
    /// `/store/book/0/title`.
    pointer: String,
    /// The node's value.
    value: Value,
}

/// The result of `json_query`.
#[derive(Debug, Serialize, JsonSchema)]
struct QueryResult {
    /// How many nodes the query matched in total.
    count: usize,
    /// Whether `matches` lists fewer nodes than `count` because of `limit`.
    truncated: bool,
    /// The matched nodes, in the order the query produced them.
    matches: Vec<Match>,
}

/// Arguments of `json_validate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ValidateArgs {
    /// The JSON document (instance) to validate, as JSON text.
    document: String,
    /// The JSON Schema, as JSON text. Its `$schema` selects the draft (4, 6,
    /// 7, 2019-09 or 2020-12); without one, 2020-12 is used. `$ref`s must
    /// point inside the schema: remote references are not fetched.
    schema: String,
    /// Check `format` keywords (`email`, `date-time`, `uri`, `uuid`, `ipv4`,
    /// ...) as assertions rather than annotations. Default: true.
    #[serde(default = "defaults::bool::<true>")]
    check_formats: bool,
    /// The most errors to list, 1 to 1000. Default: 50. `error_count` still
    /// reports the total.
    #[serde(default = "defaults::u32::<50>")]
    #[schemars(range(min = 1, max = 1000))]
    max_errors: u32,
}

/// One way the document breaks the schema.
#[derive(Debug, Serialize, JsonSchema)]
struct Violation {
    /// Where in the document, as a JSON pointer (`""` is the whole
    /// document, `/items/2/name` the `name` of the third item).
    path: String,
    /// The schema keyword that failed, as a JSON pointer into the schema,
    /// e.g. `/properties/items/items/required`.
    schema_path: String,
    /// What is wrong.
    message: String,
}

/// The result of `json_validate`.
#[derive(Debug, Serialize, JsonSchema)]
struct ValidationReport {
    /// Whether the document conforms to the schema.
    valid: bool,
    /// How many errors were found in total.
    error_count: usize,
    /// The errors, at most `max_errors` of them; empty when `valid`.
    errors: Vec<Violation>,
}

/// Arguments of `json_format`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FormatArgs {
    /// The JSON document to format, as JSON text.
    document: String,
    /// Spaces per indentation level, 0 to 8; 0 minifies the document onto one
    /// line without any whitespace. Default: 2.
    #[serde(default = "defaults::u8::<2>")]
    #[schemars(range(max = 8))]
    indent: u8,
    /// Sort the keys of every object alphabetically (by Unicode code point).
    /// Default: false, which keeps the document's key order.
    #[serde(default)]
    sort_keys: bool,
}

// ---------------------------------------------------------------------------
// Pure logic
// ---------------------------------------------------------------------------

/// Parses the JSON text of argument `field`.
fn parse_json(text: &str, field: &str) -> Result<Value, ToolError> {
    serde_json::from_str(text)
        .map_err(|e| ToolError::invalid_arguments(format!("`{field}` is not valid JSON: {e}")))
}

/// Checks that `value` of argument `field` is within `1..=max`.
fn check_range(field: &str, value: u32, max: u32) -> Result<usize, ToolError> {
    if (1..=max).contains(&value) {
        Ok(value as usize)
    } else {
        Err(ToolError::invalid_arguments(format!(
            "`{field}` must be between 1 and {max}, not {value}"
        )))
    }
}

fn query(args: QueryArgs) -> Result<QueryResult, ToolError> {
    let limit = check_range("limit", args.limit, MAX_LIST)?;
    let path = JsonPath::parse(args.path.trim()).map_err(|e| {
        ToolError::invalid_arguments(format!("`path` is not a valid JSONPath query: {e}"))
    })?;
    let document = parse_json(&args.document, "document")?;
    let nodes = path.query_located(&document);
    let count = nodes.len();
    let matches = nodes
        .into_iter()
        .take(limit)
        .map(|node| Match {
            path: node.location().to_string(),
            pointer: node.location().to_json_pointer(),
            value: node.node().clone(),
        })
        .collect();
    Ok(QueryResult {
        count,
        truncated: count > limit,
        matches,
    })
}

fn validate(args: ValidateArgs) -> Result<ValidationReport, ToolError> {
    let max_errors = check_range("max_errors", args.max_errors, MAX_LIST)?;
    let schema = parse_json(&args.schema, "schema")?;
    let document = parse_json(&args.document, "document")?;
    let validator = jsonschema::options()
        .should_validate_formats(args.check_formats)
        .build(&schema)
        .map_err(|e| {
            ToolError::invalid_arguments(format!("`schema` is not a usable JSON Schema: {e}"))
        })?;
    let mut error_count = 0;
    let mut errors = Vec::new();
    for error in validator.iter_errors(&document) {
        error_count += 1;
        if errors.len() < max_errors {
            errors.push(Violation {
                path: error.instance_path().to_string(),
                schema_path: error.schema_path().to_string(),
                message: error.to_string(),
            });
        }
    }
    Ok(ValidationReport {
        valid: error_count == 0,
        error_count,
        errors,
    })
}

/// Writes `value` with `formatter`.
fn write_value<F: Formatter>(value: &Value, formatter: F) -> Result<String, ToolError> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut serializer)?;
    Ok(String::from_utf8(out)?)
}

/// Re-serializes the JSON text `document` token by token with `formatter`,
/// keeping its key order (and duplicate keys, if any).
fn transcode<F: Formatter>(document: &str, formatter: F) -> Result<String, ToolError> {
    let mut deserializer = serde_json::Deserializer::from_str(document);
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde_transcode::transcode(&mut deserializer, &mut serializer)
        .and_then(|()| deserializer.end())
        .map_err(|e| ToolError::invalid_arguments(format!("`document` is not valid JSON: {e}")))?;
    Ok(String::from_utf8(out)?)
}

fn format(args: FormatArgs) -> Result<String, ToolError> {
    if args.indent > 8 {
        return Err(ToolError::invalid_arguments(format!(
            "`indent` must be between 0 and 8, not {}",
            args.indent
        )));
    }
    let indent = vec![b' '; usize::from(args.indent)];
    let pretty = || PrettyFormatter::with_indent(&indent);
    if args.sort_keys {
        let mut value = parse_json(&args.document, "document")?;
        value.sort_all_objects();
        if args.indent == 0 {
            write_value(&value, CompactFormatter)
        } else {
            write_value(&value, pretty())
        }
    } else if args.indent == 0 {
        transcode(&args.document, CompactFormatter)
    } else {
        transcode(&args.document, pretty())
    }
}

// ---------------------------------------------------------------------------
// The plugin
// ---------------------------------------------------------------------------

struct Json;

impl Plugin for Json {
    fn router() -> Router {
        Router::new()
            .json_tool(
                ToolDef::new(
                    "json_query",
                    "Extract values from a JSON document with a JSONPath query (RFC 9535): \
                     member and index access, wildcards `*`, recursive descent `..`, slices \
                     `[start:end:step]`, filters `[?@.price < 10]` and the functions \
                     `length()`, `count()`, `match()`, `search()`, `value()`. Returns the \
                     number of matches and each matched value with its location (normalized \
                     path and JSON pointer). Pass the document as JSON text.",
                )
                .title("JSONPath query")
                .pure(),
                query,
            )
            .json_tool(
                ToolDef::new(
                    "json_validate",
                    "Validate a JSON document against a JSON Schema (draft 4, 6, 7, 2019-09 or \
                     2020-12, chosen by the schema's `$schema`, default 2020-12). Returns \
                     whether it is valid and every violation with its location in the document \
                     (JSON pointer), the failing schema keyword and a message. Pass both as \
                     JSON text; remote `$ref`s are not fetched.",
                )
                .title("JSON Schema validation")
                .pure(),
                validate,
            )
            .tool(
                ToolDef::new(
                    "json_format",
                    "Pretty-print a JSON document with 1 to 8 spaces of indentation (default \
                     2), or minify it with `indent: 0`; optionally sort all object keys. Also \
                     a quick syntax check: invalid JSON is reported with its line and column. \
                     Returns only the formatted JSON.",
                )
                .title("Format JSON")
                .pure(),
                format,
            )
    }
}

export_plugin!(Json);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    const STORE: &str = r#"{"store": {"book": [
        {"title": "Sayings", "price": 8.95, "tags": ["classic"]},
        {"title": "Moby Dick", "price": 22.99, "isbn": "0-553-21311-3"},
        {"title": "Lord", "price": 8.99}
    ], "bicycle": {"color": "red", "price": 19.95}}}"#;

    fn structured(name: &str, args: Value) -> Result<Value, ToolError> {
        let out = Json::router().call(name, &args.to_string())?;
        Ok(serde_json::from_str(out.structured_content().expect("structured")).expect("JSON"))
    }

    fn text(name: &str, args: Value) -> Result<String, ToolError> {
        let out = Json::router().call(name, &args.to_string())?;
        Ok(out.content()[0].as_text().expect("text").to_owned())
    }

    #[test]
    fn query_returns_values_and_locations() {
        let result = structured(
            "json_query",
            json!({"document": STORE, "path": "$.store.book[?@.price < 10].title"}),
        )
        .unwrap();
        assert_eq!(result["count"], 2);
        assert_eq!(result["truncated"], false);
        assert_eq!(result["matches"][0]["value"], "Sayings");
        assert_eq!(
            result["matches"][0]["path"],
            "$['store']['book'][0]['title']"
        );
        assert_eq!(result["matches"][1]["pointer"], "/store/book/2/title");
    }

    #[test]
    fn query_functions_descent_and_limit() {
        let result = structured(
            "json_query",
            json!({"document": STORE, "path": "$..price", "limit": 2}),
        )
        .unwrap();
        assert_eq!(result["count"], 4);
        assert_eq!(result["truncated"], true);
        assert_eq!(result["matches"].as_array().map(Vec::len), Some(2));

        let result = structured(
            "json_query",
            json!({"document": STORE, "path": "$.store.book[?length(@.title) > 5 && match(@.isbn, '[0-9-]+')].title"}),
        )
        .unwrap();
        assert_eq!(result["matches"][0]["value"], "Moby Dick");
        assert_eq!(result["count"], 1);
    }

    #[test]
    fn query_errors_are_invalid_arguments() {
        let err = structured(
            "json_query",
            json!({"document": STORE, "path": "$.store[?"}),
        )
        .unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments(m) if m.starts_with("`path`")),
            "{err:?}"
        );
        let err =
            structured("json_query", json!({"document": "{\"a\":", "path": "$.a"})).unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments(m) if m.starts_with("`document`")),
            "{err:?}"
        );
        let err = structured(
            "json_query",
            json!({"document": "{}", "path": "$", "limit": 0}),
        )
        .unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments(_)));
    }

    #[test]
    fn validate_lists_violations() {
        let schema = json!({
            "type": "object",
            "required": ["name", "email"],
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "minimum": 0}
            }
        })
        .to_string();
        let ok = structured(
            "json_validate",
            json!({"document": r#"{"name":"Ada","email":"ada@example.com"}"#, "schema": schema}),
        )
        .unwrap();
        assert_eq!(ok, json!({"valid": true, "error_count": 0, "errors": []}));

        let bad = structured(
            "json_validate",
            json!({"document": r#"{"name":"","email":"nope","age":-1}"#, "schema": schema}),
        )
        .unwrap();
        assert_eq!(bad["valid"], false);
        assert_eq!(bad["error_count"], 3);
        let paths: Vec<&str> = bad["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap())
            .collect();
        assert!(paths.contains(&"/age") && paths.contains(&"/email") && paths.contains(&"/name"));

        let lax = structured(
            "json_validate",
            json!({"document": r#"{"name":"x","email":"nope"}"#, "schema": schema,
                   "check_formats": false, "max_errors": 1}),
        )
        .unwrap();
        assert_eq!(lax["valid"], true);
    }

    #[test]
    fn validate_caps_errors_and_rejects_bad_schemas() {
        let report = structured(
            "json_validate",
            json!({"document": "[1,2,3,4]", "schema": r#"{"items":{"type":"string"}}"#, "max_errors": 2}),
        )
        .unwrap();
        assert_eq!(report["error_count"], 4);
        assert_eq!(report["errors"].as_array().map(Vec::len), Some(2));
        assert_eq!(report["errors"][0]["path"], "/0");
        assert_eq!(report["errors"][0]["schema_path"], "/items/type");

        let err = structured(
            "json_validate",
            json!({"document": "1", "schema": r#"{"type": "strin"}"#}),
        )
        .unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments(m) if m.starts_with("`schema`")),
            "{err:?}"
        );
        let err = structured(
            "json_validate",
            json!({"document": "1", "schema": r#"{"$ref": "https://example.com/s.json"}"#}),
        )
        .unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments(_)), "{err:?}");
    }

    #[test]
    fn format_keeps_order_sorts_and_minifies() {
        let doc = r#"{"b": 1, "a": [1, {"d": null, "c": "x"}], "e": {}}"#;
        assert_eq!(
            text("json_format", json!({"document": doc, "indent": 0})).unwrap(),
            r#"{"b":1,"a":[1,{"d":null,"c":"x"}],"e":{}}"#
        );
        assert_eq!(
            text(
                "json_format",
                json!({"document": doc, "indent": 0, "sort_keys": true})
            )
            .unwrap(),
            r#"{"a":[1,{"c":"x","d":null}],"b":1,"e":{}}"#
        );
        assert_eq!(
            text("json_format", json!({"document": "{\"k\":[1,2]}"})).unwrap(),
            "{\n  \"k\": [\n    1,\n    2\n  ]\n}"
        );
        assert_eq!(
            text(
                "json_format",
                json!({"document": "{\"k\":1}", "indent": 4, "sort_keys": true})
            )
            .unwrap(),
            "{\n    \"k\": 1\n}"
        );
    }

    #[test]
    fn format_reports_syntax_errors() {
        let err = text("json_format", json!({"document": "{\"a\": 1,\n}"})).unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments(m) if m.contains("line 2")),
            "{err:?}"
        );
        let err = text("json_format", json!({"document": "{} {}"})).unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments(_)), "{err:?}");
        let err = text("json_format", json!({"document": "{}", "indent": 9})).unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments(_)), "{err:?}");
    }

    #[test]
    fn schemas_describe_every_argument() {
        assert_eq!(Json::router().undescribed_arguments(), Vec::<String>::new());
    }
}
