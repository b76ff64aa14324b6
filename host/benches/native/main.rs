//! Side-by-side benchmark: `mcp-wasm-host` serving the `hash` tool (FNV-1a 64
//! of a 58-byte text) from the `fnv` test plugin, against a native rmcp
//! server with the same tool compiled in (`tests/native-server`), in the same
//! run, alternating, so drift in the machine's speed hits both alike:
//!
//! - stdio `tools/call` round trips, one at a time: p50 and p99;
//! - stdio calls per second at 1, 16 and 64 requests in flight on one
//!   connection;
//! - Streamable HTTP calls per second at 1, 16 and 64 concurrent clients
//!   (each its own session on its own connection, one request in flight),
//!   with sessions and `--stateless`;
//! - spawn to the first `tools/call` answer (the host: 1 plugin, warm
//!   compile cache);
//! - the host alone: spawn to the first `tools/list` answer with 100
//!   plugins and a warm cache.
//!
//! Every measure runs in each of `ROUNDS` rounds (within a round, case by
//! case, the side that goes first rotates); the table shows the medians
//! of the rounds and the ratio host/native. The host runs with its default
//! policy (a fresh instance per call, instantiated for that call, fuel and
//! epoch on, the audit record at the default `info` level, no rate
//! limits); a third side is the host making one instance ahead of each
//! call off the call path (`ready_instances = 1`), and a fourth the host with warm instance
//! reuse opted in (`reuse_instances = 1000`: an instance serves up to 1000
//! calls), all measured in the same rounds. The
//! benchmark also draws the stdio latency distributions and throughput
//! against concurrency as an SVG (`target/bench/native.svg`, or `--svg
//! PATH`).
//!
//! `--soak [N]` samples each server's resident memory over N calls instead
//! (default 1,000,000; see [`soak`]).
//!
//! `--instructions` counts user-space instructions per `tools/call` instead,
//! under callgrind (valgrind must be installed; see [`instructions`]): a
//! figure the machine's load does not move, to guard against regressions.
//!
//! The native server is this same binary, re-executed with
//! `--native-server` (the library `native-mcp-server` linked in as a
//! dev-dependency): a bench cannot name another package's binary, and a
//! nested cargo build would wait on the lock the outer one holds.
//!
//! Run: `cargo bench -p mcp-wasm-host --bench native` (`-- --quick` for a
//! short run, `-- --instructions` for the instruction count, `-- --soak`
//! for memory over a million calls). `MCP_WASM_HOST_BIN=PATH` measures
//! that host binary instead of the one built with the benchmark (a copy
//! that a build in the same target directory cannot overwrite).
#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;
mod instructions;
mod measure;
mod plot;
mod soak;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use clap::Parser as _;
use serde_json::{Value, json};

use common::stdio::StdioClient;
use measure::Stdio;

/// The argument that makes this binary the native server.
const NATIVE_SERVER: &str = "--native-server";

/// The text every call hashes (58 bytes).
const TEXT: &str = "The quick brown fox jumps over the lazy dog: hash me, fast";

/// The concurrency levels: requests in flight (stdio) or clients (HTTP).
const LEVELS: [usize; 3] = [1, 16, 64];

/// The servers compared: the native one, the host with its default
/// policy, the host making no instance ahead of a call, and the host
/// reusing warm instances.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Native,
    Host,
    OneAhead,
    Reuse,
}

/// How many sides are compared.
const SIDES: usize = 4;

/// How many calls one warm instance serves on the [`Side::Reuse`] host.
const REUSE: u32 = 1000;

impl Side {
    const ALL: [Side; SIDES] = [Side::Native, Side::Host, Side::OneAhead, Side::Reuse];

    fn name(self) -> &'static str {
        match self {
            Side::Native => "native rmcp",
            Side::Host => "mcp-wasm-host",
            Side::OneAhead => "host, one ahead",
            Side::Reuse => "host, reuse",
        }
    }

    /// The policy file the host reads on this side (none for the native
    /// server).
    fn policy(self) -> Option<&'static str> {
        match self {
            Side::Native => None,
            Side::Host => Some("bench.toml"),
            Side::OneAhead => Some("one-ahead.toml"),
            Side::Reuse => Some("reuse.toml"),
        }
    }

    /// Every side, the first rotating with `turn`.
    fn order(turn: usize) -> [Side; SIDES] {
        let mut sides = Side::ALL;
        sides.rotate_left(turn % Side::ALL.len());
        sides
    }
}

