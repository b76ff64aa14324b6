//! A call's log messages and progress reports, forwarded to the client that
//! made the call: `notifications/progress` when the request carried a
//! progress token, `notifications/message` at or above the session's logging
//! level. Everything goes through one ordered queue per call, bounded (see
//! [`Forwarder`]: a flood of log messages is dropped and counted, progress
//! reports coalesce), and [`Forwarder::finish`] waits until all of it is
//! written, so nothing follows the call's response, but never longer than
//! [`FLUSH_GRACE`].
//!
//! The call's requests to the client go out on the same connection:
//! `sampling/createMessage`, `elicitation/create` and `roots/list`, each only if the client
//! declared the capability, after the notifications queued before it. A
//! request whose call ends first (timeout, cancellation) is cancelled with
//! `notifications/cancelled`.
#![allow(deprecated)] // rmcp marks MCP logging and sampling deprecated (SEP-2577); clients still use them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CancelledNotificationParam, ClientResult, CreateMessageRequest, ListRootsRequest, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, RequestId,
    ServerRequest,
};
use rmcp::service::{Peer, PeerRequestOptions};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

use super::requests::{self, check_capability};
use crate::runtime::{
    BoxFuture, CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationRequest,
    LogLevel, Progress, RequestAt, Root, SampledMessage, SamplingRequest,
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

/// The most notifications one call may have waiting to be written; past
/// it, log messages are dropped and counted and progress reports replace the
/// newest one waiting (see [`Forwarder`]).
pub const MAX_QUEUED: usize = 256;

/// The most bytes of messages one call may have waiting to be written.
pub const MAX_QUEUED_BYTES: usize = 1 << 20;

/// How long a call's response waits, after the call ended, for its queued
/// notifications to be written; what is left then is dropped.
pub const FLUSH_GRACE: Duration = Duration::from_secs(1);

#[derive(Debug)]
enum Outgoing {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
    /// This many log messages were dropped here: the queue was full.
    Dropped(u64),
    /// Everything queued before it has been written.
    Flushed(oneshot::Sender<()>),
}

/// A call's notifications waiting to be written, bounded: at most
/// [`MAX_QUEUED`] messages of at most [`MAX_QUEUED_BYTES`] in all. When it is
/// full, a log message is dropped and counted where it was dropped, and a
/// progress report replaces the newest report waiting (only the newest
/// matters), so the client still sees progress rise to its last value.
#[derive(Debug, Default)]
struct Queue {
    items: VecDeque<Outgoing>,
    messages: usize,
    bytes: usize,
    closed: bool,
}

impl Queue {
    fn is_full(&self, size: usize) -> bool {
        self.messages >= MAX_QUEUED || self.bytes + size > MAX_QUEUED_BYTES
    }

    fn push_log(&mut self, message: LoggingMessageNotificationParam) {
        let size = log_size(&message);
        if self.is_full(size) {
            match self.items.back_mut() {
                Some(Outgoing::Dropped(n)) => *n += 1,
                _ => self.items.push_back(Outgoing::Dropped(1)),
            }
            return;
        }
        self.messages += 1;
        self.bytes += size;
        self.items.push_back(Outgoing::Log(message));
    }

    fn push_progress(&mut self, param: ProgressNotificationParam) {
        let size = progress_size(&param);
        if self.is_full(size) {
            let newest = self.items.iter_mut().rev().find_map(|item| match item {
                Outgoing::Progress(p) => Some(p),
                _ => None,
            });
            if let Some(newest) = newest {
                self.bytes = self.bytes - progress_size(newest) + size;
                *newest = param;
                return;
            }
        }
        self.messages += 1;
        self.bytes += size;
        self.items.push_back(Outgoing::Progress(param));
    }

    /// The next notification to write.
    fn pop(&mut self) -> Option<Outgoing> {
        let next = self.items.pop_front()?;
        let size = match &next {
            Outgoing::Progress(p) => progress_size(p),
            Outgoing::Log(m) => log_size(m),
            Outgoing::Dropped(_) | Outgoing::Flushed(_) => return Some(next),
        };
        self.messages -= 1;
        self.bytes -= size;
        Some(next)
    }
}

fn log_size(message: &LoggingMessageNotificationParam) -> usize {
    message.data.as_str().map_or(0, str::len) + message.logger.as_ref().map_or(0, String::len)
}

fn progress_size(param: &ProgressNotificationParam) -> usize {
    param.message.as_ref().map_or(0, String::len)
}

/// What a call's [`Forwarder`] and the task that writes its queue share.
#[derive(Debug, Default)]
struct Shared {
    queue: Mutex<Queue>,
    wake: Notify,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_one();
    }

    /// The next queued notification, waiting for one; `None` once the
    /// queue is closed and empty.
    async fn next(&self) -> Option<Outgoing> {
        loop {
            let notified = self.wake.notified();
            {
                let mut queue = self.lock();
                if let Some(next) = queue.pop() {
                    return Some(next);
                }
                if queue.closed {
                    return None;
                }
            }
            notified.await;
        }
    }
}

