//! The live plugins directory, end to end: the real binary with a client
//! connected, plugin files added, replaced and removed under it, and the
//! client told with `notifications/tools/list_changed`.
//!
//! Every wait is for an event (a notification, a response, a log line); the
//! harness's patience is only a safety net against a hung server.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::collections::BTreeSet;
use std::io::Write;

use crate::common::http::calls_running;
use crate::common::log::Event;
use crate::common::{JSON_LOGS, METRICS, Server, plugin_dir, text};
use serde_json::json;

const LIST_CHANGED: &str = "notifications/tools/list_changed";

/// Whether a notification with `method` arrived so far (a ping makes sure
/// everything the server sent before it has been read).
fn received(s: &mut Server, method: &str) -> bool {
    let ping = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");
    s.notifications.iter().any(|n| n["method"] == method)
}

fn many_tools() -> BTreeSet<String> {
    (0..25).map(|i| format!("tool_{i:02}")).collect()
}

#[test]
fn the_server_declares_list_changed() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::start(dir.path(), &[]);
    let init = s.initialize(R4);
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"],
        json!(true),
        "{init}"
    );
}

#[test]
fn adding_replacing_and_removing_a_plugin_changes_the_list() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    s.wait_for_stderr("watching the plugins directory");
    let start = s.tool_name_set();
    assert!(start.contains("returns_error"), "{start:?}");
    assert!(!received(&mut s, LIST_CHANGED));

    // Added: its tools appear.
    let file = dir.path().join("extra.wasm");
    std::fs::copy(test_artifacts::MANY, &file).unwrap();
    s.wait_for_notification(LIST_CHANGED);
    let added = s.tool_name_set();
    assert_eq!(
        added,
        start.union(&many_tools()).cloned().collect(),
        "after adding"
    );

    // Replaced under the same name: the old tools go, the new ones come.
    s.notifications.clear();
    std::fs::copy(test_artifacts::DUPA, &file).unwrap();
    s.wait_for_notification(LIST_CHANGED);
    let replaced = s.tool_name_set();
    let mut want = start.clone();
    want.insert("echo".into());
    assert_eq!(replaced, want, "after replacing");
    let echoed = s.call_ok("echo", json!({"text": "hi"}));
    assert!(text(&echoed).contains("a:"), "{echoed}");

    // Removed: its tools go.
    s.notifications.clear();
    std::fs::remove_file(&file).unwrap();
    s.wait_for_notification(LIST_CHANGED);
    assert_eq!(s.tool_name_set(), start, "after removing");
    let gone = s.call("echo", json!({"text": "hi"}));
    assert_eq!(gone["error"]["code"], -32602, "{gone}");

    // A file that is not a plugin (`.txt`) is ignored, and an invalid
    // `.wasm` file fails with one log line while the list stays.
    s.notifications.clear();
    std::fs::write(dir.path().join("notes.txt"), "not a plugin").unwrap();
    std::fs::write(dir.path().join("broken.wasm"), "not wasm either").unwrap();
    s.wait_for_stderr("broken.wasm: not a WebAssembly file");
    assert!(!received(&mut s, LIST_CHANGED), "{:?}", s.notifications);
    assert_eq!(s.tool_name_set(), start);
    assert!(!s.stderr().contains("notes.txt"), "{}", s.stderr());
}

#[test]
fn a_running_call_finishes_on_the_version_it_started_with() {
    // A generous timeout, so the long call is not cut short.
    let policy_dir = tempfile::tempdir().unwrap();
    let config = policy_dir.path().join("policy.toml");
    std::fs::write(&config, "[plugins.hostile]\ntimeout = \"120s\"\n").unwrap();
    let dir = plugin_dir(&[test_artifacts::HOSTILE]);
    let mut s = Server::initialized(
        dir.path(),
        &["--config", config.to_str().unwrap(), METRICS[0], METRICS[1]],
        R4,
    );
    s.wait_for_stderr("watching the plugins directory");
    assert!(s.tool_name_set().contains("slow_ok"));

    // The call sleeps long enough for the replacement to land while it
    // runs (a margin, not an assertion on time: the order of the events
    // below is what is checked).
    let call = s.send_request(
        "tools/call",
        json!({"name": "slow_ok", "arguments": {"millis": 8000}}),
    );
    s.wait_for_sample(&calls_running("hostile"), |n| n == 1.0);
    std::fs::copy(test_artifacts::MANY, dir.path().join("hostile.wasm")).unwrap();

    // The list changes while the call still runs...
    s.wait_for_notification(LIST_CHANGED);
    assert!(
        !s.raw
            .iter()
            .any(|l| l.contains(&format!("\"id\":{call},"))
                || l.contains(&format!("\"id\":{call}}}"))),
        "the call ended before the replacement landed"
    );
    // ...and the call still completes on the old version.
    let resp = s.response(call);
    let result = &resp["result"];
    assert_ne!(result["isError"], json!(true), "{resp}");
    assert_eq!(text(result), "ok", "{resp}");

    // Afterwards the list is the new plugin's.
    assert_eq!(s.tool_name_set(), many_tools());
    let gone = s.call("slow_ok", json!({"millis": 1}));
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
}

/// Whether `e` is a failure of the watcher's look at the plugin file
/// `name`: a warning (or error) in its `handle` span for that file.
fn is_failed_load(e: &Event, name: &str) -> bool {
    matches!(e.level(), "WARN" | "ERROR")
        && e.span_field("handle", "file")
            .as_str()
            .is_some_and(|f| f.ends_with(&format!("/{name}")))
}

