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

use crate::common::revision::R4;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::registry::{Registry, registry_binary};
use crate::common::{Server, text};
use serde_json::{Value, json};

/// Runs `mcp-wasm-host ARGS` in `cwd`.
fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(crate::common::binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
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

/// Waits until `tools/list` shows exactly `expected`: sources are fetched
/// after the local plugins are served, and each appears with
/// `notifications/tools/list_changed`.
fn wait_for_tools(s: &mut Server, expected: &[&str]) {
    loop {
        if tool_names(s) == expected {
            return;
        }
        wait_for_list_changed(s);
    }
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
    wait_for_tools(&mut s, &["word_count"]);
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
    s.wait_for_stderr("plugin sources fetched");
    assert!(tool_names(&mut s).is_empty(), "nothing may load");
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
        wait_for_tools(&mut s, &["word_count"]);
        assert_eq!(word_count(&mut s)["words"], 3);
    }
    registry.stop();
    let mut s = work.serve();
    wait_for_tools(&mut s, &["word_count"]);
    assert_eq!(word_count(&mut s)["words"], 3);
    let log = s.stderr();
    assert!(
        log.contains("cannot be reached: using the cached copy") && log.contains(&digest),
        "{log}"
    );

    // Without a cached copy it is an error that says so.
    let (_s, log) = {
        let mut s = work.serve_with_cache(work.path().join("empty-cache").to_str().unwrap());
        s.wait_for_stderr("plugin sources fetched");
        assert!(tool_names(&mut s).is_empty());
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
    wait_for_tools(&mut s, &["word_count"]);
    s.wait_for_stderr("plugin sources fetched");
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
        .env(crate::common::WAIT_FOR_LOAD, "1")
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
    wait_for_tools(&mut s, &["word_count"]);
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

/// The files in the store's blob directory: the blobs kept, and any
/// temporary file left behind.
fn stored_blobs(cache: &str) -> Vec<String> {
    match std::fs::read_dir(Path::new(cache).join("sources/blobs/sha256")) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// `pull REF` into `work`'s `pulled/`, with extra arguments.
fn pull(work: &Work, reference: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "pull",
        reference,
        "--dir",
        "pulled",
        "--cache-dir",
        // Each pull its own cache: a refusal must keep nothing.
    ];
    let cache = work
        .path()
        .join(format!("cache-{}", sha256_hex(reference.as_bytes())));
    let cache = cache.to_str().unwrap().to_string();
    args.push(&cache);
    args.extend(extra);
    let out = run(work.path(), &args);
    // Nothing of a refused fetch is kept, not even a temporary file.
    if !out.status.success() {
        let blobs = stored_blobs(&cache);
        assert!(
            blobs.iter().all(|b| !b.starts_with(".tmp")),
            "a temporary file is left: {blobs:?}"
        );
    }
    out
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The class: a manifest whose declared layer size differs from the blob's,
/// by any amount either way (and a negative one), is refused, naming the
/// declared size; the true size is accepted. Through `pull` for the whole
/// table, and through `serve` for one of each direction.
#[test]
fn a_declared_layer_size_that_differs_from_the_blob_is_refused_as_a_class() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let layer = std::fs::read(test_artifacts::WORDCOUNT).unwrap();
    let len = layer.len() as i64;
    let layer_hex = sha256_hex(&layer);
    let mut declared: Vec<i64> = vec![0, 1, len / 2, len - 1, len + 1, len + 4096, len * 2, -1];
    declared.extend([-len, i64::MAX]);
    let mut tags = Vec::new();
    for (i, size) in declared.iter().enumerate() {
        let tag = format!("size{i}");
        registry.push_wasm("plugins/sized", &tag, &layer, Some(*size));
        tags.push((tag, *size));
    }
    registry.push_wasm("plugins/sized", "true", &layer, None);
    for (tag, size) in &tags {
        let out = pull(
            &work,
            &registry.reference(&format!("plugins/sized:{tag}")),
            &[],
        );
        let err = stderr_of(&out);
        assert!(!out.status.success(), "declared {size} of {len}: accepted");
        let named = if *size < 0 {
            err.contains("invalid size")
        } else if *size as u64 > 256 << 20 {
            err.contains("`--max-size`")
        } else if *size > len {
            err.contains(&format!("of the {size} bytes the manifest declares"))
        } else {
            err.contains(&format!("more than the {size} bytes the manifest declares"))
        };
        assert!(named, "declared {size} of {len}: {err}");
        assert!(err.contains(&layer_hex), "names the layer: {err}");
        assert!(!work.path().join("pulled/sized.wasm").exists());
    }
    // The true size passes: the refusals were the sizes'.
    let ok = pull(&work, &registry.reference("plugins/sized:true"), &[]);
    assert!(ok.status.success(), "{}", stderr_of(&ok));
    assert_eq!(
        std::fs::read(work.path().join("pulled/sized.wasm")).unwrap(),
        layer
    );

    // serve: one short, one long; neither is kept in the cache.
    let short = registry.reference("plugins/sized:size4");
    let long = registry.reference("plugins/sized:size3");
    let (_s, log) = serve_refused(
        &work,
        &format!("[plugins.short]\nsource = \"{short}\"\n[plugins.long]\nsource = \"{long}\"\n"),
    );
    assert!(
        log.contains("skipped plugin short")
            && log.contains(&format!("of the {} bytes the manifest declares", len + 1))
            && log.contains("skipped plugin long")
            && log.contains(&format!(
                "more than the {} bytes the manifest declares",
                len - 1
            )),
        "{log}"
    );
    assert!(
        !stored_blobs(&work.cache()).contains(&layer_hex),
        "a refused layer was kept"
    );
}

/// `max_plugin_size` bounds what is downloaded, from a registry and from a
/// URL, and the refusal names the key that set it.
#[test]
fn max_plugin_size_bounds_fetched_components_and_is_named() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let reference = registry.reference("plugins/big:v1");
    push(work.path(), test_artifacts::WORDCOUNT, &reference);
    let bytes = std::fs::read(test_artifacts::WORDCOUNT).unwrap();
    let hex = sha256_hex(&bytes);
    let url = serve_file(bytes.clone(), 4);
    for (policy, key) in [
        (
            format!(
                "[defaults]\nmax_plugin_size = \"1 KiB\"\n[plugins.remote]\nsource = \"{reference}\"\n"
            ),
            "`defaults.max_plugin_size`",
        ),
        (
            format!("[plugins.remote]\nsource = \"{reference}\"\nmax_plugin_size = 1000\n"),
            "`plugins.remote.max_plugin_size`",
        ),
        (
            format!(
                "[plugins.remote]\nsource = \"{url}\"\nsha256 = \"{hex}\"\nmax_plugin_size = 1000\n"
            ),
            "`plugins.remote.max_plugin_size`",
        ),
    ] {
        let (_s, log) = serve_refused(&work, &policy);
        assert!(
            log.contains("skipped plugin remote") && log.contains(key),
            "{key}: {log}"
        );
        assert!(
            !stored_blobs(&work.cache()).contains(&hex),
            "kept: {policy}"
        );
    }
    let out = pull(&work, &reference, &["--max-size", "1KiB"]);
    assert!(!out.status.success());
    assert!(
        stderr_of(&out).contains("`--max-size`"),
        "{}",
        stderr_of(&out)
    );
    let out = pull(&work, &reference, &["--max-size", "1MiB"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
}

/// Under `signature_keys`, the signature is checked against the manifest
/// digest before any layer is downloaded, and nothing of a refused
/// artifact is kept: proved by deleting the layer from the registry (a
/// download would fail differently) for every way of being unsigned.
#[test]
fn the_signature_is_checked_before_any_layer_is_downloaded_and_nothing_refused_is_kept() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let cwd = work.path();
    run_ok(cwd, &["keygen", "--out", "team"]);
    run_ok(cwd, &["keygen", "--out", "other"]);
    // Each artifact its own bytes, so deleting one layer touches no other.
    let base = std::fs::read(test_artifacts::WORDCOUNT).unwrap();
    let cases = [
        ("unsigned", None, "not signed"),
        ("othersigned", Some("other.key"), "wrongly signed"),
    ];
    for (i, (repo, signer, expected)) in cases.iter().enumerate() {
        let mut layer = base.clone();
        layer.extend(std::iter::repeat_n(0u8, i + 1));
        let reference = registry.reference(&format!("plugins/{repo}:v1"));
        let manifest = registry.push_wasm(&format!("plugins/{repo}"), "v1", &layer, None);
        if let Some(key) = signer {
            run_ok(cwd, &["sign", "--key", key, &reference]);
        }
        let layer_digest = format!("sha256:{}", sha256_hex(&layer));
        std::fs::remove_file(registry.blob_file(&layer_digest)).unwrap();
        let (_s, log) = serve_refused(
            &work,
            &format!(
                "[plugins.remote]\nsource = \"{reference}\"\nsignature_keys = [\"team.pub\"]\n"
            ),
        );
        assert!(
            log.contains(expected) && log.contains("team.pub"),
            "{repo}: {log}"
        );
        let kept = stored_blobs(&work.cache());
        for digest in [&manifest, &layer_digest] {
            let hex = digest.trim_start_matches("sha256:");
            assert!(!kept.iter().any(|b| b == hex), "{repo}: {digest} was kept");
        }
        assert!(kept.iter().all(|b| !b.starts_with(".tmp")), "{kept:?}");
        let out = pull(&work, &reference, &["--key", "team.pub"]);
        assert!(stderr_of(&out).contains(expected), "{}", stderr_of(&out));
    }
}

/// How a fake registry misbehaves after accepting a connection.
#[derive(Clone, Copy, Debug)]
enum Stall {
    /// Reads nothing, answers nothing.
    Silent,
    /// Reads the request, answers nothing.
    ReadsOnly,
    /// Starts an answer (part of a status line), then nothing.
    HalfAnswer,
}

/// A TCP listener on 127.0.0.1 that accepts every connection and stalls it
/// as `stall` says, keeping it open; sends each accepted connection (a
/// clone) on the channel.
fn stalling_registry(stall: Stall) -> (String, std::sync::mpsc::Receiver<std::net::TcpStream>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            match stall {
                Stall::Silent => {}
                Stall::ReadsOnly => {
                    let _ = stream.read(&mut [0u8; 4096]);
                }
                Stall::HalfAnswer => {
                    let _ = stream.read(&mut [0u8; 4096]);
                    let _ = stream.write_all(b"HTTP/1.1 2");
                }
            }
            let _ = tx.send(stream.try_clone().unwrap());
            held.push(stream);
        }
    });
    (addr, rx)
}

