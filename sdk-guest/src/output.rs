//! Tool results and their content blocks.

use serde::Serialize;

/// What a tool call produced: content blocks, optional structured content,
/// and whether the call failed in a way the model should see.
///
/// Build one with a constructor ([`Output::text`], [`Output::json`],
/// [`Output::image`], ...), refine its last block with the builder methods
/// ([`Output::title`], [`Output::audience`], ...), and append more blocks
/// with [`Output::and`]:
///
/// ```
/// use mcp_wasm_sdk::prelude::*;
/// use mcp_wasm_sdk::Role;
///
/// let output = Output::text("Here is the report:")
///     .and(Output::resource_link("file:///report.pdf", "report").title("Report").size(2048))
///     .and("Anything else?")
///     .audience([Role::User]);
/// assert_eq!(output.content().len(), 3);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    content: Vec<Content>,
    structured_content: Option<String>,
    is_error: bool,
}

/// One block of a tool's result, covering every MCP content type.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Plain text.
    Text {
        /// The text itself.
        text: String,
        /// Optional hints on the block.
        annotations: Option<Annotations>,
    },
    /// An image.
    Image {
        /// The raw bytes; the host base64-encodes them.
        data: Vec<u8>,
        /// The MIME type, for example `image/png`.
        mime_type: String,
        /// Optional hints on the block.
        annotations: Option<Annotations>,
    },
    /// An audio clip.
    Audio {
        /// The raw bytes; the host base64-encodes them.
        data: Vec<u8>,
        /// The MIME type, for example `audio/wav`.
        mime_type: String,
        /// Optional hints on the block.
        annotations: Option<Annotations>,
    },
    /// A resource whose contents are embedded in the result.
    Resource {
        /// The resource's URI.
        uri: String,
        /// The MIME type of the contents, if known.
        mime_type: Option<String>,
        /// The contents.
        body: ResourceBody,
        /// Optional hints on the block.
        annotations: Option<Annotations>,
    },
    /// A link to a resource the client may fetch or subscribe to.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// A programmatic name for the resource.
        name: String,
        /// A human-readable name for display.
        title: Option<String>,
        /// What the resource is.
        description: Option<String>,
        /// The MIME type, if known.
        mime_type: Option<String>,
        /// The size in bytes, if known.
        size: Option<u64>,
        /// Optional hints on the block.
        annotations: Option<Annotations>,
    },
}

/// The body of an embedded resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text contents.
    Text(String),
    /// Binary contents; the host base64-encodes them.
    Blob(Vec<u8>),
}

/// Optional hints on a content block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotations {
    /// The intended readers; empty means no preference.
    pub audience: Vec<Role>,
    /// How important the block is, from 0 (least) to 1 (most).
    pub priority: Option<f64>,
    /// When the content was last modified, as an ISO 8601 timestamp.
    pub last_modified: Option<String>,
}

/// Who a piece of content is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

impl Content {
    /// The text of a [`Content::Text`] block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The block's annotations, if it has any.
    pub fn annotations(&self) -> Option<&Annotations> {
        match self {
            Self::Text { annotations, .. }
            | Self::Image { annotations, .. }
            | Self::Audio { annotations, .. }
            | Self::Resource { annotations, .. }
            | Self::ResourceLink { annotations, .. } => annotations.as_ref(),
        }
    }

    fn annotations_mut(&mut self) -> &mut Annotations {
        let annotations = match self {
            Self::Text { annotations, .. }
            | Self::Image { annotations, .. }
            | Self::Audio { annotations, .. }
            | Self::Resource { annotations, .. }
            | Self::ResourceLink { annotations, .. } => annotations,
        };
        annotations.get_or_insert_with(Annotations::default)
    }
}

