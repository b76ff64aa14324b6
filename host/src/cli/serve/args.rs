//! `serve`'s command line: the clap types of its options (HTTP, telemetry,
//! requests to the client, loading), and what they mean for the server.

use std::path::{Path, PathBuf};

use mcp_wasm_host::mcp::oauth::bearer::BearerToken;
use mcp_wasm_host::mcp::protocol::{Rounds, StateKeyError};
use mcp_wasm_host::mcp::transport::http::HttpOptions;
use mcp_wasm_host::runtime::{FirstLists, QuickCompile};

use super::super::shared::{CacheArgs, parse_http_addr};

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The directory of plugin components.
    #[arg(long, default_value = "plugins", env = "MCP_WASM_HOST_PLUGINS")]
    pub(crate) plugins: PathBuf,
    /// The policy file. Without it (or with an empty value, as a client
    /// passes an unset setting), `./mcp-wasm-host.toml` is used if it exists,
    /// and the built-in defaults (no capabilities) otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG", value_parser = path_or_empty)]
    pub(crate) config: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) cache: CacheArgs,
    /// Where the embedded state store keeps its file, `store.redb` (the
    /// plugins' `wasi:keyvalue` buckets): default
    /// `$XDG_STATE_HOME/mcp-wasm-host` or `~/.local/state/mcp-wasm-host`.
    /// Created with mode 0700 when the first plugin uses a bucket. Unused
    /// when `[server] store` is a Redis server.
    #[arg(long, env = "MCP_WASM_HOST_STATE_DIR", value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,
    /// The most tools one `tools/list` page holds.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub(crate) page_size: u32,
    /// How many calls may run at once across all plugins (instances kept in
    /// the pooling allocator).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub(crate) max_instances: u32,
    /// Do not watch the plugins directory and the policy file: the plugins
    /// loaded at start are served until the server exits.
    #[arg(long)]
    pub(crate) no_watch: bool,
    /// How long `tools/list` (and the other lists) wait for the first
    /// load: `uncached` (the default) waits only for the plugins with no
    /// cached tool list, so a warm start answers at once (many clients list
    /// once and ignore `list_changed`); `true` waits until every plugin has
    /// loaded or failed; `false` answers at once: plugins still compiling
    /// are listed from their cached tool lists, or appear with
    /// `list_changed` when they are ready.
    #[arg(
        long,
        env = "MCP_WASM_HOST_WAIT_FOR_LOAD",
        value_enum,
        ignore_case = true,
        num_args = 0..=1,
        default_value_t = WaitForLoad::Uncached,
        default_missing_value = "true",
        require_equals = true
    )]
    pub(crate) wait_for_load: WaitForLoad,
    /// Which plugins new to the compile cache are compiled by Winch first
    /// (several times faster than Cranelift, its code about half as fast),
    /// served at once, and replaced by Cranelift's code compiled in the
    /// background: `large` (the default: components of 4 MiB or more, such
    /// as Python, JavaScript and Go interpreters), `always` or `never`.
    #[arg(
        long,
        env = "MCP_WASM_HOST_QUICK_COMPILE",
        value_enum,
        ignore_case = true,
        default_value_t = QuickCompileArg::Large
    )]
    pub(crate) quick_compile: QuickCompileArg,
    /// Serve only what the policy file's `[profiles.NAME]` admits: to the
    /// stdio client, and at `/mcp` under `--http` (each profile is also at
    /// `/mcp/NAME`). An unknown name stops the server, listing the known
    /// ones.
    #[arg(long, env = "MCP_WASM_HOST_PROFILE", value_name = "NAME")]
    pub(crate) profile: Option<String>,
    #[command(flatten)]
    pub(crate) rounds: RoundsArgs,
    #[command(flatten)]
    pub(crate) http: HttpArgs,
    #[command(flatten)]
    pub telemetry: TelemetryArgs,
}

