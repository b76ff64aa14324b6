//! Resources, resource templates, interactive views, prompts and
//! completions: what a plugin serves next to its tools (WIT 0.2.1).
//!
//! ```
//! use mcp_wasm_sdk::prelude::*;
//!
//! let router = Router::new()
//!     .resource_text(
//!         ResourceDef::new("notes://guide", "guide").mime_type("text/markdown"),
//!         "# How to use the notes tools",
//!     )
//!     .template(
//!         TemplateDef::new("notes://note/{id}", "note"),
//!         |uri: &str, vars: &Vars| -> ResourceResult {
//!             Ok(Contents::text(uri, "text/plain", format!("note {}", vars["id"])))
//!         },
//!     )
//!     .prompt(
//!         PromptDef::new("summarize", "Summarize a note.").argument("id", "The note's id.", true),
//!         |args: &Vars| -> PromptResult {
//!             Ok(Messages::new().user(Output::text(format!("Summarize note {}.", args["id"]))))
//!         },
//!     )
//!     .complete_prompt("summarize", "id", |typed: &str, _: &Vars| {
//!         ["1", "2", "10"].iter().filter(|v| v.starts_with(typed)).map(|v| v.to_string()).collect()
//!     });
//! let read = router.read("notes://note/7").unwrap();
//! assert_eq!(read.parts()[0].text(), Some("note 7"));
//! let prompt = router.get_prompt("summarize", &Vars::from([("id".into(), "7".into())])).unwrap();
//! assert_eq!(prompt.messages()[0].1.as_text(), Some("Summarize note 7."));
//! assert_eq!(router.complete_prompt_argument("summarize", "id", "1", &Vars::new()), ["1", "10"]);
//! ```

use std::collections::BTreeMap;

use crate::{Content, Output, ResourceBody, Role, Router, ToolError};

/// A prompt's arguments or a template's variables, by name.
pub type Vars = BTreeMap<String, String>;

/// What a resource handler returns.
pub type ResourceResult = Result<Contents, ToolError>;

/// What a prompt handler returns.
pub type PromptResult = Result<Messages, ToolError>;

/// The MIME type of an interactive view (MCP Apps).
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// A resource the plugin lists.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDef {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) size: Option<u64>,
    pub(crate) view: Option<View>,
}

impl ResourceDef {
    /// The resource at `uri` (absolute, unique within the plugin; put the
    /// plugin's name in it, as in `weather://stations`), called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            view: None,
        }
    }

    /// A human-readable name for display.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the resource is.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Its MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Its size in bytes.
    pub fn size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

/// The settings of an interactive view (MCP Apps `_meta.ui` of a `ui://`
/// resource): the origins it may reach and the permissions it asks for.
/// The default reaches nothing and asks for nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    pub(crate) connect_domains: Vec<String>,
    pub(crate) resource_domains: Vec<String>,
    pub(crate) frame_domains: Vec<String>,
    pub(crate) base_uri_domains: Vec<String>,
    pub(crate) camera: bool,
    pub(crate) microphone: bool,
    pub(crate) geolocation: bool,
    pub(crate) clipboard_write: bool,
    pub(crate) domain: Option<String>,
    pub(crate) prefers_border: Option<bool>,
}

impl View {
    /// A view that reaches no origin and asks for no permission.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets the view `fetch` from `origin` (e.g. `https://api.example.com`).
    pub fn connect_domain(mut self, origin: impl Into<String>) -> Self {
        self.connect_domains.push(origin.into());
        self
    }

    /// Lets the view load images, scripts, styles and fonts from `origin`.
    pub fn resource_domain(mut self, origin: impl Into<String>) -> Self {
        self.resource_domains.push(origin.into());
        self
    }

    /// Lets the view embed frames from `origin`.
    pub fn frame_domain(mut self, origin: impl Into<String>) -> Self {
        self.frame_domains.push(origin.into());
        self
    }

    /// Asks for clipboard writes.
    pub fn clipboard_write(mut self) -> Self {
        self.clipboard_write = true;
        self
    }

    /// Asks the client to draw a border around the view, or not.
    pub fn prefers_border(mut self, border: bool) -> Self {
        self.prefers_border = Some(border);
        self
    }
}

/// A family of resources whose URIs follow a template: `{name}` matches one
/// path segment, `{+name}` any text.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateDef {
    pub(crate) uri_template: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
}

impl TemplateDef {
    /// The template `uri_template` (e.g. `weather://forecast/{city}`),
    /// called `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
        }
    }

    /// A human-readable name for display.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the resources are.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The MIME type they share.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptArg {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
}

