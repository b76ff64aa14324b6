//! `push`: publish a component to an OCI registry in the wasm artifact
//! layout.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use mcp_wasm_host::source::limits::FetchTimeouts;
use mcp_wasm_host::source::oci::Registry;

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
    let registry = Registry::for_ref(&r, &args.plain_http, &FetchTimeouts::default());
    let digest = registry.push_component(&r, &bytes).await?;
    println!("{} {digest}", args.reference);
    Ok(ExitCode::SUCCESS)
}
