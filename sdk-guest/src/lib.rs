//! Write MCP tools for `mcp-wasm-host` in a few lines of Rust.
//!
//! A plugin is a WebAssembly component (WASI 0.2) that exports the
//! `mcp-wasm-host:plugin` world's `tools` interface. This crate hides the
//! bindings: you write each tool as a function, mark it [`#[tool]`](tool),
//! and export the plugin with [`export_tools!`]. The tool's name is the
//! function's, its description the function's doc comment, and its input
//! schema (JSON Schema 2020-12) is derived from the parameters with
//! `schemars`, their doc comments included; a function returning a struct
//! gives structured content with a derived output schema.
//!
//! # Example
//!
//! `Cargo.toml`:
//!
//! ```toml
//! [package]
//! name = "plugin-text"
//! version = "0.1.0"
//! edition = "2024"
//!
//! [lib]
//! crate-type = ["cdylib"]
//!
//! [dependencies]
//! mcp-wasm-sdk = "0.1"
//! # `#[derive(Serialize)]` needs a crate named `serde`;
//! # `#[derive(JsonSchema)]` finds `schemars` through the prelude.
//! serde = { version = "1", features = ["derive"] }
//! ```
//!
//! `src/lib.rs`:
//!
//! ```
//! use mcp_wasm_sdk::prelude::*;
//!
//! /// Reverse a text, character by character.
//! #[tool(title = "Reverse", read_only, idempotent, closed_world)]
//! fn reverse(
//!     /// The text to reverse.
//!     text: String,
//! ) -> String {
//!     log::debug(format!("reversing {} bytes", text.len()));
//!     text.chars().rev().collect()
//! }
//!
//! /// Statistics about a text.
//! #[derive(Serialize, JsonSchema)]
//! struct Stats {
//!     /// Number of Unicode scalar values.
//!     chars: usize,
//!     /// Number of whitespace-separated words.
//!     words: usize,
//! }
//!
//! /// Count the characters and words of a text.
//! #[tool(read_only)]
//! fn stats(
//!     /// The text to measure.
//!     text: String,
//! ) -> Result<Stats, ToolError> {
//!     if text.is_empty() {
//!         return Err(ToolError::invalid_arguments("`text` is empty"));
//!     }
//!     Ok(Stats { chars: text.chars().count(), words: text.split_whitespace().count() })
//! }
//!
//! export_tools!(reverse, stats);
//! #
//! # let router = tool_router![reverse, stats];
//! # let out = router.call("reverse", r#"{"text":"abc"}"#).unwrap();
//! # assert_eq!(out.content()[0].as_text(), Some("cba"));
//! # let out = router.call("stats", r#"{"text":"a b"}"#).unwrap();
//! # assert_eq!(out.structured_content(), Some(r#"{"chars":3,"words":2}"#));
//! ```
//!
//! The same plugin with a [`Router`]: the form that also serves resources and
//! prompts, and takes closures and argument structs of your own. Describe
//! each tool with a [`ToolDef`], write its handler as a function of a typed
//! argument struct, collect them in a [`Router`] and export the [`Plugin`]
//! with [`export_plugin!`].
//!
//! ```
//! use mcp_wasm_sdk::prelude::*;
//!
//! /// Arguments of `reverse`.
//! #[derive(Deserialize, JsonSchema)]
//! struct ReverseArgs {
//!     /// The text to reverse.
//!     text: String,
//! }
//!
//! struct Text;
//!
//! impl Plugin for Text {
//!     fn router() -> Router {
//!         Router::new().tool(
//!             ToolDef::new("reverse", "Reverse a text, character by character.")
//!                 .title("Reverse")
//!                 .read_only()
//!                 .idempotent()
//!                 .closed_world(),
//!             |args: ReverseArgs| -> ToolResult {
//!                 Ok(Output::text(args.text.chars().rev().collect::<String>()))
//!             },
//!         )
//!         // `.json_tool(def, handler)` adds a tool returning structured
//!         // content, its output schema derived from the handler's result.
//!     }
//! }
//!
//! mcp_wasm_sdk::export_plugin!(Text);
//! #
//! # let out = Text::router().call("reverse", r#"{"text":"abc"}"#).unwrap();
//! # assert_eq!(out.content()[0].as_text(), Some("cba"));
//! ```
//!
//! Build it with `cargo build --release --target wasm32-wasip2`; the
//! component is `target/wasm32-wasip2/release/plugin_text.wasm`.
//!
//! # Handlers
//!
//! A [`#[tool]`](tool) function returns content (`String`, `&str`,
//! [`Output`], [`ToolResult`]) or a struct for structured content, either
//! plain or in a `Result<_, ToolError>`. A [`Router`] handler is a closure or
//! function taking the argument type and returning
//! `Result<O, ToolError>` where `O` converts into an [`Output`] (a
//! [`ToolResult`], or `Result<String, ToolError>`). `?` converts any
//! [`std::error::Error`] into a [`ToolError`]. Outputs can carry every MCP
//! content type ([`Output::text`], [`Output::image`], [`Output::audio`],
//! [`Output::resource_text`], [`Output::resource_blob`],
//! [`Output::resource_link`]), concatenated with [`Output::and`]. A tool
//! without arguments takes [`NoArgs`].
//!
//! The host runs each call in a fresh instance: keep no state in the
//! instance between calls; keep it in the host's key-value store with
//! [`store::Bucket`], when the policy grants a bucket. Use [`log`] to write
//! to the server's log and [`progress()`] to report progress.
//! [`client::create_message`] asks the MCP client's model for a completion
//! (sampling) and [`client::elicit`] asks its user to fill in a form
//! (elicitation), when the policy grants it. What the plugin prints to
//! stdout and stderr goes to the server's log, never to the MCP client.
//!
//! # Schemas
//!
//! The derived schemas are portable: every MCP client accepts them, and the
//! MCP Inspector's `--strict` check finds nothing to report. `schemars`
//! spells an `Option<String>` field `{"type": ["string", "null"]}` and a
//! [`serde_json::Value`] field as a schema without a type; the SDK rewrites
//! them as `{"anyOf": [{"type": "string"}, {"type": "null"}]}` and as `anyOf`
//! every JSON type, which accept exactly the same values (see
//! [`schema::Portable`]). Every integer field states its type's exact
//! `minimum` and `maximum` (`schemars` leaves some out: see
//! [`schema::IntegerBounds`]), and serde reads it exactly or refuses it: a
//! number in float form (`5.0`, `1e3`) is refused for an integer, never
//! rounded. Default values of fields come from
//! [`defaults`], e.g. `#[serde(default = "defaults::u32::<100>")]`.
//!
//! # Testing
//!
//! The router works on any target, so tools can be unit tested natively with
//! [`Router::call`] and [`Router::list`]; there [`log`] and [`progress()`]
//! write to stderr. [`Router::undescribed_arguments`] lists the arguments
//! whose doc comment is missing, which the model would see without a
//! description.

