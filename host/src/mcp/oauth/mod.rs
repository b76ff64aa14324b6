//! Who may use the HTTP transport: the access token each request must carry
//! (RFC 6750 bearer usage), either one fixed token ([`bearer`]) or an
//! OAuth 2.1 issuer's signed JWT (this module, [`token`], [`jwks`]). This
//! room owns the checks of a request's `Authorization` header and what a
//! refusal answers; it knows nothing of the MCP messages behind it.
//!
//! With `[server.oauth]` the HTTP transport is an OAuth 2.1 resource server
//! (the MCP authorization specification; docs/authorization.md): the
//! protected resource metadata of RFC 9728 at
//! `/.well-known/oauth-protected-resource` (and its path-suffixed form for
//! `/mcp`), and the axum layer that lets a request through only with a
//! valid access token of the configured issuer ([`token`]), answering `401`
//! with a `WWW-Authenticate` challenge that points to the metadata
//! otherwise, and `403 insufficient_scope` for a token that grants nothing
//! this server serves. A valid token's caller goes on in the request's
//! extensions as a [`Principal`], where the MCP handler finds it.

pub mod bearer;
pub mod jwks;
pub mod token;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::config::OAuthSettings;
use crate::runtime::Principal;
use token::{TokenError, Validator};

/// The well-known path of the protected resource metadata (RFC 9728).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The resource server: its settings, its token validator and its
/// metadata document.
#[derive(Debug)]
pub struct OAuth {
    settings: OAuthSettings,
    validator: Validator,
    metadata_url: String,
}

impl OAuth {
    /// A resource server for `settings` (checked by the configuration).
    pub fn new(settings: OAuthSettings) -> OAuth {
        let metadata_url = metadata_url(&settings.audience);
        OAuth {
            validator: Validator::new(&settings),
            settings,
            metadata_url,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &OAuthSettings {
        &self.settings
    }

    /// The token validator.
    pub fn validator(&self) -> &Validator {
        &self.validator
    }

    /// The metadata's URL, as the challenges name it.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The protected resource metadata document (RFC 9728 §2).
    pub fn metadata(&self) -> serde_json::Value {
        json!({
            "resource": self.settings.audience,
            "authorization_servers": [self.settings.issuer],
            "scopes_supported": self.settings.scopes_supported,
            "bearer_methods_supported": ["header"],
            "resource_name": "mcp-wasm-host",
        })
    }

    /// The routes serving the metadata: the root form, and the form with
    /// the resource's path (`…/oauth-protected-resource/mcp`), which clients
    /// of the 2025-11-25 specification try first.
    pub fn routes(self: &Arc<Self>, mcp_path: &str) -> Router {
        let mut paths = vec![
            METADATA_PATH.to_string(),
            format!("{METADATA_PATH}{mcp_path}"),
        ];
        let own = resource_path(&self.settings.audience);
        if !own.is_empty() {
            paths.push(format!("{METADATA_PATH}{own}"));
        }
        paths.sort();
        paths.dedup();
        let mut router = Router::new();
        for path in paths {
            let this = self.clone();
            router = router.route(
                &path,
                get(move || async move {
                    (
                        [
                            (header::CONTENT_TYPE, "application/json"),
                            (header::CACHE_CONTROL, "max-age=3600"),
                        ],
                        this.metadata().to_string(),
                    )
                }),
            );
        }
        router
    }

    fn challenge(&self, status: StatusCode, params: &[(&str, &str)], body: &str) -> Response {
        let mut value = format!("Bearer resource_metadata=\"{}\"", self.metadata_url);
        for (name, v) in params {
            value.push_str(&format!(", {name}=\"{}\"", v.replace(['"', '\\'], "'")));
        }
        let mut response = (status, body.to_string()).into_response();
        if let Ok(value) = HeaderValue::from_str(&value) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// The path of the resource URI (`/mcp` of `https://host/mcp`), or empty
/// for the root.
fn resource_path(resource: &str) -> String {
    resource
        .parse::<http::Uri>()
        .ok()
        .map(|u| u.path().trim_end_matches('/').to_string())
        .unwrap_or_default()
}

/// Where the metadata of `resource` lives (RFC 9728 §3.1): the well-known
/// path inserted between the resource's origin and its path.
fn metadata_url(resource: &str) -> String {
    let Ok(uri) = resource.parse::<http::Uri>() else {
        return METADATA_PATH.to_string();
    };
    let scheme = uri.scheme_str().unwrap_or("https");
    let authority = uri.authority().map_or("", |a| a.as_str());
    format!(
        "{scheme}://{authority}{METADATA_PATH}{}",
        resource_path(resource)
    )
}

/// The bearer token of a request, if it sends one.
fn bearer(request: &Request) -> Option<Result<&str, ()>> {
    let value = request.headers().get(header::AUTHORIZATION)?;
    let Ok(value) = value.to_str() else {
        return Some(Err(()));
    };
    let (scheme, token) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let token = token.trim();
    Some(if token.is_empty() { Err(()) } else { Ok(token) })
}

/// The axum middleware: a request with a valid access token goes on with
/// its [`Principal`]; any other is answered with a challenge.
pub async fn require_token(
    State(oauth): State<Arc<OAuth>>,
    mut request: Request,
    next: Next,
) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    let token = match bearer(&request) {
        None => {
            tracing::info!(%method, %path, "refused an HTTP request without an access token");
            return oauth.challenge(
                StatusCode::UNAUTHORIZED,
                &[],
                "Unauthorized: send an access token of the authorization server as `Authorization: Bearer <token>`",
            );
        }
        Some(Err(())) => {
            return oauth.challenge(
                StatusCode::UNAUTHORIZED,
                &[
                    ("error", "invalid_request"),
                    ("error_description", "malformed Authorization header"),
                ],
                "Unauthorized: malformed Authorization header",
            );
        }
        Some(Ok(token)) => token.to_string(),
    };
    let principal = match oauth.validator.validate(&token).await {
        Ok(principal) => principal,
        Err(TokenError::Jwks(error)) => {
            tracing::warn!(%error, "cannot check an access token");
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                "Service unavailable: the authorization server's keys cannot be fetched",
            )
                .into_response();
        }
        Err(error) => {
            tracing::info!(%method, %path, %error, "refused an HTTP request with an invalid access token");
            let description = error.to_string();
            return oauth.challenge(
                StatusCode::UNAUTHORIZED,
                &[
                    ("error", "invalid_token"),
                    ("error_description", &description),
                ],
                &format!("Unauthorized: {description}"),
            );
        }
    };
    let supported = &oauth.settings.scopes_supported;
    if !supported.iter().any(|s| principal.scopes.contains(s)) {
        tracing::info!(
            subject = &*principal.subject,
            %method,
            %path,
            "refused an access token that grants none of this server's scopes"
        );
        let scope = supported.join(" ");
        return oauth.challenge(
            StatusCode::FORBIDDEN,
            &[
                ("error", "insufficient_scope"),
                ("scope", &scope),
                (
                    "error_description",
                    "the access token grants none of the scopes this server's tools need",
                ),
            ],
            &format!("Forbidden: the access token grants none of the scopes {scope}"),
        );
    }
    tracing::debug!(subject = &*principal.subject, "authenticated");
    request.extensions_mut().insert::<Principal>(principal);
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_path_before_the_resource_path() {
        assert_eq!(
            metadata_url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("https://mcp.example.com:8443/"),
            "https://mcp.example.com:8443/.well-known/oauth-protected-resource"
        );
        assert_eq!(resource_path("https://mcp.example.com/a/b/"), "/a/b");
    }
}