/// What `--wait-for-load` says lists wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WaitForLoad {
    /// Every plugin loaded or failed.
    #[value(name = "true", aliases = ["1", "yes", "on"])]
    All,
    /// The plugins with no cached tool list loaded or failed.
    Uncached,
    /// Nothing: the cached tool lists are listed at once.
    #[value(name = "false", aliases = ["0", "no", "off"])]
    Nothing,
}

impl WaitForLoad {
    pub(crate) fn lists_after(self) -> FirstLists {
        match self {
            WaitForLoad::All => FirstLists::Loaded,
            WaitForLoad::Uncached => FirstLists::EveryPlugin,
            WaitForLoad::Nothing => FirstLists::Cached,
        }
    }
}

/// What `--quick-compile` says is compiled by Winch first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QuickCompileArg {
    /// Components of 4 MiB or more.
    Large,
    /// Every component.
    Always,
    /// None: Cranelift compiles every plugin before it serves.
    Never,
}

impl From<QuickCompileArg> for QuickCompile {
    fn from(arg: QuickCompileArg) -> Self {
        match arg {
            QuickCompileArg::Large => QuickCompile::Large,
            QuickCompileArg::Always => QuickCompile::Always,
            QuickCompileArg::Never => QuickCompile::Never,
        }
    }
}

/// Metrics, health checks and shutdown.
#[derive(Debug, clap::Args)]
pub struct TelemetryArgs {
    /// Serve `/metrics`, `/healthz` and `/readyz` on their own listener at
    /// ADDR (`IP:PORT`, `localhost:PORT` or `PORT`), without the bearer
    /// token, in stdio mode too. Without it, `--http` serves them next to
    /// `/mcp`. The URL is logged as `metrics served at URL`.
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr)]
    pub(crate) metrics_addr: Option<std::net::SocketAddr>,
    /// Allow `--metrics-addr` on an address other than loopback (the
    /// endpoint has no authentication).
    #[arg(long, requires = "metrics_addr")]
    pub(crate) metrics_allow_remote: bool,
    /// On SIGTERM or Ctrl-C, how many seconds the HTTP requests in flight
    /// and, with a shared store, the running tasks may take to finish (no
    /// new connections or tasks are accepted and `/readyz` answers 503
    /// meanwhile) before the server exits anyway; a task still running
    /// then is recorded failed, saying its replica shut down.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub(crate) shutdown_timeout: u64,
    /// Export traces over OTLP/HTTP (protobuf) to this collector, e.g.
    /// `http://127.0.0.1:4318` (`/v1/traces` is added). Without it, the
    /// standard `OTEL_EXPORTER_OTLP_ENDPOINT` and
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` variables turn the export on;
    /// with neither, no traces are made.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
}

/// The 2026-07-28 multi round-trip requests (a guest's requests to the
/// client, answered in the next round of the call).
#[derive(Debug, clap::Args)]
pub struct RoundsArgs {
    /// Sign `requestState` with the key in this environment variable (at
    /// least 32 bytes). Replicas behind one load balancer must share it;
    /// without it each server makes a random key at start.
    #[arg(long, value_name = "VAR", conflicts_with = "request_state_key_file")]
    pub(crate) request_state_key_env: Option<String>,
    /// As `--request-state-key-env`, with the key read from this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) request_state_key_file: Option<PathBuf>,
    /// The most rounds one tool call may take: each round runs the tool
    /// again from the start with the client's answers so far.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(crate) max_input_rounds: u32,
}

impl RoundsArgs {
    /// The key and limits, with the key loaded.
    pub(crate) fn rounds(&self) -> Result<Rounds, StateKeyError> {
        let max = self.max_input_rounds;
        match (&self.request_state_key_env, &self.request_state_key_file) {
            (Some(var), _) => Rounds::from_env(var, max),
            (None, Some(file)) => Rounds::from_file(file, max),
            (None, None) => Rounds::random(max),
        }
    }
}

/// The Streamable HTTP transport.
#[derive(Debug, clap::Args)]
pub struct HttpArgs {
    /// Serve MCP over Streamable HTTP at `http://ADDR/mcp` instead of stdio.
    /// ADDR is `IP:PORT`, `localhost:PORT` or just `PORT` (on 127.0.0.1);
    /// port 0 picks a free port. The URL is logged as `listening on URL`.
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr)]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// With `--http`: serve stdin/stdout as well; the server then exits when
    /// stdin closes.
    #[arg(long, requires = "http")]
    pub(crate) stdio: bool,
    /// Allow `--http` on an address other than loopback. Set a bearer token
    /// too: without one, anyone who can reach the port can call every tool.
    #[arg(long, requires = "http")]
    pub(crate) http_allow_remote: bool,
    /// Require `Authorization: Bearer <token>` on every HTTP request, with
    /// the token read from this environment variable.
    #[arg(
        long,
        value_name = "VAR",
        requires = "http",
        conflicts_with = "auth_token_file"
    )]
    pub(crate) auth_token_env: Option<String>,
    /// As `--auth-token-env`, with the token read from this file.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub(crate) auth_token_file: Option<PathBuf>,
    /// Accept this `Host` header value too (a name or `name:port`; may be
    /// repeated). Loopback names and the listening IP are always accepted;
    /// `*` accepts any host (no DNS-rebinding protection).
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    pub(crate) allowed_hosts: Vec<String>,
    /// Accept requests from web pages of this origin too
    /// (`https://app.example.com`, `http://host:*`; may be repeated). Pages
    /// on loopback are always accepted; `*` accepts any origin.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    pub(crate) allowed_origins: Vec<String>,
    /// Serve each HTTP request on its own, without `Mcp-Session-Id`
    /// sessions, so several replicas can run behind a load balancer. Before
    /// 2026-07-28, server-to-client requests (sampling, elicitation, roots)
    /// and `logging/setLevel` need a session and are not available; at
    /// 2026-07-28 a guest's requests reach the client in rounds (give the
    /// replicas one `--request-state-key-env`).
    #[arg(long, requires = "http")]
    pub(crate) stateless: bool,
}