/// Writes a call's queued notifications in order until the queue closes.
async fn drain(shared: Arc<Shared>, peer: Peer<RoleServer>, level: SessionLevel) {
    while let Some(next) = shared.next().await {
        let sent = match next {
            Outgoing::Progress(p) => peer.notify_progress(p).await,
            Outgoing::Log(m) => peer.notify_logging_message(m).await,
            Outgoing::Dropped(n) if level.allows(LogLevel::Warning) => {
                let message = format!(
                    "{n} log messages of this call were dropped: it wrote them faster than they could be sent"
                );
                let param =
                    LoggingMessageNotificationParam::new(LoggingLevel::Warning, message.into())
                        .with_logger("mcp-wasm-host");
                peer.notify_logging_message(param).await
            }
            Outgoing::Dropped(_) => Ok(()),
            Outgoing::Flushed(done) => {
                let _ = done.send(());
                Ok(())
            }
        };
        if let Err(error) = sent {
            tracing::debug!(%error, "could not send a call's notification");
        }
    }
}

/// The [`CallEvents`] of one call: queues notifications for the client and
/// sends the call's requests to it.
///
/// The guest never waits for the client: a report is queued at once, and a
/// full queue drops log messages (the client then gets one `warning` saying
/// how many) and keeps only the newest progress report. A task started with
/// the first notification writes the queue in order.
#[derive(Debug)]
pub struct Forwarder {
    shared: Arc<Shared>,
    drain: Mutex<Option<JoinHandle<()>>>,
    progress_token: Option<ProgressToken>,
    level: SessionLevel,
    peer: Peer<RoleServer>,
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        // The drain task writes what is queued, then ends.
        self.shared.close();
    }
}

impl Forwarder {
    /// A forwarder for one call's notifications to `peer`.
    pub fn start(
        peer: Peer<RoleServer>,
        progress_token: Option<ProgressToken>,
        level: SessionLevel,
    ) -> Arc<Forwarder> {
        Arc::new(Forwarder {
            shared: Arc::default(),
            drain: Mutex::new(None),
            progress_token,
            level,
            peer,
        })
    }

    /// Closes the queue and waits until everything queued is written, but
    /// no longer than [`FLUSH_GRACE`]: a client that does not read its
    /// notifications cannot hold the call's response back.
    pub async fn finish(&self) {
        self.shared.close();
        let drain = self.drain.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(mut drain) = drain else { return };
        if tokio::time::timeout(FLUSH_GRACE, &mut drain).await.is_err() {
            drain.abort();
            let left = self.shared.lock().items.len();
            tracing::warn!(
                left,
                "the client did not read a call's notifications within {FLUSH_GRACE:?}; the rest were dropped"
            );
        }
    }

    /// Queues with `push` and makes sure the drain task runs.
    fn push(&self, push: impl FnOnce(&mut Queue)) {
        {
            let mut queue = self.shared.lock();
            if queue.closed {
                return;
            }
            push(&mut queue);
        }
        let mut task = self.drain.lock().unwrap_or_else(|e| e.into_inner());
        if task.is_none() {
            *task = Some(tokio::spawn(drain(
                self.shared.clone(),
                self.peer.clone(),
                self.level.clone(),
            )));
        }
        drop(task);
        self.shared.wake.notify_one();
    }