/// A prompt the plugin offers.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptDef {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) arguments: Vec<PromptArg>,
}

impl PromptDef {
    /// The prompt `name` (the rules of a tool's name), which does what
    /// `description` says.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            arguments: Vec::new(),
        }
    }

    /// A human-readable name for display.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Adds an argument; the host refuses a request without a `required`
    /// one before the plugin runs.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.arguments.push(PromptArg {
            name: name.into(),
            description: Some(description.into()),
            required,
        });
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// One part of a resource's contents.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub(crate) uri: String,
    pub(crate) mime_type: Option<String>,
    pub(crate) body: ResourceBody,
}

impl Part {
    /// The text, if the part is text.
    pub fn text(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Text(text) => Some(text),
            ResourceBody::Blob(_) => None,
        }
    }

    /// The part's MIME type.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }
}

/// A resource's contents: one part or more.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Contents {
    pub(crate) parts: Vec<Part>,
}

impl Contents {
    /// Text contents of `uri`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            parts: vec![Part {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                body: ResourceBody::Text(text.into()),
            }],
        }
    }

    /// Binary contents of `uri`.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Self {
        Self {
            parts: vec![Part {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                body: ResourceBody::Blob(data.into()),
            }],
        }
    }

    /// These contents followed by `other`'s parts.
    pub fn and(mut self, other: Contents) -> Self {
        self.parts.extend(other.parts);
        self
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }
}

/// A prompt's messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Messages {
    pub(crate) description: Option<String>,
    pub(crate) messages: Vec<(Role, Content)>,
}

impl Messages {
    /// No messages yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds each content block of `output` as a message from the user.
    pub fn user(self, output: impl Into<Output>) -> Self {
        self.say(Role::User, output)
    }

    /// Adds each content block of `output` as a message from the assistant.
    pub fn assistant(self, output: impl Into<Output>) -> Self {
        self.say(Role::Assistant, output)
    }

    fn say(mut self, role: Role, output: impl Into<Output>) -> Self {
        let (content, _, _) = output.into().into_parts();
        self.messages
            .extend(content.into_iter().map(|block| (role, block)));
        self
    }

    /// A description of this result.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The messages, in order.
    pub fn messages(&self) -> &[(Role, Content)] {
        &self.messages
    }
}

type ReadHandler = Box<dyn Fn(&str, &Vars) -> ResourceResult>;
type PromptHandler = Box<dyn Fn(&Vars) -> PromptResult>;
type CompleteHandler = Box<dyn Fn(&str, &Vars) -> Vec<String>>;

/// What a router serves besides its tools.
#[derive(Default)]
pub(crate) struct Served {
    pub(crate) resources: Vec<(ResourceDef, ReadHandler)>,
    pub(crate) templates: Vec<(TemplateDef, ReadHandler)>,
    pub(crate) prompts: Vec<(PromptDef, PromptHandler)>,
    pub(crate) completions: Vec<(Target, String, CompleteHandler)>,
}

/// What a completion completes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    Prompt(String),
    Template(String),
}

/// The most values one completion returns (MCP's limit).
pub const MAX_COMPLETIONS: usize = 100;

impl Router {
    /// Adds a resource whose contents `handler` makes when it is read (it
    /// gets the URI and no variables).
    pub fn resource<F>(mut self, def: ResourceDef, handler: F) -> Self
    where
        F: Fn(&str, &Vars) -> ResourceResult + 'static,
    {
        self.served.resources.push((def, Box::new(handler)));
        self
    }

    /// Adds a resource whose contents are `text` (of the definition's MIME
    /// type, `text/plain` if it has none).
    pub fn resource_text(self, def: ResourceDef, text: impl Into<String>) -> Self {
        let text = text.into();
        let mime = def.mime_type.clone().unwrap_or_else(|| "text/plain".into());
        self.resource(def, move |uri, _| {
            Ok(Contents::text(uri, mime.clone(), text.clone()))
        })
    }

    /// Adds an interactive view (MCP Apps): the HTML document `html` at the
    /// `ui://` URI of `def`, served with the MIME type
    /// `text/html;profile=mcp-app` and `settings`. A tool shows its results
    /// in it with [`ToolDef::view`](crate::ToolDef::view).
    pub fn view(self, mut def: ResourceDef, settings: View, html: impl Into<String>) -> Self {
        def.mime_type = Some(VIEW_MIME_TYPE.into());
        def.view = Some(settings);
        self.resource_text(def, html)
    }

