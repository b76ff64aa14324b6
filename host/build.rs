//! Records the version of the `wasmtime` crate this host is built against
//! (from the workspace's `Cargo.lock`) as `MCP_WASM_HOST_WASMTIME_VERSION`,
//! for the compile cache's keys.

fn main() {
    let lock = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
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
