//! The `mcp-wasm-host` command line.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use mcp_wasm_host::config::{self, Config};
use mcp_wasm_host::mcp::{McpServer, ServerOptions, stdio};
use mcp_wasm_host::runtime::{EngineSettings, Runtime};
use tracing_subscriber::EnvFilter;

/// Serve MCP tools from sandboxed WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "mcp-wasm-host", version, about)]
struct Cli {
    /// Log filter for stderr (tracing's `RUST_LOG` syntax, e.g. `info` or
    /// `mcp_wasm_host=debug,guest=info`). `RUST_LOG` overrides it.
    #[arg(long, global = true, default_value = "info")]
    log: String,
    /// Log line format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load every `*.wasm` component in the plugins directory and serve its
    /// tools over MCP on stdin/stdout.
    Serve(ServeArgs),
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// The directory of plugin components.
    #[arg(long, default_value = "plugins", env = "MCP_WASM_HOST_PLUGINS")]
    plugins: PathBuf,
    /// The policy file. Without it, `./mcp-wasm-host.toml` is used if it
    /// exists, and the built-in defaults (no capabilities) otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG")]
    config: Option<PathBuf>,
    /// The most tools one `tools/list` page holds.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    page_size: u32,
    /// How many calls may run at once across all plugins (instances kept in
    /// the pooling allocator).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    max_instances: u32,
}

fn init_logging(cli: &Cli) -> anyhow::Result<()> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => EnvFilter::try_new(v),
        _ => EnvFilter::try_new(&cli.log),
    }
    .context("invalid log filter")?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false);
    match cli.log_format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
    Ok(())
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let settings = EngineSettings {
        max_instances: args.max_instances,
        ..EngineSettings::default()
    };
    let max_memory = settings.max_memory_bytes as u64;
    let config = match &args.config {
        Some(path) => Config::load(path, max_memory)?,
        None if std::path::Path::new(config::DEFAULT_FILE).is_file() => {
            Config::load(std::path::Path::new(config::DEFAULT_FILE), max_memory)?
        }
        None => Config::builtin(max_memory),
    };
    let config = Arc::new(config);
    let runtime = Arc::new(Runtime::new(&settings, config.clone())?);
    let report = runtime
        .load_dir(&args.plugins)
        .await
        .with_context(|| format!("cannot load plugins from {}", args.plugins.display()))?;
    for failure in &report.failed {
        tracing::error!("skipped plugin: {failure}");
    }
    for skipped in &report.skipped_tools {
        tracing::warn!("{skipped}");
    }
    for section in config.unused_sections(&report.loaded) {
        tracing::warn!(
            "{}: [plugins.{section}] matches no loaded plugin",
            config.path().display()
        );
    }
    let catalog = runtime.catalog();
    tracing::info!(
        plugins = report.loaded.len(),
        failed = report.failed.len(),
        tools = catalog.tools().len(),
        dir = %args.plugins.display(),
        "serving over stdio"
    );
    let server = McpServer::new(
        runtime,
        ServerOptions {
            page_size: args.page_size as usize,
        },
    );
    stdio::serve(server).await?;
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    init_logging(&cli)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    match cli.command {
        Command::Serve(args) => rt.block_on(serve(args)),
    }
}
