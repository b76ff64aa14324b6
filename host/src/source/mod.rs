//! Plugins that come from an OCI registry or a URL rather than the plugins
//! directory: resolving a reference to a digest, fetching and verifying
//! the component (and its signature, when the policy requires one),
//! keeping it in the content-addressed [`store`], and handing the runtime
//! a file to load under the policy section's name.
//!
//! - [`reference`] parses `oci://…` and `https://…` sources.
//! - [`oci`] speaks to registries (`oci-client`).
//! - [`https`] fetches a URL.
//! - [`signature`] checks and makes cosign-compatible signatures.
//! - [`store`] keeps what was fetched, checked by digest.

pub mod https;
pub mod oci;
pub mod reference;
pub mod signature;
pub mod store;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use reference::{BadReference, OciRef, SourceRef};

use crate::config::{Config, PluginSource, SignatureKeys};
use crate::runtime::{NameClaims, Sha256Digest};
use oci::{OciError, Registry};
use signature::{KeyError, PublicKey};
use store::Store;

/// Why a plugin's source did not give a component.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The registry refused or failed.
    #[error(transparent)]
    Registry(#[from] OciError),
    /// The URL could not be fetched.
    #[error(transparent)]
    Https(#[from] https::HttpsError),
    /// Offline, and the cache has no copy.
    #[error("{reference}: {reason}, and the cache has no copy of it")]
    Offline {
        /// The reference.
        reference: String,
        /// Why it could not be fetched.
        reason: String,
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
        /// The policy file.
        config_file: PathBuf,
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

/// What a fetch found.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    /// The source.
    pub source: SourceRef,
    /// The manifest's digest (`sha256:HEX`) the reference resolved to
    /// (OCI only).
    pub manifest_digest: Option<String>,
    /// The component's SHA-256.
    pub sha256: Sha256Digest,
    /// The registry could not be reached: the tag was resolved from the
    /// cache's record.
    pub offline: bool,
    /// The key whose signature verified, if the policy required one.
    pub signed_by: Option<PathBuf>,
}

/// Fetches plugins into a [`Store`].
#[derive(Debug, Clone)]
pub struct Fetcher {
    store: Store,
    plain_http: Vec<String>,
}

impl Fetcher {
    /// A fetcher that keeps what it fetches under `cache_dir` and reaches
    /// the registries in `plain_http` (besides loopback ones) over HTTP.
    pub fn new(cache_dir: &Path, plain_http: &[String]) -> Self {
        Fetcher {
            store: Store::new(cache_dir),
            plain_http: plain_http.to_vec(),
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// A client for `r`'s registry.
    pub fn registry(&self, r: &OciRef) -> Registry {
        Registry::for_ref(r, &self.plain_http)
    }

    fn keep(&self, digest: &Sha256Digest, bytes: &[u8]) -> Result<(), SourceError> {
        self.store
            .put_blob(digest, bytes)
            .map_err(|source| SourceError::Store {
                path: self.store.plugins_dir(),
                source,
            })
    }

    /// The blob `digest` of `r`'s repository: from the store, else from the
    /// registry (checked, then kept). `manifest` says which endpoint.
    async fn cached(
        &self,
        registry: &Registry,
        r: &OciRef,
        digest: &str,
        manifest: bool,
    ) -> Result<Vec<u8>, SourceError> {
        let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
        let key = Sha256Digest::from_hex(hex).map_err(|reason| OciError::Other {
            reference: r.to_string(),
            reason,
        })?;
        if let Some(bytes) = self.store.blob(&key) {
            return Ok(bytes);
        }
        let fetched = if manifest {
            registry.manifest(r, digest).await
        } else {
            registry.blob(r, digest).await
        };
        let bytes = match fetched {
            Ok(bytes) => bytes,
            Err(OciError::Unreachable { registry, reason }) => {
                return Err(SourceError::Offline {
                    reference: r.at_digest(digest).to_string(),
                    reason: format!("the registry {registry} cannot be reached ({reason})"),
                });
            }
            Err(e) => return Err(e.into()),
        };
        self.keep(&key, &bytes)?;
        Ok(bytes)
    }

    /// The digest the tag of `r` resolves to; from the cache's record when
    /// the registry cannot be reached (the second value is then `true`).
    async fn resolve(
        &self,
        registry: &Registry,
        r: &OciRef,
    ) -> Result<(String, bool), SourceError> {
        if let Some(digest) = &r.digest {
            return Ok((digest.clone(), false));
        }
        let key = r.to_string();
        match registry.resolve(r).await {
            Ok(digest) => {
                if let Err(e) = self.store.record(&key, &digest) {
                    tracing::warn!("cannot record {key} -> {digest} in the cache: {e}");
                }
                Ok((digest, false))
            }
            Err(OciError::Unreachable { registry, reason }) => match self.store.resolved(&key) {
                Some(digest) => Ok((digest, true)),
                None => Err(SourceError::Offline {
                    reference: key,
                    reason: format!("the registry {registry} cannot be reached ({reason})"),
                }),
            },
            Err(e) => Err(e.into()),
        }
    }

    /// Fetches `source` into the store: resolves a tag, checks every byte
    /// against its digest and, when `keys` is given, requires a signature
    /// that verifies with one of them.
    #[tracing::instrument(skip_all, fields(source = %source))]
    pub async fn fetch(
        &self,
        source: &SourceRef,
        pinned: Option<Sha256Digest>,
        keys: Option<&SignatureKeys>,
    ) -> Result<Fetched, SourceError> {
        match source {
            SourceRef::Oci(r) => self.fetch_oci(source, r, keys).await,
            SourceRef::Https(url) => {
                // Checked by the configuration: a URL needs a digest.
                if let Some(keys) = keys {
                    return Err(SourceError::Signature {
                        reference: url.clone(),
                        problem: "a URL carries no signature (sign an OCI artifact instead)".into(),
                        policy_key: keys.policy_key.clone(),
                        config_file: keys.config_file.clone(),
                        keys: keys.paths.clone(),
                    });
                }
                let sha256 = match pinned.filter(|d| self.store.blob(d).is_some()) {
                    Some(digest) => digest,
                    None => {
                        let bytes = https::fetch(url).await?;
                        let digest = Sha256Digest::of(&bytes);
                        self.keep(&digest, &bytes)?;
                        digest
                    }
                };
                Ok(Fetched {
                    source: source.clone(),
                    manifest_digest: None,
                    sha256,
                    offline: false,
                    signed_by: None,
                })
            }
        }
    }

    async fn fetch_oci(
        &self,
        source: &SourceRef,
        r: &OciRef,
        keys: Option<&SignatureKeys>,
    ) -> Result<Fetched, SourceError> {
        let registry = self.registry(r);
        let (digest, offline) = self.resolve(&registry, r).await?;
        let manifest = self.cached(&registry, r, &digest, true).await?;
        let layer = oci::component_layer(&r.at_digest(&digest).to_string(), &manifest)?;
        self.cached(&registry, r, &layer, false).await?;
        let sha256 =
            Sha256Digest::from_hex(layer.trim_start_matches("sha256:")).map_err(|reason| {
                OciError::Other {
                    reference: r.to_string(),
                    reason,
                }
            })?;
        let signed_by = match keys {
            Some(keys) => Some(self.verify(&registry, r, &digest, keys).await?),
            None => None,
        };
        Ok(Fetched {
            source: source.clone(),
            manifest_digest: Some(digest),
            sha256,
            offline,
            signed_by,
        })
    }

    /// Finds a signature of the manifest `digest` that verifies with one of
    /// `keys`; returns that key's file.
    async fn verify(
        &self,
        registry: &Registry,
        r: &OciRef,
        digest: &str,
        keys: &SignatureKeys,
    ) -> Result<PathBuf, SourceError> {
        let refused = |problem: String| SourceError::Signature {
            reference: r.to_string(),
            problem,
            policy_key: keys.policy_key.clone(),
            config_file: keys.config_file.clone(),
            keys: keys.paths.clone(),
        };
        let public: Vec<PublicKey> = keys
            .paths
            .iter()
            .map(|p| PublicKey::read(p))
            .collect::<Result<_, _>>()
            .map_err(|source| SourceError::Key {
                policy_key: keys.policy_key.clone(),
                source,
            })?;
        let tag = signature::signature_tag(digest);
        let sig_ref = r.at_tag(&tag);
        let sig_digest = match self.resolve(registry, &sig_ref).await {
            Ok((d, _)) => d,
            Err(SourceError::Registry(OciError::NotFound { .. })) => {
                return Err(refused(format!("not signed (no signature tag {tag})")));
            }
            Err(e) => return Err(e),
        };
        let sig_manifest = self.cached(registry, r, &sig_digest, true).await?;
        let layers = oci::signature_layers(&sig_manifest);
        if layers.is_empty() {
            return Err(refused(format!(
                "not signed (the tag {tag} holds no signature)"
            )));
        }
        for (payload_digest, sig) in &layers {
            let payload = self.cached(registry, r, payload_digest, false).await?;
            if !signature::payload_names(&payload, digest) {
                continue;
            }
            if let Some(key) = public.iter().find(|k| k.verifies(&payload, sig)) {
                return Ok(key.path.clone());
            }
        }
        Err(refused(format!(
            "wrongly signed: none of its {} signature(s) verifies",
            layers.len()
        )))
    }
}

/// A plugin the policy file's `source` gave, ready to load.
#[derive(Debug, Clone)]
pub struct Sourced {
    /// The section's name, which it is served under.
    pub name: String,
    /// What was fetched.
    pub fetched: Fetched,
    /// The file the runtime loads.
    pub file: PathBuf,
}

/// What fetching every source of a policy file gave.
#[derive(Debug, Default)]
pub struct Resolution {
    /// The plugins that were fetched.
    pub sourced: Vec<Sourced>,
    /// The plugins whose source failed, and why.
    pub failed: Vec<(String, SourceError)>,
    /// The names the policy's sources take.
    pub claims: NameClaims,
}

impl Resolution {
    /// The files to load.
    pub fn files(&self) -> Vec<PathBuf> {
        self.sourced.iter().map(|s| s.file.clone()).collect()
    }

    /// The source a plugin file came from, if it is one of these.
    pub fn source_of(&self, file: &Path) -> Option<&Sourced> {
        self.sourced.iter().find(|s| s.file == file)
    }
}

/// Fetches every source the policy file names (in parallel), logging each
/// resolution (reference, digests, offline use). A source that fails
/// keeps its name claimed, with `keep_paths(name)` (the version already
/// served, if any) as the paths that may still serve it.
pub async fn resolve_all(
    fetcher: &Fetcher,
    config: &Config,
    keep_paths: impl Fn(&str) -> BTreeSet<PathBuf>,
) -> Resolution {
    let sources = config.sources();
    let fetched = futures::future::join_all(sources.iter().map(|s| fetch_one(fetcher, s))).await;
    let mut resolution = Resolution {
        claims: NameClaims::new(Some(fetcher.store().plugins_dir())),
        ..Resolution::default()
    };
    for (s, result) in sources.iter().zip(fetched) {
        let owner = format!(
            "`{}.source` ({}) in {}",
            s.section,
            s.source,
            config.path().display()
        );
        match result {
            Ok(sourced) => {
                resolution
                    .claims
                    .claim(&s.name, owner, BTreeSet::from([sourced.file.clone()]));
                resolution.sourced.push(sourced);
            }
            Err(e) => {
                resolution.claims.claim(&s.name, owner, keep_paths(&s.name));
                resolution.failed.push((s.name.clone(), e));
            }
        }
    }
    resolution
}

async fn fetch_one(fetcher: &Fetcher, s: &PluginSource) -> Result<Sourced, SourceError> {
    let fetched = fetcher.fetch(&s.source, s.sha256, s.keys.as_ref()).await?;
    let file = fetcher
        .store()
        .plugin_file(&fetched.sha256, &s.name)
        .map_err(|source| SourceError::Store {
            path: fetcher.store().plugins_dir(),
            source,
        })?;
    let digest = fetched
        .manifest_digest
        .clone()
        .unwrap_or_else(|| format!("sha256:{}", fetched.sha256));
    if fetched.offline {
        tracing::warn!(
            plugin = s.name,
            source = %s.source,
            digest,
            "the registry cannot be reached: using the cached copy of {} ({digest})",
            s.source
        );
    }
    tracing::info!(
        plugin = s.name,
        source = %s.source,
        digest,
        sha256 = %fetched.sha256,
        signed_by = fetched.signed_by.as_ref().map(|p| p.display().to_string()),
        "plugin source resolved"
    );
    Ok(Sourced {
        name: s.name.clone(),
        fetched,
        file,
    })
}
