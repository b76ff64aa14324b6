//! `mcp-wasm-host inspect` against the real binary: the human report and the
//! JSON object on test plugins under a policy file that grants a mount and
//! environment variables, the tools exactly as `tools/list` serves them, the
//! policy file lookup, and files that do not load (exit code 1, the error,
//! and whatever could still be read).
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::Server;
use serde_json::{Value, json};

/// A pass-through variable whose value must never be printed.
const SECRET: &str = "hunter2-do-not-print";

const POLICY: &str = r#"
[defaults]
fuel = 500_000_000

[plugins.hostile]
timeout = "3s"
memory = "32 MiB"
rate_limit = 0
audit_arguments = true
reuse_instances = 50
env = { GREETING = "hello" }
env_passthrough = ["INSPECT_TEST_TOKEN"]
[[plugins.hostile.mounts]]
host = "data"
guest = "/data"

[plugins.errors]
max_concurrent_calls = 3
[[plugins.errors.mounts]]
host = "data"
guest = "/scratch"
write = true
[plugins.errors.client]
sampling = true
"#;

/// A directory with `mcp-wasm-host.toml` (the policy above) and the `data`
/// directory it mounts.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::write(dir.path().join("mcp-wasm-host.toml"), POLICY).unwrap();
        Setup { dir }
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("mcp-wasm-host.toml")
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data").canonicalize().unwrap()
    }
}

/// Runs `mcp-wasm-host inspect ARGS…` in `cwd`.
fn inspect(cwd: &Path, args: &[&str]) -> Output {
    run_in(cwd, "inspect", args)
}

/// Runs `mcp-wasm-host COMMAND ARGS…` in `cwd`, with the secret
/// `INSPECT_TEST_TOKEN` in its environment.
fn run_in(cwd: &Path, command: &str, args: &[&str]) -> Output {
    Command::new(crate::common::binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .arg(command)
        .args(args)
        .current_dir(cwd)
        .env_remove("MCP_WASM_HOST_CONFIG")
        .env_remove("RUST_LOG")
        .env("INSPECT_TEST_TOKEN", SECRET)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// Runs `inspect --json` and parses its stdout, which must be one object.
fn inspect_json(cwd: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let mut args = args.to_vec();
    args.push("--json");
    let out = inspect(cwd, &args);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| {
        panic!(
            "--json printed something that is not JSON ({e}):\n{}\nstderr:\n{}",
            stdout(&out),
            stderr(&out)
        )
    });
    (out.status.code(), report)
}

const KEYS: [&str; 21] = [
    "errors",
    "exports",
    "file",
    "generic",
    "host_wit_version",
    "imports",
    "left_out",
    "plugin",
    "policy",
    "profiles",
    "prompts",
    "resource_templates",
    "resources",
    "sha256",
    "source",
    "supported",
    "task_support",
    "tools",
    "views",
    "wit_version",
    "world",
];

fn keys(report: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn the_human_report_shows_world_tools_imports_and_policy() {
    let setup = Setup::new();
    let config = setup.config();
    let out = inspect(
        setup.dir.path(),
        &[
            test_artifacts::HOSTILE,
            "--config",
            config.to_str().unwrap(),
        ],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));

    let line = |label: &str| {
        text.lines()
            .find(|l| {
                l.trim_start()
                    .strip_prefix(label)
                    .is_some_and(|rest| rest.starts_with(' '))
            })
            .unwrap_or_else(|| panic!("no {label:?} line in:\n{text}"))
            .to_string()
    };
    assert!(line("plugin").ends_with("hostile"), "{text}");
    assert!(
        line("world").contains("mcp-wasm-host:plugin/plugin@0.2.1")
            && line("world").contains("supported"),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("error")), "{text}");
    // Every tool, with its schema, and the naming note.
    for tool in [
        "spin",
        "read_file",
        "write_file",
        "connect",
        "resolve",
        "ok",
    ] {
        assert!(
            text.lines().any(|l| l == format!("  {tool}")),
            "{tool} is missing:\n{text}"
        );
    }
    assert!(line("tools").contains("19"), "{text}");
    assert!(text.contains("`hostile.<name>`"), "{text}");
    assert!(text.contains("\"addr\": {"), "{text}");
    // Imports, grouped and flagged.
    assert!(line("sockets").contains("wasi:sockets@0.2.12"), "{text}");
    assert!(line("sockets").contains("tcp"), "{text}");
    assert!(line("filesystem").contains("preopens"), "{text}");
    assert!(
        text.contains("! requests network access — granted only for TCP connects listed in `sockets.connect` (this policy lists none)"),
        "{text}"
    );
    assert!(
        text.contains(
            "! requests filesystem access — granted only through mounts (this policy mounts /data)"
        ),
        "{text}"
    );
    assert!(
        line("environment").contains("wasi:cli@0.2.12  environment"),
        "{text}"
    );
    // The policy: the file, the limits, the mount, the environment by name.
    assert!(line("policy").contains(config.to_str().unwrap()), "{text}");
    assert!(line("policy").contains("[plugins.hostile]"), "{text}");
    assert!(line("fuel").contains("500,000,000"), "{text}");
    assert!(line("memory").contains("32 MiB"), "{text}");
    assert!(line("timeout").contains("3 s"), "{text}");
    assert!(line("rate limit").ends_with("off"), "{text}");
    assert!(line("per-client rate").ends_with("off"), "{text}");
    assert!(line("audit arguments").ends_with("yes"), "{text}");
    assert!(
        line("instance reuse").contains("up to 50 calls per instance"),
        "{text}"
    );
    assert_eq!(
        line("mounts"),
        format!(
            "  mounts           /data -> {} (read-only)",
            setup.data().display()
        )
    );
    assert!(line("env").contains("GREETING = \"hello\""), "{text}");
    assert!(
        text.contains("INSPECT_TEST_TOKEN (passed through"),
        "{text}"
    );
    assert!(
        !text.contains(SECRET),
        "a pass-through value was printed:\n{text}"
    );
    // `sockets` labels an import group too; the policy's row is the last.
    let last_sockets = text
        .lines()
        .rfind(|l| l.trim_start().starts_with("sockets "));
    assert!(last_sockets.is_some_and(|l| l.ends_with("none")), "{text}");
    assert!(line("client").ends_with("none"), "{text}");
}

