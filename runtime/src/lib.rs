//! `mcp-wasm-host-runtime`: sandboxed WebAssembly tools for an MCP server.
//! The engine, plugin loading, the policy types and each capability's
//! section, the sandbox, the calls and the compile cache. It speaks only its
//! own types and knows nothing of MCP (it does not depend on rmcp): the
//! `mcp-wasm-host` server maps them to MCP, and another Rust MCP server can
//! embed it the same way.
//!
//! Embedding, in short (the whole server is `runtime/examples/embed/` in
//! the repository, under 100 lines): build a [`Runtime`] from
//! [`EngineSettings`] and a [`PolicySource`] ([`DefaultPolicies`] grants
//! nothing), [`Runtime::load_dir`] a directory of components, list
//! [`Runtime::catalog`]'s tools, and [`Runtime::call`] one with its JSON
//! arguments and a [`Caller`]. A guest that traps, loops or reaches a limit
//! comes back as a [`CallError`], and the runtime goes on serving.
//!
//! Its modules are private: every public name has one path,
//! `mcp_wasm_host_runtime::Name`, re-exported here. Two modules stay public as
//! namespaces: [`capabilities`] (each capability's own types, under its
//! own module such as `capabilities::http`) and [`units`] (formatters named
//! by the quantity they write, read as `units::bytes`).
//!
//! By stage, in the order a plugin and then a call go through them (each
//! folder's `mod.rs` says what it owns and where its data goes next):
//! - [`Runtime`] itself, in `runtime.rs`, with an index of where each of
//!   its methods lives;
//! - `policy`: what the embedder grants each plugin (the runtime pulls a
//!   plugin's [`Policy`] from its [`Policies`] whenever it loads it);
//! - `load`: one plugin file to a loaded plugin, compiled once and kept in
//!   the `cache`; what it defines (tools, resources, prompts) in
//!   `definitions`;
//! - `catalog`: the loaded plugins under the names clients use, and its
//!   lifecycle (load, reload, remove, swap, watch);
//! - `serve`: a request routed through the catalog, admitted (quotas,
//!   bounds, a slot) and recorded (its receipt);
//! - `call`: the call itself in its sandbox (its events, while it runs,
//!   go out to the caller's [`CallEvents`], and the client's answers come
//!   back in);
//! - `egress`: the one boundary where what a guest produces leaves for the
//!   client;
//! - and, used by all of them: `error`, `observe`, [`units`] and
//!   [`capabilities`].

mod cache;
mod call;
pub mod capabilities;
mod catalog;
mod definitions;
mod egress;
mod error;
mod load;
mod observe;
mod policy;
mod runtime;
mod serve;
mod state;
pub mod units;

pub use cache::incremental::{DEFAULT_CAP as INCREMENTAL_CACHE_CAP, IncrementalStore};
pub use cache::{CacheError, CompileCache, NotADigest, Sha256Digest};
pub use call::events::{
    BoxFuture, CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationAction,
    ElicitationRequest, IncludeContext, LogLevel, ModelPreferences, NoEvents, Progress, RequestAt,
    Root, SampledMessage, SamplingContent, SamplingMessage, SamplingRequest, SamplingRole,
};
pub use call::session::Session;
pub use catalog::claims::NameClaims;
pub use catalog::fetched::SourcesUpdate;
pub use catalog::first_load::FirstLists;
pub use catalog::lifecycle::{LoadReport, ReloadOutcome};
pub use catalog::pending::{PendingPlugin, StillCompiling};
pub use catalog::watch::{
    DirWatcher, PolicyFile, PolicyLoader, PolicyReloadError, PolicySeen, PolicyUpdate, SourceFetch,
    WatchError, WatchOptions, watch,
};
pub use catalog::{
    Catalog, EntryKind, Generations, PromptEntry, ResourceEntry, SkipReason, SkippedEntry,
    TemplateEntry, ToolRoute,
};
pub use definitions::icons::{Icon, IconTheme};
pub use definitions::output::{
    Audience, Content, ContentHints, ResourceBody, TaskSupport, ToolHints, ToolInfo, ToolOutput,
    ToolView,
};
pub use definitions::schema::{Schema, plugin_prefix};
pub use definitions::served::{
    Completion, CompletionTarget, PromptArgument, PromptInfo, PromptOutput, ResourceInfo,
    ResourcePart, Served, TemplateInfo, ViewCsp, ViewPermissions, ViewSettings,
};
pub use definitions::tool::PluginTool;
pub use egress::outbound::{Field, Outbound};
pub use error::{
    Breach, CallError, DigestMismatch, Excess, FailureCause, Fault, GuestErrorKind, HostFault,
    LoadError, LoadProblem, MAX_MESSAGE, PolicyError, ToolFailure,
};
pub use load::bindings::WIT_VERSION;
pub use load::engine::{EngineError, EngineSettings, QuickCompile};
pub use load::generic::{GenericSummary, GenericTool, LeftOut};
pub use load::imports::ImportKind;
pub use load::inspection::{Inspection, WorldTarget};
pub use load::plugin::Plugin;
pub use load::stamp::FileStamp;
pub use mcp_wasm_host_store as store;
pub use observe::{CallEnd, NoObserver, Observer, Phase};
pub use policy::access::{Access, Denied, Principal};
/// A policy section's limit keys: their names ([`limits::key`]), read,
/// checked and applied to [`Limits`].
pub use policy::limits::spec as limits;
pub use policy::limits::{
    Limits, MAX_INSTANCES, MAX_MEMORIES, MAX_READY_INSTANCES, MAX_REUSE_INSTANCES,
    MAX_TABLE_ELEMENTS, MAX_TABLES,
};
pub use policy::{DefaultPolicies, Policies, Policy, PolicySource, ToolClash};
pub use runtime::{Runtime, RuntimeError};
pub use serve::optional_exports::ServeError;
pub use serve::rate::{Caller, RateScope};
pub use serve::receipt::Receipt;
pub use serve::rounded::{RoundedNumber, RoundedNumbers, Side};
pub use serve::tools::{CallInput, Called, RunAs};
pub use state::{SessionDataKey, StateStore};

/// What the fuzz targets' checks (the `mcp-wasm-host-fuzzing` crate in
/// `fuzz/harness/`) run, beyond the public names: the guest result conversions,
/// the size a result counts, and the generic components' WIT types and
/// value conversions. Not a stable interface.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::call::{convert_result, guest_error, output_size};
    pub use crate::load::bindings::types as wit;
    pub use crate::load::generic::schema::schema;
    pub use crate::load::generic::types::WitType;
    pub use crate::load::generic::value::{to_json, to_val};
}
