//! The registry side: resolving tags, pulling and pushing manifests and
//! blobs with `oci-client` (rustls on ring), and the artifact layout of a
//! WebAssembly component (the CNCF wasm OCI artifact layout, as
//! wasm-pkg-tools and Wassette write it): an OCI image manifest whose
//! config has the media type [`WASM_CONFIG`] and whose one layer, of media
//! type [`WASM_LAYER`], is the component.
//!
//! Plain HTTP is used for loopback registries (`localhost`, `127.0.0.0/8`,
//! `::1`) and those listed in `[server] plain_http_registries`; HTTPS for
//! every other. Access is anonymous, or HTTP basic auth when
//! `MCP_WASM_HOST_REGISTRY_USERNAME` and `MCP_WASM_HOST_REGISTRY_PASSWORD`
//! are set (the password is never logged).
//!
//! Every request is held to the [`FetchTimeouts`] (connect, first byte);
//! blobs stream to their destination through a [`StreamCheck`], so their
//! size and digest are checked as they come and host memory does not
//! grow with them. Manifests are read whole, up to [`MAX_MANIFEST_SIZE`].

use std::collections::BTreeMap;

use futures::StreamExt as _;
use oci_client::Client;
use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
use oci_client::errors::{OciDistributionError, OciErrorCode};
use oci_client::manifest::{
    IMAGE_MANIFEST_LIST_MEDIA_TYPE, IMAGE_MANIFEST_MEDIA_TYPE, OCI_IMAGE_INDEX_MEDIA_TYPE,
    OCI_IMAGE_MEDIA_TYPE, OciDescriptor, OciImageManifest,
};
use oci_client::secrets::RegistryAuth;
use serde_json::{Value, json};
use tokio::io::{AsyncWrite, AsyncWriteExt as _};

use super::check::{CheckError, StreamCheck};
use super::limits::{Bound, FetchTimeouts, MAX_MANIFEST_SIZE, spelled};
use super::reference::{OciRef, is_loopback};
use super::requested::POLICY_LAYER;
use super::signature::{PAYLOAD_MEDIA_TYPE, SIGNATURE_ANNOTATION};
use crate::runtime::Sha256Digest;

/// The config media type of a wasm component artifact.
pub const WASM_CONFIG: &str = "application/vnd.wasm.config.v0+json";
/// The layer media type of a wasm component.
pub const WASM_LAYER: &str = "application/wasm";
/// The layer media type older tools (wasm-to-oci) used; accepted when
/// pulling.
const WASM_LAYER_LEGACY: &str = "application/vnd.wasm.content.layer.v1+wasm";

/// The environment variables basic auth is read from.
pub const USERNAME_ENV: &str = "MCP_WASM_HOST_REGISTRY_USERNAME";
/// See [`USERNAME_ENV`].
pub const PASSWORD_ENV: &str = "MCP_WASM_HOST_REGISTRY_PASSWORD";

/// Why a registry operation failed.
#[derive(Debug, thiserror::Error)]
pub enum OciError {
    /// The registry could not be reached (connection refused, timed out).
    #[error("the registry {registry} cannot be reached: {reason}")]
    Unreachable {
        /// `host:port`.
        registry: String,
        /// What failed.
        reason: String,
    },
    /// The registry has no such manifest.
    #[error("{reference}: not found in the registry")]
    NotFound {
        /// The reference.
        reference: String,
    },
    /// Bytes did not have the digest they were asked for by.
    #[error("{what}: digest mismatch: expected {expected}, got {actual}")]
    Digest {
        /// What was fetched.
        what: String,
        /// The digest asked for.
        expected: String,
        /// The digest of what came.
        actual: String,
    },
    /// Fetched bytes failed their size or digest check.
    #[error("{what}: {source}")]
    Check {
        /// What was fetched.
        what: String,
        /// What is wrong.
        source: CheckError,
    },
    /// The reference names an OCI image index, not one manifest.
    #[error(
        "{reference} is an OCI image index (a multi-platform manifest list) of {} manifest(s): {}; a plugin source must name the one manifest of a WebAssembly component (refused: an index's platforms say nothing of which entry is the component, and a signature covers one manifest digest); use oci://REGISTRY/REPO@sha256:HEX of the wasm entry",
        entries.len(),
        if entries.is_empty() { "none".to_string() } else { entries.join(", ") }
    )]
    Index {
        /// The reference.
        reference: String,
        /// Its entries: `DIGEST (PLATFORM or media type)`.
        entries: Vec<String>,
    },
    /// Anything else the registry or the artifact got wrong.
    #[error("{reference}: {reason}")]
    Other {
        /// The reference.
        reference: String,
        /// What went wrong.
        reason: String,
    },
}

