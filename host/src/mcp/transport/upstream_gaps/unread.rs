//! Connections accepted but not yet read: a graceful stop waits for their
//! first bytes before it tells the server to shut down.
//!
//! axum serves each connection with hyper-util's `auto` builder, which first
//! reads a few bytes to tell HTTP/1 from HTTP/2. A graceful shutdown that
//! reaches a connection still at that step drops it unread, even when its
//! request is already waiting in the kernel's buffer; a load balancer that
//! sent a POST on it gets a reset and must not send it again, so the call is
//! lost. Until every accepted connection has shown enough bytes to settle
//! its version (or closed), [`Unread::none_left`] does not return, bounded by
//! [`FIRST_BYTES_GRACE`] so a client that connects and says nothing cannot
//! hold a stop.
//!
//! Upstream (hyper-util 0.1.21): cancelling that read is hyper-util's fix
//! for a graceful shutdown that hung there (hyperium/hyper#3576);
//! hyperium/hyper#3808 (open) gives idle HTTP/1 connections a first-byte
//! grace, but not the version read before it. See [`super`].

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

/// How long a graceful stop waits for accepted connections to send their
/// first bytes. A load balancer sends its request as soon as it connects,
/// so only an idle client waits this long, and it loses nothing.
pub const FIRST_BYTES_GRACE: Duration = Duration::from_secs(10);

/// The HTTP/2 connection preface, as hyper-util's version check reads it:
/// bytes that are still a prefix of it leave the version open.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The count of accepted connections whose version is not settled yet.
#[derive(Debug, Default)]
pub struct Unread {
    count: AtomicUsize,
    changed: Notify,
}

impl Unread {
    /// Wraps a connection just accepted; it counts as unread until its
    /// first bytes settle its version, it ends, or it is dropped.
    pub fn track(self: &Arc<Self>, stream: TcpStream) -> Accepted {
        self.count.fetch_add(1, Ordering::SeqCst);
        Accepted {
            stream,
            unread: Some(Pending {
                of: Arc::clone(self),
                head: Vec::new(),
            }),
        }
    }

    /// How many connections are unread now.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Returns once no connection is unread, or after `grace`.
    pub async fn none_left(&self, grace: Duration) {
        let wait = async {
            loop {
                let changed = self.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if self.count() == 0 {
                    return;
                }
                changed.await;
            }
        };
        if tokio::time::timeout(grace, wait).await.is_err() {
            tracing::debug!(
                unread = self.count(),
                "stopping with connections that sent nothing"
            );
        }
    }
}

/// An unread connection's place in the count, and the bytes seen so far.
#[derive(Debug)]
struct Pending {
    of: Arc<Unread>,
    /// At most the preface's length.
    head: Vec<u8>,
}

impl Pending {
    /// Adds bytes just read; true once they settle the version as hyper-util
    /// sees it: a byte off the HTTP/2 preface, or the whole preface.
    fn settled_by(&mut self, new: &[u8]) -> bool {
        let take = new.len().min(H2_PREFACE.len() - self.head.len());
        self.head.extend_from_slice(&new[..take]);
        self.head.len() == H2_PREFACE.len() || !H2_PREFACE.starts_with(&self.head)
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.of.count.fetch_sub(1, Ordering::SeqCst);
        self.of.changed.notify_waiters();
    }
}

/// A connection from the listener: the TCP stream, and its place among the
/// unread until its first bytes arrive.
#[derive(Debug)]
pub struct Accepted {
    stream: TcpStream,
    unread: Option<Pending>,
}

impl AsyncRead for Accepted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let result = Pin::new(&mut this.stream).poll_read(cx, buf);
        if let Some(pending) = &mut this.unread {
            let settled = match &result {
                // An empty read is the end of the stream.
                Poll::Ready(Ok(())) => {
                    let new = &buf.filled()[before..];
                    new.is_empty() || pending.settled_by(new)
                }
                Poll::Ready(Err(_)) => true,
                Poll::Pending => false,
            };
            if settled {
                this.unread = None;
            }
        }
        result
    }
}

impl AsyncWrite for Accepted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending() -> Pending {
        let of = Arc::new(Unread::default());
        of.count.fetch_add(1, Ordering::SeqCst);
        Pending {
            of,
            head: Vec::new(),
        }
    }

    #[test]
    fn an_http1_request_settles_at_its_first_byte_off_the_preface() {
        let mut p = pending();
        assert!(!p.settled_by(b"P"), "POST and PRI start alike");
        assert!(p.settled_by(b"OST /mcp HTTP/1.1\r\n"));
        assert!(pending().settled_by(b"GET / HTTP/1.0\r\n\r\n"));
    }

    #[test]
    fn http2_settles_only_with_the_whole_preface() {
        let mut p = pending();
        assert!(!p.settled_by(&H2_PREFACE[..10]));
        assert!(!p.settled_by(&H2_PREFACE[10..23]));
        assert!(p.settled_by(&H2_PREFACE[23..]));
        assert!(pending().settled_by(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\x12\x04"));
    }

    #[tokio::test]
    async fn none_left_returns_when_the_last_connection_settles_or_closes() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let unread = Arc::new(Unread::default());
        let mut client_a = TcpStream::connect(addr).await.unwrap();
        let (a, _) = listener.accept().await.unwrap();
        let _client_b = TcpStream::connect(addr).await.unwrap();
        let (b, _) = listener.accept().await.unwrap();
        let mut a = unread.track(a);
        let b = unread.track(b);
        assert_eq!(unread.count(), 2);

        // The first bytes of a request settle `a`.
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        client_a.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
        let mut buf = [0u8; 64];
        let n = a.read(&mut buf).await.unwrap();
        assert!(n > 1);
        assert_eq!(unread.count(), 1);

        // `b` never sends; dropping it (the server closing it) settles it,
        // and a waiter wakes, long before the grace ends.
        let waiter = {
            let unread = Arc::clone(&unread);
            tokio::spawn(async move { unread.none_left(Duration::from_secs(3600)).await })
        };
        drop(b);
        waiter.await.unwrap();
        assert_eq!(unread.count(), 0);
    }
}
