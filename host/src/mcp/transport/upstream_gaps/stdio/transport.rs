//! rmcp's transport for stdio: `receive` reads and checks lines on rmcp's
//! own task, and `send` writes each message as one line, so a message
//! crosses no channel and no extra task between the pipe and rmcp.

use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use super::super::jsonrpc::{self, Rejection};
use super::in_flight::InFlight;
use super::lifecycle::Lifecycle;
use super::lines::{LineRead, LineReader};

/// The longest line accepted, its line ending included: a longer one is
/// discarded and answered with an error ([`jsonrpc::MAX_MESSAGE_BYTES`], the
/// same limit as for an HTTP body).
pub const MAX_LINE: usize = jsonrpc::MAX_MESSAGE_BYTES;

/// Standard output, shared by rmcp's sends and the transport's refusals. Each
/// message is written whole under the lock, so stdout only ever carries
/// complete lines; the first write error is kept for the end of the session.
pub(super) struct Output<W> {
    writer: Mutex<W>,
    failed: std::sync::Mutex<Option<std::io::Error>>,
}

impl<W: AsyncWrite + Unpin> Output<W> {
    pub(super) fn new(writer: W) -> Arc<Output<W>> {
        Arc::new(Output {
            writer: Mutex::new(writer),
            failed: std::sync::Mutex::new(None),
        })
    }

    /// Writes `line` (which ends with a newline) and flushes it.
    async fn write_line(&self, line: &[u8]) -> std::io::Result<()> {
        let mut writer = self.writer.lock().await;
        let written = match writer.write_all(line).await {
            Ok(()) => writer.flush().await,
            Err(e) => Err(e),
        };
        if let Err(e) = &written {
            let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
            failed.get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        }
        written
    }

    /// The first write that failed, if any.
    pub(super) fn take_error(&self) -> Option<std::io::Error> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// `message` as one line of JSON, or `None` (logged) if it cannot be.
fn line_of(message: &impl serde::Serialize) -> Option<Vec<u8>> {
    let mut line = Vec::with_capacity(256);
    match serde_json::to_writer(&mut line, message) {
        Ok(()) => {
            line.push(b'\n');
            Some(line)
        }
        Err(e) => {
            tracing::error!("cannot serialize an outgoing message: {e}");
            None
        }
    }
}

/// The stdio transport handed to rmcp.
pub(super) struct StdioTransport<R, W> {
    lines: LineReader<R>,
    output: Arc<Output<W>>,
    /// The write of the last refusal. It runs as its own task, so that a
    /// dropped `receive` cannot cut a line short, and it ends before the
    /// next line is read: refusals keep their order among the answers, and
    /// a client that sends bad lines without reading stdout is held back.
    refusing: Option<JoinHandle<()>>,
    lifecycle: Lifecycle,
    in_flight: InFlight,
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncBufRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub(super) fn new(input: R, output: Arc<Output<W>>, lifecycle: Lifecycle) -> Self {
        StdioTransport {
            lines: LineReader::new(input, MAX_LINE),
            output,
            refusing: None,
            lifecycle,
            in_flight: InFlight::default(),
        }
    }

    /// The next message for rmcp; every other line is answered (or, for a
    /// notification, logged) here. Cancel-safe: all state is in `self`.
    async fn next_message(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if let Some(write) = &mut self.refusing {
                // Awaiting a `&mut JoinHandle` leaves it here if dropped.
                let _ = write.await;
                self.refusing = None;
            }
            let answer = match self.lines.next().await {
                Ok(LineRead::Eof) => return None,
                Err(e) => {
                    tracing::error!("reading stdin failed: {e}");
                    return None;
                }
                Ok(LineRead::TooLong) => {
                    tracing::warn!(
                        limit = MAX_LINE,
                        "discarded an incoming line longer than the limit"
                    );
                    Rejection::too_long(self.lines.line(), MAX_LINE)
                }
                Ok(LineRead::Line) => {
                    let line = self.lines.line();
                    let text = line.strip_suffix(b"\n").unwrap_or(line);
                    let text = text.strip_suffix(b"\r").unwrap_or(text);
                    // A byte order mark at the start of a line is not part of
                    // the message (rmcp's own line reader skips it too).
                    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
                    if text.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match jsonrpc::check(text) {
                        Ok(message) => {
                            if !self.lifecycle.admits(&message) {
                                continue;
                            }
                            match self.in_flight.admit(&message) {
                                Ok(()) => return Some(message),
                                Err(refused) => refused,
                            }
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
            if let Some(line) = line_of(&answer.to_json()) {
                let output = self.output.clone();
                self.refusing = Some(tokio::spawn(async move {
                    let _ = output.write_line(&line).await;
                }));
            }
        }
    }
}

impl<R, W> rmcp::transport::Transport<RoleServer> for StdioTransport<R, W>
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let message: &ServerJsonRpcMessage = &item;
        self.in_flight.answered(message);
        let line = line_of(message);
        let output = self.output.clone();
        async move {
            match line {
                Some(line) => output.write_line(&line).await,
                None => Ok(()),
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.next_message()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

impl<W> Output<W> {
    /// The writer back, once nothing else holds the output.
    #[cfg(test)]
    pub(super) fn into_inner(self) -> W {
        self.writer.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ClientRequest, JsonRpcMessage, ProtocolVersion};
    use rmcp::transport::Transport;

    use super::*;

    #[tokio::test]
    async fn refusals_are_whole_lines_written_in_order_before_the_next_line_is_read() {
        let long = format!("{{\"id\":7,\"x\":\"{}\"}}\n", "a".repeat(MAX_LINE));
        let input = format!(
            "{{\"a\":\nnot json\n{long}{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}}\n"
        );
        let output = Output::new(Vec::new());
        let lifecycle = Lifecycle::new(ProtocolVersion::KNOWN_VERSIONS.to_vec());
        let mut transport = StdioTransport::new(
            std::io::Cursor::new(input.into_bytes()),
            output.clone(),
            lifecycle,
        );
        let message = Transport::<RoleServer>::receive(&mut transport).await;
        assert!(matches!(
            message,
            Some(JsonRpcMessage::Request(r)) if matches!(r.request, ClientRequest::PingRequest(_))
        ));
        drop(transport);
        let written = Arc::into_inner(output).unwrap().into_inner();
        let lines: Vec<serde_json::Value> = written
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let codes: Vec<_> = lines.iter().map(|l| l["error"]["code"].clone()).collect();
        assert_eq!(codes, [-32700, -32700, -32600]);
        assert_eq!(
            lines[2]["id"], 7,
            "the long line's id is read from its start"
        );
    }
}
