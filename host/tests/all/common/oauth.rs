//! The test's own OAuth 2.1 authorization server: P-256 signing keys
//! (rcgen), their JWKS served from a real HTTP server on 127.0.0.1 (which
//! counts the fetches), and ES256 access tokens minted with jsonwebtoken.
#![allow(dead_code, clippy::unwrap_used)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

pub const ISSUER: &str = "https://idp.example.test/realms/mcp";
pub const AUDIENCE: &str = "https://mcp.example.test/mcp";

/// The policy file's `[server.oauth]` section for this authorization
/// server, its JWKS at `jwks_uri`, ES256 only, with `more` lines.
pub fn server_section(jwks_uri: &str, more: &str) -> String {
    format!(
        r#"
[server.oauth]
issuer = "{ISSUER}"
audience = "{AUDIENCE}"
jwks_uri = "{jwks_uri}"
algorithms = ["ES256"]
{more}
"#
    )
}

/// A signing key of the test's authorization server.
pub struct SigningKey {
    pub kid: String,
    pub encoding: EncodingKey,
    pub jwk: Value,
}

impl SigningKey {
    pub fn new(kid: &str) -> SigningKey {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let raw = pair.public_key_raw();
        assert_eq!((raw.len(), raw[0]), (65, 4), "an uncompressed P-256 point");
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
            "x": URL_SAFE_NO_PAD.encode(&raw[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&raw[33..65]),
        });
        SigningKey {
            kid: kid.to_string(),
            encoding: EncodingKey::from_ec_der(&pair.serialize_der()),
            jwk,
        }
    }

    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Claims of a token for `sub` with `scope`, valid for an hour.
pub fn claims(sub: &str, scope: &str) -> Value {
    json!({
        "iss": ISSUER, "aud": AUDIENCE, "sub": sub, "scope": scope,
        "iat": now(), "exp": now() + 3600,
    })
}

/// The JWKS server: serves whatever key set it holds now at `/jwks`, and
/// counts the fetches. Beside it, for the fetch's bounds: `/moved`
/// redirects to `/jwks`, `/large` serves the key set with 4 KiB of padding,
/// `/silent` never answers.
pub struct Jwks {
    pub port: u16,
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicU64>,
    _runtime: tokio::runtime::Runtime,
}

#[derive(Clone)]
struct JwksState {
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicU64>,
}

impl Jwks {
    pub fn serve(keys: &[&SigningKey]) -> Jwks {
        let state = JwksState {
            keys: Arc::new(Mutex::new(keys.iter().map(|k| k.jwk.clone()).collect())),
            fetches: Arc::new(AtomicU64::new(0)),
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let app = Router::new()
            .route(
                "/jwks",
                get(|State(s): State<JwksState>| async move {
                    s.fetches.fetch_add(1, Ordering::SeqCst);
                    let keys = s.keys.lock().unwrap().clone();
                    json!({ "keys": keys }).to_string()
                }),
            )
            .route(
                "/moved",
                get(|| async { axum::response::Redirect::permanent("/jwks") }),
            )
            .route(
                "/large",
                get(|State(s): State<JwksState>| async move {
                    let keys = s.keys.lock().unwrap().clone();
                    json!({ "keys": keys, "padding": "x".repeat(4096) }).to_string()
                }),
            )
            .route("/silent", get(std::future::pending::<String>))
            .with_state(state.clone());
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
        Jwks {
            port,
            keys: state.keys,
            fetches: state.fetches,
            _runtime: runtime,
        }
    }

    pub fn uri(&self) -> String {
        format!("http://127.0.0.1:{}/jwks", self.port)
    }

    pub fn publish(&self, keys: &[&SigningKey]) {
        *self.keys.lock().unwrap() = keys.iter().map(|k| k.jwk.clone()).collect();
    }

    pub fn fetches(&self) -> u64 {
        self.fetches.load(Ordering::SeqCst)
    }
}
