//! What a guest produces for the client, seen as fields a capability may
//! rewrite on the way out (the secrets capability redacts them): each type
//! a guest's result or request to the client becomes lists every text,
//! binary and JSON field it carries here, so that a field added to one of
//! them is added here, beside it, or fails to compile.

use serde_json::Value;

use super::events::{ElicitationRequest, Progress, SamplingContent, SamplingRequest};
use super::output::{Content, ContentHints, ResourceBody, ToolOutput};
use super::served::{Completion, PromptOutput, ResourcePart};

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
        optional(&mut self.last_modified, visit);
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
        self.content.fields(visit);
        if let Some(structured) = &mut self.structured {
            visit(Field::Json(structured));
        }
    }
}

impl Outbound for ResourcePart {
    /// The URI, MIME type and body the guest returned; the view settings
    /// come from the plugin's listing, not from this read.
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        text(&mut self.uri, visit);
        optional(&mut self.mime_type, visit);
        self.body.fields(visit);
    }
}

impl Outbound for PromptOutput {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        optional(&mut self.description, visit);
        for (_, content) in &mut self.messages {
            content.fields(visit);
        }
    }
}

impl Outbound for Completion {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        for value in &mut self.values {
            text(value, visit);
        }
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
        for message in &mut self.messages {
            message.content.fields(visit);
        }
        optional(&mut self.system_prompt, visit);
        for stop in &mut self.stop_sequences {
            text(stop, visit);
        }
        if let Some(preferences) = &mut self.model_preferences {
            for hint in &mut preferences.hints {
                text(hint, visit);
            }
        }
    }
}

impl Outbound for ElicitationRequest {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        text(&mut self.message, visit);
        visit(Field::Json(&mut self.requested_schema));
    }
}

impl Outbound for Progress {
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        optional(&mut self.message, visit);
    }
}
