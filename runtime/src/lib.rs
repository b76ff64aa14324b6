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
//! By job:
//! - the runtime and its catalog's lifecycle (load, reload, remove, swap):
//!   `lifecycle`, building the catalog in `catalog`;
//! - loading one plugin file, in steps `inspection` reuses: `plugin`;
//! - call admission and the audit record: `admission` and `receipt`; the
//!   call itself in its sandbox: `call`, `sandbox`, `warm`; the one boundary
//!   where what a guest produces leaves for the client: `egress` (over the
//!   fields `outbound` lists);
//! - resources, prompts and completions: `served_requests`, `served`.

mod access;
mod admission;
mod awaiting;
mod bindings;
mod cache;
mod call;
pub mod capabilities;
mod capture;
mod catalog;
mod claims;
mod compile;
mod concurrent;
mod egress;
mod engine;
mod entry;
mod error;
mod events;
mod exports;
mod fetched;
mod file_digests;
mod file_hash;
mod first_load;
mod generic;
mod icons;
mod imports;
mod incremental;
mod inspection;
mod lifecycle;
mod limits;
mod log_budget;
mod observe;
mod offload;
mod optimize;
mod outbound;
mod output;
mod pending;
mod plugin;
mod policy;
mod quick;
mod rate;
mod receipt;
mod sandbox;
mod schema;
mod served;
mod served_requests;
mod session;
mod stamp;
mod tool;
mod tool_lists;
pub mod units;
mod uri_match;
mod warm;
pub use session::Session;
mod watch;

pub use access::{Access, Denied, Principal};
pub use admission::{Called, RunAs};
pub use bindings::WIT_VERSION;
pub use cache::{CacheError, CompileCache, NotADigest, Sha256Digest};
pub use catalog::{
    Catalog, EntryKind, Generations, PromptEntry, ResourceEntry, SkipReason, SkippedEntry,
    TemplateEntry, ToolRoute,
};
pub use claims::NameClaims;
pub use engine::{EngineError, EngineSettings, QuickCompile};
pub use error::{
    Breach, CallError, Excess, FailureCause, Fault, GuestErrorKind, HostFault, LoadError,
    LoadProblem, MAX_MESSAGE, PolicyError, ToolFailure,
};
pub use events::{
    BoxFuture, CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationAction,
    ElicitationRequest, IncludeContext, LogLevel, ModelPreferences, NoEvents, Progress, RequestAt,
    Root, SampledMessage, SamplingContent, SamplingMessage, SamplingRequest, SamplingRole,
};
pub use fetched::SourcesUpdate;
pub use first_load::FirstLists;
pub use generic::{GenericSummary, GenericTool, LeftOut};
pub use icons::{Icon, IconTheme};
pub use imports::ImportKind;
pub use incremental::{DEFAULT_CAP as INCREMENTAL_CACHE_CAP, IncrementalStore};
pub use inspection::{Inspection, WorldTarget};
pub use lifecycle::{LoadReport, ReloadOutcome, Runtime, RuntimeError};
pub use limits::{Limits, MAX_READY_INSTANCES, MAX_REUSE_INSTANCES};
pub use observe::{CallEnd, NoObserver, Observer, Phase};
pub use outbound::{Field, Outbound};
pub use output::{
    Audience, Content, ContentHints, ResourceBody, TaskSupport, ToolHints, ToolInfo, ToolOutput,
    ToolView,
};
pub use pending::{PendingPlugin, StillCompiling};
pub use plugin::Plugin;
pub use policy::{DefaultPolicies, Policies, Policy, PolicySource};
pub use rate::{Caller, RateScope};
pub use receipt::Receipt;
pub use schema::{Schema, plugin_prefix};
pub use served::{
    Completion, CompletionTarget, PromptArgument, PromptInfo, PromptOutput, ResourceInfo,
    ResourcePart, Served, TemplateInfo, ViewCsp, ViewPermissions, ViewSettings,
};
pub use served_requests::ServeError;
pub use stamp::FileStamp;
pub use tool::PluginTool;
pub use watch::{
    DirWatcher, PolicyFile, PolicyLoader, PolicyReloadError, PolicySeen, PolicyUpdate, SourceFetch,
    WatchError, WatchOptions, watch,
};

/// What the fuzz targets' checks (the `mcp-wasm-host-fuzzing` crate in
/// `fuzz/harness/`) run, beyond the public names: the guest result conversions,
/// the size a result counts, and the generic components' WIT types and
/// value conversions. Not a stable interface.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use super::bindings::types as wit;
    pub use super::call::{convert_result, guest_error, output_size};
    pub use super::generic::schema::schema;
    pub use super::generic::types::WitType;
    pub use super::generic::value::{to_json, to_val};
}
