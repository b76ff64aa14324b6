//! Tests that the size the runtime counts for a result (`max_result_size`,
//! `runtime::output_size`) is never less than the JSON a client receives for
//! it once the host converts it (`mcp::protocol::convert::output`): every
//! kind of block and hint, escaped text and empty blocks. The exhaustive
//! counterpart of the `result_conversion` target's size check ([`results`](crate::results)),
//! here because it needs the runtime's `fuzzing` names too.
#![allow(clippy::unwrap_used)]

use mcp_wasm_host::mcp::protocol::convert::output;
use mcp_wasm_host_runtime::fuzzing::output_size;
use mcp_wasm_host_runtime::{Audience, Content, ContentHints, ResourceBody, ToolOutput};

/// The JSON of a `tools/call` result outside what [`output_size`]
/// counts: `{"resultType":"complete","content":[],"isError":false}` is
/// 54 bytes.
const ENVELOPE: u64 = 64;

/// The bytes of JSON the client receives for `out`.
fn serialized(out: &ToolOutput) -> u64 {
    let result = output(out);
    serde_json::to_string(&result).unwrap().len() as u64
}

fn hints() -> [Option<ContentHints>; 3] {
    [
        None,
        Some(ContentHints::default()),
        Some(ContentHints {
            audience: vec![Audience::Assistant, Audience::User, Audience::Assistant],
            priority: Some(0.123_456_789),
            last_modified: Some("2025-01-01T00:00:00Z\u{1}".into()),
        }),
    ]
}

/// Every kind of block, with its optional fields absent and present,
/// under every kind of hints, with `s` in every string and `data` as
/// every binary body.
fn every_block(s: &str, data: &[u8]) -> Vec<Content> {
    let mut blocks = Vec::new();
    for hints in hints() {
        let some = |present: bool| present.then(|| s.to_string());
        blocks.push(Content::Text {
            text: s.into(),
            hints: hints.clone(),
        });
        blocks.push(Content::Image {
            data: data.to_vec(),
            mime_type: s.into(),
            hints: hints.clone(),
        });
        blocks.push(Content::Audio {
            data: data.to_vec(),
            mime_type: s.into(),
            hints: hints.clone(),
        });
        for present in [false, true] {
            for body in [
                ResourceBody::Text(s.into()),
                ResourceBody::Blob(data.to_vec()),
            ] {
                blocks.push(Content::Resource {
                    uri: s.into(),
                    mime_type: some(present),
                    body,
                    hints: hints.clone(),
                });
            }
            blocks.push(Content::ResourceLink {
                uri: s.into(),
                name: s.into(),
                title: some(present),
                description: some(present),
                mime_type: some(present),
                size: present.then_some(u64::MAX),
                hints: hints.clone(),
            });
        }
    }
    blocks
}

const STRINGS: [&str; 5] = [
    "",
    "plain text",
    "é ü 日本 😀",
    "\"quotes\" \\ and \n\r\t\u{8}\u{c} and \u{0}\u{1}\u{1f}\u{7f}",
    "</script>",
];

#[test]
fn the_counted_size_is_never_less_than_the_json_the_client_receives() {
    for s in STRINGS {
        for data in [&[][..], &[1], &[1, 2], &[0, 255, 7, 9]] {
            let blocks = every_block(s, data);
            for block in &blocks {
                for is_error in [false, true] {
                    let out = ToolOutput {
                        content: vec![block.clone()],
                        structured: None,
                        is_error,
                    };
                    let (size, json) = (output_size(&out), serialized(&out));
                    assert!(
                        json <= size + ENVELOPE,
                        "{json} > {size}: {block:?}: {}",
                        serde_json::to_string(&output(&out)).unwrap()
                    );
                    // And the count is close: a fixed overhead per block.
                    assert!(size <= json + 256, "{size} ≫ {json}: {block:?}");
                }
            }
            let out = ToolOutput {
                content: blocks,
                structured: Some(serde_json::json!({"s": s, "n": [1.5, -2, null]})),
                is_error: false,
            };
            assert!(serialized(&out) <= output_size(&out) + ENVELOPE);
        }
    }
}

#[test]
fn empty_blocks_and_escaped_text_count_at_their_real_size_or_more() {
    let empty = ToolOutput {
        content: vec![Content::text(""); 10_000],
        ..ToolOutput::default()
    };
    assert!(serialized(&empty) <= output_size(&empty) + ENVELOPE);
    let escaped = ToolOutput {
        content: vec![Content::text("\u{1}".repeat(100_000))],
        ..ToolOutput::default()
    };
    assert!(output_size(&escaped) >= 600_000);
    assert!(serialized(&escaped) <= output_size(&escaped) + ENVELOPE);
}
