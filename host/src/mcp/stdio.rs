//! The stdio transport: newline-delimited JSON-RPC over stdin and stdout.
//!
//! A line filter reads stdin and checks every line with [`jsonrpc::check`]:
//! one that is not a message rmcp can handle gets its JSON-RPC error here
//! (with the request's id when it can be read), and every other line reaches
//! rmcp already parsed, over a channel (rmcp's `Sink`/`Stream` transport), so
//! rmcp never reads bytes: its own line limit and its silent drops play no
//! part, and no line is parsed twice. Before the session's lifecycle starts,
//! the filter also keeps back the notifications and responses that would end
//! rmcp's handshake (`Lifecycle`). rmcp's messages and the filter's errors
//! are written as whole lines by one writer task, so stdout only ever carries
//! complete protocol messages. The server stops when stdin reaches end of
//! file.

use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use rmcp::ServiceExt;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion,
    ServerJsonRpcMessage,
};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use super::McpServer;
use super::jsonrpc::{self, Rejection};

/// The longest line accepted, its line ending included: a longer one is
/// discarded and answered with an error ([`jsonrpc::MAX_MESSAGE_BYTES`], the
/// same limit as for an HTTP body).
pub const MAX_LINE: usize = jsonrpc::MAX_MESSAGE_BYTES;

/// How many messages wait between the filter, rmcp and the writer before the
/// sender waits: stdout's pace holds rmcp back, and rmcp's holds stdin back.
const QUEUE: usize = 64;

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

/// A line for stdout: a message of rmcp's or the filter's answer to a line.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // nearly every line is rmcp's: boxing it would allocate for each
enum Outgoing {
    Rmcp(ServerJsonRpcMessage),
    Refused(Rejection),
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
    let (to_rmcp, rmcp_in) = mpsc::channel::<ClientJsonRpcMessage>(QUEUE);
    let (out, out_rx) = mpsc::channel::<Outgoing>(QUEUE);
    let lifecycle =
        Lifecycle::new(rmcp::ServerHandler::supported_protocol_versions(&server).into_owned());

    let writer = tokio::spawn(write_output(out_rx, output));
    let reader = tokio::spawn(filter_input(
        BufReader::new(input),
        to_rmcp,
        out.clone(),
        lifecycle,
    ));
    let rmcp_out =
        out.with(|m| futures::future::ready(Ok::<_, mpsc::SendError>(Outgoing::Rmcp(m))));

    let service = match server.serve((Box::pin(rmcp_out), rmcp_in)).await {
        Ok(service) => service,
        // The client went away before the handshake: a normal end of input.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(during)) => {
            tracing::info!("stdin closed before the MCP handshake ({during})");
            let _ = reader.await;
            let _ = writer.await;
            return Ok(());
        }
        Err(e) => return Err(StdioError::Start(e.to_string())),
    };
    let quit = service.waiting().await;
    tracing::info!(?quit, "MCP session over stdio ended");
    let _ = reader.await;
    match writer.await {
        Ok(result) => result?,
        Err(e) => tracing::error!("stdio writer task failed: {e}"),
    }
    Ok(())
}

/// Writes every outgoing message as one line, until every sender is gone.
async fn write_output<W: AsyncWrite + Unpin>(
    mut messages: mpsc::Receiver<Outgoing>,
    mut output: W,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    while let Some(message) = messages.next().await {
        line.clear();
        let written = match &message {
            Outgoing::Rmcp(m) => serde_json::to_writer(&mut line, m),
            Outgoing::Refused(r) => serde_json::to_writer(&mut line, &r.to_json()),
        };
        if let Err(e) = written {
            tracing::error!("cannot serialize an outgoing message: {e}");
            continue;
        }
        line.push(b'\n');
        output.write_all(&line).await?;
        output.flush().await?;
    }
    Ok(())
}

