//! Maps the runtime's types to rmcp's protocol types.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    Annotations, CallToolResult, ContentBlock, Resource, ResourceContents, Role, Tool,
    ToolAnnotations,
};

use crate::runtime::{Audience, Content, ContentHints, ResourceBody, ToolInfo, ToolOutput};

/// A catalog entry as an MCP tool.
pub fn tool(info: &ToolInfo) -> Tool {
    let mut tool = Tool::new(
        info.name.clone(),
        info.description.clone(),
        Arc::new(info.input_schema.clone()),
    );
    if let Some(title) = &info.title {
        tool = tool.with_title(title.clone());
    }
    if let Some(schema) = &info.output_schema {
        tool = tool.with_raw_output_schema(Arc::new(schema.clone()));
    }
    let h = &info.hints;
    if h.title.is_some()
        || h.read_only.is_some()
        || h.destructive.is_some()
        || h.idempotent.is_some()
        || h.open_world.is_some()
    {
        let mut a = ToolAnnotations::new();
        a.title = h.title.clone();
        a.read_only_hint = h.read_only;
        a.destructive_hint = h.destructive;
        a.idempotent_hint = h.idempotent;
        a.open_world_hint = h.open_world;
        tool = tool.with_annotations(a);
    }
    tool
}

fn annotations(hints: &Option<ContentHints>) -> Option<Annotations> {
    let h = hints.as_ref()?;
    let mut a = Annotations::default();
    if !h.audience.is_empty() {
        a.audience = Some(
            h.audience
                .iter()
                .map(|r| match r {
                    Audience::User => Role::User,
                    Audience::Assistant => Role::Assistant,
                })
                .collect(),
        );
    }
    a.priority = h.priority.map(|p| p.clamp(0.0, 1.0) as f32);
    a.last_modified = h.last_modified.clone();
    Some(a)
}

/// One content block.
pub fn content(block: &Content) -> ContentBlock {
    match block {
        Content::Text { text, hints } => with(ContentBlock::text(text.clone()), hints),
        Content::Image {
            data,
            mime_type,
            hints,
        } => with(
            ContentBlock::image(STANDARD.encode(data), mime_type.clone()),
            hints,
        ),
        Content::Audio {
            data,
            mime_type,
            hints,
        } => with(
            ContentBlock::audio(STANDARD.encode(data), mime_type.clone()),
            hints,
        ),
        Content::Resource {
            uri,
            mime_type,
            body,
            hints,
        } => {
            let mut contents = match body {
                ResourceBody::Text(t) => ResourceContents::text(t.clone(), uri.clone()),
                ResourceBody::Blob(b) => ResourceContents::blob(STANDARD.encode(b), uri.clone()),
            };
            if let Some(m) = mime_type {
                contents = contents.with_mime_type(m.clone());
            }
            with(ContentBlock::resource(contents), hints)
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
            let mut r = Resource::new(uri.clone(), name.clone());
            if let Some(t) = title {
                r = r.with_title(t.clone());
            }
            if let Some(d) = description {
                r = r.with_description(d.clone());
            }
            if let Some(m) = mime_type {
                r = r.with_mime_type(m.clone());
            }
            if let Some(s) = size {
                r = r.with_size(*s);
            }
            with(ContentBlock::resource_link(r), hints)
        }
    }
}

fn with(block: ContentBlock, hints: &Option<ContentHints>) -> ContentBlock {
    let Some(a) = annotations(hints) else {
        return block;
    };
    match block {
        ContentBlock::Text(c) => ContentBlock::Text(c.with_annotations(a)),
        ContentBlock::Image(c) => ContentBlock::Image(c.with_annotations(a)),
        ContentBlock::Audio(c) => ContentBlock::Audio(c.with_annotations(a)),
        ContentBlock::Resource(c) => ContentBlock::Resource(c.with_annotations(a)),
        ContentBlock::ResourceLink(c) => ContentBlock::ResourceLink(c.with_annotations(a)),
        other => other,
    }
}

/// A successful call's output as a `tools/call` result.
pub fn output(out: &ToolOutput) -> CallToolResult {
    let content = out.content.iter().map(content).collect();
    let mut result = if out.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = out.structured.clone();
    result
}

/// A failure the model should read, as a result with `isError: true`.
pub fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}
