//! Checking a JWT access token: its header names an allowed asymmetric
//! algorithm and a key the issuer's JWKS has (of that algorithm's family),
//! its signature holds, and its claims name the configured issuer (`iss`)
//! and this server (`aud`), a subject (`sub`), and a time window (`exp`,
//! `nbf`) that includes now, give or take the leeway. The result is the
//! caller as a [`Principal`]: its subject and scopes (`scope`, a
//! space-separated string, or `scp`, a string or a list, as some issuers
//! write it).

use std::collections::BTreeSet;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};

use super::jwks::{Jwks, JwksError, Lookup};
use crate::config::OAuthSettings;
use crate::runtime::Principal;

/// Why a token was refused. The messages go back to the client (in
/// `WWW-Authenticate`'s `error_description`), so they never quote the
/// token.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TokenError {
    /// Not a JWT, or a header or claims that do not parse.
    #[error("the access token is not a well-formed JWT")]
    Malformed,
    /// An algorithm not on the allow-list (`none` and HMAC never are).
    #[error("the access token is signed with {0}, which this server does not accept")]
    Algorithm(String),
    /// No `kid` in the header.
    #[error("the access token's header names no signing key (kid)")]
    NoKeyId,
    /// The issuer's JWKS has no key with the token's `kid`.
    #[error("the access token is signed with a key the issuer does not publish")]
    UnknownKey,
    /// The key is of another family than the algorithm, or pinned to
    /// another algorithm.
    #[error("the access token's algorithm does not match its signing key")]
    KeyMismatch,
    /// The signature does not hold.
    #[error("the access token's signature is invalid")]
    Signature,
    /// `exp` has passed.
    #[error("the access token has expired")]
    Expired,
    /// `nbf` is still ahead.
    #[error("the access token is not valid yet")]
    NotYetValid,
    /// `iss` is not the configured issuer.
    #[error("the access token was issued by another issuer")]
    Issuer,
    /// `aud` does not name this server.
    #[error("the access token is not meant for this server (audience)")]
    Audience,
    /// A required claim is missing.
    #[error("the access token lacks the claim {0}")]
    MissingClaim(String),
    /// The issuer's keys cannot be fetched (a server-side problem).
    #[error(transparent)]
    Jwks(#[from] JwksError),
}

#[derive(serde::Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Scp>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Scp {
    One(String),
    Many(Vec<String>),
}

/// Checks access tokens against one issuer.
#[derive(Debug)]
pub struct Validator {
    jwks: Jwks,
    algorithms: Vec<Algorithm>,
    validation: Validation,
}

impl Validator {
    /// A validator for `settings`; its JWKS is fetched on the first token.
    pub fn new(settings: &OAuthSettings) -> Validator {
        let mut validation = Validation::new(Algorithm::RS256);
        validation.algorithms = settings.algorithms.clone();
        validation.set_issuer(&[&settings.issuer]);
        validation.set_audience(&[&settings.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = settings.leeway.as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        Validator {
            jwks: Jwks::new(settings),
            algorithms: settings.algorithms.clone(),
            validation,
        }
    }

    /// The issuer's key set, as cached.
    pub fn jwks(&self) -> &Jwks {
        &self.jwks
    }

    /// The caller `token` stands for, or why it is refused.
    pub async fn validate(&self, token: &str) -> Result<Principal, TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|e| match e.kind() {
            ErrorKind::InvalidAlgorithmName => TokenError::Algorithm("an unknown algorithm".into()),
            _ => TokenError::Malformed,
        })?;
        if !self.algorithms.contains(&header.alg) {
            return Err(TokenError::Algorithm(format!("{:?}", header.alg)));
        }
        let kid = header.kid.as_deref().ok_or(TokenError::NoKeyId)?;
        let key = match self.jwks.key(kid).await? {
            Lookup::Found(key) => key,
            Lookup::Unknown => return Err(TokenError::UnknownKey),
        };
        if key.family != header.alg.family() || key.algorithm.is_some_and(|a| a != header.alg) {
            return Err(TokenError::KeyMismatch);
        }
        let mut validation = self.validation.clone();
        validation.algorithms = vec![header.alg];
        let data = jsonwebtoken::decode::<Claims>(token, &key.decoding, &validation).map_err(
            |e| match e.into_kind() {
                ErrorKind::ExpiredSignature => TokenError::Expired,
                ErrorKind::ImmatureSignature => TokenError::NotYetValid,
                ErrorKind::InvalidIssuer => TokenError::Issuer,
                ErrorKind::InvalidAudience => TokenError::Audience,
                ErrorKind::MissingRequiredClaim(claim) => TokenError::MissingClaim(claim),
                ErrorKind::InvalidSignature
                | ErrorKind::InvalidEcdsaKey
                | ErrorKind::InvalidEddsaKey
                | ErrorKind::InvalidRsaKey(_)
                | ErrorKind::InvalidKeyFormat => TokenError::Signature,
                ErrorKind::InvalidAlgorithm => TokenError::KeyMismatch,
                _ => TokenError::Malformed,
            },
        )?;
        let claims = data.claims;
        if claims.sub.is_empty() {
            return Err(TokenError::MissingClaim("sub".into()));
        }
        let mut scopes: BTreeSet<String> = claims
            .scope
            .iter()
            .flat_map(|s| s.split_whitespace())
            .map(str::to_string)
            .collect();
        match claims.scp {
            Some(Scp::One(s)) => scopes.extend(s.split_whitespace().map(str::to_string)),
            Some(Scp::Many(list)) => scopes.extend(list),
            None => {}
        }
        Ok(Principal {
            subject: claims.sub.into(),
            scopes,
        })
    }
}