/// A client for the registry of one reference.
pub struct Registry {
    client: Client,
    auth: RegistryAuth,
    registry: String,
    timeouts: FetchTimeouts,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("registry", &self.registry)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// A client for `r`'s registry; plain HTTP for a loopback registry or
    /// one of `plain_http` (`host` or `host:port`); each request held to
    /// `timeouts` (connect, and first byte, which bounds every wait for
    /// the next byte too).
    pub fn for_ref(r: &OciRef, plain_http: &[String], timeouts: &FetchTimeouts) -> Self {
        // reqwest is built without a crypto provider: the host's rustls
        // uses ring. Fails only if one is installed already, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let plain =
            is_loopback(r.host()) || plain_http.iter().any(|p| p == &r.registry || p == r.host());
        let config = ClientConfig {
            protocol: if plain {
                ClientProtocol::Http
            } else {
                ClientProtocol::Https
            },
            connect_timeout: Some(timeouts.connect.value),
            read_timeout: Some(timeouts.first_byte.value),
            ..ClientConfig::default()
        };
        let auth = match (std::env::var(USERNAME_ENV), std::env::var(PASSWORD_ENV)) {
            (Ok(user), Ok(password)) if !user.is_empty() => RegistryAuth::Basic(user, password),
            _ => RegistryAuth::Anonymous,
        };
        Registry {
            client: Client::new(config),
            auth,
            registry: r.registry.clone(),
            timeouts: timeouts.clone(),
        }
    }

    /// Why a request failed, naming the timeout key if one ran out.
    fn unreachable(&self, e: &reqwest::Error) -> OciError {
        let bound = |b: &Bound<std::time::Duration>, what: &str| {
            format!("{what} within {} (`{}`)", spelled(b.value), b.key)
        };
        let reason = match (e.is_connect(), e.is_timeout()) {
            (true, true) => bound(&self.timeouts.connect, "no connection"),
            (false, true) => bound(&self.timeouts.first_byte, "no answer"),
            _ => error_chain(e),
        };
        OciError::Unreachable {
            registry: self.registry.clone(),
            reason,
        }
    }

    fn error(&self, reference: &OciRef, e: OciDistributionError) -> OciError {
        let reference = reference.to_string();
        match e {
            OciDistributionError::RequestError(e) if e.is_connect() || e.is_timeout() => {
                self.unreachable(&e)
            }
            OciDistributionError::ImageManifestNotFoundError(_) => OciError::NotFound { reference },
            OciDistributionError::ServerError { code: 404, .. } => OciError::NotFound { reference },
            OciDistributionError::RegistryError { envelope, .. }
                if envelope.errors.iter().any(|e| {
                    matches!(
                        e.code,
                        OciErrorCode::ManifestUnknown
                            | OciErrorCode::NameUnknown
                            | OciErrorCode::BlobUnknown
                    )
                }) =>
            {
                OciError::NotFound { reference }
            }
            OciDistributionError::DigestError(d) => OciError::Other {
                reference,
                reason: format!("digest mismatch: {d}"),
            },
            e => OciError::Other {
                reference,
                reason: error_chain(&e),
            },
        }
    }

    /// The digest the tag of `r` points at now.
    pub async fn resolve(&self, r: &OciRef) -> Result<String, OciError> {
        self.client
            .fetch_manifest_digest(&r.client_ref(), &self.auth)
            .await
            .map_err(|e| self.error(r, e))
    }

