//! Test plugin: probes the host's network and secrets policy from inside the
//! guest. `request` sends one wasi:http request and reports what came back
//! (or the exact wasi:http error code), `requests` sends several in a row,
//! `env` shows the guest's whole environment, `print` writes a text to every
//! output a guest has, and `tcp` tries a wasi:sockets connect.

mod raw;
mod tcp;

use std::collections::BTreeMap;

use mcp_wasm_sdk::http::{HttpError, Request};
use mcp_wasm_sdk::prelude::*;

/// The most body bytes `request` reads unless told otherwise: more than any
/// host limit the tests set, so the host's limit is what stops the read.
const DEFAULT_READ_LIMIT: usize = 64 << 20;

/// Arguments of `request`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RequestArgs {
    /// The method, e.g. `GET`.
    #[serde(default = "get")]
    method: String,
    /// The absolute URL.
    url: String,
    /// Headers as `[name, value]` pairs.
    #[serde(default)]
    headers: Vec<(String, String)>,
    /// The request body, as text.
    #[serde(default)]
    body: Option<String>,
    /// The most response body bytes to read (default 64 MiB).
    #[serde(default)]
    read_limit: Option<usize>,
}

fn get() -> String {
    "GET".to_string()
}

/// The result of `request`.
#[derive(Serialize, JsonSchema)]
struct Reply {
    /// The status code.
    status: u16,
    /// The response headers as `[name, value]` pairs.
    headers: Vec<(String, String)>,
    /// The body read, as text.
    body: String,
    /// Whether the body went on past `read_limit`.
    truncated: bool,
}

/// Arguments of `requests`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RequestsArgs {
    /// The URL to GET.
    url: String,
    /// How many GETs to send, one after the other.
    count: u32,
}

/// The result of `requests`.
#[derive(Serialize, JsonSchema)]
struct Tally {
    /// How many requests got a response with its whole body.
    succeeded: u32,
    /// The first failure, if any.
    first_error: Option<String>,
}

/// Arguments of `raw`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawArgs {
    /// `http` or `https`.
    #[serde(default = "http")]
    scheme: String,
    /// `host:port`.
    authority: String,
    /// The path and query, sent exactly as given.
    path: String,
}

fn http() -> String {
    "http".to_string()
}

/// Arguments of `print`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PrintArgs {
    /// What to write to stdout, stderr and the log.
    text: String,
}

/// Arguments of `tcp`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TcpArgs {
    /// `host:port`; a name is resolved with wasi:sockets' name lookup.
    addr: String,
}

/// The result of `env`.
#[derive(Serialize, JsonSchema)]
struct Env {
    /// Every environment variable the guest sees.
    vars: BTreeMap<String, String>,
}

/// A failed request as a tool error whose text starts with the wasi:http
/// error code.
fn failed(error: HttpError) -> ToolError {
    ToolError::failed(error.to_string())
}

fn request(args: RequestArgs) -> Result<Reply, ToolError> {
    let mut request = Request::new(&args.method, &args.url).map_err(failed)?;
    for (name, value) in args.headers {
        request = request.header(name, value);
    }
    if let Some(body) = args.body {
        request = request.body(body);
    }
    let response = request.send().map_err(failed)?;
    let status = response.status();
    let headers = response.headers().to_vec();
    let body = response
        .body(args.read_limit.unwrap_or(DEFAULT_READ_LIMIT))
        .map_err(failed)?;
    Ok(Reply {
        status,
        headers,
        body: body.text(),
        truncated: body.truncated,
    })
}

fn requests(args: RequestsArgs) -> Result<Tally, ToolError> {
    let mut tally = Tally {
        succeeded: 0,
        first_error: None,
    };
    for _ in 0..args.count {
        let outcome = Request::get(&args.url)
            .and_then(|r| r.send())
            .and_then(|r| r.body(DEFAULT_READ_LIMIT));
        match outcome {
            Ok(_) => tally.succeeded += 1,
            Err(e) => {
                tally.first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    Ok(tally)
}

struct NetProbe;

impl Plugin for NetProbe {
    fn router() -> Router {
        Router::new()
            .json_tool(
                ToolDef::new(
                    "request",
                    "Sends one HTTP request with wasi:http and returns the status, headers and body; fails with the wasi:http error code.",
                )
                .open_world(true),
                request,
            )
            .json_tool(
                ToolDef::new(
                    "requests",
                    "Sends `count` GETs to `url` in a row; returns how many succeeded and the first error.",
                )
                .open_world(true),
                requests,
            )
            .json_tool(
                ToolDef::new(
                    "raw",
                    "Sends a GET with wasi:http whose path is exactly `path`, reads the whole body, and returns what the guest saw: status, body, error code, and the body stream error's debug string.",
                )
                .open_world(true),
                |args: RawArgs| raw::get(&args.scheme, &args.authority, &args.path).map_err(ToolError::failed),
            )
            .json_tool(
                ToolDef::new("env", "Returns the guest's whole environment.").read_only(),
                |_: NoArgs| -> Result<Env, ToolError> {
                    Ok(Env {
                        vars: std::env::vars().collect(),
                    })
                },
            )
            .tool(
                ToolDef::new(
                    "print",
                    "Writes `text` to stdout, to stderr and as a log message, then returns \"printed\".",
                ),
                |args: PrintArgs| -> ToolResult {
                    println!("{}", args.text);
                    eprintln!("{}", args.text);
                    log::info(&args.text);
                    Ok(Output::text("printed"))
                },
            )
            .tool(
                ToolDef::new(
                    "tcp",
                    "Tries a wasi:sockets TCP connect to `host:port`; returns \"ok\" or fails with the wasi:sockets error code.",
                )
                .open_world(true),
                |args: TcpArgs| -> ToolResult {
                    tcp::connect(&args.addr).map_err(ToolError::failed)?;
                    Ok(Output::text("ok"))
                },
            )
    }
}

mcp_wasm_sdk::export_plugin!(NetProbe);