// Lets the generated bindings name this crate the way downstream expansions
// of `export_plugin!` do.
extern crate self as mcp_wasm_sdk;

#[cfg(test)]
mod attribute_tests;
pub mod client;
pub mod defaults;
mod error;
#[doc(hidden)]
pub mod glue;
mod host;
#[cfg(feature = "http")]
pub mod http;
mod output;
mod router;
pub mod schema;
mod serve;
pub mod store;
mod tool;

pub use error::{ToolError, ToolResult};
pub use host::{log, progress};
pub use output::{Annotations, Content, Output, ResourceBody, Role};
pub use router::{Plugin, Router};
pub use serve::{
    Contents, MAX_COMPLETIONS, Messages, Part, PromptArg, PromptDef, PromptResult, ResourceDef,
    ResourceResult, TemplateDef, VIEW_MIME_TYPE, Vars, View, match_template,
};
pub use tool::{Hints, Icon, IconTheme, NoArgs, TaskSupport, ToolDef};

/// Makes a function a tool, for [`export_tools!`] and [`tool_router!`].
///
/// The function stays as written (call it from unit tests); the attribute
/// adds a hidden companion that routes calls to it:
///
/// - the tool's **name** is the function's, its **description** the
///   function's doc comment (a tool without one does not compile);
/// - each **parameter** is an argument: its name, its type's schema and its
///   doc comment make the input schema. `Option<T>` parameters are optional;
///   `#[serde(...)]` and `#[schemars(...)]` attributes go on parameters as on
///   fields, e.g. `#[schemars(range(max = 10))]` or
///   `#[serde(default = "defaults::u32::<2>")]`. A function without
///   parameters takes no arguments ([`NoArgs`]);
/// - the **result** is content if it is a `String`, `&str`, [`Output`] or
///   [`ToolResult`], and structured content (with an output schema derived
///   from the type) if it is anything else, e.g. a struct deriving
///   `Serialize` and `JsonSchema`. Wrap it in `Result<_, ToolError>` (or any
///   error type that converts into [`ToolError`]) to refuse a call. The
///   attribute reads the type as written, so spell these names out rather
///   than through an alias.
///
/// The attribute's keys set the rest of the [`ToolDef`]: `name = "…"`,
/// `title = "…"`, `description = "…"`, and the hints `read_only`,
/// `idempotent`, `destructive` (or `destructive = false`), `open_world` (or
/// `open_world = false`), `closed_world` and `pure`.
///
/// ```
/// use mcp_wasm_sdk::prelude::*;
///
/// /// Repeat a text.
/// #[tool(read_only, idempotent)]
/// fn repeat(
///     /// The text to repeat.
///     text: String,
///     /// How many times (default 2).
///     #[schemars(range(max = 10))]
///     times: Option<usize>,
/// ) -> Result<String, ToolError> {
///     if text.is_empty() {
///         return Err(ToolError::invalid_arguments("`text` is empty"));
///     }
///     Ok(text.repeat(times.unwrap_or(2)))
/// }
///
/// assert_eq!(repeat("ab".into(), Some(3)), Ok("ababab".into()));
/// let router = tool_router![repeat];
/// let out = router.call("repeat", r#"{"text":"ab"}"#).unwrap();
/// assert_eq!(out.content()[0].as_text(), Some("abab"));
/// assert!(router.list()[0].input_schema().unwrap().contains("How many times"));
/// ```
///
/// Misuse does not compile, with an error that says what to write: a tool
/// without a doc comment ("a #[tool] needs a description: write a `///` doc
/// comment on the function…"),
///
/// ```compile_fail
/// use mcp_wasm_sdk::prelude::*;
///
/// #[tool]
/// fn shout(text: String) -> String {
///     text.to_uppercase()
/// }
/// ```
///
/// a borrowed parameter ("a #[tool] parameter is an owned value (`String`,
/// not `&str`)…"), a method, an `async` or generic function, a parameter
/// that is a pattern, or an unknown key:
///
/// ```compile_fail
/// use mcp_wasm_sdk::prelude::*;
///
/// /// Shout.
/// #[tool(readonly)]
/// fn shout(text: &str) -> String {
///     text.to_uppercase()
/// }
/// ```
pub use mcp_wasm_sdk_macros::tool;

