//! A plugin's pre-instantiated component and the two exports of its `tools`
//! interface the host calls (`call-tool`, `list-tools`): found by name once
//! per loaded component (in the newest version of the contract it exports,
//! see [`SUPPORTED_VERSIONS`]), type-checked once (in the instance that
//! lists the tools at load), then fetched by index from each call's
//! instance without another lookup or type check. The generated bindings
//! would instead look up and type-check every export after each
//! instantiation.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use wasmtime::component::{Component, ComponentExportIndex, Instance, InstancePre, TypedFunc};
use wasmtime::{AsContextMut, Engine};

use crate::call::sandbox::CallState;
use crate::definitions::served::Listing;
use crate::error::HostFault;
use crate::load::bindings::exports::mcp_wasm_host::plugin::{
    completions as wc, prompts as wp, resources as wr,
};
use crate::load::bindings::mcp_wasm_host::plugin::errors::ServeError;
use crate::load::bindings::{SUPPORTED_VERSIONS, WIT_VERSION, types as wit, v0_1};
use crate::load::generic::Generic;

/// `call-tool: func(name: string, arguments: string) -> result<call-result, tool-error>`.
pub(crate) type CallTool<'a> =
    TypedFunc<(&'a str, &'a str), (Result<wit::CallResult, wit::ToolError>,)>;

/// `list-tools: func() -> list<tool-definition>`.
type ListTools = TypedFunc<(), (Vec<wit::ToolDefinition>,)>;

/// 0.1.x's `list-tools`, whose tool definitions have no icons.
type ListToolsV0_1 = TypedFunc<(), (Vec<v0_1::types::ToolDefinition>,)>;

/// `read-resource: func(uri: string) -> result<list<resource-contents>, serve-error>`.
type ReadResource<'a> = TypedFunc<(&'a str,), (Result<Vec<wr::ResourceContents>, ServeError>,)>;

/// `get-prompt: func(name: string, arguments: list<tuple<string, string>>) -> result<prompt-result, serve-error>`.
type GetPrompt<'a> =
    TypedFunc<(&'a str, &'a [(String, String)]), (Result<wp::PromptResult, ServeError>,)>;

/// `complete: func(request: completion-request) -> result<completion, serve-error>`.
type Complete<'a> = TypedFunc<(&'a wc::CompletionRequest,), (Result<wc::Completion, ServeError>,)>;

/// The functions of the optional `resources` export (WIT 0.2.1).
#[derive(Debug, Clone, Copy)]
struct ResourcesExport {
    list_resources: ComponentExportIndex,
    list_templates: ComponentExportIndex,
    list_views: ComponentExportIndex,
    read: ComponentExportIndex,
}

/// The functions of the optional `prompts` export (WIT 0.2.1).
#[derive(Debug, Clone, Copy)]
struct PromptsExport {
    list: ComponentExportIndex,
    get: ComponentExportIndex,
}

/// What the host calls in a component: our `tools` interface, or the
/// functions of a generic component.
enum Api {
    /// `call-tool` and `list-tools` of our `tools` interface.
    Tools {
        call_tool: ComponentExportIndex,
        list_tools: ComponentExportIndex,
    },
    /// A generic component's functions.
    Generic(Arc<Generic>),
}

/// A component linked against the host, with the indices of the exports the
/// host calls.
pub(crate) struct Exports {
    pre: InstancePre<CallState>,
    api: Api,
    resources: Option<ResourcesExport>,
    prompts: Option<PromptsExport>,
    complete: Option<ComponentExportIndex>,
    /// The version of the contract whose `tools` the component exports.
    version: &'static str,
    /// Both exports were type-checked against an instance of `pre`.
    checked: AtomicBool,
}

impl std::fmt::Debug for Exports {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exports")
            .field("version", &self.version)
            .field("checked", &self.checked)
            .finish_non_exhaustive()
    }
}

/// Why a component exports no `tools` interface this host serves: built
/// against a WIT version it does not serve (named, with what to do), or
/// with no `tools` interface at all.
fn unsupported_tools_version(component: &Component, engine: &Engine) -> ExportsError {
    let found = component
        .component_type()
        .exports(engine)
        .find_map(|(name, _)| {
            name.strip_prefix("mcp-wasm-host:plugin/tools@")
                .map(str::to_owned)
        });
    match found {
        Some(version) => ExportsError::WitVersion {
            newer: newer_than(&version, WIT_VERSION),
            version,
        },
        None => ExportsError::NoTools,
    }
}

