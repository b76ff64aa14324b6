//! The sender of one call's outbound requests: it checks each request
//! against the plugin's HTTP policy (origin, method, count), injects the
//! secrets that belong to its origin, resolves the name and refuses internal
//! addresses the policy does not name, connects (TLS for https) within the
//! connect timeout, caps both bodies, stops at the first-byte timeout and the
//! call's deadline, and writes one audit record per request.

use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use tokio::net::TcpStream;
use wasmtime_wasi_http::io::TokioIo;
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody, WasiHttpHooks};

use super::super::secrets::SecretsPolicy;
use super::super::{Grants, Others};
use super::HttpPolicy;
use super::address::refusal;
use super::origin::{self, RequestTarget};

/// Denials kept per call for the call's error message; more are only logged.
const KEPT_DENIALS: usize = 4;

/// What the sender needs to know about its call and plugin.
#[derive(Debug, Clone)]
pub struct CallInfo {
    /// The plugin.
    pub plugin: Arc<str>,
    /// The tool being called.
    pub tool: Arc<str>,
    /// The plugin's section of the policy file, for hints.
    pub section: Arc<str>,
    /// The policy file, for the same hints.
    pub config_file: Arc<str>,
    /// When the call must be finished.
    pub deadline: Instant,
}

struct Shared {
    call: CallInfo,
    /// The plugin's grants: its `http` grant, the `secrets` to inject and
    /// the redaction of what it logs.
    grants: Arc<Grants>,
    sent: AtomicU32,
    denials: Mutex<Vec<String>>,
    /// Denials past the first few, which are only counted.
    unlogged: AtomicU64,
}

impl Drop for Shared {
    fn drop(&mut self) {
        let unlogged = *self.unlogged.get_mut();
        if unlogged > 0 {
            let (plugin, tool) = (&*self.call.plugin, &*self.call.tool);
            tracing::warn!(
                plugin,
                tool,
                unlogged,
                "the policy denied {unlogged} more outbound requests of this call, not logged one by one"
            );
            tracing::info!(target: "audit", plugin, tool, denied = unlogged, outcome = "denied", "http");
        }
    }
}

/// One call's outbound HTTP: the hooks wasmtime-wasi-http calls.
#[derive(Clone)]
pub struct Outbound {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbound")
            .field("plugin", &self.shared.call.plugin)
            .field("tool", &self.shared.call.tool)
            .finish_non_exhaustive()
    }
}

impl Outbound {
    /// The sender of one call under the `http` grant of `grants`,
    /// injecting its `secrets`.
    pub fn new(call: CallInfo, grants: Arc<Grants>) -> Self {
        Outbound {
            shared: Arc::new(Shared {
                call,
                grants,
                sent: AtomicU32::new(0),
                denials: Mutex::new(Vec::new()),
                unlogged: AtomicU64::new(0),
            }),
        }
    }

