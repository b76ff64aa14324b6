//! Call-path benchmark: what one tool call costs, as ratios against a
//! baseline measured in the same run.
//!
//! - In the host: `Runtime::call` (fresh store, instantiate from the
//!   `InstancePre`, call, drop) of a trivial tool and of a CPU-bound one
//!   (SHA-256 of 64 KiB), with the default engine (pooling allocator, fuel
//!   metering, epoch interruption) and with each of those turned off; the
//!   baseline is pooling with fuel and epoch off, so the ratios are what the
//!   enforcement and the allocator cost.
//! - Over stdio: a `tools/call` round trip through the real binary, against a
//!   `ping` round trip (the protocol's floor: rmcp, the line filter and the
//!   pipes, no guest).
//! - Secrets redaction: the same in-host calls under a policy with no
//!   secrets (the baseline), with 10 secrets exposed to the plugin (every
//!   result searched for each in all its forms), and with 10 secrets and
//!   `block_secrets` (the arguments searched too).
//!
//! Run: `cargo bench -p mcp-wasm-host --bench calls` (`-- --quick` for a
//! short run, `-- --secrets` for the redaction cases alone). It prints
//! p50/p90/p99 per case and the ratios.
#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::stdio::{StdioClient, request};
use mcp_wasm_host::config::Config;
use mcp_wasm_host::runtime::capabilities::secrets::redact::forms;
use mcp_wasm_host::runtime::{Caller, DefaultPolicies, EngineSettings, Limits, NoEvents, Runtime};
use serde_json::{Map, Value, json};

/// A benchmark case: its name, the tool, and the tool's arguments.
type Case = (&'static str, &'static str, Option<Map<String, Value>>);

struct Stats {
    p50: Duration,
    p90: Duration,
    p99: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    Stats {
        p50: at(0.50),
        p90: at(0.90),
        p99: at(0.99),
    }
}

fn report_line(name: &str, s: &Stats, baseline: Option<(&str, &Stats)>) {
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    print!(
        "{name:<62} p50 {:>9.1} µs  p90 {:>9.1} µs  p99 {:>9.1} µs",
        us(s.p50),
        us(s.p90),
        us(s.p99)
    );
    if let Some((base_name, b)) = baseline {
        print!("  = {:.2}× {base_name} (p50)", us(s.p50) / us(b.p50));
    }
    println!();
}

fn in_host(iterations: usize) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let policies = Arc::new(DefaultPolicies {
        limits: Limits {
            rate_limit_per_minute: 0,
            ..Limits::default()
        },
    });
    let base = EngineSettings::default();
    let engines = [
        (
            "pooling, no fuel, no epoch (baseline)",
            EngineSettings {
                fuel: false,
                epoch: false,
                ..base.clone()
            },
        ),
        ("pooling, fuel + epoch (default)", base.clone()),
        (
            "pooling, fuel only",
            EngineSettings {
                epoch: false,
                ..base.clone()
            },
        ),
        (
            "pooling, epoch only",
            EngineSettings {
                fuel: false,
                ..base.clone()
            },
        ),
        (
            "pooling, fuel + epoch, nothing kept resident",
            EngineSettings {
                keep_resident: 0,
                ..base.clone()
            },
        ),
        (
            "on-demand alloc, fuel + epoch",
            EngineSettings {
                pooling: false,
                ..base.clone()
            },
        ),
    ];
    let text: String = "the quick brown fox jumps over the lazy dog\n".repeat(64 * 1024 / 44);
    let hash_args: Map<String, Value> = json!({ "text": text, "algorithm": "sha256" })
        .as_object()
        .unwrap()
        .clone();
    let cases: [Case; 2] = [
        ("trivial tool", "ok", None),
        ("sha256 of 64 KiB", "hash", Some(hash_args)),
    ];
    let runtimes: Vec<Runtime> = engines
        .iter()
        .map(|(_, settings)| {
            let runtime = Runtime::new(settings, policies.clone()).unwrap();
            let report = rt.block_on(runtime.load_files(&[
                test_artifacts::PANIC.into(),
                test_artifacts::ENCODING.into(),
            ]));
            assert!(report.failed.is_empty(), "{:?}", report.failed);
            runtime
        })
        .collect();
    let names: Vec<&str> = engines.iter().map(|(name, _)| *name).collect();
    compare(&rt, &runtimes, &names, &cases, "in host", iterations);
}

