//! The `hash` tool: FNV-1a 64 of the argument `text`, as 16 hex digits.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{Value, json};

/// The tool's name.
pub const NAME: &str = "hash";

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The tool as `tools/list` shows it.
pub fn definition() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "text": { "type": "string", "description": "The text to hash (its UTF-8 bytes)." }
        },
        "required": ["text"],
        "additionalProperties": false,
    });
    let Value::Object(schema) = schema else {
        unreachable!("a JSON object literal")
    };
    Tool::new(
        NAME,
        "FNV-1a 64 of `text`, as 16 hex digits.",
        Arc::<JsonObject>::new(schema),
    )
}

/// Runs the tool on `arguments`: the hash as text, or an `isError` result
/// when `text` is missing or not a string.
pub fn call(arguments: Option<&JsonObject>) -> CallToolResult {
    match arguments
        .and_then(|a| a.get("text"))
        .and_then(Value::as_str)
    {
        Some(text) => CallToolResult::success(vec![ContentBlock::text(format!(
            "{:016x}",
            fnv1a64(text.as_bytes())
        ))]),
        None => CallToolResult::error(vec![ContentBlock::text(
            "`text` is required and must be a string",
        )]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_call_answers_the_hash_as_16_hex_digits() {
        let args = json!({ "text": "a" });
        let result = call(args.as_object());
        assert_eq!(result.is_error, Some(false));
        let text = result.content[0].as_text().map(|t| t.text.as_str());
        assert_eq!(text, Some("af63dc4c8601ec8c"));
    }

    #[test]
    fn a_call_without_a_text_string_is_a_tool_error() {
        for args in [None, Some(json!({})), Some(json!({ "text": 1 }))] {
            let result = call(args.as_ref().and_then(Value::as_object));
            assert_eq!(result.is_error, Some(true), "{args:?}");
        }
    }
}