    /// The manifest `r` names by digest, checked against that digest and
    /// [`MAX_MANIFEST_SIZE`]. An index is accepted here (so that it can be
    /// told apart from a missing manifest) and refused by
    /// [`component_layer`].
    pub async fn manifest(&self, r: &OciRef, digest: &str) -> Result<Vec<u8>, OciError> {
        let at = r.at_digest(digest);
        let (bytes, _) = self
            .client
            .pull_manifest_raw(
                &at.client_ref(),
                &self.auth,
                &[
                    OCI_IMAGE_MEDIA_TYPE,
                    IMAGE_MANIFEST_MEDIA_TYPE,
                    OCI_IMAGE_INDEX_MEDIA_TYPE,
                    IMAGE_MANIFEST_LIST_MEDIA_TYPE,
                ],
            )
            .await
            .map_err(|e| self.error(&at, e))?;
        if bytes.len() as u64 > MAX_MANIFEST_SIZE {
            return Err(OciError::Other {
                reference: at.to_string(),
                reason: format!(
                    "the manifest has {} bytes; a manifest may have at most {MAX_MANIFEST_SIZE}",
                    bytes.len()
                ),
            });
        }
        check_digest(&at.to_string(), digest, &bytes)?;
        Ok(bytes.to_vec())
    }

    /// Streams the blob `digest` of `r`'s repository into `out`, checking
    /// its size against `declared` (the manifest's) and `max`, and its
    /// digest, as it comes: the first chunk past a bound is refused
    /// unwritten. `out` holds unchecked bytes until this returns `Ok`.
    pub async fn blob_into(
        &self,
        r: &OciRef,
        digest: &str,
        declared: Option<i64>,
        max: &Bound<u64>,
        out: &mut (impl AsyncWrite + Unpin),
    ) -> Result<(), OciError> {
        let what = format!("{}@{digest} (blob)", r.repository_name());
        let checked = |source: CheckError| OciError::Check {
            what: what.clone(),
            source,
        };
        let expected = parse_digest(&what, digest)?;
        let mut check = StreamCheck::new(expected, declared, max).map_err(checked)?;
        let descriptor = OciDescriptor {
            digest: digest.to_string(),
            size: declared.unwrap_or_default(),
            ..OciDescriptor::default()
        };
        // oci-client checks the digest too, at the end of the stream;
        // `check` does the sizes as the bytes come.
        let mut stream = self
            .client
            .pull_blob_stream(&r.client_ref(), &descriptor)
            .await
            .map_err(|e| self.error(r, e))?;
        check.announce(stream.content_length).map_err(checked)?;
        while let Some(chunk) = stream.stream.next().await {
            let chunk = chunk.map_err(|e| self.stream_error(r, &e))?;
            check.feed(&chunk).map_err(checked)?;
            out.write_all(&chunk).await.map_err(|e| OciError::Other {
                reference: what.clone(),
                reason: format!("cannot write it: {e}"),
            })?;
        }
        check.finish().map_err(checked)
    }

    /// A small blob (a signature payload), checked as [`Registry::blob_into`].
    pub async fn blob(
        &self,
        r: &OciRef,
        digest: &str,
        declared: Option<i64>,
        max: &Bound<u64>,
    ) -> Result<Vec<u8>, OciError> {
        let mut out = Vec::new();
        self.blob_into(r, digest, declared, max, &mut out).await?;
        Ok(out)
    }

    /// Why reading a body failed.
    fn stream_error(&self, r: &OciRef, e: &std::io::Error) -> OciError {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(s) = source {
            if let Some(e) = s.downcast_ref::<reqwest::Error>()
                && e.is_timeout()
            {
                return self.unreachable(e);
            }
            source = s.source();
        }
        OciError::Other {
            reference: r.to_string(),
            reason: error_chain(e),
        }
    }