/// How long and how often to measure.
struct Plan {
    rounds: usize,
    /// Sequential round trips per side per round.
    calls: usize,
    /// Each throughput case, after a warm-up of a quarter of it.
    duration: Duration,
    /// Starts per side per round.
    starts: usize,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                rounds: 1,
                calls: 500,
                duration: Duration::from_millis(800),
                starts: 3,
            }
        } else {
            Plan {
                rounds: 3,
                calls: 3000,
                duration: Duration::from_secs(3),
                starts: 10,
            }
        }
    }
}

/// The plugin, the host's policy and its warm compile cache.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("plugins")).unwrap();
        std::fs::copy(test_artifacts::FNV, dir.path().join("plugins/fnv.wasm")).unwrap();
        // The default policy (an empty policy file), the same with one
        // instance made ahead of each call, and the same with reuse.
        std::fs::write(dir.path().join("bench.toml"), "").unwrap();
        std::fs::write(
            dir.path().join("one-ahead.toml"),
            "[defaults]\nready_instances = 1\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("reuse.toml"),
            format!("[defaults]\nreuse_instances = {REUSE}\n"),
        )
        .unwrap();
        let setup = Setup { dir };
        // Fills the compile cache, so every timed start is a warm one.
        let (_, line) = common::stdio::first_call(setup.command(Side::Host, &[]), &call_params());
        assert!(line.contains(&expected_hash()), "{line}");
        setup
    }

    /// The command that starts `side`'s server, with `extra` arguments.
    fn command(&self, side: Side, extra: &[&str]) -> Command {
        let dir = self.dir.path();
        let mut command = match side.policy() {
            None => {
                let mut c = Command::new(std::env::current_exe().unwrap());
                c.arg(NATIVE_SERVER);
                c
            }
            Some(config) => {
                let mut c = Command::new(common::host_binary());
                c.args(["serve", "--no-watch", "--config"])
                    .arg(dir.join(config))
                    .arg("--plugins")
                    .arg(dir.join("plugins"))
                    .arg("--cache-dir")
                    .arg(dir.join("cache"));
                c
            }
        };
        command.args(extra);
        command
    }

    /// `side`'s server over stdio, past the handshake.
    fn stdio(&self, side: Side) -> Stdio {
        let mut client = StdioClient::spawn(self.command(side, &[]));
        client.initialize();
        Stdio::new(client)
    }
}

/// The `tools/call` params every call sends.
fn call_params() -> Value {
    json!({"name": "hash", "arguments": {"text": TEXT}})
}

/// The answer both servers must give, as the native library computes it.
fn expected_hash() -> String {
    format!("{:016x}", native_mcp_server::fnv1a64(TEXT.as_bytes()))
}

/// The median of `values` (not empty).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// The value at quantile `q` of `sorted`.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize]
}

/// What was measured of one side: one entry per round (the latency samples
/// of every round pooled).
#[derive(Default)]
struct Results {
    latency_us: Vec<f64>,
    p50: Vec<f64>,
    p99: Vec<f64>,
    stdio: [Vec<f64>; 3],
    sessions: [Vec<f64>; 3],
    stateless: [Vec<f64>; 3],
    first_call_ms: Vec<f64>,
    peak_rss: Vec<f64>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(NATIVE_SERVER) {
        let options = native_mcp_server::Options::parse_from(&args[1..]);
        return match native_mcp_server::run(options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("native-mcp-server: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let quick = args.iter().any(|a| a == "--quick");
    if args.iter().any(|a| a == "--instructions") {
        instructions::run(&Setup::new(), quick);
        return ExitCode::SUCCESS;
    }
    if let Some(i) = args.iter().position(|a| a == "--soak") {
        let calls = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1_000_000);
        soak::run(&Setup::new(), calls);
        return ExitCode::SUCCESS;
    }
    let svg = args
        .iter()
        .position(|a| a == "--svg")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let target = Path::new(env!("CARGO_BIN_EXE_mcp-wasm-host"))
                .ancestors()
                .nth(2)
                .expect("the binary is TARGET_DIR/PROFILE/mcp-wasm-host");
            target.join("bench/native.svg")
        });
    let plan = Plan::new(quick);
    println!(
        "mcp-wasm-host vs a native rmcp server, tool `hash` (FNV-1a 64 of {} bytes): {} round(s), {} sequential calls and {} starts per side per round, {:.1} s per throughput case",
        TEXT.len(),
        plan.rounds,
        plan.calls,
        plan.starts,
        plan.duration.as_secs_f64()
    );
    let setup = Setup::new();
    let many = tempfile::tempdir().unwrap();
    let (many_plugins, many_cache) = (many.path().join("plugins"), many.path().join("cache"));
    std::fs::create_dir(&many_plugins).unwrap();
    let panic = std::fs::read(test_artifacts::PANIC).unwrap();
    common::startup::tagged_copies(&many_plugins, &panic, 100);
    // Fills the caches (compiled components and tool lists).
    common::startup::first_tools_list(
        &many_plugins,
        Some(&many_cache),
        Some(200),
        common::startup::Listing::AfterLoad,
    );

