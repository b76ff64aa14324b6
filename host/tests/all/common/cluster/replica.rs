//! One replica of a cluster: `serve --http 127.0.0.1:0` with its own
//! plugins and cache directories, the shared policy file and request-state
//! key, its log kept, ready once it listens and `/readyz` answers 200.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};

use crate::common::http::{Client, try_get};
use crate::common::{DEADLINE, eventually};

/// One running replica.
pub struct Replica {
    child: Child,
    stderr: Arc<Mutex<String>>,
    /// Where it listens: `127.0.0.1:PORT`.
    pub authority: String,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

impl Replica {
    /// Starts `serve --http 127.0.0.1:0` with `plugins` (files copied to a
    /// directory of its own), the policy file `config`, the request-state
    /// key file `key` and `args` (`--stateless`, …), and returns once it
    /// listens (not yet ready: see [`Replica::wait_ready`]).
    pub fn start(plugins: &[&str], config: &Path, key: &Path, args: &[&str]) -> Replica {
        let dir = crate::common::plugin_dir(plugins);
        let cache = tempfile::tempdir().unwrap();
        // A minute to drain on SIGTERM, unless `args` says otherwise.
        let shutdown: &[&str] = if args.contains(&"--shutdown-timeout") {
            &[]
        } else {
            &["--shutdown-timeout", "60"]
        };
        let mut child = Command::new(crate::common::binary())
            .env(crate::common::WAIT_FOR_LOAD, "1")
            .arg("serve")
            .arg("--plugins")
            .arg(dir.path())
            .arg("--config")
            .arg(config)
            .arg("--cache-dir")
            .arg(cache.path())
            .arg("--request-state-key-file")
            .arg(key)
            .args(["--http", "127.0.0.1:0"])
            .args(shutdown)
            .args(args)
            // `MCP_WASM_HOST_TEST_REPLICA_LOG` sets another filter, to
            // look into a failing test.
            .env(
                "RUST_LOG",
                std::env::var("MCP_WASM_HOST_TEST_REPLICA_LOG").unwrap_or_else(|_| "info".into()),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let pipe = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(at) = line.find("listening on http://") {
                    let authority = line[at + "listening on http://".len()..]
                        .split('/')
                        .next()
                        .unwrap_or_default()
                        .to_string();
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(authority);
                    }
                }
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let authority = rx
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("a replica never listened:\n{}", stderr.lock().unwrap()));
        Replica {
            child,
            stderr,
            authority,
            _dirs: (dir, cache),
        }
    }

    /// Waits until `/readyz` answers 200 (its first load is done).
    pub fn wait_ready(&self) {
        eventually(
            DEADLINE,
            || format!("replica {} never ready:\n{}", self.authority, self.stderr()),
            || (self.status_of("/readyz") == 200).then_some(()),
        );
    }

    /// The directory of its plugin files (which it watches).
    pub fn plugins(&self) -> &Path {
        self._dirs.0.path()
    }

    /// Waits until `check` gives a value (within [`DEADLINE`]); fails
    /// saying the replica never did `what`, with its log.
    pub fn eventually<T>(&self, what: &str, check: impl FnMut() -> Option<T>) -> T {
        eventually(
            DEADLINE,
            || {
                format!(
                    "replica {} never {what}:\n{}",
                    self.authority,
                    self.stderr()
                )
            },
            check,
        )
    }

    /// Waits until its log holds `needle`. The log is read by a thread of
    /// the test, and the server writes it from one of its own, so a line
    /// can arrive after the response that followed it: assert on a line
    /// only through this.
    pub fn wait_for_log(&self, needle: &str) {
        self.eventually(&format!("logged {needle:?}"), || {
            self.stderr().contains(needle).then_some(())
        });
    }

    /// Its MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.authority)
    }

    /// The directory of its plugins (its own; a file copied there is
    /// loaded by this replica alone).
    pub fn plugins_dir(&self) -> &Path {
        self._dirs.0.path()
    }

    /// Copies the plugin file `from` into its directory as `name`, whole
    /// at once (written beside it, then renamed).
    pub fn install(&self, from: &Path, name: &str) {
        let staged = self.plugins().join(format!("{name}.part"));
        std::fs::copy(from, &staged).unwrap();
        std::fs::rename(&staged, self.plugins().join(name)).unwrap();
    }

    /// Waits until it logs that it reloaded `plugin` (or loaded it anew),
    /// `times` times.
    pub fn reloaded(&self, plugin: &str, times: usize) {
        self.eventually(&format!("reloaded {plugin} {times} times"), || {
            let n = self
                .stderr()
                .lines()
                .filter(|l| l.contains("plugin reloaded") && l.contains(plugin))
                .count();
            (n >= times).then_some(())
        });
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends it `signal` (`TERM`, `KILL`, …).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} failed");
    }

    /// Waits for the process to end; its exit code, or `None` for a signal.
    pub fn wait(&mut self) -> Option<i32> {
        self.child.wait().unwrap().code()
    }

    /// Its log so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The names of the tools this replica lists (one stateless request).
    pub fn tool_names(&self) -> Vec<String> {
        let reply = post(
            &self.url(),
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        );
        reply["result"]["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| t["name"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The HTTP status of `GET path` (0 when it does not answer).
    pub fn status_of(&self, path: &str) -> u16 {
        try_get(&format!("http://{}{path}", self.authority)).map_or(0, |(status, _)| status)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One stateless JSON-RPC request; the response message.
pub fn post(url: &str, message: &Value) -> Value {
    Client::new(url).post(message).message()
}
