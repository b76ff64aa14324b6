//! The runtime's errors: why a plugin did not load, and why a call failed.
//!
//! Every message is meant to be read by a person (or a model): it names the
//! file or the plugin and tool, and the cause in plain words.

use std::path::PathBuf;
use std::sync::Arc;

use super::units::{bytes, count, duration};
use crate::policy::limits::spec::key;

/// The most bytes of guest-controlled text kept in one message: a tool
/// error's message, a panic message, a log or progress message. Longer text
/// is cut by `clip`.
pub const MAX_MESSAGE: usize = 16 * 1024;

/// Cuts `text` to at most `max` bytes (on a character boundary) and, if
/// anything was cut, appends `… (N bytes cut)`.
pub fn clip(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("… ({} bytes cut)", count(cut as u64)));
    text
}

/// A plugin file's SHA-256 that is not the digest its policy pins
/// ([`LoadError::Digest`]).
#[derive(Debug)]
pub struct DigestMismatch {
    /// The pinned digest.
    pub expected: String,
    /// The file's digest.
    pub actual: String,
    /// The policy file section that pins it, e.g. `plugins.text`.
    pub section: String,
    /// The policy file.
    pub config_file: String,
}

/// Why a plugin file was not loaded. Its text is the file's path, then
/// [`LoadError::problem`]: `plugins/p.wasm: the plugin exports no tools`.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    Read {
        /// The plugin file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file's SHA-256 is not the digest its policy pins.
    Digest {
        /// The plugin file.
        path: PathBuf,
        /// The two digests and where the pin is (boxed: four strings and a
        /// path are over clippy's `result_large_err` bound where a path is
        /// 32 bytes, as on Windows).
        mismatch: Box<DigestMismatch>,
    },
    /// The file is not WebAssembly at all.
    NotWasm {
        /// The plugin file.
        path: PathBuf,
    },
    /// The file is a core module, not a component.
    CoreModule {
        /// The plugin file.
        path: PathBuf,
    },
    /// wasmtime could not compile the component.
    Compile {
        /// The plugin file.
        path: PathBuf,
        /// wasmtime's explanation.
        reason: String,
    },
    /// The component imports something the host does not provide.
    Link {
        /// The plugin file.
        path: PathBuf,
        /// wasmtime's explanation.
        reason: String,
    },
    /// The component does not export the tools interface this host speaks.
    World {
        /// The plugin file.
        path: PathBuf,
        /// wasmtime's explanation.
        reason: String,
    },
    /// Calling the plugin's `list-tools` failed.
    ListTools {
        /// The plugin file.
        path: PathBuf,
        /// The cause.
        reason: String,
    },
    /// A tool definition breaks the rules.
    InvalidTool {
        /// The plugin file.
        path: PathBuf,
        /// The tool's name as the plugin gave it.
        tool: String,
        /// What is wrong.
        problem: String,
    },
    /// A resource, template, view or prompt the plugin lists breaks the
    /// rules.
    InvalidServed {
        /// The plugin file.
        path: PathBuf,
        /// Which entry, e.g. `resource "x://y"`.
        what: String,
        /// What is wrong.
        problem: String,
    },
    /// The plugin's tool list is over one of its policy's bounds; nothing
    /// of it was parsed or compiled.
    ToolListTooLarge {
        /// The plugin file.
        path: PathBuf,
        /// What is too large and how large it is, e.g. `it lists 2,000
        /// tools`.
        what: String,
        /// The bound, formatted.
        limit: String,
        /// Where to raise it: ``raise `plugins.NAME.max_tools` in FILE``.
        hint: String,
    },
    /// The plugin exports no tools.
    NoTools {
        /// The plugin file.
        path: PathBuf,
    },
    /// A generic component exports no function that can be served.
    NoServableFunctions {
        /// The plugin file.
        path: PathBuf,
        /// How many functions were left out (each logged with its reason).
        left_out: usize,
    },
    /// Another source claims the plugin's name (see `claims`).
    NameTaken {
        /// The plugin file.
        path: PathBuf,
        /// Who took the name, and what to do.
        reason: String,
    },
    /// The plugin's policy could not be applied.
    Policy {
        /// The plugin file.
        path: PathBuf,
        /// Why.
        reason: PolicyError,
    },
    /// The plugins directory itself could not be read.
    Directory {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.problem())
    }
}

