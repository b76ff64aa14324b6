//! The HTTP transport's listener: accepts connections with `TCP_NODELAY`
//! until a shutdown begins, then accepts what the kernel had already queued
//! before it stops, and tells the server to shut down once those have been
//! read from ([`super::upstream_gaps::unread`]).
//!
//! A connection the kernel completed but the server never accepted is reset
//! when the listener closes, after the client (or a load balancer) may have
//! sent its request: a load balancer must not resend such a POST, so the
//! request would be lost. Taking the queue empty first leaves only the
//! microseconds between the last empty look and the close; a connection
//! attempted after the close is refused before anything is sent, which a
//! load balancer safely tries on another server.

use std::io;
use std::net::SocketAddr;

use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::upstream_gaps::unread::{Accepted, FIRST_BYTES_GRACE, Unread};

/// A listener that stops accepting once `stop` is cancelled and the queue is
/// empty, closes its socket at once, and then cancels `drained`.
#[derive(Debug)]
pub struct DrainingListener {
    /// The socket; `None` once drained and closed.
    inner: Option<TcpListener>,
    /// Its address, which outlives the socket.
    addr: io::Result<SocketAddr>,
    stop: CancellationToken,
    drained: CancellationToken,
    /// The connections it handed out that have not been read from yet.
    unread: Arc<Unread>,
}

/// When the server may shut down: once the listener is drained and closed,
/// and every connection it accepted has been read from.
#[derive(Debug, Clone)]
pub struct Drain {
    drained: CancellationToken,
    unread: Arc<Unread>,
}

impl Drain {
    /// Whether the listener has closed.
    #[cfg(test)]
    pub fn is_drained(&self) -> bool {
        self.drained.is_cancelled()
    }

    /// Returns once the listener has closed.
    #[cfg(test)]
    pub async fn drained(&self) {
        self.drained.cancelled().await;
    }

    /// Returns once the listener has closed and every accepted connection
    /// has shown its first bytes (or closed), or [`FIRST_BYTES_GRACE`] after
    /// the close: the signal for the server's graceful shutdown, which
    /// would drop a connection it has not read from yet.
    pub async fn finished(self) {
        self.drained.cancelled().await;
        self.unread.none_left(FIRST_BYTES_GRACE).await;
    }
}

impl DrainingListener {
    /// Wraps `inner`; serve until the [`Drain`] is finished.
    pub fn new(inner: TcpListener, stop: CancellationToken) -> (Self, Drain) {
        let drained = CancellationToken::new();
        let unread = Arc::new(Unread::default());
        let listener = DrainingListener {
            addr: inner.local_addr(),
            inner: Some(inner),
            stop,
            drained: drained.clone(),
            unread: Arc::clone(&unread),
        };
        (listener, Drain { drained, unread })
    }

    /// A connection the kernel has already queued, without waiting: `None`
    /// when there is none. (`accept4`, which sets the flags atomically, is
    /// Linux's; macOS has no such call.)
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn queued(&self) -> Option<(TcpStream, SocketAddr)> {
        use rustix::net::{SocketFlags, accept_with};
        let inner = self.inner.as_ref()?;
        let fd = match accept_with(inner, SocketFlags::NONBLOCK | SocketFlags::CLOEXEC) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::INTR | rustix::io::Errno::CONNABORTED) => return self.queued(),
            Err(_) => return None,
        };
        let stream = std::net::TcpStream::from(fd);
        let peer = stream.peer_addr().ok()?;
        let stream = TcpStream::from_std(stream).ok()?;
        Some((stream, peer))
    }

    /// A connection whose readiness tokio has already seen, without
    /// waiting (elsewhere than on Linux, where the queue is not read
    /// directly).
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn queued(&self) -> Option<(TcpStream, SocketAddr)> {
        use futures::FutureExt as _;
        self.inner.as_ref()?.accept().now_or_never()?.ok()
    }
}

/// Sets `TCP_NODELAY`: without it, Nagle's algorithm and delayed ACKs stall
/// most small responses by about 40 ms.
fn no_delay(stream: &TcpStream) {
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "cannot set TCP_NODELAY on a connection");
    }
}

impl DrainingListener {
    /// A connection to hand to the server: `TCP_NODELAY` set, and counted
    /// as unread until its first bytes arrive.
    fn hand_out(&self, stream: TcpStream) -> Accepted {
        no_delay(&stream);
        self.unread.track(stream)
    }
}

