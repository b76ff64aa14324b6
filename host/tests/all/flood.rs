//! A plugin that floods the host with what it may send while a call runs
//! (progress reports, log messages, stdout and stderr lines) and a tool whose
//! input schema is slow to check: the host's memory stays bounded, its own
//! log gets at most the call's log budget and one line saying what was
//! dropped, every message is either delivered or counted, and `ping` is
//! answered while schemas are checked.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use crate::common::{Server, plugins_with_policy};
use serde_json::{Value, json};

/// The flood plugin with room to flood: fuel and time for 100,000 reports.
fn flood_server(extra: &str) -> (tempfile::TempDir, Server) {
    let policy = format!("[plugins.flood]\nfuel = 100_000_000_000\ntimeout = \"300s\"\n{extra}");
    let (dir, plugins, config) = plugins_with_policy(&[test_artifacts::FLOOD], &policy);
    let server = Server::initialized(&plugins, &["--config", &config], R4);
    (dir, server)
}

#[test]
fn a_flood_of_progress_reports_coalesces_and_the_host_memory_stays_bounded() {
    let (_dir, mut s) = flood_server("");
    let count = 50_000;
    let id = s.send_request(
        "tools/call",
        json!({
            "name": "flood_progress",
            "arguments": {"count": count, "size": 16 * 1024},
            "_meta": {"progressToken": "p"},
        }),
    );
    let (mut received, mut last) = (0, 0.0);
    let resp = s.stream_until_response(id, |n| {
        assert_eq!(n["method"], "notifications/progress", "{n}");
        let progress = n["params"]["progress"].as_f64().unwrap();
        assert!(progress > last, "progress goes up: {progress} after {last}");
        (received, last) = (received + 1, progress);
    });
    assert_eq!(crate::common::text(&resp["result"]), "done", "{resp}");
    assert!((1..=count).contains(&received), "{received}");
    // The newest report always gets through: only older ones are replaced.
    assert_eq!(last, f64::from(count));
    // 50,000 reports of 16 KiB are 800 MiB; the host keeps one at a time.
    let peak = s.peak_rss();
    assert!(peak < 512 << 20, "peak RSS {} MiB", peak >> 20);
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_flood_of_log_messages_is_delivered_or_counted_and_the_server_log_is_cut_at_the_budget() {
    let (_dir, mut s) = flood_server("");
    let count: u64 = 100_000;
    let id = s.send_request(
        "tools/call",
        json!({"name": "flood_log", "arguments": {"count": count, "size": 1000}}),
    );
    let (mut delivered, mut dropped) = (0, 0);
    let resp = s.stream_until_response(id, |n| {
        assert_eq!(n["method"], "notifications/message", "{n}");
        match n["params"]["logger"].as_str().unwrap() {
            "flood/flood_log" => delivered += 1,
            "mcp-wasm-host" => {
                assert_eq!(n["params"]["level"], "warning", "{n}");
                let text = n["params"]["data"].as_str().unwrap();
                let (number, rest) = text.split_once(' ').unwrap();
                assert!(
                    rest.starts_with("log messages of this call were dropped"),
                    "{text}"
                );
                dropped += number.parse::<u64>().unwrap();
            }
            other => panic!("unexpected logger {other}: {n}"),
        }
    });
    assert_eq!(crate::common::text(&resp["result"]), "done", "{resp}");
    assert_eq!(
        delivered + dropped,
        count,
        "every message is delivered or counted"
    );
    // The default budget is 1,000 lines: the rest is one line in the log.
    s.wait_for_stderr("more lines");
    let log = s.stderr();
    let written = log.lines().filter(|l| l.contains("xxxxxxxxxx")).count();
    assert_eq!(written, 1000, "guest lines in the server log");
    assert!(
        log.contains("99000 more lines") && log.contains("`plugins.flood.log_lines`"),
        "{log}"
    );
}

#[test]
fn captured_stdout_and_stderr_count_toward_the_log_budget() {
    let (_dir, mut s) = flood_server("log_lines = 10\n");
    let resp = s.call_ok("flood_stdout", json!({"count": 50, "size": 20}));
    assert_eq!(crate::common::text(&resp), "done");
    s.wait_for_stderr("more lines");
    let log = s.stderr();
    let written = log
        .lines()
        .filter(|l| l.contains("xxxxxxxxxx") && !l.contains("more lines"))
        .count();
    assert_eq!(written, 10, "{log}");
    assert!(log.contains("90 more lines"), "{log}");
}

/// Sends `call` twice, then pings; ping must be answered first. Returns the
/// two calls' error texts.
fn two_slow_calls_then_ping(s: &mut Server, call: Value) -> Vec<String> {
    let calls = [
        s.send_request("tools/call", call.clone()),
        s.send_request("tools/call", call),
    ];
    let ping = s.send_request("ping", json!({}));
    // Ordering, not timing: with the checks on the async workers, ping
    // would wait for both; off them, it is answered first.
    let answer = s.recv();
    assert_eq!(
        answer["id"],
        json!(ping),
        "ping is answered first: {answer}"
    );
    (0..2)
        .map(|_| {
            let resp = s.recv();
            assert!(calls.iter().any(|&id| resp["id"] == json!(id)), "{resp}");
            assert_eq!(resp["result"]["isError"], true, "{resp}");
            crate::common::text(&resp["result"])
        })
        .collect()
}

/// A `slow_schema` call with `words` words that each take thousands of
/// backtracking steps to refuse.
fn slow_arguments(words: usize) -> Value {
    let words: Vec<Value> = (0..words).map(|_| json!("a".repeat(16))).collect();
    json!({"name": "slow_schema", "arguments": {"words": words}})
}

#[test]
fn ping_is_answered_while_two_calls_check_a_slow_schema() {
    let (_dir, mut s) = flood_server("");
    for text in two_slow_calls_then_ping(&mut s, slow_arguments(300)) {
        assert!(text.contains("does not match"), "{text}");
    }
}

#[test]
fn ping_is_answered_while_two_calls_check_structured_content_against_a_slow_output_schema() {
    let (_dir, mut s) = flood_server("");
    let slow = json!({"name": "slow_output", "arguments": {"count": 300}});
    for text in two_slow_calls_then_ping(&mut s, slow) {
        assert!(text.contains("does not match its output schema"), "{text}");
    }
}

#[test]
fn checking_arguments_counts_toward_the_call_deadline() {
    let policy = "[plugins.flood]\ntimeout = \"1s\"\n";
    let (_dir, plugins, config) = plugins_with_policy(&[test_artifacts::FLOOD], policy);
    let mut s = Server::initialized(&plugins, &["--config", &config], R4);
    // 5,000 words at thousands of backtracking steps each take more than 1 s.
    for text in two_slow_calls_then_ping(&mut s, slow_arguments(5000)) {
        assert!(text.contains("timed out after 1 s"), "{text}");
    }
    assert_eq!(s.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_call_holds_at_most_its_share_of_host_handles() {
    let (_dir, mut s) = flood_server("host_resources = 1000\n");
    let resp = s.call_ok("flood_handles", json!({"count": 500}));
    assert_eq!(crate::common::text(&resp), "500");
    let message = s.call_err("flood_handles", json!({"count": 5000}));
    assert!(message.contains("flood_handles"), "{message}");
    // The next call starts with a fresh table.
    let resp = s.call_ok("flood_handles", json!({"count": 500}));
    assert_eq!(crate::common::text(&resp), "500");
}

#[test]
fn a_client_that_sends_without_reading_gets_an_error_past_the_in_flight_limit() {
    let policy = "[plugins.hostile]\ntimeout = \"3s\"\nrate_limit = 0\n";
    let (_dir, plugins, config) = plugins_with_policy(&[test_artifacts::HOSTILE], policy);
    let mut s = Server::initialized(&plugins, &["--config", &config], R4);
    let limit = 256; // mcp::transport::stdio::MAX_IN_FLIGHT
    let calls: Vec<i64> = (0..limit + 4)
        .map(|_| {
            s.send_request(
                "tools/call",
                json!({"name": "sleep_forever", "arguments": {}}),
            )
        })
        .collect();
    let ping = s.send_request("ping", json!({}));
    // The four past the limit are refused at once, before any call ends;
    // ping is still served.
    let mut refused = Vec::new();
    while refused.len() < 4 || !refused.contains(&json!(ping)) {
        let answer = s.recv();
        if answer["id"] == json!(ping) {
            assert_eq!(answer["result"], json!({}), "{answer}");
            refused.push(answer["id"].clone());
            continue;
        }
        assert_eq!(answer["error"]["code"], -32000, "{answer}");
        assert!(
            calls[limit..].iter().any(|&id| answer["id"] == json!(id)),
            "{answer}"
        );
        refused.push(answer["id"].clone());
    }
    // Every admitted call ends (by its deadline), and then there is room again.
    for _ in 0..limit {
        let answer = s.recv();
        assert_eq!(answer["result"]["isError"], true, "{answer}");
    }
    let resp = s.call("ok", json!({}));
    assert_eq!(resp["result"]["isError"], false, "{resp}");
}