/// What is wrong with a plugin file, without its path: a [`LoadError`]'s
/// text after `path: `.
#[derive(Debug, Clone, Copy)]
pub struct LoadProblem<'a>(&'a LoadError);

impl std::fmt::Display for LoadProblem<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            LoadError::Read { source, .. } => write!(f, "cannot read the file: {source}"),
            LoadError::Digest { mismatch, .. } => {
                let DigestMismatch {
                    expected,
                    actual,
                    section,
                    config_file,
                } = &**mismatch;
                write!(
                    f,
                    "the file's SHA-256 does not match the pinned digest: expected {expected} (`sha256` in [{section}] of {config_file}), actual {actual}"
                )
            }
            LoadError::NotWasm { .. } => f.write_str(
                "not a WebAssembly file (it does not start with the \\0asm magic number)",
            ),
            LoadError::CoreModule { .. } => f.write_str(
                "this is a core WebAssembly module, not a component; build it for wasm32-wasip2 (or wrap it with `wasm-tools component new`)",
            ),
            LoadError::Compile { reason, .. } => {
                write!(f, "the component is invalid or corrupt: {reason}")
            }
            LoadError::Link { reason, .. } => write!(
                f,
                "the component needs an import the host does not provide: {reason}"
            ),
            LoadError::World { reason, .. } => write!(
                f,
                "the component does not target the world `mcp-wasm-host:plugin/plugin@{}` (built for another world or an incompatible version?): {reason}",
                crate::load::bindings::WIT_VERSION
            ),
            LoadError::ListTools { reason, .. } => write!(f, "listing its tools failed: {reason}"),
            LoadError::InvalidTool { tool, problem, .. } => write!(f, "tool {tool:?}: {problem}"),
            LoadError::InvalidServed { what, problem, .. } => write!(f, "{what}: {problem}"),
            LoadError::ToolListTooLarge {
                what, limit, hint, ..
            } => write!(f, "{what}, over the limit of {limit} ({hint})"),
            LoadError::NoTools { .. } => f.write_str("the plugin exports no tools"),
            LoadError::NoServableFunctions { left_out: 0, .. } => f.write_str(
                "the component exports none of our interfaces and no function to serve as a tool",
            ),
            LoadError::NoServableFunctions { left_out, .. } => write!(
                f,
                "the component exports none of our interfaces, and none of its {} exported functions can be served as a tool (each is logged with its reason; `inspect` lists them)",
                count(*left_out as u64)
            ),
            LoadError::NameTaken { reason, .. } => write!(f, "not loaded: {reason}"),
            LoadError::Policy { reason, .. } => {
                write!(f, "its policy cannot be applied: {reason}")
            }
            LoadError::Directory { source, .. } => {
                write!(f, "cannot read the plugins directory: {source}")
            }
        }
    }
}

impl LoadError {
    /// What is wrong, without the path: for a line that already names the
    /// file.
    pub fn problem(&self) -> LoadProblem<'_> {
        LoadProblem(self)
    }

    /// The file (or, for [`LoadError::Directory`], the directory) concerned.
    pub fn path(&self) -> &std::path::Path {
        match self {
            LoadError::Read { path, .. }
            | LoadError::Digest { path, .. }
            | LoadError::NotWasm { path }
            | LoadError::CoreModule { path }
            | LoadError::Compile { path, .. }
            | LoadError::Link { path, .. }
            | LoadError::World { path, .. }
            | LoadError::ListTools { path, .. }
            | LoadError::InvalidTool { path, .. }
            | LoadError::InvalidServed { path, .. }
            | LoadError::ToolListTooLarge { path, .. }
            | LoadError::NoTools { path }
            | LoadError::NoServableFunctions { path, .. }
            | LoadError::Policy { path, .. }
            | LoadError::NameTaken { path, .. }
            | LoadError::Directory { path, .. } => path,
        }
    }
}