/// Whether the peer still holds `stream` open (nothing to read, no EOF).
fn still_open(stream: &std::net::TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 1];
    // Nothing to read yet, or the request it sent: open. EOF: closed.
    let open = match (&*stream).read(&mut buf) {
        Ok(n) => n > 0,
        Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
    };
    stream.set_nonblocking(false).unwrap();
    open
}

/// A registry that accepts connections and never answers delays nothing
/// already here: for every way of stalling, `tools/list` answers with the
/// local plugin while the fetch is provably still waiting (its connection
/// open, its timeouts an hour away).
#[test]
fn a_registry_that_never_answers_does_not_delay_the_local_plugins() {
    for stall in [Stall::Silent, Stall::ReadsOnly, Stall::HalfAnswer] {
        let work = Work::new();
        std::fs::copy(test_artifacts::FNV, work.plugins().join("local.wasm")).unwrap();
        let (addr, connections) = stalling_registry(stall);
        work.write_policy(&format!(
            "[server]\nfetch_first_byte_timeout = \"1h\"\nfetch_timeout = \"2h\"\n[plugins.remote]\nsource = \"oci://{addr}/plugins/remote:v1\"\n"
        ));
        let mut s = work.serve();
        // The fetch has reached the registry...
        let held = connections
            .recv_timeout(std::time::Duration::from_secs(120))
            .unwrap();
        // ...and the local plugin is served meanwhile.
        assert_eq!(tool_names(&mut s), ["hash"], "{stall:?}");
        assert!(
            still_open(&held),
            "{stall:?}: the fetch is no longer waiting"
        );
        let log = s.stderr();
        assert!(!log.contains("plugin sources fetched"), "{stall:?}: {log}");
    }
}