/// A [`Router`] with the given [`#[tool]`](tool) functions, in order: for a
/// plugin's unit tests, or to add resources and prompts in a [`Plugin`].
///
/// ```
/// use mcp_wasm_sdk::prelude::*;
///
/// /// Say hello.
/// #[tool]
/// fn hello() -> &'static str {
///     "Hello!"
/// }
///
/// let router = tool_router![hello];
/// assert_eq!(router.call("hello", "{}").unwrap().content()[0].as_text(), Some("Hello!"));
/// ```
pub use mcp_wasm_sdk_macros::tool_router;

/// Exports the given [`#[tool]`](tool) functions as the plugin: the
/// one-line form of a [`Plugin`] whose router is [`tool_router!`], exported
/// with [`export_plugin!`]. Use it once, at the root of a `cdylib` crate.
///
/// ```
/// use mcp_wasm_sdk::prelude::*;
///
/// /// Say hello.
/// #[tool]
/// fn hello() -> &'static str {
///     "Hello!"
/// }
///
/// export_tools!(hello);
/// ```
pub use mcp_wasm_sdk_macros::export_tools;

/// Re-export of `schemars`, for `#[derive(JsonSchema)]` attributes such as
/// `#[schemars(range(min = 1))]`.
pub use schemars;
/// Re-export of `serde`.
pub use serde;
/// Re-export of `serde_json`.
pub use serde_json;