/// Why a plugin has no policy.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PolicyError {
    /// The policy file did not load, so no plugin gets a policy from it.
    #[error(transparent)]
    File(Arc<dyn std::error::Error + Send + Sync>),
    /// A capability's grant for this plugin cannot be resolved, for example
    /// a mount whose directory is missing.
    #[error("{config_file}: `{section}.{key}`: {problem}")]
    Grant {
        /// The policy file.
        config_file: Arc<str>,
        /// The plugin's section, e.g. `plugins.text`.
        section: Arc<str>,
        /// The key within it, e.g. `mounts[0].host`.
        key: String,
        /// What is wrong.
        problem: String,
    },
}

/// Why a call did not produce a tool result.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No tool has this name.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// The arguments do not match the tool's input schema; no guest code ran.
    #[error("invalid arguments for tool {tool:?}: {}", problems.join("; "))]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// Each violation, with its JSON pointer.
        problems: Vec<String>,
    },
    /// The tool ran and failed.
    #[error(transparent)]
    Failed(#[from] ToolFailure),
}

/// A failed call: which plugin and tool, and why.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ToolFailure {
    /// The plugin (its file stem).
    pub plugin: String,
    /// The tool, as the plugin names it.
    pub tool: String,
    /// What went wrong.
    pub cause: FailureCause,
}

/// What went wrong in a failed call.
#[derive(Debug, Clone, PartialEq)]
pub enum FailureCause {
    /// A Rust guest panicked; the message comes from its stderr.
    Panic {
        /// The panic message.
        message: String,
        /// Where, as `file:line:column`.
        location: Option<String>,
    },
    /// The guest ran out of memory (a failed allocation).
    OutOfMemory(String),
    /// The guest trapped (unreachable, out-of-bounds access, stack overflow…).
    Trap(String),
    /// The guest returned an error.
    Guest {
        /// Which kind of error.
        kind: GuestErrorKind,
        /// The guest's message.
        message: String,
    },
    /// The guest returned something the host cannot pass on.
    BadOutput(String),
    /// The guest broke the component model's contract (its canonical ABI)
    /// or a host interface's: it gave the host a value its type forbids (an
    /// invalid `char`, a string that is not UTF-8, a bad discriminant, a
    /// list past its memory), its `cabi_realloc` answered out of bounds,
    /// or the runtime stopped it for another reason that is not the host's
    /// own failure ([`HostFault`]).
    ContractViolation(Box<Breach>),
    /// The guest asked for more than one of its limits allows, other than
    /// fuel, time and memory growth (which have their own causes): random
    /// bytes beyond its `memory`, a copy beyond its `max_result_size`,
    /// host handles beyond `host_resources`, tables or instances beyond
    /// theirs.
    OverLimit(Box<Excess>),
    /// The host failed while running the call. The text (the host error's
    /// message chain) goes to the server log only ([`ToolFailure::log_line`]):
    /// a client reads that the host failed, never a host error's text, which
    /// may name host files.
    Host(String),
    /// The call burnt all its fuel.
    OutOfFuel {
        /// The fuel limit.
        limit: u64,
    },
    /// The call ran past its deadline (waiting for a slot included).
    Timeout {
        /// The timeout.
        limit: std::time::Duration,
    },
    /// The guest tried to grow its memory past the limit.
    MemoryLimit {
        /// The limit in bytes.
        limit: u64,
        /// What the guest or wasmtime said, if anything.
        detail: Option<String>,
    },
    /// The arguments were larger than the limit; no guest code ran.
    ArgumentsTooLarge {
        /// Their size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
        /// Where to raise it: ``raise `plugins.NAME.max_argument_size` in
        /// FILE``.
        hint: String,
    },
    /// A capability's inbound check refused the arguments (they hold a
    /// secret and the policy sets `block_secrets`); no guest code ran.
    ArgumentsRefused {
        /// The policy key that refuses them, e.g.
        /// `plugins.NAME.block_secrets`.
        key: String,
        /// Why, without any secret's value.
        problem: String,
        /// The policy file.
        config_file: String,
    },
    /// The result was larger than the limit.
    ResultTooLarge {
        /// Its size in bytes, as counted against the limit.
        size: u64,
        /// The limit in bytes.
        limit: u64,
        /// Where to raise it: ``raise `plugins.NAME.max_result_size` in
        /// FILE``.
        hint: String,
    },
    /// The tool asked the client for something the client answers in the
    /// next round of the call (2026-07-28's multi round-trip requests); not
    /// a failure of the tool: the call runs again with the answers.
    InputDeferred,
    /// The tool requires requests to the client that the client did not
    /// declare the capability for.
    MissingClientCapability(Vec<crate::call::events::ClientRequestKind>),
    /// The tool was called more often than its rate limit allows.
    RateLimited {
        /// Whose quota ran out: the tool's, or the calling client's.
        scope: crate::policy::limits::RateScope,
        /// Calls per minute allowed.
        per_minute: u32,
        /// How long until the next call is allowed.
        retry_after: std::time::Duration,
    },
    /// The tool's rate limit counts in a shared store that failed or did
    /// not answer in time: the call is refused (the limit fails closed).
    LimitUnavailable {
        /// Whose quota could not be counted.
        scope: crate::policy::limits::RateScope,
        /// The store's error, which names the store (never its password).
        reason: String,
    },
}

