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
//! Each case runs both ways in the same run: `tools/list` answered at once
//! (the default: plugins still compiling are listed from the tool-list
//! cache, or appear later) and after the load (`--wait-for-load`, the old
//! path).
//!
//! Run: `cargo bench -p mcp-wasm-host --bench startup` (`-- --quick` for
//! fewer repetitions, `-- --only N` for just the N-plugin case, `--
//! --python` for one fresh Python plugin compiling). It prints the median
//! of each case and the ratios.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::startup::{Listing, Sample, first_tools_list as start, tagged_copies};

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

/// Runs `reps` starts of each cache mode on `plugins`, each both ways
/// (`tools/list` answered at once, and after the load as before), and
/// prints the medians and the ratios. The modes alternate, so drift
/// affects all alike.
fn case(name: &str, plugins: &Path, tools: usize, reps: usize) {
    let warm_dir = tempfile::tempdir().unwrap();
    // Fills the warm cache: compiled components and tool lists.
    start(
        plugins,
        Some(warm_dir.path()),
        Some(tools),
        Listing::AfterLoad,
    );
    let modes = [Cache::Cold, Cache::Warm, Cache::Off];
    let listings = [Listing::AtOnce, Listing::AfterLoad];
    let mut results: Vec<(Cache, Listing, Vec<Sample>)> = modes
        .iter()
        .flat_map(|&m| listings.iter().map(move |&l| (m, l, Vec::new())))
        .collect();
    for _ in 0..reps {
        for (mode, listing, samples) in &mut results {
            let cold_dir = tempfile::tempdir().unwrap();
            let dir = match mode {
                Cache::Cold => Some(cold_dir.path()),
                Cache::Warm => Some(warm_dir.path()),
                Cache::Off => None,
            };
            // Answered at once, a list holds every tool only when the
            // tool-list cache has them all.
            let expected = match (*mode, *listing) {
                (_, Listing::AfterLoad) | (Cache::Warm, Listing::AtOnce) => Some(tools),
                _ => None,
            };
            samples.push(start(plugins, dir, expected, *listing));
        }
    }
    let mut lists = Vec::new();
    for (mode, listing, samples) in &results {
        let init = median(samples.iter().map(|s| s.initialize).collect());
        let list = median(samples.iter().map(|s| s.tools_list).collect());
        let listed = samples.iter().map(|s| s.listed).min().unwrap_or(0);
        let label = match mode {
            Cache::Cold => "cold cache",
            Cache::Warm => "warm cache",
            Cache::Off => "--no-cache",
        };
        let how = match listing {
            Listing::AtOnce => "at once",
            Listing::AfterLoad => "after load",
        };
        println!(
            "{name:<28} {label:<11} {how:<10} initialize {:>9.1} ms  first tools/list {:>9.1} ms ({listed} tools)",
            ms(init),
            ms(list)
        );
        lists.push(list);
    }
    for (i, mode) in ["cold cache", "warm cache", "--no-cache"]
        .iter()
        .enumerate()
    {
        let (now, before) = (lists[2 * i], lists[2 * i + 1]);
        println!(
            "{name:<28} {mode:<11} first tools/list at once / after load = {:.3} ({:.1}× sooner)",
            ms(now) / ms(before),
            ms(before) / ms(now)
        );
    }
    let (cold, warm) = (lists[1], lists[3]);
    println!(
        "{name:<28} after load: warm/cold (first tools/list) = {:.3} ({:.1}× faster)",
        ms(warm) / ms(cold),
        ms(cold) / ms(warm)
    );
}

/// The Python `wordcount` probe (about 20 MB), built by
/// `scripts/build-python-plugin.sh` into `out`, or why it could not be.
fn python_plugin(out: &Path) -> Result<std::path::PathBuf, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let run = std::process::Command::new(root.join("scripts/build-python-plugin.sh"))
        .arg(out)
        .arg("wordcount")
        .env(
            "MCP_WASM_HOST_PLUGIN_SRC",
            root.join("host/benches/guests/python"),
        )
        .current_dir(root)
        .output()
        .map_err(|e| e.to_string())?;
    if !run.status.success() {
        return Err(String::from_utf8_lossy(&run.stderr).into_owned());
    }
    Ok(out.join("wordcount.wasm"))
}

/// A fresh Python plugin compiling (a cold cache): the first `tools/list`
/// answered at once (the plugin appears later, with `list_changed`) against
/// after its load (the old path), in the same run.
fn python_case(reps: usize) {
    let built = tempfile::tempdir().unwrap();
    let file = match python_plugin(built.path()) {
        Ok(file) => file,
        Err(e) => {
            println!("one fresh Python plugin: skipped, it could not be built: {e}");
            return;
        }
    };
    let size = std::fs::metadata(&file).unwrap().len();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bench.toml"), "").unwrap();
    std::fs::copy(&file, dir.path().join("wordcount.wasm")).unwrap();
    let mut at_once = Vec::new();
    let mut after_load = Vec::new();
    for _ in 0..reps {
        let cold = tempfile::tempdir().unwrap();
        at_once.push(start(dir.path(), Some(cold.path()), None, Listing::AtOnce).tools_list);
        let cold = tempfile::tempdir().unwrap();
        after_load
            .push(start(dir.path(), Some(cold.path()), Some(1), Listing::AfterLoad).tools_list);
    }
    let (now, before) = (median(at_once), median(after_load));
    println!(
        "one fresh Python plugin ({:.1} MB), cold cache: first tools/list at once {:.1} ms, after load {:.1} ms: {:.4} ({:.0}× sooner)",
        size as f64 / 1e6,
        ms(now),
        ms(before),
        ms(now) / ms(before),
        ms(before) / ms(now)
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
    if args.iter().any(|a| a == "--python") {
        python_case(reps.min(3));
        return;
    }
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
