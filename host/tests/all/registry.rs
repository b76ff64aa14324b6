//! Plugins from an OCI registry, end to end: a real registry (Debian's
//! `docker-registry`, the CNCF distribution registry) on 127.0.0.1 with its
//! storage in a temporary directory, and the real binary pushing, pulling,
//! signing and serving from it, with a real MCP client session calling the
//! fetched plugin's tool.
//!
//! The registry comes from `MCP_WASM_HOST_REGISTRY`
//! (`MCP_WASM_HOST_REGISTRY=$(scripts/setup-registry.sh)`, as
//! `scripts/test.sh` sets it); without it these tests say so and skip.
//! The `https://` source is tested over plain HTTP on 127.0.0.1 (allowed
//! for loopback hosts only), served by a small server in this file: the
//! TLS part is reqwest's and rustls', which the digest check does not
//! depend on.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::registry::{Registry, registry_binary};
use crate::common::{Server, text};
use serde_json::{Value, json};

const R4: &str = "2025-11-25";

/// Runs `mcp-wasm-host ARGS` in `cwd`.
fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(crate::common::binary())
        .args(args)
        .current_dir(cwd)
        .env_remove("MCP_WASM_HOST_CONFIG")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

/// Runs a command that must succeed; returns its stdout.
fn run_ok(cwd: &Path, args: &[&str]) -> String {
    let out = run(cwd, args);
    assert!(
        out.status.success(),
        "{args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Pushes `component` to `reference`; returns the manifest digest.
fn push(cwd: &Path, component: &str, reference: &str) -> String {
    let out = run_ok(cwd, &["push", component, reference]);
    let digest = out.split_whitespace().nth(1).unwrap().to_string();
    assert!(digest.starts_with("sha256:"), "{out}");
    digest
}

/// A work directory with `plugins/` (empty), a cache and the policy file.
struct Work {
    dir: tempfile::TempDir,
}

impl Work {
    fn new() -> Work {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("plugins")).unwrap();
        Work { dir }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn plugins(&self) -> PathBuf {
        self.path().join("plugins")
    }
    fn cache(&self) -> String {
        self.path().join("cache").to_str().unwrap().to_string()
    }
    fn config(&self) -> String {
        self.path()
            .join("mcp-wasm-host.toml")
            .to_str()
            .unwrap()
            .to_string()
    }
    fn write_policy(&self, policy: &str) {
        // Written beside and renamed, so the watcher sees one whole file.
        let tmp = self.path().join("policy.tmp");
        std::fs::write(&tmp, policy).unwrap();
        std::fs::rename(&tmp, self.config()).unwrap();
    }
    /// `serve` on the empty plugins directory under the policy, with this
    /// work directory's cache; initialized.
    fn serve(&self) -> Server {
        self.serve_with_cache(&self.cache())
    }
    fn serve_with_cache(&self, cache: &str) -> Server {
        let mut s = Server::start(
            &self.plugins(),
            &["--config", &self.config(), "--cache-dir", cache],
        );
        let init = s.initialize(R4);
        assert!(init.get("result").is_some(), "{init}");
        s
    }
}

/// The tool names `tools/list` shows (after the first load).
fn tool_names(s: &mut Server) -> Vec<String> {
    let (tools, _) = s.list_all_tools();
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn word_count(s: &mut Server) -> Value {
    let result = s.call_ok("word_count", json!({"text": "one two three"}));
    serde_json::from_str(&text(&result)).unwrap()
}

/// Waits for `notifications/tools/list_changed` (kept or next).
fn wait_for_list_changed(s: &mut Server) {
    let method = "notifications/tools/list_changed";
    if let Some(i) = s.notifications.iter().position(|n| n["method"] == method) {
        s.notifications.remove(i);
        return;
    }
    loop {
        let msg = s.recv();
        if msg["method"] == method {
            return;
        }
        s.notifications.push(msg);
    }
}

#[test]
fn a_pushed_and_signed_plugin_is_pulled_served_and_inspected() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let cwd = work.path();
    let reference = registry.reference("plugins/counter:v1");
    let digest = push(cwd, test_artifacts::WORDCOUNT, &reference);

    // pull writes DIR/NAME.wasm, byte for byte what was pushed.
    let out = run_ok(
        cwd,
        &[
            "pull",
            &reference,
            "--dir",
            "pulled",
            "--cache-dir",
            &work.cache(),
        ],
    );
    assert!(out.contains(&digest), "{out}");
    assert_eq!(
        std::fs::read(cwd.join("pulled/counter.wasm")).unwrap(),
        std::fs::read(test_artifacts::WORDCOUNT).unwrap()
    );

    // A key pair, a signature, and a policy that requires it.
    run_ok(cwd, &["keygen", "--out", "team"]);
    let signed = run_ok(cwd, &["sign", "--key", "team.key", &reference]);
    assert!(signed.contains(&digest), "{signed}");
    work.write_policy(&format!(
        "[defaults]\nsignature_keys = [\"team.pub\"]\n[plugins.remote]\nsource = \"{reference}\"\n"
    ));
    let mut s = work.serve();
    assert_eq!(tool_names(&mut s), ["word_count"]);
    assert_eq!(word_count(&mut s)["words"], 3);
    let log = s.stderr();
    assert!(
        log.contains("plugin source resolved") && log.contains(&digest),
        "{log}"
    );
    assert!(log.contains("team.pub"), "the log names the key: {log}");

    // inspect shows where the plugin came from and the digest.
    let out = run_ok(
        cwd,
        &[
            "inspect",
            "--json",
            "--config",
            &work.config(),
            "--cache-dir",
            &work.cache(),
            &reference,
        ],
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["plugin"], "remote", "{report}");
    assert_eq!(
        report["source"]["reference"],
        reference.as_str(),
        "{report}"
    );
    assert_eq!(report["source"]["digest"], digest.as_str(), "{report}");
    assert!(
        report["source"]["signed_by"]
            .as_str()
            .unwrap()
            .ends_with("team.pub"),
        "{report}"
    );
    let out = run_ok(
        cwd,
        &[
            "inspect",
            "--config",
            &work.config(),
            "--cache-dir",
            &work.cache(),
            &reference,
        ],
    );
    assert!(out.contains(&digest) && out.contains(&reference), "{out}");
}

#[test]
fn a_source_added_at_runtime_is_fetched_and_a_moved_tag_is_resolved_again() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let cwd = work.path();
    let reference = registry.reference("plugins/moving:latest");
    let first = push(cwd, test_artifacts::WORDCOUNT, &reference);
    work.write_policy("[defaults]\nfuel = 1_000_000_000\n");
    let mut s = work.serve();
    assert!(tool_names(&mut s).is_empty());

    // Adding a source to the watched policy file fetches and loads it.
    work.write_policy(&format!(
        "[defaults]\nfuel = 1_000_000_000\n[plugins.remote]\nsource = \"{reference}\"\n"
    ));
    wait_for_list_changed(&mut s);
    assert_eq!(tool_names(&mut s), ["word_count"]);
    assert_eq!(word_count(&mut s)["words"], 3);
    assert!(s.stderr().contains(&first));

    // The tag moves to another component: the next reload resolves it again.
    let second = push(cwd, test_artifacts::FNV, &reference);
    assert_ne!(first, second);
    work.write_policy(&format!(
        "# the tag moved\n[defaults]\nfuel = 1_000_000_000\n[plugins.remote]\nsource = \"{reference}\"\n"
    ));
    wait_for_list_changed(&mut s);
    assert_eq!(tool_names(&mut s), ["hash"]);
    s.wait_for_stderr(&second);
    let out = run_ok(
        cwd,
        &[
            "inspect",
            "--json",
            "--config",
            &work.config(),
            "--cache-dir",
            &work.cache(),
            &reference,
        ],
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["source"]["digest"], second.as_str(), "{report}");

    // Taking the source out of the policy removes the plugin.
    work.write_policy("[defaults]\nfuel = 1_000_000_000\n");
    wait_for_list_changed(&mut s);
    assert!(tool_names(&mut s).is_empty());
}

/// Serves under `policy` and returns the server (its first load done) and
/// its log.
fn serve_refused(work: &Work, policy: &str) -> (Server, String) {
    work.write_policy(policy);
    let mut s = work.serve();
    assert!(tool_names(&mut s).is_empty(), "nothing may load");
    s.wait_for_stderr("plugins loaded");
    let log = s.stderr();
    (s, log)
}

#[test]
fn wrong_digests_and_missing_or_bad_signatures_are_refused() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let cwd = work.path();
    let signed = registry.reference("plugins/signed:v1");
    let unsigned = registry.reference("plugins/unsigned:v1");
    push(cwd, test_artifacts::WORDCOUNT, &signed);
    push(cwd, test_artifacts::WORDCOUNT, &unsigned);
    run_ok(cwd, &["keygen", "--out", "team"]);
    run_ok(cwd, &["keygen", "--out", "other"]);
    run_ok(cwd, &["sign", "--key", "other.key", &signed]);

    // A pinned digest the component does not have.
    let wrong = "ab".repeat(32);
    let (_s, log) = serve_refused(
        &work,
        &format!("[plugins.remote]\nsource = \"{signed}\"\nsha256 = \"{wrong}\"\n"),
    );
    assert!(
        log.contains("does not match the pinned digest")
            && log.contains(&wrong)
            && log.contains("`sha256` in [plugins.remote]")
            && log.contains(&signed),
        "{log}"
    );

    // No signature at all.
    let (_s, log) = serve_refused(
        &work,
        &format!("[plugins.remote]\nsource = \"{unsigned}\"\nsignature_keys = [\"team.pub\"]\n"),
    );
    assert!(
        log.contains("not signed")
            && log.contains("`plugins.remote.signature_keys`")
            && log.contains("team.pub")
            && log.contains(&unsigned),
        "{log}"
    );

    // Signed, but by another key.
    let (_s, log) = serve_refused(
        &work,
        &format!(
            "[defaults]\nsignature_keys = [\"team.pub\"]\n[plugins.remote]\nsource = \"{signed}\"\n"
        ),
    );
    assert!(
        log.contains("wrongly signed")
            && log.contains("`defaults.signature_keys`")
            && log.contains("team.pub")
            && log.contains(&signed),
        "{log}"
    );

    // The same key on the command line.
    let out = run(
        cwd,
        &[
            "pull",
            &signed,
            "--dir",
            "pulled",
            "--key",
            "team.pub",
            "--cache-dir",
            &work.cache(),
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrongly signed"));
    assert!(!cwd.join("pulled/signed.wasm").exists());
}

#[test]
fn an_unreachable_registry_serves_the_cached_copy() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let mut registry = Registry::start(&binary);
    let work = Work::new();
    let cwd = work.path();
    let reference = registry.reference("plugins/offline:v1");
    let digest = push(cwd, test_artifacts::WORDCOUNT, &reference);
    run_ok(cwd, &["keygen", "--out", "team"]);
    run_ok(cwd, &["sign", "--key", "team.key", &reference]);
    work.write_policy(&format!(
        "[plugins.remote]\nsource = \"{reference}\"\nsignature_keys = [\"team.pub\"]\n"
    ));
    {
        let mut s = work.serve();
        assert_eq!(word_count(&mut s)["words"], 3);
    }
    registry.stop();
    let mut s = work.serve();
    assert_eq!(word_count(&mut s)["words"], 3);
    let log = s.stderr();
    assert!(
        log.contains("cannot be reached: using the cached copy") && log.contains(&digest),
        "{log}"
    );

    // Without a cached copy it is an error that says so.
    let (_s, log) = {
        let mut s = work.serve_with_cache(work.path().join("empty-cache").to_str().unwrap());
        assert!(tool_names(&mut s).is_empty());
        s.wait_for_stderr("plugins loaded");
        let log = s.stderr();
        (s, log)
    };
    assert!(log.contains("the cache has no copy"), "{log}");
}

#[test]
fn a_corrupt_blob_in_the_registry_is_refused() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let cwd = work.path();
    let reference = registry.reference("plugins/corrupt:v1");
    push(cwd, test_artifacts::WORDCOUNT, &reference);
    let bytes = std::fs::read(test_artifacts::WORDCOUNT).unwrap();
    let layer = format!("sha256:{}", sha256_hex(&bytes));
    let stored = registry.blob_file(&layer);
    assert!(stored.is_file(), "{}", stored.display());
    let mut damaged = bytes.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0xff;
    std::fs::write(&stored, &damaged).unwrap();

    let (_s, log) = serve_refused(
        &work,
        &format!("[plugins.remote]\nsource = \"{reference}\"\n"),
    );
    assert!(
        log.contains("skipped plugin remote") && log.contains("digest") && log.contains(&layer),
        "{log}"
    );
    let out = run(
        cwd,
        &[
            "pull",
            &reference,
            "--dir",
            "pulled",
            "--cache-dir",
            &work.cache(),
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("digest"));
    assert!(!cwd.join("pulled/corrupt.wasm").exists());
}

#[test]
fn a_sourced_name_and_a_directory_file_of_that_name_clash_loudly() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let reference = registry.reference("plugins/clash:v1");
    push(work.path(), test_artifacts::WORDCOUNT, &reference);
    std::fs::copy(test_artifacts::FNV, work.plugins().join("remote.wasm")).unwrap();
    work.write_policy(&format!("[plugins.remote]\nsource = \"{reference}\"\n"));
    let mut s = work.serve();
    // The policy's source serves the name; the file is refused, loudly.
    assert_eq!(tool_names(&mut s), ["word_count"]);
    s.wait_for_stderr("plugins loaded");
    let log = s.stderr();
    assert!(
        log.contains("remote.wasm")
            && log.contains("the plugin name \"remote\" is taken by `plugins.remote.source`"),
        "{log}"
    );
}

