//! Records the version of the `wasmtime` crate this runtime is built against
//! (from the workspace's `Cargo.lock`, or the one packed beside the manifest)
//! as `MCP_WASM_HOST_WASMTIME_VERSION`, for the compile cache's keys.

use std::path::PathBuf;

fn main() {
    wasmtime_version();
}

/// The runtime crate's directory, as cargo says when it runs this script (not
/// when it compiled it: a build cache shared by clones at other paths runs a
/// script compiled for another clone).
fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
}

fn wasmtime_version() {
    // The workspace's lockfile, or, in the packaged crate (`cargo package`,
    // `cargo install`), the one packed beside its manifest.
    let dir = manifest_dir();
    let lock = [dir.join("Cargo.lock"), dir.join("../Cargo.lock")]
        .into_iter()
        .find(|lock| lock.is_file())
        .unwrap_or_else(|| dir.join("Cargo.lock"));
    println!("cargo:rerun-if-changed={}", lock.display());
    let version = std::fs::read_to_string(&lock)
        .ok()
        .and_then(|text| {
            let mut lines = text.lines();
            while let Some(line) = lines.next() {
                if line == "name = \"wasmtime\"" {
                    return lines
                        .next()
                        .and_then(|v| v.strip_prefix("version = \""))
                        .and_then(|v| v.strip_suffix('"'))
                        .map(str::to_owned);
                }
            }
            None
        })
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=MCP_WASM_HOST_WASMTIME_VERSION={version}");
}