    let mut results: [Results; SIDES] = Default::default();
    let mut many_ms = Vec::new();
    for round in 0..plan.rounds {
        println!("round {} of {}", round + 1, plan.rounds);
        measure::stdio_round(&setup, &plan, round, &mut results);
        measure::http_round(&setup, &plan, round, &mut results);
        measure::starts_round(&setup, &plan, round, &mut results);
        for _ in 0..plan.starts.min(5) {
            let sample = common::startup::first_tools_list(
                &many_plugins,
                Some(&many_cache),
                Some(200),
                common::startup::Listing::AtOnce,
            );
            many_ms.push(sample.tools_list.as_secs_f64() * 1e3);
        }
    }
    report(&results, median(&many_ms));
    for r in &mut results {
        r.latency_us.sort_by(f64::total_cmp);
    }
    match plot::draw(&svg, &results) {
        Ok(()) => println!("\nPicture: {}", svg.display()),
        Err(e) => println!("\nthe picture could not be drawn to {}: {e}", svg.display()),
    }
    ExitCode::SUCCESS
}

/// Prints the side-by-side table (Markdown): native, then each host side
/// and its ratio to native.
fn report(results: &[Results; SIDES], many_ms: f64) {
    let native = &results[Side::Native as usize];
    let hosts = &Side::ALL[1..];
    let k = |v: f64| format!("{:.1}k", v / 1e3);
    let rates = |r: &[Vec<f64>; 3]| -> [f64; 3] { [0, 1, 2].map(|i| median(&r[i])) };
    let triple = |f: &dyn Fn(f64) -> String, v: [f64; 3]| v.map(f).join(" / ");
    let row = |label: &str, native: String, cell: &dyn Fn(&Results) -> String| {
        let cells: Vec<String> = hosts.iter().map(|&s| cell(&results[s as usize])).collect();
        println!("| {label} | {native} | {} |", cells.join(" | "));
    };
    let header: Vec<String> = hosts
        .iter()
        .map(|&s| match s {
            Side::Reuse => format!("{} ({REUSE} calls per instance) | ratio", s.name()),
            _ => format!("{} | ratio", s.name()),
        })
        .collect();
    println!(
        "\n| | {} | {} |\n|---|---|{}",
        Side::Native.name(),
        header.join(" | "),
        "---|---|".repeat(hosts.len())
    );
    let (n50, n99) = (median(&native.p50), median(&native.p99));
    row(
        "stdio `tools/call` p50 / p99",
        format!("{n50:.0} / {n99:.0} µs"),
        &|r| {
            let (p50, p99) = (median(&r.p50), median(&r.p99));
            format!(
                "{p50:.0} / {p99:.0} µs | {:.2}× / {:.2}×",
                p50 / n50,
                p99 / n99
            )
        },
    );
    let throughput: [(&str, plot::Rates); 3] = [
        ("stdio calls/s, 1 / 16 / 64 in flight", |r| &r.stdio),
        ("HTTP calls/s, 1 / 16 / 64 clients, sessions", |r| {
            &r.sessions
        }),
        ("HTTP calls/s, 1 / 16 / 64 clients, stateless", |r| {
            &r.stateless
        }),
    ];
    for (label, pick) in throughput {
        let n = rates(pick(native));
        row(label, triple(&k, n), &|r| {
            let h = rates(pick(r));
            let ratios = [0, 1, 2].map(|i| h[i] / n[i]);
            format!(
                "{} | {}",
                triple(&k, h),
                triple(&|r| format!("{r:.2}"), ratios)
            )
        });
    }
    let nf = median(&native.first_call_ms);
    row(
        "start to first call, 1 plugin, warm cache",
        format!("{nf:.1} ms"),
        &|r| {
            let f = median(&r.first_call_ms);
            format!("{f:.1} ms | {:.1}×", f / nf)
        },
    );
    println!(
        "| first `tools/list`, 100 plugins, warm cache | | {many_ms:.0} ms |{}",
        " |".repeat(2 * hosts.len() - 1)
    );
    let nr = median(&native.peak_rss);
    row(
        "peak resident memory, stdio runs",
        format!("{:.1} MiB", nr / 1048576.0),
        &|r| {
            let h = median(&r.peak_rss);
            format!("{:.1} MiB | {:.1}×", h / 1048576.0, h / nr)
        },
    );
}
