//! The `mcp-wasm-host` command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use mcp_wasm_host::config::{self, Config, ConfigError};
use mcp_wasm_host::inspect::Report;
use mcp_wasm_host::mcp::{McpServer, ServerOptions, stdio};
use mcp_wasm_host::runtime::{EngineSettings, Policies, Policy, PolicySource, Runtime};
use tracing_subscriber::EnvFilter;

/// Serve MCP tools from sandboxed WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "mcp-wasm-host", version, about)]
struct Cli {
    /// Log filter for stderr (tracing's `RUST_LOG` syntax, e.g. `info` or
    /// `mcp_wasm_host=debug,guest=info`; default `info` for `serve`, `warn`
    /// for `inspect`). `RUST_LOG` overrides it.
    #[arg(long, global = true)]
    log: Option<String>,
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
    /// Report on one plugin file: the WIT world it targets, its tools with
    /// their schemas, the WASI interfaces it imports, and the policy it would
    /// run under. Exits with 1 if the file would not load.
    Inspect(InspectArgs),
}

#[derive(Debug, clap::Args)]
struct InspectArgs {
    /// The plugin component (`*.wasm`).
    file: PathBuf,
    /// The policy file, as for `serve`. Without it, `./mcp-wasm-host.toml`
    /// is used if it exists, and the built-in defaults otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG")]
    config: Option<PathBuf>,
    /// Print one JSON object instead of the human-readable report.
    #[arg(long)]
    json: bool,
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
    let default = match cli.command {
        Command::Serve(_) => "info",
        Command::Inspect(_) => "warn",
    };
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => EnvFilter::try_new(v),
        _ => EnvFilter::try_new(cli.log.as_deref().unwrap_or(default)),
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

/// The policy file: `explicit`, else `./mcp-wasm-host.toml` if it exists,
/// else the built-in defaults.
fn load_config(explicit: Option<&Path>, max_memory: u64) -> Result<Config, ConfigError> {
    let default = Path::new(config::DEFAULT_FILE);
    match explicit {
        Some(path) => Config::load(path, max_memory),
        None if default.is_file() => Config::load(default, max_memory),
        None => Ok(Config::builtin(max_memory)),
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let settings = EngineSettings {
        max_instances: args.max_instances,
        ..EngineSettings::default()
    };
    let max_memory = settings.max_memory_bytes as u64;
    let config = Arc::new(load_config(args.config.as_deref(), max_memory)?);
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

/// Gives every plugin the same error: the policy file did not load.
#[derive(Debug)]
struct BrokenConfig(String);

impl Policies for BrokenConfig {
    fn policy_for(&self, _plugin: &str) -> Result<Policy, String> {
        Err(self.0.clone())
    }
}

/// Inspects one file and prints the report to stdout. A policy file that
/// does not load is reported like any other reason the plugin would not.
async fn inspect(args: InspectArgs) -> anyhow::Result<ExitCode> {
    let settings = EngineSettings {
        // One throwaway instance lists the tools.
        max_instances: 2,
        ..EngineSettings::default()
    };
    let (policies, config_file): (PolicySource, Option<PathBuf>) =
        match load_config(args.config.as_deref(), settings.max_memory_bytes as u64) {
            Ok(config) => {
                let file = (!config.is_builtin()).then(|| config.path().to_owned());
                (Arc::new(config), file)
            }
            Err(e) => (Arc::new(BrokenConfig(e.to_string())), None),
        };
    let runtime = Runtime::new(&settings, policies)?;
    let inspection = runtime.inspect(&args.file).await;
    let report = Report::new(&inspection, config_file.as_deref());
    report.write(args.json, &mut std::io::stdout().lock())?;
    Ok(ExitCode::from(report.exit_code()))
}

fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    init_logging(&cli)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    match cli.command {
        Command::Serve(args) => rt.block_on(serve(args)).map(|()| ExitCode::SUCCESS),
        Command::Inspect(args) => rt.block_on(inspect(args)),
    }
}