/// Reads `stream` until its peer closes it (the fetch that held it was
/// dropped); fails if that takes more than five minutes.
fn wait_closed(stream: &std::net::TcpStream) {
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(300)))
        .unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match (&*stream).read(&mut buf) {
            Ok(0) => return,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return,
            Err(e) => panic!("the fetch still holds its connection: {e}"),
        }
    }
}

/// Fetch bounds far beyond any test, so that a stalled fetch provably
/// still waits while the test looks.
const PATIENT: &str = "[server]\nfetch_first_byte_timeout = \"1h\"\nfetch_timeout = \"2h\"\n";

/// A policy reload whose registry never answers delays nothing the plugins
/// directory holds: while the reload's fetch is provably still waiting (its
/// connection open, its timeouts an hour away), a plugin file added to the
/// directory is served and announced with `list_changed`.
#[test]
fn a_reload_whose_registry_never_answers_does_not_delay_the_plugins_directory() {
    for stall in [Stall::Silent, Stall::ReadsOnly, Stall::HalfAnswer] {
        let work = Work::new();
        work.write_policy(PATIENT);
        let mut s = work.serve();
        assert!(tool_names(&mut s).is_empty(), "{stall:?}");
        let (addr, connections) = stalling_registry(stall);
        work.write_policy(&format!(
            "{PATIENT}[plugins.remote]\nsource = \"oci://{addr}/plugins/remote:v1\"\n"
        ));
        // The reload's fetch has reached the registry...
        let held = connections
            .recv_timeout(std::time::Duration::from_secs(120))
            .unwrap();
        // ...and a plugin file added meanwhile is served.
        std::fs::copy(test_artifacts::FNV, work.plugins().join("local.wasm")).unwrap();
        wait_for_tools(&mut s, &["hash"]);
        assert!(
            still_open(&held),
            "{stall:?}: the fetch is no longer waiting"
        );
        // Removing it is handled too, the fetch still waiting.
        std::fs::remove_file(work.plugins().join("local.wasm")).unwrap();
        wait_for_tools(&mut s, &[]);
        assert!(
            still_open(&held),
            "{stall:?}: the fetch is no longer waiting"
        );
        let log = s.stderr();
        assert!(!log.contains("plugin sources fetched"), "{stall:?}: {log}");
    }
}