    /// Pushes `component` to `r` in the wasm artifact layout, with `policy`
    /// (YAML) as a [`POLICY_LAYER`] layer if given; returns the manifest's
    /// digest.
    pub async fn push_component(
        &self,
        r: &OciRef,
        component: &[u8],
        policy: Option<&[u8]>,
    ) -> Result<String, OciError> {
        let layer = ImageLayer::new(component.to_vec(), WASM_LAYER.to_string(), None);
        let config = json!({
            "architecture": "wasm",
            "os": "wasip2",
            "layerDigests": [layer.sha256_digest()],
        });
        let config = Config::new(
            serde_json::to_vec(&config).unwrap_or_default(),
            WASM_CONFIG.to_string(),
            None,
        );
        let mut layers = vec![layer];
        if let Some(policy) = policy {
            layers.push(ImageLayer::new(
                policy.to_vec(),
                POLICY_LAYER.to_string(),
                None,
            ));
        }
        let manifest = OciImageManifest::build(&layers, &config, None);
        self.client
            .push(&r.client_ref(), &layers, config, &self.auth, Some(manifest))
            .await
            .map_err(|e| self.error(r, e))?;
        self.resolve(r).await
    }

    /// Adds a signature layer (`payload`, signed `signature`) to the
    /// signature manifest tagged `tag` in `r`'s repository, keeping the
    /// signatures it already holds.
    pub async fn push_signature(
        &self,
        r: &OciRef,
        tag: &str,
        payload: &[u8],
        signature: &str,
    ) -> Result<(), OciError> {
        let at = r.at_tag(tag);
        let mut layers = match self.resolve(&at).await {
            Ok(digest) => {
                let bytes = self.manifest(&at, &digest).await?;
                let existing: OciImageManifest =
                    serde_json::from_slice(&bytes).map_err(|e| OciError::Other {
                        reference: at.to_string(),
                        reason: format!("the signature manifest is not an image manifest: {e}"),
                    })?;
                existing.layers
            }
            Err(OciError::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(e),
        };
        let layer = ImageLayer::new(
            payload.to_vec(),
            PAYLOAD_MEDIA_TYPE.to_string(),
            Some(BTreeMap::from([(
                SIGNATURE_ANNOTATION.to_string(),
                signature.to_string(),
            )])),
        );
        let digest = layer.sha256_digest();
        layers.retain(|l| l.digest != digest || l.annotations != layer.annotations);
        self.client
            .push_blob(&at.client_ref(), layer.data.clone(), &digest)
            .await
            .map_err(|e| self.error(&at, e))?;
        layers.push(OciDescriptor {
            media_type: PAYLOAD_MEDIA_TYPE.to_string(),
            digest,
            size: payload.len() as i64,
            urls: None,
            annotations: layer.annotations.clone(),
            artifact_type: None,
        });
        let diff_ids: Vec<&str> = layers.iter().map(|l| l.digest.as_str()).collect();
        let config = Config::oci_v1(
            serde_json::to_vec(&json!({
                "architecture": "",
                "config": {},
                "created": "0001-01-01T00:00:00Z",
                "history": [{"created": "0001-01-01T00:00:00Z"}],
                "os": "",
                "rootfs": {"type": "layers", "diff_ids": diff_ids},
            }))
            .unwrap_or_default(),
            None,
        );
        let config_digest = config.sha256_digest();
        self.client
            .push_blob(&at.client_ref(), config.data.clone(), &config_digest)
            .await
            .map_err(|e| self.error(&at, e))?;
        let manifest = OciImageManifest {
            schema_version: 2,
            media_type: Some(OCI_IMAGE_MEDIA_TYPE.to_string()),
            config: OciDescriptor {
                media_type: config.media_type.clone(),
                digest: config_digest,
                size: config.data.len() as i64,
                urls: None,
                annotations: None,
                artifact_type: None,
            },
            layers,
            ..OciImageManifest::default()
        };
        self.client
            .push_manifest(&at.client_ref(), &manifest.into())
            .await
            .map_err(|e| self.error(&at, e))?;
        Ok(())
    }
}

/// The component layer of a wasm artifact manifest: its digest and the
/// size the manifest declares. An index is refused, naming its entries.
pub fn component_layer(reference: &str, manifest: &[u8]) -> Result<(String, i64), OciError> {
    let other = |reason: String| OciError::Other {
        reference: reference.to_string(),
        reason,
    };
    if let Ok(value) = serde_json::from_slice::<Value>(manifest) {
        let media_type = value["mediaType"].as_str().unwrap_or_default();
        if media_type == OCI_IMAGE_INDEX_MEDIA_TYPE
            || media_type == IMAGE_MANIFEST_LIST_MEDIA_TYPE
            || value.get("manifests").is_some_and(Value::is_array)
        {
            let entries = value["manifests"]
                .as_array()
                .into_iter()
                .flatten()
                .map(index_entry)
                .collect();
            return Err(OciError::Index {
                reference: reference.to_string(),
                entries,
            });
        }
    }
    let manifest: OciImageManifest = serde_json::from_slice(manifest)
        .map_err(|e| other(format!("not an OCI image manifest: {e}")))?;
    let wasm: Vec<&OciDescriptor> = manifest
        .layers
        .iter()
        .filter(|l| l.media_type == WASM_LAYER || l.media_type == WASM_LAYER_LEGACY)
        .collect();
    match wasm.as_slice() {
        [one] => Ok((one.digest.clone(), one.size)),
        [] => Err(other(format!(
            "not a WebAssembly component artifact: no layer of media type {WASM_LAYER} (config {})",
            manifest.config.media_type
        ))),
        _ => Err(other(format!(
            "{} layers of media type {WASM_LAYER}; expected one",
            wasm.len()
        ))),
    }
}

/// The policy layer of a wasm artifact manifest (Wassette's, media type
/// [`POLICY_LAYER`]), if it has one: its digest and declared size.
pub fn policy_layer(manifest: &[u8]) -> Option<(String, i64)> {
    let manifest: OciImageManifest = serde_json::from_slice(manifest).ok()?;
    manifest
        .layers
        .into_iter()
        .find(|l| l.media_type == POLICY_LAYER)
        .map(|l| (l.digest, l.size))
}

/// One entry of an index, for a message: its digest and what it is for.
fn index_entry(entry: &Value) -> String {
    let digest = entry["digest"].as_str().unwrap_or("?");
    let platform = &entry["platform"];
    let what = match (platform["os"].as_str(), platform["architecture"].as_str()) {
        (Some(os), Some(arch)) => format!("{os}/{arch}"),
        _ => entry["artifactType"]
            .as_str()
            .or(entry["mediaType"].as_str())
            .unwrap_or("unknown")
            .to_string(),
    };
    format!("{digest} ({what})")
}

/// The signature layers of a signature manifest: (payload digest,
/// declared size, base64 signature).
pub fn signature_layers(manifest: &[u8]) -> Vec<(String, i64, String)> {
    let Ok(manifest) = serde_json::from_slice::<OciImageManifest>(manifest) else {
        return Vec::new();
    };
    manifest
        .layers
        .into_iter()
        .filter(|l| l.media_type == PAYLOAD_MEDIA_TYPE)
        .filter_map(|l| {
            let signature = l.annotations.as_ref()?.get(SIGNATURE_ANNOTATION)?.clone();
            Some((l.digest, l.size, signature))
        })
        .collect()
}

/// The [`Sha256Digest`] of `sha256:HEX` (`what` names it in the error).
pub fn parse_digest(what: &str, digest: &str) -> Result<Sha256Digest, OciError> {
    let other = |reason: String| OciError::Other {
        reference: what.to_string(),
        reason,
    };
    let hex = digest
        .strip_prefix("sha256:")
        .ok_or_else(|| other(format!("unsupported digest {digest} (only sha256)")))?;
    Sha256Digest::from_hex(hex).map_err(|e| other(e.to_string()))
}

/// Checks that `bytes` have `digest` (`sha256:HEX`).
pub fn check_digest(what: &str, digest: &str, bytes: &[u8]) -> Result<(), OciError> {
    let actual = format!("sha256:{}", Sha256Digest::of(bytes));
    if !digest.starts_with("sha256:") {
        return Err(OciError::Other {
            reference: what.to_string(),
            reason: format!("unsupported digest {digest} (only sha256)"),
        });
    }
    if actual != digest {
        return Err(OciError::Digest {
            what: what.to_string(),
            expected: digest.to_string(),
            actual,
        });
    }
    Ok(())
}

/// An error and its sources, on one line.
pub(super) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}