impl HttpArgs {
    /// The transport options, with the bearer token loaded.
    pub(crate) fn options(&self, addr: std::net::SocketAddr) -> anyhow::Result<HttpOptions> {
        let auth = match (&self.auth_token_env, &self.auth_token_file) {
            (Some(var), _) => Some(BearerToken::from_env(var)?),
            (None, Some(file)) => Some(BearerToken::from_file(file)?),
            (None, None) => None,
        };
        let mut options = HttpOptions::new(addr);
        options.allow_remote = self.http_allow_remote;
        options.auth = auth;
        options.stateless = self.stateless;
        options.allowed_hosts = self.allowed_hosts.clone();
        options.allowed_origins = self.allowed_origins.clone();
        Ok(options)
    }
}

impl ServeArgs {
    /// The policy file given, if any: an empty `--config` gives none.
    pub(crate) fn config_file(&self) -> Option<&Path> {
        self.config.as_deref().filter(|p| !p.as_os_str().is_empty())
    }

    /// The log filter unless `--log` or `RUST_LOG` gives one: `info`. In
    /// stateless mode rmcp serves every request as a service of its own, and
    /// its `rmcp::service` lines (started, input ended, finished, with the
    /// client's whole `initialize` parameters) and span would come with every
    /// request: they are kept to warnings there.
    pub(crate) fn default_log_filter(&self) -> &'static str {
        if self.http.stateless {
            "info,rmcp::service=warn"
        } else {
            "info"
        }
    }
}

/// `--config`'s value: a path, or empty for none (an MCP bundle passes an
/// unset optional setting as an empty string).
fn path_or_empty(value: &str) -> Result<PathBuf, std::convert::Infallible> {
    Ok(PathBuf::from(value))
}
