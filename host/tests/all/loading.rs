//! Nothing waits for a compile (issue 31 §2): `initialize`, `ping` and
//! `tools/list` are answered while plugins still load; a plugin still
//! loading is listed from its cached tool list; a call to it waits for its
//! load within its timeout; a client that leaves during the load gets a
//! clean shutdown.
//!
//! Each test holds the loads with the debug builds' test hook
//! (`MCP_WASM_HOST_TEST_HOLD_LOADS`: a plugin's load waits until
//! `DIR/NAME.release` exists), so what happens "while a plugin loads" is
//! ordered by the test, never by time.

use crate::common::revision::R3 as VERSION;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Server, plugins_with_policy, text};

/// A policy passing `TOOLBOMB_TOOLS` (how many tools `toolbomb` lists)
/// through from the server's environment: the plugin's list then changes
/// without its file or its policy changing.
const POLICY: &str = r#"
[plugins.toolbomb]
env_passthrough = ["TOOLBOMB_TOOLS"]
timeout = "2s"
"#;

/// Starts a server on `plugins`, with its loads held until released in
/// `hold`, its compile cache (and tool lists) in `cache`, and `TOOLBOMB_TOOLS`
/// set to `tools`, in the mode under test here (`--wait-for-load=false`):
/// lists answered while plugins load.
fn start(plugins: &Path, config: &str, cache: &Path, hold: &Path, tools: &str) -> Server {
    start_waiting(plugins, config, cache, hold, tools, "false")
}

/// As [`start`], with `--wait-for-load=WAIT`.
fn start_waiting(
    plugins: &Path,
    config: &str,
    cache: &Path,
    hold: &Path,
    tools: &str,
    wait: &str,
) -> Server {
    let wait = format!("--wait-for-load={wait}");
    let mut s = Server::start_with_env(
        plugins,
        &[
            "--config",
            config,
            "--cache-dir",
            cache.to_str().unwrap(),
            "--no-watch",
            &wait,
        ],
        &[
            ("MCP_WASM_HOST_TEST_HOLD_LOADS", hold.to_str().unwrap()),
            ("TOOLBOMB_TOOLS", tools),
        ],
    );
    let init = s.initialize(VERSION);
    assert!(init.get("result").is_some(), "initialize failed: {init}");
    s
}

fn release(hold: &Path, plugin: &str) {
    std::fs::write(hold.join(format!("{plugin}.release")), "").unwrap();
}

