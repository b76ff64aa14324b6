//! Tool dispatch.

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tool::{input_schema, is_object_schema, output_schema};
use crate::{Output, ToolDef, ToolError, ToolResult};

/// A tool plugin: a type that says which tools it has.
///
/// Implement it and pass the type to [`export_plugin!`](crate::export_plugin).
/// The host runs every call in a fresh instance, so [`Plugin::router`] is
/// called once per call; keep it cheap (schemas are only derived when the
/// host lists the tools).
pub trait Plugin {
    /// The plugin's tools and their handlers.
    fn router() -> Router;
}

type Handler = Box<dyn Fn(&str) -> ToolResult>;

struct Route {
    def: ToolDef,
    input_schema: fn() -> Value,
    output_schema: Option<fn() -> Value>,
    handler: Handler,
}

/// The tools of a plugin: their definitions and handlers.
///
/// A handler takes its arguments as a typed value: the router deserializes
/// the call's JSON into it (a failure is [`ToolError::InvalidArguments`] that
/// names the offending field), and the tool's input schema is derived from
/// the same type with `schemars`, doc comments included.
///
/// ```
/// use mcp_wasm_sdk::prelude::*;
///
/// /// Arguments of `greet`.
/// #[derive(Deserialize, JsonSchema)]
/// struct GreetArgs {
///     /// Whom to greet.
///     name: String,
/// }
///
/// let router = Router::new().tool(
///     ToolDef::new("greet", "Greets someone.").read_only(),
///     |args: GreetArgs| -> ToolResult { Ok(Output::text(format!("Hello, {}!", args.name))) },
/// );
/// let output = router.call("greet", r#"{"name":"Ada"}"#).unwrap();
/// assert_eq!(output.content()[0].as_text(), Some("Hello, Ada!"));
/// assert!(matches!(router.call("greet", "{}"), Err(ToolError::InvalidArguments(_))));
/// assert!(matches!(router.call("nope", "{}"), Err(ToolError::UnknownTool(_))));
/// ```
#[derive(Default)]
pub struct Router {
    routes: Vec<Route>,
    pub(crate) served: crate::serve::Served,
}

impl fmt::Debug for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.routes.iter().map(|r| r.def.name()))
            .finish()
    }
}

impl Router {
    /// A router without tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool whose handler takes arguments of type `A` and returns an
    /// [`Output`] (or anything that converts into one, such as a `String`).
    ///
    /// `A` must derive `Deserialize` and `JsonSchema` and be a struct (its
    /// schema must be an object schema); use [`NoArgs`](crate::NoArgs) for a
    /// tool without arguments.
    pub fn tool<A, O, F>(mut self, def: ToolDef, handler: F) -> Self
    where
        A: DeserializeOwned + JsonSchema,
        O: Into<Output>,
        F: Fn(A) -> Result<O, ToolError> + 'static,
    {
        self.routes.push(Route {
            def,
            input_schema: input_schema::<A>,
            output_schema: None,
            handler: Box::new(move |json| {
                let args = parse_arguments::<A>(json)?;
                handler(args).map(Into::into)
            }),
        });
        self
    }

    /// Adds a tool that returns structured content: the handler's `T` is
    /// serialized as the result's structured content and, for older clients,
    /// as a JSON text block; the tool's output schema is derived from `T`.
    /// MCP expects structured content to be an object, so make `T` a struct.
    pub fn json_tool<A, T, F>(mut self, def: ToolDef, handler: F) -> Self
    where
        A: DeserializeOwned + JsonSchema,
        T: Serialize + JsonSchema,
        F: Fn(A) -> Result<T, ToolError> + 'static,
    {
        self.routes.push(Route {
            def,
            input_schema: input_schema::<A>,
            output_schema: Some(output_schema::<T>),
            handler: Box::new(move |json| {
                let args = parse_arguments::<A>(json)?;
                handler(args).map(|value| Output::json(&value))
            }),
        });
        self
    }

