//! Three `serve --http --stateless` replicas on 127.0.0.1 behind nginx (the
//! Debian package, configured and started here), with a real MCP client
//! (the official Python SDK, `tests/python/replica_client.py`, several calls
//! at once) calling tools through nginx the whole time, while:
//!
//! 1. a plugin is published to a registry (Debian's `docker-registry`) and
//!    named in the policy file the replicas share: every replica pulls it and
//!    serves it, and the client's calls to it succeed;
//! 2. one replica is stopped with SIGTERM while it holds a call: that call
//!    still gets its real result, the replica exits 0, and the client sees
//!    no error at all;
//! 3. one replica is killed with SIGKILL while it holds a call: that call
//!    gets no answer, and the client loses at most the calls of its own that
//!    were in flight on it (nginx answers them 502, as it must not resend a
//!    POST whose request went out), and nothing after: nginx's next
//!    connections to it are refused, and tried on another replica.
//!
//! The test prints what the client saw in each phase (calls, answers,
//! errors by kind) and what nginx sent to each replica. Every wait is for
//! an event (a line from the client, a request reaching a server, a process
//! ending), never for a length of time.
//!
//! It needs nginx (`MCP_WASM_HOST_NGINX=$(scripts/setup-nginx.sh)`) and the
//! registry (`MCP_WASM_HOST_REGISTRY=$(scripts/setup-registry.sh)`);
//! `scripts/test.sh` sets both. Without them it says so and passes.

#![allow(clippy::unwrap_used)]

use crate::common::cluster::load::{Load, phase_of};
use crate::common::cluster::{Nginx, Replica, post};
use crate::common::http::Client;
use crate::common::registry::{Registry, registry_binary};
use crate::common::{DEADLINE, eventually};

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc::{Receiver, channel};
use std::thread;

use serde_json::json;

/// How many calls the client keeps in flight.
const WORKERS: usize = 4;

/// How many calls each phase lets end before the next event.
const PER_PHASE: u64 = 24;

/// A web server whose one page answers only when the test says so: a call
/// that fetches it is in flight for exactly as long as the test wants.
struct Held {
    port: u16,
    arrived: Receiver<()>,
    release: std::sync::mpsc::Sender<()>,
}

impl Held {
    fn start() -> Held {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (arrived_tx, arrived) = channel();
        let (release, release_rx) = channel::<()>();
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut head = Vec::new();
                let mut byte = [0u8];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let _ = arrived_tx.send(());
                if release_rx.recv().is_err() {
                    return;
                }
                let body = "held answer";
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Held {
            port,
            arrived,
            release,
        }
    }
}