fn tool_names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tool list: {list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// Waits for `notifications/tools/list_changed`, keeping what comes before.
fn wait_for_list_changed(s: &mut Server) {
    if s.notifications
        .iter()
        .any(|n| n["method"] == "notifications/tools/list_changed")
    {
        return;
    }
    loop {
        let msg = s.recv();
        if msg["method"] == "notifications/tools/list_changed" {
            return;
        }
        s.notifications.push(msg);
    }
}

/// A first start of `toolbomb` with `tools` tools, run to the end of its
/// load, so that its tool list is in `cache`.
fn cache_the_list(plugins: &Path, config: &str, cache: &Path, tools: &str) {
    let hold = tempfile::tempdir().unwrap();
    release(hold.path(), "toolbomb");
    let mut s = start(plugins, config, cache, hold.path(), tools);
    s.wait_for_stderr("plugins loaded");
    s.close_stdin();
    assert_eq!(s.wait(), Some(0), "{}", s.stderr());
}

fn toolbomb() -> (tempfile::TempDir, std::path::PathBuf, String) {
    plugins_with_policy(&[test_artifacts::TOOLBOMB], POLICY)
}

/// The issue's test: `tools/list` is answered while a plugin is still
/// compiling — the answer comes before the compile's end is logged — and
/// the plugin appears with `list_changed` once it has loaded.
#[test]
fn tools_list_is_answered_while_a_plugin_is_still_compiling() {
    let (_dir, plugins, config) = toolbomb();
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = start(&plugins, &config, cache.path(), hold.path(), "3");
    let ping = s.request("ping", json!({}));
    assert!(ping.get("result").is_some(), "{ping}");
    let list = s.request("tools/list", json!({}));
    assert_eq!(tool_names(&list), Vec::<String>::new(), "{list}");
    // The hold's line can trail the answer (the log is read by a thread);
    // the compile cannot end before the release below.
    s.wait_for_stderr("test hook: holding the load");
    let log = s.stderr();
    assert!(
        !log.contains("compiled"),
        "tools/list was answered after the compile ended:\n{log}"
    );
    release(hold.path(), "toolbomb");
    wait_for_list_changed(&mut s);
    // The compile's end is logged, and only now.
    s.wait_for_stderr("compiled");
    let list = s.request("tools/list", json!({}));
    assert_eq!(tool_names(&list), ["tool_0", "tool_1", "tool_2"]);
}

/// A plugin still loading is listed from its cached list; when its own
/// list differs (here: one tool more), clients get `list_changed` and the
/// new list.
#[test]
fn a_cached_list_is_served_while_loading_then_replaced_with_list_changed() {
    let (_dir, plugins, config) = toolbomb();
    let cache = tempfile::tempdir().unwrap();
    cache_the_list(&plugins, &config, cache.path(), "2");
    let hold = tempfile::tempdir().unwrap();
    let mut s = start(&plugins, &config, cache.path(), hold.path(), "3");
    let list = s.request("tools/list", json!({}));
    assert_eq!(tool_names(&list), ["tool_0", "tool_1"], "{list}");
    assert!(!s.stderr().contains("loaded plugin"), "{}", s.stderr());
    release(hold.path(), "toolbomb");
    wait_for_list_changed(&mut s);
    let list = s.request("tools/list", json!({}));
    assert_eq!(tool_names(&list), ["tool_0", "tool_1", "tool_2"]);
}

/// The same list once loaded: no `list_changed`.
#[test]
fn an_unchanged_list_is_not_announced_again() {
    let (_dir, plugins, config) = toolbomb();
    let cache = tempfile::tempdir().unwrap();
    cache_the_list(&plugins, &config, cache.path(), "2");
    let hold = tempfile::tempdir().unwrap();
    let mut s = start(&plugins, &config, cache.path(), hold.path(), "2");
    let list = s.request("tools/list", json!({}));
    assert_eq!(tool_names(&list), ["tool_0", "tool_1"], "{list}");
    release(hold.path(), "toolbomb");
    s.wait_for_stderr("plugins loaded");
    // Anything sent before this ping's answer is among the notifications.
    let ping = s.request("ping", json!({}));
    assert!(ping.get("result").is_some(), "{ping}");
    assert!(
        !s.notifications
            .iter()
            .any(|n| n["method"] == "notifications/tools/list_changed"),
        "{:?}",
        s.notifications
    );
}

/// A call to a tool listed from the cache waits for its plugin's load and
/// then runs.
#[test]
fn a_call_waits_for_its_plugin_to_load() {
    let (_dir, plugins, config) = toolbomb();
    let cache = tempfile::tempdir().unwrap();
    cache_the_list(&plugins, &config, cache.path(), "2");
    let hold = tempfile::tempdir().unwrap();
    let mut s = start(&plugins, &config, cache.path(), hold.path(), "2");
    let id = s.send_request("tools/call", json!({"name": "tool_1", "arguments": {}}));
    s.wait_for_stderr("waiting for the plugin's load");
    release(hold.path(), "toolbomb");
    let result = s.response(id);
    assert_eq!(result["result"]["isError"], json!(false), "{result}");
    assert_eq!(text(&result["result"]), "tool_1");
}

/// A call whose timeout ends while its plugin is still loading says so,
/// naming the plugin. The load is held until the test ends, so the timeout
/// always ends first.
#[test]
fn a_call_whose_timeout_ends_during_the_load_says_the_plugin_was_still_compiling() {
    let (_dir, plugins, config) = toolbomb();
    let cache = tempfile::tempdir().unwrap();
    cache_the_list(&plugins, &config, cache.path(), "2");
    let hold = tempfile::tempdir().unwrap();
    let mut s = start(&plugins, &config, cache.path(), hold.path(), "2");
    let result = s.request("tools/call", json!({"name": "tool_0", "arguments": {}}));
    assert_eq!(result["result"]["isError"], json!(true), "{result}");
    let message = text(&result["result"]);
    assert!(
        message.contains(r#"plugin "toolbomb" was still compiling"#)
            && message.contains("timeout of 2 s"),
        "{message}"
    );
    release(hold.path(), "toolbomb");
}

/// A client that leaves while plugins are loading: the server exits with 0
/// and logs no error (the loads it stops are not failures).
#[test]
fn closing_stdin_while_plugins_load_shuts_down_cleanly() {
    let (_dir, plugins, config) = plugins_with_policy(
        &[
            test_artifacts::TOOLBOMB,
            test_artifacts::FNV,
            test_artifacts::WORDCOUNT,
        ],
        POLICY,
    );
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = start(&plugins, &config, cache.path(), hold.path(), "2");
    s.wait_for_stderr("holding the load");
    s.close_stdin();
    assert_eq!(s.wait(), Some(0), "{}", s.stderr());
    let log = s.stderr();
    assert!(
        !log.contains("ERROR") && !log.contains("failed=") && !log.contains("cancelled"),
        "{log}"
    );
}

/// `--wait-for-load` (for clients that ignore `list_changed`): `tools/list`
/// is answered only once the load has ended, with the plugin in it.
#[test]
fn with_wait_for_load_tools_list_waits_for_the_load() {
    let (_dir, plugins, config) = toolbomb();
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = Server::start_with_env(
        &plugins,
        &[
            "--config",
            &config,
            "--cache-dir",
            cache.path().to_str().unwrap(),
            "--no-watch",
        ],
        &[
            (
                "MCP_WASM_HOST_TEST_HOLD_LOADS",
                hold.path().to_str().unwrap(),
            ),
            ("TOOLBOMB_TOOLS", "2"),
            (crate::common::WAIT_FOR_LOAD, "1"),
        ],
    );
    s.initialize(VERSION);
    let id = s.send_request("tools/list", json!({}));
    s.wait_for_stderr("holding the load");
    release(hold.path(), "toolbomb");
    let list = s.response(id);
    s.wait_for_stderr("loaded plugin");
    assert_eq!(tool_names(&list), ["tool_0", "tool_1"]);
}

/// Starts a server with `--wait-for-load=uncached` (the default), its
/// loads held until released in `hold`.
fn start_uncached(plugins: &Path, config: &str, cache: &Path, hold: &Path) -> Server {
    start_waiting(plugins, config, cache, hold, "2", "uncached")
}

/// The default rule: a warm start, where every plugin has a cached tool
/// list, answers `tools/list` from the cached lists while the plugins are
/// still compiling.
#[test]
fn by_default_a_warm_start_lists_from_the_cache_while_compiling() {
    let (_dir, plugins, config) = toolbomb();
    let cache = tempfile::tempdir().unwrap();
    cache_the_list(&plugins, &config, cache.path(), "2");
    let hold = tempfile::tempdir().unwrap();
    let mut s = start_uncached(&plugins, &config, cache.path(), hold.path());
    let list = s.request("tools/list", json!({}));
    assert_eq!(tool_names(&list), ["tool_0", "tool_1"], "{list}");
    // The hold's line can trail the answer (the log is read by a thread);
    // the load cannot end before the release below.
    s.wait_for_stderr("test hook: holding the load");
    let log = s.stderr();
    assert!(
        !log.contains("loaded plugin"),
        "tools/list was answered after the load ended:\n{log}"
    );
    release(hold.path(), "toolbomb");
    s.wait_for_stderr("plugins loaded");
}

/// The default rule: lists wait for the plugins with no cached tool list
/// alone. One plugin is cached and held, one is new: `tools/list` is
/// answered once the new one has loaded, with both, while the cached one
/// is still held.
#[test]
fn by_default_lists_wait_only_for_the_plugins_with_no_cached_list() {
    let (_dir, plugins, config) = toolbomb();
    let cache = tempfile::tempdir().unwrap();
    cache_the_list(&plugins, &config, cache.path(), "2");
    std::fs::copy(test_artifacts::FNV, plugins.join("fnv.wasm")).unwrap();
    let hold = tempfile::tempdir().unwrap();
    let mut s = start_uncached(&plugins, &config, cache.path(), hold.path());
    let id = s.send_request("tools/list", json!({}));
    s.wait_for_stderr("holding the load");
    release(hold.path(), "fnv");
    let list = s.response(id);
    let names = tool_names(&list);
    assert!(
        names.len() == 3
            && names.contains(&"tool_0".to_string())
            && names.contains(&"tool_1".to_string()),
        "{list}"
    );
    let log = s.stderr();
    assert!(
        !log.contains("plugins loaded"),
        "the list waited for the cached plugin too:\n{log}"
    );
    release(hold.path(), "toolbomb");
    s.wait_for_stderr("plugins loaded");
}

/// The default rule on a warm start tells a client of no change it never
/// saw: tools were listed from the cache, and resources and prompts are
/// listed only once every plugin has loaded, so the plugins taking the
/// cached lists' place change nothing the client could have been given.
#[test]
fn by_default_a_warm_start_announces_no_list_change() {
    let (_dir, plugins, config) = plugins_with_policy(&[test_artifacts::FNV], POLICY);
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    release(hold.path(), "fnv");
    let mut s = start_uncached(&plugins, &config, cache.path(), hold.path());
    s.wait_for_stderr("plugins loaded");
    s.close_stdin();
    assert_eq!(s.wait(), Some(0), "{}", s.stderr());

    let mut s = start_uncached(&plugins, &config, cache.path(), hold.path());
    s.wait_for_stderr("plugins loaded");
    s.wait_for_stderr("clients are told of list changes from now on");
    s.call_ok("hash", json!({"text": "abc"}));
    let ping = s.request("ping", json!({}));
    assert!(ping.get("result").is_some(), "{ping}");
    assert!(s.notifications.is_empty(), "{:?}", s.notifications);
}

/// The default rule with nothing cached: `tools/list` waits for the load
/// and has the plugin in it.
#[test]
fn by_default_a_plugin_with_no_cached_list_is_waited_for() {
    let (_dir, plugins, config) = toolbomb();
    let (cache, hold) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = start_uncached(&plugins, &config, cache.path(), hold.path());
    let id = s.send_request("tools/list", json!({}));
    s.wait_for_stderr("holding the load");
    release(hold.path(), "toolbomb");
    let list = s.response(id);
    assert_eq!(tool_names(&list), ["tool_0", "tool_1"], "{list}");
}