/// A newer policy supersedes a reload's fetch still running: the older
/// fetch is abandoned (its connection closed, so it can never be applied)
/// and the newer policy's plugin is served, announced with `list_changed`.
#[test]
fn a_newer_policy_supersedes_a_fetch_still_running() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let reference = registry.reference("plugins/newer:v1");
    push(work.path(), test_artifacts::WORDCOUNT, &reference);
    work.write_policy(PATIENT);
    let mut s = work.serve();
    let (addr, connections) = stalling_registry(Stall::ReadsOnly);
    work.write_policy(&format!(
        "{PATIENT}[plugins.remote]\nsource = \"oci://{addr}/plugins/remote:v1\"\n"
    ));
    let held = connections
        .recv_timeout(std::time::Duration::from_secs(120))
        .unwrap();
    work.write_policy(&format!(
        "{PATIENT}[plugins.remote]\nsource = \"{reference}\"\n"
    ));
    wait_for_tools(&mut s, &["word_count"]);
    wait_closed(&held);
    s.wait_for_stderr("that fetch is abandoned for the new policy's");
    s.wait_for_stderr("plugin sources fetched");
    let log = s.stderr();
    assert_eq!(
        log.matches("plugin sources fetched").count(),
        1,
        "only the newer policy's fetch is applied: {log}"
    );
}

/// The timeouts end a stalled fetch with an error naming the key that
/// bounds it: no first byte (`fetch_first_byte_timeout`), and an answer
/// that trickles slower than the whole fetch may take (`fetch_timeout`).
#[test]
fn a_stalled_fetch_times_out_naming_the_key() {
    // A server that trickles an answer one byte at a time, never ending.
    let trickle = TcpListener::bind("127.0.0.1:0").unwrap();
    let trickle_addr = trickle.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in trickle.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let _ = stream.read(&mut [0u8; 4096]);
                let head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n";
                let _ = stream.write_all(head);
                loop {
                    if stream.write_all(b" ").is_err() {
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
            });
        }
    });
    let (silent_addr, _connections) = stalling_registry(Stall::ReadsOnly);
    let cases = [
        (
            format!(
                "[server]\nfetch_first_byte_timeout = \"1s\"\n[plugins.remote]\nsource = \"oci://{silent_addr}/p/remote:v1\"\n"
            ),
            "`server.fetch_first_byte_timeout`",
        ),
        (
            format!(
                "[server]\nfetch_timeout = \"2s\"\n[plugins.remote]\nsource = \"oci://{trickle_addr}/p/remote:v1\"\n"
            ),
            "`server.fetch_timeout`",
        ),
        (
            format!(
                "[server]\nfetch_first_byte_timeout = \"1s\"\n[plugins.remote]\nsource = \"http://{silent_addr}/remote.wasm\"\nsha256 = \"{}\"\n",
                "ab".repeat(32)
            ),
            "`server.fetch_first_byte_timeout`",
        ),
    ];
    for (policy, key) in cases {
        let work = Work::new();
        let (_s, log) = serve_refused(&work, &policy);
        assert!(
            log.contains("skipped plugin remote") && log.contains(key),
            "{key}: {log}"
        );
    }
}