    /// Waits until the notifications queued so far are written.
    async fn flush(&self) {
        let (done, written) = oneshot::channel();
        self.push(|queue| queue.items.push_back(Outgoing::Flushed(done)));
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
            .map_err(requests::request_error)?;
        let mut pending = Pending {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let answer = handle.await_response().await;
        pending.id = None;
        answer.map_err(requests::request_error)
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

impl CallEvents for Forwarder {
    fn log(&self, plugin: &str, tool: &str, level: LogLevel, message: &str) {
        if self.level.allows(level) {
            let message = LoggingMessageNotificationParam::new(to_mcp(level), message.into())
                .with_logger(format!("{plugin}/{tool}"));
            self.push(|queue| queue.push_log(message));
        }
    }

    fn progress(&self, _plugin: &str, _tool: &str, progress: Progress) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut param = ProgressNotificationParam::new(token.clone(), progress.progress);
        param.total = progress.total;
        param.message = progress.message;
        self.push(|queue| queue.push_progress(param));
    }

    fn create_message(
        &self,
        _at: RequestAt<'_>,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SampledMessage, ClientRequestError>> {
        Box::pin(async move {
            let info = self.peer.peer_info();
            check_capability(
                info.as_ref().map(|i| &i.capabilities),
                ClientRequestKind::Sampling,
            )?;
            let params = requests::sampling_params(&request)
                .map_err(|e| ClientRequestError::Failed(e.to_string()))?;
            let answer = self
                .send(ServerRequest::CreateMessageRequest(
                    CreateMessageRequest::new(params),
                ))
                .await?;
            match answer {
                ClientResult::CreateMessageResult(result) => requests::sampled_message(*result)
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
        _at: RequestAt<'_>,
        request: ElicitationRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientRequestError>> {
        Box::pin(async move {
            let info = self.peer.peer_info();
            check_capability(
                info.as_ref().map(|i| &i.capabilities),
                ClientRequestKind::Elicitation,
            )?;
            let answer = self.send(requests::elicitation_request(&request)).await?;
            requests::elicitation(answer).map_err(|e| ClientRequestError::Failed(e.to_string()))
        })
    }

    fn list_roots(
        &self,
        _at: RequestAt<'_>,
    ) -> BoxFuture<'_, Result<Vec<Root>, ClientRequestError>> {
        Box::pin(async move {
            let info = self.peer.peer_info();
            check_capability(
                info.as_ref().map(|i| &i.capabilities),
                ClientRequestKind::Roots,
            )?;
            let answer = self
                .send(ServerRequest::ListRootsRequest(ListRootsRequest::default()))
                .await?;
            match answer {
                ClientResult::ListRootsResult(result) => Ok(requests::roots(result)),
                other => Err(ClientRequestError::Failed(format!(
                    "the client's answer is not a roots list: {}",
                    serde_json::to_string(&other).unwrap_or_default()
                ))),
            }
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

    fn log(text: &str) -> LoggingMessageNotificationParam {
        LoggingMessageNotificationParam::new(LoggingLevel::Info, text.into())
    }

    fn progress(value: f64) -> ProgressNotificationParam {
        let token = ProgressToken(rmcp::model::NumberOrString::Number(1));
        ProgressNotificationParam::new(token, value)
    }

    fn drained(queue: &mut Queue) -> Vec<String> {
        std::iter::from_fn(|| queue.pop())
            .map(|next| match next {
                Outgoing::Progress(p) => format!("progress {}", p.progress),
                Outgoing::Log(m) => format!("log {}", m.data.as_str().unwrap_or_default()),
                Outgoing::Dropped(n) => format!("dropped {n}"),
                Outgoing::Flushed(_) => "flushed".into(),
            })
            .collect()
    }

    #[test]
    fn everything_is_kept_in_order_while_the_queue_has_room() {
        let mut queue = Queue::default();
        queue.push_log(log("a"));
        queue.push_progress(progress(1.0));
        queue.push_log(log("b"));
        queue.push_progress(progress(2.0));
        assert_eq!(
            drained(&mut queue),
            ["log a", "progress 1", "log b", "progress 2"]
        );
        assert_eq!((queue.messages, queue.bytes), (0, 0));
    }

    #[test]
    fn a_full_queue_drops_log_messages_and_counts_them_where_they_were_dropped() {
        let mut queue = Queue::default();
        for i in 0..MAX_QUEUED + 5 {
            queue.push_log(log(&i.to_string()));
        }
        assert_eq!(queue.items.len(), MAX_QUEUED + 1);
        assert!(matches!(queue.pop(), Some(Outgoing::Log(_))));
        queue.push_log(log("after"));
        let rest = drained(&mut queue);
        assert_eq!(rest.len(), MAX_QUEUED + 1);
        assert_eq!(rest[rest.len() - 2], "dropped 5");
        assert_eq!(rest[rest.len() - 1], "log after");
        assert_eq!((queue.messages, queue.bytes), (0, 0));
    }

    #[test]
    fn the_queue_holds_a_bounded_number_of_bytes() {
        let mut queue = Queue::default();
        let big = "x".repeat(16 * 1024);
        for _ in 0..1000 {
            queue.push_log(log(&big));
        }
        assert!(queue.bytes <= MAX_QUEUED_BYTES);
        assert_eq!(queue.messages, MAX_QUEUED_BYTES / big.len());
        assert!(matches!(queue.items.back(), Some(Outgoing::Dropped(_))));
    }

    #[test]
    fn a_full_queue_replaces_the_newest_progress_report_so_progress_still_rises() {
        let mut queue = Queue::default();
        for i in 1..=100_000 {
            queue.push_progress(progress(f64::from(i)));
            if i % 1000 == 0 {
                queue.push_log(log("tick"));
            }
        }
        assert!(queue.items.len() <= MAX_QUEUED + 1);
        let values: Vec<f64> = std::iter::from_fn(|| queue.pop())
            .filter_map(|next| match next {
                Outgoing::Progress(p) => Some(p.progress),
                _ => None,
            })
            .collect();
        assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
        assert_eq!(values.last(), Some(&100_000.0));
    }
}
