//! Starting the real binary on many plugins: distinct copies of one
//! component (so that each has its own compile-cache entry; identical copies
//! would share one and a cold start would compile only once), and the time
//! from spawning `serve` to its `initialize` and first `tools/list` answers.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::stdio::{INITIALIZE, INITIALIZED, StdioClient};

/// `wasm` with a custom section `mcp-wasm-host-bench` holding `tag`
/// appended: the same component, a different file.
pub fn tagged(wasm: &[u8], tag: &str) -> Vec<u8> {
    fn leb(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }
    let name = b"mcp-wasm-host-bench";
    let mut body = Vec::new();
    leb(name.len(), &mut body);
    body.extend_from_slice(name);
    body.extend_from_slice(tag.as_bytes());
    let mut out = wasm.to_vec();
    out.push(0);
    leb(body.len(), &mut out);
    out.extend_from_slice(&body);
    out
}

/// Writes `n` distinct copies of the component `wasm` into `dir`, as
/// `p000.wasm`, `p001.wasm`, …, and an empty policy file `bench.toml`.
pub fn tagged_copies(dir: &Path, wasm: &[u8], n: usize) {
    std::fs::write(dir.join("bench.toml"), "").unwrap();
    for i in 0..n {
        let name = format!("p{i:03}");
        std::fs::write(dir.join(format!("{name}.wasm")), tagged(wasm, &name)).unwrap();
    }
}

/// What one start cost.
pub struct Sample {
    /// Spawn to the `initialize` answer.
    pub initialize: Duration,
    /// Spawn to the first `tools/list` answer.
    pub tools_list: Duration,
    /// How many tools that answer listed (up to a page).
    pub listed: usize,
}

/// When the first `tools/list` is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// At once (the default): what has loaded, and what is listed from the
    /// tool-list cache.
    AtOnce,
    /// Once every plugin has loaded (`--wait-for-load`, the old path).
    AfterLoad,
}

/// Starts `serve` on `plugins` (with its `bench.toml`) and the compile
/// cache `cache` (`None`: `--no-cache`), waits for the `initialize` answer
/// and the first `tools/list` answer, checks it lists `tools` tools (up to a
/// page; 0: any; `None`: no check, as a list answered while plugins still
/// compile holds only some), and stops it.
pub fn first_tools_list(
    plugins: &Path,
    cache: Option<&Path>,
    tools: Option<usize>,
    listing: Listing,
) -> Sample {
    let mut command = Command::new(super::host_binary());
    command
        .args(["serve", "--log", "warn", "--config"])
        .arg(plugins.join("bench.toml"))
        .arg("--plugins")
        .arg(plugins);
    match cache {
        Some(dir) => command.arg("--cache-dir").arg(dir),
        None => command.arg("--no-cache"),
    };
    command.env(
        "MCP_WASM_HOST_WAIT_FOR_LOAD",
        if listing == Listing::AfterLoad {
            "1"
        } else {
            "0"
        },
    );
    let t = Instant::now();
    let mut client = StdioClient::spawn(command);
    client.send(INITIALIZE);
    assert!(client.recv().contains("\"result\""), "{}", client.line);
    let initialize = t.elapsed();
    client.send(INITIALIZED);
    client.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#);
    // `list_changed` notifications (plugins joining as they load) may
    // come first.
    let mut line = client.recv().to_owned();
    while !line.contains("\"id\":1") {
        line = client.recv().to_owned();
    }
    let tools_list = t.elapsed();
    let listed = line.matches("\"inputSchema\"").count();
    match tools {
        None => {}
        Some(0) => assert!(listed > 0, "{line}"),
        Some(tools) => assert_eq!(listed, tools.min(50), "{line}"),
    }
    Sample {
        initialize,
        tools_list,
        listed,
    }
}