/// Everything a plugin usually needs: `use mcp_wasm_sdk::prelude::*;`.
///
/// It also brings `schemars` into scope, which `#[derive(JsonSchema)]` needs,
/// so a plugin does not have to depend on `schemars` itself. Serde's derives
/// need a crate named `serde`: add `serde` to the plugin's dependencies (or
/// put `#[serde(crate = "mcp_wasm_sdk::serde")]` on each derived type).
pub mod prelude {
    pub use crate::{
        Contents, Icon, IconTheme, Messages, NoArgs, Output, Plugin, PromptDef, PromptResult,
        ResourceDef, ResourceResult, Role, Router, TaskSupport, TemplateDef, ToolDef, ToolError,
        ToolResult, Vars, View, defaults, export_plugin, export_tools, log, progress, schemars,
        serde_json, tool, tool_router,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Exports a [`Plugin`] as the component's implementation of the
/// `mcp-wasm-host:plugin` world. Use it once, at the root of a `cdylib`
/// crate built for `wasm32-wasip2`. On other targets it exports nothing, so
/// the plugin crate still builds natively for its unit tests.
///
/// ```
/// use mcp_wasm_sdk::prelude::*;
///
/// struct Hello;
///
/// impl Plugin for Hello {
///     fn router() -> Router {
///         Router::new().tool(ToolDef::new("hello", "Says hello."), |_: NoArgs| Ok("Hello!"))
///     }
/// }
///
/// mcp_wasm_sdk::export_plugin!(Hello);
/// ```
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty) => {
        const _: () = {
            #[allow(dead_code)]
            struct __McpWasmSdkExports;

            impl $crate::__private::Guest for __McpWasmSdkExports {
                fn list_tools() -> $crate::__private::Vec<$crate::__private::ToolDefinition> {
                    $crate::__private::list_tools::<$plugin>()
                }

                fn call_tool(
                    name: $crate::__private::String,
                    arguments: $crate::__private::String,
                ) -> ::core::result::Result<
                    $crate::__private::CallResult,
                    $crate::__private::WitToolError,
                > {
                    $crate::__private::call_tool::<$plugin>(&name, &arguments)
                }
            }

            impl $crate::__private::bindings::exports::mcp_wasm_host::plugin::resources::Guest
                for __McpWasmSdkExports
            {
                fn list_resources() -> $crate::__private::Vec<
                    $crate::__private::bindings::exports::mcp_wasm_host::plugin::resources::ResourceDefinition,
                > {
                    $crate::glue::list_resources::<$plugin>()
                }
                fn list_resource_templates() -> $crate::__private::Vec<
                    $crate::__private::bindings::exports::mcp_wasm_host::plugin::resources::ResourceTemplate,
                > {
                    $crate::glue::list_resource_templates::<$plugin>()
                }
                fn list_tool_views() -> $crate::__private::Vec<
                    $crate::__private::bindings::exports::mcp_wasm_host::plugin::resources::ToolView,
                > {
                    $crate::glue::list_tool_views::<$plugin>()
                }
                fn read_resource(
                    uri: $crate::__private::String,
                ) -> ::core::result::Result<
                    $crate::__private::Vec<
                        $crate::__private::bindings::exports::mcp_wasm_host::plugin::resources::ResourceContents,
                    >,
                    $crate::__private::bindings::mcp_wasm_host::plugin::errors::ServeError,
                > {
                    $crate::glue::read_resource::<$plugin>(&uri)
                }
            }

            impl $crate::__private::bindings::exports::mcp_wasm_host::plugin::prompts::Guest
                for __McpWasmSdkExports
            {
                fn list_prompts() -> $crate::__private::Vec<
                    $crate::__private::bindings::exports::mcp_wasm_host::plugin::prompts::PromptDefinition,
                > {
                    $crate::glue::list_prompts::<$plugin>()
                }
                fn get_prompt(
                    name: $crate::__private::String,
                    arguments: $crate::__private::Vec<($crate::__private::String, $crate::__private::String)>,
                ) -> ::core::result::Result<
                    $crate::__private::bindings::exports::mcp_wasm_host::plugin::prompts::PromptResult,
                    $crate::__private::bindings::mcp_wasm_host::plugin::errors::ServeError,
                > {
                    $crate::glue::get_prompt::<$plugin>(&name, arguments)
                }
            }

            impl $crate::__private::bindings::exports::mcp_wasm_host::plugin::completions::Guest
                for __McpWasmSdkExports
            {
                fn complete(
                    request: $crate::__private::bindings::exports::mcp_wasm_host::plugin::completions::CompletionRequest,
                ) -> ::core::result::Result<
                    $crate::__private::bindings::exports::mcp_wasm_host::plugin::completions::Completion,
                    $crate::__private::bindings::mcp_wasm_host::plugin::errors::ServeError,
                > {
                    $crate::glue::complete::<$plugin>(request)
                }
            }

            // A native build of the plugin (for its unit tests) has no
            // component exports to link; this keeps its tools from being
            // reported as dead code there.
            #[cfg(not(target_arch = "wasm32"))]
            #[used]
            static __MCP_WASM_SDK_ROUTER: fn() -> $crate::Router =
                <$plugin as $crate::Plugin>::router;

            #[cfg(target_arch = "wasm32")]
            $crate::__private::bindings::__export_plugin_world!(
                __McpWasmSdkExports with_types_in $crate::__private::bindings
            );
        };
    };
}