    /// The tool definitions, in the order they were added, with their
    /// schemas filled in.
    ///
    /// # Panics
    ///
    /// If a tool's derived input schema is not an object schema (its argument
    /// type is not a struct); in a plugin that makes the host refuse it at
    /// load, with this message on the plugin's stderr.
    pub fn list(&self) -> Vec<ToolDef> {
        self.routes
            .iter()
            .map(|route| {
                let mut def = route.def.clone();
                let input = if def.has_raw_input_schema() {
                    None
                } else {
                    let schema = (route.input_schema)();
                    assert!(
                        is_object_schema(&schema),
                        "tool `{}`: the argument type must be a struct (its JSON schema must \
                         have \"type\": \"object\"), found {schema}",
                        def.name()
                    );
                    Some(schema.to_string())
                };
                let output = route.output_schema.map(|schema| schema().to_string());
                def.set_schemas(input, output);
                def
            })
            .collect()
    }

    /// The arguments without a description in their tool's input schema,
    /// as `tool.argument`: the fields of an argument struct that lack a doc
    /// comment, which the model sees as a bare name and type. A plugin's
    /// unit test can assert that there are none.
    ///
    /// ```
    /// use mcp_wasm_sdk::prelude::*;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Args {
    ///     /// The text.
    ///     text: String,
    ///     count: u32,
    /// }
    ///
    /// let router = Router::new().tool(ToolDef::new("t", "T."), |_: Args| Ok("x"));
    /// assert_eq!(router.undescribed_arguments(), ["t.count"]);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`Router::list`] does.
    pub fn undescribed_arguments(&self) -> Vec<String> {
        let mut found = Vec::new();
        for def in self.list() {
            let schema = def
                .input_schema()
                .and_then(|s| serde_json::from_str::<Value>(s).ok());
            let properties = schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object);
            for (name, property) in properties.into_iter().flatten() {
                if property.get("description").is_none() {
                    found.push(format!("{}.{name}", def.name()));
                }
            }
        }
        found
    }

    /// The tool definitions as they were added, without their schemas.
    pub(crate) fn defs(&self) -> impl Iterator<Item = &ToolDef> {
        self.routes.iter().map(|route| &route.def)
    }

    /// Runs the tool `name` with `arguments`, a JSON object serialized as a
    /// string (an empty string counts as `{}`).
    pub fn call(&self, name: &str, arguments: &str) -> ToolResult {
        let route = self
            .routes
            .iter()
            .find(|route| route.def.name() == name)
            .ok_or_else(|| ToolError::unknown_tool(name))?;
        (route.handler)(arguments)
    }
}

/// Deserializes a call's arguments, naming the offending field on failure.
fn parse_arguments<A: DeserializeOwned>(json: &str) -> Result<A, ToolError> {
    let json = if json.trim().is_empty() { "{}" } else { json };
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let args = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let message = without_position(error.inner());
        if path == "." {
            ToolError::InvalidArguments(message)
        } else {
            ToolError::InvalidArguments(format!("`{path}`: {message}"))
        }
    })?;
    deserializer
        .end()
        .map_err(|e| ToolError::InvalidArguments(without_position(&e)))?;
    Ok(args)
}

