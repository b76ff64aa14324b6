//! Tool definitions and schema derivation.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings, json_schema};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::schema::{IntegerBounds, Portable};

/// The definition of one tool: its name, description and behaviour hints.
///
/// The [`Router`](crate::Router) fills in the input schema (derived from the
/// handler's argument type) and the output schema (for
/// [`Router::json_tool`](crate::Router::json_tool)).
///
/// ```
/// use mcp_wasm_sdk::ToolDef;
///
/// let def = ToolDef::new("sha256", "Compute the SHA-256 digest of a text, as lowercase hex.")
///     .title("SHA-256")
///     .read_only()
///     .idempotent()
///     .closed_world();
/// assert_eq!(def.hints().read_only, Some(true));
/// assert_eq!(def.hints().open_world, Some(false));
/// assert_eq!(def.hints().destructive, None);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    name: String,
    title: Option<String>,
    description: String,
    hints: Hints,
    input_schema: Option<String>,
    raw_input_schema: bool,
    output_schema: Option<String>,
    icons: Vec<Icon>,
    task_support: TaskSupport,
    view: Option<(String, bool)>,
}

/// Whether a call of a tool may run as a task: the call returns at once with
/// a task id and the tool goes on running under the plugin's `task_timeout`,
/// while the client polls for its progress and result (MCP's tasks
/// extension, from revision 2026-07-28 on). The tool's code is the same
/// either way.
///
/// ```
/// use mcp_wasm_sdk::{TaskSupport, ToolDef};
///
/// let def = ToolDef::new("render", "Renders a long video.").task(TaskSupport::Optional);
/// assert_eq!(def.task_support(), TaskSupport::Optional);
/// assert_eq!(ToolDef::new("add", "Adds.").task_support(), TaskSupport::Forbidden);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client supports tasks, an ordinary call otherwise.
    Optional,
    /// Only ever a task; a client without tasks support gets an error.
    Required,
}

/// An icon a client may show for a tool (MCP clients from revision
/// 2025-11-25 on). The host refuses a plugin with an invalid icon: `src` must
/// be an `https:` URL or a `data:` URI of an image, at most 64 KiB.
///
/// ```
/// use mcp_wasm_sdk::{Icon, IconTheme, ToolDef};
///
/// let def = ToolDef::new("draw", "Draws a square.")
///     .icon(Icon::svg(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>"#))
///     .icon(Icon::new("https://example.com/draw-dark.png").mime_type("image/png").sizes(["48x48"]).theme(IconTheme::Dark));
/// assert_eq!(def.icons().len(), 2);
/// assert!(def.icons()[0].src().starts_with("data:image/svg+xml,%3Csvg"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Icon {
    src: String,
    mime_type: Option<String>,
    sizes: Vec<String>,
    theme: Option<IconTheme>,
}

/// The theme an icon is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconTheme {
    /// A light background.
    Light,
    /// A dark background.
    Dark,
}

impl Icon {
    /// An icon at `src`: an `https:` URL, or a `data:` URI holding the image.
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    /// An SVG image given as its text, as a `data:image/svg+xml` URI (sized
    /// `any`).
    pub fn svg(svg: &str) -> Self {
        let mut src = String::from("data:image/svg+xml,");
        for b in svg.bytes() {
            if b.is_ascii_alphanumeric() || b"-_.~/=:'(),;!*".contains(&b) {
                src.push(char::from(b));
            } else {
                src.push_str(&format!("%{b:02X}"));
            }
        }
        Icon::new(src).mime_type("image/svg+xml").sizes(["any"])
    }

    /// The image's MIME type, e.g. `image/png`.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The sizes the image suits: `WxH` (`48x48`) or `any`.
    pub fn sizes<S: Into<String>>(mut self, sizes: impl IntoIterator<Item = S>) -> Self {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }

    /// The theme the icon is drawn for (default: any).
    pub fn theme(mut self, theme: IconTheme) -> Self {
        self.theme = Some(theme);
        self
    }

