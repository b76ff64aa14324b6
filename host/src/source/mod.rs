//! Plugins that come from an OCI registry or a URL rather than the plugins
//! directory: resolving a reference to a digest, fetching and verifying
//! the component (and its signature, when the policy requires one),
//! keeping it in the content-addressed [`store`], and handing the runtime
//! a file to load under the policy section's name.
//!
//! What the registry says is trusted for nothing: the manifest is checked
//! against its digest, the signature (when required) against the manifest
//! digest before any layer is downloaded, and the component streams to a
//! temporary file through a size and digest check, renamed into the store
//! only once every check passed. Every fetch is bounded in time
//! ([`limits::FetchTimeouts`]) and the component in size (`max_plugin_size`).
//!
//! - [`configured`] is what the policy file asks of a source.
//! - `error` says why a source gave nothing ([`SourceError`]).
//! - [`reference`] parses `oci://…` and `https://…` sources.
//! - [`name`] is the plugin-name rule every path from a name goes through.
//! - [`oci`] speaks to registries (`oci-client`).
//! - [`https`] fetches a URL.
//! - [`check`] checks bytes while they stream.
//! - [`limits`] holds the bounds and the keys that set them.
//! - [`signature`] checks and makes cosign-compatible signatures.
//! - [`store`] keeps what was fetched, checked by digest.
//! - [`resolution`] claims, fetches and hands over every source of a policy
//!   file.

pub mod check;
pub mod configured;
mod error;
pub mod https;
pub mod limits;
pub mod name;
pub mod oci;
pub mod reference;
pub mod requested;
pub mod resolution;
pub mod signature;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use configured::{PluginSource, SignatureKeys};
pub use error::{PolicyLayerError, SourceError};
pub use name::{BadPluginName, PluginName};
pub use reference::{BadReference, OciRef, SourceRef};
pub use resolution::{Resolution, Sourced, pending_claims, resolve_all};

use crate::runtime::Sha256Digest;
use check::StreamCheck;
use limits::{Bound, FetchTimeouts, MAX_MANIFEST_SIZE, MAX_PAYLOAD_SIZE, spelled};
use oci::{OciError, Registry};
use signature::PublicKey;
use store::Store;

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
    /// What the artifact's policy layer requests, if it has one, or why it
    /// could not be read. Shown, never granted.
    pub requested: Option<Result<requested::RequestedPolicy, PolicyLayerError>>,
}

/// What one fetch is asked for: the source, what pins it, the keys it must
/// be signed by and how large it may be.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// Where from.
    pub source: &'a SourceRef,
    /// The component's SHA-256, if pinned.
    pub pinned: Option<Sha256Digest>,
    /// What pins it, for messages.
    pub pin_key: String,
    /// The keys a signature must verify with, if required.
    pub keys: Option<&'a SignatureKeys>,
    /// The most bytes the component may have, and the key that says so.
    pub max_size: Bound<u64>,
}

/// What a successful signature check found, kept only once the whole
/// fetch succeeds.
struct Verified {
    key: PathBuf,
    sig_tag: Option<(String, String)>,
    blobs: Vec<(Sha256Digest, Vec<u8>)>,
}

/// Fetches plugins into a [`Store`].
#[derive(Debug, Clone)]
pub struct Fetcher {
    store: Store,
    plain_http: Vec<String>,
    timeouts: FetchTimeouts,
}

impl Fetcher {
    /// A fetcher that keeps what it fetches under `cache_dir` and reaches
    /// the registries in `plain_http` (besides loopback ones) over HTTP,
    /// with the default timeouts.
    pub fn new(cache_dir: &Path, plain_http: &[String]) -> Self {
        Fetcher {
            store: Store::new(cache_dir),
            plain_http: plain_http.to_vec(),
            timeouts: FetchTimeouts::default(),
        }
    }

