//! The runtime's own description of a tool and of what a call produced,
//! converted from the WIT types so that nothing outside the runtime sees
//! wasmtime's generated bindings.

use serde_json::{Map, Value};

use super::bindings::types as wit;

/// Behaviour hints of a tool; `None` leaves the MCP default in place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolHints {
    /// A human-readable title.
    pub title: Option<String>,
    /// The tool does not modify its environment.
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world: Option<bool>,
}

/// A tool as the server offers it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    /// The name clients call it by (see the catalog's collision rule).
    pub name: String,
    /// The plugin that provides it: the stem of its `.wasm` file.
    pub plugin: String,
    /// A human-readable name.
    pub title: Option<String>,
    /// What the tool does.
    pub description: String,
    /// The JSON Schema of its arguments (an object schema).
    pub input_schema: Map<String, Value>,
    /// The JSON Schema of its structured content, if it has one.
    pub output_schema: Option<Map<String, Value>>,
    /// Behaviour hints.
    pub hints: ToolHints,
}

/// Who a content block is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Optional hints on a content block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContentHints {
    /// Intended readers; empty means no preference.
    pub audience: Vec<Audience>,
    /// Importance from 0 to 1.
    pub priority: Option<f64>,
    /// ISO 8601 time of last modification.
    pub last_modified: Option<String>,
}

/// The body of an embedded resource.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceBody {
    /// Text contents.
    Text(String),
    /// Binary contents.
    Blob(Vec<u8>),
}

/// One block of a tool's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Hints.
        hints: Option<ContentHints>,
    },
    /// An image.
    Image {
        /// Raw bytes.
        data: Vec<u8>,
        /// MIME type.
        mime_type: String,
        /// Hints.
        hints: Option<ContentHints>,
    },
    /// An audio clip.
    Audio {
        /// Raw bytes.
        data: Vec<u8>,
        /// MIME type.
        mime_type: String,
        /// Hints.
        hints: Option<ContentHints>,
    },
    /// An embedded resource.
    Resource {
        /// Its URI.
        uri: String,
        /// Its MIME type, if known.
        mime_type: Option<String>,
        /// Its contents.
        body: ResourceBody,
        /// Hints.
        hints: Option<ContentHints>,
    },
    /// A link to a resource.
    ResourceLink {
        /// Its URI.
        uri: String,
        /// Programmatic name.
        name: String,
        /// Display name.
        title: Option<String>,
        /// What it is.
        description: Option<String>,
        /// MIME type, if known.
        mime_type: Option<String>,
        /// Size in bytes, if known.
        size: Option<u64>,
        /// Hints.
        hints: Option<ContentHints>,
    },
}

impl Content {
    /// A plain text block without hints.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text {
            text: text.into(),
            hints: None,
        }
    }
}

/// What a successful call produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// Structured content, already parsed and checked against the tool's
    /// output schema.
    pub structured: Option<Value>,
    /// The tool reported a failure the model should see.
    pub is_error: bool,
}

impl From<wit::ToolAnnotations> for ToolHints {
    fn from(a: wit::ToolAnnotations) -> Self {
        ToolHints {
            title: a.title,
            read_only: a.read_only_hint,
            destructive: a.destructive_hint,
            idempotent: a.idempotent_hint,
            open_world: a.open_world_hint,
        }
    }
}

impl From<wit::ContentAnnotations> for ContentHints {
    fn from(a: wit::ContentAnnotations) -> Self {
        ContentHints {
            audience: a
                .audience
                .into_iter()
                .map(|r| match r {
                    wit::Role::User => Audience::User,
                    wit::Role::Assistant => Audience::Assistant,
                })
                .collect(),
            priority: a.priority,
            last_modified: a.last_modified,
        }
    }
}

impl From<wit::ContentBlock> for Content {
    fn from(block: wit::ContentBlock) -> Self {
        let hints = |a: Option<wit::ContentAnnotations>| a.map(ContentHints::from);
        match block {
            wit::ContentBlock::Text(t) => Content::Text {
                text: t.text,
                hints: hints(t.annotations),
            },
            wit::ContentBlock::Image(m) => Content::Image {
                data: m.data,
                mime_type: m.mime_type,
                hints: hints(m.annotations),
            },
            wit::ContentBlock::Audio(m) => Content::Audio {
                data: m.data,
                mime_type: m.mime_type,
                hints: hints(m.annotations),
            },
            wit::ContentBlock::Resource(r) => Content::Resource {
                uri: r.uri,
                mime_type: r.mime_type,
                body: match r.body {
                    wit::ResourceBody::Text(t) => ResourceBody::Text(t),
                    wit::ResourceBody::Blob(b) => ResourceBody::Blob(b),
                },
                hints: hints(r.annotations),
            },
            wit::ContentBlock::ResourceLink(l) => Content::ResourceLink {
                uri: l.uri,
                name: l.name,
                title: l.title,
                description: l.description,
                mime_type: l.mime_type,
                size: l.size,
                hints: hints(l.annotations),
            },
        }
    }
}