impl axum::serve::Listener for DrainingListener {
    type Io = Accepted;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Accepted, SocketAddr) {
        loop {
            if self.stop.is_cancelled() {
                match self.queued() {
                    Some((stream, peer)) => return (self.hand_out(stream), peer),
                    None => {
                        // Closed right after the empty look, in the same
                        // task: not when the server gets round to dropping
                        // the listener, which under load may be long enough
                        // for a connection to queue and then be reset.
                        self.inner = None;
                        self.drained.cancel();
                        std::future::pending::<()>().await;
                    }
                }
            }
            let Some(inner) = &self.inner else {
                self.drained.cancel();
                std::future::pending::<()>().await;
                continue;
            };
            tokio::select! {
                accepted = inner.accept() => match accepted {
                    Ok((stream, peer)) => return (self.hand_out(stream), peer),
                    Err(error) => accept_failed(error).await,
                },
                () = self.stop.cancelled() => {}
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.addr {
            Ok(addr) => Ok(*addr),
            Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
        }
    }
}

/// What axum's own listener does on an accept error: per-connection errors
/// are retried at once; others (out of file descriptors) after a pause, so
/// the loop does not spin.
async fn accept_failed(error: io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    ) {
        return;
    }
    tracing::warn!(%error, "accepting an HTTP connection failed; trying again in 1 s");
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::serve::Listener as _;

    #[tokio::test]
    async fn after_the_stop_the_queued_connections_are_accepted_then_none() {
        let inner = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = inner.local_addr().unwrap();
        let stop = CancellationToken::new();
        let (mut listener, drained) = DrainingListener::new(inner, stop.clone());
        // Two connections the kernel completes but nobody has accepted yet.
        let a = std::net::TcpStream::connect(addr).unwrap();
        let b = std::net::TcpStream::connect(addr).unwrap();
        stop.cancel();
        let first = listener.accept().await;
        let second = listener.accept().await;
        let mut peers = [first.1, second.1];
        peers.sort();
        let mut expected = [a.local_addr().unwrap(), b.local_addr().unwrap()];
        expected.sort();
        assert_eq!(peers, expected);
        assert!(
            !drained.is_drained(),
            "not drained while it handed some out"
        );
        // The queue is empty now: the next accept never returns, and says
        // the listener is drained.
        let third = tokio::time::timeout(std::time::Duration::from_secs(60), listener.accept());
        tokio::select! {
            _ = third => panic!("accept returned, or never said the listener is drained"),
            () = drained.drained() => {}
        }
        // And the socket is closed by then: a later connection is refused
        // before anything is sent, which a load balancer retries elsewhere.
        let refused = std::net::TcpStream::connect(addr).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::ConnectionRefused);
        assert_eq!(listener.local_addr().unwrap(), addr);
    }

    #[tokio::test]
    async fn the_drain_finishes_only_once_what_it_handed_out_has_been_read() {
        use futures::FutureExt as _;
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let inner = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = inner.local_addr().unwrap();
        let stop = CancellationToken::new();
        let (mut listener, drain) = DrainingListener::new(inner, stop.clone());
        let mut client = TcpStream::connect(addr).await.unwrap();
        stop.cancel();
        let (mut conn, _) = listener.accept().await;
        let rest = listener.accept();
        tokio::select! {
            _ = rest => unreachable!("the queue is empty"),
            () = drain.drained() => {}
        }
        let finished = drain.clone().finished();
        tokio::pin!(finished);
        assert!(
            finished.as_mut().now_or_never().is_none(),
            "finished with a connection nobody has read from"
        );
        client.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
        let mut buf = [0u8; 32];
        assert!(conn.read(&mut buf).await.unwrap() > 0);
        finished.await;
    }

    /// The class of loss this prevents, end to end through axum: a request
    /// on a connection the listener accepted while draining, whose bytes
    /// the server had not read when the listener closed, is answered.
    #[tokio::test]
    async fn a_request_on_a_connection_accepted_while_draining_is_answered() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let inner = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = inner.local_addr().unwrap();
        let stop = CancellationToken::new();
        let (listener, drain) = DrainingListener::new(inner, stop.clone());
        let watch = drain.clone();
        let app = axum::Router::new().route("/mcp", axum::routing::post(|| async { "answered" }));
        let server = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(drain.finished())
                .await
        });
        // Connected (the kernel queued it) but nothing sent yet.
        let mut client = TcpStream::connect(addr).await.unwrap();
        stop.cancel();
        watch.drained().await;
        // Let every task run that is ready to: the server, told to shut
        // down too early, would drop the connection here.
        for _ in 0..64 {
            tokio::task::yield_now().await;
        }
        client
            .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
            .await
            .unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
        assert!(answer.ends_with("answered"), "{answer:?}");
        server.await.unwrap().unwrap();
    }
}
