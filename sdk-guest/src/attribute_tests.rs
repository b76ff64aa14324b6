//! Tests of the `#[tool]` attribute (crate `mcp-wasm-sdk-macros`) through the
//! router it fills: schemas, results and errors of tools written as functions.

use serde_json::{Value, json};

use crate::prelude::*;

/// A summary of some values.
#[derive(Serialize, JsonSchema)]
struct Summary {
    /// How many values were kept.
    kept: usize,
    /// Their total.
    total: i64,
}

/// Sum the first values.
#[tool(title = "Sum", read_only, closed_world)]
fn sum_first(
    /// The values to add up.
    values: Vec<i64>,
    /// How many to keep (default all).
    #[schemars(range(max = 10))]
    limit: Option<u32>,
) -> Result<Summary, ToolError> {
    if values.is_empty() {
        return Err(ToolError::invalid_arguments("`values` is empty"));
    }
    let kept = &values[..values.len().min(limit.map_or(usize::MAX, |l| l as usize))];
    Ok(Summary {
        kept: kept.len(),
        total: kept.iter().sum(),
    })
}

/// Say hello.
#[tool(name = "hello", destructive = false)]
fn greeting() -> &'static str {
    "Hello!"
}

/// Repeat a word.
#[tool(idempotent, open_world = false)]
fn repeat(
    /// The word.
    r#type: String,
    /// How many times.
    #[serde(default = "crate::defaults::u32::<2>")]
    times: u32,
) -> String {
    r#type.repeat(times as usize)
}

/// Parse a number.
#[tool]
fn parse(
    /// The text.
    text: String,
) -> Result<Output, std::num::ParseIntError> {
    Ok(Output::text(text.trim().parse::<u32>()?.to_string()))
}

/// An infallible structured result.
#[tool]
fn count(
    /// The text.
    text: String,
) -> Summary {
    Summary {
        kept: text.len(),
        total: 0,
    }
}

/// Tools in another module, named by path.
mod text {
    use crate::prelude::*;

    #[tool(description = "Upper-case a text.")]
    pub(crate) fn shout(
        /// The text.
        text: String,
    ) -> String {
        text.to_uppercase()
    }
}

fn router() -> Router {
    tool_router![sum_first, greeting, repeat, parse, count]
}

#[test]
fn tools_are_named_by_path_and_described_by_the_key() {
    let router = tool_router![text::shout];
    let defs = router.list();
    assert_eq!(defs[0].name(), "shout");
    assert_eq!(defs[0].description(), "Upper-case a text.");
    let out = router.call("shout", r#"{"text":"hi"}"#).expect("ok");
    assert_eq!(out.content()[0].as_text(), Some("HI"));
}

fn schema(text: Option<&str>) -> Value {
    serde_json::from_str(text.expect("a schema")).expect("JSON")
}

#[test]
fn list_derives_names_descriptions_hints_and_schemas() {
    let defs = router().list();
    let names: Vec<&str> = defs.iter().map(ToolDef::name).collect();
    assert_eq!(names, ["sum_first", "hello", "repeat", "parse", "count"]);

    let stats = &defs[0];
    assert_eq!(stats.description(), "Sum the first values.");
    assert_eq!(stats.get_title(), Some("Sum"));
    assert_eq!(stats.hints().read_only, Some(true));
    assert_eq!(stats.hints().open_world, Some(false));
    let input = schema(stats.input_schema());
    assert_eq!(input["type"], "object");
    assert_eq!(input["title"], "SumFirstArgs");
    assert_eq!(input["required"], json!(["values"]));
    assert_eq!(
        input["properties"]["values"]["description"],
        "The values to add up."
    );
    // `Option<u32>` is the portable `anyOf` [integer, null].
    assert_eq!(
        input["properties"]["limit"]["anyOf"][0]["maximum"], 10,
        "{input}"
    );
    let output = schema(stats.output_schema());
    assert_eq!(output["properties"]["total"]["description"], "Their total.");

    assert_eq!(defs[1].hints().destructive, Some(false));
    assert_eq!(
        schema(defs[1].input_schema()),
        json!({"type": "object", "additionalProperties": false})
    );
    assert!(defs[1].output_schema().is_none());
    assert_eq!(defs[2].hints().idempotent, Some(true));
    assert_eq!(defs[2].hints().open_world, Some(false));
    let repeat = schema(defs[2].input_schema());
    assert_eq!(repeat["required"], json!(["type"]), "{repeat}");
    assert_eq!(repeat["properties"]["times"]["default"], 2);
    assert!(defs[3].output_schema().is_none());
    assert!(defs[4].output_schema().is_some());
    assert!(router().undescribed_arguments().is_empty());
}

#[test]
fn calls_reach_the_function_and_its_result() {
    let router = router();
    let out = router
        .call("sum_first", r#"{"values":[1,2,4],"limit":2}"#)
        .expect("ok");
    assert_eq!(
        schema(out.structured_content()),
        json!({"kept": 2, "total": 3})
    );
    assert_eq!(
        router.call("hello", "").expect("ok").content()[0].as_text(),
        Some("Hello!")
    );
    let out = router.call("repeat", r#"{"type":"ab"}"#).expect("ok");
    assert_eq!(out.content()[0].as_text(), Some("abab"));
    let out = router.call("count", r#"{"text":"abc"}"#).expect("ok");
    assert_eq!(
        schema(out.structured_content()),
        json!({"kept": 3, "total": 0})
    );
    // The function itself stays callable, e.g. from a plugin's own tests.
    assert_eq!(sum_first(vec![2, 3], None).map(|s| s.total), Ok(5));
}

#[test]
fn refusals_and_bad_arguments_are_tool_errors() {
    let router = router();
    let cases = [
        (
            "sum_first",
            r#"{"values":[]}"#,
            ToolError::InvalidArguments("`values` is empty".into()),
        ),
        (
            "sum_first",
            r#"{"values":"x"}"#,
            ToolError::InvalidArguments(
                "`values`: invalid type: string \"x\", expected a sequence".into(),
            ),
        ),
        (
            "sum_first",
            "{}",
            ToolError::InvalidArguments("missing field `values`".into()),
        ),
        (
            "hello",
            r#"{"x":1}"#,
            ToolError::InvalidArguments(
                "unknown argument `x`: this tool takes no arguments".into(),
            ),
        ),
        (
            "parse",
            r#"{"text":"x"}"#,
            ToolError::Failed("invalid digit found in string".into()),
        ),
    ];
    for (tool, arguments, expected) in cases {
        assert_eq!(
            router.call(tool, arguments).err(),
            Some(expected),
            "{tool} {arguments}"
        );
    }
}
