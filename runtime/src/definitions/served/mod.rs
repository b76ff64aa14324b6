//! What a plugin serves besides tools (WIT 0.2.1): resources, resource
//! templates, interactive views (MCP Apps), prompts and completions — the
//! runtime's own types, converted from the WIT's, and the checks a plugin's
//! lists pass when it loads.

use std::collections::{HashMap, HashSet};

use crate::definitions::icons::{self, Icon};
use crate::definitions::output::ToolView;
use crate::definitions::output::{Audience, Content, ContentHints, ResourceBody};
use crate::definitions::schema::{MAX_TOOL_NAME, check_tool_name};
use crate::definitions::uri_match::UriPattern;
use crate::error::{GuestErrorKind, clip};
use crate::load::bindings::exports::mcp_wasm_host::plugin::{
    completions as wc, prompts as wp, resources as wr,
};
use crate::load::bindings::mcp_wasm_host::plugin::errors::ServeError as WitServeError;

/// The MIME type of an interactive view (MCP Apps).
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The longest URI or URI template a plugin may list, in bytes.
pub const MAX_URI: usize = 2048;

/// The most values one completion carries (MCP's limit).
pub const MAX_COMPLETIONS: usize = 100;

/// Origins an interactive view may reach (MCP Apps `_meta.ui.csp`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewCsp {
    /// For `fetch`, XHR and WebSocket.
    pub connect_domains: Vec<String>,
    /// For images, scripts, styles, fonts and media.
    pub resource_domains: Vec<String>,
    /// For frames.
    pub frame_domains: Vec<String>,
    /// For the document's base URI.
    pub base_uri_domains: Vec<String>,
}

/// Browser permissions a view asks for (MCP Apps `_meta.ui.permissions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ViewPermissions {
    /// The camera.
    pub camera: bool,
    /// The microphone.
    pub microphone: bool,
    /// The device's location.
    pub geolocation: bool,
    /// Clipboard writes.
    pub clipboard_write: bool,
}

/// What makes a resource an interactive view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewSettings {
    /// Origins it may reach.
    pub csp: Option<ViewCsp>,
    /// Permissions it asks for.
    pub permissions: Option<ViewPermissions>,
    /// A dedicated origin for it.
    pub domain: Option<String>,
    /// Whether the client should draw a border around it.
    pub prefers_border: Option<bool>,
}

/// A resource a plugin lists.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceInfo {
    /// Its URI, as the plugin writes it.
    pub uri: String,
    /// A programmatic name.
    pub name: String,
    /// A display name.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its size in bytes.
    pub size: Option<u64>,
    /// Hints for the client.
    pub hints: Option<ContentHints>,
    /// Icons.
    pub icons: Vec<Icon>,
    /// Set for an interactive view.
    pub view: Option<ViewSettings>,
}

/// A resource template a plugin lists.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateInfo {
    /// The URI template (`{name}`: one path segment, `{+name}`: any text).
    pub uri_template: String,
    /// A programmatic name.
    pub name: String,
    /// A display name.
    pub title: Option<String>,
    /// What the resources are.
    pub description: Option<String>,
    /// Their MIME type.
    pub mime_type: Option<String>,
    /// Hints for the client.
    pub hints: Option<ContentHints>,
    /// Icons.
    pub icons: Vec<Icon>,
    /// The template compiled for matching URIs.
    pub(crate) pattern: UriPattern,
}

impl TemplateInfo {
    /// Whether `uri` matches the template: `{name}` matches one or more
    /// characters other than `/`, `{+name}` one or more of any; the rest
    /// must match exactly. Linear in the URI's length (see
    /// `uri_match`).
    pub fn matches(&self, uri: &str) -> bool {
        self.pattern.is_match(uri)
    }
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A display name.
    pub title: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

/// A prompt a plugin offers.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptInfo {
    /// Its name, as the plugin gives it.
    pub name: String,
    /// A display name.
    pub title: Option<String>,
    /// What it does.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgument>,
    /// Icons.
    pub icons: Vec<Icon>,
}

/// One part of a resource's contents.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourcePart {
    /// Its URI.
    pub uri: String,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// The text or bytes.
    pub body: ResourceBody,
    /// The view settings of the listed resource with this URI, if it is a
    /// view.
    pub view: Option<ViewSettings>,
}

