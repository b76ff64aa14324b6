//! What Cargo keeps: the store depends on neither wasmtime nor rmcp (nor
//! on either crate of the host), so that the runtime (wasi:keyvalue) and
//! the server (tasks, limits, sessions) can both build on it. (A rule for
//! `host/tests/all/layering.rs` once that file settles.)

use std::collections::BTreeSet;

#[test]
fn the_store_depends_on_neither_wasmtime_nor_rmcp() {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "--prefix",
            "none",
            "-f",
            "{p}",
        ])
        .args(["-p", "mcp-wasm-host-store", "-e", "normal,build"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let packages: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(
        packages.contains("redb") && packages.contains("redis"),
        "{packages:?}"
    );
    let forbidden: Vec<&String> = packages
        .iter()
        .filter(|p| {
            p.starts_with("wasmtime")
                || ["rmcp", "axum", "mcp-wasm-host", "mcp-wasm-host-runtime"].contains(&p.as_str())
        })
        .collect();
    assert!(forbidden.is_empty(), "the store depends on {forbidden:?}");
}
