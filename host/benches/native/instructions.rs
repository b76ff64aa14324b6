//! `--instructions`: user-space instructions per stdio `tools/call`, for each
//! server, counted by callgrind (`valgrind --tool=callgrind`; hardware
//! counters are not available on every machine, and callgrind's count does
//! not move with the machine's load).
//!
//! Each server runs twice under callgrind: the handshake and `FEW` calls,
//! then the handshake and `MANY` calls, each up to its exit at the end of
//! stdin. Startup and shutdown are the same in both runs, so the difference
//! over `MANY - FEW` is what one call costs, every thread of the process
//! counted (the runtime's workers, the host's epoch ticker, tokio's blocking
//! pool that reads stdin), kernel time not. The whole measure runs twice to
//! show how far the figure moves. The host runs with `--max-instances 2`
//! (see [`count`]).

use std::path::Path;
use std::process::Command;

use crate::common::stdio::{StdioClient, request};
use crate::measure::Stdio;
use crate::{SIDES, Setup, Side};

/// The host's pool under callgrind, and its lists wait for the plugin (see
/// [`count`]).
const UNDER_CALLGRIND: [&str; 3] = ["--max-instances", "2", "--wait-for-load=true"];

/// Prints the instruction counts, or why they cannot be had.
pub fn run(setup: &Setup, quick: bool) {
    let (few, many) = if quick { (50, 250) } else { (200, 1200) };
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("--instructions needs valgrind (callgrind), which is not installed");
        return;
    }
    println!(
        "user-space instructions per stdio `tools/call` (callgrind): each server runs {few} and {many} calls; (I({many}) - I({few})) / {}, measured twice",
        many - few
    );
    // The engine's configuration is part of the compile cache's key: its
    // `--max-instances`, and the CPU features the engine detects, which
    // differ under valgrind. Without one run under callgrind first, the
    // first host run counted would compile the plugin, and its count would
    // be that.
    count(setup, Side::Host, 1);
    let mut per_call: [Vec<f64>; SIDES] = Default::default();
    for repeat in 0..2 {
        for side in Side::order(repeat) {
            let counts = [few, many].map(|calls| count(setup, side, calls));
            let figure = (counts[1] as f64 - counts[0] as f64) / (many - few) as f64;
            println!(
                "  run {}: {:<16} {} instructions with {few} calls, {} with {many}: {figure:.0} per call",
                repeat + 1,
                side.name(),
                counts[0],
                counts[1]
            );
            per_call[side as usize].push(figure);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let spread = |v: &[f64]| (v[1] - v[0]).abs() / mean(v) * 100.0;
    let native = mean(&per_call[Side::Native as usize]);
    let hosts = &Side::ALL[1..];
    let names: Vec<String> = hosts
        .iter()
        .map(|s| format!("{} | ratio", s.name()))
        .collect();
    let cells: Vec<String> = hosts
        .iter()
        .map(|&s| {
            let m = mean(&per_call[s as usize]);
            format!("{:.1}k | {:.2}×", m / 1e3, m / native)
        })
        .collect();
    println!(
        "\n| | {} | {} |\n|---|---|{}",
        Side::Native.name(),
        names.join(" | "),
        "---|---|".repeat(hosts.len())
    );
    println!(
        "| user-space instructions per `tools/call` | {:.1}k | {} |",
        native / 1e3,
        cells.join(" | ")
    );
    let spreads: Vec<String> = Side::ALL
        .iter()
        .map(|&s| format!("{:.2}% ({})", spread(&per_call[s as usize]), s.name()))
        .collect();
    println!("\nThe two runs differ by {}.", spreads.join(", "));
}

/// The instructions `side`'s server executes, over its whole life, serving
/// the handshake and `calls` sequential calls.
fn count(setup: &Setup, side: Side, calls: usize) -> u64 {
    let out = setup
        .dir
        .path()
        .join(format!("callgrind.{side:?}.{calls}.out"));
    // valgrind cannot reserve the address space of the host's default
    // pool (256 instances, terabytes); sequential calls use one instance at
    // a time, so a pool of 2 runs the same path.
    let extra: &[&str] = match side {
        Side::Native => &[],
        _ => &UNDER_CALLGRIND,
    };
    let server = setup.command(side, extra);
    let mut command = Command::new("valgrind");
    command
        .args(["--tool=callgrind", "--quiet"])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(server.get_program())
        .args(server.get_args());
    let mut client = StdioClient::spawn(command);
    client.initialize();
    // Under callgrind, checking and mapping the cached plugin takes longer
    // than a call's 10 s timeout: the first `tools/list` waits for the load
    // (`--wait-for-load=true`), so that every counted call finds it loaded.
    client.round_trip(&request(0, "tools/list", &serde_json::json!({})));
    let mut server = Stdio::new(client);
    for _ in 0..calls {
        server.call();
    }
    server.close();
    let total = total_instructions(&out);
    std::fs::remove_file(&out).unwrap();
    total
}

/// The `summary:` (or `totals:`) count of a callgrind output file.
fn total_instructions(file: &Path) -> u64 {
    let text = std::fs::read_to_string(file).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("summary:") || l.starts_with("totals:"))
        .unwrap_or_else(|| panic!("no summary in {}", file.display()));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