    /// The same, held to `timeouts`.
    pub fn with_timeouts(mut self, timeouts: FetchTimeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// A client for `r`'s registry.
    pub fn registry(&self, r: &OciRef) -> Registry {
        Registry::for_ref(r, &self.plain_http, &self.timeouts)
    }

    pub(crate) fn store_error(&self, source: std::io::Error) -> SourceError {
        SourceError::Store {
            path: self.store.plugins_dir(),
            source,
        }
    }

    /// A failure to reach the registry, said as one for `reference`.
    fn offline(reference: String, e: OciError) -> SourceError {
        match e {
            OciError::Unreachable { registry, reason } => SourceError::Offline {
                reference,
                reason: format!("the registry {registry} cannot be reached ({reason})"),
            },
            e => e.into(),
        }
    }

    /// The manifest `digest` of `r`'s repository: from the store, else from
    /// the registry (checked by digest, not kept: see [`Fetcher::keep_all`]).
    async fn manifest(
        &self,
        registry: &Registry,
        r: &OciRef,
        digest: &str,
    ) -> Result<(Sha256Digest, Vec<u8>), SourceError> {
        let key = digest_of(r, digest)?;
        if let Some(bytes) = self.store.blob(&key, MAX_MANIFEST_SIZE) {
            return Ok((key, bytes));
        }
        let bytes = registry
            .manifest(r, digest)
            .await
            .map_err(|e| Self::offline(r.at_digest(digest).to_string(), e))?;
        Ok((key, bytes))
    }

    /// A signature payload: from the store, else from the registry
    /// (checked by size and digest, not kept).
    async fn payload(
        &self,
        registry: &Registry,
        r: &OciRef,
        digest: &str,
        declared: i64,
    ) -> Result<(Sha256Digest, Vec<u8>), SourceError> {
        let key = digest_of(r, digest)?;
        if let Some(bytes) = self.store.blob(&key, MAX_PAYLOAD_SIZE) {
            return Ok((key, bytes));
        }
        let max = Bound::new(MAX_PAYLOAD_SIZE, "the signature payload bound (64 KiB)");
        let bytes = registry
            .blob(r, digest, Some(declared), &max)
            .await
            .map_err(|e| Self::offline(r.at_digest(digest).to_string(), e))?;
        Ok((key, bytes))
    }

    /// The component layer `digest` (of `declared` size): in the store
    /// already, else streamed from the registry into a temporary file of
    /// the store through the size and digest checks, and kept only if it
    /// passes them.
    async fn component(
        &self,
        registry: &Registry,
        r: &OciRef,
        digest: &str,
        declared: i64,
        max: &Bound<u64>,
    ) -> Result<Sha256Digest, SourceError> {
        let key = digest_of(r, digest)?;
        let what = format!("{}@{digest} (blob)", r.repository_name());
        // The declared size is held to the bound even for a cached copy.
        StreamCheck::new(key, Some(declared), max)
            .map_err(|source| OciError::Check { what, source })?;
        if self.has_blob(key).await {
            return Ok(key);
        }
        let (staged, mut file) = self.store.stage().await.map_err(|e| self.store_error(e))?;
        registry
            .blob_into(r, digest, Some(declared), max, &mut file)
            .await
            .map_err(|e| Self::offline(r.at_digest(digest).to_string(), e))?;
        staged
            .keep(file, &key)
            .await
            .map_err(|e| self.store_error(e))?;
        Ok(key)
    }

    /// Whether the store holds `digest` intact (hashed off the async
    /// workers).
    async fn has_blob(&self, digest: Sha256Digest) -> bool {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.has_blob(&digest))
            .await
            .unwrap_or(false)
    }

    /// The digest the tag of `r` resolves to; from the cache's record when
    /// the registry cannot be reached (the second value is then `true`).
    /// Nothing is recorded here: [`Fetcher::keep_all`] does, on success.
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
            Ok(digest) => Ok((digest, false)),
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

    /// Fetches `request.source` into the store within the total timeout:
    /// resolves a tag, checks every byte against its digest and size and,
    /// when keys are given, requires a signature that verifies with one of
    /// them before downloading the component.
    #[tracing::instrument(skip_all, fields(source = %request.source))]
    pub async fn fetch(&self, request: &Request<'_>) -> Result<Fetched, SourceError> {
        let total = &self.timeouts.total;
        match tokio::time::timeout(total.value, self.fetch_unbounded(request)).await {
            Ok(result) => result,
            // The fetch was dropped: its temporary file is removed.
            Err(_) => Err(SourceError::TimedOut {
                reference: request.source.to_string(),
                after: spelled(total.value),
                key: total.key.clone(),
            }),
        }
    }

