//! Log lines on stderr (text or JSON) and, for `serve`, the trace export.
//! Whatever `RUST_LOG` asks for, the lines never carry an HTTP session's
//! id ([`names_no_session`]), and records of the `log` facade that no
//! line would show are dropped where they are made ([`log_level`]).

use anyhow::Context as _;
use mcp_wasm_host::telemetry::trace::Tracing;
use tracing::Metadata;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::{FilterExt as _, LevelFilter, filter_fn};

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
    let text = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => v,
        _ => filter.to_owned(),
    };
    let filter = EnvFilter::try_new(&text).context("invalid log filter")?;
    let records = log_level(&text);
    // The session filter takes spans and events of every level: the
    // lines' level stays the `RUST_LOG` filter's.
    let filter = filter.and(filter_fn(names_no_session).with_max_level_hint(LevelFilter::TRACE));
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
    let traces = match traces {
        Some(traces) => {
            registry.with(traces.layer()).init();
            Some(traces)
        }
        None => {
            registry.init();
            None
        }
    };
    log::set_max_level(records);
    Ok(traces)
}

/// The level of `log` records to hand over at all, from the log filter's
/// text: the highest level its directives give any target but this
/// project's crates, which log through `tracing` only. Records of the
/// `log` facade (wasmtime's and Cranelift's; Cranelift logs at `debug` and
/// `trace` for every function it compiles) become events, and only the
/// lines take events (the trace export takes this crate's spans). `init`
/// would set it to the whole subscriber's level, which the trace export's
/// filter and the session filter leave at `trace`, and a directive such
/// as `mcp_wasm_host_runtime=debug` raised it for every crate: each record
/// was then built and filtered one by one, most of the CPU time of a
/// plugin's compile in a debug build.
fn log_level(filter: &str) -> log::LevelFilter {
    let level = |name: &str| -> Option<log::LevelFilter> {
        match name.trim().to_ascii_lowercase().as_str() {
            "off" => Some(log::LevelFilter::Off),
            "error" | "1" => Some(log::LevelFilter::Error),
            "warn" | "2" => Some(log::LevelFilter::Warn),
            "info" | "3" => Some(log::LevelFilter::Info),
            "debug" | "4" => Some(log::LevelFilter::Debug),
            "trace" | "5" => Some(log::LevelFilter::Trace),
            _ => None,
        }
    };
    let ours = |target: &str| target.trim().starts_with("mcp_wasm_host") && !target.contains('[');
    filter
        .split(',')
        .filter(|directive| !directive.trim().is_empty())
        .filter_map(|directive| match directive.rsplit_once('=') {
            Some((target, _)) if ours(target) => None,
            // A level this parser does not know: let everything through.
            Some((_, name)) => Some(level(name).unwrap_or(log::LevelFilter::Trace)),
            None => match level(directive) {
                Some(level) => Some(level),
                // A bare target: all its levels.
                None if ours(directive) => None,
                None => Some(log::LevelFilter::Trace),
            },
        })
        .max()
        .unwrap_or(log::LevelFilter::Off)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_records_are_handed_over_up_to_the_level_other_crates_get() {
        assert_eq!(log_level("info"), log::LevelFilter::Info);
        assert_eq!(
            log_level("warn,mcp_wasm_host=debug"),
            log::LevelFilter::Warn
        );
        assert_eq!(
            log_level("info,mcp_wasm_host_runtime=debug"),
            log::LevelFilter::Info
        );
        assert_eq!(log_level("mcp_wasm_host=trace"), log::LevelFilter::Off);
        assert_eq!(
            log_level("info,cranelift_codegen=trace"),
            log::LevelFilter::Trace
        );
        assert_eq!(log_level("wasmtime"), log::LevelFilter::Trace);
        assert_eq!(log_level("mcp_wasm_host"), log::LevelFilter::Off);
        assert_eq!(log_level("[call{plugin=x}]=debug"), log::LevelFilter::Debug);
        assert_eq!(log_level("OFF"), log::LevelFilter::Off);
        assert_eq!(log_level("error,hyper=4"), log::LevelFilter::Debug);
        // Every filter `init` accepts is read without a panic.
        for text in ["", ",", "=", "a=b=c", "info,,debug"] {
            let _ = log_level(text);
        }
    }
}
