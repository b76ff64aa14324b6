//! A call's log messages and progress reports, forwarded to the client that
//! made the call: `notifications/progress` when the request carried a
//! progress token, `notifications/message` at or above the session's logging
//! level. Everything goes through one ordered queue, and [`Forwarder::finish`]
//! waits until all of it is written, so nothing follows the call's response.
//!
//! The call's requests to the client go out on the same connection:
//! `sampling/createMessage` and `elicitation/create`, each only if the client
//! declared the capability, after the notifications queued before it. A
//! request whose call ends first (timeout, cancellation) is cancelled with
//! `notifications/cancelled`.
#![allow(deprecated)] // rmcp marks MCP logging and sampling deprecated (SEP-2577); clients still use them.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{
    CancelledNotificationParam, ClientCapabilities, ClientResult, CreateMessageRequest,
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    RequestId, ServerRequest,
};
use rmcp::service::{Peer, PeerRequestOptions};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::convert;
use crate::runtime::{
    BoxFuture, CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationRequest,
    LogLevel, Progress, SampledMessage, SamplingRequest,
};

/// The least severe level a session is sent: `info` until the client sends
/// `logging/setLevel`.
#[derive(Debug, Clone)]
pub struct SessionLevel(Arc<AtomicU8>);

impl Default for SessionLevel {
    fn default() -> Self {
        SessionLevel(Arc::new(AtomicU8::new(LogLevel::Info as u8)))
    }
}

impl SessionLevel {
    /// Sets the level from `logging/setLevel`.
    pub fn set(&self, level: LoggingLevel) {
        self.0.store(from_mcp(level) as u8, Ordering::Relaxed);
    }

    /// A level for one request only: 2026-07-28 has no `logging/setLevel`;
    /// a request asks for log messages with `_meta`'s
    /// `io.modelcontextprotocol/logLevel`, and without it gets none.
    pub fn for_request(level: Option<LoggingLevel>) -> Self {
        let threshold = level.map_or(u8::MAX, |l| from_mcp(l) as u8);
        SessionLevel(Arc::new(AtomicU8::new(threshold)))
    }

    /// Whether a message at `level` is sent.
    pub fn allows(&self, level: LogLevel) -> bool {
        level as u8 >= self.0.load(Ordering::Relaxed)
    }
}

fn from_mcp(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn to_mcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

#[derive(Debug)]
enum Outgoing {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
    /// Everything queued before it has been written.
    Flushed(oneshot::Sender<()>),
}

/// The [`CallEvents`] of one call: queues notifications for the client and
/// sends the call's requests to it.
#[derive(Debug)]
pub struct Forwarder {
    queue: Mutex<Option<mpsc::UnboundedSender<Outgoing>>>,
    drain: Mutex<Option<JoinHandle<()>>>,
    progress_token: Option<ProgressToken>,
    level: SessionLevel,
    peer: Peer<RoleServer>,
}

impl Forwarder {
    /// Starts the task that writes one call's notifications to `peer`.
    pub fn start(
        peer: Peer<RoleServer>,
        progress_token: Option<ProgressToken>,
        level: SessionLevel,
    ) -> Arc<Forwarder> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let notifier = peer.clone();
        let drain = tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                let sent = match message {
                    Outgoing::Progress(p) => notifier.notify_progress(p).await,
                    Outgoing::Log(m) => notifier.notify_logging_message(m).await,
                    Outgoing::Flushed(done) => {
                        let _ = done.send(());
                        Ok(())
                    }
                };
                if let Err(error) = sent {
                    tracing::debug!(%error, "could not send a call's notification");
                }
            }
        });
        Arc::new(Forwarder {
            queue: Mutex::new(Some(tx)),
            drain: Mutex::new(Some(drain)),
            progress_token,
            level,
            peer,
        })
    }

    /// Closes the queue and waits until everything queued is written.
    pub async fn finish(&self) {
        self.queue.lock().unwrap_or_else(|e| e.into_inner()).take();
        let drain = self.drain.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(drain) = drain {
            let _ = drain.await;
        }
    }

    fn push(&self, message: Outgoing) {
        if let Some(tx) = &*self.queue.lock().unwrap_or_else(|e| e.into_inner()) {
            let _ = tx.send(message);
        }
    }

    /// Waits until the notifications queued so far are written.
    async fn flush(&self) {
        let (done, written) = oneshot::channel();
        self.push(Outgoing::Flushed(done));
        // An error means the queue is closed: nothing is left to write.
        let _ = written.await;
    }

    /// Sends `request` to the client once the queued notifications are
    /// written, and waits for the answer. If this future is dropped first
    /// (the call timed out or was cancelled), the client is told with
    /// `notifications/cancelled`.
    async fn send(&self, request: ServerRequest) -> Result<ClientResult, ClientRequestError> {
        self.flush().await;
        let handle = self
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(convert::request_error)?;
        let mut pending = Pending {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let answer = handle.await_response().await;
        pending.id = None;
        answer.map_err(convert::request_error)
    }
}

/// Cancels a request to the client that is dropped while it waits.
struct Pending {
    peer: Peer<RoleServer>,
    id: Option<RequestId>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        tracing::info!(request = %id, "cancelling the request to the client: its call ended");
        tokio::spawn(async move {
            let param =
                CancelledNotificationParam::new(Some(id), Some("the tool call ended".into()));
            if let Err(error) = peer.notify_cancelled(param).await {
                tracing::debug!(%error, "could not cancel a request to the client");
            }
        });
    }
}

