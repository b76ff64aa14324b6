//! Test plugin: one tool per failure path and content type.

use mcp_wasm_sdk::prelude::*;

/// A 1×1 red PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file of `samples` samples of 8-bit mono silence at 8 kHz.
fn wav(samples: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(44 + samples as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + samples).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // channels
    out.extend_from_slice(&8000u32.to_le_bytes()); // sample rate
    out.extend_from_slice(&8000u32.to_le_bytes()); // byte rate
    out.extend_from_slice(&1u16.to_le_bytes()); // block align
    out.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&samples.to_le_bytes());
    out.resize(44 + samples as usize, 0x80);
    out
}

/// Arguments of `structured`.
#[derive(Deserialize, JsonSchema)]
struct MeasureArgs {
    /// The text to measure.
    text: String,
}

/// A measurement of a text.
#[derive(Serialize, JsonSchema)]
struct Measurement {
    /// The text measured.
    text: String,
    /// Its length in bytes.
    bytes: usize,
    /// Its whitespace-separated words.
    words: Vec<String>,
}

struct Errors;

impl Plugin for Errors {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new("returns_error", "Fails with \"the widget is broken\"."),
                |_: NoArgs| -> ToolResult { Err(ToolError::failed("the widget is broken")) },
            )
            .tool(
                ToolDef::new("invalid", "Refuses its arguments."),
                |_: NoArgs| -> ToolResult {
                    Err(ToolError::invalid_arguments(
                        "the pattern `(` does not compile",
                    ))
                },
            )
            .tool(
                ToolDef::new("is_error_result", "Returns a result marked as an error."),
                |_: NoArgs| -> ToolResult {
                    Ok(Output::text("the operation did not succeed").error())
                },
            )
            .tool(
                ToolDef::new("unreachable", "Executes a WebAssembly `unreachable`."),
                |_: NoArgs| -> ToolResult {
                    #[cfg(target_arch = "wasm32")]
                    core::arch::wasm32::unreachable();
                    #[cfg(not(target_arch = "wasm32"))]
                    std::process::abort();
                },
            )
            .tool(
                ToolDef::new("all_content", "Returns one block of every content type."),
                |_: NoArgs| -> ToolResult {
                    Ok(Output::text("text block")
                        .and(Output::image(PNG, "image/png"))
                        .and(Output::audio(wav(8), "audio/wav"))
                        .and(Output::resource_text(
                            "mem://errors/note.txt",
                            "text/plain",
                            "embedded text",
                        ))
                        .and(Output::resource_blob(
                            "mem://errors/data.bin",
                            "application/octet-stream",
                            vec![0u8, 1, 2, 3],
                        ))
                        .and(
                            Output::resource_link("mem://errors/linked.txt", "linked")
                                .title("Linked")
                                .description("A linked resource.")
                                .mime_type("text/plain")
                                .size(6),
                        ))
                },
            )
            .json_tool(
                ToolDef::new("structured", "Measures a text; returns structured content.")
                    .read_only(),
                |args: MeasureArgs| -> Result<Measurement, ToolError> {
                    Ok(Measurement {
                        bytes: args.text.len(),
                        words: args.text.split_whitespace().map(str::to_owned).collect(),
                        text: args.text,
                    })
                },
            )
            .tool(
                ToolDef::new(
                    "log_progress",
                    "Logs at several levels and reports progress 0, 50 and 100 of 100.",
                ),
                |_: NoArgs| -> ToolResult {
                    log::debug("log_progress: debug");
                    log::info("log_progress: info");
                    progress(0.0, Some(100.0), Some("starting"));
                    log::warn("log_progress: warning");
                    progress(50.0, Some(100.0), Some("halfway"));
                    log::error("log_progress: error");
                    progress(100.0, Some(100.0), None);
                    Ok(Output::text("logged"))
                },
            )
    }
}

export_plugin!(Errors);
