//! Warm instance reuse (`reuse_instances`): the `counter` test plugin
//! counts its calls in a static, so each answer says how many calls its
//! instance has served. Without the key every call gets a fresh instance;
//! with it an instance serves that many clean calls, each with its own
//! fuel, and anything but a clean return (or the guest's own `tool-error`)
//! drops it. With `reuse_instances = "session"` an instance serves one
//! client's calls only (the HTTP side is in `http.rs`). Ready instances
//! (`ready_instances`), made ahead of calls, are fresh: never reused, and
//! made under the policy the plugin is loaded with.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::common::{Server, text};
use mcp_wasm_host::runtime::{
    Caller, DefaultPolicies, EngineSettings, Limits, NoEvents, ReloadOutcome, Runtime,
};
use serde_json::{Map, Value, json};

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

#[test]
fn with_session_reuse_the_stdio_client_keeps_its_instance() {
    let (mut s, _dir) = serve("[plugins.counter]\nreuse_instances = \"session\"\n");
    assert_eq!(counts(&mut s, 5), [1, 2, 3, 4, 5]);
    let trapped = s.call_err("trap", json!({}));
    assert!(trapped.contains("trapping on call 6"), "{trapped}");
    assert_eq!(counts(&mut s, 2), [1, 2], "the trap dropped the instance");
}

#[test]
fn a_ready_instance_is_never_reused() {
    let (mut s, _dir) = serve("[plugins.counter]\nready_instances = 4\n");
    assert_eq!(counts(&mut s, 12), [1; 12]);
}

/// A runtime whose plugins load under the policy file `text`.
fn runtime_with_policy(text: &str) -> Runtime {
    let config = mcp_wasm_host::config::Config::parse(
        std::path::Path::new("mcp-wasm-host.toml"),
        text,
        EngineSettings::default().max_memory_bytes as u64,
    )
    .unwrap();
    Runtime::new(&EngineSettings::default(), Arc::new(config)).unwrap()
}

async fn call_text(rt: &Runtime, tool: &str) -> String {
    let out = rt
        .call(tool, arguments(), &Caller::new(), Arc::new(NoEvents))
        .await
        .result
        .unwrap();
    match &out.content[0] {
        mcp_wasm_host::runtime::Content::Text { text, .. } => text.clone(),
        other => panic!("{other:?}"),
    }
}

/// Waits until the plugin serving `tool` has `n` ready instances (they are
/// made on tasks of their own after a call).
async fn until_ready(rt: &Runtime, tool: &str, n: usize) {
    crate::common::eventually_async(
        crate::common::DEADLINE,
        || format!("{tool} never had {n} ready instances"),
        move || async move { (rt.ready_instances(tool) >= n).then_some(()) },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_change_discards_the_ready_instances_made_under_the_old_one() {
    let policy = |tag: &str| {
        format!("[plugins.counter]\nready_instances = 2\n[plugins.counter.env]\nTAG = \"{tag}\"\n")
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("counter.wasm");
    std::fs::copy(test_artifacts::COUNTER, &file).unwrap();
    let rt = runtime_with_policy(&policy("old"));
    rt.load_dir(dir.path()).await.unwrap();
    assert_eq!(rt.ready_instances("tag"), 0, "none before the first call");
    assert_eq!(call_text(&rt, "tag").await, "old 1");
    until_ready(&rt, "tag", 2).await;
    assert_eq!(call_text(&rt, "tag").await, "old 1", "a ready one, fresh");
    until_ready(&rt, "tag", 2).await;
    let new = runtime_with_policy(&policy("new"));
    rt.set_policies(new.policies());
    let report = rt.reload_files(std::slice::from_ref(&file)).await;
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(
        rt.ready_instances("tag"),
        0,
        "the old ones went with the old policy"
    );
    for _ in 0..4 {
        assert_eq!(call_text(&rt, "tag").await, "new 1");
        until_ready(&rt, "tag", 2).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_instances_keep_within_the_engines_instance_slots() {
    // Two slots in all: half of them (one) may hold a kept instance, and a
    // call always gets one.
    let policies = DefaultPolicies {
        limits: Limits {
            ready_instances: 16,
            ..Limits::default()
        },
    };
    let settings = EngineSettings {
        max_instances: 2,
        ..EngineSettings::default()
    };
    let rt = Runtime::new(&settings, Arc::new(policies)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(test_artifacts::COUNTER, dir.path().join("counter.wasm")).unwrap();
    rt.load_dir(dir.path()).await.unwrap();
    for _ in 0..20 {
        assert_eq!(call_count(&rt).await, "1");
        assert!(rt.ready_instances("count") <= 1, "bounded by the pool");
    }
    // As many calls at once as there are slots, while a ready instance
    // holds one or is being made: each still runs, the ready one giving way.
    for _ in 0..20 {
        let (a, b) = tokio::join!(call_count(&rt), call_count(&rt));
        assert_eq!((a.as_str(), b.as_str()), ("1", "1"));
    }
}