/// Why a component is not a plugin this host serves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportsError {
    /// It exports the `tools` interface of a WIT version this host does not
    /// serve.
    #[error(
        "the plugin is built against the plugin WIT {version} (`mcp-wasm-host:plugin/tools@{version}`), which this host (mcp-wasm-host {}) does not serve: it serves {}; {}",
        env!("CARGO_PKG_VERSION"),
        SUPPORTED_VERSIONS.join(", "),
        remedy(.version, *.newer)
    )]
    WitVersion {
        /// The version it exports.
        version: String,
        /// Whether that version is newer than this host's.
        newer: bool,
    },
    /// It exports no `tools` interface.
    #[error(
        "no exported instance named `mcp-wasm-host:plugin/tools@{WIT_VERSION}` (nor one of the earlier versions {})",
        SUPPORTED_VERSIONS[1..].join(", ")
    )]
    NoTools,
    /// An interface it exports lacks a function.
    #[error("instance export `{interface}` does not have export `{name}`")]
    MissingExport {
        /// The interface.
        interface: String,
        /// The function.
        name: String,
    },
}

/// What the user of a plugin built against WIT `version` can do.
fn remedy(version: &str, newer: bool) -> String {
    if newer {
        format!(
            "it was built with a newer SDK than this host: install an mcp-wasm-host that serves WIT {version}, or build the plugin with an SDK of WIT {WIT_VERSION} (docs/versions.md)"
        )
    } else {
        format!("rebuild it with an SDK of WIT {WIT_VERSION} (docs/versions.md)")
    }
}

/// Whether the version `a` is later than `b` (dotted numbers; a part that
/// is not a number counts as 0).
fn newer_than(a: &str, b: &str) -> bool {
    let parts = |v: &str| -> Vec<u64> {
        v.split(['.', '-', '+'])
            .map(|p| p.parse().unwrap_or(0))
            .collect()
    };
    parts(a) > parts(b)
}