    async fn fetch_unbounded(&self, request: &Request<'_>) -> Result<Fetched, SourceError> {
        match request.source {
            SourceRef::Oci(r) => self.fetch_oci(request, r).await,
            SourceRef::Https(url) => {
                // Checked by the configuration: a URL needs a digest.
                if let Some(keys) = request.keys {
                    return Err(SourceError::Signature {
                        reference: url.clone(),
                        problem: "a URL carries no signature (sign an OCI artifact instead)".into(),
                        policy_key: keys.policy_key.clone(),
                        config_file: keys.config_file.as_path().into(),
                        keys: keys.paths.clone(),
                    });
                }
                let Some(pinned) = request.pinned else {
                    return Err(SourceError::Https(https::HttpsError::Failed {
                        url: url.clone(),
                        reason: format!("a URL source needs its digest ({})", request.pin_key),
                    }));
                };
                if !self.has_blob(pinned).await {
                    let (staged, mut file) =
                        self.store.stage().await.map_err(|e| self.store_error(e))?;
                    match https::fetch_into(
                        url,
                        pinned,
                        &request.max_size,
                        &self.timeouts,
                        &mut file,
                    )
                    .await
                    {
                        Ok(()) => {}
                        Err(https::HttpsError::Check {
                            source: check::CheckError::Digest { actual, .. },
                            ..
                        }) => {
                            return Err(SourceError::Pinned {
                                reference: url.clone(),
                                expected: pinned,
                                actual: actual.to_string(),
                                pin_key: request.pin_key.clone(),
                            });
                        }
                        Err(e) => return Err(e.into()),
                    }
                    staged
                        .keep(file, &pinned)
                        .await
                        .map_err(|e| self.store_error(e))?;
                }
                Ok(Fetched {
                    source: request.source.clone(),
                    manifest_digest: None,
                    sha256: pinned,
                    offline: false,
                    signed_by: None,
                    requested: None,
                })
            }
        }
    }

    async fn fetch_oci(&self, request: &Request<'_>, r: &OciRef) -> Result<Fetched, SourceError> {
        let registry = self.registry(r);
        let (digest, offline) = self.resolve(&registry, r).await?;
        let (manifest_key, manifest) = self.manifest(&registry, r, &digest).await?;
        // The signature first: nothing of an unsigned artifact is
        // downloaded past its manifest, and nothing of it is kept.
        let verified = match request.keys {
            Some(keys) => Some(self.verify(&registry, r, &digest, keys).await?),
            None => None,
        };
        let (layer, size) = oci::component_layer(&r.at_digest(&digest).to_string(), &manifest)?;
        if let Some(pinned) = request.pinned
            && layer != format!("sha256:{pinned}")
        {
            return Err(SourceError::Pinned {
                reference: request.source.to_string(),
                expected: pinned,
                actual: layer.trim_start_matches("sha256:").to_string(),
                pin_key: request.pin_key.clone(),
            });
        }
        let sha256 = self
            .component(&registry, r, &layer, size, &request.max_size)
            .await?;
        let mut blobs = Vec::new();
        let requested = match oci::policy_layer(&manifest) {
            Some((layer, declared)) => {
                Some(self.requested(&registry, r, &layer, declared).await.map(
                    |(key, bytes, policy)| {
                        blobs.push((key, bytes));
                        policy
                    },
                ))
            }
            None => None,
        };
        blobs.push((manifest_key, manifest));
        let mut records = Vec::new();
        if r.digest.is_none() && !offline {
            records.push((r.to_string(), digest.clone()));
        }
        let signed_by = verified.map(|v| {
            blobs.extend(v.blobs);
            records.extend(v.sig_tag);
            v.key
        });
        self.keep_all(&blobs, &records)?;
        Ok(Fetched {
            source: request.source.clone(),
            manifest_digest: Some(digest),
            sha256,
            offline,
            signed_by,
            requested,
        })
    }