/// A serde_json error's message without its " at line L column C" suffix,
/// which means nothing to a model that sent a JSON object.
fn without_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&suffix) {
        Some(stripped) => stripped.to_owned(),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;
    use crate::NoArgs;

    /// Arguments of `hash`.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct HashArgs {
        /// The text to hash.
        text: String,
        /// How many rounds.
        rounds: Option<u32>,
    }

    /// Statistics about a text.
    #[derive(Serialize, JsonSchema)]
    struct Stats {
        /// Number of characters.
        chars: usize,
    }

    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new("hash", "Hashes a text.").read_only(),
                |args: HashArgs| -> ToolResult {
                    Ok(Output::text(format!("{}:{:?}", args.text, args.rounds)))
                },
            )
            .tool(ToolDef::new("ping", "Pings."), |_: NoArgs| Ok("pong"))
            .json_tool(ToolDef::new("stats", "Counts."), |args: HashArgs| {
                Ok(Stats {
                    chars: args.text.chars().count(),
                })
            })
            .tool(ToolDef::new("fail", "Fails."), |_: NoArgs| -> ToolResult {
                Err(ToolError::failed("the widget is broken"))
            })
    }

    fn schema(def: &ToolDef) -> Value {
        serde_json::from_str(def.input_schema().expect("input schema")).expect("valid JSON")
    }

    #[test]
    fn derived_input_schema_is_an_object_schema_with_descriptions() {
        let defs = router().list();
        let hash = schema(&defs[0]);
        assert_eq!(hash["type"], "object");
        assert_eq!(
            hash["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(hash["description"], "Arguments of `hash`.");
        assert_eq!(
            hash["properties"]["text"]["description"],
            "The text to hash."
        );
        assert_eq!(hash["required"], serde_json::json!(["text"]));
        assert_eq!(defs[0].hints().read_only, Some(true));
        assert!(defs[0].output_schema().is_none());
    }

    #[test]
    fn no_args_schema_is_the_empty_object_schema() {
        let defs = router().list();
        assert_eq!(
            schema(&defs[1]),
            serde_json::json!({"type": "object", "additionalProperties": false})
        );
    }

    #[test]
    fn json_tool_has_output_schema_and_structured_content() {
        let router = router();
        let defs = router.list();
        let output: Value =
            serde_json::from_str(defs[2].output_schema().expect("output schema")).expect("JSON");
        assert_eq!(output["type"], "object");
        assert_eq!(
            output["properties"]["chars"]["description"],
            "Number of characters."
        );

        let result = router.call("stats", r#"{"text":"héllo"}"#).expect("ok");
        assert_eq!(result.structured_content(), Some(r#"{"chars":5}"#));
        assert_eq!(result.content()[0].as_text(), Some(r#"{"chars":5}"#));
    }

    #[test]
    fn dispatches_by_name() {
        let router = router();
        let out = router
            .call("hash", r#"{"text":"a","rounds":2}"#)
            .expect("ok");
        assert_eq!(out.content()[0].as_text(), Some("a:Some(2)"));
        let out = router.call("ping", "").expect("ok");
        assert_eq!(out.content()[0].as_text(), Some("pong"));
        assert_eq!(
            router.call("fail", "{}"),
            Err(ToolError::failed("the widget is broken"))
        );
        assert_eq!(
            router.call("nope", "{}"),
            Err(ToolError::unknown_tool("nope"))
        );
    }

    #[test]
    fn bad_arguments_name_the_field() {
        let router = router();
        assert_eq!(
            router.call("hash", "{}"),
            Err(ToolError::invalid_arguments("missing field `text`"))
        );
        assert_eq!(
            router.call("hash", r#"{"text":"a","rounds":"x"}"#),
            Err(ToolError::invalid_arguments(
                "`rounds`: invalid type: string \"x\", expected u32"
            ))
        );
        assert!(matches!(
            router.call("ping", r#"{"x":1}"#),
            Err(ToolError::InvalidArguments(m)) if m.contains("`x`")
        ));
        assert!(matches!(
            router.call("hash", "{} x"),
            Err(ToolError::InvalidArguments(_))
        ));
    }

    #[test]
    fn undescribed_arguments_are_the_fields_without_doc_comments() {
        assert_eq!(router().undescribed_arguments(), Vec::<String>::new());

        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Partly {
            /// Described, and nullable.
            a: Option<String>,
            b: Option<u32>,
            c: Value,
        }
        let router = Router::new().tool(ToolDef::new("p", "P."), |_: Partly| Ok("x"));
        assert_eq!(router.undescribed_arguments(), ["p.b", "p.c"]);
    }

    #[test]
    #[should_panic(expected = "must be a struct")]
    fn non_object_argument_type_panics_at_list() {
        Router::new()
            .tool(ToolDef::new("t", "T."), |_: u32| Ok("x"))
            .list();
    }

    #[test]
    fn raw_input_schema_is_used_as_is() {
        let defs = Router::new()
            .tool(
                ToolDef::new("t", "T.").raw_input_schema(r#"{"type":42}"#),
                |_: Value| Ok("x"),
            )
            .list();
        assert_eq!(defs[0].input_schema(), Some(r#"{"type":42}"#));
    }
}