impl Exports {
    /// Finds the `tools` interface's functions in the component behind
    /// `pre`, in the newest supported version it exports. wasmtime matches
    /// the interface's name semver-compatibly, so a plugin built against
    /// 0.1.0 and 0.1.1 are found as 0.1.2. Fails, naming what is missing, if the
    /// component does not export them.
    pub(crate) fn find(pre: InstancePre<CallState>) -> Result<Self, ExportsError> {
        let component = pre.component();
        let Some((version, interface, tools)) = SUPPORTED_VERSIONS.iter().find_map(|v| {
            let interface = format!("mcp-wasm-host:plugin/tools@{v}");
            let tools = component.get_export_index(None, &interface)?;
            Some((*v, interface, tools))
        }) else {
            return Err(unsupported_tools_version(component, component.engine()));
        };
        let missing = |interface: &str, name: &str| ExportsError::MissingExport {
            interface: interface.to_string(),
            name: name.to_string(),
        };
        let function = |name: &str| {
            component
                .get_export_index(Some(&tools), name)
                .ok_or_else(|| missing(&interface, name))
        };
        let (call_tool, list_tools) = (function("call-tool")?, function("list-tools")?);
        // The optional exports of 0.2.1, each found on its own; a 0.1.x
        // plugin has none.
        let optional = |name: &str, functions: &[&str]| -> Result<Option<Vec<_>>, ExportsError> {
            if version != WIT_VERSION {
                return Ok(None);
            }
            let interface = format!("mcp-wasm-host:plugin/{name}@{WIT_VERSION}");
            let Some(instance) = component.get_export_index(None, &interface) else {
                return Ok(None);
            };
            functions
                .iter()
                .map(|f| {
                    component
                        .get_export_index(Some(&instance), f)
                        .ok_or_else(|| missing(&interface, f))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        };
        let resources = optional(
            "resources",
            &[
                "list-resources",
                "list-resource-templates",
                "list-tool-views",
                "read-resource",
            ],
        )?
        .map(|f| ResourcesExport {
            list_resources: f[0],
            list_templates: f[1],
            list_views: f[2],
            read: f[3],
        });
        let prompts =
            optional("prompts", &["list-prompts", "get-prompt"])?.map(|f| PromptsExport {
                list: f[0],
                get: f[1],
            });
        let complete = optional("completions", &["complete"])?.map(|f| f[0]);
        Ok(Exports {
            pre,
            api: Api::Tools {
                call_tool,
                list_tools,
            },
            resources,
            prompts,
            complete,
            version,
            checked: AtomicBool::new(false),
        })
    }

    /// A generic component's exports: its functions, and nothing else.
    pub(crate) fn generic(pre: InstancePre<CallState>, generic: Arc<Generic>) -> Self {
        Exports {
            pre,
            api: Api::Generic(generic),
            resources: None,
            prompts: None,
            complete: None,
            version: "generic",
            checked: AtomicBool::new(false),
        }
    }

    /// The functions of a generic component (none for a plugin).
    pub(crate) fn generic_functions(&self) -> Option<&Generic> {
        match &self.api {
            Api::Generic(g) => Some(g),
            Api::Tools { .. } => None,
        }
    }

    /// `call-tool` and `list-tools`, or an error for a generic component.
    fn tools_api(&self) -> wasmtime::Result<(ComponentExportIndex, ComponentExportIndex)> {
        match self.api {
            Api::Tools {
                call_tool,
                list_tools,
            } => Ok((call_tool, list_tools)),
            Api::Generic(_) => Err(HostFault::error(
                "a generic component exports no `tools` interface",
            )),
        }
    }

    /// The engine the component was compiled for.
    pub(crate) fn engine(&self) -> &Engine {
        self.pre.engine()
    }

    /// The component, linked: what makes its instances, for making one off
    /// the call path.
    pub(crate) fn pre(&self) -> &InstancePre<CallState> {
        &self.pre
    }

    /// A new instance of the component in `store`.
    pub(crate) async fn instantiate(
        &self,
        store: impl AsContextMut<Data = CallState>,
    ) -> wasmtime::Result<Instance> {
        self.pre.instantiate_async(store).await
    }

    /// Calls `list-tools` of `instance`, type-checking both exports on the
    /// way (once per component: every instance of it has the same types).
    /// A 0.1.x plugin's definitions come without icons.
    pub(crate) async fn list_tools(
        &self,
        mut store: impl AsContextMut<Data = CallState>,
        instance: &Instance,
    ) -> wasmtime::Result<Vec<wit::ToolDefinition>> {
        let (call_tool, list_tools) = self.tools_api()?;
        // `call-tool` has the same types in every version.
        let _: CallTool<'_> = instance.get_typed_func(&mut store, call_tool)?;
        let defs = if self.version == WIT_VERSION {
            let list: ListTools = instance.get_typed_func(&mut store, list_tools)?;
            self.checked.store(true, Ordering::Relaxed);
            list.call_async(&mut store, ()).await?.0
        } else {
            let list: ListToolsV0_1 = instance.get_typed_func(&mut store, list_tools)?;
            self.checked.store(true, Ordering::Relaxed);
            let (defs,) = list.call_async(&mut store, ()).await?;
            defs.into_iter().map(Into::into).collect()
        };
        Ok(defs)
    }

    /// Calls the list functions of the optional exports of `instance`
    /// (type-checking them), for the plugin's resources, templates, views
    /// and prompts.
    /// Each list gets a fresh `fuel` budget (when the engine meters fuel),
    /// as each call does: an SDK may build its whole router for each.
    pub(crate) async fn list_served(
        &self,
        mut store: impl AsContextMut<Data = CallState>,
        instance: &Instance,
        fuel: Option<u64>,
    ) -> wasmtime::Result<Listing> {
        let refuel = |store: &mut dyn FnMut(u64) -> wasmtime::Result<()>| match fuel {
            Some(f) => store(f),
            None => Ok(()),
        };
        let mut listing = Listing {
            completes: self.complete.is_some(),
            ..Listing::default()
        };
        if let Some(complete) = self.complete {
            let _: Complete<'_> = instance.get_typed_func(&mut store, complete)?;
        }
        if let Some(r) = self.resources {
            let _: ReadResource<'_> = instance.get_typed_func(&mut store, r.read)?;
            refuel(&mut |f| store.as_context_mut().set_fuel(f))?;
            let list: TypedFunc<(), (Vec<wr::ResourceDefinition>,)> =
                instance.get_typed_func(&mut store, r.list_resources)?;
            listing.resources = list.call_async(&mut store, ()).await?.0;
            refuel(&mut |f| store.as_context_mut().set_fuel(f))?;
            let list: TypedFunc<(), (Vec<wr::ResourceTemplate>,)> =
                instance.get_typed_func(&mut store, r.list_templates)?;
            listing.templates = list.call_async(&mut store, ()).await?.0;
            refuel(&mut |f| store.as_context_mut().set_fuel(f))?;
            let list: TypedFunc<(), (Vec<wr::ToolView>,)> =
                instance.get_typed_func(&mut store, r.list_views)?;
            listing.views = list.call_async(&mut store, ()).await?.0;
        }
        if let Some(p) = self.prompts {
            let _: GetPrompt<'_> = instance.get_typed_func(&mut store, p.get)?;
            refuel(&mut |f| store.as_context_mut().set_fuel(f))?;
            let list: TypedFunc<(), (Vec<wp::PromptDefinition>,)> =
                instance.get_typed_func(&mut store, p.list)?;
            listing.prompts = list.call_async(&mut store, ()).await?.0;
        }
        Ok(listing)
    }

    /// Calls `read-resource` of `instance`.
    pub(crate) async fn read_resource(
        &self,
        mut store: impl AsContextMut<Data = CallState>,
        instance: &Instance,
        uri: &str,
    ) -> wasmtime::Result<Result<Vec<wr::ResourceContents>, ServeError>> {
        let r = self
            .resources
            .ok_or_else(|| HostFault::error("the plugin does not export `resources`"))?;
        let read: ReadResource<'_> = instance.get_typed_func(&mut store, r.read)?;
        Ok(read.call_async(&mut store, (uri,)).await?.0)
    }

    /// Calls `get-prompt` of `instance`.
    pub(crate) async fn get_prompt(
        &self,
        mut store: impl AsContextMut<Data = CallState>,
        instance: &Instance,
        name: &str,
        arguments: &[(String, String)],
    ) -> wasmtime::Result<Result<wp::PromptResult, ServeError>> {
        let p = self
            .prompts
            .ok_or_else(|| HostFault::error("the plugin does not export `prompts`"))?;
        let get: GetPrompt<'_> = instance.get_typed_func(&mut store, p.get)?;
        Ok(get.call_async(&mut store, (name, arguments)).await?.0)
    }

    /// Calls `complete` of `instance`.
    pub(crate) async fn complete(
        &self,
        mut store: impl AsContextMut<Data = CallState>,
        instance: &Instance,
        request: &wc::CompletionRequest,
    ) -> wasmtime::Result<Result<wc::Completion, ServeError>> {
        let complete = self
            .complete
            .ok_or_else(|| HostFault::error("the plugin does not export `completions`"))?;
        let f: Complete<'_> = instance.get_typed_func(&mut store, complete)?;
        Ok(f.call_async(&mut store, (request,)).await?.0)
    }

    /// `call-tool` of `instance`, an instance of this component.
    pub(crate) fn call_tool<'a>(
        &self,
        mut store: impl AsContextMut,
        instance: &Instance,
    ) -> wasmtime::Result<CallTool<'a>> {
        let (call_tool, _) = self.tools_api()?;
        if !self.checked.load(Ordering::Relaxed) {
            return instance.get_typed_func(&mut store, call_tool);
        }
        let func = instance
            .get_func(&mut store, call_tool)
            .ok_or_else(|| HostFault::error("the instance does not export `call-tool`"))?;
        // SAFETY: `checked` is set only once `call-tool`'s type matched
        // `CallTool` in an instance of this component, and `get_func` found
        // the function by an index that only this component's instances
        // accept (an index carries its component's id). A function's type
        // is the component's, the same in every instance of it, and its
        // signature names no resource type an instance could vary.
        #[allow(unsafe_code)]
        Ok(unsafe { CallTool::new_unchecked(func) })
    }
}
