//! `keygen`: write a P-256 key pair for `sign` and `signature_keys`.

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_wasm_host::source::signature::PrivateKey;

#[derive(Debug, clap::Args)]
pub struct KeygenArgs {
    /// Write PREFIX.key and PREFIX.pub (neither may exist).
    #[arg(long, default_value = "cosign", value_name = "PREFIX")]
    out: PathBuf,
}

/// `keygen`: writes a key pair.
pub(super) fn run(args: &KeygenArgs) -> anyhow::Result<ExitCode> {
    let with = |ext: &str| {
        let mut path = args.out.clone().into_os_string();
        path.push(ext);
        PathBuf::from(path)
    };
    let (private, public) = (with(".key"), with(".pub"));
    PrivateKey::generate()?.write(&private, &public)?;
    println!(
        "private key {} (keep it secret), public key {}",
        private.display(),
        public.display()
    );
    Ok(ExitCode::SUCCESS)
}
