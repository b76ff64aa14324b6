//! What the policy file asks of a plugin's source (`[plugins.NAME] source`,
//! `sha256`, `signature_keys`, `max_plugin_size`), as the policy file reads
//! it and the fetch takes it: the one description both sides share.

use std::path::PathBuf;

use super::limits::Bound;
use super::{PluginName, SourceRef};
use crate::runtime::Sha256Digest;

/// A plugin the policy file names a source for (`[plugins.NAME] source`).
#[derive(Debug, Clone, PartialEq)]
pub struct PluginSource {
    /// The section's NAME: the plugin is served under it.
    pub name: PluginName,
    /// Where it comes from.
    pub source: SourceRef,
    /// The digest the section pins the component to, if any.
    pub sha256: Option<Sha256Digest>,
    /// What pins it, for messages: ``​`sha256` in [plugins.NAME] of FILE``.
    pub pin_key: String,
    /// The keys its signature must verify with, if the policy requires one.
    pub keys: Option<SignatureKeys>,
    /// The most bytes its component may have (`max_plugin_size`).
    pub max_size: Bound<u64>,
    /// `plugins.NAME`, for messages.
    pub section: String,
    /// The policy file that names it, for messages.
    pub policy_file: PathBuf,
}

/// The public keys a policy requires a signature from.
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureKeys {
    /// The policy key that lists them, e.g. `plugins.text.signature_keys`.
    pub policy_key: String,
    /// The policy file.
    pub config_file: PathBuf,
    /// The key files (PEM SPKI, as `cosign.pub`), resolved against the
    /// policy file's directory.
    pub paths: Vec<PathBuf>,
}
