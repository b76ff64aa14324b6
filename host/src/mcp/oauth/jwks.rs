//! The issuer's signing keys (its JWKS), fetched and cached with bounds:
//! the keys are used for a TTL, then fetched again; a token signed with a
//! key the cache does not know (the issuer rotated its keys) fetches them
//! again, but never more often than the refetch interval, so tokens with
//! made-up key IDs cannot make the server hammer the issuer. One fetch runs
//! at a time, within a timeout, and reads at most the configured number of
//! bytes. A failed fetch keeps the keys already known.
//!
//! The fetch uses reqwest, the HTTP client the crate already has for plugin
//! sources (and oci-client builds on), with the TLS configuration of the
//! plugins' outbound HTTP (rustls with ring and the Mozilla roots of
//! `webpki-roots`). It follows no redirect and uses no proxy: the answer
//! comes from the configured URI itself.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use jsonwebtoken::AlgorithmFamily;
use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use tokio::sync::Mutex;

use crate::config::OAuthSettings;
use crate::runtime::capabilities::http::tls::Trust;

/// Why the keys could not be fetched.
#[derive(Debug, Clone, thiserror::Error)]
pub enum JwksError {
    /// The fetch did not finish in time.
    #[error("fetching the JWKS from {uri} took longer than {timeout:?}")]
    Timeout {
        /// The JWKS URI.
        uri: String,
        /// The limit.
        timeout: Duration,
    },
    /// Connecting, TLS or HTTP failed.
    #[error("cannot fetch the JWKS from {uri}: {why}")]
    Fetch {
        /// The JWKS URI.
        uri: String,
        /// What failed.
        why: String,
    },
    /// The document is larger than allowed, or not a JWKS.
    #[error("the JWKS from {uri} is unusable: {why}")]
    Document {
        /// The JWKS URI.
        uri: String,
        /// What is wrong with it.
        why: String,
    },
}

/// One signing key of the issuer.
#[derive(Clone)]
pub struct Key {
    /// The key to check signatures with.
    pub decoding: DecodingKey,
    /// Its family (RSA, EC, Ed25519).
    pub family: AlgorithmFamily,
    /// The algorithm the JWKS pins it to, if it does (`alg`).
    pub algorithm: Option<jsonwebtoken::Algorithm>,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("family", &self.family)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

/// What a key lookup found.
#[derive(Debug, Clone)]
pub enum Lookup {
    /// The key with the ID.
    Found(Key),
    /// The JWKS (fetched anew, or too recently to fetch again) has no key
    /// with the ID.
    Unknown,
}

#[derive(Debug, Default)]
struct State {
    keys: HashMap<String, Key>,
    /// When the keys were last fetched successfully.
    fetched: Option<Instant>,
    /// When a fetch last started (successful or not).
    attempted: Option<Instant>,
    /// How many fetches were made, for tests and logs.
    fetches: u64,
}

/// The issuer's keys, cached.
#[derive(Debug)]
pub struct Jwks {
    uri: http::Uri,
    ttl: Duration,
    refetch_interval: Duration,
    timeout: Duration,
    max_bytes: u64,
    /// The client, or why it could not be set up.
    client: Result<reqwest::Client, String>,
    state: Mutex<State>,
}

impl Jwks {
    /// The keys at `settings.jwks_uri`, not fetched yet.
    pub fn new(settings: &OAuthSettings) -> Jwks {
        Jwks {
            uri: settings.jwks_uri.clone(),
            ttl: settings.jwks_ttl,
            refetch_interval: settings.jwks_refetch_interval,
            timeout: settings.jwks_timeout,
            max_bytes: settings.max_jwks_bytes,
            client: client(&settings.jwks_uri),
            state: Mutex::new(State::default()),
        }
    }

    /// The key with ID `kid`: from the cache while it is fresh and knows
    /// the ID; otherwise fetched anew first, unless the last fetch started
    /// less than the refetch interval ago. An error only when no keys are
    /// known at all and the fetch failed.
    pub async fn key(&self, kid: &str) -> Result<Lookup, JwksError> {
        let mut state = self.state.lock().await;
        let now = Instant::now();
        let stale = state
            .fetched
            .is_none_or(|t| now.duration_since(t) >= self.ttl);
        let may_fetch = state
            .attempted
            .is_none_or(|t| now.duration_since(t) >= self.refetch_interval);
        if (stale || !state.keys.contains_key(kid)) && may_fetch {
            state.attempted = Some(now);
            state.fetches += 1;
            match self.fetch().await {
                Ok(keys) => {
                    tracing::info!(uri = %self.uri, keys = keys.len(), "fetched the issuer's JWKS");
                    state.keys = keys;
                    state.fetched = Some(Instant::now());
                }
                Err(error) if state.keys.is_empty() => {
                    tracing::warn!(%error, "cannot fetch the issuer's JWKS");
                    return Err(error);
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot fetch the issuer's JWKS; keeping the keys known");
                }
            }
        }
        Ok(match state.keys.get(kid) {
            Some(key) => Lookup::Found(key.clone()),
            None => Lookup::Unknown,
        })
    }