#[test]
fn the_json_report_has_stable_keys_and_the_served_tools() {
    let setup = Setup::new();
    let config = setup.config();
    let (code, report) = inspect_json(
        setup.dir.path(),
        &[test_artifacts::ERRORS, "--config", config.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(keys(&report), KEYS);
    assert_eq!(report["file"], test_artifacts::ERRORS);
    assert_eq!(report["plugin"], "errors");
    assert_eq!(report["world"], "mcp-wasm-host:plugin/plugin@0.2.1");
    assert_eq!(report["wit_version"], "0.2.1");
    assert_eq!(report["host_wit_version"], "0.2.1");
    assert_eq!(report["supported"], true);
    assert_eq!(report["errors"], json!([]));
    assert_eq!(
        report["exports"],
        json!([
            "mcp-wasm-host:plugin/completions@0.2.1",
            "mcp-wasm-host:plugin/prompts@0.2.1",
            "mcp-wasm-host:plugin/resources@0.2.1",
            "mcp-wasm-host:plugin/tools@0.2.1"
        ])
    );

    // The tools are exactly what `tools/list` serves for this plugin alone.
    let plugins = crate::common::plugin_dir(&[test_artifacts::ERRORS]);
    let mut server = Server::initialized(plugins.path(), &[], R4);
    let (served, _) = server.list_all_tools();
    assert_eq!(report["tools"], Value::Array(served), "{report:#}");
    let structured = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "structured")
        .unwrap();
    assert_eq!(structured["outputSchema"]["type"], "object");
    assert_eq!(structured["annotations"]["readOnlyHint"], true);

    let policy = &report["policy"];
    assert_eq!(policy["config"], config.to_str().unwrap());
    assert_eq!(policy["section"], "plugins.errors");
    assert_eq!(policy["limits"]["fuel"], 500_000_000);
    assert_eq!(policy["limits"]["max_concurrent_calls"], 3);
    assert_eq!(policy["limits"]["timeout_ms"], 10_000);
    assert_eq!(policy["limits"]["memory_bytes"], 128 << 20);
    assert_eq!(
        policy["limits"]["rate_limit_per_minute"], 0,
        "off by default"
    );
    assert_eq!(policy["limits"]["client_rate_limit_per_minute"], 0);
    assert_eq!(policy["limits"]["audit_arguments"], false);
    assert_eq!(policy["limits"]["reuse_instances"], 0);
    assert_eq!(
        policy["mounts"],
        json!([{"guest": "/scratch", "host": setup.data().to_str().unwrap(), "write": true}])
    );
    assert_eq!(policy["env"], json!({"vars": {}, "passthrough": []}));
    assert_eq!(policy["sockets"], "none");
    assert!(policy.get("network").is_none(), "one name: {policy:#}");
    assert_eq!(
        policy["client"],
        json!({"sampling": true, "elicitation": false, "roots": false})
    );
}

#[test]
fn the_json_report_groups_imports_and_hides_passed_through_values() {
    let setup = Setup::new();
    let config = setup.config();
    let (code, report) = inspect_json(
        setup.dir.path(),
        &[
            test_artifacts::HOSTILE,
            "--config",
            config.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(keys(&report), KEYS);
    let imports = &report["imports"];
    let group = |name: &str| -> Vec<&str> {
        imports[name]
            .as_array()
            .unwrap_or_else(|| panic!("no {name} imports in {imports:#}"))
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect()
    };
    assert!(
        group("sockets").contains(&"wasi:sockets/tcp@0.2.12"),
        "{imports:#}"
    );
    assert!(
        group("filesystem").contains(&"wasi:filesystem/preopens@0.2.12"),
        "{imports:#}"
    );
    assert_eq!(group("environment"), ["wasi:cli/environment@0.2.12"]);
    assert!(
        group("host")
            .iter()
            .all(|i| i.starts_with("mcp-wasm-host:plugin/"))
    );
    assert_eq!(report["tools"].as_array().unwrap().len(), 19);

    let policy = &report["policy"];
    assert_eq!(policy["limits"]["timeout_ms"], 3000);
    assert_eq!(policy["limits"]["memory_bytes"], 32 << 20);
    assert_eq!(policy["limits"]["rate_limit_per_minute"], 0);
    assert_eq!(policy["limits"]["audit_arguments"], true);
    assert_eq!(policy["limits"]["reuse_instances"], 50);
    assert_eq!(
        policy["mounts"],
        json!([{"guest": "/data", "host": setup.data().to_str().unwrap(), "write": false}])
    );
    assert_eq!(
        policy["env"],
        json!({"vars": {"GREETING": "hello"}, "passthrough": ["INSPECT_TEST_TOKEN"]})
    );
    assert!(!report.to_string().contains(SECRET), "{report:#}");
}

#[test]
fn the_policy_file_is_found_like_serve_finds_it() {
    // Without `--config`: `./mcp-wasm-host.toml` in the working directory.
    let setup = Setup::new();
    let (code, report) = inspect_json(setup.dir.path(), &[test_artifacts::HOSTILE]);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["policy"]["config"], "mcp-wasm-host.toml");
    assert_eq!(report["policy"]["mounts"][0]["guest"], "/data");

    // Nothing there: the built-in defaults, no capabilities.
    let empty = tempfile::tempdir().unwrap();
    let out = inspect(empty.path(), &[test_artifacts::HOSTILE]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains("built-in defaults"), "{text}");
    assert!(text.contains("(this policy mounts nothing)"), "{text}");
    let (_, report) = inspect_json(empty.path(), &[test_artifacts::HOSTILE]);
    assert_eq!(report["policy"]["config"], Value::Null);
    assert_eq!(report["policy"]["limits"]["fuel"], 1_000_000_000);
    assert_eq!(report["policy"]["mounts"], json!([]));

    // A policy file that does not load is the error, and the rest is read.
    let bad = empty.path().join("bad.toml");
    std::fs::write(&bad, "[defaults]\nfule = 1\n").unwrap();
    let (code, report) = inspect_json(
        empty.path(),
        &[test_artifacts::HOSTILE, "--config", bad.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["policy"], Value::Null);
    let error = report["errors"][0].as_str().unwrap();
    assert!(
        error.contains("bad.toml") && error.contains("fule"),
        "{error}"
    );
    assert_eq!(report["supported"], true);
    assert!(report["imports"]["sockets"].is_array(), "{report:#}");
}

#[test]
fn a_plugin_that_does_not_load_exits_1_with_the_error() {
    let empty = tempfile::tempdir().unwrap();
    // An invalid tool: the component is read, the tools are not offered.
    let out = inspect(empty.path(), &[test_artifacts::BADNAME]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}\n{}", stderr(&out));
    let error = text
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or_else(|| panic!("no error line:\n{text}"));
    assert!(
        error.contains("badname.wasm") && error.contains("\"has space!\""),
        "{error}"
    );
    assert!(text.contains("mcp-wasm-host:plugin/plugin@0.2.1"), "{text}");
    assert!(
        text.contains("tools      none (the plugin does not load)"),
        "{text}"
    );
    assert!(text.contains("policy     built-in defaults"), "{text}");

    let (code, report) = inspect_json(empty.path(), &[test_artifacts::BADNAME]);
    assert_eq!(code, Some(1));
    assert_eq!(keys(&report), KEYS);
    assert_eq!(report["tools"], json!([]));
    assert_eq!(report["world"], "mcp-wasm-host:plugin/plugin@0.2.1");
    assert!(report["policy"].is_object(), "{report:#}");
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{report:#}");
    assert!(
        errors[0].as_str().unwrap().contains("has space!"),
        "{report:#}"
    );

    // Not a component at all: a core module, garbage, a corrupt component.
    let cases: [(&str, &[u8], &str); 3] = [
        (
            "core.wasm",
            b"\0asm\x01\x00\x00\x00",
            "core WebAssembly module",
        ),
        ("text.wasm", b"hello", "not a WebAssembly file"),
        (
            "broken.wasm",
            b"\0asm\x0d\x00\x01\x00\x99\x99",
            "invalid or corrupt",
        ),
    ];
    for (name, bytes, problem) in cases {
        let path = empty.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (code, report) = inspect_json(empty.path(), &[path.to_str().unwrap()]);
        assert_eq!(code, Some(1), "{name}: {report:#}");
        assert_eq!(keys(&report), KEYS);
        assert!(
            report["errors"][0].as_str().unwrap().contains(problem),
            "{name}: {report:#}"
        );
        assert_eq!(report["world"], Value::Null);
        assert_eq!(report["supported"], false);
        assert_eq!(report["imports"], json!({}));
        let out = inspect(empty.path(), &[path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        assert!(stdout(&out).contains(problem), "{}", stdout(&out));
    }

    // A component that exports none of our interfaces is read as a generic
    // component (docs/generic-components.md); with no function to serve,
    // it says so.
    let path = empty.path().join("empty.wasm");
    std::fs::write(&path, b"\0asm\x0d\x00\x01\x00").unwrap();
    let out = inspect(empty.path(), &[path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("world      none: served as a generic component"),
        "{text}"
    );
    assert!(
        text.contains("exports none of our interfaces and no function to serve as a tool"),
        "{text}"
    );
}

/// A secret's value, read from a private file, that no report may print.
const FILE_SECRET: &str = "file-held-token-never-printed";

#[test]
fn network_grants_and_secrets_are_reported_without_any_value() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, format!("{FILE_SECRET}\n")).unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(
        dir.path().join("mcp-wasm-host.toml"),
        r#"
[plugins.netprobe.http]
allow = ["https://api.example.com", "http://127.0.0.1:8080/api"]
methods = ["GET"]
max_requests = 4
[plugins.netprobe.secrets.TOKEN]
file = "token"
origin = "https://api.example.com"
header = "Authorization"
value = "Bearer {secret}"
[plugins.netprobe.secrets.PASS]
env = "INSPECT_TEST_TOKEN"
expose = true
[plugins.netprobe.sockets]
connect = ["127.0.0.1:6379"]
"#,
    )
    .unwrap();
    let out = inspect(dir.path(), &[test_artifacts::NETPROBE]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    for expected in [
        "makes outbound HTTP requests — granted only to https://api.example.com, http://127.0.0.1:8080/api",
        "requests network access — granted only for TCP connects to 127.0.0.1:6379",
        "http             https://api.example.com",
        "methods: GET",
        "4 requests per call",
        "TOKEN (from the file ",
        "injected as authorization into https://api.example.com",
        "PASS (from the environment variable INSPECT_TEST_TOKEN): exposed to the guest",
        "sockets          TCP connect to 127.0.0.1:6379",
        "redacted from everything the plugin sends the client",
        "(`block_secrets = true` refuses them)",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    let (code, report) = inspect_json(dir.path(), &[test_artifacts::NETPROBE]);
    assert_eq!(code, Some(0));
    let policy = &report["policy"];
    assert_eq!(
        policy["http"]["allow"],
        json!(["https://api.example.com", "http://127.0.0.1:8080/api"])
    );
    assert_eq!(
        policy["secrets"]["TOKEN"]["inject"]["header"],
        "authorization"
    );
    assert_eq!(policy["secrets"]["PASS"]["expose"], true);
    assert_eq!(policy["sockets"]["connect"], json!(["127.0.0.1:6379"]));
    for printed in [text, report.to_string(), stderr(&out)] {
        assert!(
            !printed.contains(FILE_SECRET) && !printed.contains(SECRET),
            "a secret value was printed:\n{printed}"
        );
    }
}

#[test]
fn a_plugin_importing_wasi_http_without_a_grant_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let out = inspect(dir.path(), &[test_artifacts::NETPROBE]);
    let text = stdout(&out);
    assert!(
        text.contains("! makes outbound HTTP requests — but this policy grants no origin"),
        "{text}"
    );
    assert!(text.contains("http             none"), "{text}");
}

#[test]
fn keyvalue_and_config_imports_show_their_grants_and_never_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(test_artifacts::KVNOTES, dir.path().join("kvnotes.wasm")).unwrap();
    let (code, report) = inspect_json(dir.path(), &["kvnotes.wasm"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        report["imports"]["keyvalue"],
        json!([
            "wasi:keyvalue/atomics@0.2.0-draft2",
            "wasi:keyvalue/batch@0.2.0-draft2",
            "wasi:keyvalue/store@0.2.0-draft2"
        ])
    );
    assert_eq!(report["policy"]["keyvalue"]["buckets"], json!([]));
    let text = stdout(&inspect(dir.path(), &["kvnotes.wasm"]));
    assert!(
        text.contains("every `open` is access-denied"),
        "without a grant, inspect says what open does:\n{text}"
    );

    std::fs::write(
        dir.path().join("mcp-wasm-host.toml"),
        r#"
[plugins.kvnotes.keyvalue]
buckets = ["default", "notes"]
scope = "session"
max_batch = 10
[plugins.kvnotes.config]
greeting = "hello"
token = { secret = "PASS" }
[plugins.kvnotes.secrets.PASS]
env = "INSPECT_TEST_TOKEN"
expose = true
"#,
    )
    .unwrap();
    let (code, report) = inspect_json(dir.path(), &["kvnotes.wasm"]);
    assert_eq!(code, Some(0));
    let keyvalue = &report["policy"]["keyvalue"];
    assert_eq!(keyvalue["buckets"], json!(["default", "notes"]));
    assert_eq!(keyvalue["scope"], "session");
    assert_eq!(keyvalue["max_batch"], 10);
    let out = inspect(dir.path(), &["kvnotes.wasm"]);
    let text = stdout(&out);
    for expected in [
        "\"default\", \"notes\"",
        "scope session",
        "greeting",
        "secret PASS",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    for printed in [text, report.to_string(), stderr(&out)] {
        assert!(
            !printed.contains(SECRET),
            "a secret value was printed:\n{printed}"
        );
    }
}

#[test]
fn check_flags_a_granted_bucket_the_component_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    for file in [test_artifacts::CFGLABELS, test_artifacts::KVNOTES] {
        let name = Path::new(file).file_name().unwrap();
        std::fs::copy(file, dir.path().join(name)).unwrap();
    }
    // cfglabels imports no wasi:keyvalue: its grant can never be used.
    std::fs::write(
        dir.path().join("mcp-wasm-host.toml"),
        "[plugins.cfglabels.keyvalue]\nbuckets = [\"x\"]\n[plugins.kvnotes.keyvalue]\nbuckets = [\"default\"]\n",
    )
    .unwrap();
    let out = run_in(dir.path(), "check", &["."]);
    let printed = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        printed.contains("plugins.cfglabels.keyvalue"),
        "check names the unusable grant:\n{printed}"
    );
    assert!(
        !printed.contains("plugins.kvnotes.keyvalue"),
        "a grant the component uses is not flagged:\n{printed}"
    );
}