/// Whether the client declared the capability a request of `kind` needs,
/// or the guest's "not supported" error saying what is missing.
pub fn check_capability(
    capabilities: Option<&ClientCapabilities>,
    kind: ClientRequestKind,
) -> Result<(), ClientRequestError> {
    let Some(capabilities) = capabilities else {
        return Err(ClientRequestError::Unsupported(format!(
            "the client declared no capabilities (it made no initialize handshake), so it cannot be sent {kind} requests"
        )));
    };
    let declared = match kind {
        ClientRequestKind::Sampling => capabilities.sampling.is_some(),
        // Form mode: an empty `elicitation` object means form mode only.
        ClientRequestKind::Elicitation => capabilities
            .elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none()),
    };
    if declared {
        Ok(())
    } else if kind == ClientRequestKind::Elicitation && capabilities.elicitation.is_some() {
        Err(ClientRequestError::Unsupported(
            "the client declared the elicitation capability for URL mode only, not form mode"
                .into(),
        ))
    } else {
        Err(ClientRequestError::Unsupported(format!(
            "the client did not declare the {kind} capability"
        )))
    }
}

impl CallEvents for Forwarder {
    fn log(&self, plugin: &str, tool: &str, level: LogLevel, message: &str) {
        if self.level.allows(level) {
            self.push(Outgoing::Log(
                LoggingMessageNotificationParam::new(to_mcp(level), message.into())
                    .with_logger(format!("{plugin}/{tool}")),
            ));
        }
    }

    fn progress(&self, _plugin: &str, _tool: &str, progress: Progress) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut param = ProgressNotificationParam::new(token.clone(), progress.progress);
        param.total = progress.total;
        param.message = progress.message;
        self.push(Outgoing::Progress(param));
    }

    fn create_message(
        &self,
        _plugin: &str,
        _tool: &str,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SampledMessage, ClientRequestError>> {
        Box::pin(async move {
            let info = self.peer.peer_info();
            check_capability(
                info.as_ref().map(|i| &i.capabilities),
                ClientRequestKind::Sampling,
            )?;
            let params = convert::sampling_params(&request).map_err(ClientRequestError::Failed)?;
            let answer = self
                .send(ServerRequest::CreateMessageRequest(
                    CreateMessageRequest::new(params),
                ))
                .await?;
            match answer {
                ClientResult::CreateMessageResult(result) => convert::sampled_message(*result)
                    .map_err(|e| ClientRequestError::Failed(e.to_string())),
                other => Err(ClientRequestError::Failed(format!(
                    "the client's answer is not a sampling result: {}",
                    serde_json::to_string(&other).unwrap_or_default()
                ))),
            }
        })
    }

    fn elicit(
        &self,
        _plugin: &str,
        _tool: &str,
        request: ElicitationRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientRequestError>> {
        Box::pin(async move {
            let info = self.peer.peer_info();
            check_capability(
                info.as_ref().map(|i| &i.capabilities),
                ClientRequestKind::Elicitation,
            )?;
            let answer = self.send(convert::elicitation_request(&request)).await?;
            convert::elicitation(answer).map_err(|e| ClientRequestError::Failed(e.to_string()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEVELS: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    #[test]
    fn levels_round_trip_and_filter() {
        for level in LEVELS {
            assert_eq!(from_mcp(to_mcp(level)), level);
        }
        let session = SessionLevel::default();
        assert!(!session.allows(LogLevel::Debug));
        assert!(session.allows(LogLevel::Info));
        session.set(LoggingLevel::Error);
        assert!(!session.allows(LogLevel::Warning));
        assert!(session.allows(LogLevel::Error) && session.allows(LogLevel::Emergency));
        let silent = SessionLevel::for_request(None);
        assert!(LEVELS.iter().all(|&l| !silent.allows(l)));
        let asked = SessionLevel::for_request(Some(LoggingLevel::Debug));
        assert!(LEVELS.iter().all(|&l| asked.allows(l)));
    }

    #[test]
    fn requests_need_the_declared_capability() {
        let caps = |v: serde_json::Value| serde_json::from_value::<ClientCapabilities>(v).unwrap();
        let sampling = ClientRequestKind::Sampling;
        let elicitation = ClientRequestKind::Elicitation;
        let both = caps(serde_json::json!({"sampling": {}, "elicitation": {}}));
        assert!(check_capability(Some(&both), sampling).is_ok());
        assert!(check_capability(Some(&both), elicitation).is_ok());
        let form = caps(serde_json::json!({"elicitation": {"form": {}, "url": {}}}));
        assert!(check_capability(Some(&form), elicitation).is_ok());
        let message = |c: Option<&ClientCapabilities>, kind| match check_capability(c, kind) {
            Err(ClientRequestError::Unsupported(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            message(Some(&form), sampling),
            "the client did not declare the sampling capability"
        );
        let url = caps(serde_json::json!({"elicitation": {"url": {}}}));
        assert!(message(Some(&url), elicitation).contains("URL mode only"));
        assert!(message(None, sampling).contains("no initialize handshake"));
    }
}
