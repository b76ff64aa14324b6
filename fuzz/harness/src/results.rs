//! Fuzzing the conversion of what a guest returns into what the client
//! reads: a WIT `call-result` through the runtime's checks
//! (`call::convert_result`) and then `mcp::protocol::convert::output`, and a WIT
//! `tool-error` through the failure the client is sent. The result must
//! serialize to JSON that reads back as a `CallToolResult`, at most
//! [`SIZE_SLACK`] bytes longer than `output_size` counts (the number checked
//! against `max_result_bytes`: every byte the guest controls counts); a
//! guest's error message reaches the client clipped.

use arbitrary::Arbitrary;
use mcp_wasm_host::mcp::protocol::convert;
use mcp_wasm_host_runtime::fuzzing::{convert_result, guest_error, output_size, wit};
use mcp_wasm_host_runtime::{
    FailureCause, MAX_MESSAGE, PluginTool, Schema, ToolFailure, ToolHints,
};
use rmcp::model::CallToolResult;
use serde::Deserialize;

use crate::generate::{Json, ObjectSchema};
use crate::{Input, decode};

/// The bytes a serialized result may have beyond what `output_size` counts:
/// the fixed JSON around it (`content`, `isError`, each block's `type`).
pub const SIZE_SLACK: usize = 512;

/// One case: what the guest returned, and the output schema of its tool.
#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Case {
    returned: Returned,
    #[serde(default)]
    output_schema: Option<SchemaText>,
}

/// `call-tool`'s return value: `result<call-result, tool-error>`.
#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case")]
enum Returned {
    Ok(CallResult),
    Err(ToolError),
}

/// An output schema: generated, or the JSON a seed gives.
#[derive(Arbitrary, Deserialize, Debug)]
#[serde(from = "serde_json::Value")]
enum SchemaText {
    Structured(Box<ObjectSchema>),
    Text(String),
}

impl From<serde_json::Value> for SchemaText {
    fn from(v: serde_json::Value) -> Self {
        SchemaText::Text(v.to_string())
    }
}

// Mirrors of the WIT types (which cannot derive `Arbitrary` without the
// normal build depending on it), converted below. Seeds spell them as WIT
// does, in kebab-case.

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct CallResult {
    content: Vec<ContentBlock>,
    #[serde(default)]
    structured_content: Option<Structured>,
    #[serde(default)]
    is_error: bool,
}

/// Structured content: mostly JSON (so the schema check runs), or any text.
#[derive(Arbitrary, Deserialize, Debug)]
#[serde(from = "String")]
enum Structured {
    Json(Json),
    Text(String),
}

impl From<String> for Structured {
    fn from(s: String) -> Self {
        Structured::Text(s)
    }
}

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case")]
enum ContentBlock {
    Text(TextContent),
    Image(MediaContent),
    Audio(MediaContent),
    Resource(EmbeddedResource),
    ResourceLink(ResourceLink),
}

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct TextContent {
    text: String,
    #[serde(default)]
    annotations: Option<ContentAnnotations>,
}

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct MediaContent {
    data: Vec<u8>,
    mime_type: String,
    #[serde(default)]
    annotations: Option<ContentAnnotations>,
}

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case")]
enum ResourceBody {
    Text(String),
    Blob(Vec<u8>),
}

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct EmbeddedResource {
    uri: String,
    #[serde(default)]
    mime_type: Option<String>,
    body: ResourceBody,
    #[serde(default)]
    annotations: Option<ContentAnnotations>,
}

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct ResourceLink {
    uri: String,
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    size: Option<u64>,
    #[serde(default)]
    annotations: Option<ContentAnnotations>,
}

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct ContentAnnotations {
    #[serde(default)]
    audience: Vec<Role>,
    #[serde(default)]
    priority: Option<f64>,
    #[serde(default)]
    last_modified: Option<String>,
}

#[derive(Arbitrary, Deserialize, Debug, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
enum Role {
    User,
    Assistant,
}

#[derive(Arbitrary, Deserialize, Debug)]
#[serde(rename_all = "kebab-case")]
enum ToolError {
    InvalidArguments(String),
    UnknownTool(String),
    Denied(String),
    Failed(String),
}

impl From<ContentAnnotations> for wit::ContentAnnotations {
    fn from(a: ContentAnnotations) -> Self {
        wit::ContentAnnotations {
            audience: a
                .audience
                .into_iter()
                .map(|r| match r {
                    Role::User => wit::Role::User,
                    Role::Assistant => wit::Role::Assistant,
                })
                .collect(),
            priority: a.priority,
            last_modified: a.last_modified,
        }
    }
}