/// Implementation details of [`export_plugin!`]; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use std::string::String;
    pub use std::vec::Vec;

    pub use wit_bindgen;

    /// The generated bindings of the `plugin` world.
    #[allow(
        unsafe_code,
        unused_qualifications,
        missing_debug_implementations,
        missing_docs,
        clippy::all
    )]
    pub mod bindings {
        wit_bindgen::generate!({
            path: "wit",
            world: "plugin-full",
            pub_export_macro: true,
            export_macro_name: "__export_plugin_world",
            default_bindings_module: "mcp_wasm_sdk::__private::bindings",
            runtime_path: "mcp_wasm_sdk::__private::wit_bindgen::rt",
        });

        /// The generated bindings of `wasi:keyvalue@0.2.0-draft2` for
        /// [`crate::store`], from the vendored WIT in the repository's
        /// `wit/wasi/` (read in place). Their imports reach a component only
        /// if the plugin calls them.
        pub mod keyvalue {
            wit_bindgen::generate!({
                path: "wit/wasi/keyvalue@0.2.0-draft2",
                world: "wasi:keyvalue/imports@0.2.0-draft2",
                generate_all,
            });
        }
    }

    pub use bindings::exports::mcp_wasm_host::plugin::tools::Guest;
    use bindings::mcp_wasm_host::plugin::types as wit;
    pub use wit::{CallResult, ToolDefinition, ToolError as WitToolError};

    use crate::{Annotations, Content, Plugin, ResourceBody, Role, ToolDef, ToolError};

    /// `list-tools` for plugin `P`.
    pub fn list_tools<P: Plugin>() -> Vec<ToolDefinition> {
        P::router().list().into_iter().map(definition).collect()
    }

    /// `call-tool` for plugin `P`.
    pub fn call_tool<P: Plugin>(name: &str, arguments: &str) -> Result<CallResult, WitToolError> {
        match P::router().call(name, arguments) {
            Ok(output) => {
                let (content, structured_content, is_error) = output.into_parts();
                Ok(CallResult {
                    content: content.into_iter().map(block).collect(),
                    structured_content,
                    is_error,
                })
            }
            Err(ToolError::InvalidArguments(m)) => Err(WitToolError::InvalidArguments(m)),
            Err(ToolError::UnknownTool(m)) => Err(WitToolError::UnknownTool(m)),
            Err(ToolError::Denied(m)) => Err(WitToolError::Denied(m)),
            Err(ToolError::Failed(m)) => Err(WitToolError::Failed(m)),
        }
    }

    fn definition(def: ToolDef) -> ToolDefinition {
        let hints = def.hints();
        ToolDefinition {
            name: def.name().to_owned(),
            title: def.get_title().map(str::to_owned),
            description: def.description().to_owned(),
            input_schema: def.input_schema().unwrap_or_default().to_owned(),
            output_schema: def.output_schema().map(str::to_owned),
            annotations: wit::ToolAnnotations {
                title: def.get_title().map(str::to_owned),
                read_only_hint: hints.read_only,
                destructive_hint: hints.destructive,
                idempotent_hint: hints.idempotent,
                open_world_hint: hints.open_world,
            },
            icons: def.icons().iter().map(icon).collect(),
            task_support: match def.task_support() {
                crate::TaskSupport::Forbidden => wit::TaskSupport::Forbidden,
                crate::TaskSupport::Optional => wit::TaskSupport::Optional,
                crate::TaskSupport::Required => wit::TaskSupport::Required,
            },
        }
    }

    fn icon(i: &crate::Icon) -> wit::Icon {
        wit::Icon {
            src: i.src().to_owned(),
            mime_type: i.get_mime_type().map(str::to_owned),
            sizes: i.get_sizes().to_vec(),
            theme: i.get_theme().map(|t| match t {
                crate::IconTheme::Light => wit::IconTheme::Light,
                crate::IconTheme::Dark => wit::IconTheme::Dark,
            }),
        }
    }

    fn annotations(a: Option<Annotations>) -> Option<wit::ContentAnnotations> {
        a.map(|a| wit::ContentAnnotations {
            audience: a
                .audience
                .into_iter()
                .map(|role| match role {
                    Role::User => wit::Role::User,
                    Role::Assistant => wit::Role::Assistant,
                })
                .collect(),
            priority: a.priority,
            last_modified: a.last_modified,
        })
    }

    /// A content block as the WIT's.
    pub fn block(content: Content) -> wit::ContentBlock {
        match content {
            Content::Text {
                text,
                annotations: a,
            } => wit::ContentBlock::Text(wit::TextContent {
                text,
                annotations: annotations(a),
            }),
            Content::Image {
                data,
                mime_type,
                annotations: a,
            } => wit::ContentBlock::Image(wit::MediaContent {
                data,
                mime_type,
                annotations: annotations(a),
            }),
            Content::Audio {
                data,
                mime_type,
                annotations: a,
            } => wit::ContentBlock::Audio(wit::MediaContent {
                data,
                mime_type,
                annotations: annotations(a),
            }),
            Content::Resource {
                uri,
                mime_type,
                body,
                annotations: a,
            } => wit::ContentBlock::Resource(wit::EmbeddedResource {
                uri,
                mime_type,
                body: match body {
                    ResourceBody::Text(text) => wit::ResourceBody::Text(text),
                    ResourceBody::Blob(data) => wit::ResourceBody::Blob(data),
                },
                annotations: annotations(a),
            }),
            Content::ResourceLink {
                uri,
                name,
                title,
                description,
                mime_type,
                size,
                annotations: a,
            } => wit::ContentBlock::ResourceLink(wit::ResourceLink {
                uri,
                name,
                title,
                description,
                mime_type,
                size,
                annotations: annotations(a),
            }),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::prelude::*;

        struct Demo;

        impl Plugin for Demo {
            fn router() -> Router {
                Router::new()
                    .tool(
                        ToolDef::new("all", "All content.")
                            .title("All")
                            .destructive(false)
                            .open_world(true),
                        |_: NoArgs| -> ToolResult {
                            Ok(Output::text("t")
                                .audience([Role::Assistant])
                                .and(Output::image(vec![1], "image/png"))
                                .and(Output::audio(vec![2], "audio/wav"))
                                .and(Output::resource_text("mem:a", "text/plain", "a"))
                                .and(Output::resource_blob("mem:b", "application/x", vec![3]))
                                .and(Output::resource_link("mem:c", "c").mime_type("text/x"))
                                .error())
                        },
                    )
                    .tool(
                        ToolDef::new("denied", "Denied."),
                        |_: NoArgs| -> ToolResult { Err(ToolError::denied("no")) },
                    )
            }
        }

        #[test]
        fn list_tools_maps_annotations() {
            let defs = list_tools::<Demo>();
            assert_eq!(defs.len(), 2);
            let all = &defs[0];
            assert_eq!(all.title.as_deref(), Some("All"));
            assert_eq!(all.annotations.title.as_deref(), Some("All"));
            assert_eq!(all.annotations.destructive_hint, Some(false));
            assert_eq!(all.annotations.open_world_hint, Some(true));
            assert_eq!(all.annotations.read_only_hint, None);
            assert_eq!(all.annotations.idempotent_hint, None);
            assert!(all.output_schema.is_none());
            assert_eq!(defs[1].annotations.title, None);
        }

        #[test]
        fn call_tool_maps_content_and_errors() {
            let result = call_tool::<Demo>("all", "{}").expect("ok");
            assert!(result.is_error);
            assert_eq!(result.content.len(), 6);
            assert!(matches!(
                &result.content[0],
                wit::ContentBlock::Text(t) if t.annotations.as_ref().is_some_and(|a| a.audience == [wit::Role::Assistant])
            ));
            assert!(
                matches!(&result.content[2], wit::ContentBlock::Audio(m) if m.mime_type == "audio/wav")
            );
            assert!(matches!(
                &result.content[5],
                wit::ContentBlock::ResourceLink(l) if l.mime_type.as_deref() == Some("text/x")
            ));
            assert!(matches!(
                call_tool::<Demo>("denied", "{}"),
                Err(WitToolError::Denied(m)) if m == "no"
            ));
            assert!(matches!(
                call_tool::<Demo>("x", "{}"),
                Err(WitToolError::UnknownTool(m)) if m == "x"
            ));
        }
    }
}
