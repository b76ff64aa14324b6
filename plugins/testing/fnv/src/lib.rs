//! Test plugin: `hash`, FNV-1a 64 of a text as 16 hex digits. The sandboxed
//! side of the side-by-side benchmark (`host/benches/native.rs`); the native
//! side, `tests/native-server`, has the same tool compiled in and must
//! answer the same text.

use mcp_wasm_sdk::prelude::*;

/// Arguments of `hash`.
#[derive(Deserialize, JsonSchema)]
struct HashArgs {
    /// The text to hash (its UTF-8 bytes).
    text: String,
}

/// FNV-1a, 64 bits.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

struct Fnv;

impl Plugin for Fnv {
    fn router() -> Router {
        Router::new()
            // A prompt and a resource, so that adding or removing this
            // plugin changes the prompt and resource lists too.
            .prompt(
                PromptDef::new("fnv_explain", "Explains what FNV-1a is."),
                |_: &Vars| -> PromptResult {
                    Ok(Messages::new().user(Output::text(
                        "Explain the FNV-1a hash function in two sentences.",
                    )))
                },
            )
            .resource_text(
                ResourceDef::new("fnv://offset-basis", "offset-basis").mime_type("text/plain"),
                "cbf29ce484222325",
            )
            .tool(
                ToolDef::new("hash", "FNV-1a 64 of `text`, as 16 hex digits."),
                |args: HashArgs| -> ToolResult {
                    Ok(Output::text(format!(
                        "{:016x}",
                        fnv1a64(args.text.as_bytes())
                    )))
                },
            )
    }
}

export_plugin!(Fnv);