/// A prompt filled in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptOutput {
    /// A description of this result.
    pub description: Option<String>,
    /// Its messages: who speaks and what.
    pub messages: Vec<(Audience, Content)>,
}

/// What a completion request completes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionTarget {
    /// An argument of the prompt with this name (as clients see it).
    Prompt(String),
    /// A variable of the resource template with this URI template.
    Template(String),
}

/// Suggested values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// At most `MAX_COMPLETIONS` values.
    pub values: Vec<String>,
    /// How many there are in all, if known.
    pub total: Option<u32>,
    /// Whether there are more.
    pub has_more: bool,
}

/// Everything a plugin serves besides tools, checked.
#[derive(Debug, Clone, Default)]
pub struct Served {
    /// Its resources, in its order.
    pub resources: Vec<ResourceInfo>,
    /// Its templates, in its order.
    pub templates: Vec<TemplateInfo>,
    /// Its prompts, in its order.
    pub prompts: Vec<PromptInfo>,
    /// Its tools' views, by tool name.
    pub views: HashMap<String, ToolView>,
    /// Whether it exports `completions`.
    pub completes: bool,
}

impl Served {
    /// Whether the plugin serves nothing but tools.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.templates.is_empty() && self.prompts.is_empty()
    }

    /// The listed resource at `uri`.
    pub fn resource(&self, uri: &str) -> Option<&ResourceInfo> {
        self.resources.iter().find(|r| r.uri == uri)
    }

    /// The prompt the plugin calls `name`.
    pub fn prompt(&self, name: &str) -> Option<&PromptInfo> {
        self.prompts.iter().find(|p| p.name == name)
    }
}

/// The raw lists a plugin returned at load.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    pub resources: Vec<wr::ResourceDefinition>,
    pub templates: Vec<wr::ResourceTemplate>,
    pub views: Vec<wr::ToolView>,
    pub prompts: Vec<wp::PromptDefinition>,
    pub completes: bool,
}

impl Listing {
    /// How many entries, and how many bytes of text, the lists hold (held
    /// to the plugin's `max_tools` and `max_tool_list_size`).
    pub fn size(&self) -> (usize, u64) {
        let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let mut bytes = 0;
        for r in &self.resources {
            bytes += r.uri.len() + r.name.len() + opt(&r.title) + opt(&r.description);
            bytes += opt(&r.mime_type) + icons::size(&r.icons);
            if let Some(v) = &r.view {
                bytes += opt(&v.domain);
                if let Some(c) = &v.csp {
                    for list in [
                        &c.connect_domains,
                        &c.resource_domains,
                        &c.frame_domains,
                        &c.base_uri_domains,
                    ] {
                        bytes += list.iter().map(String::len).sum::<usize>();
                    }
                }
            }
        }
        for t in &self.templates {
            bytes += t.uri_template.len() + t.name.len() + opt(&t.title) + opt(&t.description);
            bytes += opt(&t.mime_type) + icons::size(&t.icons);
        }
        for v in &self.views {
            bytes += v.tool.len() + v.resource_uri.len();
        }
        for p in &self.prompts {
            bytes += p.name.len() + opt(&p.title) + opt(&p.description) + icons::size(&p.icons);
            for a in &p.arguments {
                bytes += a.name.len() + opt(&a.title) + opt(&a.description);
            }
        }
        let entries = self
            .resources
            .len()
            .max(self.templates.len())
            .max(self.prompts.len())
            .max(self.views.len());
        (entries, bytes as u64)
    }
}

/// Why an entry of a plugin's lists is refused: what it is and the problem.
pub(crate) type Refusal = (String, String);