    /// Adds a resource template whose resources `handler` reads, given the
    /// URI and the template's variables.
    pub fn template<F>(mut self, def: TemplateDef, handler: F) -> Self
    where
        F: Fn(&str, &Vars) -> ResourceResult + 'static,
    {
        self.served.templates.push((def, Box::new(handler)));
        self
    }

    /// Adds a prompt whose messages `handler` makes from its arguments.
    pub fn prompt<F>(mut self, def: PromptDef, handler: F) -> Self
    where
        F: Fn(&Vars) -> PromptResult + 'static,
    {
        self.served.prompts.push((def, Box::new(handler)));
        self
    }

    /// Suggests values for the argument `argument` of the prompt `prompt`:
    /// `handler` gets what the user typed and the other arguments.
    pub fn complete_prompt<F>(mut self, prompt: &str, argument: &str, handler: F) -> Self
    where
        F: Fn(&str, &Vars) -> Vec<String> + 'static,
    {
        self.served.completions.push((
            Target::Prompt(prompt.into()),
            argument.into(),
            Box::new(handler),
        ));
        self
    }

    /// Suggests values for the variable `variable` of the resource template
    /// `uri_template`.
    pub fn complete_template<F>(mut self, uri_template: &str, variable: &str, handler: F) -> Self
    where
        F: Fn(&str, &Vars) -> Vec<String> + 'static,
    {
        self.served.completions.push((
            Target::Template(uri_template.into()),
            variable.into(),
            Box::new(handler),
        ));
        self
    }

    /// The resources, in the order they were added.
    pub fn resources(&self) -> Vec<ResourceDef> {
        self.served
            .resources
            .iter()
            .map(|(d, _)| d.clone())
            .collect()
    }

    /// The resource templates, in the order they were added.
    pub fn templates(&self) -> Vec<TemplateDef> {
        self.served
            .templates
            .iter()
            .map(|(d, _)| d.clone())
            .collect()
    }

    /// The prompts, in the order they were added.
    pub fn prompts(&self) -> Vec<PromptDef> {
        self.served.prompts.iter().map(|(d, _)| d.clone()).collect()
    }

    /// Reads the resource `uri`: a listed one, else the first template
    /// that matches it.
    pub fn read(&self, uri: &str) -> ResourceResult {
        if let Some((_, handler)) = self.served.resources.iter().find(|(d, _)| d.uri == uri) {
            return handler(uri, &Vars::new());
        }
        for (def, handler) in &self.served.templates {
            if let Some(vars) = match_template(&def.uri_template, uri) {
                return handler(uri, &vars);
            }
        }
        Err(ToolError::UnknownTool(format!(
            "no resource has the URI {uri:?}"
        )))
    }

    /// Fills in the prompt `name` with `arguments`.
    pub fn get_prompt(&self, name: &str, arguments: &Vars) -> PromptResult {
        let (def, handler) = self
            .served
            .prompts
            .iter()
            .find(|(d, _)| d.name == name)
            .ok_or_else(|| ToolError::UnknownTool(format!("no prompt is called {name:?}")))?;
        if let Some(missing) = def
            .arguments
            .iter()
            .find(|a| a.required && !arguments.contains_key(&a.name))
        {
            return Err(ToolError::invalid_arguments(format!(
                "the argument {:?} is required",
                missing.name
            )));
        }
        handler(arguments)
    }

    /// Suggestions for the argument `argument` of the prompt `prompt`.
    pub fn complete_prompt_argument(
        &self,
        prompt: &str,
        argument: &str,
        typed: &str,
        context: &Vars,
    ) -> Vec<String> {
        self.complete(&Target::Prompt(prompt.into()), argument, typed, context)
    }

    pub(crate) fn complete(
        &self,
        target: &Target,
        argument: &str,
        typed: &str,
        context: &Vars,
    ) -> Vec<String> {
        self.served
            .completions
            .iter()
            .find(|(t, a, _)| t == target && a == argument)
            .map(|(_, _, handler)| handler(typed, context))
            .unwrap_or_default()
    }
}

/// The variables of `uri` if it matches `template`: `{name}` matches one
/// or more characters other than `/`, `{+name}` one or more of any; the
/// rest must match exactly. Each variable takes the shortest value that
/// lets the rest match, the first variable first.
///
/// Linear in the URI for a given template: O(k·n) steps and k·n bytes of
/// memory for k parts of the template and a URI of n bytes (a table of
/// which suffixes of the URI the template's tail matches, built from the
/// end), where trying every split took time exponential in the number of
/// variables.
pub fn match_template(template: &str, uri: &str) -> Option<Vars> {
    match_counting(template, uri, &mut 0)
}

