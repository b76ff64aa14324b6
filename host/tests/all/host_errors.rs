//! Host errors never reach a client as host internals. The server runs with
//! `RUST_BACKTRACE=1` and `RUST_LIB_BACKTRACE=1`, under which wasmtime
//! captures a backtrace into every error it makes, and a table of calls ends
//! in host errors of every kind (an over-limit response body, a denied, a
//! refused and a timed-out request, a trap, fuel, the deadline, memory, a
//! host failure). No response carries a backtrace, a `Debug` rendering of a
//! host error or a host file path; the host's detail is in the server log.
//! The guest also gets wasi:http's `HTTP-response-body-size` code for an
//! over-limit body, and a clean debug string for the stream error.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::Server;
use crate::common::web::WebServer;

/// What a client must never read: backtraces, host source paths, and the
/// marks of a `Debug` rendering (`Some(`, `Foo { field: … }`, `a::b`, the
/// `Caused by:` list of wasmtime's `Debug`).
const FORBIDDEN: &[&str] = &[
    "stack backtrace",
    "Stack backtrace",
    ".rs:",
    "/src/",
    "/rustc/",
    ".cargo/",
    // The host directory of the mount that disappears (see below).
    "gone-host-directory",
    "Caused by",
    "Some(",
    "None",
    " { ",
    "::",
];

pub(crate) fn assert_clean(case: &str, response: &Value) {
    let shown = response.to_string();
    for bad in FORBIDDEN {
        assert!(!shown.contains(bad), "{case}: {bad:?} in {shown}");
    }
}

/// A directory whose `plugins/` holds the hostile plugin three times:
/// `hostile` (a 2 s deadline, 32 MiB), `fuelcap` (little fuel) and
/// `mounted` (a mount of `gone-host-directory`, which a test removes once
/// the plugin is loaded, so the host fails building its next sandbox),
/// and the test's other plugins, under a policy of those sections and the
/// test's own.
pub(crate) struct Hostile {
    /// The directory, removed on drop.
    _dir: tempfile::TempDir,
    /// Its `plugins/`.
    pub plugins: PathBuf,
    /// The policy file.
    config: PathBuf,
    /// The mounted host directory.
    pub gone: PathBuf,
}

impl Hostile {
    /// The directory with `others` (name, component file) beside the
    /// hostile plugins, and `policy` before their sections.
    pub(crate) fn new(others: &[(&str, &str)], policy: &str) -> Hostile {
        let dir = tempfile::tempdir().unwrap();
        let plugins = dir.path().join("plugins");
        std::fs::create_dir(&plugins).unwrap();
        let hostile = ["hostile", "fuelcap", "mounted"].map(|n| (n, test_artifacts::HOSTILE));
        for (name, component) in hostile.iter().chain(others) {
            std::fs::copy(component, plugins.join(format!("{name}.wasm"))).unwrap();
        }
        let gone = dir.path().join("gone-host-directory");
        std::fs::create_dir(&gone).unwrap();
        let config = dir.path().join("mcp-wasm-host.toml");
        std::fs::write(
            &config,
            format!(
                "[defaults]\nrate_limit = 0\n\n{policy}\
                 [plugins.hostile]\nfuel = 1_000_000_000_000\nmemory = \"32 MiB\"\ntimeout = \"2s\"\n\n\
                 [plugins.fuelcap]\nfuel = 100_000_000\ntimeout = \"60s\"\n\n\
                 [[plugins.mounted.mounts]]\nhost = \"gone-host-directory\"\nguest = \"/gone\"\n"
            ),
        )
        .unwrap();
        Hostile {
            _dir: dir,
            plugins,
            config,
            gone,
        }
    }

    /// A server on the directory, with `args`, under
    /// `RUST_BACKTRACE=1` and `RUST_LIB_BACKTRACE=1`.
    pub(crate) fn server(&self, args: &[&str]) -> Server {
        let mut all = vec!["--config", self.config.to_str().unwrap()];
        all.extend_from_slice(args);
        Server::start_with_env(
            &self.plugins,
            &all,
            &[("RUST_BACKTRACE", "1"), ("RUST_LIB_BACKTRACE", "1")],
        )
    }
}

