//! The stdio transport: rmcp's newline-delimited JSON-RPC over stdin and
//! stdout, behind a line filter.
//!
//! rmcp silently drops a line that is not JSON at all. JSON-RPC asks for a
//! `-32700 Parse error` response (with a null id), so the filter answers such
//! lines itself and passes every other line to rmcp unchanged. Both write
//! whole lines through one writer task, so stdout only ever carries complete
//! protocol messages. The server stops when stdin reaches end of file.

use rmcp::ServiceExt;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::McpServer;

/// The longest line accepted; a longer one is discarded and answered with an
/// error (64 MiB).
pub const MAX_LINE: usize = 64 << 20;

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
pub async fn serve_on<R, W>(server: McpServer, input: R, mut output: W) -> Result<(), StdioError>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // rmcp reads from `to_rmcp` and writes to `from_rmcp`.
    let (to_rmcp, rmcp_in) = tokio::io::duplex(1 << 16);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 16);
    let (errors_tx, mut errors_rx) = mpsc::unbounded_channel::<Vec<u8>>();

    let reader = tokio::spawn(filter_input(BufReader::new(input), to_rmcp, errors_tx));

    let writer = tokio::spawn(async move {
        let mut from_rmcp = BufReader::new(from_rmcp);
        let mut line = Vec::new();
        let mut rmcp_open = true;
        loop {
            tokio::select! {
                biased;
                n = from_rmcp.read_until(b'\n', &mut line), if rmcp_open => {
                    if n? == 0 {
                        rmcp_open = false;
                    } else {
                        output.write_all(&line).await?;
                        output.flush().await?;
                        line.clear();
                    }
                }
                err = errors_rx.recv() => match err {
                    Some(bytes) => {
                        output.write_all(&bytes).await?;
                        output.flush().await?;
                    }
                    None if !rmcp_open => break,
                    None => {
                        // The reader is done; drain what rmcp still writes.
                        while from_rmcp.read_until(b'\n', &mut line).await? > 0 {
                            output.write_all(&line).await?;
                            output.flush().await?;
                            line.clear();
                        }
                        break;
                    }
                },
            }
        }
        Ok::<_, std::io::Error>(())
    });

    let service = match server.serve((rmcp_in, rmcp_out)).await {
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

/// Reads lines from `input`; passes JSON lines to `to_rmcp` and answers the
/// rest with a parse error on `errors`.
async fn filter_input<R, W>(mut input: R, mut to_rmcp: W, errors: mpsc::UnboundedSender<Vec<u8>>)
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_line_bounded(&mut input, &mut line).await {
            Ok(LineRead::Eof) => break,
            Ok(LineRead::TooLong) => {
                tracing::warn!(
                    limit = MAX_LINE,
                    "discarded an incoming line longer than the limit"
                );
                let _ = errors.send(error_line(
                    -32600,
                    &format!("Invalid Request: the message is longer than {MAX_LINE} bytes"),
                ));
            }
            Ok(LineRead::Line) => {
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
                    Ok(_) => {
                        if to_rmcp.write_all(text).await.is_err()
                            || to_rmcp.write_all(b"\n").await.is_err()
                        {
                            break;
                        }
                    }
                    Err(e) => {
                        tracing::warn!("answered a line that is not JSON with a parse error: {e}");
                        let _ = errors.send(error_line(-32700, &format!("Parse error: {e}")));
                    }
                }
            }
            Err(e) => {
                tracing::error!("reading stdin failed: {e}");
                break;
            }
        }
    }
    let _ = to_rmcp.shutdown().await;
}

enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// Reads one line (with its newline) into `line`, keeping at most
/// [`MAX_LINE`] bytes; a longer line is consumed and reported as too long.
async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
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
        if !too_long && line.len() + n <= MAX_LINE {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
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

fn error_line(code: i32, message: &str) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code, "message": message },
    }))
    .unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bounded_reader_splits_lines_and_flags_long_ones() {
        let data = b"one\ntwo\r\nthree".to_vec();
        let mut r = BufReader::new(&data[..]);
        let mut line = Vec::new();
        assert!(matches!(
            read_line_bounded(&mut r, &mut line).await.unwrap(),
            LineRead::Line
        ));
        assert_eq!(line, b"one\n");
        line.clear();
        assert!(matches!(
            read_line_bounded(&mut r, &mut line).await.unwrap(),
            LineRead::Line
        ));
        assert_eq!(line, b"two\r\n");
        line.clear();
        assert!(matches!(
            read_line_bounded(&mut r, &mut line).await.unwrap(),
            LineRead::Line
        ));
        assert_eq!(line, b"three");
        line.clear();
        assert!(matches!(
            read_line_bounded(&mut r, &mut line).await.unwrap(),
            LineRead::Eof
        ));
    }

    #[test]
    fn error_lines_are_single_json_lines() {
        let line = error_line(-32700, "Parse error: x\ny");
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["error"]["code"], -32700);
        assert!(v["id"].is_null());
    }
}