/// One piece of a template: literal text or a variable.
enum Piece<'a> {
    Literal(&'a str),
    Variable { name: &'a str, any: bool },
}

fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|i| open + i) else {
            break;
        };
        if open > 0 {
            parts.push(Piece::Literal(&rest[..open]));
        }
        let spec = &rest[open + 1..close];
        parts.push(match spec.strip_prefix('+') {
            Some(name) => Piece::Variable { name, any: true },
            None => Piece::Variable {
                name: spec,
                any: false,
            },
        });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Piece::Literal(rest));
    }
    parts
}

/// Where `needle` (not empty) starts in `hay`, overlaps included
/// (Knuth–Morris–Pratt: linear in both); `steps` counts the work.
fn occurrences(hay: &[u8], needle: &[u8], steps: &mut u64) -> Vec<usize> {
    let mut fail = vec![0usize; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = fail[k - 1];
            *steps += 1;
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        fail[i] = k;
        *steps += 1;
    }
    let mut found = Vec::new();
    k = 0;
    for (i, &byte) in hay.iter().enumerate() {
        while k > 0 && byte != needle[k] {
            k = fail[k - 1];
            *steps += 1;
        }
        if byte == needle[k] {
            k += 1;
        }
        if k == needle.len() {
            found.push(i + 1 - k);
            k = fail[k - 1];
        }
        *steps += 1;
    }
    found
}

