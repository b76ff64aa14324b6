//! A plugin's pre-instantiated component and the two exports of its `tools`
//! interface the host calls (`call-tool`, `list-tools`): found by name once
//! per loaded component (in the newest version of the contract it exports,
//! see [`SUPPORTED_VERSIONS`]), type-checked once (in the instance that
//! lists the tools at load), then fetched by index from each call's
//! instance without another lookup or type check. The generated bindings
//! would instead look up and type-check every export after each
//! instantiation.

use std::sync::atomic::{AtomicBool, Ordering};

use wasmtime::component::{ComponentExportIndex, Instance, InstancePre, TypedFunc};
use wasmtime::{AsContextMut, Engine};

use super::bindings::{SUPPORTED_VERSIONS, WIT_VERSION, types as wit, v0_1};
use super::sandbox::CallState;

/// `call-tool: func(name: string, arguments: string) -> result<call-result, tool-error>`.
pub(crate) type CallTool<'a> =
    TypedFunc<(&'a str, &'a str), (Result<wit::CallResult, wit::ToolError>,)>;

/// `list-tools: func() -> list<tool-definition>`.
type ListTools = TypedFunc<(), (Vec<wit::ToolDefinition>,)>;

/// 0.1.x's `list-tools`, whose tool definitions have no icons.
type ListToolsV0_1 = TypedFunc<(), (Vec<v0_1::types::ToolDefinition>,)>;

/// A component linked against the host, with the indices of the exports the
/// host calls.
pub(crate) struct Exports {
    pre: InstancePre<CallState>,
    call_tool: ComponentExportIndex,
    list_tools: ComponentExportIndex,
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

impl Exports {
    /// Finds the `tools` interface's functions in the component behind
    /// `pre`, in the newest supported version it exports. wasmtime matches
    /// the interface's name semver-compatibly, so a plugin built against
    /// 0.1.0 and 0.1.1 are found as 0.1.2. Fails, naming what is missing, if the
    /// component does not export them.
    pub(crate) fn find(pre: InstancePre<CallState>) -> Result<Self, String> {
        let component = pre.component();
        let Some((version, interface, tools)) = SUPPORTED_VERSIONS.iter().find_map(|v| {
            let interface = format!("mcp-wasm-host:plugin/tools@{v}");
            let tools = component.get_export_index(None, &interface)?;
            Some((*v, interface, tools))
        }) else {
            let earlier = SUPPORTED_VERSIONS[1..].join(", ");
            return Err(format!(
                "no exported instance named `mcp-wasm-host:plugin/tools@{WIT_VERSION}` (nor one of the earlier versions {earlier})"
            ));
        };
        let function = |name: &str| {
            component
                .get_export_index(Some(&tools), name)
                .ok_or_else(|| {
                    format!("instance export `{interface}` does not have export `{name}`")
                })
        };
        let (call_tool, list_tools) = (function("call-tool")?, function("list-tools")?);
        Ok(Exports {
            pre,
            call_tool,
            list_tools,
            version,
            checked: AtomicBool::new(false),
        })
    }

    /// The engine the component was compiled for.
    pub(crate) fn engine(&self) -> &Engine {
        self.pre.engine()
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
        // `call-tool` has the same types in every version.
        let _: CallTool<'_> = instance.get_typed_func(&mut store, self.call_tool)?;
        let defs = if self.version == WIT_VERSION {
            let list: ListTools = instance.get_typed_func(&mut store, self.list_tools)?;
            self.checked.store(true, Ordering::Relaxed);
            list.call_async(&mut store, ()).await?.0
        } else {
            let list: ListToolsV0_1 = instance.get_typed_func(&mut store, self.list_tools)?;
            self.checked.store(true, Ordering::Relaxed);
            let (defs,) = list.call_async(&mut store, ()).await?;
            defs.into_iter().map(Into::into).collect()
        };
        Ok(defs)
    }

    /// `call-tool` of `instance`, an instance of this component.
    pub(crate) fn call_tool<'a>(
        &self,
        mut store: impl AsContextMut,
        instance: &Instance,
    ) -> wasmtime::Result<CallTool<'a>> {
        if !self.checked.load(Ordering::Relaxed) {
            return instance.get_typed_func(&mut store, self.call_tool);
        }
        let func = instance
            .get_func(&mut store, self.call_tool)
            .ok_or_else(|| wasmtime::format_err!("the instance does not export `call-tool`"))?;
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
