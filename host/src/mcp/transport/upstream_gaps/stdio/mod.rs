//! The stdio transport: newline-delimited JSON-RPC over stdin and stdout,
//! in place of rmcp's own (`rmcp::transport::stdio()`). rmcp 3.11.0's
//! drops a line over its limit (modelcontextprotocol/rust-sdk#1030) and
//! text that is not JSON (modelcontextprotocol/rust-sdk#938) without an
//! answer, answers JSON of the wrong shape without its id
//! (modelcontextprotocol/rust-sdk#825), and bounds neither the requests in
//! flight nor what may come before `initialize`. See [`super`] for when
//! this can go.
//!
//! rmcp gets its own [`Transport`](rmcp::transport::Transport)
//! ([`transport`]): its `receive` reads stdin one bounded line at a time
//! ([`lines`]) and checks every line with
//! [`jsonrpc::check`](super::jsonrpc::check), the one parse a message gets.
//! A line that is not a message rmcp can handle gets its JSON-RPC error
//! there (with the request's id when it can be read), and every other line
//! reaches rmcp already parsed, so rmcp never reads bytes. Before the
//! session's lifecycle starts, the transport keeps back the notifications
//! and responses that would end rmcp's handshake ([`lifecycle`]), and it
//! bounds the requests waiting for their responses ([`in_flight`]). rmcp's
//! messages and the transport's errors are written whole, one line each,
//! under one lock, so stdout only ever carries complete protocol messages.
//! The server stops when stdin reaches end of file.

mod in_flight;
mod lifecycle;
mod lines;
mod transport;

use rmcp::ServiceExt;
use tokio::io::{AsyncWrite, BufReader};

use crate::mcp::protocol::McpServer;
use lifecycle::Lifecycle;
use transport::{Output, StdioTransport};

pub use in_flight::MAX_IN_FLIGHT;
pub(crate) use in_flight::TOO_MANY_IN_FLIGHT;
pub use transport::MAX_LINE;

/// Errors of the stdio transport.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    /// The MCP session could not start.
    #[error("the MCP session failed to start: {0}")]
    Start(String),
    /// Reading or writing the standard streams failed.
    #[error("stdio failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves `server` on the process's stdin and stdout until stdin closes.
pub async fn serve(server: McpServer) -> Result<(), StdioError> {
    serve_on(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves `server` on any pair of byte streams.
pub async fn serve_on<R, W>(server: McpServer, input: R, output: W) -> Result<(), StdioError>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let output = Output::new(output);
    let lifecycle =
        Lifecycle::new(rmcp::ServerHandler::supported_protocol_versions(&server).into_owned());
    let transport = StdioTransport::new(BufReader::new(input), output.clone(), lifecycle);

    match server.serve(transport).await {
        Ok(service) => {
            let quit = service.waiting().await;
            tracing::info!(?quit, "MCP session over stdio ended");
        }
        // The client went away before the handshake: a normal end of input.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(during)) => {
            tracing::info!("stdin closed before the MCP handshake ({during})");
        }
        Err(e) => return Err(StdioError::Start(e.to_string())),
    }
    // rmcp has written every response, and the transport each refusal
    // before it read the next line.
    match output.take_error() {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