    /// Where the image is.
    pub fn src(&self) -> &str {
        &self.src
    }

    /// Its MIME type, if set.
    pub fn get_mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// Its sizes.
    pub fn get_sizes(&self) -> &[String] {
        &self.sizes
    }

    /// Its theme, if set.
    pub fn get_theme(&self) -> Option<IconTheme> {
        self.theme
    }
}

/// A tool's behaviour hints (MCP tool annotations). `None` leaves the MCP
/// default to the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hints {
    /// The tool does not modify its environment (MCP default: false).
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates; meaningful only when it is
    /// not read-only (MCP default: true).
    pub destructive: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect
    /// (MCP default: false).
    pub idempotent: Option<bool>,
    /// The tool may interact with an open world of external entities (MCP
    /// default: true).
    pub open_world: Option<bool>,
}

impl ToolDef {
    /// A tool called `name` (1 to 128 characters of `A-Z a-z 0-9 _ . -`,
    /// unique within the plugin; the host refuses a plugin that breaks this
    /// rule) that does what `description` says, written for the model.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: description.into(),
            hints: Hints::default(),
            input_schema: None,
            raw_input_schema: false,
            output_schema: None,
            icons: Vec::new(),
            task_support: TaskSupport::Forbidden,
            view: None,
        }
    }

    /// Shows the tool's results in the interactive view at `resource_uri`
    /// (MCP Apps): a `ui://` resource of this plugin, added with
    /// [`Router::view`](crate::Router::view). Clients that render views show
    /// it with the result; the others show the content as usual.
    pub fn view(mut self, resource_uri: impl Into<String>) -> Self {
        self.view = Some((resource_uri.into(), true));
        self
    }

    /// Like [`ToolDef::view`], for a tool only its view calls: the model
    /// does not see it (MCP Apps visibility `["app"]`).
    pub fn view_only(mut self, resource_uri: impl Into<String>) -> Self {
        self.view = Some((resource_uri.into(), false));
        self
    }

    /// The URI of the tool's view, and whether the model may call the tool.
    pub fn get_view(&self) -> Option<(&str, bool)> {
        self.view
            .as_ref()
            .map(|(uri, model)| (uri.as_str(), *model))
    }

    /// Lets calls of the tool run as tasks (see [`TaskSupport`]); by default
    /// they never do.
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Whether calls of the tool may run as tasks.
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    /// Adds an icon clients may show for the tool (none by default; at most
    /// 8).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// The tool's icons.
    pub fn icons(&self) -> &[Icon] {
        &self.icons
    }

    /// A human-readable name for display.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Hints that the tool does not modify its environment.
    pub fn read_only(mut self) -> Self {
        self.hints.read_only = Some(true);
        self
    }

    /// Hints whether the tool may perform destructive updates.
    pub fn destructive(mut self, destructive: bool) -> Self {
        self.hints.destructive = Some(destructive);
        self
    }

    /// Hints that calling the tool again with the same arguments has no
    /// further effect.
    pub fn idempotent(mut self) -> Self {
        self.hints.idempotent = Some(true);
        self
    }

    /// Hints that the tool does not interact with external entities; the same
    /// as `open_world(false)`.
    pub fn closed_world(self) -> Self {
        self.open_world(false)
    }

    /// Hints whether the tool may interact with an open world of external
    /// entities, such as the web.
    pub fn open_world(mut self, open_world: bool) -> Self {
        self.hints.open_world = Some(open_world);
        self
    }

    /// Hints that the tool is a pure function of its arguments: read-only,
    /// idempotent and closed-world; the same as
    /// `.read_only().idempotent().closed_world()`.
    ///
    /// ```
    /// use mcp_wasm_sdk::ToolDef;
    ///
    /// let def = ToolDef::new("reverse", "Reverse a text.").title("Reverse").pure();
    /// assert_eq!(def.hints(), ToolDef::new("r", "R.").read_only().idempotent().closed_world().hints());
    /// ```
    pub fn pure(self) -> Self {
        self.read_only().idempotent().closed_world()
    }

    /// Escape hatch: uses `schema` (serialized JSON) as the input schema
    /// instead of deriving it from the handler's argument type. The SDK does
    /// not check it nor make it [portable](crate::schema::Portable); the host validates every call's arguments against it and
    /// refuses the plugin if it is not a valid object schema. Pair it with a
    /// [`serde_json::Value`] argument type to take the arguments as they come.
    pub fn raw_input_schema(mut self, schema: impl Into<String>) -> Self {
        self.input_schema = Some(schema.into());
        self.raw_input_schema = true;
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's display title, if set.
    pub fn get_title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The tool's description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The tool's behaviour hints.
    pub fn hints(&self) -> Hints {
        self.hints
    }

    /// The input schema as serialized JSON: set by
    /// [`ToolDef::raw_input_schema`], or filled in by
    /// [`Router::list`](crate::Router::list).
    pub fn input_schema(&self) -> Option<&str> {
        self.input_schema.as_deref()
    }

    /// The output schema as serialized JSON, filled in by
    /// [`Router::list`](crate::Router::list) for a
    /// [`Router::json_tool`](crate::Router::json_tool).
    pub fn output_schema(&self) -> Option<&str> {
        self.output_schema.as_deref()
    }

    pub(crate) fn has_raw_input_schema(&self) -> bool {
        self.raw_input_schema
    }

    pub(crate) fn set_schemas(&mut self, input: Option<String>, output: Option<String>) {
        if let Some(input) = input {
            self.input_schema = Some(input);
        }
        self.output_schema = output;
    }
}

