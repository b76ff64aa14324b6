//! A small blocking HTTP client on `wasi:http/outgoing-handler` (feature `http`).
//!
//! The host decides what a plugin may reach: a request to an origin or with a
//! method its policy does not grant fails with [`HttpError::is_denied`], and
//! the host may add headers (credentials) the plugin never sees. Redirects
//! are not followed: the plugin sees the `3xx` and decides whether to send a
//! new request, which the host checks again.
//!
//! ```no_run
//! use mcp_wasm_sdk::http::Request;
//!
//! # fn main() -> Result<(), mcp_wasm_sdk::http::HttpError> {
//! let response = Request::get("https://example.com/")?
//!     .header("Accept", "text/html")
//!     .send()?;
//! let status = response.status();
//! let body = response.body(1 << 20)?;
//! println!("{status}: {} bytes", body.bytes.len());
//! # Ok(())
//! # }
//! ```

use std::fmt;

use wasip2::http::outgoing_handler;
use wasip2::http::types::{
    ErrorCode, Fields, IncomingResponse, Method, OutgoingBody, OutgoingRequest, Scheme,
};
use wasip2::io::streams::StreamError;

pub use url::Url;

use crate::ToolError;

/// The most bytes written to the request body stream at once (WASI 0.2's
/// `blocking-write-and-flush` takes at most 4096).
const WRITE_CHUNK: usize = 4096;
/// The most bytes asked of the response body stream at once.
const READ_CHUNK: u64 = 64 * 1024;

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// The URL cannot be sent: not absolute, not `http`/`https`, or no host.
    InvalidUrl(String),
    /// A method, header name or header value that wasi:http refuses.
    InvalidRequest(String),
    /// wasi:http reported an `error-code`: its case name as the WIT spells it
    /// (`HTTP-request-denied`, `connection-timeout`, ...) and any details.
    Wasi {
        /// The `error-code` case name.
        code: &'static str,
        /// The case's payload, when it says something (a body size, a DNS
        /// return code, the host's message).
        detail: Option<String>,
    },
    /// A body stream failed or closed without an error code.
    Stream(String),
}

