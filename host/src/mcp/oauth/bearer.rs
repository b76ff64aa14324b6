//! Bearer-token authentication for the HTTP transport: where the token comes
//! from (an environment variable or a file), and the axum layer that answers
//! a request without the right `Authorization: Bearer …` header with
//! `401 Unauthorized` and a `WWW-Authenticate` challenge (RFC 6750).
//!
//! Tokens are compared in constant time: both sides are hashed with SHA-256
//! and the digests compared with `subtle`, so neither the content nor the
//! length of the expected token leaks through timing.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The realm named in every challenge.
const REALM: &str = "mcp-wasm-host";

/// The shortest token accepted: shorter ones are too easy to guess.
pub const MIN_TOKEN_LEN: usize = 16;

/// Why a token could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The environment variable is not set or not valid UTF-8.
    #[error("the bearer token variable {0} is not set (or is not UTF-8)")]
    MissingVar(String),
    /// The token file could not be read.
    #[error("cannot read the bearer token file {path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The token is too short or has characters a bearer token cannot have.
    #[error("the bearer token from {from} is unusable: {why}")]
    Invalid {
        /// Where it came from.
        from: String,
        /// What is wrong with it.
        why: String,
    },
}

/// The expected bearer token. Only its SHA-256 digest is kept; `Debug`
/// never shows it.
#[derive(Clone)]
pub struct BearerToken {
    digest: Arc<[u8; 32]>,
    from: Arc<str>,
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerToken")
            .field("from", &self.from)
            .finish_non_exhaustive()
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

impl BearerToken {
    /// A token given directly; `from` says where it came from, for messages.
    pub fn new(token: &str, from: impl Into<String>) -> Result<BearerToken, AuthError> {
        let from = from.into();
        let token = token.trim();
        let invalid = |why: String| AuthError::Invalid {
            from: from.clone(),
            why,
        };
        if token.len() < MIN_TOKEN_LEN {
            return Err(invalid(format!(
                "it has {} characters; use at least {MIN_TOKEN_LEN} (e.g. `openssl rand -hex 32`)",
                token.len()
            )));
        }
        // RFC 6750 b64token: what a client can send after "Bearer ".
        let allowed = |c: char| c.is_ascii_alphanumeric() || "-._~+/=".contains(c);
        if let Some(bad) = token.chars().find(|&c| !allowed(c)) {
            return Err(invalid(format!(
                "it contains {bad:?}; a bearer token may use only letters, digits and - . _ ~ + / ="
            )));
        }
        Ok(BearerToken {
            digest: Arc::new(digest(token.as_bytes())),
            from: from.into(),
        })
    }

    /// The token in environment variable `var`.
    pub fn from_env(var: &str) -> Result<BearerToken, AuthError> {
        let value = std::env::var(var).map_err(|_| AuthError::MissingVar(var.into()))?;
        BearerToken::new(&value, format!("environment variable {var}"))
    }

    /// The token in `path` (surrounding whitespace, such as a final newline,
    /// is ignored).
    pub fn from_file(path: &Path) -> Result<BearerToken, AuthError> {
        let value = std::fs::read_to_string(path).map_err(|source| AuthError::File {
            path: path.into(),
            source,
        })?;
        BearerToken::new(&value, format!("file {}", path.display()))
    }

    /// Whether `presented` is the token, in time that does not depend on
    /// either value.
    pub fn matches(&self, presented: &str) -> bool {
        digest(presented.as_bytes())
            .ct_eq(self.digest.as_ref())
            .into()
    }

    /// Where the token came from (never the token itself).
    pub fn source(&self) -> &str {
        &self.from
    }
}

/// What was wrong with a request's credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rejection {
    /// No `Authorization: Bearer` header.
    Missing,
    /// A bearer token that is not the right one, or a malformed header.
    Invalid,
}

