//! What a running call reports while it runs: log lines and progress.
//!
//! The runtime always writes these to the server log; a transport may also
//! forward them to the client by passing its own [`CallEvents`].

use std::fmt;

/// Severity of a guest's log message (the eight syslog levels MCP uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        })
    }
}

/// One progress report from a guest. The runtime only passes on reports whose
/// `progress` is greater than the previous one of the same call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far the call has got.
    pub progress: f64,
    /// The value `progress` reaches when the call is done, if known.
    pub total: Option<f64>,
    /// What is happening now.
    pub message: Option<String>,
}

/// Receives what a call reports while it runs. Implementations must be cheap
/// and must not block: they are called from inside the guest's execution.
pub trait CallEvents: Send + Sync {
    /// A log message from the guest.
    fn log(&self, plugin: &str, tool: &str, level: LogLevel, message: &str);
    /// A progress report from the guest.
    fn progress(&self, plugin: &str, tool: &str, progress: Progress);
}

/// Forwards nothing: the runtime's own tracing output is all there is.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl CallEvents for NoEvents {
    fn log(&self, _: &str, _: &str, _: LogLevel, _: &str) {}
    fn progress(&self, _: &str, _: &str, _: Progress) {}
}