/// A TCP proxy on 127.0.0.1 to `target` that holds every connection until
/// the returned sender is used (or dropped).
fn gated_proxy(target: String) -> (String, std::sync::mpsc::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (open_tx, open_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut opened = false;
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            if !opened {
                let _ = open_rx.recv();
                opened = true;
            }
            let upstream = std::net::TcpStream::connect(&target).unwrap();
            for (mut from, mut to) in [
                (client.try_clone().unwrap(), upstream.try_clone().unwrap()),
                (upstream, client),
            ] {
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut from, &mut to);
                    let _ = to.shutdown(std::net::Shutdown::Write);
                });
            }
        }
    });
    (addr, open_tx)
}

/// A plugin still being fetched is not listed; once fetched it appears,
/// announced with `notifications/tools/list_changed`.
#[test]
fn a_plugin_still_fetching_appears_with_list_changed_when_ready() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    push(
        work.path(),
        test_artifacts::WORDCOUNT,
        &registry.reference("plugins/later:v1"),
    );
    std::fs::copy(test_artifacts::FNV, work.plugins().join("local.wasm")).unwrap();
    let (proxy, open) = gated_proxy(registry.addr.clone());
    work.write_policy(&format!(
        "[plugins.remote]\nsource = \"oci://{proxy}/plugins/later:v1\"\n"
    ));
    let mut s = work.serve();
    assert_eq!(tool_names(&mut s), ["hash"]);
    open.send(()).unwrap();
    wait_for_list_changed(&mut s);
    let mut names = tool_names(&mut s);
    names.sort();
    assert_eq!(names, ["hash", "word_count"]);
    assert_eq!(word_count(&mut s)["words"], 3);
}

/// Section names are held to the plugin-name rule when the policy file
/// loads: one that is not a plugin name (a path, a dot-segment in any
/// form, a separator) refuses the file with a message naming the section,
/// and nothing is written anywhere.
#[test]
fn section_names_that_are_not_plugin_names_refuse_the_policy_file() {
    let names = [
        "../escape",
        "../../../tmp/escape",
        "..",
        ".",
        "a/b",
        "a\\\\b",
        "./x",
        ".hidden",
        "x/../../y",
        "with space",
        "",
    ];
    for name in names {
        let work = Work::new();
        work.write_policy(&format!(
            "[plugins.\"{name}\"]\nsource = \"https://127.0.0.1:9/x.wasm\"\nsha256 = \"{}\"\n",
            "ab".repeat(32)
        ));
        let out = Command::new(crate::common::binary())
            .env(crate::common::WAIT_FOR_LOAD, "1")
            .args([
                "serve",
                "--config",
                &work.config(),
                "--cache-dir",
                &work.cache(),
                "--plugins",
            ])
            .arg(work.plugins())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert!(!out.status.success(), "{name:?} was accepted");
        assert!(
            err.contains("is not a plugin name") && err.contains("`plugins.\""),
            "{name:?}: {err}"
        );
        assert!(
            !Path::new(&work.cache()).exists(),
            "{name:?}: the cache was written"
        );
    }
    // pull --name is held to the same rule.
    let work = Work::new();
    for name in ["../escape", "a/b", ".."] {
        let out = pull(&work, "oci://127.0.0.1:9/plugins/x:v1", &["--name", name]);
        assert!(!out.status.success());
        assert!(
            stderr_of(&out).contains("is not a plugin name"),
            "{}",
            stderr_of(&out)
        );
    }
}

