//! A real redis-server for the tests of the Redis store: Debian's
//! (`scripts/setup-redis.sh` installs it and prints its path, which
//! `scripts/test.sh` exports as `MCP_WASM_HOST_REDIS`), on 127.0.0.1 on a
//! free port with no persistence, killed when dropped. A test stops,
//! pauses and restarts it on the same port.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;

use super::{DEADLINE, Toolchain, toolchain};

/// Debian's redis-server, else the system's on `PATH`.
pub const REDIS: Toolchain = Toolchain {
    var: "MCP_WASM_HOST_REDIS",
    setup: "setup-redis.sh",
    on_path: Some("redis-server"),
};

/// A running (or stopped) redis-server.
pub struct Redis {
    binary: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
}

impl Redis {
    /// Starts a server, or `None` when the test is skipped (never under CI:
    /// see [`toolchain`]).
    pub fn start() -> Option<Redis> {
        let mut redis = Redis {
            binary: toolchain(&REDIS)?,
            dir: tempfile::tempdir().unwrap(),
            port: free_port(),
            child: None,
        };
        redis.run();
        Some(redis)
    }

    /// The URL of `[server] store = { redis = URL }`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Its port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server (SIGKILL: no goodbye to its clients) and waits for
    /// it to be gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// Sends the server a signal (`STOP` pauses it, `CONT` resumes it).
    pub fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().unwrap().id();
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid.to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} {pid}: {status}");
    }

    /// Starts the server again on the same port (empty: it keeps nothing).
    pub fn restart(&mut self) {
        self.kill();
        self.run();
    }

    /// Runs redis-server and returns once it accepts connections.
    fn run(&mut self) {
        let mut child = Command::new(&self.binary)
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.port.to_string())
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .args(["--loglevel", "notice", "--dir"])
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.binary.display()));
        let stdout = child.stdout.take().unwrap();
        let (ready, said) = channel();
        // Reads its log to the end, so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = ready.send(line);
            }
        });
        let mut log = Vec::new();
        loop {
            match said.recv_timeout(DEADLINE) {
                Ok(line) if line.contains("Ready to accept connections") => break,
                Ok(line) => log.push(line),
                Err(e) => panic!(
                    "redis-server on port {} did not start ({e:?}):\n{}",
                    self.port,
                    log.join("\n")
                ),
            }
        }
        self.child = Some(child);
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