/// How a guest broke the contract ([`FailureCause::ContractViolation`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Breach {
    /// What the guest did, in the contract's words, after the plugin's
    /// name: `gave the host an invalid char`. Written by the host, never a
    /// host error's text.
    pub what: String,
    /// Why that breaks the contract, if there is more to say.
    pub why: Option<String>,
    /// The runtime's own error text, for the server log only.
    pub detail: String,
}

/// What a guest asked for past a limit ([`FailureCause::OverLimit`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Excess {
    /// The policy key: `memory`, `max_result_size`, `host_resources`,
    /// `table_elements`, `instances`, `tables`, `memories`.
    pub key: &'static str,
    /// What the guest did, after the plugin's name: `asked for 4 GiB of
    /// random bytes`.
    pub what: String,
    /// The limit as the message writes it: `128 MiB`.
    pub limit: String,
    /// Where to raise it: ``raise `plugins.NAME.KEY` in FILE``.
    pub hint: String,
}

/// Whose failure a [`FailureCause`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The plugin's: it trapped, panicked, returned an error or broke the
    /// contract.
    Guest,
    /// A policy limit's: the cause names its key ([`FailureCause::limit`]).
    Limit,
    /// The client's: it must answer or support something first.
    Client,
    /// The host's own code failed ([`HostFault`]).
    Host,
}

/// A failure of the host's own code while it runs a call (a store it
/// cannot set up, an export it checked at load missing now). Host code
/// wraps its internal failures in it; the call's classifier finds it by
/// downcast, and only then blames the host ([`FailureCause::Host`]). Any
/// other error raised while a guest runs is the guest's or a limit's.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HostFault(pub String);

impl HostFault {
    /// A [`wasmtime::Error`] holding a host fault described by `message`.
    pub fn error(message: impl Into<String>) -> wasmtime::Error {
        wasmtime::Error::new(HostFault(message.into()))
    }
}

/// The kinds of error a guest can return, as in the WIT `tool-error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuestErrorKind {
    /// Arguments matched the schema but cannot be used.
    InvalidArguments,
    /// The plugin does not know the tool.
    UnknownTool,
    /// The sandbox denied an access.
    Denied,
    /// Any other failure.
    Failed,
}

impl FailureCause {
    /// The cause with `f` applied to every text that came from the guest
    /// (messages, locations, details); for redacting secrets.
    pub fn map_guest_text(self, f: impl Fn(String) -> String) -> Self {
        match self {
            FailureCause::Panic { message, location } => FailureCause::Panic {
                message: f(message),
                location: location.map(&f),
            },
            FailureCause::OutOfMemory(m) => FailureCause::OutOfMemory(f(m)),
            FailureCause::Trap(m) => FailureCause::Trap(f(m)),
            FailureCause::Guest { kind, message } => FailureCause::Guest {
                kind,
                message: f(message),
            },
            FailureCause::BadOutput(m) => FailureCause::BadOutput(f(m)),
            FailureCause::ContractViolation(breach) => {
                let Breach { what, why, detail } = *breach;
                FailureCause::ContractViolation(Box::new(Breach {
                    what: f(what),
                    why: why.map(&f),
                    detail: f(detail),
                }))
            }
            // Shown only in the log, redacted there too.
            FailureCause::Host(m) => FailureCause::Host(f(m)),
            FailureCause::MemoryLimit { limit, detail } => FailureCause::MemoryLimit {
                limit,
                detail: detail.map(&f),
            },
            other => other,
        }
    }

