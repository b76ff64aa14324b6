//! Warm instance reuse (`reuse_instances`): the `counter` test plugin
//! counts its calls in a static, so each answer says how many calls its
//! instance has served. Without the key every call gets a fresh instance;
//! with it an instance serves that many clean calls, each with its own
//! fuel, and anything but a clean return (or the guest's own `tool-error`)
//! drops it.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::common::{Server, text};
use mcp_wasm_host::runtime::{
    Caller, DefaultPolicies, EngineSettings, Limits, NoEvents, ReloadOutcome, Runtime,
};
use serde_json::{Map, Value, json};

const R4: &str = "2025-11-25";

fn serve(policy: &str) -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) =
        crate::common::plugins_with_policy(&[test_artifacts::COUNTER], policy);
    let server = Server::initialized(&plugins, &["--config", &config], R4);
    (server, dir)
}

/// What `count` answers: the calls its instance has served.
fn count(s: &mut Server) -> u32 {
    text(&s.call_ok("count", json!({}))).parse().unwrap()
}

fn counts(s: &mut Server, calls: usize) -> Vec<u32> {
    (0..calls).map(|_| count(s)).collect()
}

#[test]
fn without_the_key_or_with_0_or_1_every_call_gets_a_fresh_instance() {
    let (mut s, _dir) = serve("[defaults]\nrate_limit = 0\n");
    assert_eq!(counts(&mut s, 4), [1, 1, 1, 1]);
    for reuse in [0, 1] {
        let (mut s, _dir) = serve(&format!("[plugins.counter]\nreuse_instances = {reuse}\n"));
        assert_eq!(counts(&mut s, 3), [1, 1, 1], "reuse_instances = {reuse}");
    }
}

#[test]
fn an_instance_serves_reuse_instances_calls_then_a_fresh_one_takes_over() {
    let (mut s, _dir) = serve("[plugins.counter]\nreuse_instances = 3\n");
    assert_eq!(counts(&mut s, 7), [1, 2, 3, 1, 2, 3, 1]);
}

#[test]
fn the_defaults_section_sets_reuse_for_every_plugin_and_a_plugin_may_opt_out() {
    let (mut s, _dir) = serve("[defaults]\nreuse_instances = 2\n");
    assert_eq!(counts(&mut s, 4), [1, 2, 1, 2]);
    let (mut s, _dir) =
        serve("[defaults]\nreuse_instances = 2\n[plugins.counter]\nreuse_instances = 0\n");
    assert_eq!(counts(&mut s, 3), [1, 1, 1]);
}

#[test]
fn a_guest_tool_error_keeps_the_instance_and_a_trap_drops_it() {
    let (mut s, _dir) = serve("[plugins.counter]\nreuse_instances = 10\n");
    assert_eq!(counts(&mut s, 2), [1, 2]);
    let failed = s.call_err("fail", json!({}));
    assert!(failed.contains("failed on call 3"), "{failed}");
    assert_eq!(count(&mut s), 4, "the tool error kept the instance");
    let trapped = s.call_err("trap", json!({}));
    assert!(trapped.contains("trapping on call 5"), "{trapped}");
    assert_eq!(counts(&mut s, 2), [1, 2], "the trap dropped the instance");
}

#[test]
fn a_limit_hit_drops_the_instance() {
    let (mut s, _dir) = serve("[plugins.counter]\nreuse_instances = 10\nfuel = 20_000_000\n");
    assert_eq!(counts(&mut s, 2), [1, 2]);
    let spent = s.call_err("burn", json!({"iterations": u64::MAX}));
    assert!(spent.contains("ran out of fuel"), "{spent}");
    assert_eq!(count(&mut s), 1, "the instance that ran out is gone");
}

