//! Startup benchmark: how long a client waits from spawning
//! `mcp-wasm-host serve` to the `initialize` response and to the first
//! `tools/list` response, with a cold compile cache (a fresh `--cache-dir`:
//! every plugin compiled and stored), a warm one (every plugin loaded from
//! the cache) and `--no-cache`, for 1, 10 and 100 plugins and for the
//! bundled example plugins (larger components).
//!
//! The N plugins are copies of the `panic` test plugin, each made distinct
//! by a custom section naming it, so each has its own cache entry (identical
//! copies would share one and a cold start would compile only once).
//!
//! Run: `cargo bench -p mcp-wasm-host --bench startup` (`-- --quick` for
//! fewer repetitions, `-- --only N` for just the N-plugin case). It prints
//! the median of each case and the ratio warm/cold.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run treats the compile cache.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cache {
    /// A fresh, empty cache directory.
    Cold,
    /// A cache directory filled by an earlier (untimed) run.
    Warm,
    /// `--no-cache`.
    Off,
}

/// What one start cost.
struct Sample {
    initialize: Duration,
    tools_list: Duration,
}

/// Starts the server on `plugins`, waits for the `initialize` response and
/// the first `tools/list` response, checks it lists `tools` tools (up to a
/// page; 0: any), and stops it.
fn start(plugins: &Path, cache: Option<&Path>, tools: usize) -> Sample {
    let config = plugins.join("bench.toml");
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-wasm-host"));
    command
        .args(["serve", "--log", "warn", "--config"])
        .arg(&config)
        .arg("--plugins")
        .arg(plugins);
    match cache {
        Some(dir) => command.arg("--cache-dir").arg(dir),
        None => command.arg("--no-cache"),
    };
    let t = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut send = |message: &str| {
        stdin.write_all(message.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    send(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
    );
    stdout.read_line(&mut line).unwrap();
    let initialize = t.elapsed();
    assert!(line.contains("\"result\""), "{line}");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#);
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let tools_list = t.elapsed();
    let listed = line.matches("\"inputSchema\"").count();
    if tools == 0 {
        assert!(listed > 0, "{line}");
    } else {
        assert_eq!(listed, tools.min(50), "{line}");
    }
    let _ = child.kill();
    let _ = child.wait();
    Sample {
        initialize,
        tools_list,
    }
}

/// `wasm` with a custom section `mcp-wasm-host-bench` holding `tag`
/// appended: the same component, a different file.
fn tagged(wasm: &[u8], tag: &str) -> Vec<u8> {
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

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `reps` starts of each cache mode on `plugins` and prints the
/// medians. Cold and warm runs alternate, so drift affects both alike.
fn case(name: &str, plugins: &Path, tools: usize, reps: usize) {
    let warm_dir = tempfile::tempdir().unwrap();
    start(plugins, Some(warm_dir.path()), tools); // fills the warm cache
    let mut results: Vec<(Cache, Vec<Sample>)> = vec![
        (Cache::Cold, Vec::new()),
        (Cache::Warm, Vec::new()),
        (Cache::Off, Vec::new()),
    ];
    for _ in 0..reps {
        for (mode, samples) in &mut results {
            let cold_dir = tempfile::tempdir().unwrap();
            let dir = match mode {
                Cache::Cold => Some(cold_dir.path()),
                Cache::Warm => Some(warm_dir.path()),
                Cache::Off => None,
            };
            samples.push(start(plugins, dir, tools));
        }
    }
    let medians: Vec<(Duration, Duration)> = results
        .iter()
        .map(|(_, s)| {
            (
                median(s.iter().map(|s| s.initialize).collect()),
                median(s.iter().map(|s| s.tools_list).collect()),
            )
        })
        .collect();
    for ((mode, _), (init, list)) in results.iter().zip(&medians) {
        let label = match mode {
            Cache::Cold => "cold cache",
            Cache::Warm => "warm cache",
            Cache::Off => "--no-cache",
        };
        println!(
            "{name:<28} {label:<11} initialize {:>9.1} ms  first tools/list {:>9.1} ms",
            ms(*init),
            ms(*list)
        );
    }
    let (cold, warm) = (medians[0].1, medians[1].1);
    println!(
        "{name:<28} warm/cold (first tools/list) = {:.3} ({:.1}× faster)",
        ms(warm) / ms(cold),
        ms(cold) / ms(warm)
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 3 } else { 7 };
    let args: Vec<String> = std::env::args().collect();
    let only: Option<usize> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse().unwrap());
    println!("mcp-wasm-host startup benchmark (median of {reps} starts per case)");
    let panic = std::fs::read(test_artifacts::PANIC).unwrap();
    for n in [1, 10, 100] {
        if only.is_some_and(|only| only != n) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bench.toml"), "").unwrap();
        for i in 0..n {
            let name = format!("p{i:03}");
            std::fs::write(
                dir.path().join(format!("{name}.wasm")),
                tagged(&panic, &name),
            )
            .unwrap();
        }
        // Every copy exports `ok` and `panic`: all qualified, none lost.
        let tools = 2 * n;
        let label = format!("{n} plugin{}", if n == 1 { "" } else { "s" });
        case(
            &label,
            dir.path(),
            tools,
            if n == 100 { reps.min(5) } else { reps },
        );
    }
    if only.is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bench.toml"), "").unwrap();
    for name in test_artifacts::EXAMPLE_PLUGINS {
        let file = Path::new(test_artifacts::EXAMPLES_DIR).join(format!("{name}.wasm"));
        std::fs::copy(&file, dir.path().join(format!("{name}.wasm"))).unwrap();
    }
    case("the example plugins", dir.path(), 0, reps);
}
