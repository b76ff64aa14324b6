//! Log lines on stderr (text or JSON) and, for `serve`, the trace export.

use anyhow::Context as _;
use mcp_wasm_host::telemetry::trace::Tracing;
use tracing_subscriber::EnvFilter;

use super::{Cli, Command, LogFormat};

/// Starts the log output on stderr and, for `serve` with an OTLP endpoint,
/// the trace export (returned, to be shut down at exit).
pub(super) fn init(cli: &Cli) -> anyhow::Result<Option<Tracing>> {
    let default = match &cli.command {
        Command::Serve(args) => args.default_log_filter(),
        Command::Inspect(_)
        | Command::Check(_)
        | Command::New(_)
        | Command::Pull(_)
        | Command::Push(_)
        | Command::Sign(_)
        | Command::Keygen(_) => "warn",
    };
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => EnvFilter::try_new(v),
        _ => EnvFilter::try_new(cli.log.as_deref().unwrap_or(default)),
    }
    .context("invalid log filter")?;
    let traces = match &cli.command {
        Command::Serve(args) => Tracing::from_config(args.telemetry.otlp_endpoint.as_deref())?,
        _ => None,
    };
    let Some(traces) = traces else {
        let builder = fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(false);
        match cli.log_format {
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
    let lines = match cli.log_format {
        LogFormat::Text => lines.with_filter(filter).boxed(),
        LogFormat::Json => lines.json().with_filter(filter).boxed(),
    };
    tracing_subscriber::registry()
        .with(lines)
        .with(traces.layer())
        .init();
    Ok(Some(traces))
}
