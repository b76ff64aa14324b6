//! Why a source did not give a component, and why an artifact's policy
//! layer was not read.

use std::path::PathBuf;
use std::sync::Arc;

use super::https::HttpsError;
use super::oci::OciError;
use super::requested::RequestedError;
use super::signature::KeyError;
use crate::runtime::Sha256Digest;

/// Why a plugin's source did not give a component.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The registry refused or failed.
    #[error(transparent)]
    Registry(#[from] OciError),
    /// The URL could not be fetched.
    #[error(transparent)]
    Https(#[from] HttpsError),
    /// Offline, and the cache has no copy.
    #[error("{reference}: {reason}, and the cache has no copy of it")]
    Offline {
        /// The reference.
        reference: String,
        /// Why it could not be fetched.
        reason: String,
    },
    /// The whole fetch took longer than its bound.
    #[error("{reference}: the fetch did not finish within {after} (`{key}`)")]
    TimedOut {
        /// The reference.
        reference: String,
        /// The bound, spelled as in the policy.
        after: String,
        /// The key that sets it.
        key: String,
    },
    /// The component is not the one the policy pins.
    #[error(
        "{reference}: the component's SHA-256 does not match the pinned digest: expected {expected} ({pin_key}), actual {actual}"
    )]
    Pinned {
        /// The reference.
        reference: String,
        /// The pinned digest.
        expected: Sha256Digest,
        /// The component's.
        actual: String,
        /// What pins it: ``​`sha256` in [plugins.NAME] of FILE`` or `--sha256`.
        pin_key: String,
    },
    /// The policy requires a signature and none verifies.
    #[error(
        "{reference}: {problem}; `{policy_key}` in {} requires a signature by {}",
        config_file.display(),
        keys.iter().map(|k| k.display().to_string()).collect::<Vec<_>>().join(" or ")
    )]
    Signature {
        /// The reference.
        reference: String,
        /// What is wrong: no signature, or none by these keys.
        problem: String,
        /// The policy key that requires it.
        policy_key: String,
        /// The policy file (boxed, 16 bytes: with a 32-byte `PathBuf`, as
        /// on Windows, the error would be over clippy's `result_large_err`).
        config_file: Box<std::path::Path>,
        /// The keys.
        keys: Vec<PathBuf>,
    },
    /// A public key of the policy cannot be read.
    #[error("`{policy_key}`: {source}")]
    Key {
        /// The policy key that names it.
        policy_key: String,
        /// Why.
        source: KeyError,
    },
    /// The store could not be written.
    #[error("{}: cannot keep the fetched component: {source}", path.display())]
    Store {
        /// The store's directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Why an artifact's policy layer was not read. It is shown, and fails
/// nothing: the layer grants nothing anyway.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PolicyLayerError {
    /// It could not be had from the store or the registry.
    #[error(transparent)]
    Fetch(Arc<SourceError>),
    /// It was had, and is not a policy this host reads.
    #[error(transparent)]
    Read(Arc<RequestedError>),
}

/// Two are equal when they say the same (what a fetch is compared by: the
/// errors inside hold I/O and HTTP errors, which have no equality).
impl PartialEq for PolicyLayerError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}
