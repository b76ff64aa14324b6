//! A wasi:http GET with the path exactly as given (no URL parser in the
//! guest normalises it), reading the whole body, and reporting what the
//! guest sees of a failure: the `error-code` (its WIT case name, from
//! `outgoing-handler` or from the body stream's `http-error-code`) and the
//! stream error's `to-debug-string`.

use mcp_wasm_sdk::prelude::{JsonSchema, Serialize, schemars};
use wasip2::http::outgoing_handler;
use wasip2::http::types::{ErrorCode, Fields, Method, OutgoingRequest, Scheme};
use wasip2::io::streams::StreamError;

/// What `raw` saw.
#[derive(Serialize, JsonSchema)]
pub struct Seen {
    /// The status, when a response came.
    pub status: Option<u16>,
    /// The body bytes read before the end or the failure.
    pub body_bytes: u64,
    /// The body read, as text (lossy), when it ended cleanly.
    pub body: Option<String>,
    /// The failure's wasi:http error code (its WIT case name, then its
    /// payload for a body size), if one was given.
    pub error_code: Option<String>,
    /// Whether a failure came without an error code.
    pub failed_without_code: bool,
    /// The body stream error's `to-debug-string`, if the body failed.
    pub debug_string: Option<String>,
}

/// Sends `GET {scheme}://{authority}{path}` and reads the response.
pub fn get(scheme: &str, authority: &str, path: &str) -> Result<Seen, String> {
    let request = OutgoingRequest::new(Fields::new());
    request
        .set_method(&Method::Get)
        .map_err(|()| "method refused".to_string())?;
    let scheme = if scheme == "https" {
        Scheme::Https
    } else {
        Scheme::Http
    };
    request
        .set_scheme(Some(&scheme))
        .map_err(|()| "scheme refused".to_string())?;
    request
        .set_authority(Some(authority))
        .map_err(|()| format!("authority {authority:?} refused"))?;
    request
        .set_path_with_query(Some(path))
        .map_err(|()| format!("path {path:?} refused by wasi:http"))?;
    let mut seen = Seen {
        status: None,
        body_bytes: 0,
        body: None,
        error_code: None,
        failed_without_code: false,
        debug_string: None,
    };
    let future = match outgoing_handler::handle(request, None) {
        Ok(future) => future,
        Err(code) => {
            seen.error_code = Some(name(&code));
            return Ok(seen);
        }
    };
    future.subscribe().block();
    let response = match future.get() {
        Some(Ok(Ok(response))) => response,
        Some(Ok(Err(code))) => {
            seen.error_code = Some(name(&code));
            return Ok(seen);
        }
        Some(Err(())) | None => return Err("the response was not delivered".into()),
    };
    seen.status = Some(response.status());
    let incoming = response
        .consume()
        .map_err(|()| "the body was taken".to_string())?;
    let stream = incoming
        .stream()
        .map_err(|()| "the body stream was taken".to_string())?;
    let mut body = Vec::new();
    loop {
        match stream.blocking_read(64 << 10) {
            Ok(chunk) => {
                seen.body_bytes += chunk.len() as u64;
                if body.len() < 64 << 10 {
                    body.extend_from_slice(&chunk);
                }
            }
            Err(StreamError::Closed) => {
                seen.body = Some(String::from_utf8_lossy(&body).into_owned());
                break;
            }
            Err(StreamError::LastOperationFailed(e)) => {
                match wasip2::http::types::http_error_code(&e) {
                    Some(code) => seen.error_code = Some(name(&code)),
                    None => seen.failed_without_code = true,
                }
                seen.debug_string = Some(e.to_debug_string());
                break;
            }
        }
    }
    Ok(seen)
}

/// The WIT case name of `code`, with its payload when it has one.
fn name(code: &ErrorCode) -> String {
    match code {
        ErrorCode::HttpRequestDenied => "HTTP-request-denied".into(),
        ErrorCode::HttpResponseBodySize(Some(n)) => format!("HTTP-response-body-size {n}"),
        ErrorCode::HttpResponseBodySize(None) => "HTTP-response-body-size".into(),
        ErrorCode::HttpRequestUriInvalid => "HTTP-request-URI-invalid".into(),
        ErrorCode::ConnectionRefused => "connection-refused".into(),
        ErrorCode::HttpResponseTimeout => "HTTP-response-timeout".into(),
        ErrorCode::ConnectionReadTimeout => "connection-read-timeout".into(),
        ErrorCode::ConnectionTimeout => "connection-timeout".into(),
        other => format!("{other:?}"),
    }
}
