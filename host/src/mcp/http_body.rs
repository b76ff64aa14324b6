//! Checks each HTTP POST body before rmcp reads it: a body that is not one
//! JSON-RPC message gets `400 Bad Request` with a JSON-RPC error, as over
//! stdio: `-32700` for text that is not JSON, `-32600` for a batch (not
//! allowed since 2025-06-18) or JSON that is not a request, notification or
//! response. A body over the size limit gets `413`. rmcp alone would answer
//! all of these with `415 Unsupported Media Type`.

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

/// JSON-RPC's parse error.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request.
const INVALID_REQUEST: i64 = -32600;

/// The fields that make a JSON object a JSON-RPC message; the rest is
/// skipped without being built.
#[derive(Deserialize)]
struct Envelope {
    jsonrpc: Option<String>,
    id: Option<Value>,
    method: Option<Value>,
    result: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
}

/// Why a body is not one JSON-RPC message: the error code, the message, and
/// the request id when one could be read.
#[derive(Debug, PartialEq)]
struct Rejection {
    code: i64,
    message: String,
    id: Value,
}

fn reject(code: i64, message: impl Into<String>, id: Value) -> Rejection {
    Rejection {
        code,
        message: message.into(),
        id,
    }
}

/// Whether `body` is exactly one JSON-RPC 2.0 message.
fn classify(body: &[u8]) -> Result<(), Rejection> {
    if let Err(e) = serde_json::from_slice::<IgnoredAny>(body) {
        return Err(reject(
            PARSE_ERROR,
            format!("Parse error: the body is not JSON ({e})"),
            Value::Null,
        ));
    }
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        return Err(reject(
            INVALID_REQUEST,
            "Invalid Request: JSON-RPC batches are not supported; send one message per POST",
            Value::Null,
        ));
    }
    let envelope: Envelope = serde_json::from_slice(body).map_err(|e| {
        reject(
            INVALID_REQUEST,
            format!("Invalid Request: not a JSON-RPC message ({e})"),
            Value::Null,
        )
    })?;
    let id = match envelope.id {
        Some(id @ (Value::String(_) | Value::Number(_))) => id,
        Some(Value::Null) | None => Value::Null,
        Some(_) => {
            return Err(reject(
                INVALID_REQUEST,
                "Invalid Request: \"id\" must be a string or a number",
                Value::Null,
            ));
        }
    };
    if envelope.jsonrpc.as_deref() != Some("2.0") {
        return Err(reject(
            INVALID_REQUEST,
            "Invalid Request: \"jsonrpc\" must be \"2.0\"",
            id,
        ));
    }
    match envelope.method {
        Some(Value::String(_)) => Ok(()),
        Some(_) => Err(reject(
            INVALID_REQUEST,
            "Invalid Request: \"method\" must be a string",
            id,
        )),
        None if envelope.result.is_some() || envelope.error.is_some() => Ok(()),
        None => Err(reject(
            INVALID_REQUEST,
            "Invalid Request: a message needs a \"method\" (request or notification) or a \"result\" or \"error\" (response)",
            id,
        )),
    }
}

fn bad_request(rejection: Rejection) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": rejection.id,
        "error": {"code": rejection.code, "message": rejection.message},
    });
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The axum middleware: checks POST bodies of at most `limit` bytes and
/// passes good ones on unchanged.
pub async fn check_post_body(State(limit): State<usize>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes: Bytes = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(%error, limit, "refused an HTTP request body");
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("Payload Too Large: request bodies are limited to {limit} bytes"),
            )
                .into_response();
        }
    };
    if let Err(rejection) = classify(&bytes) {
        tracing::warn!(code = rejection.code, "{}", rejection.message);
        return bad_request(rejection);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<i64> {
        classify(body.as_bytes()).err().map(|r| r.code)
    }

    #[test]
    fn single_messages_pass() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}"#,
            r#"  {"method":"tools/call","params":{"a":[1,2]},"id":3,"jsonrpc":"2.0"}"#,
        ] {
            assert_eq!(classify(ok.as_bytes()), Ok(()), "{ok}");
        }
    }

    #[test]
    fn everything_else_gets_the_json_rpc_error() {
        assert_eq!(code("not json"), Some(PARSE_ERROR));
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"#), Some(PARSE_ERROR));
        assert_eq!(code(""), Some(PARSE_ERROR));
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(code("42"), Some(INVALID_REQUEST));
        assert_eq!(code(r#"{"id":1,"method":"ping"}"#), Some(INVALID_REQUEST));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":7}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1}"#), Some(INVALID_REQUEST));
    }

    #[test]
    fn the_error_names_the_request_when_it_can() {
        let r = classify(br#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#).unwrap_err();
        assert_eq!(r.id, json!(9));
        assert!(r.message.contains("\"2.0\""), "{}", r.message);
    }
}
