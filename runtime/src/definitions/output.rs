//! The runtime's own description of a tool and of what a call produced,
//! converted from the WIT types so that nothing outside the runtime sees
//! wasmtime's generated bindings.

use serde_json::{Map, Value};

use crate::load::bindings::types as wit;

/// Behaviour hints of a tool; `None` leaves the MCP default in place.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Icons a client may show, in the plugin's order.
    pub icons: Vec<crate::definitions::icons::Icon>,
    /// Whether a call may run as a task.
    pub task_support: TaskSupport,
    /// The interactive view its results show in (MCP Apps), if any.
    pub view: Option<ToolView>,
}

/// The interactive view of a tool (MCP Apps).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolView {
    /// The `ui://` URI of the view.
    pub resource_uri: String,
    /// Whether the model may call the tool (else only the view may).
    pub model_visible: bool,
}

/// Whether a call of a tool may run as a task (the plugin declares it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TaskSupport {
    /// Every call is an ordinary call (the default, and every 0.1.x tool).
    #[default]
    Forbidden,
    /// A task when the client supports tasks, an ordinary call otherwise.
    Optional,
    /// Only ever a task.
    Required,
}

impl TaskSupport {
    /// The word the WIT, the policy reference (docs/policy.md) and `inspect` use.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
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

/// What a result costs against `max_result_size`: every byte of it that the
/// guest controls and the client receives, counted as JSON.
///
/// - Each block costs [`BLOCK_COST`] for its framing (its type, the keys of
///   its required fields, punctuation), whatever its contents.
/// - Each optional field present (a title, a description, a MIME type, a
///   size, the annotations and each of theirs, structured content) costs
///   [`FIELD_COST`] for its key.
/// - Strings count at their JSON-escaped length with their quotes (a control
///   character becomes `\u00XX`, six bytes), binary data at its base64 length
///   (4 bytes for every 3), numbers at [`NUMBER_COST`], each audience entry
///   at [`AUDIENCE_COST`], and structured content at the length of its JSON.
///
/// The sum is never less than the JSON the client receives for the content
/// and structured content.
pub mod cost {
    use serde_json::Value;

    use super::{Content, ContentHints, ResourceBody, ToolOutput};

    /// The framing of one block: the largest empty block, an embedded text
    /// resource (`{"type":"resource","resource":{"uri":"","mimeType":
    /// "text/plain","text":""}}` and a comma), is 75 bytes of JSON.
    pub const BLOCK_COST: u64 = 80;
    /// The key of one optional field and its punctuation (the longest,
    /// `,"structuredContent":`, is 21 bytes).
    pub const FIELD_COST: u64 = 24;
    /// A number: a size (up to 20 digits) or a priority.
    pub const NUMBER_COST: u64 = 24;
    /// One audience entry: `"assistant",`.
    pub const AUDIENCE_COST: u64 = 12;

    /// The cost of a whole output.
    pub fn output(out: &ToolOutput) -> u64 {
        let blocks: u64 = out.content.iter().map(block).sum();
        let structured = out.structured.as_ref().map_or(0, |v| FIELD_COST + json(v));
        blocks + structured
    }

    /// The cost of one block.
    pub fn block(content: &Content) -> u64 {
        let body = match content {
            Content::Text { text, hints } => string(text) + annotations(hints),
            Content::Image {
                data,
                mime_type,
                hints,
            }
            | Content::Audio {
                data,
                mime_type,
                hints,
            } => base64(data.len()) + string(mime_type) + annotations(hints),
            Content::Resource {
                uri,
                mime_type,
                body,
                hints,
            } => {
                let body = match body {
                    ResourceBody::Text(t) => string(t),
                    ResourceBody::Blob(b) => base64(b.len()),
                };
                string(uri) + optional(mime_type) + body + annotations(hints)
            }
            Content::ResourceLink {
                uri,
                name,
                title,
                description,
                mime_type,
                size,
                hints,
            } => {
                string(uri)
                    + string(name)
                    + optional(title)
                    + optional(description)
                    + optional(mime_type)
                    + size.map_or(0, |_| FIELD_COST + NUMBER_COST)
                    + annotations(hints)
            }
        };
        BLOCK_COST + body
    }

    fn annotations(hints: &Option<ContentHints>) -> u64 {
        let Some(h) = hints else { return 0 };
        let audience = if h.audience.is_empty() {
            0
        } else {
            FIELD_COST + AUDIENCE_COST * h.audience.len() as u64
        };
        FIELD_COST
            + audience
            + h.priority.map_or(0, |_| FIELD_COST + NUMBER_COST)
            + optional(&h.last_modified)
    }

    fn optional(s: &Option<String>) -> u64 {
        s.as_deref().map_or(0, |s| FIELD_COST + string(s))
    }

    /// The length of `s` as a JSON string: quotes included, `"` and `\`
    /// escaped with a backslash, control characters as `\n`-style escapes
    /// or `\u00XX` (as serde_json writes them).
    pub fn string(s: &str) -> u64 {
        let escaped: u64 = s
            .bytes()
            .map(|b| match b {
                b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
                0x00..=0x1f => 6,
                _ => 1,
            })
            .sum();
        2 + escaped
    }

    /// The length of `n` bytes in base64 (padded), quotes included.
    pub fn base64(n: usize) -> u64 {
        2 + (n as u64).div_ceil(3) * 4
    }

    /// The length of `value`'s compact JSON text, counted without building it.
    pub fn json(value: &Value) -> u64 {
        let mut counter = Counter(0);
        // Writing a `Value` fails only if the writer does; this one never does.
        match serde_json::to_writer(&mut counter, value) {
            Ok(()) => counter.0,
            Err(_) => u64::MAX,
        }
    }

    struct Counter(u64);

    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn strings_count_their_escaped_length() {
            assert_eq!(string(""), 2);
            assert_eq!(string("abc"), 5);
            assert_eq!(string("é"), 4);
            for s in [
                "a\"b\\c",
                "\n\r\t\u{8}\u{c}",
                "\u{1}\u{1f}\u{0}x",
                "\u{7f}/<>",
            ] {
                let real = serde_json::to_string(s).unwrap().len() as u64;
                assert_eq!(string(s), real, "{s:?}");
            }
            assert_eq!(string(&"\u{1}".repeat(1000)), 6002);
        }

        #[test]
        fn binary_data_counts_its_base64_length() {
            use base64::Engine as _;
            for n in [0, 1, 2, 3, 4, 100, 1001] {
                let encoded = base64::engine::general_purpose::STANDARD.encode(vec![7u8; n]);
                assert_eq!(base64(n), encoded.len() as u64 + 2, "{n}");
            }
        }

        #[test]
        fn structured_content_counts_its_json_text() {
            let v = serde_json::json!({"a": [1, 2.5, "x\u{1}"], "b": null});
            assert_eq!(json(&v), v.to_string().len() as u64);
        }
    }
}
