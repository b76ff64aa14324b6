//! A real redis-server for the tests: Debian's (scripts/setup-redis.sh
//! installs it and prints its path, which scripts/test.sh exports as
//! `MCP_WASM_HOST_REDIS`), started on 127.0.0.1 on a free port with no
//! persistence, and stopped when dropped.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use mcp_wasm_host_store::{Password, RedisConfig, Store};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const VAR: &str = "MCP_WASM_HOST_REDIS";

/// Whether every test must run (under CI, or `MCP_WASM_HOST_REQUIRE_ALL=1`
/// as scripts/test.sh sets it): then a missing server fails the test.
fn everything_required() -> bool {
    ["CI", "MCP_WASM_HOST_REQUIRE_ALL"].iter().any(|var| {
        std::env::var(var)
            .is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"))
    })
}

/// The redis-server binary: `MCP_WASM_HOST_REDIS`, else `redis-server` on
/// `PATH`. Missing, the test is skipped, or fails when every test must run.
pub fn binary() -> Option<PathBuf> {
    let how = format!("run with {VAR}=$(scripts/setup-redis.sh), as scripts/test.sh does");
    let found = match std::env::var(VAR).ok().filter(|v| !v.is_empty()) {
        Some(value) => {
            let path = PathBuf::from(&value);
            if path.exists() {
                Ok(path)
            } else {
                Err(format!("{VAR}={value} does not exist; {how}"))
            }
        }
        None => std::env::split_paths(&std::env::var("PATH").unwrap_or_default())
            .map(|dir| dir.join("redis-server"))
            .find(|path| path.is_file())
            .ok_or_else(|| format!("{VAR} is unset and redis-server is not on PATH; {how}")),
    };
    match found {
        Ok(path) => Some(path),
        Err(why) if everything_required() => panic!(
            "under CI (CI set, or MCP_WASM_HOST_REQUIRE_ALL=1 as scripts/test.sh sets it) \
             every test must run, but {why}"
        ),
        Err(why) => {
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// A running redis-server.
pub struct Server {
    binary: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    password: Option<String>,
    child: Option<Child>,
}

impl Server {
    /// Starts a server, or `None` when the test is skipped.
    pub async fn start() -> Option<Server> {
        Server::start_with(None).await
    }

    /// Starts a server that asks for `password`.
    pub async fn start_with(password: Option<&str>) -> Option<Server> {
        let mut server = Server {
            binary: binary()?,
            dir: tempfile::tempdir().unwrap(),
            port: free_port(),
            password: password.map(str::to_owned),
            child: None,
        };
        server.run().await;
        Some(server)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// A store on this server (with its password, if it has one).
    pub fn store(&self) -> Store {
        let mut config = RedisConfig::new("127.0.0.1", self.port);
        if let Some(password) = &self.password {
            config = config.password(Password::new(password.clone()));
        }
        Store::redis(config).unwrap()
    }

    /// Kills the server (SIGKILL: no goodbye to its clients).
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().await.unwrap();
        }
    }

    /// Sends the server a signal (`STOP` pauses it, `CONT` resumes it).
    pub fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().and_then(Child::id).unwrap();
        let status = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid.to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} {pid}: {status}");
    }

    /// Starts the server again on the same port.
    pub async fn restart(&mut self) {
        self.kill().await;
        self.run().await;
    }

    /// Runs redis-server and returns once it accepts connections.
    async fn run(&mut self) {
        let mut command = Command::new(&self.binary);
        command
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.port.to_string())
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .args(["--loglevel", "notice", "--dir"])
            .arg(self.dir.path());
        if let Some(password) = &self.password {
            command.args(["--requirepass", password]);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.binary.display()));
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut said = Vec::new();
        let ready = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.unwrap() {
                let ready = line.contains("Ready to accept connections");
                said.push(line);
                if ready {
                    return true;
                }
            }
            false
        })
        .await;
        assert!(
            matches!(ready, Ok(true)),
            "redis-server on port {} did not start:\n{}",
            self.port,
            said.join("\n")
        );
        // Keep reading its log, so that it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        self.child = Some(child);
    }
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