/// The watcher's failed looks at the plugin file `name`, in the server's
/// JSON log.
fn failed_loads(s: &Server, name: &str) -> Vec<Event> {
    s.events()
        .into_iter()
        .filter(|e| is_failed_load(e, name))
        .collect()
}

/// The loads of plugin `plugin` that succeeded, in the server's JSON log:
/// the events that name the plugin, its tool count and how long its load
/// took (a compile's name no tool count).
fn loads(s: &Server, plugin: &str) -> usize {
    s.events()
        .iter()
        .filter(|e| e.text("plugin") == plugin)
        .filter(|e| e.field("tools").is_number() && e.field("elapsed_ms").is_number())
        .count()
}

#[test]
fn a_half_written_file_is_not_loaded_until_it_is_complete() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::initialized(dir.path(), &JSON_LOGS, R4);
    s.wait_for_stderr("watching the plugins directory");
    let start = s.tool_name_set();
    let bytes = std::fs::read(test_artifacts::MANY).unwrap();
    let (head, tail) = bytes.split_at(bytes.len() / 2);

    // The first half, then nothing until the watcher has looked at it: it
    // settles, fails to load (at most), and nothing changes.
    let path = dir.path().join("late.wasm");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(head).unwrap();
    file.flush().unwrap();
    s.wait_for_event("of a failed load of late.wasm", |e| {
        is_failed_load(e, "late.wasm")
    });
    let failed = failed_loads(&s, "late.wasm");
    assert!(
        failed.iter().any(|e| e
            .text("message")
            .contains("the component is invalid or corrupt")),
        "{failed:?}"
    );
    assert!(!received(&mut s, LIST_CHANGED), "{:?}", s.notifications);
    assert_eq!(s.tool_name_set(), start);
    assert_eq!(loads(&s, "late"), 0, "{}", s.stderr());

    // The rest: now it loads, once.
    file.write_all(tail).unwrap();
    file.flush().unwrap();
    drop(file);
    s.wait_for_notification(LIST_CHANGED);
    assert_eq!(
        s.tool_name_set(),
        start.union(&many_tools()).cloned().collect()
    );
    s.call_ok("tool_03", json!({}));
    assert_eq!(loads(&s, "late"), 1, "{}", s.stderr());

    // A slow copy, in small chunks: whatever the watcher saw on the way,
    // it never tried to load a part of the file (no failed load), the
    // complete file is loaded once, and the list changes once.
    s.notifications.clear();
    let slow = dir.path().join("slow.wasm");
    let dupa = std::fs::read(test_artifacts::DUPA).unwrap();
    let mut file = std::fs::File::create(&slow).unwrap();
    for chunk in dupa.chunks(dupa.len().div_ceil(20)) {
        file.write_all(chunk).unwrap();
        file.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    drop(file);
    s.wait_for_notification(LIST_CHANGED);
    let mut want = s.tool_name_set();
    assert!(want.remove("echo"), "{want:?}");
    assert_eq!(want, start.union(&many_tools()).cloned().collect());
    assert_eq!(loads(&s, "slow"), 1, "{}", s.stderr());
    assert_eq!(
        failed_loads(&s, "slow.wasm"),
        [],
        "a part of the file was loaded"
    );
    // The ping of `received` comes after anything the load sent.
    assert!(!received(&mut s, LIST_CHANGED), "{:?}", s.notifications);
}

#[test]
fn a_changed_policy_file_reloads_the_plugins_and_a_broken_one_is_ignored() {
    let policy_dir = tempfile::tempdir().unwrap();
    let config = policy_dir.path().join("policy.toml");
    // A mount whose directory is missing keeps `panic` from loading.
    std::fs::write(
        &config,
        "[[plugins.panic.mounts]]\nhost = \"missing\"\nguest = \"/data\"\n",
    )
    .unwrap();
    let dir = plugin_dir(&[test_artifacts::ERRORS, test_artifacts::PANIC]);
    let mut s = Server::initialized(dir.path(), &["--config", config.to_str().unwrap()], R4);
    s.wait_for_stderr("watching the plugins directory");
    let start = s.tool_name_set();
    assert!(!start.contains("panic"), "{start:?}");

    // Fixed: every plugin loads again under the new policy.
    std::fs::write(&config, "[plugins.panic]\ntimeout = \"5s\"\n").unwrap();
    s.wait_for_notification(LIST_CHANGED);
    let fixed = s.tool_name_set();
    assert!(
        fixed.contains("panic") && fixed.contains("returns_error"),
        "{fixed:?}"
    );

    // Broken: logged, and the old policy and plugins stay.
    s.notifications.clear();
    std::fs::write(&config, "[defaults]\nfule = 1\n").unwrap();
    s.wait_for_stderr("policy file not reloaded");
    assert!(s.stderr().contains("fule"), "{}", s.stderr());
    assert!(!received(&mut s, LIST_CHANGED));
    assert_eq!(s.tool_name_set(), fixed);
    s.call_ok("ok", json!({}));
}

#[test]
fn no_watch_keeps_the_plugins_loaded_at_start() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::initialized(dir.path(), &["--no-watch"], R4);
    let start = s.tool_name_set();
    std::fs::copy(test_artifacts::PANIC, dir.path().join("panic.wasm")).unwrap();
    // Without a watcher nothing can be waited for: the file is there, and a
    // later server (with a watcher) would see it; this one does not.
    assert!(!s.stderr().contains("watching the plugins directory"));
    assert!(!received(&mut s, LIST_CHANGED));
    assert_eq!(s.tool_name_set(), start);
}
