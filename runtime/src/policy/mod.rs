//! Stage input `policy`: what the embedder grants each plugin, asked for
//! by the runtime (it pulls a plugin's [`Policy`] from the [`Policies`] it
//! was given each time it loads the plugin): the per-call `limits`, the
//! capabilities' grants and who may call (`access`). `load` builds a
//! plugin under its policy, and `serve` and `call` hold each call to it.
//!
//! A plugin's effective policy: the limits every call runs under and the
//! capabilities its sandbox grants. Built by the configuration layer from
//! the policy file; deny by default.

pub(crate) mod access;
pub(crate) mod limits;
pub(crate) mod tool_clash;

pub use tool_clash::ToolClash;

use std::sync::Arc;

use crate::cache::Sha256Digest;
use crate::capabilities::Grants;
use crate::error::PolicyError;
use crate::policy::access::Access;
use crate::policy::limits::Limits;

/// Everything a plugin's calls run under.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    /// Resource limits.
    pub limits: Limits,
    /// What each capability grants (nothing by default); shared with each
    /// call's capabilities.
    pub grants: Arc<Grants>,
    /// The SHA-256 the plugin file must have; a file with another digest is
    /// refused at load.
    pub sha256: Option<Sha256Digest>,
    /// The policy file section that grants more, e.g. `plugins.text`, for
    /// messages to denied guests.
    pub section: Arc<str>,
    /// The policy file, for the same messages.
    pub config_file: Arc<str>,
    /// The OAuth scopes that grant the plugin and its tools (enforced only
    /// for authenticated callers).
    pub access: Access,
    /// The state store its `wasi:keyvalue` buckets live in: the runtime's,
    /// set when the plugin loads (none: every bucket is unavailable).
    pub store: crate::state::StateStore,
}

impl Policy {
    /// Where a user raises the limit `key` for this plugin:
    /// ``raise `plugins.NAME.key` in FILE``.
    pub fn raise_hint(&self, key: &str) -> String {
        format!("raise `{}.{key}` in {}", self.section, self.config_file)
    }
}

/// Gives each plugin its policy. The configuration layer implements it.
pub trait Policies: Send + Sync {
    /// The policy for the plugin named `plugin` (its file stem), or why it
    /// cannot be built (for example a mount whose directory is missing).
    fn policy_for(&self, plugin: &str) -> Result<Policy, PolicyError>;

    /// What becomes of a tool name that two or more plugins export
    /// (`[server] tool_clash`); read at each catalog rebuild.
    fn tool_clash(&self) -> ToolClash {
        ToolClash::Qualify
    }
}

/// Every plugin gets the defaults and no capabilities.
#[derive(Debug, Clone, Default)]
pub struct DefaultPolicies {
    /// The limits every plugin gets.
    pub limits: Limits,
}

impl Policies for DefaultPolicies {
    fn policy_for(&self, plugin: &str) -> Result<Policy, PolicyError> {
        Ok(Policy {
            limits: self.limits.clone(),
            section: format!("plugins.{plugin}").into(),
            config_file: "mcp-wasm-host.toml".into(),
            ..Policy::default()
        })
    }
}

/// Shared handle to a policy source.
pub type PolicySource = Arc<dyn Policies>;
