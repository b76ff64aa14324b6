//! Notifications across replicas (issue 46): two `serve --http` replicas
//! share one real redis-server (`common::cluster`), each with a plugin
//! directory of its own, so that a change can be applied by one replica
//! before the other. A client whose stream is held by the other replica
//! hears it once, and not again when its own replica applies the same
//! change.
//!
//! 1. At 2026-07-28, `subscriptions/listen` streams on both replicas: a
//!    plugin added on one (`tools/list_changed`) and a plugin replaced on
//!    one (`resources/updated` of a URI it serves), each announced once on
//!    both, however many replicas apply it.
//! 2. At 2025-11-25, a session's GET stream on one replica hears the same
//!    changes made on the other, once.
//!
//! 3. At 2025-11-25, with three replicas, a session subscribed through
//!    replica A while its GET stream is held on B: B's stream hears the
//!    URI updated once (the subscription is the session's, shared through
//!    the store); after an unsubscribe through C it hears it no more.
//!
//! Each test ends with a last change both streams must hear, and counts
//! what came before it: no fixed wait stands for "nothing more came".

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::mpsc::Receiver;

use serde_json::{Value, json};

use crate::common::cluster::{Cluster, Spec};
use crate::common::http::Client;
use crate::common::revision::{R4, R5};
use crate::common::{DEADLINE, r5_meta};

/// The URI the conformance plugin serves that the streams watch.
const WATCHED: &str = "test://static-text";

/// Two replicas of the conformance plugin; `None` when redis-server or
/// nginx is missing.
fn cluster(args: &[&str]) -> Option<Cluster> {
    Cluster::start(&Spec {
        replicas: 2,
        plugins: &[test_artifacts::CONFORMANCE],
        args,
        ..Spec::default()
    })
}

/// The messages of one stream, as they arrive, and those read so far.
struct Stream {
    messages: Receiver<Value>,
    read: Vec<Value>,
}

impl Stream {
    /// Reads until a message of `method` arrives; that message.
    fn until(&mut self, method: &str) -> Value {
        loop {
            let message = self
                .messages
                .recv_timeout(DEADLINE)
                .unwrap_or_else(|_| panic!("no {method} within {DEADLINE:?}: {:#?}", self.read));
            self.read.push(message.clone());
            if message["method"] == method {
                return message;
            }
        }
    }

    /// How many messages of `method` were read.
    fn count(&self, method: &str) -> usize {
        self.read.iter().filter(|m| m["method"] == method).count()
    }
}

/// A 2026-07-28 listen stream on `url` for tool list changes and
/// [`WATCHED`], once acknowledged.
fn listen(url: &str) -> Stream {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {"_meta": r5_meta(json!({})),
                   "notifications": {"toolsListChanged": true, "resourceSubscriptions": [WATCHED]}}});
    let messages = Client::new(url)
        .with_header("MCP-Protocol-Version", R5)
        .with_header("Mcp-Method", "subscriptions/listen")
        .post_stream(body.to_string().as_bytes());
    let mut stream = Stream {
        messages,
        read: Vec::new(),
    };
    stream.until("notifications/subscriptions/acknowledged");
    stream
}

