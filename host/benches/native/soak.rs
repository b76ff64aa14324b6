//! `--soak [N]`: each server's resident memory over N `tools/call`s
//! (default 1,000,000; 16 in flight over stdio), sampled every tenth of the
//! way, to show that it stays flat: what a call allocates, it frees.

use crate::common::process_memory;
use crate::{Setup, Side};

/// Requests in flight during the soak.
const WINDOW: usize = 16;

/// Calls before the first sample, so that every pool and cache is warm.
const WARM_UP: u64 = 10_000;

/// Runs the soak on both servers, one after the other, and prints the RSS
/// samples and the growth from the first sample to the last.
pub fn run(setup: &Setup, calls: u64) {
    println!(
        "resident memory (VmRSS) over {calls} `tools/call`s per server, {WINDOW} in flight over stdio, after {WARM_UP} warm-up calls"
    );
    let step = (calls / 10).max(1);
    let mut table = Vec::new();
    for side in Side::ALL {
        let mut server = setup.stdio(side);
        server.calls(WINDOW, WARM_UP);
        let pid = server.pid();
        let mib = || process_memory(pid, "VmRSS") as f64 / (1 << 20) as f64;
        let mut samples = vec![mib()];
        let started = std::time::Instant::now();
        let mut done = 0;
        while done < calls {
            let n = step.min(calls - done);
            server.calls(WINDOW, n);
            done += n;
            samples.push(mib());
        }
        let seconds = started.elapsed().as_secs_f64();
        let shown: Vec<String> = samples.iter().map(|m| format!("{m:.1}")).collect();
        println!(
            "  {:<16} {calls} calls in {seconds:.0} s; VmRSS (MiB) every {step} calls: {}",
            side.name(),
            shown.join(" ")
        );
        server.close();
        table.push((samples[0], *samples.last().unwrap()));
    }
    println!("\n| | before | after {calls} calls | growth |\n|---|---|---|---|");
    for (side, (first, last)) in Side::ALL.into_iter().zip(table) {
        println!(
            "| {} VmRSS | {first:.1} MiB | {last:.1} MiB | {:+.1} MiB |",
            side.name(),
            last - first
        );
    }
}