impl From<ContentBlock> for wit::ContentBlock {
    fn from(block: ContentBlock) -> Self {
        let a = |a: Option<ContentAnnotations>| a.map(wit::ContentAnnotations::from);
        let media = |m: MediaContent| wit::MediaContent {
            data: m.data,
            mime_type: m.mime_type,
            annotations: a(m.annotations),
        };
        match block {
            ContentBlock::Text(t) => wit::ContentBlock::Text(wit::TextContent {
                text: t.text,
                annotations: a(t.annotations),
            }),
            ContentBlock::Image(m) => wit::ContentBlock::Image(media(m)),
            ContentBlock::Audio(m) => wit::ContentBlock::Audio(media(m)),
            ContentBlock::Resource(r) => wit::ContentBlock::Resource(wit::EmbeddedResource {
                uri: r.uri,
                mime_type: r.mime_type,
                body: match r.body {
                    ResourceBody::Text(t) => wit::ResourceBody::Text(t),
                    ResourceBody::Blob(b) => wit::ResourceBody::Blob(b),
                },
                annotations: a(r.annotations),
            }),
            ContentBlock::ResourceLink(l) => wit::ContentBlock::ResourceLink(wit::ResourceLink {
                uri: l.uri,
                name: l.name,
                title: l.title,
                description: l.description,
                mime_type: l.mime_type,
                size: l.size,
                annotations: a(l.annotations),
            }),
        }
    }
}

impl From<CallResult> for wit::CallResult {
    fn from(r: CallResult) -> Self {
        wit::CallResult {
            content: r.content.into_iter().map(Into::into).collect(),
            structured_content: r.structured_content.map(|s| match s {
                Structured::Json(j) => j.value().to_string(),
                Structured::Text(t) => t,
            }),
            is_error: r.is_error,
        }
    }
}

impl From<ToolError> for wit::ToolError {
    fn from(e: ToolError) -> Self {
        match e {
            ToolError::InvalidArguments(m) => wit::ToolError::InvalidArguments(m),
            ToolError::UnknownTool(m) => wit::ToolError::UnknownTool(m),
            ToolError::Denied(m) => wit::ToolError::Denied(m),
            ToolError::Failed(m) => wit::ToolError::Failed(m),
        }
    }
}

/// Converts the case as the host does and checks what the client would get.
pub fn check(bytes: &[u8]) {
    let case = match decode::<Case, Case>(bytes) {
        Some(Input::Seed(case) | Input::Generated(case)) => case,
        None => return,
    };
    let output = case.output_schema.and_then(|s| {
        let text = match s {
            SchemaText::Structured(s) => s.text(),
            SchemaText::Text(t) => t,
        };
        Schema::compile_object("output schema", &text).ok()
    });
    let Ok(input) = Schema::compile_object("input schema", r#"{"type":"object"}"#) else {
        panic!("the empty object schema does not compile");
    };
    let tool = PluginTool {
        name: "fuzzed".into(),
        title: None,
        description: String::new(),
        input,
        output: output.map(std::sync::Arc::new),
        hints: ToolHints::default(),
        icons: Vec::new(),
        task_support: Default::default(),
    };
    let failure = |cause| {
        let failure = ToolFailure {
            plugin: "fuzz".into(),
            tool: tool.name.clone(),
            cause,
        };
        convert::error_result(failure.to_string())
    };
    match case.returned {
        Returned::Ok(result) => match convert_result(&tool, result.into()) {
            Ok(out) => {
                let size = output_size(&out);
                let json = serialize(&convert::output(&out));
                assert!(
                    json.len() as u64 <= size + SIZE_SLACK as u64,
                    "the result serializes to {} bytes, but output_size counts {size}",
                    json.len()
                );
            }
            Err(message) => {
                serialize(&failure(FailureCause::BadOutput(message)));
            }
        },
        Returned::Err(error) => {
            // As `call::call_tool` builds it, less the policy hint it adds
            // to `denied`.
            let (kind, message) = guest_error(error.into(), &Default::default());
            let json = serialize(&failure(FailureCause::Guest { kind, message }));
            // Clipped to MAX_MESSAGE bytes, which JSON escaping may grow
            // at most sixfold (`\u0000`), plus the fixed text around it.
            assert!(
                json.len() <= 6 * MAX_MESSAGE + SIZE_SLACK,
                "a guest's error message reaches the client as {} bytes",
                json.len()
            );
        }
    }
}

/// Serializes a result and checks that it reads back.
fn serialize(result: &CallToolResult) -> String {
    let json = match serde_json::to_string(result) {
        Ok(json) => json,
        Err(e) => panic!("a CallToolResult does not serialize: {e}"),
    };
    if let Err(e) = serde_json::from_str::<CallToolResult>(&json) {
        panic!("a serialized CallToolResult does not read back: {e}\n{json}");
    }
    json
}