    /// The artifact's policy layer `digest` (of `declared` size), read: from
    /// the store, else from the registry (checked by size and digest, kept
    /// with the rest of a fetch that succeeds). A layer that cannot be had
    /// or read is reported, and fails nothing: it grants nothing anyway.
    async fn requested(
        &self,
        registry: &Registry,
        r: &OciRef,
        digest: &str,
        declared: i64,
    ) -> Result<(Sha256Digest, Vec<u8>, requested::RequestedPolicy), PolicyLayerError> {
        let fetch = |e: SourceError| PolicyLayerError::Fetch(Arc::new(e));
        let key = digest_of(r, digest).map_err(fetch)?;
        let bytes = match self.store.blob(&key, requested::MAX_POLICY_LAYER) {
            Some(bytes) => bytes,
            None => {
                let max = Bound::new(
                    requested::MAX_POLICY_LAYER,
                    "the policy layer bound (64 KiB)",
                );
                registry
                    .blob(r, digest, Some(declared), &max)
                    .await
                    .map_err(|e| fetch(e.into()))?
            }
        };
        let policy = requested::RequestedPolicy::parse(&bytes)
            .map_err(|e| PolicyLayerError::Read(Arc::new(e)))?;
        Ok((key, bytes, policy))
    }

    /// Keeps the manifests and payloads of a fetch that succeeded, and
    /// records what its tags resolved to.
    fn keep_all(
        &self,
        blobs: &[(Sha256Digest, Vec<u8>)],
        records: &[(String, String)],
    ) -> Result<(), SourceError> {
        for (digest, bytes) in blobs {
            self.store
                .put_blob(digest, bytes)
                .map_err(|e| self.store_error(e))?;
        }
        for (reference, digest) in records {
            if let Err(e) = self.store.record(reference, digest) {
                tracing::warn!("cannot record {reference} -> {digest} in the cache: {e}");
            }
        }
        Ok(())
    }

    /// Finds a signature of the manifest `digest` that verifies with one of
    /// `keys`; returns that key's file and what to keep.
    async fn verify(
        &self,
        registry: &Registry,
        r: &OciRef,
        digest: &str,
        keys: &SignatureKeys,
    ) -> Result<Verified, SourceError> {
        let refused = |problem: String| SourceError::Signature {
            reference: r.to_string(),
            problem,
            policy_key: keys.policy_key.clone(),
            config_file: keys.config_file.as_path().into(),
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
        let (sig_digest, sig_offline) = match self.resolve(registry, &sig_ref).await {
            Ok(found) => found,
            Err(SourceError::Registry(OciError::NotFound { .. })) => {
                return Err(refused(format!("not signed (no signature tag {tag})")));
            }
            Err(e) => return Err(e),
        };
        let (sig_key, sig_manifest) = self.manifest(registry, r, &sig_digest).await?;
        let layers = oci::signature_layers(&sig_manifest);
        if layers.is_empty() {
            return Err(refused(format!(
                "not signed (the tag {tag} holds no signature)"
            )));
        }
        for (payload_digest, size, sig) in &layers {
            let (payload_key, payload) = self.payload(registry, r, payload_digest, *size).await?;
            if !signature::payload_names(&payload, digest) {
                continue;
            }
            if let Some(key) = public.iter().find(|k| k.verifies(&payload, sig)) {
                let sig_tag = (!sig_offline).then(|| (sig_ref.to_string(), sig_digest.clone()));
                return Ok(Verified {
                    key: key.path.clone(),
                    sig_tag,
                    blobs: vec![(sig_key, sig_manifest), (payload_key, payload)],
                });
            }
        }
        Err(refused(format!(
            "wrongly signed: none of its {} signature(s) verifies",
            layers.len()
        )))
    }
}

/// The [`Sha256Digest`] of `sha256:HEX`.
fn digest_of(r: &OciRef, digest: &str) -> Result<Sha256Digest, SourceError> {
    Ok(oci::parse_digest(&r.to_string(), digest)?)
}