/// Serves `body` at every path over plain HTTP on 127.0.0.1 (one thread,
/// `count` connections).
fn serve_file(body: Vec<u8>, count: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(count) {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/wasm\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    format!("http://{addr}/plugins/counter.wasm")
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}

#[test]
fn a_url_source_needs_a_digest_and_is_checked_against_it() {
    let work = Work::new();
    let bytes = std::fs::read(test_artifacts::WORDCOUNT).unwrap();
    let hex = sha256_hex(&bytes);
    let url = serve_file(bytes, 2);

    // Without a digest the policy file is refused, naming the key.
    work.write_policy(&format!("[plugins.remote]\nsource = \"{url}\"\n"));
    let out = Command::new(crate::common::binary())
        .args(["serve", "--config", &work.config(), "--plugins"])
        .arg(work.plugins())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`plugins.remote.source`") && err.contains("sha256"),
        "{err}"
    );

    work.write_policy(&format!(
        "[plugins.remote]\nsource = \"{url}\"\nsha256 = \"{hex}\"\n"
    ));
    let mut s = work.serve();
    assert_eq!(word_count(&mut s)["words"], 3);
    drop(s);

    // A wrong digest: the fetched file is refused, naming the key.
    let wrong = "cd".repeat(32);
    work.write_policy(&format!(
        "[plugins.remote]\nsource = \"{url}\"\nsha256 = \"{wrong}\"\n"
    ));
    let (_s, log) = serve_refused(&work, &std::fs::read_to_string(work.config()).unwrap());
    assert!(
        log.contains("does not match the pinned digest")
            && log.contains("`sha256` in [plugins.remote]"),
        "{log}"
    );
}