/// Pushes `file` as `oci://REGISTRY/NAME` with `mcp-wasm-host push`.
fn push(registry: &Registry, file: &str, name: &str) -> String {
    let reference = registry.reference(name);
    let out = Command::new(crate::common::binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .args(["push", file, &reference])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "push {reference} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    reference
}

/// Replaces the policy file in one step (write, then rename), so a watcher
/// never reads half of it.
fn write_policy(path: &Path, text: &str) {
    let tmp = path.with_extension("toml.new");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Waits until `replica` lists a tool named `name`.
fn wait_for_tool(replica: &Replica, name: &str) {
    eventually(
        DEADLINE,
        || {
            format!(
                "replica {} never served {name}:\n{}",
                replica.authority,
                replica.stderr()
            )
        },
        || replica.tool_names().iter().any(|t| t == name).then_some(()),
    );
}

#[test]
fn three_stateless_replicas_behind_nginx_publish_drain_and_die() {
    let (Some(nginx_bin), Some(registry_bin)) = (
        crate::common::toolchain(&crate::common::NGINX),
        registry_binary(),
    ) else {
        return;
    };
    let registry = Registry::start(&registry_bin);
    let wordcount = push(&registry, test_artifacts::WORDCOUNT, "mcp/wordcount:1");
    let held = Held::start();

    // The policy every replica reads: one plugin from the registry, and the
    // netprobe plugin (a file in each replica's directory) allowed to reach
    // the held page.
    let shared = tempfile::tempdir().unwrap();
    let config = shared.path().join("mcp-wasm-host.toml");
    let netprobe = format!(
        "[plugins.netprobe.http]\nallow = [\"http://127.0.0.1:{}\"]\nallow_addresses = [\"127.0.0.1\"]\n",
        held.port
    );
    let policy = format!("[plugins.wordcount]\nsource = \"{wordcount}\"\n\n{netprobe}");
    write_policy(&config, &policy);
    let key = shared.path().join("request-state.key");
    std::fs::write(
        &key,
        "a shared key of at least thirty-two bytes, for all three",
    )
    .unwrap();

    let mut replicas: Vec<Replica> = (0..3)
        .map(|_| Replica::start(&[test_artifacts::NETPROBE], &config, &key, &["--stateless"]))
        .collect();
    for r in &replicas {
        wait_for_tool(r, "word_count");
        assert_eq!(r.status_of("/readyz"), 200, "{}", r.stderr());
    }
    let upstreams: Vec<String> = replicas.iter().map(|r| r.authority.clone()).collect();
    let nginx = Nginx::start(&nginx_bin, &upstreams);

    let mut load = Load::start(
        &nginx.url(),
        WORKERS,
        "word_count",
        &json!({"text": "one two three"}),
        Some(r#"{"words":3,"lines":1,"chars":13}"#),
    );
    load.wait_for("start", PER_PHASE);

    // 1. Publish a plugin and name it in the shared policy: every replica
    // pulls it, and the client calls it through nginx.
    let fnv = push(&registry, test_artifacts::FNV, "mcp/fnv:1");
    write_policy(
        &config,
        &format!("{policy}\n[plugins.fnv]\nsource = \"{fnv}\"\n"),
    );
    for r in &replicas {
        wait_for_tool(r, "hash");
    }
    load.command(r#"add hash {"text": "abc"}"#);
    load.phase("published", PER_PHASE);

    // 2. A graceful stop while the replica holds a call.
    let slow_url = replicas[0].url();
    let held_url = format!("http://127.0.0.1:{}/held", held.port);
    let slow = thread::spawn(move || {
        post(
            &slow_url,
            &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": {"name": "request", "arguments": {"url": held_url}}}),
        )
    });
    held.arrived
        .recv_timeout(DEADLINE)
        .expect("the held call never reached the page");
    load.command("phase graceful");
    replicas[0].signal("TERM");
    // Draining: not ready any more, but the call it holds goes on.
    eventually(
        DEADLINE,
        || "/readyz never turned 503 while draining".into(),
        || (replicas[0].status_of("/readyz") != 200).then_some(()),
    );
    held.release.send(()).unwrap();
    let answer = slow.join().unwrap();
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    assert!(
        answer["result"].to_string().contains("held answer"),
        "the held call got its real result: {answer}"
    );
    assert_eq!(replicas[0].wait(), Some(0), "{}", replicas[0].stderr());
    load.wait_for("graceful", PER_PHASE);

    // 3. A replica killed mid-load, while it holds a call: that call is
    // lost (its connection closes with no answer), as is any call of the
    // client's it held.
    let doomed_url = replicas[1].url();
    let held_url = format!("http://127.0.0.1:{}/held", held.port);
    let doomed = thread::spawn(move || {
        let message = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                             "params": {"name": "request", "arguments": {"url": held_url}}});
        Client::new(&doomed_url).try_post(&message).map(|r| r.body)
    });
    held.arrived
        .recv_timeout(DEADLINE)
        .expect("the second held call never reached the page");
    load.command("phase killed");
    replicas[1].signal("KILL");
    assert_eq!(replicas[1].wait(), None, "ended by the signal");
    let lost = doomed.join().unwrap();
    assert!(
        lost.is_err(),
        "the killed replica's call got no answer: {lost:?}"
    );
    eprintln!("the call the killed replica held: {lost:?}");
    drop(held.release);
    load.wait_for("killed", PER_PHASE);
    load.phase("after", PER_PHASE);
    let summary = load.stop();

    eprintln!("what the client saw, per phase: {summary:#}");
    let log = nginx.access_log();
    let mut per_replica = std::collections::BTreeMap::<String, u64>::new();
    for line in log.lines() {
        let mut f = line.split('|');
        let (_, upstreams, statuses) = (f.next(), f.next(), f.next());
        let key = format!(
            "{} -> {}",
            upstreams.unwrap_or_default(),
            statuses.unwrap_or_default()
        );
        *per_replica.entry(key).or_default() += 1;
    }
    // A request nginx tried on more than one replica lists them all, with
    // each one's status (`502` for a refused connection, tried again).
    eprintln!("what nginx saw (replicas tried -> their statuses: requests): {per_replica:#?}");

    for label in ["start", "published", "graceful", "after"] {
        let (calls, ok, errors) = phase_of(&summary, label);
        assert!(calls >= PER_PHASE, "{label}: {summary}");
        assert_eq!(ok, calls, "{label}: every call answered: {summary}");
        assert!(errors.is_empty(), "{label}: {errors:?}");
    }
    let (calls, ok, errors) = phase_of(&summary, "killed");
    let lost = calls - ok;
    assert!(
        lost as usize <= WORKERS,
        "a kill loses at most the calls in flight ({WORKERS}): {summary}"
    );
    for kind in errors.keys() {
        assert_eq!(
            kind, "http_502",
            "only nginx's 502 for a call the killed replica held: {summary}"
        );
    }
    // The replica left still serves both plugins.
    let left = replicas[2].tool_names();
    assert!(left.iter().any(|t| t == "hash") && left.iter().any(|t| t == "word_count"));
}
