//! The functions the host provides to a running call.

/// Writing to the server's log.
///
/// Messages are attributed to the plugin and the tool being called. Never log
/// secrets. Outside WebAssembly (in unit tests) messages go to stderr.
///
/// ```
/// use mcp_wasm_sdk::log;
///
/// log::info("starting");
/// log::log(log::Level::Notice, format!("{} items", 3));
/// ```
pub mod log {
    /// The severity of a log message, as in syslog (RFC 5424) and MCP.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Level {
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

    /// Writes `message` to the server's log at `level`.
    pub fn log(level: Level, message: impl AsRef<str>) {
        imp::log(level, message.as_ref());
    }

    /// Writes `message` at level [`Level::Debug`].
    pub fn debug(message: impl AsRef<str>) {
        log(Level::Debug, message);
    }

    /// Writes `message` at level [`Level::Info`].
    pub fn info(message: impl AsRef<str>) {
        log(Level::Info, message);
    }

    /// Writes `message` at level [`Level::Notice`].
    pub fn notice(message: impl AsRef<str>) {
        log(Level::Notice, message);
    }

    /// Writes `message` at level [`Level::Warning`].
    pub fn warn(message: impl AsRef<str>) {
        log(Level::Warning, message);
    }

    /// Writes `message` at level [`Level::Error`].
    pub fn error(message: impl AsRef<str>) {
        log(Level::Error, message);
    }

    #[cfg(target_arch = "wasm32")]
    mod imp {
        use super::Level;
        use crate::__private::bindings::mcp_wasm_host::plugin::{host, types::LogLevel};

        pub(super) fn log(level: Level, message: &str) {
            let level = match level {
                Level::Debug => LogLevel::Debug,
                Level::Info => LogLevel::Info,
                Level::Notice => LogLevel::Notice,
                Level::Warning => LogLevel::Warning,
                Level::Error => LogLevel::Error,
                Level::Critical => LogLevel::Critical,
                Level::Alert => LogLevel::Alert,
                Level::Emergency => LogLevel::Emergency,
            };
            host::log(level, message);
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod imp {
        use super::Level;

        pub(super) fn log(level: Level, message: &str) {
            eprintln!("[{level:?}] {message}");
        }
    }
}

/// Reports how far the current call has got.
///
/// `progress` should increase with each report (the host drops reports that
/// do not); `total` is the value it will reach when done, if known; `message`
/// says what is happening. The host forwards reports to the client only when
/// the client asked for progress. Outside WebAssembly (in unit tests) reports
/// go to stderr.
///
/// ```
/// mcp_wasm_sdk::progress(50.0, Some(100.0), Some("halfway"));
/// ```
pub fn progress(progress: f64, total: Option<f64>, message: Option<&str>) {
    #[cfg(target_arch = "wasm32")]
    crate::__private::bindings::mcp_wasm_host::plugin::host::report_progress(
        progress, total, message,
    );
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("[progress] {progress}/{total:?} {}", message.unwrap_or(""));
}
