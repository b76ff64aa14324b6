//! nginx (the Debian package, `MCP_WASM_HOST_NGINX`) in front of replicas
//! on 127.0.0.1: round robin with no affinity, its own configuration and
//! temporary directories, an access log of which replica answered what.
//! Shared with the benchmarks (`host/benches/common/cluster.rs` includes
//! this file), which also measure it with connections kept alive to the
//! replicas.
#![allow(dead_code, clippy::unwrap_used)]

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use super::{DEADLINE, Toolchain, eventually};

/// nginx, the load balancer in front of the replicas.
pub const NGINX: Toolchain = Toolchain {
    var: "MCP_WASM_HOST_NGINX",
    setup: "setup-nginx.sh",
    on_path: None,
};

/// A port free on 127.0.0.1 a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something accepts connections on `port`.
pub fn wait_for_port(port: u16, what: &str) {
    eventually(
        DEADLINE,
        || format!("{what} never listened on {port}"),
        || TcpStream::connect(("127.0.0.1", port)).ok(),
    );
}

/// nginx in front of the replicas: round robin, and a request whose
/// connection fails before it is sent goes to the next replica.
pub struct Nginx {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
}

impl Nginx {
    /// Starts nginx (`binary`) in front of `upstreams` (`HOST:PORT` each)
    /// and returns once it accepts connections. Each request opens a new
    /// connection to its replica.
    pub fn start(binary: &Path, upstreams: &[String]) -> Nginx {
        Nginx::start_with(binary, upstreams, false)
    }

    /// [`Nginx::start`]; with `keepalive`, nginx keeps up to 32 idle
    /// connections to the replicas and reuses them.
    pub fn start_with(binary: &Path, upstreams: &[String], keepalive: bool) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let d = dir.path().display();
        let servers: String = upstreams
            .iter()
            .map(|u| format!("        server {u} max_fails=1 fail_timeout=60s;\n"))
            .collect();
        let conf = format!(
            "# Written by host/tests/all/common/cluster/nginx.rs.
{user}worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log info;
events {{ worker_connections 1024; }}
http {{
    log_format replicas '$status|$upstream_addr|$upstream_status';
    access_log {d}/access.log replicas;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    upstream replicas {{
{servers}{keep_upstream}    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://replicas;
            # The client's Host (127.0.0.1:PORT), which the replicas'
            # DNS-rebinding check accepts, not the upstream's name.
            proxy_set_header Host $host;
            proxy_http_version 1.1;
            proxy_buffering off;
            proxy_read_timeout 120s;
            # The default, spelled out: a request is tried on the next
            # replica when the connection fails or times out, except a POST
            # that was already sent (it may have run).
            proxy_next_upstream error timeout;
{keep_location}        }}
    }}
}}
",
            // As root, nginx's workers would run as `nobody`, who cannot
            // reach the temporary directory.
            user = if is_root() { "user root;\n" } else { "" },
            keep_upstream = if keepalive {
                "        keepalive 32;\n"
            } else {
                ""
            },
            keep_location = if keepalive {
                "            proxy_set_header Connection \"\";\n"
            } else {
                ""
            },
        );
        let path = dir.path().join("nginx.conf");
        std::fs::write(&path, conf).unwrap();
        let child = Command::new(binary)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        wait_for_port(port, "nginx");
        Nginx { child, dir, port }
    }

    /// The process id of its master process (its worker is a child).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The MCP endpoint through nginx.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// nginx's access log: one `STATUS|UPSTREAMS|UPSTREAM_STATUSES` line
    /// per request.
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default()
    }

    /// How many requests each replica (`HOST:PORT`) answered, as the
    /// access log says (a request tried on several counts for the last).
    pub fn answered_by(&self) -> std::collections::BTreeMap<String, u64> {
        let mut per = std::collections::BTreeMap::new();
        for line in self.access_log().lines() {
            let upstreams = line.split('|').nth(1).unwrap_or_default();
            let last = upstreams.rsplit(", ").next().unwrap_or_default();
            *per.entry(last.to_string()).or_default() += 1;
        }
        per
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}
