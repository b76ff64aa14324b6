//! A real redis-server for the tests of the Redis store: Debian's
//! (`scripts/setup-redis.sh` installs it and prints its path, which
//! `scripts/test.sh` exports as `MCP_WASM_HOST_REDIS`), on 127.0.0.1 on a
//! free port with no persistence, killed when dropped. A test stops,
//! pauses and restarts it on the same port. [`Redis::start_tls`] serves
//! TLS only (`rediss://`), with certificates of a private CA made for the
//! test, and asks clients for theirs. Shared with the benchmarks
//! (`host/benches/common/cluster.rs` includes this file).
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
    tls: bool,
    child: Option<Child>,
}

/// The files of a TLS server's private CA in its directory: the CA's
/// certificate, and a client certificate and key it issued.
pub const CA_FILE: &str = "ca.pem";
pub const CLIENT_CERT_FILE: &str = "client.pem";
pub const CLIENT_KEY_FILE: &str = "client-key.pem";

impl Redis {
    /// Starts a server, or `None` when the test is skipped (never under CI:
    /// see [`toolchain`]).
    pub fn start() -> Option<Redis> {
        Redis::start_with(false)
    }

    /// Starts a server that speaks only TLS, with a certificate for
    /// 127.0.0.1 from a private CA, and that refuses a client without a
    /// certificate from that CA. The CA's certificate and the client's are
    /// in [`Redis::dir`] ([`CA_FILE`], [`CLIENT_CERT_FILE`],
    /// [`CLIENT_KEY_FILE`]).
    pub fn start_tls() -> Option<Redis> {
        Redis::start_with(true)
    }

    fn start_with(tls: bool) -> Option<Redis> {
        let mut redis = Redis {
            binary: toolchain(&REDIS)?,
            dir: tempfile::tempdir().unwrap(),
            port: free_port(),
            tls,
            child: None,
        };
        if tls {
            private_ca(redis.dir.path());
        }
        redis.run();
        Some(redis)
    }

    /// The URL of `[server] store = { redis = URL }`.
    pub fn url(&self) -> String {
        let scheme = if self.tls { "rediss" } else { "redis" };
        format!("{scheme}://127.0.0.1:{}/0", self.port)
    }

    /// The server's directory (its certificates when it is TLS).
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// Its process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
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
        let mut command = Command::new(&self.binary);
        command.args(["--bind", "127.0.0.1"]);
        if self.tls {
            command
                .args(["--port", "0", "--tls-port"])
                .arg(self.port.to_string())
                .args([
                    "--tls-cert-file",
                    "server.pem",
                    "--tls-key-file",
                    "server-key.pem",
                ])
                .args(["--tls-ca-cert-file", CA_FILE, "--tls-auth-clients", "yes"])
                .current_dir(self.dir.path());
        } else {
            command.arg("--port").arg(self.port.to_string());
        }
        let mut child = command
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

/// Writes a private CA's certificate into `dir`, and the certificates and
/// keys it issued to the server (for 127.0.0.1) and to a client.
fn private_ca(dir: &std::path::Path) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    // Each certificate has a name of its own: OpenSSL (the server's side)
    // takes a certificate whose subject is its issuer's for that issuer.
    params
        .distinguished_name
        .push(DnType::CommonName, "mcp-wasm-host test CA");
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    std::fs::write(dir.join(CA_FILE), ca.pem()).unwrap();
    for (names, cert, key_file) in [
        (
            vec!["127.0.0.1".to_string()],
            "server.pem",
            "server-key.pem",
        ),
        (
            vec!["client".to_string()],
            CLIENT_CERT_FILE,
            CLIENT_KEY_FILE,
        ),
    ] {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(names.clone()).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, names[0].as_str());
        let issued = params.signed_by(&key, &ca).unwrap();
        std::fs::write(dir.join(cert), issued.pem()).unwrap();
        std::fs::write(dir.join(key_file), key.serialize_pem()).unwrap();
    }
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