    /// What the policy denied during the call, each with the key that would
    /// grant it (the first few).
    pub fn denials(&self) -> Vec<String> {
        self.shared
            .denials
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Shared {
    fn policy(&self) -> &HttpPolicy {
        self.grants.get::<HttpPolicy>()
    }

    /// The secrets to inject, read as [`HttpPolicy`] declares in its
    /// [`READS`](super::super::Capability::READS); none if it did not.
    fn secrets(&self) -> Option<&SecretsPolicy> {
        Others::of::<HttpPolicy>(&self.grants)
            .get::<SecretsPolicy>()
            .ok()
    }

    fn key(&self, key: &str) -> String {
        format!(
            "`{}.http.{key}` in {}",
            self.call.section, self.call.config_file
        )
    }

    /// Records and logs a denial of `method` to `origin` (`scheme://host`)
    /// and `path`, both redacted of the plugin's secrets; the guest gets
    /// `HTTP-request-denied`. The audit line has the same `origin` and
    /// `path` fields as a request sent.
    fn deny(&self, method: &str, origin: &str, path: &str, why: String) -> Error {
        let mut denials = self.denials.lock().unwrap_or_else(PoisonError::into_inner);
        if denials.len() >= KEPT_DENIALS {
            // A guest looping on denied requests must not flood the log:
            // the rest are counted, and reported once when the call ends.
            self.unlogged.fetch_add(1, Ordering::Relaxed);
            return Error::HttpRequestDenied;
        }
        let origin = self.grants.redact(origin);
        let path = self.grants.redact(path);
        let message = format!("the policy denied {method} {origin}{path}: {why}");
        let (plugin, tool) = (&*self.call.plugin, &*self.call.tool);
        tracing::warn!(plugin, tool, "{message}");
        tracing::info!(
            target: "audit",
            plugin,
            tool,
            method,
            origin = &*origin,
            path = &*path,
            outcome = "denied",
            "http"
        );
        denials.push(message);
        Error::HttpRequestDenied
    }

    /// Checks a request against the policy and adds its injected headers;
    /// its target, or the error for the guest.
    fn admit(&self, request: &mut http::Request<WasiBody>) -> Result<RequestTarget, Error> {
        let method = request.method().as_str().to_string();
        let uri = request.uri();
        let shown = (
            format!(
                "{}://{}",
                uri.scheme_str().unwrap_or("?"),
                uri.authority().map_or("", |a| a.as_str()),
            ),
            uri.path().to_string(),
        );
        let target = origin::target(
            uri.scheme_str().unwrap_or(""),
            uri.authority().map_or("", |a| a.as_str()),
            uri.path_and_query().map_or("/", |p| p.as_str()),
        )
        .map_err(|why| self.deny(&method, &shown.0, &shown.1, why.to_string()))?;
        let limit = self.policy().limits.max_requests;
        if self.sent.fetch_add(1, Ordering::Relaxed) >= limit {
            return Err(self.deny(
                &method,
                &shown.0,
                &shown.1,
                format!(
                    "the call already sent its {limit} requests; raise {}",
                    self.key("max_requests")
                ),
            ));
        }
        if self.policy().granting(&target).is_none() {
            let grant = if self.policy().allow.is_empty() {
                format!(
                    "this plugin may reach no origin; to grant this one set `{}.http.allow = [\"{}\"]` (in {})",
                    self.call.section,
                    target.origin(),
                    self.call.config_file
                )
            } else {
                format!(
                    "{} is not on the allow-list; to grant it add \"{}\" to {}",
                    target.origin(),
                    target.origin(),
                    self.key("allow")
                )
            };
            return Err(self.deny(&method, &shown.0, &shown.1, grant));
        }
        if !self.policy().allows_method(&method) {
            return Err(self.deny(
                &method,
                &shown.0,
                &shown.1,
                format!(
                    "the plugin may use only {}; to grant {method} add it to {}",
                    self.policy().methods.join(", "),
                    self.key("methods")
                ),
            ));
        }
        for (secret, injection) in self
            .secrets()
            .into_iter()
            .flat_map(SecretsPolicy::injections)
        {
            if injection.origin.same_origin(&target)
                && let Some(value) = secret.header_value(injection)
            {
                request.headers_mut().remove(&injection.header);
                request
                    .headers_mut()
                    .insert(injection.header.clone(), value);
            }
        }
        Ok(target)
    }

    /// The addresses `target` may be reached at: its address literal, or
    /// what its name resolves to, less the internal ones not granted.
    async fn addresses(
        &self,
        method: &str,
        target: &RequestTarget,
        timeout: Duration,
    ) -> Result<Vec<SocketAddr>, Error> {
        let found: Vec<SocketAddr> = match target.ip {
            Some(ip) => vec![SocketAddr::new(ip, target.port)],
            None => tokio::time::timeout(
                timeout,
                tokio::net::lookup_host((target.host.as_str(), target.port)),
            )
            .await
            .map_err(|_| Error::DnsTimeout)?
            .map_err(|e| Error::DnsError {
                rcode: Some(e.to_string()),
                info_code: None,
            })?
            .collect(),
        };
        let (allowed, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = found
            .into_iter()
            .partition(|a| refusal(a.ip(), &self.policy().addresses).is_none());
        if allowed.is_empty()
            && let Some(first) = refused.first()
        {
            let ip: IpAddr = first.ip();
            let why = refusal(ip, &self.policy().addresses).unwrap_or("an internal address");
            return Err(self.deny(
                method,
                &target.origin(),
                &target.path,
                format!(
                    "{} resolves to {ip}, {why}; to grant it add \"{ip}\" to {}",
                    target.host,
                    self.key("allow_addresses")
                ),
            ));
        }
        if allowed.is_empty() {
            return Err(Error::DestinationNotFound);
        }
        Ok(allowed)
    }
}

trait Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Sync + Unpin + 'static {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Sync + Unpin + 'static> Stream for T {}

/// Connects to the first address that answers, then TLS for https.
async fn connect(
    target: &RequestTarget,
    addresses: &[SocketAddr],
    timeout: Duration,
    tls: &super::tls::Trust,
) -> Result<Box<dyn Stream>, Error> {
    let work = async {
        let mut last = Error::ConnectionRefused;
        for address in addresses {
            match TcpStream::connect(address).await {
                Ok(tcp) => {
                    let _ = tcp.set_nodelay(true);
                    if target.scheme == origin::Scheme::Http {
                        return Ok(Box::new(tcp) as Box<dyn Stream>);
                    }
                    let name = match target.ip {
                        Some(ip) => rustls::pki_types::ServerName::from(ip),
                        None => rustls::pki_types::ServerName::try_from(target.host.clone())?,
                    };
                    let tls = tokio_rustls::TlsConnector::from(
                        tls.config()
                            .ok_or(Error::InternalError(Some("TLS is unavailable".into())))?,
                    )
                    .connect(name, tcp)
                    .await
                    .map_err(Error::Tls)?;
                    return Ok(Box::new(tls) as Box<dyn Stream>);
                }
                Err(e) => last = Error::Connect(e),
            }
        }
        Err(last)
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| Error::ConnectionTimeout)?
}

/// One request's audit record, written when its response body ends or is
/// dropped (or at once when it fails).
struct Audit {
    plugin: Arc<str>,
    tool: Arc<str>,
    method: String,
    origin: String,
    path: String,
    status: Option<u16>,
    error: Option<String>,
    sent: Arc<AtomicU64>,
    received: u64,
    started: Instant,
}

impl Drop for Audit {
    fn drop(&mut self) {
        tracing::info!(
            target: "audit",
            plugin = &*self.plugin,
            tool = &*self.tool,
            method = self.method,
            origin = self.origin,
            path = self.path,
            status = self.status,
            error = self.error,
            sent_bytes = self.sent.load(Ordering::Relaxed),
            received_bytes = self.received,
            duration_us = self.started.elapsed().as_micros() as u64,
            outcome = if self.error.is_some() { "failed" } else { "sent" },
            "http"
        );
    }
}

/// A request body cut at `limit` bytes, counting what it sends.
struct Capped {
    inner: WasiBody,
    seen: u64,
    limit: u64,
    sent: Arc<AtomicU64>,
}

impl Body for Capped {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let frame = ready!(Pin::new(&mut self.inner).poll_frame(cx));
        if let Some(Ok(data)) = frame.as_ref().map(|f| f.as_ref().map(Frame::data_ref))
            && let Some(data) = data
        {
            self.seen += data.len() as u64;
            self.sent.fetch_add(data.len() as u64, Ordering::Relaxed);
            if self.seen > self.limit {
                return Poll::Ready(Some(Err(Error::HttpRequestBodySize(Some(self.limit)))));
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body cut at `limit` bytes, carrying its audit record.
struct Received {
    inner: hyper::body::Incoming,
    limit: u64,
    deadline: tokio::time::Instant,
    audit: Audit,
}

impl Body for Received {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        if tokio::time::Instant::now() >= self.deadline {
            return Poll::Ready(Some(Err(Error::ConnectionReadTimeout)));
        }
        match ready!(Pin::new(&mut self.inner).poll_frame(cx)) {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    self.audit.received += data.len() as u64;
                    if self.audit.received > self.limit {
                        self.audit.error = Some("response body over the limit".into());
                        return Poll::Ready(Some(Err(Error::HttpResponseBodySize(Some(
                            self.limit,
                        )))));
                    }
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Some(Err(e)) => {
                self.audit.error = Some(e.to_string());
                Poll::Ready(Some(Err(Error::from(e))))
            }
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

type ResponseFuture = Box<
    dyn Future<
            Output = Result<
                (
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), Error>> + Send>,
                ),
                Error,
            >,
        > + Send,
>;

impl WasiHttpHooks for Outbound {
    fn send_request(
        &mut self,
        mut request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        _response_errors: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> ResponseFuture {
        let shared = self.shared.clone();
        Box::new(async move {
            let target = shared.admit(&mut request)?;
            let limits = &shared.policy().limits;
            let shorter =
                |ours: Duration, theirs: Option<Duration>| theirs.map_or(ours, |t| t.min(ours));
            let connect_timeout = shorter(
                limits.connect_timeout,
                options.and_then(|o| o.connect_timeout),
            );
            let first_byte = shorter(
                limits.first_byte_timeout,
                options.and_then(|o| o.first_byte_timeout),
            );
            let deadline = tokio::time::Instant::from(shared.call.deadline);
            let method = request.method().as_str().to_string();
            let mut audit = Audit {
                plugin: shared.call.plugin.clone(),
                tool: shared.call.tool.clone(),
                method: method.clone(),
                origin: target.origin(),
                path: shared.grants.redact(&target.path).into_owned(),
                status: None,
                error: None,
                sent: Arc::new(AtomicU64::new(0)),
                received: 0,
                started: Instant::now(),
            };
            let work = async {
                let addresses = shared.addresses(&method, &target, connect_timeout).await?;
                let stream =
                    connect(&target, &addresses, connect_timeout, &shared.policy().tls).await?;
                let (mut sender, connection) = tokio::time::timeout(
                    connect_timeout,
                    hyper::client::conn::http1::handshake(TokioIo::new(stream)),
                )
                .await
                .map_err(|_| Error::ConnectionTimeout)??;
                // The request line carries only the path: scheme and host
                // belong in it only when talking to a proxy. It is the path
                // the allow-list judged, in normal form.
                let path = target
                    .path_and_query()
                    .parse()
                    .map_err(|_| Error::HttpRequestUriInvalid)?;
                let (mut parts, body) = request.into_parts();
                parts.uri = path;
                let body = Capped {
                    inner: body,
                    seen: 0,
                    limit: limits.max_request_body,
                    sent: audit.sent.clone(),
                };
                let request = http::Request::from_parts(parts, body);
                let mut connection = Box::pin(connection);
                let response = {
                    let send = tokio::time::timeout(first_byte, sender.send_request(request));
                    tokio::pin!(send);
                    // Drive the connection while waiting for the response.
                    loop {
                        tokio::select! {
                            response = &mut send => break response
                                .map_err(|_| Error::HttpResponseTimeout)?
                                .map_err(|e| request_error(&e))?,
                            done = &mut connection => {
                                done.map_err(Error::from)?;
                            }
                        }
                    }
                };
                Ok::<_, Error>((response, connection))
            };
            let (response, connection) = match tokio::time::timeout_at(deadline, work).await {
                Ok(Ok(done)) => done,
                Ok(Err(e)) => {
                    audit.error = Some(e.to_string());
                    return Err(e);
                }
                Err(_) => {
                    audit.error = Some("the call's deadline passed".into());
                    return Err(Error::ConnectionTimeout);
                }
            };
            audit.status = Some(response.status().as_u16());
            let limit = limits.max_response_body;
            let response = response.map(|inner| {
                Received {
                    inner,
                    limit,
                    deadline,
                    audit,
                }
                .boxed_unsync()
            });
            let io = async move {
                match tokio::time::timeout_at(deadline, connection).await {
                    Ok(done) => done.map_err(Error::from),
                    Err(_) => Ok(()),
                }
            };
            Ok((
                response,
                Box::new(io) as Box<dyn Future<Output = Result<(), Error>> + Send>,
            ))
        })
    }
}

/// A request body over its limit surfaces as hyper's user-body error.
fn request_error(e: &hyper::Error) -> Error {
    use std::error::Error as _;
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(Error::HttpRequestBodySize(n)) = s.downcast_ref::<Error>() {
            return Error::HttpRequestBodySize(*n);
        }
        source = s.source();
    }
    if e.is_timeout() {
        Error::HttpResponseTimeout
    } else if e.is_incomplete_message() || e.is_closed() {
        Error::HttpResponseIncomplete
    } else {
        Error::HttpProtocolError
    }
}

#[cfg(test)]
mod tests;
