//! Maps the runtime's types to rmcp's protocol types: tools (with the MCP
//! Apps `_meta.ui` of a tool with a view), content, results and receipts.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    Annotations, CallToolResult, ContentBlock, Icon, MetaObject, Resource, ResourceContents, Role,
    Tool, ToolAnnotations,
};
use serde_json::{Map, Value, json};

use crate::runtime::{
    Audience, Content, ContentHints, Icon as RuntimeIcon, IconTheme, Receipt, ResourceBody,
    ToolInfo, ToolOutput, ToolView,
};

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
    if !info.icons.is_empty() {
        tool = tool.with_icons(info.icons.iter().map(icon).collect());
    }
    if let Some(view) = &info.view {
        tool = tool.with_meta(tool_view_meta(view));
    }
    tool
}

/// The `_meta.ui` of a tool with a view (MCP Apps).
pub fn tool_view_meta(view: &ToolView) -> MetaObject {
    let mut ui = Map::new();
    ui.insert("resourceUri".into(), json!(view.resource_uri));
    if !view.model_visible {
        ui.insert("visibility".into(), json!(["app"]));
    }
    let mut meta = MetaObject::new();
    meta.insert("ui".into(), Value::Object(ui));
    meta
}

pub(crate) fn icon(i: &RuntimeIcon) -> Icon {
    let mut icon = Icon::new(i.src.clone());
    if let Some(m) = &i.mime_type {
        icon = icon.with_mime_type(m.clone());
    }
    if !i.sizes.is_empty() {
        icon = icon.with_sizes(i.sizes.clone());
    }
    if let Some(theme) = i.theme {
        icon = icon.with_theme(match theme {
            IconTheme::Light => rmcp::model::IconTheme::Light,
            IconTheme::Dark => rmcp::model::IconTheme::Dark,
        });
    }
    icon
}

pub(crate) fn annotations(hints: &Option<ContentHints>) -> Option<Annotations> {
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
    // NaN is not a priority (and would be written as `null`).
    a.priority = h
        .priority
        .filter(|p| !p.is_nan())
        .map(|p| p.clamp(0.0, 1.0) as f32);
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

/// The `_meta` key of a call's receipt: a prefix this project owns (the
/// spec reserves those whose second label is `modelcontextprotocol` or
/// `mcp`).
pub const RECEIPT_KEY: &str = "mcp-wasm-host/receipt";

/// `result` with the call's receipt, if it has one, in its `_meta`.
pub fn with_receipt(mut result: CallToolResult, receipt: Option<&Receipt>) -> CallToolResult {
    receipt_meta(&mut result.meta, receipt);
    result
}

/// Adds `receipt` (if any) to a result's `_meta`, under [`RECEIPT_KEY`].
pub fn receipt_meta(meta: &mut Option<MetaObject>, receipt: Option<&Receipt>) {
    let Some(r) = receipt else {
        return;
    };
    let record = json!({
        "plugin": &*r.plugin,
        "sha256": r.digest.to_string(),
        "tool": r.tool,
        "outcome": r.outcome,
        "fuelUsed": r.fuel_used,
        "peakMemoryBytes": r.peak_memory,
        "wallTimeMs": r.wall_time_ms(),
    });
    meta.get_or_insert_with(MetaObject::default)
        .0
        .insert(RECEIPT_KEY.into(), record);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_priority_is_clamped_into_zero_to_one_and_nan_is_left_out() {
        let priority = |p: f64| {
            let hints = Some(ContentHints {
                priority: Some(p),
                ..ContentHints::default()
            });
            annotations(&hints).and_then(|a| a.priority)
        };
        assert_eq!(priority(0.5), Some(0.5));
        assert_eq!(priority(7.0), Some(1.0));
        assert_eq!(priority(f64::NEG_INFINITY), Some(0.0));
        assert_eq!(priority(f64::NAN), None);
    }
}
