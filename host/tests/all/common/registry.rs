//! A real OCI registry for the tests: Debian's `docker-registry` (the CNCF
//! distribution registry) on 127.0.0.1, storing in a temporary directory.
//! `MCP_WASM_HOST_REGISTRY` names the binary
//! (`MCP_WASM_HOST_REGISTRY=$(scripts/setup-registry.sh)`, as
//! `scripts/test.sh` sets it).
#![allow(dead_code, clippy::unwrap_used)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The registry binary, or `None` after saying how to get it.
pub fn registry_binary() -> Option<PathBuf> {
    super::toolchain(&super::REGISTRY)
}

/// A running registry on 127.0.0.1, storing in its own temporary directory.
pub struct Registry {
    child: Child,
    dir: tempfile::TempDir,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Registry {
    pub fn start(binary: &Path) -> Registry {
        let dir = tempfile::tempdir().unwrap();
        // A free port: bound, read and let go (the registry binds it next).
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let config = dir.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: {addr}\n",
                dir.path().join("storage").display()
            ),
        )
        .unwrap();
        let child = Command::new(binary)
            .env(crate::common::WAIT_FOR_LOAD, "1")
            .arg("serve")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let registry = Registry { child, dir, addr };
        registry.wait_ready();
        registry
    }

    /// Waits until `GET /v2/` answers (the process is up and listening).
    pub fn wait_ready(&self) {
        let url = format!("http://{}/v2/", self.addr);
        super::eventually(
            super::DEADLINE,
            || format!("the registry at {} never answered", self.addr),
            || super::http::try_get(&url).ok(),
        );
    }

    pub fn reference(&self, repo_tag: &str) -> String {
        format!("oci://{}/{repo_tag}", self.addr)
    }

    /// The file a blob's bytes are stored in.
    pub fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap();
        self.dir
            .path()
            .join("storage/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The hex SHA-256 of `bytes`, as `sha256:HEX`.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

impl Registry {
    /// Uploads `bytes` as a blob of `repo` (the registry checks its
    /// digest); returns the digest.
    pub fn put_blob(&self, repo: &str, bytes: &[u8]) -> String {
        let digest = digest(bytes);
        let started = ureq::post(format!("http://{}/v2/{repo}/blobs/uploads/", self.addr))
            .send_empty()
            .unwrap();
        let location = started.headers()["location"].to_str().unwrap().to_string();
        let location = if location.starts_with('/') {
            format!("http://{}{location}", self.addr)
        } else {
            location
        };
        let sep = if location.contains('?') { '&' } else { '?' };
        ureq::put(format!("{location}{sep}digest={digest}"))
            .header("Content-Type", "application/octet-stream")
            .send(bytes)
            .unwrap();
        digest
    }

    /// Puts `body` as the manifest `reference` (a tag or digest) of `repo`
    /// with `media_type`; returns its digest.
    pub fn put_manifest(
        &self,
        repo: &str,
        reference: &str,
        media_type: &str,
        body: &[u8],
    ) -> String {
        ureq::put(format!(
            "http://{}/v2/{repo}/manifests/{reference}",
            self.addr
        ))
        .header("Content-Type", media_type)
        .send(body)
        .unwrap();
        digest(body)
    }

    /// Pushes `layer` as a wasm component artifact tagged `repo:tag`, its
    /// manifest declaring the layer's size as `declared` (the true size
    /// when `None`); returns the manifest digest.
    pub fn push_wasm(&self, repo: &str, tag: &str, layer: &[u8], declared: Option<i64>) -> String {
        let layer_digest = self.put_blob(repo, layer);
        let config = br#"{"architecture":"wasm","os":"wasip2"}"#;
        let config_digest = self.put_blob(repo, config);
        let manifest = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.wasm.config.v0+json",
                "digest": config_digest,
                "size": config.len(),
            },
            "layers": [{
                "mediaType": "application/wasm",
                "digest": layer_digest,
                "size": declared.unwrap_or(layer.len() as i64),
            }],
        });
        self.put_manifest(
            repo,
            tag,
            "application/vnd.oci.image.manifest.v1+json",
            &serde_json::to_vec(&manifest).unwrap(),
        )
    }
}
