//! `sign`: sign the manifest a reference resolves to and push the signature
//! as cosign does.

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_wasm_host::source::limits::FetchTimeouts;
use mcp_wasm_host::source::oci::Registry;
use mcp_wasm_host::source::signature::{self, PrivateKey};

use super::shared::oci_ref;

#[derive(Debug, clap::Args)]
pub struct SignArgs {
    /// The private key (unencrypted PKCS#8 PEM, as `keygen` writes).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// `oci://REGISTRY/REPO:TAG` or `oci://REGISTRY/REPO@sha256:HEX`.
    reference: String,
    /// Reach this registry over plain HTTP too (as for `pull`).
    #[arg(long = "plain-http", value_name = "REGISTRY")]
    plain_http: Vec<String>,
}

/// `sign`: signs what a reference resolves to and pushes the signature.
pub(super) async fn run(args: SignArgs) -> anyhow::Result<ExitCode> {
    let r = oci_ref(&args.reference)?;
    let key = PrivateKey::read(&args.key)?;
    let registry = Registry::for_ref(&r, &args.plain_http, &FetchTimeouts::default());
    let digest = match &r.digest {
        Some(d) => d.clone(),
        None => registry.resolve(&r).await?,
    };
    let payload = signature::payload(&r.repository_name(), &digest);
    let signed = key.sign(&payload);
    let tag = signature::signature_tag(&digest);
    registry.push_signature(&r, &tag, &payload, &signed).await?;
    println!(
        "{} {digest} signed ({}:{tag})",
        args.reference,
        r.repository_name()
    );
    Ok(ExitCode::SUCCESS)
}
