//! Components fetched from a URL: `https://`, or `http://` on a loopback
//! host. The policy pins the file's SHA-256, which the bytes are checked
//! against as they stream to a temporary file, with their count against
//! the plugin's size bound; nothing keeps them before both pass.

use futures::StreamExt as _;
use tokio::io::{AsyncWrite, AsyncWriteExt as _};

use super::check::{CheckError, StreamCheck};
use super::limits::{Bound, FetchTimeouts, spelled};
use crate::runtime::Sha256Digest;

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
    /// The bytes failed their size or digest check.
    #[error("{url}: {source}")]
    Check {
        /// The URL.
        url: String,
        /// What is wrong.
        source: CheckError,
    },
}

/// GETs `url` (reqwest follows at most 10 redirects) and streams its body
/// into `out`, checked against `expected` and `max` as it comes. `out`
/// holds unchecked bytes until this returns `Ok`.
pub async fn fetch_into(
    url: &str,
    expected: Sha256Digest,
    max: &Bound<u64>,
    timeouts: &FetchTimeouts,
    out: &mut (impl AsyncWrite + Unpin),
) -> Result<(), HttpsError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let failed = |reason: String| HttpsError::Failed {
        url: url.to_string(),
        reason,
    };
    let checked = |source: CheckError| HttpsError::Check {
        url: url.to_string(),
        source,
    };
    let unreachable = |e: reqwest::Error| {
        let bound = |b: &Bound<std::time::Duration>, what: &str| {
            format!("{what} within {} (`{}`)", spelled(b.value), b.key)
        };
        let reason = match (e.is_connect(), e.is_timeout()) {
            (true, true) => bound(&timeouts.connect, "no connection"),
            (false, true) => bound(&timeouts.first_byte, "no answer"),
            (true, false) => e.to_string(),
            (false, false) => return failed(e.to_string()),
        };
        HttpsError::Unreachable {
            url: url.to_string(),
            reason,
        }
    };
    let mut check = StreamCheck::new(expected, None, max).map_err(checked)?;
    let client = reqwest::Client::builder()
        .connect_timeout(timeouts.connect.value)
        .read_timeout(timeouts.first_byte.value)
        .https_only(!url.starts_with("http://"))
        .build()
        // reqwest's own text is only "builder error": the cause (such as
        // "No CA certificates were loaded from the system") is its source.
        .map_err(|e| failed(super::oci::error_chain(&e)))?;
    let response = client.get(url).send().await.map_err(unreachable)?;
    if !response.status().is_success() {
        return Err(failed(format!("HTTP {}", response.status())));
    }
    check.announce(response.content_length()).map_err(checked)?;
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(unreachable)?;
        check.feed(&chunk).map_err(checked)?;
        out.write_all(&chunk)
            .await
            .map_err(|e| failed(format!("cannot write it: {e}")))?;
    }
    check.finish().map_err(checked)
}
