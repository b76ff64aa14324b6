//! Resources, templates, views, prompts and completions as MCP's types
//! (rmcp's models): the runtime's descriptions and results mapped for
//! `resources/*`, `prompts/*` and `completion/complete`, the MCP Apps
//! `_meta.ui` of views (a tool's is in [`super::convert`]), and the
//! JSON-RPC errors of each failure.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CompleteResult, CompletionInfo, GetPromptResult, MetaObject, Prompt, PromptArgument,
    PromptMessage, Resource, ResourceContents, ResourceTemplate, Role,
};
use serde_json::{Map, Value, json};

use super::convert::{annotations, content, icon};
use crate::runtime::{
    Audience, Completion, PromptInfo, PromptOutput, ResourceInfo, ResourcePart, ServeError,
    TemplateInfo, ViewSettings,
};

/// The `_meta.ui` of a view resource or its contents.
fn view_meta(view: &ViewSettings) -> MetaObject {
    let mut ui = Map::new();
    if let Some(csp) = &view.csp {
        let mut c = Map::new();
        for (key, list) in [
            ("connectDomains", &csp.connect_domains),
            ("resourceDomains", &csp.resource_domains),
            ("frameDomains", &csp.frame_domains),
            ("baseUriDomains", &csp.base_uri_domains),
        ] {
            if !list.is_empty() {
                c.insert(key.into(), json!(list));
            }
        }
        ui.insert("csp".into(), Value::Object(c));
    }
    if let Some(p) = &view.permissions {
        let mut m = Map::new();
        for (key, on) in [
            ("camera", p.camera),
            ("microphone", p.microphone),
            ("geolocation", p.geolocation),
            ("clipboardWrite", p.clipboard_write),
        ] {
            if on {
                m.insert(key.into(), json!({}));
            }
        }
        ui.insert("permissions".into(), Value::Object(m));
    }
    if let Some(domain) = &view.domain {
        ui.insert("domain".into(), json!(domain));
    }
    if let Some(border) = view.prefers_border {
        ui.insert("prefersBorder".into(), json!(border));
    }
    let mut meta = MetaObject::new();
    meta.insert("ui".into(), Value::Object(ui));
    meta
}

/// A listed resource.
pub fn resource(info: &ResourceInfo) -> Resource {
    let mut r = Resource::new(info.uri.clone(), info.name.clone());
    r.title = info.title.clone();
    r.description = info.description.clone();
    r.mime_type = info.mime_type.clone();
    r.size = info.size;
    r.annotations = annotations(&info.hints);
    if !info.icons.is_empty() {
        r.icons = Some(info.icons.iter().map(icon).collect());
    }
    r.meta = info.view.as_ref().map(view_meta);
    r
}

/// A listed resource template.
pub fn template(info: &TemplateInfo) -> ResourceTemplate {
    let mut t = ResourceTemplate::new(info.uri_template.clone(), info.name.clone());
    t.title = info.title.clone();
    t.description = info.description.clone();
    t.mime_type = info.mime_type.clone();
    t.annotations = annotations(&info.hints);
    if !info.icons.is_empty() {
        t.icons = Some(info.icons.iter().map(icon).collect());
    }
    t
}

/// One part of a read resource.
pub fn part(part: &ResourcePart) -> ResourceContents {
    let meta = part.view.as_ref().map(view_meta);
    match &part.body {
        crate::runtime::ResourceBody::Text(text) => ResourceContents::TextResourceContents {
            uri: part.uri.clone(),
            mime_type: part.mime_type.clone(),
            text: text.clone(),
            meta,
        },
        crate::runtime::ResourceBody::Blob(data) => ResourceContents::BlobResourceContents {
            uri: part.uri.clone(),
            mime_type: part.mime_type.clone(),
            blob: STANDARD.encode(data),
            meta,
        },
    }
}

/// A listed prompt under the name clients use.
pub fn prompt(name: &str, info: &PromptInfo) -> Prompt {
    let arguments = (!info.arguments.is_empty()).then(|| {
        info.arguments
            .iter()
            .map(|a| {
                let mut arg = PromptArgument::new(a.name.clone()).with_required(a.required);
                arg.title = a.title.clone();
                arg.description = a.description.clone();
                arg
            })
            .collect()
    });
    let mut p = Prompt::new(name, info.description.clone(), arguments);
    p.title = info.title.clone();
    if !info.icons.is_empty() {
        p.icons = Some(info.icons.iter().map(icon).collect());
    }
    p
}

/// A prompt filled in.
pub fn prompt_result(output: &PromptOutput) -> GetPromptResult {
    let messages = output
        .messages
        .iter()
        .map(|(who, block)| {
            let role = match who {
                Audience::User => Role::User,
                Audience::Assistant => Role::Assistant,
            };
            PromptMessage::new(role, content(block))
        })
        .collect();
    let mut result = GetPromptResult::new(messages);
    result.description = output.description.clone();
    result
}

/// Suggested values.
pub fn completion(c: &Completion) -> CompleteResult {
    // The runtime holds values to MCP's limit, so `new` cannot refuse them.
    let mut info = CompletionInfo::new(c.values.clone()).unwrap_or_default();
    info.total = c.total;
    info.has_more = Some(c.has_more);
    CompleteResult::new(info)
}

/// The JSON-RPC error a failed read, prompt or completion answers with:
/// unknown names and unusable arguments are the client's mistake
/// (`-32602`; rmcp's resource-not-found code for a URI, with the URI in
/// `data`), and every other failure (a trap, a limit, a guest error) is
/// `-32603` whose message says what happened and, for a limit, which
/// policy key raises it, in the words a tool's `isError` result uses: the
/// same for the four surfaces.
pub fn error(e: &ServeError) -> McpError {
    match e {
        ServeError::ResourceNotFound(uri) => {
            McpError::resource_not_found(e.to_string(), Some(json!({ "uri": uri })))
        }
        ServeError::PromptNotFound(_)
        | ServeError::TemplateNotFound(_)
        | ServeError::InvalidArguments(_) => McpError::invalid_params(e.to_string(), None),
        ServeError::Failed(failure) => McpError::internal_error(failure.to_string(), None),
    }
}
