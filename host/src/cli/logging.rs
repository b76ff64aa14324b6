//! Log lines on stderr (text or JSON) and, for `serve`, the trace export.
//! Whatever `RUST_LOG` asks for, the lines never carry an HTTP session's
//! id ([`names_no_session`]).

use anyhow::Context as _;
use mcp_wasm_host::telemetry::trace::Tracing;
use tracing::Metadata;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::{FilterExt as _, filter_fn};

/// The format of the log lines on stderr.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Starts the log output on stderr, filtered by `RUST_LOG` or else by
/// `filter`, and, for `serve` with an OTLP endpoint, the trace export
/// `traces` (returned, to be shut down at exit).
pub(super) fn init(
    filter: &str,
    format: LogFormat,
    traces: Option<Tracing>,
) -> anyhow::Result<Option<Tracing>> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => EnvFilter::try_new(v),
        _ => EnvFilter::try_new(filter),
    }
    .context("invalid log filter")?
    .and(filter_fn(names_no_session));
    // The log filter applies to the log lines only: the trace layer has
    // its own (this crate's spans), so spans below the log level still
    // reach the traces.
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::{Layer as _, fmt};
    let lines = fmt::layer().with_writer(std::io::stderr).with_ansi(false);
    let lines = match format {
        LogFormat::Text => lines.with_filter(filter).boxed(),
        LogFormat::Json => lines.json().with_filter(filter).boxed(),
    };
    let registry = tracing_subscriber::registry().with(lines);
    match traces {
        Some(traces) => {
            registry.with(traces.layer()).init();
            Ok(Some(traces))
        }
        None => {
            registry.init();
            Ok(None)
        }
    }
}

/// Whether a span or event may reach the log lines: not one of rmcp's that
/// may carry an HTTP session's id, which works as a credential (without
/// OAuth, whoever has it speaks in the session). rmcp puts it in the
/// spans a session's work runs in (`streamable_http_session`'s `id`,
/// `transport_worker`'s `name`: either would prefix each line logged
/// during a call, the audit lines included), so no rmcp span reaches the
/// lines, and in its events' `session_id` field. The host names sessions
/// in its own lines by nothing, or by a hash.
fn names_no_session(meta: &Metadata<'_>) -> bool {
    if !meta.target().starts_with("rmcp") {
        return true;
    }
    !meta.is_span() && meta.fields().field("session_id").is_none()
}