/// An OCI index or a Docker manifest list, by tag or by digest, is refused
/// saying what it is, why, and which manifests it lists (not "not found").
#[test]
fn an_index_is_refused_saying_what_it_is() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let reference = registry.reference("plugins/multi:single");
    let entry = push(work.path(), test_artifacts::WORDCOUNT, &reference);
    let manifest_len = ureq::get(format!(
        "http://{}/v2/plugins/multi/manifests/{entry}",
        registry.addr
    ))
    .header("Accept", "application/vnd.oci.image.manifest.v1+json")
    .call()
    .unwrap()
    .body_mut()
    .read_to_vec()
    .unwrap()
    .len();
    for (tag, media_type) in [
        ("oci", "application/vnd.oci.image.index.v1+json"),
        (
            "docker",
            "application/vnd.docker.distribution.manifest.list.v2+json",
        ),
    ] {
        let index = json!({
            "schemaVersion": 2,
            "mediaType": media_type,
            "manifests": [{
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": entry,
                "size": manifest_len,
                "platform": {"os": "wasip2", "architecture": "wasm"},
            }],
        });
        let digest = registry.put_manifest(
            "plugins/multi",
            tag,
            media_type,
            &serde_json::to_vec(&index).unwrap(),
        );
        for by in [
            registry.reference(&format!("plugins/multi:{tag}")),
            registry.reference(&format!("plugins/multi@{digest}")),
        ] {
            let out = pull(&work, &by, &[]);
            let err = stderr_of(&out);
            assert!(!out.status.success(), "{by}");
            assert!(
                err.contains("is an OCI image index")
                    && err.contains(&format!("{entry} (wasip2/wasm)"))
                    && !err.contains("not found"),
                "{by}: {err}"
            );
        }
    }
}

/// `pull` of a large layer keeps the host's memory flat: its peak resident
/// memory pulling a 192 MiB layer is within 48 MiB of pulling a 4 MiB one
/// (the old whole-blob `Vec` cost the layer's size, and more). The figures
/// are printed as a ratio against the small pull measured in the same run.
#[test]
fn pulling_a_large_layer_keeps_memory_flat() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let mut peaks = Vec::new();
    for (tag, mib) in [("small", 4usize), ("large", 192)] {
        let mut layer = vec![0u8; mib << 20];
        // Not all zeros, so nothing on the way can shrink it.
        for (i, b) in layer.iter_mut().enumerate().step_by(4096) {
            *b = (i / 4096) as u8;
        }
        registry.push_wasm("plugins/heavy", tag, &layer, None);
        drop(layer);
        let reference = registry.reference(&format!("plugins/heavy:{tag}"));
        let cache = work.path().join(format!("cache-{tag}"));
        let child = Command::new(crate::common::binary())
            .env(crate::common::WAIT_FOR_LOAD, "1")
            .args([
                "pull",
                &reference,
                "--dir",
                "pulled",
                "--name",
                tag,
                "--max-size",
                "512MiB",
                "--cache-dir",
            ])
            .arg(&cache)
            .current_dir(work.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (status, max_rss_kib) = wait_with_peak(child);
        assert!(status.success(), "pull {tag} failed");
        assert_eq!(
            std::fs::metadata(work.path().join(format!("pulled/{tag}.wasm")))
                .unwrap()
                .len(),
            (mib << 20) as u64
        );
        peaks.push(max_rss_kib);
    }
    let (small, large) = (peaks[0], peaks[1]);
    eprintln!(
        "pull peak RSS: 4 MiB layer {small} KiB, 192 MiB layer {large} KiB (ratio {:.2})",
        large as f64 / small as f64
    );
    assert!(
        large < small + 48 * 1024,
        "pulling 188 MiB more cost {} KiB more memory",
        large - small
    );
}

