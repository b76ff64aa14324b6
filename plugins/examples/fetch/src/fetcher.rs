//! Gets a URL, following redirects one request at a time (so the host's
//! policy checks every hop) and reading at most [`BODY_CAP`] bytes.

use mcp_wasm_sdk::ToolError;
use mcp_wasm_sdk::http::{HttpError, Request, Url};

/// The most body bytes read; the rest of a larger response is left unread.
pub const BODY_CAP: usize = 5 << 20;
/// The most redirects followed.
const MAX_REDIRECTS: usize = 5;
const USER_AGENT: &str =
    "mcp-wasm-host-fetch/0.1 (+https://github.com/mcp-wasm-host/mcp-wasm-host)";
const ACCEPT: &str =
    "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.5";

/// A fetched document.
#[derive(Debug)]
pub struct Fetched {
    /// The URL it came from, after redirects.
    pub url: Url,
    /// Its `Content-Type`.
    pub content_type: Option<String>,
    /// Its body as text (invalid UTF-8 replaced).
    pub text: String,
    /// Whether the body was longer than [`BODY_CAP`].
    pub cut: bool,
}

/// GETs `url`, following up to [`MAX_REDIRECTS`] redirects; a non-2xx
/// final status, a refused hop or a transport error is a tool error.
pub fn fetch(url: &str) -> Result<Fetched, ToolError> {
    let mut url =
        Url::parse(url).map_err(|e| ToolError::invalid_arguments(format!("`url` {url:?}: {e}")))?;
    for hop in 0..=MAX_REDIRECTS {
        let response = Request::to_url("GET", url.clone())
            .and_then(|r| {
                r.header("User-Agent", USER_AGENT)
                    .header("Accept", ACCEPT)
                    .send()
            })
            .map_err(|e| hop_error(&url, hop, e))?;
        let status = response.status();
        if is_redirect(status) {
            let location = response.header("location").ok_or_else(|| {
                ToolError::failed(format!("{url} answered {status} without a Location"))
            })?;
            url = url.join(location).map_err(|e| {
                ToolError::failed(format!(
                    "{url} redirected to {location:?}, which is not a URL: {e}"
                ))
            })?;
            continue;
        }
        let content_type = response.header("content-type").map(str::to_string);
        let body = response
            .body(BODY_CAP)
            .map_err(|e| hop_error(&url, hop, e))?;
        if !(200..300).contains(&status) {
            return Err(ToolError::failed(format!(
                "{url} answered with status {status}: {}",
                snippet(&body.text())
            )));
        }
        return Ok(Fetched {
            url,
            content_type,
            text: body.text(),
            cut: body.truncated,
        });
    }
    Err(ToolError::failed(format!(
        "more than {MAX_REDIRECTS} redirects; the last one went to {url}"
    )))
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// A request's failure, naming the URL and whether it was a redirect's.
fn hop_error(url: &Url, hop: usize, error: HttpError) -> ToolError {
    let via = if hop == 0 {
        String::new()
    } else {
        format!(" (after {hop} redirect{})", if hop == 1 { "" } else { "s" })
    };
    let denied = error.is_denied();
    let message = format!("fetching {url}{via}: {error}");
    if denied {
        ToolError::denied(message)
    } else {
        ToolError::failed(message)
    }
}

/// The start of an error body, on one line.
fn snippet(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}
