//! What several subcommands share: the cache flags, the policy file, the
//! compile cache, and source references.

use std::path::{Path, PathBuf};

use mcp_wasm_host::config::{self, Config, ConfigError};
use std::sync::Arc;

use mcp_wasm_host::runtime::{
    CacheError, CompileCache, EngineSettings, INCREMENTAL_CACHE_CAP, IncrementalStore,
    PolicySource, Runtime, RuntimeError,
};
use mcp_wasm_host::source::{OciRef, SourceRef};

/// Where compiled plugins are cached between runs.
#[derive(Debug, clap::Args)]
pub struct CacheArgs {
    /// The compile cache directory (default: `$XDG_CACHE_HOME/mcp-wasm-host`
    /// or `~/.cache/mcp-wasm-host`). Created with mode 0700; one that
    /// belongs to another user or that others may write to is not used.
    #[arg(long, env = "MCP_WASM_HOST_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Compile every plugin at start, reading and writing no cache (neither
    /// compiled plugins nor the incremental cache of compiled functions).
    #[arg(long)]
    pub no_cache: bool,
}

/// Why `--http` (or `--metrics`) is not an address to listen on. clap
/// shows the message after the flag and its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpAddrError {
    /// `localhost:` and a port that is not one.
    #[error("invalid port {port:?}: {error}")]
    Port {
        /// The port as written.
        port: String,
        /// Why it is not a port.
        error: std::num::ParseIntError,
    },
    /// Neither form (the value).
    #[error(
        "expected IP:PORT (e.g. 127.0.0.1:8080 or [::1]:8080), localhost:PORT or PORT, not {0:?}"
    )]
    Form(String),
}

/// `IP:PORT`, `localhost:PORT` or `PORT` (on 127.0.0.1).
pub fn parse_http_addr(value: &str) -> Result<std::net::SocketAddr, HttpAddrError> {
    use std::net::{Ipv4Addr, SocketAddr};
    if let Ok(port) = value.parse::<u16>() {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    if let Some(port) = value.strip_prefix("localhost:") {
        let port = port.parse::<u16>().map_err(|error| HttpAddrError::Port {
            port: port.to_string(),
            error,
        })?;
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    value
        .parse()
        .map_err(|_| HttpAddrError::Form(value.to_string()))
}

/// The policy file: `explicit`, else `./mcp-wasm-host.toml` if it exists,
/// else the built-in defaults.
pub fn load_config(explicit: Option<&Path>, max_memory: u64) -> Result<Config, ConfigError> {
    let default = Path::new(config::DEFAULT_FILE);
    match explicit {
        Some(path) => Config::load(path, max_memory),
        None if default.is_file() => Config::load(default, max_memory),
        None => Ok(Config::builtin(max_memory)),
    }
}

/// The compile cache the flags ask for, or `None` (with a warning when the
/// directory cannot be used: the server then compiles every plugin).
pub fn open_cache(args: &CacheArgs) -> Option<CompileCache> {
    if args.no_cache {
        return None;
    }
    let Some(dir) = args.cache_dir.clone().or_else(CompileCache::default_dir) else {
        tracing::warn!(
            "{}; running without a compile cache",
            CacheError::NoDefaultDir
        );
        return None;
    };
    match CompileCache::open(&dir) {
        Ok(cache) => {
            tracing::debug!(dir = %dir.display(), "compile cache");
            Some(cache)
        }
        Err(e) => {
            tracing::warn!("{e}; running without a compile cache");
            None
        }
    }
}

/// A runtime under `settings` and `policies` that keeps compiled plugins in
/// the compile cache the flags ask for, and compiled functions in its
/// incremental cache.
pub fn cached_runtime(
    mut settings: EngineSettings,
    policies: PolicySource,
    args: &CacheArgs,
) -> Result<Runtime, RuntimeError> {
    let cache = open_cache(args);
    settings.incremental = cache.as_ref().and_then(|cache| {
        IncrementalStore::beside(cache, INCREMENTAL_CACHE_CAP)
            .map(Arc::new)
            .map_err(|e| tracing::warn!("{e}; compiling without an incremental cache"))
            .ok()
    });
    Ok(Runtime::new(&settings, policies)?.with_cache(cache))
}

/// The directory `pull` keeps its fetches in.
pub fn cache_dir(args: &CacheArgs) -> anyhow::Result<PathBuf> {
    args.cache_dir
        .clone()
        .or_else(CompileCache::default_dir)
        .ok_or_else(|| CacheError::NoDefaultDir.into())
}

/// A source reference, parsed.
pub fn parse_source(text: &str) -> anyhow::Result<SourceRef> {
    Ok(SourceRef::parse(text)?)
}

/// An `oci://` reference (push and sign take no URL).
pub fn oci_ref(text: &str) -> anyhow::Result<OciRef> {
    match parse_source(text)? {
        SourceRef::Oci(r) => Ok(r),
        SourceRef::Https(_) => anyhow::bail!("{text}: push and sign need an oci:// reference"),
    }
}

/// The plugin name a source gets by default.
pub fn default_name(source: &SourceRef) -> String {
    let last = match source {
        SourceRef::Oci(r) => r
            .repository
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string(),
        SourceRef::Https(url) => url
            .split(['?', '#'])
            .next()
            .and_then(|u| u.rsplit('/').next())
            .unwrap_or_default()
            .trim_end_matches(".wasm")
            .to_string(),
    };
    if last.is_empty() {
        "plugin".into()
    } else {
        last
    }
}
