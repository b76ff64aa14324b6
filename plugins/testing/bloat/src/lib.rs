//! Test plugin: results that are large in every part the client receives,
//! for the host's result accounting (`max_result_size`) and its clipping of
//! guest text in error messages.
//!
//! - `error`: fails with a tool error of each kind whose message is `bytes`
//!   long (two-byte characters, so that a cut can land inside one).
//! - `field`: one block in which only the named field is `bytes` long; the
//!   rest is as small as it can be.
//! - `blocks`: `count` empty text blocks.
//! - `audience`: a text block whose audience lists `count` readers.
//! - `panic`: panics with a message of `bytes` bytes.

use mcp_wasm_sdk::prelude::*;
use mcp_wasm_sdk::{Content, ResourceBody, Role};

/// The kinds of tool error, as in the WIT `tool-error`.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum ErrorKind {
    /// `invalid-arguments`.
    InvalidArguments,
    /// `unknown-tool`.
    UnknownTool,
    /// `denied`.
    Denied,
    /// `failed`.
    Failed,
}

/// Arguments of `error`.
#[derive(Deserialize, JsonSchema)]
struct ErrorArgs {
    /// Which kind of tool error to return.
    kind: ErrorKind,
    /// The length of the message in bytes (rounded down to an even number).
    bytes: usize,
}

/// The fields `field` can make large.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Field {
    /// A text block's text made of control characters, which JSON escapes
    /// as six bytes each.
    EscapedText,
    /// An image's MIME type.
    ImageMimeType,
    /// An audio clip's data (the client receives it in base64).
    AudioData,
    /// An embedded resource's URI.
    ResourceUri,
    /// An embedded resource's MIME type.
    ResourceMimeType,
    /// An embedded resource's binary body.
    ResourceBlob,
    /// A resource link's URI.
    LinkUri,
    /// A resource link's name.
    LinkName,
    /// A resource link's title.
    LinkTitle,
    /// A resource link's description.
    LinkDescription,
    /// A resource link's MIME type.
    LinkMimeType,
    /// A text block's `lastModified` annotation.
    LastModified,
    /// Structured content (one string member).
    Structured,
}

/// Arguments of `field`.
#[derive(Deserialize, JsonSchema)]
struct FieldArgs {
    /// The field to make large.
    field: Field,
    /// Its length in bytes.
    bytes: usize,
}

/// Arguments of `blocks` and `audience`.
#[derive(Deserialize, JsonSchema)]
struct CountArgs {
    /// How many.
    count: usize,
}

/// Arguments of `panic`.
#[derive(Deserialize, JsonSchema)]
struct PanicArgs {
    /// The length of the panic message in bytes.
    bytes: usize,
}

/// A result with one block whose `field` is `bytes` long.
fn one_large_field(field: Field, bytes: usize) -> Output {
    let big = || "b".repeat(bytes);
    let link = |uri: String, name: String| Output::resource_link(uri, name);
    match field {
        Field::EscapedText => Output::text("\u{1}".repeat(bytes)),
        Field::ImageMimeType => Output::image(vec![0u8], big()),
        Field::AudioData => Output::audio(vec![0u8; bytes], "audio/wav"),
        Field::ResourceUri => Output::resource_text(big(), "text/plain", ""),
        Field::ResourceMimeType => Output::resource_text("mem://r", big(), ""),
        Field::ResourceBlob => Output::from(Content::Resource {
            uri: "mem://r".into(),
            mime_type: None,
            body: ResourceBody::Blob(vec![0u8; bytes]),
            annotations: None,
        }),
        Field::LinkUri => link(big(), "n".into()),
        Field::LinkName => link("mem://l".into(), big()),
        Field::LinkTitle => link("mem://l".into(), "n".into()).title(big()),
        Field::LinkDescription => link("mem://l".into(), "n".into()).description(big()),
        Field::LinkMimeType => link("mem://l".into(), "n".into()).mime_type(big()),
        Field::LastModified => Output::text("").last_modified(big()),
        Field::Structured => Output::json(&serde_json::json!({ "s": big() })),
    }
}

struct Bloat;

impl Plugin for Bloat {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new(
                    "error",
                    "Fails with a tool error whose message is `bytes` long.",
                ),
                |args: ErrorArgs| -> ToolResult {
                    let message = "é".repeat(args.bytes / 2);
                    Err(match args.kind {
                        ErrorKind::InvalidArguments => ToolError::invalid_arguments(message),
                        ErrorKind::UnknownTool => ToolError::unknown_tool(message),
                        ErrorKind::Denied => ToolError::denied(message),
                        ErrorKind::Failed => ToolError::failed(message),
                    })
                },
            )
            .tool(
                ToolDef::new("field", "Returns one block whose `field` is `bytes` long."),
                |args: FieldArgs| -> ToolResult { Ok(one_large_field(args.field, args.bytes)) },
            )
            .tool(
                ToolDef::new("blocks", "Returns `count` empty text blocks."),
                |args: CountArgs| -> ToolResult {
                    Ok((0..args.count).fold(Output::default(), |out, _| out.and("")))
                },
            )
            .tool(
                ToolDef::new(
                    "audience",
                    "Returns a text block whose audience lists `count` readers.",
                ),
                |args: CountArgs| -> ToolResult {
                    Ok(Output::text("").audience(std::iter::repeat_n(Role::User, args.count)))
                },
            )
            .tool(
                ToolDef::new("panic", "Panics with a message `bytes` long."),
                |args: PanicArgs| -> ToolResult { panic!("{}", "p".repeat(args.bytes)) },
            )
    }
}

export_plugin!(Bloat);
