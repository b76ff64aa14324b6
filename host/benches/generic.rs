//! Generic-component benchmark, as ratios against baselines measured in the
//! same run:
//!
//! - a call: `Runtime::call` of the generic component `plainwit`'s `hash`
//!   (plain wit-bindgen, its string argument lowered and its result lifted
//!   through wasmtime's dynamic API) against the SDK plugin `fnv`'s `hash`
//!   (JSON in and out through `call-tool`), the same FNV-1a work, for a
//!   short and a 64 KiB text;
//! - load: loading a generic component of 100 functions (deriving its
//!   names, schemas and descriptions and compiling the schemas) against one
//!   of 1 function, both from a warm compile cache so that Cranelift is out
//!   of the picture; the difference is what deriving 99 functions costs.
//!
//! Run: `cargo bench -p mcp-wasm-host --bench generic` (`-- --quick` for a
//! short run).
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_wasm_host::runtime::{
    Caller, CompileCache, DefaultPolicies, EngineSettings, Limits, NoEvents, Runtime,
};
use serde_json::{Map, Value, json};

fn p50(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A component of `n` world-level functions of assorted WIT types, built
/// from WIT text (each function traps; only loading is measured).
fn component(n: usize) -> Vec<u8> {
    let mut wit = String::from(
        "package bench:generic;\nworld w {\n  record point { x: f64, y: f64, label: option<string> }\n  variant shape { circle(f64), rect(tuple<f64, f64>), dot }\n  flags style { bold, italic }\n  enum unit { metres, feet }\n",
    );
    let mut core = String::from(
        r#"(module (memory (export "memory") 1)
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) unreachable)
"#,
    );
    for i in 0..n {
        writeln!(
            wit,
            "  /// Function {i}.\n  ///\n  /// - p: a point\n  export tool{i}: func(p: point, s: shape, st: style, u: unit, tags: list<string>) -> result<list<point>, string>;"
        )
        .unwrap();
        // The flattened parameters: point, shape, style, unit, tags.
        writeln!(
            core,
            r#"  (func (export "tool{i}") (param f64 f64 i32 i32 i32 i32 f64 f64 i32 i32 i32 i32) (result i32) unreachable)"#
        )
        .unwrap();
    }
    wit.push_str("}\n");
    core.push_str(")\n");
    test_artifacts::component_of_wit(&wit, "w", &core)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let iterations = if quick { 200 } else { 2000 };
    println!("mcp-wasm-host generic-component benchmark ({iterations} iterations per case)");
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
    let settings = EngineSettings::default();

    // Calls: the same work through a generic export and through the SDK.
    let runtime = Runtime::new(&settings, policies.clone()).unwrap();
    let report = rt.block_on(
        runtime.load_files(&[test_artifacts::PLAINWIT.into(), test_artifacts::FNV.into()]),
    );
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let long = "the quick brown fox jumps over the lazy dog\n".repeat(64 * 1024 / 44);
    for (case, text) in [("short text", "hello"), ("64 KiB text", long.as_str())] {
        let args: Map<String, Value> = json!({ "text": text }).as_object().unwrap().clone();
        let tools = ["fnv.hash", "plainwit.hash"];
        let mut samples: Vec<Vec<Duration>> = vec![Vec::new(), Vec::new()];
        let mut answers = Vec::new();
        for round in 0..(iterations + iterations / 10) {
            for (i, tool) in tools.iter().enumerate() {
                let started = Instant::now();
                let called = rt.block_on(runtime.call(
                    tool,
                    Some(args.clone()),
                    &Caller::new(),
                    Arc::new(NoEvents),
                ));
                let elapsed = started.elapsed();
                let out = called.result.unwrap();
                if round == 0 {
                    answers.push(format!("{:?}", out.content));
                }
                if round >= iterations / 10 {
                    samples[i].push(elapsed);
                }
            }
        }
        let expected = format!(
            "{:016x}",
            text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
        );
        assert!(
            answers.iter().all(|a| a.contains(&expected)),
            "both compute the same hash {expected}: {answers:?}"
        );
        let [sdk, generic] = [p50(samples[0].clone()), p50(samples[1].clone())];
        println!(
            "hash, {case:<12} SDK tool (fnv) p50 {:>9.1} µs   generic export (plainwit) p50 {:>9.1} µs   = {:.2}× the SDK tool",
            us(sdk),
            us(generic),
            us(generic) / us(sdk)
        );
    }

    // Load: deriving 100 functions' tools, against 1, from a warm cache.
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let files: Vec<_> = [(1, "one"), (100, "hundred")]
        .iter()
        .map(|(n, name)| {
            let path = dir.path().join(format!("{name}.wasm"));
            std::fs::write(&path, component(*n)).unwrap();
            path
        })
        .collect();
    let loads = if quick { 10 } else { 50 };
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(), Vec::new()];
    for round in 0..(loads + 2) {
        for (i, file) in files.iter().enumerate() {
            let runtime = Runtime::new(&settings, policies.clone())
                .unwrap()
                .with_cache(Some(CompileCache::open(cache_dir.path()).unwrap()));
            let started = Instant::now();
            let report = rt.block_on(runtime.load_files(std::slice::from_ref(file)));
            let elapsed = started.elapsed();
            assert!(report.failed.is_empty(), "{:?}", report.failed);
            if round >= 2 {
                times[i].push(elapsed);
            }
        }
    }
    let [one, hundred] = [p50(times[0].clone()), p50(times[1].clone())];
    println!(
        "load from a warm cache: 1 function p50 {:>9.1} µs   100 functions p50 {:>9.1} µs   = {:.2}× ; deriving and checking a function's tool ≈ {:.1} µs",
        us(one),
        us(hundred),
        us(hundred) / us(one),
        (us(hundred) - us(one)) / 99.0
    );
}