impl HttpError {
    /// The wasi:http `error-code` case name, if wasi:http reported one.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            Self::Wasi { code, .. } => Some(code),
            _ => None,
        }
    }

    /// Whether the host's policy denied the request (`HTTP-request-denied`).
    pub fn is_denied(&self) -> bool {
        self.code() == Some("HTTP-request-denied")
    }

    /// The error as a tool error: [`ToolError::Denied`] when the host's
    /// policy denied the request, [`ToolError::Failed`] otherwise.
    pub fn into_tool_error(self) -> ToolError {
        if self.is_denied() {
            ToolError::Denied(self.to_string())
        } else {
            ToolError::Failed(self.to_string())
        }
    }

    fn from_code(code: &ErrorCode) -> Self {
        Self::Wasi {
            code: code_name(code),
            detail: code_detail(code),
        }
    }

    fn from_stream(error: StreamError, during: &str) -> Self {
        match error {
            StreamError::Closed => Self::Stream(format!("the stream closed while {during}")),
            StreamError::LastOperationFailed(e) => match outgoing_handler_code(&e) {
                Some(code) => Self::from_code(&code),
                None => Self::Stream(format!("{during}: {}", e.to_debug_string())),
            },
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUrl(m) => write!(f, "invalid URL: {m}"),
            Self::InvalidRequest(m) => write!(f, "invalid request: {m}"),
            Self::Wasi {
                code: "HTTP-request-denied",
                ..
            } => f.write_str(
                "HTTP-request-denied: the host's policy does not allow this request \
                 (the server's log names the policy key that would)",
            ),
            Self::Wasi { code, detail: None } => f.write_str(code),
            Self::Wasi {
                code,
                detail: Some(d),
            } => write!(f, "{code} ({d})"),
            Self::Stream(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for HttpError {}

fn outgoing_handler_code(error: &wasip2::io::error::Error) -> Option<ErrorCode> {
    wasip2::http::types::http_error_code(error)
}

/// The WIT name of an `error-code` case.
fn code_name(code: &ErrorCode) -> &'static str {
    match code {
        ErrorCode::DnsTimeout => "DNS-timeout",
        ErrorCode::DnsError(_) => "DNS-error",
        ErrorCode::DestinationNotFound => "destination-not-found",
        ErrorCode::DestinationUnavailable => "destination-unavailable",
        ErrorCode::DestinationIpProhibited => "destination-IP-prohibited",
        ErrorCode::DestinationIpUnroutable => "destination-IP-unroutable",
        ErrorCode::ConnectionRefused => "connection-refused",
        ErrorCode::ConnectionTerminated => "connection-terminated",
        ErrorCode::ConnectionTimeout => "connection-timeout",
        ErrorCode::ConnectionReadTimeout => "connection-read-timeout",
        ErrorCode::ConnectionWriteTimeout => "connection-write-timeout",
        ErrorCode::ConnectionLimitReached => "connection-limit-reached",
        ErrorCode::TlsProtocolError => "TLS-protocol-error",
        ErrorCode::TlsCertificateError => "TLS-certificate-error",
        ErrorCode::TlsAlertReceived(_) => "TLS-alert-received",
        ErrorCode::HttpRequestDenied => "HTTP-request-denied",
        ErrorCode::HttpRequestLengthRequired => "HTTP-request-length-required",
        ErrorCode::HttpRequestBodySize(_) => "HTTP-request-body-size",
        ErrorCode::HttpRequestMethodInvalid => "HTTP-request-method-invalid",
        ErrorCode::HttpRequestUriInvalid => "HTTP-request-URI-invalid",
        ErrorCode::HttpRequestUriTooLong => "HTTP-request-URI-too-long",
        ErrorCode::HttpRequestHeaderSectionSize(_) => "HTTP-request-header-section-size",
        ErrorCode::HttpRequestHeaderSize(_) => "HTTP-request-header-size",
        ErrorCode::HttpRequestTrailerSectionSize(_) => "HTTP-request-trailer-section-size",
        ErrorCode::HttpRequestTrailerSize(_) => "HTTP-request-trailer-size",
        ErrorCode::HttpResponseIncomplete => "HTTP-response-incomplete",
        ErrorCode::HttpResponseHeaderSectionSize(_) => "HTTP-response-header-section-size",
        ErrorCode::HttpResponseHeaderSize(_) => "HTTP-response-header-size",
        ErrorCode::HttpResponseBodySize(_) => "HTTP-response-body-size",
        ErrorCode::HttpResponseTrailerSectionSize(_) => "HTTP-response-trailer-section-size",
        ErrorCode::HttpResponseTrailerSize(_) => "HTTP-response-trailer-size",
        ErrorCode::HttpResponseTransferCoding(_) => "HTTP-response-transfer-coding",
        ErrorCode::HttpResponseContentCoding(_) => "HTTP-response-content-coding",
        ErrorCode::HttpResponseTimeout => "HTTP-response-timeout",
        ErrorCode::HttpUpgradeFailed => "HTTP-upgrade-failed",
        ErrorCode::HttpProtocolError => "HTTP-protocol-error",
        ErrorCode::LoopDetected => "loop-detected",
        ErrorCode::ConfigurationError => "configuration-error",
        ErrorCode::InternalError(_) => "internal-error",
    }
}

/// What an `error-code` case's payload says, if anything.
fn code_detail(code: &ErrorCode) -> Option<String> {
    match code {
        ErrorCode::DnsError(p) => Some(format!(
            "rcode {}, info code {}",
            p.rcode.as_deref().unwrap_or("none"),
            p.info_code.map_or("none".to_string(), |c| c.to_string())
        )),
        ErrorCode::HttpRequestBodySize(Some(n)) | ErrorCode::HttpResponseBodySize(Some(n)) => {
            Some(format!("{n} bytes"))
        }
        ErrorCode::TlsAlertReceived(p) => p.alert_message.clone(),
        ErrorCode::HttpResponseTransferCoding(s)
        | ErrorCode::HttpResponseContentCoding(s)
        | ErrorCode::InternalError(s) => s.clone(),
        _ => None,
    }
}

/// One HTTP request, built and then sent with [`Request::send`].
#[derive(Debug, Clone)]
pub struct Request {
    method: String,
    url: Url,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    /// A request with `method` (any token; `GET`, `POST`, ... are sent as
    /// wasi:http's named cases) to the absolute `http` or `https` URL `url`.
    pub fn new(method: &str, url: &str) -> Result<Self, HttpError> {
        let url = Url::parse(url).map_err(|e| HttpError::InvalidUrl(format!("{url}: {e}")))?;
        Self::to_url(method, url)
    }

    /// As [`Request::new`], with a parsed URL.
    pub fn to_url(method: &str, url: Url) -> Result<Self, HttpError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(HttpError::InvalidUrl(format!(
                "{url}: only http and https URLs can be fetched"
            )));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(HttpError::InvalidUrl(format!("{url}: no host")));
        }
        Ok(Self {
            method: method.to_string(),
            url,
            headers: Vec::new(),
            body: Vec::new(),
        })
    }

    /// A `GET` request.
    pub fn get(url: &str) -> Result<Self, HttpError> {
        Self::new("GET", url)
    }

    /// A `POST` request.
    pub fn post(url: &str) -> Result<Self, HttpError> {
        Self::new("POST", url)
    }

    /// Adds a header (a name may repeat).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// The URL.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Sends the request and waits for the response's status and headers.
    pub fn send(&self) -> Result<Response, HttpError> {
        let request = self.outgoing()?;
        let body = request
            .body()
            .map_err(|()| HttpError::Stream("the request body was already taken".into()))?;
        let future =
            outgoing_handler::handle(request, None).map_err(|code| HttpError::from_code(&code))?;
        // Written after `handle`, so that a body larger than the host's
        // buffer streams out instead of blocking before the request starts.
        let written = write_body(body, &self.body);
        future.subscribe().block();
        let response = match future.get() {
            Some(Ok(Ok(response))) => response,
            Some(Ok(Err(code))) => return Err(HttpError::from_code(&code)),
            Some(Err(())) | None => {
                return Err(HttpError::Stream("the response was not delivered".into()));
            }
        };
        // A body the host refused (too large) fails the request even if the
        // server answered early.
        written?;
        Ok(Response::new(response))
    }

    fn outgoing(&self) -> Result<OutgoingRequest, HttpError> {
        let entries: Vec<(String, Vec<u8>)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone().into_bytes()))
            .collect();
        let fields = Fields::from_list(&entries)
            .map_err(|e| HttpError::InvalidRequest(format!("headers refused: {e:?}")))?;
        let request = OutgoingRequest::new(fields);
        request
            .set_method(&method(&self.method))
            .map_err(|()| HttpError::InvalidRequest(format!("method {:?}", self.method)))?;
        let scheme = match self.url.scheme() {
            "https" => Scheme::Https,
            _ => Scheme::Http,
        };
        let invalid_url = |()| HttpError::InvalidUrl(self.url.to_string());
        request.set_scheme(Some(&scheme)).map_err(invalid_url)?;
        let host = self.url.host_str().unwrap_or_default();
        let authority = match self.url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        request
            .set_authority(Some(&authority))
            .map_err(invalid_url)?;
        let mut path = self.url.path().to_string();
        if let Some(query) = self.url.query() {
            path.push('?');
            path.push_str(query);
        }
        request
            .set_path_with_query(Some(&path))
            .map_err(invalid_url)?;
        Ok(request)
    }
}

