//! Captures a guest's stdout and stderr so they never reach the server's own
//! stdout (which, in stdio mode, carries only protocol messages).
//!
//! Each stream keeps at most [`CAPTURE_LIMIT`] bytes; later bytes are counted
//! and dropped, and the guest never sees a write fail. After the call the
//! runtime writes the captured lines to the server log and reads a Rust
//! panic's message from stderr.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError};

/// The most bytes kept of one stream of one call.
pub const CAPTURE_LIMIT: usize = 64 * 1024;

#[derive(Debug, Default)]
struct Buffer {
    kept: Vec<u8>,
    dropped: usize,
}

/// One captured output stream. Clones share the same buffer.
#[derive(Debug, Clone, Default)]
pub struct Capture(Arc<Mutex<Buffer>>);

impl Capture {
    /// An empty capture.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&self, bytes: &[u8]) {
        let mut buf = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let room = CAPTURE_LIMIT.saturating_sub(buf.kept.len());
        let take = room.min(bytes.len());
        buf.kept.extend_from_slice(&bytes[..take]);
        buf.dropped += bytes.len() - take;
    }

    /// Forgets what was captured, for the next call on the same instance.
    pub fn clear(&self) {
        let mut buf = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        buf.kept.clear();
        buf.dropped = 0;
    }

    /// What was captured, as text (invalid UTF-8 replaced), and how many bytes
    /// were dropped past the limit. When the limit cut the stream, the line
    /// it cut is dropped whole: it may end in the first bytes of a secret,
    /// which redaction (run on what is kept) could not recognise.
    pub fn contents(&self) -> (String, usize) {
        let buf = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = if buf.dropped == 0 {
            &buf.kept[..]
        } else {
            let whole = buf
                .kept
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            &buf.kept[..whole]
        };
        let dropped = buf.dropped + (buf.kept.len() - kept.len());
        (String::from_utf8_lossy(kept).into_owned(), dropped)
    }
}

impl IsTerminal for Capture {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for Capture {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }

    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl OutputStream for Capture {
    fn write(&mut self, bytes: Bytes) -> Result<(), StreamError> {
        self.push(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }

    fn check_write(&mut self) -> Result<usize, StreamError> {
        Ok(CAPTURE_LIMIT)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for Capture {
    async fn ready(&mut self) {}
}

impl AsyncWrite for Capture {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.push(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// A Rust panic as the standard library prints it to stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanicReport {
    /// The panic message, for example `index out of bounds: ...`.
    pub message: String,
    /// Where it panicked, for example `src/lib.rs:42:5`, if printed.
    pub location: Option<String>,
}

/// Finds the last Rust panic report in a guest's stderr.
///
/// The standard library prints `thread '<name>' panicked at FILE:LINE:COL:`
/// (since Rust 1.88 with the thread id: `thread '<name>' (1) panicked at`)
/// followed by the message on the next lines, then usually a `note:` line.
pub fn find_panic(stderr: &str) -> Option<PanicReport> {
    let lines: Vec<&str> = stderr.lines().collect();
    const MARK: &str = " panicked at ";
    let start = lines
        .iter()
        .rposition(|l| l.starts_with("thread '") && l.contains(MARK))?;
    let header = lines[start];
    let after = &header[header.find(MARK)? + MARK.len()..];
    let (location, inline_message) = match after.strip_suffix(':') {
        // Current format: location on the header line, message below.
        Some(loc) => (Some(loc.to_string()), None),
        // Older format: `panicked at 'message', src/lib.rs:1:2`.
        None => match after.rsplit_once(", ") {
            Some((msg, loc)) => (
                Some(loc.to_string()),
                Some(msg.trim_matches('\'').to_string()),
            ),
            None => (None, Some(after.to_string())),
        },
    };
    let message = inline_message.unwrap_or_else(|| {
        lines[start + 1..]
            .iter()
            .take_while(|l| !l.starts_with("note: ") && !l.starts_with("stack backtrace:"))
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string()
    });
    Some(PanicReport { message, location })
}

/// Finds a failed-allocation abort (`memory allocation of N bytes failed`).
pub fn find_alloc_failure(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("memory allocation of ") && l.ends_with(" failed"))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_current_panic_format() {
        let stderr = "hello\n\nthread '<unnamed>' panicked at src/lib.rs:42:5:\nindex out of bounds: the len is 3 but the index is 7\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        let p = find_panic(stderr).expect("a panic");
        assert_eq!(p.location.as_deref(), Some("src/lib.rs:42:5"));
        assert_eq!(
            p.message,
            "index out of bounds: the len is 3 but the index is 7"
        );
    }

    #[test]
    fn finds_old_panic_format_and_multiline_messages() {
        let p = find_panic("thread 'main' panicked at 'boom', src/main.rs:1:2\n").expect("a panic");
        assert_eq!(p.message, "boom");
        assert_eq!(p.location.as_deref(), Some("src/main.rs:1:2"));
        let p = find_panic("thread '<unnamed>' panicked at a.rs:1:1:\nline one\nline two\n")
            .expect("a panic");
        assert_eq!(p.message, "line one\nline two");
    }

    #[test]
    fn no_panic_in_plain_output() {
        assert_eq!(find_panic("all fine\n"), None);
        assert_eq!(
            find_alloc_failure("memory allocation of 1048576 bytes failed\n").as_deref(),
            Some("memory allocation of 1048576 bytes failed")
        );
    }

    #[test]
    fn capture_keeps_a_bounded_prefix_and_counts_the_rest() {
        let c = Capture::new();
        c.push(b"first line\n");
        c.push(&vec![b'a'; CAPTURE_LIMIT - 12]);
        c.push(b"xyz\nmore");
        let (text, dropped) = c.contents();
        assert_eq!(text, "first line\n");
        assert_eq!(dropped, 7 + CAPTURE_LIMIT - 11);
        let whole = Capture::new();
        whole.push(b"one\ntwo");
        assert_eq!(whole.contents(), ("one\ntwo".to_string(), 0));
    }

    /// A secret the capture limit cuts, at every offset: no prefix of it
    /// reaches the log, in any of the forms the redactor knows.
    #[test]
    fn a_secret_cut_by_the_capture_limit_leaves_no_prefix() {
        use crate::capabilities::secrets::{SecretsPolicy, redact::forms};
        const SECRET: &str = "Zq9/sec+ret=VALUE~42";
        let secrets = SecretsPolicy::for_tests(&[("S", SECRET)], false);
        for form in forms(SECRET) {
            for cut in 1..form.len() {
                let c = Capture::new();
                c.push(b"before\n");
                c.push(&vec![b'-'; CAPTURE_LIMIT - 7 - cut]);
                c.push(form.as_bytes());
                c.push(b" after\n");
                let (text, _) = c.contents();
                let text = secrets.redact(&text);
                assert_eq!(text, "before\n", "form {form:?} cut after {cut} bytes");
                assert!(!text.contains(&form[..cut]), "{form:?} at {cut}");
            }
        }
    }
}
