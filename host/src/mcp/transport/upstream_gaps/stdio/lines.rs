//! Reading stdin one bounded line at a time, in a way that a dropped read
//! loses nothing (rmcp drops its pending `receive` whenever another event
//! wins its loop's `select!`). rmcp's own reader does both since
//! modelcontextprotocol/rust-sdk#947 and #1030, but drops a line over its
//! limit unanswered; this one keeps the line's start, so the transport can
//! answer with the request's id.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use super::super::jsonrpc;

/// What [`LineReader::next`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineRead {
    /// A whole line (its newline included, when it had one).
    Line,
    /// A line over the limit, read to its end; only its start is kept.
    TooLong,
    /// The end of the input.
    Eof,
}

/// A line reader whose whole state lives in the reader, not in the future
/// that [`LineReader::next`] returns: bytes are consumed from the input only
/// once they are in `line`, so dropping a pending `next` and calling it
/// again continues the same line.
#[derive(Debug)]
pub(super) struct LineReader<R> {
    input: R,
    limit: usize,
    line: Vec<u8>,
    too_long: bool,
    /// The line in `line` was returned; the next call starts a new one.
    returned: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Reads lines of at most `limit` bytes, the newline included.
    pub(super) fn new(input: R, limit: usize) -> LineReader<R> {
        LineReader {
            input,
            limit,
            line: Vec::new(),
            too_long: false,
            returned: false,
        }
    }

    /// The line [`LineReader::next`] last found (for a line over the
    /// limit, its first [`jsonrpc::ID_PREFIX_BYTES`], so that its id can be
    /// found).
    pub(super) fn line(&self) -> &[u8] {
        &self.line
    }

    /// Reads the next line. A line over the limit is consumed to its end
    /// and reported as [`LineRead::TooLong`]. Cancel-safe.
    pub(super) async fn next(&mut self) -> std::io::Result<LineRead> {
        if self.returned {
            self.line.clear();
            self.too_long = false;
            self.returned = false;
        }
        loop {
            let buf = self.input.fill_buf().await?;
            if buf.is_empty() {
                let read = if self.too_long {
                    LineRead::TooLong
                } else if self.line.is_empty() {
                    LineRead::Eof
                } else {
                    LineRead::Line
                };
                self.returned = true;
                return Ok(read);
            }
            let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..=i], true),
                None => (buf, false),
            };
            let n = chunk.len();
            if !self.too_long && self.line.len() + n > self.limit {
                self.too_long = true;
                self.line.truncate(jsonrpc::ID_PREFIX_BYTES);
            }
            let keep = if self.too_long {
                jsonrpc::ID_PREFIX_BYTES
                    .saturating_sub(self.line.len())
                    .min(n)
            } else {
                n
            };
            self.line.extend_from_slice(&chunk[..keep]);
            self.input.consume(n);
            if done {
                self.returned = true;
                return Ok(if self.too_long {
                    LineRead::TooLong
                } else {
                    LineRead::Line
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::FutureExt;
    use tokio::io::{AsyncWriteExt, BufReader};

    use super::*;

    async fn read_all(data: &[u8], limit: usize) -> Vec<(Vec<u8>, bool)> {
        let mut r = LineReader::new(BufReader::with_capacity(4, data), limit);
        let mut lines = Vec::new();
        loop {
            match r.next().await.unwrap() {
                LineRead::Eof => return lines,
                LineRead::Line => lines.push((r.line().to_vec(), false)),
                LineRead::TooLong => lines.push((r.line().to_vec(), true)),
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

    #[tokio::test]
    async fn a_read_dropped_midway_loses_no_byte_of_a_short_or_a_long_line() {
        for (limit, kind) in [(1000, LineRead::Line), (4, LineRead::TooLong)] {
            let (mut client, server) = tokio::io::duplex(64);
            let mut reader = LineReader::new(BufReader::with_capacity(2, server), limit);
            client.write_all(b"abc").await.unwrap();
            // Each attempt reads what has arrived, then waits and is dropped.
            for _ in 0..3 {
                assert!(reader.next().now_or_never().is_none());
            }
            client.write_all(b"def\nnext\n").await.unwrap();
            assert_eq!(reader.next().await.unwrap(), kind);
            assert_eq!(reader.line(), b"abcdef\n");
            assert_eq!(reader.next().await.unwrap(), kind);
            assert_eq!(reader.line(), b"next\n");
        }
    }
}
