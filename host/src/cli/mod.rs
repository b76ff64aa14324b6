//! The command line: the clap types of `mcp-wasm-host` and the dispatch to
//! one module per subcommand.

mod check;
mod inspect;
mod keygen;
mod logging;
mod new;
mod plugins_dir;
mod pull;
mod push;
mod serve;
mod shared;
mod sign;

use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use mcp_wasm_host::scaffold::NewArgs;
use mcp_wasm_host::telemetry::trace::Tracing;

pub use check::CheckArgs;
pub use inspect::InspectArgs;
pub use keygen::KeygenArgs;
pub use logging::LogFormat;
pub use pull::PullArgs;
pub use push::PushArgs;
pub use serve::ServeArgs;
pub use sign::SignArgs;

/// Serve MCP tools from sandboxed WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "mcp-wasm-host", version, about)]
pub struct Cli {
    /// Log filter for stderr (tracing's `RUST_LOG` syntax, e.g. `info` or
    /// `mcp_wasm_host=debug,guest=info`; default `info` for `serve` (with
    /// `rmcp::service=warn` under `--stateless`), `warn` for `inspect`).
    /// `RUST_LOG` overrides it.
    #[arg(long, global = true)]
    pub log: Option<String>,
    /// Log line format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load every `*.wasm` component in the plugins directory and serve its
    /// tools over MCP on stdin/stdout, or over Streamable HTTP with `--http`.
    Serve(Box<ServeArgs>),
    /// Report on one plugin file: the WIT world it targets, its tools with
    /// their schemas, the WASI interfaces it imports, and the policy it would
    /// run under. Exits with 1 if the file would not load.
    Inspect(InspectArgs),
    /// Load every `*.wasm` component in a directory the way `serve` does,
    /// print one line per file (`ok` with its tool count, or `FAIL` and why,
    /// name collisions included), and exit with 1 if any fails.
    Check(CheckArgs),
    /// Write a new plugin project in NAME/ (or DIR/NAME/): a tool, its
    /// build, a test that calls it through the host, and a README that says
    /// how to build, test and serve it. The project uses the SDK of an
    /// mcp-wasm-host checkout (`--sdk`). Exits with 66 when there is no SDK
    /// checkout, 73 when the directory is not empty, 74 when writing fails.
    New(NewArgs),
    /// Fetch a plugin from an OCI registry (`oci://REGISTRY/REPO:TAG` or
    /// `oci://REGISTRY/REPO@sha256:HEX`) or a URL (with `--sha256`),
    /// check its digests (and its signature with `--key`), and write it to
    /// DIR/NAME.wasm.
    Pull(PullArgs),
    /// Publish a component to an OCI registry in the wasm artifact layout
    /// (config `application/vnd.wasm.config.v0+json`, one `application/wasm`
    /// layer) and print its manifest digest.
    Push(PushArgs),
    /// Sign the manifest a reference resolves to with a P-256 private key
    /// (PKCS#8 PEM) and push the signature as cosign does (`sha256-HEX.sig`).
    Sign(SignArgs),
    /// Write a new P-256 key pair for `sign`: PREFIX.key (PKCS#8 PEM, mode
    /// 0600) and PREFIX.pub (SPKI PEM, as cosign.pub, for `signature_keys`).
    Keygen(KeygenArgs),
}

/// Parses the command line, starts logging and runs the subcommand.
pub fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    let (default_filter, traces) = match &cli.command {
        Command::Serve(args) => (
            args.default_log_filter(),
            Tracing::from_config(args.telemetry.otlp_endpoint.as_deref())?,
        ),
        Command::Inspect(_)
        | Command::Check(_)
        | Command::New(_)
        | Command::Pull(_)
        | Command::Push(_)
        | Command::Sign(_)
        | Command::Keygen(_) => ("warn", None),
    };
    let traces = logging::init(
        cli.log.as_deref().unwrap_or(default_filter),
        cli.log_format,
        traces,
    )?;
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")
    };
    match cli.command {
        Command::Serve(args) => {
            let runtime = runtime()?;
            let served = runtime.block_on(serve::run(*args));
            // Work still on the blocking pool (a background compile that
            // would replace a plugin's quick code) is abandoned, not
            // awaited: the cache stores its entries atomically.
            runtime.shutdown_background();
            // What the spans of the last calls hold is exported before exit.
            if let Some(traces) = traces {
                traces.shutdown();
            }
            served.map(|()| ExitCode::SUCCESS)
        }
        Command::Inspect(args) => runtime()?.block_on(inspect::run(args)),
        Command::Check(args) => runtime()?.block_on(check::run(args)),
        Command::New(args) => Ok(new::run(&args)),
        Command::Pull(args) => runtime()?.block_on(pull::run(args)),
        Command::Push(args) => runtime()?.block_on(push::run(args)),
        Command::Sign(args) => runtime()?.block_on(sign::run(args)),
        Command::Keygen(args) => keygen::run(&args),
    }
}
