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
    let found = std::env::var_os("MCP_WASM_HOST_REGISTRY").map(PathBuf::from);
    if found.is_none() {
        super::skip(
            "MCP_WASM_HOST_REGISTRY is unset; run with MCP_WASM_HOST_REGISTRY=$(scripts/setup-registry.sh)",
        );
    }
    found
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
        for _ in 0..600 {
            if ureq::get(&url).call().is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the registry at {} never answered", self.addr);
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
