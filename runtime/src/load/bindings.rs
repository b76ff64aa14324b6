//! Host-side bindings generated from the WIT contract in `wit/`, the version
//! of that contract, and the bindings kept for earlier minor versions (see
//! [`v0_1`]) so that plugins built against them keep loading.

use wasmtime::component::{Linker, LinkerInstance};

/// The version of the WIT package `mcp-wasm-host:plugin` this host speaks.
pub const WIT_VERSION: &str = "0.2.1";

/// Every minor version of the contract this host serves, newest first: the
/// current one and the latest of each earlier minor version (a plugin built
/// against an earlier patch of one, such as 0.1.0, links with it too).
pub const SUPPORTED_VERSIONS: [&str; 2] = [WIT_VERSION, v0_1::VERSION];

/// What `bindgen!` generates for the current contract; its items are the
/// WIT's own, documented there (the fuzz targets reach `types`).
#[allow(missing_docs)]
mod generated {
    wasmtime::component::bindgen!({
        path: "wit/plugin.wit",
        // The world with every optional export, for their types; the host finds
        // each export on its own (see `Exports`).
        world: "plugin-full",
        // A request to the client may end the call (see `ClientRequestError::Deferred`).
        imports: { "mcp-wasm-host:plugin/client": async | trappable, default: async },
        exports: { default: async },
    });
}
pub(crate) use generated::*;

pub use generated::mcp_wasm_host::plugin::types;

/// Defines, with `define`, the instance named `interface` (e.g. `client`)
/// of every earlier minor version in [`SUPPORTED_VERSIONS`]. The current
/// version's host functions serve them as they are: every function an
/// earlier version imports has the same signature now (changing one would
/// make a new function), wasmtime checks types by their structure, and a
/// plugin ignores the functions its version does not import.
pub(crate) fn link_earlier<T: 'static>(
    linker: &mut Linker<T>,
    interface: &str,
    mut define: impl FnMut(&mut LinkerInstance<'_, T>) -> wasmtime::Result<()>,
) -> wasmtime::Result<()> {
    for version in &SUPPORTED_VERSIONS[1..] {
        let name = format!("{}/{interface}@{version}", crate::load::imports::PACKAGE);
        define(&mut linker.instance(&name)?)?;
    }
    Ok(())
}

/// The bindings of WIT 0.1.x (`wit/history/plugin@0.1.2.wit`). Only its
/// types are used: the `tools` export of a 0.1.x plugin lists tool
/// definitions without icons, which [`Exports`](crate::load::exports::Exports)
/// reads with these types and turns into the current ones; its imports are
/// served by the current host functions (see [`link_earlier`]).
pub mod v0_1 {
    /// The latest 0.1.x version, whose WIT `wit/history/` keeps.
    pub const VERSION: &str = "0.1.2";

    wasmtime::component::bindgen!({
        path: "wit/history/plugin@0.1.2.wit",
        world: "plugin",
    });

    pub use self::mcp_wasm_host::plugin::types;

    impl From<types::ToolDefinition> for super::types::ToolDefinition {
        fn from(d: types::ToolDefinition) -> Self {
            let a = d.annotations;
            super::types::ToolDefinition {
                name: d.name,
                title: d.title,
                description: d.description,
                input_schema: d.input_schema,
                output_schema: d.output_schema,
                annotations: super::types::ToolAnnotations {
                    title: a.title,
                    read_only_hint: a.read_only_hint,
                    destructive_hint: a.destructive_hint,
                    idempotent_hint: a.idempotent_hint,
                    open_world_hint: a.open_world_hint,
                },
                icons: Vec::new(),
                task_support: super::types::TaskSupport::Forbidden,
            }
        }
    }
}

/// Redefines, with `define`, functions of the already linked `interface`
/// (`wasi:io/error@0.2.12`): for a host function whose WASI implementation
/// the host replaces (`io_errors`, the HTTP capability's error codes).
pub(crate) fn replace<T: 'static>(
    linker: &mut Linker<T>,
    interface: &str,
    define: impl FnOnce(&mut LinkerInstance<'_, T>) -> wasmtime::Result<()>,
) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let defined = linker
        .instance(interface)
        .and_then(|mut instance| define(&mut instance));
    linker.allow_shadowing(false);
    defined
}