impl Output {
    fn block(block: Content) -> Self {
        Self {
            content: vec![block],
            ..Self::default()
        }
    }

    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::block(Content::Text {
            text: text.into(),
            annotations: None,
        })
    }

    /// `value` as structured content, plus the same JSON as a text block for
    /// clients that do not read structured content. MCP expects structured
    /// content to be a JSON object, so `T` should serialize to one.
    ///
    /// If `value` cannot be serialized (a map with non-string keys, a failing
    /// `Serialize` impl), the result is an error output that says why.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Self {
        match serde_json::to_string(value) {
            Ok(json) => Self {
                content: vec![Content::Text {
                    text: json.clone(),
                    annotations: None,
                }],
                structured_content: Some(json),
                is_error: false,
            },
            Err(e) => Self::text(format!("cannot serialize the result: {e}")).error(),
        }
    }

    /// One image block: the raw bytes and their MIME type (`image/png`, ...).
    pub fn image(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Self::block(Content::Image {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
        })
    }

    /// One audio block: the raw bytes and their MIME type (`audio/wav`, ...).
    pub fn audio(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Self::block(Content::Audio {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
        })
    }

    /// One embedded resource with text contents.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::block(Content::Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Text(text.into()),
            annotations: None,
        })
    }

    /// One embedded resource with binary contents.
    pub fn resource_blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Self {
        Self::block(Content::Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Blob(data.into()),
            annotations: None,
        })
    }

    /// One link to a resource. Refine it with [`Output::title`],
    /// [`Output::description`], [`Output::mime_type`] and [`Output::size`].
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self::block(Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
        })
    }

    /// Appends the blocks of `other` (an [`Output`], a [`Content`] block or
    /// a string). The result is an error if either is; it keeps this output's
    /// structured content, or takes `other`'s if this one has none.
    pub fn and(mut self, other: impl Into<Output>) -> Self {
        let other = other.into();
        self.content.extend(other.content);
        self.is_error |= other.is_error;
        if self.structured_content.is_none() {
            self.structured_content = other.structured_content;
        }
        self
    }

    /// Marks the output as an error the model should see (MCP `isError`),
    /// without failing the call.
    pub fn error(mut self) -> Self {
        self.is_error = true;
        self
    }

    fn last(&mut self) -> Option<&mut Content> {
        self.content.last_mut()
    }

    /// Sets the title of the last block, if it is a resource link.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        if let Some(Content::ResourceLink { title: t, .. }) = self.last() {
            *t = Some(title.into());
        }
        self
    }

    /// Sets the description of the last block, if it is a resource link.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        if let Some(Content::ResourceLink { description: d, .. }) = self.last() {
            *d = Some(description.into());
        }
        self
    }

    /// Sets the MIME type of the last block (any kind but text).
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        match self.last() {
            Some(Content::Image { mime_type: m, .. } | Content::Audio { mime_type: m, .. }) => {
                *m = mime_type.into();
            }
            Some(
                Content::Resource { mime_type: m, .. } | Content::ResourceLink { mime_type: m, .. },
            ) => *m = Some(mime_type.into()),
            Some(Content::Text { .. }) | None => {}
        }
        self
    }

    /// Sets the size in bytes of the last block, if it is a resource link.
    pub fn size(mut self, size: u64) -> Self {
        if let Some(Content::ResourceLink { size: s, .. }) = self.last() {
            *s = Some(size);
        }
        self
    }

    /// Sets the intended readers of the last block.
    pub fn audience(mut self, audience: impl IntoIterator<Item = Role>) -> Self {
        if let Some(block) = self.last() {
            block.annotations_mut().audience = audience.into_iter().collect();
        }
        self
    }

    /// Sets the priority of the last block, from 0 (least) to 1 (most).
    pub fn priority(mut self, priority: f64) -> Self {
        if let Some(block) = self.last() {
            block.annotations_mut().priority = Some(priority);
        }
        self
    }

    /// Sets when the last block's content was last modified (ISO 8601).
    pub fn last_modified(mut self, timestamp: impl Into<String>) -> Self {
        if let Some(block) = self.last() {
            block.annotations_mut().last_modified = Some(timestamp.into());
        }
        self
    }

    /// The content blocks, in order.
    pub fn content(&self) -> &[Content] {
        &self.content
    }

    /// The structured content, serialized as JSON, if any.
    pub fn structured_content(&self) -> Option<&str> {
        self.structured_content.as_deref()
    }

    /// Whether the output is marked as an error.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// Splits the output into its parts: blocks, structured content, error
    /// flag.
    pub fn into_parts(self) -> (Vec<Content>, Option<String>, bool) {
        (self.content, self.structured_content, self.is_error)
    }
}

impl From<Content> for Output {
    fn from(block: Content) -> Self {
        Self::block(block)
    }
}

impl From<String> for Output {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for Output {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_sets_structured_content_and_text() {
        let output = Output::json(&serde_json::json!({"n": 1}));
        assert_eq!(output.structured_content(), Some(r#"{"n":1}"#));
        assert_eq!(output.content()[0].as_text(), Some(r#"{"n":1}"#));
        assert!(!output.is_error());
    }

    #[test]
    fn json_failure_is_an_error_output() {
        let map: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let output = Output::json(&map);
        assert!(output.is_error());
        assert!(output.structured_content().is_none());
    }

    #[test]
    fn and_concatenates_and_builders_apply_to_last_block() {
        let output = Output::text("a")
            .and(Output::resource_link("file:///x", "x").title("X").size(3))
            .and("b")
            .priority(0.5)
            .and(Output::text("c").error());
        assert!(output.is_error());
        let texts: Vec<_> = output
            .content()
            .iter()
            .filter_map(Content::as_text)
            .collect();
        assert_eq!(texts, ["a", "b", "c"]);
        assert_eq!(
            output.content()[1],
            Content::ResourceLink {
                uri: "file:///x".into(),
                name: "x".into(),
                title: Some("X".into()),
                description: None,
                mime_type: None,
                size: Some(3),
                annotations: None,
            }
        );
        assert_eq!(
            output.content()[2].annotations().and_then(|a| a.priority),
            Some(0.5)
        );
        assert!(output.content()[0].annotations().is_none());
    }
}