/// The name `qualified` (`plugin.tool`) is listed by: a tool is listed as
/// `plugin.tool` only when another plugin has a tool of that name.
pub(crate) fn listed_name(listed: &[String], qualified: &str) -> String {
    let bare = qualified.split_once('.').unwrap().1;
    if listed.iter().any(|n| n == qualified) {
        qualified.to_string()
    } else {
        assert!(listed.iter().any(|n| n == bare), "{qualified}: {listed:?}");
        bare.to_string()
    }
}

#[test]
fn a_client_sees_no_host_internals_whatever_the_environment() {
    let web = WebServer::start();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_port = closed.local_addr().unwrap().port();
    drop(closed);
    let setup = Hostile::new(
        &[
            ("netprobe", test_artifacts::NETPROBE),
            ("errors", test_artifacts::ERRORS),
        ],
        &format!(
            "[plugins.netprobe]\ntimeout = \"30s\"\n\
             [plugins.netprobe.http]\nallow = [\"{}\", \"http://127.0.0.1:{closed_port}\"]\n\
             max_response_body = \"4 KiB\"\nfirst_byte_timeout = \"1s\"\n\n",
            web.origin()
        ),
    );
    let mut s = setup.server(&[]);
    assert!(s.initialize(R4).get("result").is_some());
    // The mount disappears once the plugin is loaded: the next call's
    // sandbox cannot be built, a host error naming a host path.
    let tools = s.request("tools/list", json!({}));
    assert!(tools.to_string().contains("mounted."), "{tools}");
    std::fs::remove_dir(&setup.gone).unwrap();

    let get = |url: String| json!({"method": "GET", "url": url});
    let raw = |path: &str| json!({"authority": format!("127.0.0.1:{}", web.port), "path": path});
    let table: Vec<(&str, Value, &str)> = vec![
        (
            "netprobe.request",
            get(web.url("/big?bytes=100000")),
            "HTTP-response-body-size",
        ),
        (
            "netprobe.raw",
            raw("/big?bytes=100000"),
            "HTTP-response-body-size 4096",
        ),
        (
            "netprobe.request",
            get(format!("http://127.0.0.2:{}/text", web.port)),
            "HTTP-request-denied",
        ),
        (
            "netprobe.request",
            get(format!("http://127.0.0.1:{closed_port}/")),
            "connection-refused",
        ),
        (
            "netprobe.request",
            get(web.url("/slow")),
            "HTTP-response-timeout",
        ),
        (
            "netprobe.raw",
            raw("/api/%2e%2e/admin"),
            "HTTP-request-denied",
        ),
        ("hostile.spin", json!({}), "timed out"),
        ("fuelcap.spin", json!({}), "ran out of fuel"),
        ("hostile.vec_bomb", json!({}), "memory limit"),
        (
            "hostile.deep_recursion",
            json!({"mode": "wasm", "depth": 100_000_000u64}),
            "stack overflow",
        ),
        (
            "hostile.read_file",
            json!({"path": "/etc/passwd"}),
            "hostile",
        ),
        ("hostile.deep_recursion", json!({"mode": "nope"}), "mode"),
        ("errors.unreachable", json!({}), "unreachable"),
        ("mounted.ok", json!({}), "the server log has the details"),
    ];
    // A tool is listed as `plugin.tool` only when another plugin has a tool
    // of that name.
    let mut listed: Vec<String> = Vec::new();
    let mut page = tools;
    loop {
        let result = &page["result"];
        listed.extend(
            result["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string()),
        );
        let Some(cursor) = result["nextCursor"].as_str() else {
            break;
        };
        page = s.request("tools/list", json!({"cursor": cursor}));
    }
    let named = |qualified: &str| listed_name(&listed, qualified);
    for (tool, arguments, says) in &table {
        let case = format!("{tool}({arguments})");
        let response = s.call(&named(tool), arguments.clone());
        assert!(
            response.to_string().contains(says),
            "{case}: {says:?} not in {response}"
        );
        assert_clean(&case, &response);
    }

    // The guest got the code for the over-limit body, and a debug string
    // that is the error's message only.
    let response = s.call(&named("netprobe.raw"), raw("/big?bytes=100000"));
    let seen = &response["result"]["structuredContent"];
    assert_eq!(seen["error_code"], "HTTP-response-body-size 4096", "{seen}");
    assert_eq!(seen["failed_without_code"], false, "{seen}");
    assert_eq!(
        seen["debug_string"], "HTTP response body size exceeds limit: 4096 bytes",
        "{seen}"
    );

    // The host failure's detail is in the server log, naming the mount.
    s.wait_for_stderr("gone-host-directory");
}
