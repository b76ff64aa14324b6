//! What a guest produces for the client, seen as fields a capability may
//! rewrite on the way out (the secrets capability redacts them): each type
//! a guest's result or request to the client becomes lists every text,
//! binary and JSON field it carries here, so that a field added to one of
//! them is added here, beside it, or fails to compile: every struct is
//! destructured whole (a field that carries nothing to rewrite is named
//! `field: _`), every enum matched without a wildcard.

use serde_json::Value;

use std::sync::Arc;

use serde_json::Map;

use crate::call::events::{
    ElicitationRequest, ModelPreferences, Progress, SamplingContent, SamplingMessage,
    SamplingRequest,
};
use crate::definitions::icons::Icon;
use crate::definitions::output::{
    Content, ContentHints, ResourceBody, ToolHints, ToolOutput, ToolView,
};
use crate::definitions::schema::Schema;
use crate::definitions::served::{
    Completion, PromptArgument, PromptInfo, PromptOutput, ResourceInfo, ResourcePart, Served,
    TemplateInfo, ViewCsp, ViewSettings,
};
use crate::definitions::tool::PluginTool;

/// One field of a guest's product.
#[derive(Debug)]
pub enum Field<'a> {
    /// Text.
    Text(&'a mut String),
    /// Binary data (the client receives it as base64).
    Bytes(&'a mut Vec<u8>),
    /// A JSON tree (structured content, a requested schema).
    Json(&'a mut Value),
}

/// Something a guest produced that leaves the host toward the client.
pub trait Outbound {
    /// Calls `visit` on every field the client receives.
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>));
}

fn text(s: &mut String, visit: &mut dyn FnMut(Field<'_>)) {
    visit(Field::Text(s));
}

fn optional(s: &mut Option<String>, visit: &mut dyn FnMut(Field<'_>)) {
    if let Some(s) = s {
        visit(Field::Text(s));
    }
}

impl Outbound for String {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        text(self, visit);
    }
}

impl<T: Outbound + ?Sized> Outbound for Box<T> {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        (**self).fields(visit);
    }
}

impl<T: Outbound> Outbound for Vec<T> {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        for item in self {
            item.fields(visit);
        }
    }
}

impl Outbound for ContentHints {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let ContentHints {
            audience: _,
            priority: _,
            last_modified,
        } = self;
        optional(last_modified, visit);
    }
}

impl Outbound for ResourceBody {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        match self {
            ResourceBody::Text(t) => text(t, visit),
            ResourceBody::Blob(b) => visit(Field::Bytes(b)),
        }
    }
}

impl Outbound for Content {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let hints = match self {
            Content::Text { text: t, hints } => {
                text(t, visit);
                hints
            }
            Content::Image {
                data,
                mime_type,
                hints,
            }
            | Content::Audio {
                data,
                mime_type,
                hints,
            } => {
                visit(Field::Bytes(data));
                text(mime_type, visit);
                hints
            }
            Content::Resource {
                uri,
                mime_type,
                body,
                hints,
            } => {
                text(uri, visit);
                optional(mime_type, visit);
                body.fields(visit);
                hints
            }
            Content::ResourceLink {
                uri,
                name,
                title,
                description,
                mime_type,
                size: _,
                hints,
            } => {
                text(uri, visit);
                text(name, visit);
                optional(title, visit);
                optional(description, visit);
                optional(mime_type, visit);
                hints
            }
        };
        if let Some(hints) = hints {
            hints.fields(visit);
        }
    }
}

impl Outbound for ToolOutput {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let ToolOutput {
            content,
            structured,
            is_error: _,
        } = self;
        content.fields(visit);
        if let Some(structured) = structured {
            visit(Field::Json(structured));
        }
    }
}

impl Outbound for ResourcePart {
    /// The URI, MIME type and body the guest returned; the view settings
    /// come from the plugin's listing, not from this read.
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let ResourcePart {
            uri,
            mime_type,
            body,
            view: _,
        } = self;
        text(uri, visit);
        optional(mime_type, visit);
        body.fields(visit);
    }
}

impl Outbound for PromptOutput {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let PromptOutput {
            description,
            messages,
        } = self;
        optional(description, visit);
        for (_, content) in messages {
            content.fields(visit);
        }
    }
}

impl Outbound for Completion {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let Completion {
            values,
            total: _,
            has_more: _,
        } = self;
        texts(values, visit);
    }
}

impl Outbound for SamplingContent {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        match self {
            SamplingContent::Text(t) => text(t, visit),
            SamplingContent::Image { data, mime_type }
            | SamplingContent::Audio { data, mime_type } => {
                visit(Field::Bytes(data));
                text(mime_type, visit);
            }
        }
    }
}

impl Outbound for SamplingRequest {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let SamplingRequest {
            messages,
            system_prompt,
            max_tokens: _,
            temperature: _,
            stop_sequences,
            model_preferences,
            include_context: _,
        } = self;
        for SamplingMessage { role: _, content } in messages {
            content.fields(visit);
        }
        optional(system_prompt, visit);
        texts(stop_sequences, visit);
        if let Some(ModelPreferences {
            hints,
            cost_priority: _,
            speed_priority: _,
            intelligence_priority: _,
        }) = model_preferences
        {
            texts(hints, visit);
        }
    }
}

