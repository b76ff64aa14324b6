//! Quick first compiles (`serve --quick-compile`): a plugin new to the
//! compile cache serves Winch's code at once, and Cranelift's code, compiled
//! in the background, replaces it. The background compile is held by a
//! debug-only hook (`MCP_WASM_HOST_TEST_HOLD_OPTIMIZE`), so every step is
//! ordered by log lines, never by time. `sandbox::winch` runs the sandbox's
//! attacks against Winch's code.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::path::Path;

use crate::common::{QUICK_COMPILE, Server, text};
use serde_json::json;

const QUICK: &str = "compiled quickly (Winch)";
const HELD: &str = "holding the optimizing compile";
const OPTIMIZED: &str = "optimized: Cranelift's code now serves it";

/// `serve` on `plugins` with the quick rule `rule`, the compile cache
/// `cache`, and background compiles held until released in `hold`.
fn start(plugins: &Path, rule: &str, cache: &Path, hold: &Path, watch: bool) -> Server {
    let env = [
        (QUICK_COMPILE, rule),
        ("MCP_WASM_HOST_TEST_HOLD_OPTIMIZE", hold.to_str().unwrap()),
    ];
    let mut args = vec!["--cache-dir", cache.to_str().unwrap()];
    if !watch {
        args.push("--no-watch");
    }
    let mut s = Server::start_with_env(plugins, &args, &env);
    assert!(s.initialize(R4).get("result").is_some());
    s
}

fn release(hold: &Path, plugin: &str) {
    std::fs::write(hold.join(format!("{plugin}.release")), "").unwrap();
}

fn hash(s: &mut Server) -> String {
    text(&s.call_ok("hash", json!({"text": "quick"})))
}

/// Winch's code answers while Cranelift's compile is held; once released,
/// Cranelift's code replaces it and gives the same answers, and it is what
/// the compile cache keeps: a restart loads it from there and compiles
/// nothing.
#[test]
fn a_new_plugin_answers_on_winch_code_until_cranelift_code_replaces_it() {
    let dir = crate::common::plugin_dir(&[test_artifacts::FNV]);
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = start(dir.path(), "always", cache.path(), hold.path(), false);
    s.wait_for_stderr(QUICK);
    s.wait_for_stderr(HELD);
    let quick = hash(&mut s);
    assert!(!s.stderr().contains(OPTIMIZED), "{}", s.stderr());

    release(hold.path(), "fnv");
    s.wait_for_stderr(OPTIMIZED);
    assert_eq!(hash(&mut s), quick, "both compilers' code agree");
    s.close_stdin();
    assert_eq!(s.wait(), Some(0));

    let mut again = start(dir.path(), "always", cache.path(), hold.path(), false);
    again.wait_for_stderr("loaded from cache");
    assert_eq!(hash(&mut again), quick);
    let log = again.stderr();
    assert!(
        !log.contains(QUICK) && !log.contains(HELD) && !log.contains("Winch's code"),
        "the optimized code replaced the quick code's entry: {log}"
    );
}

/// Closing stdin while a background compile runs exits at once and
/// cleanly: the compile is abandoned, not awaited. Winch's code was cached,
/// so the next start loads it from there, compiles nothing before serving,
/// and optimizes in the background again.
#[test]
fn a_server_stopped_before_optimizing_starts_again_from_cached_winch_code() {
    let dir = crate::common::plugin_dir(&[test_artifacts::FNV]);
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = start(dir.path(), "always", cache.path(), hold.path(), false);
    s.wait_for_stderr(HELD);
    let quick = hash(&mut s);
    s.close_stdin();
    assert_eq!(s.wait(), Some(0), "{}", s.stderr());
    let log = s.stderr();
    assert!(!log.contains("ERROR") && !log.contains(OPTIMIZED), "{log}");

    let mut again = start(dir.path(), "always", cache.path(), hold.path(), false);
    again.wait_for_stderr("loaded Winch's code from cache");
    again.wait_for_stderr(HELD);
    assert_eq!(hash(&mut again), quick);
    let log = again.stderr();
    assert!(
        !log.contains(QUICK) && !log.contains("compiled plugin"),
        "{log}"
    );
    release(hold.path(), "fnv");
    again.wait_for_stderr(OPTIMIZED);
}

/// A file replaced while its quick code waits for Cranelift's: the first
/// background compile finds the file changed and swaps nothing in, so the
/// new version is never replaced by the old one's code; the new version's
/// own background compile then replaces its quick code.
#[test]
fn a_background_compile_never_brings_back_a_replaced_version() {
    let dir = crate::common::plugin_dir(&[]);
    let file = dir.path().join("p.wasm");
    std::fs::copy(test_artifacts::FNV, &file).unwrap();
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = start(dir.path(), "always", cache.path(), hold.path(), true);
    s.wait_for_stderr("watching the plugins directory");
    s.wait_for_count(HELD, 1);
    hash(&mut s);

    std::fs::copy(test_artifacts::WORDCOUNT, &file).unwrap();
    s.wait_for_count(QUICK, 2);
    release(hold.path(), "p");
    s.wait_for_stderr(OPTIMIZED);
    let counted = s.call_ok("word_count", json!({"text": "one two three"}));
    assert!(text(&counted).contains('3'), "{counted}");
    let old = s.call("hash", json!({"text": "quick"}));
    assert!(
        old.get("error").is_some() || old["result"]["isError"] == json!(true),
        "the replaced version's tool must be gone: {old}"
    );
    assert_eq!(
        s.stderr().matches(OPTIMIZED).count(),
        1,
        "only the new version is optimized:\n{}",
        s.stderr()
    );
}

/// The default rule, `large`, on real plugins: a JavaScript plugin (an
/// interpreter of several MiB) is compiled quickly first, a small Rust
/// plugin beside it by Cranelift alone.
#[test]
fn by_default_only_large_plugins_are_compiled_quickly() {
    let Some(built) = crate::js_plugins::built() else {
        return;
    };
    let markdown = built.join("markdown.wasm");
    assert!(
        std::fs::metadata(&markdown).unwrap().len() >= 4 << 20,
        "the JavaScript plugin is large"
    );
    let dir = crate::common::plugin_dir(&[markdown.to_str().unwrap(), test_artifacts::FNV]);
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = start(dir.path(), "large", cache.path(), hold.path(), false);
    s.wait_for_stderr(HELD);
    let table = "| a | b |\n|---|---|\n| 1 | 2 |";
    let parsed = s.call_ok("parse_table", json!({"markdown": table}));
    assert!(text(&parsed).contains('2'), "{parsed}");
    hash(&mut s);
    let log = s.stderr();
    let quick: Vec<&str> = log.lines().filter(|l| l.contains(QUICK)).collect();
    assert!(
        quick.len() == 1 && quick[0].contains("plugin=\"markdown\""),
        "{log}"
    );
    assert!(log.contains("compiled plugin=\"fnv\""), "{log}");
}