fn check(token: &BearerToken, value: Option<&HeaderValue>) -> Result<(), Rejection> {
    let value = value.ok_or(Rejection::Missing)?;
    let value = value.to_str().map_err(|_| Rejection::Invalid)?;
    let (scheme, presented) = value.split_once(' ').ok_or(Rejection::Invalid)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Rejection::Missing);
    }
    if token.matches(presented.trim()) {
        Ok(())
    } else {
        Err(Rejection::Invalid)
    }
}

fn unauthorized(rejection: Rejection) -> Response {
    let (challenge, body) = match rejection {
        Rejection::Missing => (
            format!("Bearer realm=\"{REALM}\""),
            "Unauthorized: send the server's token as `Authorization: Bearer <token>`",
        ),
        Rejection::Invalid => (
            format!(
                "Bearer realm=\"{REALM}\", error=\"invalid_token\", error_description=\"the bearer token is not valid\""
            ),
            "Unauthorized: the bearer token is not valid",
        ),
    };
    let mut response = (StatusCode::UNAUTHORIZED, body).into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The axum middleware: passes requests with the right bearer token on and
/// answers every other request with 401.
pub async fn require_bearer(
    State(token): State<BearerToken>,
    request: Request,
    next: Next,
) -> Response {
    match check(&token, request.headers().get(header::AUTHORIZATION)) {
        Ok(()) => next.run(request).await,
        Err(rejection) => {
            tracing::warn!(
                method = %request.method(),
                path = %request.uri().path(),
                reason = ?rejection,
                "refused an HTTP request without a valid bearer token"
            );
            unauthorized(rejection)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    fn header(v: &str) -> HeaderValue {
        HeaderValue::from_str(v).unwrap()
    }

    #[test]
    fn accepts_only_the_token() {
        let t = BearerToken::new(TOKEN, "test").unwrap();
        assert_eq!(check(&t, Some(&header(&format!("Bearer {TOKEN}")))), Ok(()));
        assert_eq!(check(&t, Some(&header(&format!("bearer {TOKEN}")))), Ok(()));
        assert_eq!(check(&t, None), Err(Rejection::Missing));
        assert_eq!(
            check(&t, Some(&header("Basic dXNlcjpwYXNz"))),
            Err(Rejection::Missing)
        );
        assert_eq!(
            check(&t, Some(&header(&format!("Bearer {TOKEN}x")))),
            Err(Rejection::Invalid)
        );
        assert_eq!(
            check(&t, Some(&header(&format!("Bearer {}", &TOKEN[1..])))),
            Err(Rejection::Invalid)
        );
        assert_eq!(check(&t, Some(&header("Bearer"))), Err(Rejection::Invalid));
    }

    #[test]
    fn refuses_weak_or_malformed_tokens() {
        let short = BearerToken::new("short", "test").unwrap_err().to_string();
        assert!(short.contains("at least 16"), "{short}");
        let spaced = BearerToken::new("0123456789 abcdef0123", "test")
            .unwrap_err()
            .to_string();
        assert!(spaced.contains("' '"), "{spaced}");
        // A trailing newline from `echo token > file` is fine.
        assert!(BearerToken::new(&format!("{TOKEN}\n"), "test").is_ok());
    }

    #[test]
    fn debug_never_shows_the_token() {
        let t = BearerToken::new(TOKEN, "environment variable X").unwrap();
        let shown = format!("{t:?}");
        assert!(
            !shown.contains(TOKEN) && shown.contains("variable X"),
            "{shown}"
        );
    }

    #[test]
    fn challenges_follow_rfc_6750() {
        let r = unauthorized(Rejection::Invalid);
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        let c = r.headers()[header::WWW_AUTHENTICATE].to_str().unwrap();
        assert!(
            c.starts_with("Bearer realm=") && c.contains("invalid_token"),
            "{c}"
        );
        let r = unauthorized(Rejection::Missing);
        let c = r.headers()[header::WWW_AUTHENTICATE].to_str().unwrap();
        assert_eq!(c, "Bearer realm=\"mcp-wasm-host\"");
    }
}
