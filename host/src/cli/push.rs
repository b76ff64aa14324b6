//! `push`: publish a component to an OCI registry in the wasm artifact
//! layout.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use mcp_wasm_host::source::limits::FetchTimeouts;
use mcp_wasm_host::source::oci::Registry;
use mcp_wasm_host::source::requested::RequestedPolicy;

use super::shared::oci_ref;

#[derive(Debug, clap::Args)]
pub struct PushArgs {
    /// The component (`*.wasm`).
    file: PathBuf,
    /// `oci://REGISTRY/REPO:TAG`.
    reference: String,
    /// Reach this registry over plain HTTP too (as for `pull`).
    #[arg(long = "plain-http", value_name = "REGISTRY")]
    plain_http: Vec<String>,
    /// Publish the permissions the component needs beside it: a YAML
    /// policy in the policy-mcp format (as Wassette's `policy.yaml`), as a
    /// layer of media type `application/vnd.wasm.policy.v1+yaml`. Hosts
    /// show it to operators; none grants it.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
}

/// `push`: publishes a component.
pub(super) async fn run(args: PushArgs) -> anyhow::Result<ExitCode> {
    let r = oci_ref(&args.reference)?;
    anyhow::ensure!(
        r.tag.is_some() && r.digest.is_none(),
        "{}: push to a tag (oci://REGISTRY/REPO:TAG)",
        args.reference
    );
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    anyhow::ensure!(
        bytes.len() >= 8 && &bytes[..4] == b"\0asm" && bytes[4..8] == [0x0d, 0x00, 0x01, 0x00],
        "{}: not a WebAssembly component",
        args.file.display()
    );
    let policy = match &args.policy {
        Some(path) => {
            let text =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            // Checked as a host reading it would check it.
            RequestedPolicy::parse(&text).with_context(|| format!("{}", path.display()))?;
            Some(text)
        }
        None => None,
    };
    let registry = Registry::for_ref(&r, &args.plain_http, &FetchTimeouts::default());
    let digest = registry
        .push_component(&r, &bytes, policy.as_deref())
        .await?;
    println!("{} {digest}", args.reference);
    Ok(ExitCode::SUCCESS)
}