    /// How many fetches were started so far.
    pub async fn fetches(&self) -> u64 {
        self.state.lock().await.fetches
    }

    async fn fetch(&self) -> Result<HashMap<String, Key>, JwksError> {
        let uri = self.uri.to_string();
        let body = tokio::time::timeout(self.timeout, self.get())
            .await
            .map_err(|_| JwksError::Timeout {
                uri: uri.clone(),
                timeout: self.timeout,
            })??;
        parse(&body).map_err(|why| JwksError::Document { uri, why })
    }

    /// One GET of the JWKS URI: its body, at most `max_bytes` of it.
    async fn get(&self) -> Result<Bytes, JwksError> {
        let uri = self.uri.to_string();
        let fail = |why: String| JwksError::Fetch {
            uri: uri.clone(),
            why,
        };
        let client = self.client.as_ref().map_err(|why| fail(why.clone()))?;
        let response = client
            .get(&uri)
            .header(http::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| fail(chain(&e.without_url())))?;
        if !response.status().is_success() {
            return Err(fail(format!("the server answered {}", response.status())));
        }
        let max = usize::try_from(self.max_bytes).unwrap_or(usize::MAX);
        let body = http::Response::<reqwest::Body>::from(response).into_body();
        Limited::new(body, max)
            .collect()
            .await
            .map(|b| b.to_bytes())
            .map_err(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    JwksError::Document {
                        uri: uri.clone(),
                        why: format!(
                            "it is larger than {} bytes (`server.oauth.max_jwks_size`)",
                            self.max_bytes
                        ),
                    }
                } else {
                    fail(chain(&*e))
                }
            })
    }
}

/// The client for `uri`: the TLS of plugins' outbound HTTP, https only
/// unless the URI is http (which the configuration allows only on a
/// loopback host), no redirect, no proxy.
fn client(uri: &http::Uri) -> Result<reqwest::Client, String> {
    let tls = Trust::default()
        .config()
        .ok_or_else(|| "TLS is unavailable".to_string())?;
    reqwest::Client::builder()
        .tls_backend_preconfigured(rustls::ClientConfig::clone(&tls))
        .https_only(uri.scheme_str() != Some("http"))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent("mcp-wasm-host")
        .build()
        .map_err(|e| chain(&e))
        .inspect_err(|error| tracing::warn!(%error, "cannot set up the JWKS client"))
}

/// An error and its causes, on one line (reqwest's own text names only the
/// step that failed, such as "error sending request").
fn chain(error: &dyn std::error::Error) -> String {
    std::iter::successors(Some(error), |e| e.source())
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

/// The signing keys of a JWKS document, by key ID. Keys without an ID,
/// for encryption, symmetric (`oct`) or of a type this server does not know
/// are left out.
pub(crate) fn parse(body: &[u8]) -> Result<HashMap<String, Key>, String> {
    #[derive(serde::Deserialize)]
    struct Document {
        keys: Vec<serde_json::Value>,
    }
    let document: Document = serde_json::from_slice(body)
        .map_err(|e| format!("not a JSON Web Key Set ({{\"keys\": [...]}}): {e}"))?;
    let mut keys = HashMap::new();
    for value in document.keys {
        let Ok(jwk) = serde_json::from_value::<Jwk>(value) else {
            continue;
        };
        let Some(kid) = jwk.common.key_id.clone() else {
            continue;
        };
        if matches!(jwk.common.public_key_use, Some(ref u) if *u != PublicKeyUse::Signature) {
            continue;
        }
        let family = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => AlgorithmFamily::Rsa,
            AlgorithmParameters::EllipticCurve(_) => AlgorithmFamily::Ec,
            AlgorithmParameters::OctetKeyPair(_) => AlgorithmFamily::Ed,
            // A shared secret has no place in a public key set.
            _ => continue,
        };
        let algorithm = jwk
            .common
            .key_algorithm
            .and_then(|a| a.to_string().parse::<jsonwebtoken::Algorithm>().ok());
        let Ok(decoding) = DecodingKey::from_jwk(&jwk) else {
            continue;
        };
        keys.insert(
            kid,
            Key {
                decoding,
                family,
                algorithm,
            },
        );
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_signing_keys_with_an_id_are_kept() {
        let doc = br#"{"keys": [
            {"kty": "EC", "crv": "P-256", "kid": "ec1", "use": "sig", "alg": "ES256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "crv": "P-256", "use": "enc", "kid": "enc1",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "oct", "kid": "secret", "k": "c2VjcmV0"},
            {"kty": "XYZ", "kid": "odd"}
        ]}"#;
        let keys = parse(doc).unwrap();
        assert_eq!(keys.keys().collect::<Vec<_>>(), ["ec1"]);
        let ec = &keys["ec1"];
        assert_eq!(ec.family, AlgorithmFamily::Ec);
        assert_eq!(ec.algorithm, Some(jsonwebtoken::Algorithm::ES256));
        assert!(parse(b"[]").unwrap_err().contains("JSON Web Key Set"));
    }
}