/// The iterations of `burn` that first run out of `fuel = 20_000_000`,
/// doubling from 1024: the one before still fits.
fn first_failing_burn(s: &mut Server) -> u64 {
    let mut iterations = 1024u64;
    loop {
        let response = s.call("burn", json!({ "iterations": iterations }));
        let result = &response["result"];
        if result["isError"] == json!(true) {
            let message = text(result);
            assert!(message.contains("ran out of fuel"), "{message}");
            return iterations;
        }
        iterations *= 2;
        assert!(iterations < 1 << 40, "burn never ran out of fuel");
    }
}

#[test]
fn each_call_on_a_reused_instance_gets_the_whole_fuel_budget() {
    let (mut s, _dir) = serve("[plugins.counter]\nreuse_instances = 3\nfuel = 20_000_000\n");
    let failing = first_failing_burn(&mut s);
    // `failing / 2` iterations fit in the budget, so `failing` cost less
    // than twice it: three-eighths of `failing` costs more than a third of
    // the budget and less than three quarters. Three such calls on one
    // instance fit only if each gets its own budget.
    let burn = json!({ "iterations": failing * 3 / 8 });
    let served: Vec<String> = (0..3)
        .map(|_| text(&s.call_ok("burn", burn.clone())))
        .collect();
    assert_eq!(served, ["1", "2", "3"], "one instance served all three");
}

fn arguments() -> Option<Map<String, Value>> {
    Some(Map::new())
}

async fn call_count(rt: &Runtime) -> String {
    let out = rt
        .call("count", arguments(), &Caller::new(), Arc::new(NoEvents))
        .await
        .result
        .unwrap();
    match &out.content[0] {
        mcp_wasm_host::runtime::Content::Text { text, .. } => text.clone(),
        other => panic!("{other:?}"),
    }
}

/// A runtime with `slots` instance slots whose plugins' instances serve
/// up to 100 calls each.
fn reusing_runtime(slots: u32) -> Runtime {
    let policies = DefaultPolicies {
        limits: Limits {
            reuse_instances: 100,
            ..Limits::default()
        },
    };
    let settings = EngineSettings {
        max_instances: slots,
        ..EngineSettings::default()
    };
    Runtime::new(&settings, Arc::new(policies)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_drops_the_idle_instances_of_the_old_version() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("counter.wasm");
    std::fs::copy(test_artifacts::COUNTER, &file).unwrap();
    let rt = reusing_runtime(8);
    rt.load_dir(dir.path()).await.unwrap();
    assert_eq!(call_count(&rt).await, "1");
    assert_eq!(call_count(&rt).await, "2");
    // The same bytes with another modification time: a new version.
    let later = SystemTime::now() + Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let outcome = rt.reload_file(&file).await;
    assert!(
        matches!(outcome, ReloadOutcome::Loaded { replaced: true, .. }),
        "{outcome:?}"
    );
    assert_eq!(call_count(&rt).await, "1", "the new version starts fresh");
    assert_eq!(call_count(&rt).await, "2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_instances_never_keep_a_load_or_a_call_from_running() {
    // One instance slot in all, which the counter's idle instance holds
    // after each of its calls.
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("counter.wasm");
    let residue = dir.path().join("residue.wasm");
    std::fs::copy(test_artifacts::COUNTER, &counter).unwrap();
    std::fs::copy(test_artifacts::RESIDUE, &residue).unwrap();
    let rt = reusing_runtime(1);
    let report = rt.load_files(std::slice::from_ref(&counter)).await;
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(call_count(&rt).await, "1");
    assert_eq!(call_count(&rt).await, "2");
    // Loading another plugin lists its tools in an instance of its own.
    let outcome = rt.reload_file(&residue).await;
    assert!(
        matches!(outcome, ReloadOutcome::Loaded { .. }),
        "{outcome:?}"
    );
    assert_eq!(call_count(&rt).await, "1", "the idle instance gave way");
    let look = rt
        .call("look", arguments(), &Caller::new(), Arc::new(NoEvents))
        .await
        .result
        .unwrap();
    assert!(!look.is_error, "{look:?}");
    assert_eq!(call_count(&rt).await, "1", "and again");
}