/// Another build of the conformance plugin: the same tools and
/// resources, another digest (a custom section more).
fn rebuilt_conformance(dir: &Path) -> std::path::PathBuf {
    let mut bytes = std::fs::read(test_artifacts::CONFORMANCE).unwrap();
    // A custom section: id 0, then its size (6): the name's length (1)
    // and the name "x-new" (5).
    bytes.extend_from_slice(&[0, 6, 5, b'x', b'-', b'n', b'e', b'w']);
    let path = dir.join("conformance-rebuilt.wasm");
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The changes both tests make, with `streams` (each named by its
/// replica) held where they are: a plugin added on A, then on B; the
/// plugin serving [`WATCHED`] replaced on A, then on B; a last change on
/// A that every stream hears, before which each change came once.
fn changes_are_heard_once(cluster: &Cluster, streams: &mut [(&str, Stream)]) {
    let (a, b) = (&cluster.replicas[0], &cluster.replicas[1]);
    // A plugin with a tool is added on A alone: every stream hears it.
    a.install(Path::new(test_artifacts::FNV), "fnv.wasm");
    for (_, stream) in streams.iter_mut() {
        stream.until("notifications/tools/list_changed");
    }
    // B applies the same: its clients have heard of it already.
    b.install(Path::new(test_artifacts::FNV), "fnv.wasm");
    b.reloaded("fnv", 1);

    // The plugin serving the watched URI is replaced on A alone: every
    // stream hears the URI updated.
    let scratch = tempfile::tempdir().unwrap();
    let rebuilt = rebuilt_conformance(scratch.path());
    a.install(&rebuilt, "conformance.wasm");
    for (_, stream) in streams.iter_mut() {
        let updated = stream.until("notifications/resources/updated");
        assert_eq!(updated["params"]["uri"], WATCHED, "{updated}");
    }
    // B applies the same version.
    b.install(&rebuilt, "conformance.wasm");
    b.reloaded("conformance", 1);

    // A last change, that every stream hears: before it, each change
    // came once.
    std::fs::remove_file(a.plugins().join("fnv.wasm")).unwrap();
    for (replica, stream) in streams.iter_mut() {
        stream.until("notifications/tools/list_changed");
        for (method, times) in [
            ("notifications/tools/list_changed", 2),
            ("notifications/resources/updated", 1),
        ] {
            assert_eq!(
                stream.count(method),
                times,
                "{method} on {replica}: {:#?}\n{}",
                stream.read,
                cluster.logs()
            );
        }
    }
}

#[test]
fn a_listen_stream_hears_a_change_another_replica_applied_once() {
    let Some(cluster) = cluster(&["--stateless"]) else {
        return;
    };
    let mut streams = [
        ("A", listen(&cluster.replicas[0].url())),
        ("B", listen(&cluster.replicas[1].url())),
    ];
    changes_are_heard_once(&cluster, &mut streams);
}

#[test]
fn a_sessions_get_stream_hears_a_change_another_replica_applied_once() {
    let Some(cluster) = cluster(&[]) else {
        return;
    };
    let mut client = Client::new(&cluster.replicas[1].url());
    let reply = client.initialize(R4);
    assert_eq!(reply.status, 200, "{reply:#?}");
    client.request("resources/subscribe", json!({"uri": WATCHED}));
    let stream = Stream {
        messages: client.listen(),
        read: Vec::new(),
    };
    changes_are_heard_once(&cluster, &mut [("B", stream)]);
}

/// Reads `stream` until a tool list change, before which it must have
/// heard [`WATCHED`] updated once.
fn updated_once_before_a_list_change(cluster: &Cluster, stream: &mut Stream) {
    stream.until("notifications/tools/list_changed");
    assert_eq!(
        stream.count("notifications/resources/updated"),
        1,
        "{:#?}\n{}",
        stream.read,
        cluster.logs()
    );
}

#[test]
fn a_subscription_made_through_one_replica_reaches_the_stream_another_holds() {
    let Some(cluster) = Cluster::with_sessions(3, &[test_artifacts::CONFORMANCE]) else {
        return;
    };
    let urls: Vec<String> = cluster.replicas.iter().map(|r| r.url()).collect();
    let mut opened = Client::new(&urls[1]);
    let reply = opened.initialize(R4);
    assert_eq!(reply.status, 200, "{reply:#?}");
    let session = opened.session.clone().unwrap();
    let mut stream = Stream {
        messages: opened.listen(),
        read: Vec::new(),
    };
    // Subscribed through A, while B holds the GET stream.
    let subscribed = Client::new(&urls[0])
        .with_session(Some(&session))
        .request("resources/subscribe", json!({"uri": WATCHED}));
    assert!(subscribed.get("error").is_none(), "{subscribed}");

    let scratch = tempfile::tempdir().unwrap();
    let rebuilt = rebuilt_conformance(scratch.path());
    cluster.install_everywhere(&rebuilt, "conformance.wasm", "conformance", 1);
    let updated = stream.until("notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], WATCHED, "{updated}");
    // A last change B's stream hears: the update came once before it.
    for replica in &cluster.replicas {
        replica.install(Path::new(test_artifacts::FNV), "fnv.wasm");
    }
    updated_once_before_a_list_change(&cluster, &mut stream);

    // Unsubscribed through C: the next replacement is not announced.
    Client::new(&urls[2])
        .with_session(Some(&session))
        .request("resources/unsubscribe", json!({"uri": WATCHED}));
    let mut again = std::fs::read(&rebuilt).unwrap();
    again.extend_from_slice(&[0, 6, 5, b'x', b'-', b't', b'w', b'o']);
    let again_path = scratch.path().join("conformance-again.wasm");
    std::fs::write(&again_path, again).unwrap();
    cluster.install_everywhere(&again_path, "conformance.wasm", "conformance", 2);
    for replica in &cluster.replicas {
        std::fs::remove_file(replica.plugins().join("fnv.wasm")).unwrap();
    }
    updated_once_before_a_list_change(&cluster, &mut stream);
}
