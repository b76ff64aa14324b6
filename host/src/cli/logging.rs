//! Log lines on stderr (text or JSON) and, for `serve`, the trace export.

use anyhow::Context as _;
use mcp_wasm_host::telemetry::trace::Tracing;
use tracing_subscriber::EnvFilter;

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
    .context("invalid log filter")?;
    let Some(traces) = traces else {
        let builder = fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(false);
        match format {
            LogFormat::Text => builder.init(),
            LogFormat::Json => builder.json().init(),
        }
        return Ok(None);
    };
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
    tracing_subscriber::registry()
        .with(lines)
        .with(traces.layer())
        .init();
    Ok(Some(traces))
}