/// Checks and converts a plugin's lists; `tools` are its tool names.
pub(crate) fn check(listing: Listing, tools: &HashSet<&str>) -> Result<Served, Refusal> {
    let mut served = Served {
        completes: listing.completes,
        ..Served::default()
    };
    let mut uris = HashSet::new();
    for r in listing.resources {
        let what = format!("resource {:?}", clip(r.uri.clone(), 256));
        check_uri(&r.uri).map_err(|p| (what.clone(), p.to_string()))?;
        if !uris.insert(r.uri.clone()) {
            return Err((what, "the plugin lists this URI twice".into()));
        }
        if r.name.trim().is_empty() {
            return Err((what, "its name is empty".into()));
        }
        icons::check(&r.icons).map_err(|p| (what.clone(), p.to_string()))?;
        if r.view.is_some() {
            if !r.uri.starts_with("ui://") {
                return Err((what, "a view's URI must start with `ui://`".into()));
            }
            if r.mime_type.as_deref() != Some(VIEW_MIME_TYPE) {
                return Err((
                    what,
                    format!("a view's MIME type must be `{VIEW_MIME_TYPE}`"),
                ));
            }
        }
        served.resources.push(ResourceInfo {
            uri: r.uri,
            name: r.name,
            title: r.title,
            description: r.description,
            mime_type: r.mime_type,
            size: r.size,
            hints: r.annotations.map(Into::into),
            icons: r.icons.into_iter().map(Into::into).collect(),
            view: r.view.map(view),
        });
    }
    let mut templates = HashSet::new();
    for t in listing.templates {
        let what = format!("resource template {:?}", clip(t.uri_template.clone(), 256));
        check_uri(&t.uri_template).map_err(|p| (what.clone(), p.to_string()))?;
        check_template(&t.uri_template).map_err(|p| (what.clone(), p.to_string()))?;
        let pattern =
            UriPattern::compile(&t.uri_template).map_err(|p| (what.clone(), p.to_string()))?;
        if !templates.insert(t.uri_template.clone()) {
            return Err((what, "the plugin lists this template twice".into()));
        }
        icons::check(&t.icons).map_err(|p| (what.clone(), p.to_string()))?;
        served.templates.push(TemplateInfo {
            uri_template: t.uri_template,
            name: t.name,
            title: t.title,
            description: t.description,
            mime_type: t.mime_type,
            hints: t.annotations.map(Into::into),
            icons: t.icons.into_iter().map(Into::into).collect(),
            pattern,
        });
    }
    let mut names = HashSet::new();
    for p in listing.prompts {
        let what = format!("prompt {:?}", clip(p.name.clone(), MAX_TOOL_NAME));
        check_tool_name(&p.name).map_err(|e| (what.clone(), e.to_string()))?;
        if !names.insert(p.name.clone()) {
            return Err((what, "the plugin lists this prompt name twice".into()));
        }
        icons::check(&p.icons).map_err(|e| (what.clone(), e.to_string()))?;
        let mut arguments = HashSet::new();
        for a in &p.arguments {
            if a.name.is_empty() || !arguments.insert(a.name.as_str()) {
                return Err((what, format!("argument {:?} is empty or repeated", a.name)));
            }
        }
        served.prompts.push(PromptInfo {
            name: p.name,
            title: p.title,
            description: p.description,
            arguments: p
                .arguments
                .into_iter()
                .map(|a| PromptArgument {
                    name: a.name,
                    title: a.title,
                    description: a.description,
                    required: a.required,
                })
                .collect(),
            icons: p.icons.into_iter().map(Into::into).collect(),
        });
    }
    for v in listing.views {
        let what = format!("the view of tool {:?}", clip(v.tool.clone(), MAX_TOOL_NAME));
        if !tools.contains(v.tool.as_str()) {
            return Err((what, "the plugin has no tool of this name".into()));
        }
        if served
            .resource(&v.resource_uri)
            .and_then(|r| r.view.as_ref())
            .is_none()
        {
            return Err((
                what,
                format!(
                    "{:?} is not a view the plugin lists (a `ui://` resource with view settings)",
                    clip(v.resource_uri.clone(), 256)
                ),
            ));
        }
        let view = ToolView {
            resource_uri: v.resource_uri,
            model_visible: v.model_visible,
        };
        if served.views.insert(v.tool, view).is_some() {
            return Err((what, "the plugin gives this tool two views".into()));
        }
    }
    Ok(served)
}

fn view(v: wr::ViewSettings) -> ViewSettings {
    ViewSettings {
        csp: v.csp.map(|c| ViewCsp {
            connect_domains: c.connect_domains,
            resource_domains: c.resource_domains,
            frame_domains: c.frame_domains,
            base_uri_domains: c.base_uri_domains,
        }),
        permissions: v.permissions.map(|p| ViewPermissions {
            camera: p.camera,
            microphone: p.microphone,
            geolocation: p.geolocation,
            clipboard_write: p.clipboard_write,
        }),
        domain: v.domain,
        prefers_border: v.prefers_border,
    }
}