/// The argument type of a tool that takes no arguments.
///
/// Its schema is `{"type":"object","additionalProperties":false}`, and it
/// deserializes from `{}` (or `null`) and refuses any argument.
///
/// ```
/// use mcp_wasm_sdk::prelude::*;
///
/// let router = Router::new().tool(
///     ToolDef::new("ping", "Answers pong."),
///     |_: NoArgs| -> ToolResult { Ok(Output::text("pong")) },
/// );
/// assert_eq!(router.call("ping", "{}").unwrap().content()[0].as_text(), Some("pong"));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NoArgs;

impl JsonSchema for NoArgs {
    fn schema_name() -> Cow<'static, str> {
        "NoArgs".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "mcp_wasm_sdk::NoArgs".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "object", "additionalProperties": false })
    }
}

impl<'de> Deserialize<'de> for NoArgs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NoArgsVisitor;

        impl<'de> Visitor<'de> for NoArgsVisitor {
            type Value = NoArgs;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an empty object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NoArgs, A::Error> {
                match map.next_key::<String>()? {
                    None => Ok(NoArgs),
                    Some(key) => Err(de::Error::custom(format_args!(
                        "unknown argument `{key}`: this tool takes no arguments"
                    ))),
                }
            }

            fn visit_unit<E: de::Error>(self) -> Result<NoArgs, E> {
                Ok(NoArgs)
            }
        }

        deserializer.deserialize_any(NoArgsVisitor)
    }
}

/// The input schema of argument type `A`, as JSON Schema 2020-12 for
/// deserialization, with [exact integer bounds](IntegerBounds),
/// [portable](Portable).
pub(crate) fn input_schema<A: JsonSchema>() -> Value {
    if A::schema_id() == NoArgs::schema_id() {
        return serde_json::json!({ "type": "object", "additionalProperties": false });
    }
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .with_transform(IntegerBounds)
        .with_transform(Portable)
        .into_generator()
        .into_root_schema_for::<A>()
        .to_value()
}

/// The output schema of result type `T`, as JSON Schema 2020-12 for
/// serialization, with [exact integer bounds](IntegerBounds),
/// [portable](Portable).
pub(crate) fn output_schema<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(IntegerBounds)
        .with_transform(Portable)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// Whether a schema's root says `"type": "object"`.
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}
