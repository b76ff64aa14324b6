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

mod common;

use std::path::Path;
use std::time::Duration;

use common::startup::{Sample, first_tools_list as start, tagged_copies};

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
        tagged_copies(dir.path(), &panic, n);
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
