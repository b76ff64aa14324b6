//! The `resources`, `prompts` and `completions` exports of a plugin: a
//! [`Plugin`]'s router turned into the WIT types (used by
//! [`export_plugin!`](crate::export_plugin)).

use crate::__private::bindings::exports::mcp_wasm_host::plugin::{
    completions as wc, prompts as wp, resources as wr,
};
use crate::__private::bindings::mcp_wasm_host::plugin::{errors, types as wit};
use crate::serve::{Target, View};
use crate::{MAX_COMPLETIONS, Plugin, ResourceBody, Role, ToolError, Vars};

/// The WIT error of a handler's error: an unknown tool, resource or prompt
/// is `not-found`.
fn serve_error(error: ToolError) -> errors::ServeError {
    match error {
        ToolError::InvalidArguments(m) => errors::ServeError::InvalidArguments(m),
        ToolError::UnknownTool(m) => errors::ServeError::NotFound(m),
        ToolError::Denied(m) => errors::ServeError::Denied(m),
        ToolError::Failed(m) => errors::ServeError::Failed(m),
    }
}

fn view(v: View) -> wr::ViewSettings {
    wr::ViewSettings {
        csp: Some(wr::ViewCsp {
            connect_domains: v.connect_domains,
            resource_domains: v.resource_domains,
            frame_domains: v.frame_domains,
            base_uri_domains: v.base_uri_domains,
        }),
        permissions: Some(wr::ViewPermissions {
            camera: v.camera,
            microphone: v.microphone,
            geolocation: v.geolocation,
            clipboard_write: v.clipboard_write,
        }),
        domain: v.domain,
        prefers_border: v.prefers_border,
    }
}

/// `list-resources` for plugin `P`.
pub fn list_resources<P: Plugin>() -> Vec<wr::ResourceDefinition> {
    P::router()
        .resources()
        .into_iter()
        .map(|d| wr::ResourceDefinition {
            uri: d.uri,
            name: d.name,
            title: d.title,
            description: d.description,
            mime_type: d.mime_type,
            size: d.size,
            annotations: None,
            icons: Vec::new(),
            view: d.view.map(view),
        })
        .collect()
}

/// `list-resource-templates` for plugin `P`.
pub fn list_resource_templates<P: Plugin>() -> Vec<wr::ResourceTemplate> {
    P::router()
        .templates()
        .into_iter()
        .map(|d| wr::ResourceTemplate {
            uri_template: d.uri_template,
            name: d.name,
            title: d.title,
            description: d.description,
            mime_type: d.mime_type,
            annotations: None,
            icons: Vec::new(),
        })
        .collect()
}

/// `list-tool-views` for plugin `P`.
pub fn list_tool_views<P: Plugin>() -> Vec<wr::ToolView> {
    P::router()
        .defs()
        .filter_map(|def| {
            def.get_view().map(|(uri, model_visible)| wr::ToolView {
                tool: def.name().to_owned(),
                resource_uri: uri.to_owned(),
                model_visible,
            })
        })
        .collect()
}

/// `read-resource` for plugin `P`.
pub fn read_resource<P: Plugin>(
    uri: &str,
) -> Result<Vec<wr::ResourceContents>, errors::ServeError> {
    let contents = P::router().read(uri).map_err(serve_error)?;
    Ok(contents
        .parts
        .into_iter()
        .map(|p| wr::ResourceContents {
            uri: p.uri,
            mime_type: p.mime_type,
            body: match p.body {
                ResourceBody::Text(t) => wit::ResourceBody::Text(t),
                ResourceBody::Blob(b) => wit::ResourceBody::Blob(b),
            },
        })
        .collect())
}

/// `list-prompts` for plugin `P`.
pub fn list_prompts<P: Plugin>() -> Vec<wp::PromptDefinition> {
    P::router()
        .prompts()
        .into_iter()
        .map(|d| wp::PromptDefinition {
            name: d.name,
            title: d.title,
            description: d.description,
            arguments: d
                .arguments
                .into_iter()
                .map(|a| wp::PromptArgument {
                    name: a.name,
                    title: None,
                    description: a.description,
                    required: a.required,
                })
                .collect(),
            icons: Vec::new(),
        })
        .collect()
}

/// `get-prompt` for plugin `P`.
pub fn get_prompt<P: Plugin>(
    name: &str,
    arguments: Vec<(String, String)>,
) -> Result<wp::PromptResult, errors::ServeError> {
    let arguments: Vars = arguments.into_iter().collect();
    let messages = P::router()
        .get_prompt(name, &arguments)
        .map_err(serve_error)?;
    Ok(wp::PromptResult {
        description: messages.description,
        messages: messages
            .messages
            .into_iter()
            .map(|(role, content)| wp::PromptMessage {
                role: match role {
                    Role::User => wit::Role::User,
                    Role::Assistant => wit::Role::Assistant,
                },
                content: crate::__private::block(content),
            })
            .collect(),
    })
}

/// `complete` for plugin `P`.
pub fn complete<P: Plugin>(
    request: wc::CompletionRequest,
) -> Result<wc::Completion, errors::ServeError> {
    let target = match request.target {
        wc::CompletionTarget::Prompt(name) => Target::Prompt(name),
        wc::CompletionTarget::ResourceTemplate(template) => Target::Template(template),
    };
    let context: Vars = request.context.into_iter().collect();
    let mut values = P::router().complete(&target, &request.argument, &request.value, &context);
    let total = values.len();
    values.truncate(MAX_COMPLETIONS);
    Ok(wc::Completion {
        has_more: total > values.len(),
        total: Some(u32::try_from(total).unwrap_or(u32::MAX)),
        values,
    })
}