/// wasi:http's method case for `name`.
fn method(name: &str) -> Method {
    match name {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "DELETE" => Method::Delete,
        "CONNECT" => Method::Connect,
        "OPTIONS" => Method::Options,
        "TRACE" => Method::Trace,
        "PATCH" => Method::Patch,
        other => Method::Other(other.to_string()),
    }
}

/// Writes `bytes` to the request body and finishes it.
fn write_body(body: OutgoingBody, bytes: &[u8]) -> Result<(), HttpError> {
    {
        let stream = body
            .write()
            .map_err(|()| HttpError::Stream("the request body stream was already taken".into()))?;
        for chunk in bytes.chunks(WRITE_CHUNK) {
            stream
                .blocking_write_and_flush(chunk)
                .map_err(|e| HttpError::from_stream(e, "writing the request body"))?;
        }
        // The stream must be gone before the body is finished.
    }
    OutgoingBody::finish(body, None).map_err(|code| HttpError::from_code(&code))
}

/// A response whose status and headers have arrived; its body is read with
/// [`Response::body`].
#[derive(Debug)]
pub struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    inner: IncomingResponse,
}

impl Response {
    fn new(inner: IncomingResponse) -> Self {
        let headers = inner
            .headers()
            .entries()
            .into_iter()
            .map(|(k, v)| (k, String::from_utf8_lossy(&v).into_owned()))
            .collect();
        Self {
            status: inner.status(),
            headers,
            inner,
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// Every header, in the order received (names as the host gives them,
    /// normally lowercase).
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Reads the body, keeping at most `limit` bytes: the rest is left
    /// unread, and [`Body::truncated`] says there was more.
    pub fn body(self, limit: usize) -> Result<Body, HttpError> {
        let incoming = self
            .inner
            .consume()
            .map_err(|()| HttpError::Stream("the response body was already taken".into()))?;
        let mut bytes = Vec::new();
        let mut truncated = false;
        {
            let stream = incoming
                .stream()
                .map_err(|()| HttpError::Stream("the response body stream was taken".into()))?;
            loop {
                // Ask for one byte past the limit, to learn whether there is more.
                let want = (limit + 1 - bytes.len()).min(READ_CHUNK as usize) as u64;
                match stream.blocking_read(want) {
                    Ok(chunk) => bytes.extend_from_slice(&chunk),
                    Err(StreamError::Closed) => break,
                    Err(e) => return Err(HttpError::from_stream(e, "reading the response body")),
                }
                if bytes.len() > limit {
                    bytes.truncate(limit);
                    truncated = true;
                    break;
                }
            }
            // The stream must be gone before the body it belongs to.
        }
        drop(incoming);
        Ok(Body { bytes, truncated })
    }
}

/// A response body, read up to a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// The bytes read.
    pub bytes: Vec<u8>,
    /// Whether the body went on past the limit.
    pub truncated: bool,
}

impl Body {
    /// The bytes as text (invalid UTF-8 replaced by U+FFFD).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_http_and_https_urls_make_a_request() {
        assert!(Request::get("https://example.com/a?b=c").is_ok());
        assert!(Request::get("http://127.0.0.1:8080/").is_ok());
        for bad in [
            "/relative",
            "file:///etc/passwd",
            "ftp://example.com/",
            "nonsense",
        ] {
            assert!(
                matches!(Request::get(bad), Err(HttpError::InvalidUrl(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_denied_request_says_the_policy_denied_it_and_becomes_a_denied_tool_error() {
        let e = HttpError::from_code(&ErrorCode::HttpRequestDenied);
        assert!(e.is_denied());
        assert!(
            e.to_string()
                .starts_with("HTTP-request-denied: the host's policy")
        );
        assert!(matches!(e.into_tool_error(), ToolError::Denied(_)));
    }

    #[test]
    fn error_codes_keep_their_wit_names_and_useful_payloads() {
        let e = HttpError::from_code(&ErrorCode::HttpResponseBodySize(Some(100)));
        assert_eq!(e.code(), Some("HTTP-response-body-size"));
        assert_eq!(e.to_string(), "HTTP-response-body-size (100 bytes)");
        assert!(matches!(e.into_tool_error(), ToolError::Failed(_)));
        let e = HttpError::from_code(&ErrorCode::ConnectionTimeout);
        assert_eq!(e.to_string(), "connection-timeout");
    }
}