impl Outbound for ElicitationRequest {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let ElicitationRequest {
            message,
            requested_schema,
        } = self;
        text(message, visit);
        visit(Field::Json(requested_schema));
    }
}

impl Outbound for Progress {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let Progress {
            progress: _,
            total: _,
            message,
        } = self;
        optional(message, visit);
    }
}

// What a plugin lists at load (its catalog): every field the client
// receives from tools/list, resources/list, resources/templates/list,
// prompts/list and `inspect`, except the identities (a tool's or prompt's
// name, a prompt argument's name, a resource's URI, a template's URI
// template, a view's tool and URI): a rewritten identity would name
// nothing, so an entry whose identity holds a secret is left out instead
// (see `egress::identities`). Each impl destructures its type whole, so a
// field added to it fails to compile here until it is listed.

fn texts(list: &mut [String], visit: &mut dyn FnMut(Field<'_>)) {
    for s in list {
        visit(Field::Text(s));
    }
}

/// A JSON object (a schema) as a JSON tree.
fn object(json: &mut Map<String, Value>, visit: &mut dyn FnMut(Field<'_>)) {
    let mut tree = Value::Object(std::mem::take(json));
    visit(Field::Json(&mut tree));
    if let Value::Object(rewritten) = tree {
        *json = rewritten;
    }
}

impl Outbound for Icon {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let Icon {
            src,
            mime_type,
            sizes,
            theme: _,
        } = self;
        text(src, visit);
        optional(mime_type, visit);
        texts(sizes, visit);
    }
}

impl Outbound for ToolHints {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let ToolHints {
            title,
            read_only: _,
            destructive: _,
            idempotent: _,
            open_world: _,
        } = self;
        optional(title, visit);
    }
}

impl Outbound for Schema {
    /// The copy the client receives; calls are still validated against the
    /// schema as the plugin gave it.
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        object(&mut self.json, visit);
    }
}

impl Outbound for PluginTool {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let PluginTool {
            name: _,
            title,
            description,
            input,
            output,
            hints,
            icons,
            task_support: _,
        } = self;
        optional(title, visit);
        text(description, visit);
        input.fields(visit);
        if let Some(output) = output {
            // At load, where the catalog is rewritten, the schema has just
            // been compiled and nothing else holds it.
            match Arc::get_mut(output) {
                Some(schema) => schema.fields(visit),
                None => unreachable_shared(),
            }
        }
        hints.fields(visit);
        icons.fields(visit);
    }
}

/// An output schema already shared cannot be rewritten in place: never the
/// case at load; a debug build says so loudly.
fn unreachable_shared() {
    debug_assert!(
        false,
        "an output schema is shared before the catalog is rewritten"
    );
}

impl Outbound for ToolView {
    fn fields(&mut self, _: &mut dyn FnMut(Field<'_>)) {
        let ToolView {
            resource_uri: _,
            model_visible: _,
        } = self;
    }
}

impl Outbound for ViewCsp {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let ViewCsp {
            connect_domains,
            resource_domains,
            frame_domains,
            base_uri_domains,
        } = self;
        texts(connect_domains, visit);
        texts(resource_domains, visit);
        texts(frame_domains, visit);
        texts(base_uri_domains, visit);
    }
}

impl Outbound for ViewSettings {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let ViewSettings {
            csp,
            permissions: _,
            domain,
            prefers_border: _,
        } = self;
        if let Some(csp) = csp {
            csp.fields(visit);
        }
        optional(domain, visit);
    }
}

impl Outbound for ResourceInfo {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let ResourceInfo {
            uri: _,
            name,
            title,
            description,
            mime_type,
            size: _,
            hints,
            icons,
            view,
        } = self;
        text(name, visit);
        optional(title, visit);
        optional(description, visit);
        optional(mime_type, visit);
        if let Some(hints) = hints {
            hints.fields(visit);
        }
        icons.fields(visit);
        if let Some(view) = view {
            view.fields(visit);
        }
    }
}

impl Outbound for TemplateInfo {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let TemplateInfo {
            uri_template: _,
            // Compiled from `uri_template`, an identity: an entry whose
            // template holds a secret is left out, never rewritten.
            pattern: _,
            name,
            title,
            description,
            mime_type,
            hints,
            icons,
        } = self;
        text(name, visit);
        optional(title, visit);
        optional(description, visit);
        optional(mime_type, visit);
        if let Some(hints) = hints {
            hints.fields(visit);
        }
        icons.fields(visit);
    }
}

impl Outbound for PromptArgument {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let PromptArgument {
            name: _,
            title,
            description,
            required: _,
        } = self;
        optional(title, visit);
        optional(description, visit);
    }
}

impl Outbound for PromptInfo {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let PromptInfo {
            name: _,
            title,
            description,
            arguments,
            icons,
        } = self;
        optional(title, visit);
        optional(description, visit);
        arguments.fields(visit);
        icons.fields(visit);
    }
}

impl Outbound for Served {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        let Served {
            resources,
            templates,
            prompts,
            views,
            completes: _,
        } = self;
        resources.fields(visit);
        templates.fields(visit);
        prompts.fields(visit);
        for view in views.values_mut() {
            view.fields(visit);
        }
    }
}