/// Calls each case `iterations` times (after a tenth as many to warm up)
/// on each runtime in turn, round-robin so that drift in the machine's
/// speed affects every runtime alike, and reports each runtime against the
/// first (the baseline).
fn compare(
    rt: &tokio::runtime::Runtime,
    runtimes: &[Runtime],
    names: &[&str],
    cases: &[Case],
    label: &str,
    iterations: usize,
) {
    for (case, tool, args) in cases {
        let mut samples: Vec<Vec<Duration>> = vec![Vec::with_capacity(iterations); runtimes.len()];
        rt.block_on(async {
            for round in 0..(iterations + iterations / 10) {
                for (i, runtime) in runtimes.iter().enumerate() {
                    let args = args.clone();
                    let t = Instant::now();
                    let out = runtime
                        .call(tool, args, &Caller::new(), Arc::new(NoEvents))
                        .await
                        .result
                        .unwrap();
                    let elapsed = t.elapsed();
                    assert!(!out.is_error);
                    if round >= iterations / 10 {
                        samples[i].push(elapsed);
                    }
                }
            }
        });
        let mut all = samples.into_iter().map(stats);
        let baseline = all.next().unwrap();
        report_line(&format!("{label}, {case}: {}", names[0]), &baseline, None);
        for (s, name) in all.zip(names.iter().skip(1)) {
            report_line(
                &format!("{label}, {case}: {name}"),
                &s,
                Some(("baseline", &baseline)),
            );
        }
    }
}

fn over_stdio(iterations: usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(test_artifacts::PANIC, dir.path().join("panic.wasm")).unwrap();
    let config = dir.path().join("bench.toml");
    std::fs::write(&config, "[defaults]\nrate_limit = 0\n").unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-wasm-host"));
    command
        .args(["serve", "--log", "warn", "--config"])
        .arg(&config)
        .arg("--plugins")
        .arg(dir.path());
    let mut client = StdioClient::spawn(command);
    client.initialize();
    let mut id = 0;
    let mut run = |method: &str, params: Value| {
        let mut samples = Vec::with_capacity(iterations);
        for i in 0..(iterations + iterations / 10) {
            id += 1;
            let d = client.round_trip(&request(id, method, &params));
            if i >= iterations / 10 {
                samples.push(d);
            }
        }
        stats(samples)
    };
    let ping = run("ping", json!({}));
    let call = run("tools/call", json!({"name": "ok", "arguments": {}}));
    report_line("stdio: ping round trip", &ping, None);
    report_line(
        "stdio: tools/call round trip (trivial tool)",
        &call,
        Some(("ping", &ping)),
    );
}

/// The `i`th secret: a realistic token of 44 characters, some of them `/`,
/// `+`, `=`.
fn bench_secret(i: usize) -> String {
    format!("sk-{i:02}/bench+Zq8={}", "aB3x".repeat(7))
}

/// A policy file in `dir` granting `n` secrets (files of mode 0600) to the
/// `panic` and `encoding` plugins, exposed, with `block_secrets` if `block`.
fn secrets_policy(dir: &std::path::Path, n: usize, block: bool) -> Arc<Config> {
    use std::os::unix::fs::PermissionsExt;
    let mut text = String::from("[defaults]\nrate_limit = 0\n");
    text.push_str(&format!("block_secrets = {block}\n"));
    for plugin in ["panic", "encoding"] {
        for i in 0..n {
            let file = dir.join(format!("secret{i}"));
            std::fs::write(&file, bench_secret(i)).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
            text.push_str(&format!(
                "[plugins.{plugin}.secrets.S{i}]\nfile = {:?}\nexpose = true\n",
                file.display().to_string()
            ));
        }
    }
    let path = dir.join(format!("bench-{n}-{block}.toml"));
    Arc::new(Config::parse(&path, &text, 1 << 30).unwrap())
}

fn redaction(iterations: usize) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sides = [
        ("no secrets (baseline)", 0, false),
        ("10 secrets", 10, false),
        ("10 secrets, block_secrets", 10, true),
    ];
    let runtimes: Vec<Runtime> = sides
        .iter()
        .map(|&(_, n, block)| {
            let runtime = Runtime::new(
                &EngineSettings::default(),
                secrets_policy(dir.path(), n, block),
            )
            .unwrap();
            let report = rt.block_on(runtime.load_files(&[
                test_artifacts::PANIC.into(),
                test_artifacts::ENCODING.into(),
            ]));
            assert!(report.failed.is_empty(), "{:?}", report.failed);
            runtime
        })
        .collect();
    let args = |bytes: usize| -> Option<Map<String, Value>> {
        let text: String = "the quick brown fox jumps over the lazy dog\n"
            .repeat(bytes / 44 + 1)
            .chars()
            .take(bytes)
            .collect();
        json!({ "text": text }).as_object().cloned()
    };
    let cases: [Case; 3] = [
        ("trivial tool", "ok", None),
        ("hex of 4 KiB (8 KiB result)", "hex_encode", args(4 << 10)),
        (
            "hex of 64 KiB (128 KiB result)",
            "hex_encode",
            args(64 << 10),
        ),
    ];
    let patterns: usize = (0..10).map(|i| forms(&bench_secret(i)).len()).sum();
    println!("10 secrets: {patterns} patterns in the automaton");
    let names: Vec<&str> = sides.iter().map(|(name, ..)| *name).collect();
    compare(&rt, &runtimes, &names, &cases, "secrets", iterations);
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let only_secrets = std::env::args().any(|a| a == "--secrets");
    let iterations = if quick { 200 } else { 2000 };
    println!("mcp-wasm-host call benchmark ({iterations} iterations per case)");
    if !only_secrets {
        in_host(iterations);
        over_stdio(iterations);
    }
    redaction(iterations);
}
