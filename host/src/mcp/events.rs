//! A call's log messages and progress reports, forwarded to the client that
//! made the call: `notifications/progress` when the request carried a
//! progress token, `notifications/message` at or above the session's logging
//! level. Everything goes through one ordered queue, and [`Forwarder::finish`]
//! waits until all of it is written, so nothing follows the call's response.
#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); clients still use it.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::Peer;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::runtime::{CallEvents, LogLevel, Progress};

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
}

/// The [`CallEvents`] of one call: queues notifications for the client.
#[derive(Debug)]
pub struct Forwarder {
    queue: Mutex<Option<mpsc::UnboundedSender<Outgoing>>>,
    drain: Mutex<Option<JoinHandle<()>>>,
    progress_token: Option<ProgressToken>,
    level: SessionLevel,
}

impl Forwarder {
    /// Starts the task that writes one call's notifications to `peer`.
    pub fn start(
        peer: Peer<RoleServer>,
        progress_token: Option<ProgressToken>,
        level: SessionLevel,
    ) -> Arc<Forwarder> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let drain = tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                let sent = match message {
                    Outgoing::Progress(p) => peer.notify_progress(p).await,
                    Outgoing::Log(m) => peer.notify_logging_message(m).await,
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
    }
}