/// Why a resource's URI or a template is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum UriProblem {
    #[error("it is longer than {MAX_URI} bytes")]
    TooLong,
    #[error("it is not an absolute URI (`scheme:…`)")]
    NotAbsolute,
    #[error("it contains whitespace or control characters")]
    Whitespace,
    #[error("a `}}` has no `{{`")]
    UnopenedBrace,
    #[error("a `{{` is not closed")]
    UnclosedBrace,
    /// The text between braces (without a leading `+`).
    #[error("{0:?} is not a variable name")]
    Variable(String),
}

/// An absolute URI (a scheme, then `:`), at most [`MAX_URI`] bytes, without
/// whitespace or control characters.
fn check_uri(uri: &str) -> Result<(), UriProblem> {
    if uri.len() > MAX_URI {
        return Err(UriProblem::TooLong);
    }
    let scheme = uri.split_once(':').map(|(s, _)| s).unwrap_or_default();
    let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return Err(UriProblem::NotAbsolute);
    }
    if uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UriProblem::Whitespace);
    }
    Ok(())
}

/// Braces pair up, and each holds a variable name (`+` first for any text).
fn check_template(template: &str) -> Result<(), UriProblem> {
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(UriProblem::UnopenedBrace);
        }
        let Some(close) = rest[open..].find('}') else {
            return Err(UriProblem::UnclosedBrace);
        };
        let name = rest[open + 1..open + close].trim_start_matches('+');
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(UriProblem::Variable(name.to_string()));
        }
        rest = &rest[open + close + 1..];
    }
    Ok(())
}

/// A guest's `serve-error` as the runtime's kind of guest error and its
/// message as the guest wrote it (the caller redacts, then clips it).
pub(crate) fn guest_error(error: WitServeError) -> (GuestErrorKind, String) {
    match error {
        WitServeError::NotFound(m) => (GuestErrorKind::UnknownTool, m),
        WitServeError::InvalidArguments(m) => (GuestErrorKind::InvalidArguments, m),
        WitServeError::Denied(m) => (GuestErrorKind::Denied, m),
        WitServeError::Failed(m) => (GuestErrorKind::Failed, m),
    }
}

/// A read's parts, each with the view settings of the listed resource of
/// its URI.
pub(crate) fn parts(contents: Vec<wr::ResourceContents>, served: &Served) -> Vec<ResourcePart> {
    contents
        .into_iter()
        .map(|c| ResourcePart {
            view: served.resource(&c.uri).and_then(|r| r.view.clone()),
            uri: c.uri,
            mime_type: c.mime_type,
            body: match c.body {
                crate::load::bindings::types::ResourceBody::Text(t) => ResourceBody::Text(t),
                crate::load::bindings::types::ResourceBody::Blob(b) => ResourceBody::Blob(b),
            },
        })
        .collect()
}

/// Clips each value of `completion` to [`MAX_COMPLETION_VALUE`] bytes.
pub(crate) fn clip_completion(mut completion: Completion) -> Completion {
    for v in &mut completion.values {
        *v = clip(std::mem::take(v), MAX_COMPLETION_VALUE);
    }
    completion
}

/// A prompt result in the runtime's types.
pub(crate) fn prompt_output(result: wp::PromptResult) -> PromptOutput {
    PromptOutput {
        description: result.description,
        messages: result
            .messages
            .into_iter()
            .map(|m| {
                let who = match m.role {
                    crate::load::bindings::types::Role::User => Audience::User,
                    crate::load::bindings::types::Role::Assistant => Audience::Assistant,
                };
                (who, Content::from(m.content))
            })
            .collect(),
    }
}

/// The longest completion value passed on, in bytes.
pub const MAX_COMPLETION_VALUE: usize = 1024;

/// A completion in the runtime's types, held to [`MAX_COMPLETIONS`]; its
/// values are clipped by [`clip_completion`] once they have crossed the
/// boundary where secrets are redacted (a clip first could cut a secret in
/// two and pass half of it on).
pub(crate) fn completion(c: wc::Completion) -> Completion {
    let mut values = c.values;
    let more = values.len() > MAX_COMPLETIONS;
    values.truncate(MAX_COMPLETIONS);
    Completion {
        values,
        total: c.total,
        has_more: c.has_more || more,
    }
}

#[cfg(test)]
mod tests;