/// Reads lines from `input`; passes the messages rmcp can handle to
/// `to_rmcp` and answers the rest on `out`.
async fn filter_input<R: AsyncBufRead + Unpin>(
    mut input: R,
    mut to_rmcp: mpsc::Sender<ClientJsonRpcMessage>,
    mut out: mpsc::Sender<Outgoing>,
    mut lifecycle: Lifecycle,
) {
    let mut line = Vec::new();
    loop {
        line.clear();
        let answer = match read_line_bounded(&mut input, &mut line, MAX_LINE).await {
            Ok(LineRead::Eof) => break,
            Err(e) => {
                tracing::error!("reading stdin failed: {e}");
                break;
            }
            Ok(LineRead::TooLong) => {
                tracing::warn!(
                    limit = MAX_LINE,
                    "discarded an incoming line longer than the limit"
                );
                Rejection::too_long(&line, MAX_LINE)
            }
            Ok(LineRead::Line) => {
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                // A byte order mark at the start of a line is not part of the
                // message (rmcp's own line reader skips it too).
                let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match jsonrpc::check(text) {
                    Ok(message) => {
                        if lifecycle.admits(&message) && to_rmcp.send(message).await.is_err() {
                            break;
                        }
                        continue;
                    }
                    Err(rejection) => rejection,
                }
            }
        };
        if answer.notification {
            tracing::warn!("dropped a notification: {}", answer.message);
            continue;
        }
        tracing::warn!(
            code = answer.code,
            "answered an incoming line with an error: {}",
            answer.message
        );
        if out.send(Outgoing::Refused(answer)).await.is_err() {
            break;
        }
    }
}

/// Where the session is, as far as the filter must know: rmcp's handshake
/// ends the session on a notification or a response that comes before the
/// lifecycle starts, so the filter keeps those back (JSON-RPC answers
/// neither) and logs them. Requests go to rmcp, which answers `ping` and
/// refuses the others until the lifecycle starts: with `initialize`, or with
/// a request that carries the complete per-request metadata of 2026-07-28 for
/// a supported revision.
#[derive(Debug)]
struct Lifecycle {
    started: bool,
    supported: Vec<ProtocolVersion>,
}

impl Lifecycle {
    fn new(supported: Vec<ProtocolVersion>) -> Lifecycle {
        Lifecycle {
            started: false,
            supported,
        }
    }

    /// Whether rmcp gets `message`; notes when the lifecycle starts.
    fn admits(&mut self, message: &ClientJsonRpcMessage) -> bool {
        if self.started {
            return true;
        }
        match message {
            JsonRpcMessage::Request(request) => {
                self.started = match &request.request {
                    ClientRequest::InitializeRequest(_) => true,
                    ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
                    other => {
                        let meta = other.get_meta();
                        meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                            .is_empty()
                            && meta
                                .protocol_version()
                                .is_some_and(|v| self.supported.contains(&v))
                    }
                };
                true
            }
            JsonRpcMessage::Notification(_)
            | JsonRpcMessage::Response(_)
            | JsonRpcMessage::Error(_) => {
                tracing::warn!("ignored a notification or response that came before initialize");
                false
            }
        }
    }
}

enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Reads one line (with its newline) into `line`, keeping at most `limit`
/// bytes ([`MAX_LINE`] but in tests). A longer line is consumed to its end and reported as
/// too long, with its first [`jsonrpc::ID_PREFIX_BYTES`] left in `line` so
/// that its id can be found.
async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<LineRead> {
    let mut too_long = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if too_long {
                LineRead::TooLong
            } else if line.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..=i], true),
            None => (buf, false),
        };
        let n = chunk.len();
        if !too_long && line.len() + n > limit {
            too_long = true;
            line.truncate(jsonrpc::ID_PREFIX_BYTES);
        }
        let keep = if too_long {
            jsonrpc::ID_PREFIX_BYTES.saturating_sub(line.len()).min(n)
        } else {
            n
        };
        line.extend_from_slice(&chunk[..keep]);
        input.consume(n);
        if done {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(data: &[u8], limit: usize) -> Vec<(Vec<u8>, bool)> {
        let mut r = BufReader::with_capacity(4, data);
        let mut lines = Vec::new();
        loop {
            let mut line = Vec::new();
            match read_line_bounded(&mut r, &mut line, limit).await.unwrap() {
                LineRead::Eof => return lines,
                LineRead::Line => lines.push((line, false)),
                LineRead::TooLong => lines.push((line, true)),
            }
        }
    }

    #[tokio::test]
    async fn bounded_reader_splits_lines_and_flags_long_ones() {
        let lines = read_all(b"one\ntwo\r\nthree", 100).await;
        let expected: Vec<(Vec<u8>, bool)> = vec![
            (b"one\n".to_vec(), false),
            (b"two\r\n".to_vec(), false),
            (b"three".to_vec(), false),
        ];
        assert_eq!(lines, expected);
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_flagged_with_its_start_kept_and_the_next_line_is_whole() {
        let long = format!("{{\"id\":1,\"x\":\"{}\"}}\n", "a".repeat(1000));
        let data = format!("{long}ok\n{long}");
        let lines = read_all(data.as_bytes(), 100).await;
        assert_eq!(lines.len(), 3);
        assert!(lines[0].1 && lines[2].1, "both long lines are flagged");
        assert_eq!(
            lines[0].0,
            long.as_bytes()[..long.len().min(jsonrpc::ID_PREFIX_BYTES)]
        );
        assert_eq!(lines[1], (b"ok\n".to_vec(), false));
        assert_eq!(
            read_all(b"12345\n", 6).await,
            vec![(b"12345\n".to_vec(), false)]
        );
        assert!(read_all(b"123456\n", 6).await[0].1, "the newline counts");
    }

    fn message(text: &str) -> ClientJsonRpcMessage {
        jsonrpc::check(text.as_bytes()).unwrap()
    }

    #[test]
    fn before_initialize_notifications_and_responses_are_kept_back_and_requests_pass() {
        let mut lifecycle = Lifecycle::new(ProtocolVersion::KNOWN_VERSIONS.to_vec());
        let initialized = message(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let response = message(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        let error = message(r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#);
        let ping = message(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        let list = message(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
        let initialize = message(
            r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        );
        for m in [&initialized, &response, &error] {
            assert!(!lifecycle.admits(m));
        }
        assert!(lifecycle.admits(&ping) && lifecycle.admits(&list));
        assert!(
            !lifecycle.admits(&initialized),
            "ping and a refused request start nothing"
        );
        assert!(lifecycle.admits(&initialize));
        for m in [&initialized, &response, &error, &ping, &list] {
            assert!(lifecycle.admits(m));
        }
    }

    #[test]
    fn a_request_with_complete_inline_metadata_starts_the_lifecycle() {
        let mut lifecycle = Lifecycle::new(ProtocolVersion::KNOWN_VERSIONS.to_vec());
        let inline = message(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}"#,
        );
        assert!(lifecycle.admits(&inline));
        assert!(lifecycle.admits(&message(r#"{"jsonrpc":"2.0","method":"notifications/x"}"#)));
    }

    #[tokio::test]
    async fn every_outgoing_message_is_one_line() {
        let (mut tx, rx) = mpsc::channel(4);
        let refused = jsonrpc::check(b"{\"a\":\n1").unwrap_err();
        tx.send(Outgoing::Refused(refused)).await.unwrap();
        tx.send(Outgoing::Refused(Rejection::too_long(b"x\ny", 1)))
            .await
            .unwrap();
        drop(tx);
        let mut written = Vec::new();
        write_output(rx, &mut written).await.unwrap();
        let lines: Vec<&[u8]> = written.split(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), 3, "two lines and the empty rest");
        for line in &lines[..2] {
            let v: serde_json::Value = serde_json::from_slice(line).unwrap();
            assert!(v["id"].is_null());
            assert!(v["error"]["code"].is_i64());
        }
    }
}