/// [`match_template`], adding the steps it takes to `steps`.
fn match_counting(template: &str, uri: &str, steps: &mut u64) -> Option<Vars> {
    let parts = pieces(template);
    let (n, bytes) = (uri.len(), uri.as_bytes());
    // can[t][p]: parts t.. match uri[p..].
    let mut can = vec![vec![false; n + 1]; parts.len() + 1];
    can[parts.len()][n] = true;
    for t in (0..parts.len()).rev() {
        let (head, tail) = can.split_at_mut(t + 1);
        let (row, next) = (&mut head[t], &tail[0]);
        match parts[t] {
            Piece::Literal(literal) => {
                for p in occurrences(bytes, literal.as_bytes(), steps) {
                    row[p] = next[p + literal.len()];
                }
            }
            Piece::Variable { any, .. } => {
                // The nearest end after p where the rest matches, and the
                // first `/` at or after p, from the end backwards.
                let mut nearest = None;
                let mut slash = n;
                for p in (0..=n).rev() {
                    *steps += 1;
                    if p < n && bytes[p] == b'/' {
                        slash = p;
                    }
                    if !uri.is_char_boundary(p) {
                        continue;
                    }
                    if let Some(end) = nearest {
                        row[p] = any || end <= slash;
                    }
                    if next[p] {
                        nearest = Some(p);
                    }
                }
            }
        }
    }
    if !can[0][0] {
        return None;
    }
    // Forward: each variable ends at the first place the rest matches.
    let mut vars = Vars::new();
    let mut p = 0;
    for (t, part) in parts.iter().enumerate() {
        match *part {
            Piece::Literal(literal) => p += literal.len(),
            Piece::Variable { name, .. } => {
                let mut end = p + 1;
                while !(uri.is_char_boundary(end) && can[t + 1][end]) {
                    end += 1;
                    *steps += 1;
                }
                // A name used twice keeps its first value.
                vars.entry(name.to_owned())
                    .or_insert_with(|| uri[p..end].to_owned());
                p = end;
            }
        }
    }
    Some(vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases the host and every SDK share (`tests/uri-templates.json`).
    #[test]
    fn templates_match_as_the_shared_cases_say() {
        let corpus: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/uri-templates.json")).unwrap();
        let cases = corpus["cases"].as_array().unwrap();
        assert!(cases.len() > 20);
        for case in cases {
            let (template, uri) = (
                case["template"].as_str().unwrap(),
                case["uri"].as_str().unwrap(),
            );
            let got = match_template(template, uri).map(|vars| {
                vars.into_iter()
                    .map(|(name, value)| (name, serde_json::Value::String(value)))
                    .collect::<serde_json::Map<_, _>>()
            });
            assert_eq!(
                got,
                case["vars"].as_object().cloned(),
                "{template} ~ {uri:?}"
            );
        }
    }

    #[test]
    fn templates_match_segments_and_any_text() {
        let vars = match_template("test://template/{id}/data", "test://template/123/data").unwrap();
        assert_eq!(vars["id"], "123");
        assert!(match_template("test://template/{id}/data", "test://template/1/2/data").is_none());
        assert!(match_template("test://template/{id}/data", "test://template//data").is_none());
        let vars = match_template("file:///{+path}", "file:///a/b/c.txt").unwrap();
        assert_eq!(vars["path"], "a/b/c.txt");
        let vars = match_template("x://{a}-{b}", "x://1-2-3").unwrap();
        assert_eq!((vars["a"].as_str(), vars["b"].as_str()), ("1", "2-3"));
        assert!(match_template("x://fixed", "x://fixed").is_some());
        assert!(match_template("x://fixed", "x://other").is_none());
    }

    /// The old matcher, kept as the reference: it tries every split. It let
    /// a variable at the very end of the URI be empty; the documented rule,
    /// one or more characters, holds here.
    fn reference(template: &str, uri: &str) -> Option<Vars> {
        fn matches(template: &str, uri: &str, vars: &mut Vars) -> bool {
            let Some(open) = template.find('{') else {
                return template == uri;
            };
            let Some(close) = template[open..].find('}').map(|i| open + i) else {
                return template == uri;
            };
            let (literal, rest) = (&template[..open], &template[close + 1..]);
            let Some(tail) = uri.strip_prefix(literal) else {
                return false;
            };
            let spec = &template[open + 1..close];
            let (name, any) = match spec.strip_prefix('+') {
                Some(name) => (name, true),
                None => (spec, false),
            };
            let ends = tail.char_indices().map(|(i, _)| i).skip(1);
            for end in ends.chain((!tail.is_empty()).then_some(tail.len())) {
                let value = &tail[..end];
                if !any && value.contains('/') {
                    break;
                }
                let mut inner = vars.clone();
                if matches(rest, &tail[end..], &mut inner) {
                    inner.insert(name.to_owned(), value.to_owned());
                    *vars = inner;
                    return true;
                }
            }
            false
        }
        let mut vars = Vars::new();
        matches(template, uri, &mut vars).then_some(vars)
    }

    /// Every string of up to `len` pieces from `alphabet`.
    fn strings(alphabet: &[&str], len: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..len {
            last = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |a| format!("{s}{a}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    #[test]
    fn every_short_template_and_uri_match_with_the_values_of_the_reference() {
        let templates = strings(&["a", "/", "{x}", "{+y}", "aa", "{z}"], 4);
        let uris = strings(&["a", "/", "é", "b"], 4);
        for template in &templates {
            for uri in &uris {
                assert_eq!(
                    match_template(template, uri),
                    reference(template, uri),
                    "{template:?} against {uri:?}"
                );
            }
        }
    }

    #[test]
    fn matching_takes_steps_linear_in_the_uri() {
        // Adversarial pairs: long runs of separators, many variables,
        // literals that almost match everywhere; a mebibyte URI.
        let many = "{a}/".repeat(50);
        let cases = [
            ("s://{a}{b}{c}{d}{e}z", "a"),
            ("s://{id}/data", "/"),
            ("s://{+a}-{+b}-{+c}!", "-"),
            ("s://{+a}aab{+b}", "a"),
            (many.as_str(), "a/"),
        ];
        for (template, unit) in cases {
            let parts = pieces(template).len() as u64 + 1;
            let mut per_byte = Vec::new();
            for kib in [4usize, 16, 64, 256] {
                let uri = format!("s://{}", unit.repeat((kib << 10) / unit.len()));
                let mut steps = 0;
                let _ = match_counting(template, &uri, &mut steps);
                let bound = 4 * parts * (uri.len() as u64 + 1) + 4 * template.len() as u64;
                assert!(steps <= bound, "{template}: {steps} steps for {kib} KiB");
                per_byte.push(steps as f64 / uri.len() as f64);
            }
            // Steps per byte stay flat as the URI grows 64-fold.
            let (first, last) = (per_byte[0], per_byte[per_byte.len() - 1]);
            assert!(last <= first * 1.01 + 1.0, "{template}: {per_byte:?}");
        }
        let vars =
            match_template("s://{a}/{+b}", &format!("s://x/{}", "/".repeat(1 << 20))).unwrap();
        assert_eq!((vars["a"].as_str(), vars["b"].len()), ("x", 1 << 20));
    }

    #[test]
    fn a_required_prompt_argument_is_checked_before_the_handler_runs() {
        let router = Router::new()
            .prompt(PromptDef::new("p", "P.").argument("a", "A.", true), |_| {
                Ok(Messages::new().user("hi"))
            });
        assert!(matches!(
            router.get_prompt("p", &Vars::new()),
            Err(ToolError::InvalidArguments(_))
        ));
        assert!(matches!(
            router.get_prompt("q", &Vars::new()),
            Err(ToolError::UnknownTool(_))
        ));
    }
}
