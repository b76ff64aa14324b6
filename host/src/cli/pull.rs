//! `pull`: fetch a plugin from an OCI registry or a URL, check its digests
//! (and signature), and write it into a plugins directory.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use mcp_wasm_host::runtime::Sha256Digest;
use mcp_wasm_host::source::SignatureKeys;
use mcp_wasm_host::source::limits::{Bound, DEFAULT_MAX_PLUGIN_SIZE, FetchTimeouts};
use mcp_wasm_host::source::{Fetcher, PluginName, Request, SourceRef};

use super::shared::{CacheArgs, cache_dir, default_name, parse_source};

#[derive(Debug, clap::Args)]
pub struct PullArgs {
    /// `oci://REGISTRY/REPO:TAG`, `oci://REGISTRY/REPO@sha256:HEX`, or an
    /// `https://` URL.
    reference: String,
    /// The directory to write NAME.wasm into.
    #[arg(long, default_value = "plugins")]
    dir: PathBuf,
    /// The plugin name (the file's stem); default: the repository's last
    /// path segment, or the URL's file stem.
    #[arg(long)]
    name: Option<String>,
    /// Print, on stdout, the `[plugins.NAME]` section that would grant what
    /// the artifact's policy layer requests (Wassette's
    /// `application/vnd.wasm.policy.v1+yaml`), for you to review and add to
    /// your policy file; the pull's own line goes to stderr. Nothing is
    /// granted by pulling.
    #[arg(long)]
    print_policy: bool,
    /// The component's SHA-256 (required for a URL).
    #[arg(long, value_name = "HEX")]
    sha256: Option<String>,
    /// Require a signature that verifies with this public key (PEM SPKI,
    /// as cosign.pub; may be repeated: one of them must verify).
    #[arg(long = "key", value_name = "FILE")]
    keys: Vec<PathBuf>,
    /// Reach this registry (`host` or `host:port`) over plain HTTP too
    /// (loopback registries always are; may be repeated).
    #[arg(long = "plain-http", value_name = "REGISTRY")]
    plain_http: Vec<String>,
    /// The most bytes the component may have (as `max_plugin_size` in the
    /// policy file), e.g. `64MiB`.
    #[arg(long, value_name = "SIZE", default_value_t = bytesize::ByteSize(DEFAULT_MAX_PLUGIN_SIZE))]
    max_size: bytesize::ByteSize,
    /// How long to wait for a connection (as `fetch_connect_timeout`).
    #[arg(long, value_name = "DURATION", value_parser = humantime_serde::re::humantime::parse_duration, default_value = "10s")]
    connect_timeout: Duration,
    /// How long to wait for the first byte of an answer, and for each next
    /// one (as `fetch_first_byte_timeout`).
    #[arg(long, value_name = "DURATION", value_parser = humantime_serde::re::humantime::parse_duration, default_value = "30s")]
    first_byte_timeout: Duration,
    /// How long the whole fetch may take (as `fetch_timeout`).
    #[arg(long, value_name = "DURATION", value_parser = humantime_serde::re::humantime::parse_duration, default_value = "5m")]
    timeout: Duration,
    #[command(flatten)]
    cache: CacheArgs,
}

/// `pull`: fetches, checks and writes DIR/NAME.wasm.
pub(super) async fn run(args: PullArgs) -> anyhow::Result<ExitCode> {
    let source = parse_source(&args.reference)?;
    let pinned = args
        .sha256
        .as_deref()
        .map(Sha256Digest::from_hex)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--sha256: {e}"))?;
    if matches!(source, SourceRef::Https(_)) && pinned.is_none() {
        anyhow::bail!("{}: a URL needs --sha256 HEX", args.reference);
    }
    let name = match &args.name {
        Some(name) => PluginName::parse(name).context("--name")?,
        None => PluginName::parse(&default_name(&source))
            .context("the name the reference gives; choose one with --name")?,
    };
    let keys = (!args.keys.is_empty()).then(|| SignatureKeys {
        policy_key: "--key".into(),
        config_file: PathBuf::from("the command line"),
        paths: args.keys.clone(),
    });
    let timeouts = FetchTimeouts {
        connect: Bound::new(args.connect_timeout, "--connect-timeout"),
        first_byte: Bound::new(args.first_byte_timeout, "--first-byte-timeout"),
        total: Bound::new(args.timeout, "--timeout"),
    };
    let fetcher = Fetcher::new(&cache_dir(&args.cache)?, &args.plain_http).with_timeouts(timeouts);
    let fetched = fetcher
        .fetch(&Request {
            source: &source,
            pinned,
            pin_key: "--sha256".into(),
            keys: keys.as_ref(),
            max_size: Bound::new(args.max_size.as_u64(), "--max-size"),
        })
        .await?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create {}", args.dir.display()))?;
    let target = args.dir.join(name.file_name());
    // Copied in chunks through a temporary file, checked, then renamed.
    fetcher
        .store()
        .copy_blob(&fetched.sha256, &target)
        .with_context(|| format!("cannot write {}", target.display()))?;
    if fetched.offline {
        eprintln!(
            "warning: the registry cannot be reached; used the cached copy of {}",
            args.reference
        );
    }
    let digest = fetched
        .manifest_digest
        .map(|d| format!(" {d}"))
        .unwrap_or_default();
    let signed = fetched
        .signed_by
        .map(|k| format!(", signed by {}", k.display()))
        .unwrap_or_default();
    let line = format!(
        "{}{digest} -> {} (sha256 {}{signed})",
        args.reference,
        target.display(),
        fetched.sha256
    );
    let requested = match &fetched.requested {
        Some(Ok(policy)) => {
            let asks: Vec<String> = policy
                .lines()
                .into_iter()
                .filter(|(what, _)| *what != "description")
                .map(|(what, list)| format!("{what}: {list}"))
                .collect();
            eprintln!(
                "note: its policy layer requests {}; nothing is granted until your policy file says so ({})",
                if asks.is_empty() {
                    "nothing".to_string()
                } else {
                    asks.join("; ")
                },
                if args.print_policy {
                    "the section is below"
                } else {
                    "see `pull --print-policy`"
                }
            );
            Some(policy)
        }
        Some(Err(problem)) => {
            eprintln!("warning: its policy layer was not read: {problem}");
            None
        }
        None => None,
    };
    if args.print_policy {
        eprintln!("{line}");
        match requested {
            Some(policy) => print!("{}", policy.section(name.as_str(), &args.reference)),
            None => eprintln!("note: the artifact has no policy layer to print"),
        }
    } else {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}