/// Waits for `child` and returns its exit status and peak resident memory
/// (KiB): the largest `VmHWM` (the kernel's high-water mark of this
/// process's own memory, which an exec starts afresh) read from
/// `/proc/PID/status` while it runs. `wait4`'s `ru_maxrss` cannot be used:
/// it keeps the high-water mark of the memory the child was spawned from,
/// this test process's.
fn wait_with_peak(mut child: std::process::Child) -> (std::process::ExitStatus, u64) {
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        // The mark only rises; the last look before the exit is the peak
        // but for what the last few milliseconds added.
        if let Some(kib) = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|status| {
                let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
        {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The permissions an artifact's author requests (Wassette's policy layer,
/// `application/vnd.wasm.policy.v1+yaml`) are shown by `pull` and `inspect`
/// and written as a section to review by `pull --print-policy`, and never
/// granted on their own: served from that artifact, the plugin gets only
/// what the policy file says, for every kind of permission the layer asks.
#[test]
fn an_artifacts_requested_permissions_are_shown_and_never_granted() {
    let Some(binary) = registry_binary() else {
        return;
    };
    let registry = Registry::start(&binary);
    let work = Work::new();
    let cwd = work.path();
    let reference = registry.reference("plugins/weather:v1");
    std::fs::write(
        cwd.join("policy.yaml"),
        "version: \"1.0\"\ndescription: \"Permission policy for a weather demo\"\n\
         permissions:\n  network:\n    allow:\n      - host: \"api.openweathermap.org\"\n\
         \x20 environment:\n    allow:\n      - key: \"OPENWEATHER_API_KEY\"\n\
         \x20 storage:\n    allow:\n      - uri: \"fs:///\"\n        access: [\"read\", \"write\"]\n",
    )
    .unwrap();
    let out = run_ok(
        cwd,
        &[
            "push",
            test_artifacts::WORDCOUNT,
            &reference,
            "--policy",
            "policy.yaml",
        ],
    );
    let digest = out.split_whitespace().nth(1).unwrap().to_string();

    // pull: the component as pushed, a note of what is requested, and with
    // --print-policy the section (valid TOML) on stdout.
    let pulled = run(
        cwd,
        &[
            "pull",
            &reference,
            "--dir",
            "pulled",
            "--cache-dir",
            &work.cache(),
            "--print-policy",
        ],
    );
    assert!(pulled.status.success(), "{pulled:?}");
    let (section, note) = (
        String::from_utf8(pulled.stdout).unwrap(),
        String::from_utf8(pulled.stderr).unwrap(),
    );
    assert!(
        note.contains("its policy layer requests network: api.openweathermap.org")
            && note.contains("nothing is granted"),
        "{note}"
    );
    let table: toml::Table = toml::from_str(&section).unwrap_or_else(|e| panic!("{e}\n{section}"));
    let weather = &table["plugins"]["weather"];
    assert_eq!(
        weather["http"]["allow"][0].as_str(),
        Some("https://api.openweathermap.org"),
        "{section}"
    );
    assert_eq!(
        weather["env_passthrough"][0].as_str(),
        Some("OPENWEATHER_API_KEY")
    );
    assert_eq!(
        weather["mounts"][0]["write"].as_bool(),
        Some(true),
        "{section}"
    );
    assert_eq!(
        std::fs::read(cwd.join("pulled/weather.wasm")).unwrap(),
        std::fs::read(test_artifacts::WORDCOUNT).unwrap()
    );

    // Served from the source under a policy that grants nothing: inspect
    // shows the request beside a policy with no network, env or mounts.
    work.write_policy(&format!("[plugins.remote]\nsource = \"{reference}\"\n"));
    let (config, cache) = (work.config(), work.cache());
    let inspect = |json: bool| {
        let mut args = vec!["inspect", "--config", &config, "--cache-dir", &cache];
        if json {
            args.push("--json");
        }
        args.push(&reference);
        run_ok(cwd, &args)
    };
    let report: Value = serde_json::from_str(&inspect(true)).unwrap();
    let requested = &report["source"]["requested"];
    assert_eq!(requested["granted"], false, "{report}");
    assert_eq!(
        requested["permissions"]["environment"], "OPENWEATHER_API_KEY",
        "{report}"
    );
    assert_eq!(report["source"]["digest"], digest.as_str());
    let text = inspect(false);
    assert!(
        text.contains("requested") && text.contains("NOT granted"),
        "{text}"
    );
    let policy = text
        .split("\npolicy ")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    for granted in [
        "mounts           none",
        "env              none",
        "http             none",
    ] {
        assert!(policy.contains(granted), "{granted}: {policy}");
    }
    // And an artifact with a policy layer serves like any other.
    let mut s = work.serve();
    wait_for_tools(&mut s, &["word_count"]);
    assert_eq!(word_count(&mut s)["words"], 3);
}