    /// The policy key of the limit that stopped the call, if a limit did
    /// (`fuel`, `memory`, `timeout`, `rate_limit`, `client_rate_limit`,
    /// `max_argument_size`, `max_result_size`, and for
    /// [`FailureCause::OverLimit`] also `host_resources`, `table_elements`,
    /// `instances`, `tables`, `memories`).
    pub fn limit(&self) -> Option<&'static str> {
        match self {
            FailureCause::OutOfFuel { .. } => Some(key::FUEL),
            FailureCause::MemoryLimit { .. } | FailureCause::OutOfMemory(_) => Some(key::MEMORY),
            FailureCause::Timeout { .. } => Some(key::TIMEOUT),
            FailureCause::ArgumentsTooLarge { .. } => Some(key::MAX_ARGUMENT_SIZE),
            FailureCause::ResultTooLarge { .. } => Some(key::MAX_RESULT_SIZE),
            FailureCause::RateLimited { scope, .. }
            | FailureCause::LimitUnavailable { scope, .. } => Some(scope.key()),
            FailureCause::OverLimit(excess) => Some(excess.key),
            _ => None,
        }
    }

    /// Whose failure this is: the guest's, a limit's, or the host's own.
    pub fn fault(&self) -> Fault {
        if self.limit().is_some() {
            return Fault::Limit;
        }
        match self {
            FailureCause::Host(_) => Fault::Host,
            FailureCause::ArgumentsRefused { .. } => Fault::Limit,
            FailureCause::InputDeferred | FailureCause::MissingClientCapability(_) => Fault::Client,
            _ => Fault::Guest,
        }
    }

    /// A short machine-readable name for the audit log.
    pub fn kind(&self) -> &'static str {
        match self {
            FailureCause::Panic { .. } => "panic",
            FailureCause::OutOfMemory(_) => "out_of_memory",
            FailureCause::Trap(_) => "trap",
            FailureCause::Guest { .. } => "guest_error",
            FailureCause::BadOutput(_) => "bad_output",
            FailureCause::ContractViolation(_) => "contract_violation",
            FailureCause::OverLimit(excess) => match excess.key {
                key::MEMORY => "memory_limit",
                key::MAX_RESULT_SIZE => "result_too_large",
                _ => "over_limit",
            },
            FailureCause::Host(_) => "host_error",
            FailureCause::OutOfFuel { .. } => "out_of_fuel",
            FailureCause::Timeout { .. } => "timeout",
            FailureCause::MemoryLimit { .. } => "memory_limit",
            FailureCause::ArgumentsTooLarge { .. } => "arguments_too_large",
            FailureCause::ArgumentsRefused { .. } => "arguments_refused",
            FailureCause::ResultTooLarge { .. } => "result_too_large",
            FailureCause::RateLimited { .. } => "rate_limited",
            FailureCause::LimitUnavailable { .. } => "limit_unavailable",
            FailureCause::InputDeferred => "input_required",
            FailureCause::MissingClientCapability(_) => "missing_client_capability",
        }
    }
}

impl ToolFailure {
    /// The failure as the server log shows it: what a client reads, and for
    /// a host error the error's own text.
    pub fn log_line(&self) -> String {
        match &self.cause {
            FailureCause::Host(detail) => format!("{}: {detail}", self.describe()),
            FailureCause::ContractViolation(breach) => {
                format!("{}: {}", self.describe(), breach.detail)
            }
            _ => self.describe(),
        }
    }

