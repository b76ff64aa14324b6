//! `inspect`: report on one plugin file (or source) and the policy it would
//! run under.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use mcp_wasm_host::config::ConfigError;
use mcp_wasm_host::inspect::{Report, SourceInfo};
use mcp_wasm_host::runtime::{EngineSettings, Policies, Policy, PolicyError, PolicySource};
use mcp_wasm_host::source::limits::{Bound, DEFAULT_MAX_PLUGIN_SIZE};
use mcp_wasm_host::source::{Fetcher, PluginName, Request};

use super::shared::{
    CacheArgs, cache_dir, cached_runtime, default_name, load_config, parse_source,
};

#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// The plugin component (`*.wasm`), or a source to fetch it from
    /// (`oci://REGISTRY/REPO:TAG`, `oci://…@sha256:HEX`, `https://…`): the
    /// report then shows the digest the reference resolved to. A source the
    /// policy file names is inspected under that section's name and
    /// signature keys.
    file: PathBuf,
    /// Reach this registry over plain HTTP too (as for `pull`).
    #[arg(long = "plain-http", value_name = "REGISTRY")]
    plain_http: Vec<String>,
    /// The policy file, as for `serve`. Without it, `./mcp-wasm-host.toml`
    /// is used if it exists, and the built-in defaults otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG")]
    config: Option<PathBuf>,
    /// Print one JSON object instead of the human-readable report.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    cache: CacheArgs,
}

/// Gives every plugin the same error: the policy file did not load.
#[derive(Debug)]
struct BrokenConfig(Arc<ConfigError>);

impl Policies for BrokenConfig {
    fn policy_for(&self, _plugin: &str) -> Result<Policy, PolicyError> {
        Err(PolicyError::File(self.0.clone()))
    }
}

/// Inspects one file and prints the report to stdout. A policy file that
/// does not load is reported like any other reason the plugin would not.
pub(super) async fn run(args: InspectArgs) -> anyhow::Result<ExitCode> {
    let settings = EngineSettings {
        // One throwaway instance lists the tools.
        max_instances: 2,
        ..EngineSettings::default()
    };
    let mut loaded = None;
    let (policies, config_file): (PolicySource, Option<PathBuf>) =
        match load_config(args.config.as_deref(), settings.max_memory_bytes as u64) {
            Ok(config) => {
                let file = (!config.is_builtin()).then(|| config.path().to_owned());
                let config = Arc::new(config);
                loaded = Some(config.clone());
                (config, file)
            }
            Err(e) => (Arc::new(BrokenConfig(Arc::new(e))), None),
        };
    let text = args.file.to_string_lossy().into_owned();
    let mut file = args.file.clone();
    let mut source_info = None;
    if ["oci://", "https://", "http://"]
        .iter()
        .any(|p| text.starts_with(p))
    {
        let source = parse_source(&text)?;
        let section = loaded
            .as_ref()
            .and_then(|c| c.sources().into_iter().find(|s| s.source == source));
        let name = match &section {
            Some(s) => s.name.clone(),
            None => PluginName::parse(&default_name(&source))
                .context("the plugin name the reference gives")?,
        };
        let mut plain_http = args.plain_http.clone();
        if let Some(config) = &loaded {
            plain_http.extend(config.plain_http_registries().iter().cloned());
        }
        let mut fetcher = Fetcher::new(&cache_dir(&args.cache)?, &plain_http);
        if let Some(config) = &loaded {
            fetcher = fetcher.with_timeouts(config.fetch_timeouts());
        }
        let keys = section.as_ref().and_then(|s| s.keys.clone());
        let pinned = section.as_ref().and_then(|s| s.sha256);
        let fetched = fetcher
            .fetch(&Request {
                source: &source,
                pinned,
                pin_key: section
                    .as_ref()
                    .map_or_else(|| "--sha256".into(), |s| s.pin_key.clone()),
                keys: keys.as_ref(),
                max_size: match (&section, &loaded) {
                    (Some(s), _) => s.max_size.clone(),
                    (None, Some(config)) => config.max_plugin_size(name.as_str()),
                    (None, None) => Bound::new(DEFAULT_MAX_PLUGIN_SIZE, "defaults.max_plugin_size"),
                },
            })
            .await?;
        file = fetcher.store().plugin_file(&fetched.sha256, &name)?;
        source_info = Some(SourceInfo {
            reference: text.clone(),
            digest: fetched.manifest_digest.clone(),
            signed_by: fetched.signed_by.map(|p| p.display().to_string()),
            offline: fetched.offline,
            requested: fetched.requested.clone(),
        });
    }
    let runtime = cached_runtime(settings, policies, &args.cache)?;
    let inspection = runtime.inspect(&file).await;
    let mut report = Report::new(&inspection, config_file.as_deref());
    if let Some(info) = source_info {
        report = report.with_source(info);
    }
    if let Some(config) = &loaded {
        report = report.with_profiles(config.profiles());
    }
    report.write(args.json, &mut std::io::stdout().lock())?;
    Ok(ExitCode::from(report.exit_code()))
}
