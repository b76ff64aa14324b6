//! Components fetched from a URL: `https://`, or `http://` on a loopback
//! host. The policy pins the file's SHA-256, which the bytes are checked
//! against before anything keeps them.

use std::time::Duration;

use crate::runtime::Sha256Digest;

/// The most bytes a component fetched from a URL may have.
pub const MAX_COMPONENT_BYTES: usize = 256 << 20;

/// Why a URL fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum HttpsError {
    /// The server could not be reached.
    #[error("{url}: cannot be reached: {reason}")]
    Unreachable {
        /// The URL.
        url: String,
        /// What failed.
        reason: String,
    },
    /// The server answered with an error or too much.
    #[error("{url}: {reason}")]
    Failed {
        /// The URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
}

/// GETs `url` (no redirects to other schemes are followed blindly: reqwest
/// keeps at most 10 hops) and returns its body.
pub async fn fetch(url: &str) -> Result<Vec<u8>, HttpsError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let failed = |reason: String| HttpsError::Failed {
        url: url.to_string(),
        reason,
    };
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(300))
        .https_only(!url.starts_with("http://"))
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let response = client.get(url).send().await.map_err(|e| {
        if e.is_connect() || e.is_timeout() {
            HttpsError::Unreachable {
                url: url.to_string(),
                reason: e.to_string(),
            }
        } else {
            failed(e.to_string())
        }
    })?;
    if !response.status().is_success() {
        return Err(failed(format!("HTTP {}", response.status())));
    }
    if response
        .content_length()
        .is_some_and(|n| n > MAX_COMPONENT_BYTES as u64)
    {
        return Err(failed(format!("larger than {MAX_COMPONENT_BYTES} bytes")));
    }
    let body = response.bytes().await.map_err(|e| failed(e.to_string()))?;
    if body.len() > MAX_COMPONENT_BYTES {
        return Err(failed(format!("larger than {MAX_COMPONENT_BYTES} bytes")));
    }
    Ok(body.to_vec())
}

/// Whether `bytes` have the digest `expected`.
pub fn matches(bytes: &[u8], expected: &Sha256Digest) -> bool {
    Sha256Digest::of(bytes) == *expected
}