    fn describe(&self) -> String {
        let plugin = &self.plugin;
        // A resource read, prompt or completion is named by its request
        // (`resources/read URI`); a tool by its name.
        let tool = if ["resources/", "prompts/", "completion/"]
            .iter()
            .any(|p| self.tool.starts_with(p))
        {
            self.tool.clone()
        } else {
            format!("tool {:?}", self.tool)
        };
        match &self.cause {
            FailureCause::Panic { message, location } => match location {
                Some(at) => {
                    format!("plugin {plugin:?} panicked in {tool}: {message} at {at}")
                }
                None => format!("plugin {plugin:?} panicked in {tool}: {message}"),
            },
            FailureCause::OutOfMemory(m) => {
                format!("plugin {plugin:?} ran out of memory in {tool}: {m}")
            }
            FailureCause::Trap(m) => format!("plugin {plugin:?} trapped in {tool}: {m}"),
            FailureCause::Guest { kind, message } => {
                let what = match kind {
                    GuestErrorKind::InvalidArguments => "rejected its arguments",
                    GuestErrorKind::UnknownTool => "does not know this tool",
                    GuestErrorKind::Denied => "was denied access",
                    GuestErrorKind::Failed => "failed",
                };
                format!("{tool} of plugin {plugin:?} {what}: {message}")
            }
            FailureCause::BadOutput(m) => {
                format!("{tool} of plugin {plugin:?} returned an invalid result: {m}")
            }
            FailureCause::ContractViolation(breach) => {
                let what = &breach.what;
                match &breach.why {
                    Some(why) => format!("plugin {plugin:?} {what} in {tool}: {why}"),
                    None => format!("plugin {plugin:?} {what} in {tool}"),
                }
            }
            FailureCause::OverLimit(excess) => {
                let Excess {
                    key,
                    what,
                    limit,
                    hint,
                } = &**excess;
                format!(
                    "plugin {plugin:?} {what} in {tool}, more than its `{key}` limit of {limit} allows ({hint})"
                )
            }
            FailureCause::Host(_) => format!(
                "the host failed while running {tool} of plugin {plugin:?} (the server log has the details)"
            ),
            FailureCause::OutOfFuel { limit } => format!(
                "plugin {plugin:?} ran out of fuel in {tool} (limit {} units)",
                count(*limit)
            ),
            FailureCause::Timeout { limit } => {
                format!(
                    "{tool} of plugin {plugin:?} timed out after {}",
                    duration(*limit)
                )
            }
            FailureCause::MemoryLimit { limit, detail } => {
                let mut m = format!(
                    "plugin {plugin:?} exceeded its memory limit of {} in {tool}",
                    bytes(*limit)
                );
                if let Some(d) = detail {
                    m.push_str(&format!(" ({d})"));
                }
                m
            }
            FailureCause::ArgumentsTooLarge { size, limit, hint } => format!(
                "the arguments to {tool} of plugin {plugin:?} are {size} bytes, over its limit of {} ({hint})",
                bytes(*limit)
            ),
            FailureCause::ArgumentsRefused {
                key,
                problem,
                config_file,
            } => format!(
                "{tool} of plugin {plugin:?} was not run: {problem} (`{key}` in {config_file})"
            ),
            FailureCause::ResultTooLarge { size, limit, hint } => format!(
                "{tool} of plugin {plugin:?} returned {size} bytes, over its result limit of {} ({hint})",
                bytes(*limit)
            ),
            FailureCause::MissingClientCapability(kinds) => format!(
                "{tool} of plugin {plugin:?} needs the client to support {}; the client did not declare {}",
                kinds
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(" and "),
                if kinds.len() == 1 {
                    "that capability"
                } else {
                    "those capabilities"
                }
            ),
            FailureCause::InputDeferred => format!(
                "{tool} of plugin {plugin:?} waits for the client's answers to its requests"
            ),
            FailureCause::RateLimited {
                scope,
                per_minute,
                retry_after,
            } => format!(
                "{tool} of plugin {plugin:?} is limited to {per_minute} calls per minute{}; retry in {:.1} s (policy key `{}`)",
                match scope {
                    crate::policy::limits::RateScope::AllClients => "",
                    crate::policy::limits::RateScope::EachClient => " for each client",
                },
                retry_after.as_secs_f64(),
                scope.key()
            ),
            FailureCause::LimitUnavailable { scope, reason } => format!(
                "{tool} of plugin {plugin:?} was refused: its rate limit (policy key `{}`) counts in the shared state store, which failed ({reason}); calls with a rate limit are refused until the store answers",
                scope.key()
            ),
        }
    }
}

#[cfg(test)]
mod tests;
