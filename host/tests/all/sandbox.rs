//! The sandbox under attack: the `hostile` test plugin against the real
//! binary with a policy file. Each attack gets its own specific `isError`
//! message, and well-behaved calls and `ping` keep being answered while it
//! runs. The same component is copied under several names so each copy gets
//! its own policy section.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::collections::HashMap;

use crate::common::{Server, text};
use serde_json::{Value, json};

struct Sandbox {
    dir: tempfile::TempDir,
    server: Server,
}

const POLICY: &str = r#"
[defaults]
rate_limit = 0

[plugins.hostile]
fuel = 1_000_000_000_000
memory = "32 MiB"
timeout = "2s"
max_argument_size = "64 KiB"
max_result_size = "256 KiB"
env = { GRANTED = "yes" }
[[plugins.hostile.mounts]]
host = "ro"
guest = "/ro"
[[plugins.hostile.mounts]]
host = "rw"
guest = "/rw"
write = true

[plugins.fuelcap]
fuel = 100_000_000
timeout = "60s"

[plugins.single]
max_concurrent_calls = 1
timeout = "30s"

[plugins.limited]
rate_limit = 2
"#;

/// Which compiler's code the plugins run: Cranelift's (from the compile
/// cache or compiled before serving), or Winch's (compiled quickly first,
/// its Cranelift compile held for the whole test).
#[derive(Clone, Copy)]
enum Compiler {
    Cranelift,
    Winch,
}

fn sandbox_on(compiler: Compiler) -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    for name in ["hostile", "fuelcap", "single", "limited"] {
        std::fs::copy(
            test_artifacts::HOSTILE,
            plugins.join(format!("{name}.wasm")),
        )
        .unwrap();
    }
    std::fs::copy(test_artifacts::MANY, plugins.join("many.wasm")).unwrap();
    for d in ["ro", "rw", "outside"] {
        std::fs::create_dir(dir.path().join(d)).unwrap();
    }
    std::fs::write(dir.path().join("ro/hello.txt"), "hello from ro").unwrap();
    std::fs::write(dir.path().join("outside/secret.txt"), "TOP SECRET").unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("outside/secret.txt"),
        dir.path().join("ro/escape"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../outside", dir.path().join("rw/out")).unwrap();
    let config = dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, POLICY).unwrap();
    let config = config.to_str().unwrap();
    let server = match compiler {
        Compiler::Cranelift => Server::initialized(&plugins, &["--config", config], R4),
        Compiler::Winch => {
            let (cache, hold) = (dir.path().join("cache"), dir.path().join("hold"));
            let env = [
                ("MCP_WASM_HOST_QUICK_COMPILE", "always"),
                ("MCP_WASM_HOST_TEST_HOLD_OPTIMIZE", hold.to_str().unwrap()),
            ];
            let args = ["--config", config, "--cache-dir", cache.to_str().unwrap()];
            let mut server = Server::start_with_env(&plugins, &args, &env);
            assert!(server.initialize(R4).get("result").is_some());
            server.wait_for_stderr("compiled quickly (Winch)");
            server.wait_for_stderr("holding the optimizing compile");
            server
        }
    };
    Sandbox { dir, server }
}

/// Sends `attack` and, while it runs, a `ping` and a well-behaved call.
/// Returns the attack's error text and the order the responses came in.
fn attack_alongside(s: &mut Server, tool: &str, args: Value) -> (String, Vec<&'static str>) {
    let bad = s.send_request("tools/call", json!({"name": tool, "arguments": args}));
    let ping = s.send_request("ping", json!({}));
    let good = s.send_request("tools/call", json!({"name": "tool_00", "arguments": {}}));
    let mut order = Vec::new();
    let mut got: HashMap<i64, Value> = HashMap::new();
    while got.len() < 3 {
        let msg = s.recv();
        let Some(id) = msg["id"].as_i64() else {
            continue;
        };
        order.push(if id == bad {
            "attack"
        } else if id == ping {
            "ping"
        } else {
            "good"
        });
        got.insert(id, msg);
    }
    assert_eq!(got[&ping]["result"], json!({}));
    assert_eq!(text(&got[&good]["result"]), "tool_00", "{}", got[&good]);
    let result = &got[&bad]["result"];
    assert_eq!(result["isError"], true, "{tool} must fail: {}", got[&bad]);
    (text(result), order)
}

/// For attacks that run until a limit stops them: the other two answers
/// come first.
fn assert_answered_while_running(order: &[&str]) {
    assert_eq!(
        order.last(),
        Some(&"attack"),
        "ping and the good call must be answered while the attack runs: {order:?}"
    );
}

fn cpu_and_time_attacks_are_cut_off_at_their_limits_on(compiler: Compiler) {
    let Sandbox {
        mut server,
        dir: _dir,
    } = sandbox_on(compiler);
    let s = &mut server;
    let (msg, order) = attack_alongside(s, "hostile.spin", json!({}));
    assert_eq!(
        msg, "tool \"spin\" of plugin \"hostile\" timed out after 2 s",
        "{msg}"
    );
    assert_answered_while_running(&order);

    let (msg, order) = attack_alongside(s, "hostile.sleep_forever", json!({}));
    assert_eq!(
        msg, "tool \"sleep_forever\" of plugin \"hostile\" timed out after 2 s",
        "{msg}"
    );
    assert_answered_while_running(&order);

    let (msg, _) = attack_alongside(s, "fuelcap.spin", json!({}));
    assert_eq!(
        msg, "plugin \"fuelcap\" ran out of fuel in tool \"spin\" (limit 100,000,000 units)",
        "{msg}"
    );

    let stderr = s.stderr();
    assert!(
        stderr.contains("timed out after 2 s") && stderr.contains("plugin=\"hostile\""),
        "the hit is logged:\n{stderr}"
    );
}

fn memory_and_stack_attacks_get_their_own_messages_on(compiler: Compiler) {
    let Sandbox {
        mut server,
        dir: _dir,
    } = sandbox_on(compiler);
    let s = &mut server;
    let (msg, _) = attack_alongside(s, "hostile.vec_bomb", json!({}));
    assert!(
        msg.starts_with(
            "plugin \"hostile\" exceeded its memory limit of 32 MiB in tool \"vec_bomb\""
        ),
        "{msg}"
    );
    // Under the limit, allocation works.
    assert_eq!(text(&s.call_ok("hostile.vec_bomb", json!({"mib": 4}))), "4");

    // Raw memory.grow is refused (returns -1) at the limit.
    let out = text(&s.call_ok("hostile.grow_bomb", json!({"pages_per_step": 16})));
    assert!(out.contains("returned -1"), "{out}");
    let pages: u64 = out
        .split("memory grew from ")
        .nth(1)
        .unwrap()
        .split(" to ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        pages * 65536 <= 32 << 20,
        "memory grew past the limit: {out}"
    );

    let (msg, _) = attack_alongside(
        s,
        "hostile.deep_recursion",
        json!({"mode": "shadow", "depth": 1_000_000}),
    );
    assert!(
        msg.contains("trapped in tool \"deep_recursion\": out-of-bounds memory access"),
        "{msg}"
    );
    let (msg, _) = attack_alongside(
        s,
        "hostile.deep_recursion",
        json!({"mode": "wasm", "depth": 1_000_000_000u64}),
    );
    assert_eq!(
        msg,
        "plugin \"hostile\" trapped in tool \"deep_recursion\": stack overflow"
    );
    let (msg, _) = attack_alongside(s, "hostile.panic", json!({"msg": "boom"}));
    assert!(
        msg.starts_with(
            "plugin \"hostile\" panicked in tool \"panic\": deliberate panic: boom at "
        ),
        "{msg}"
    );
}

fn nothing_outside_a_mount_can_be_read_or_written_on(compiler: Compiler) {
    let sb = sandbox_on(compiler);
    let mut server = sb.server;
    let s = &mut server;
    assert_eq!(
        text(&s.call_ok("hostile.read_file", json!({"path": "/ro/hello.txt"}))),
        "hello from ro"
    );
    for path in [
        "/ro/../outside/secret.txt",
        "/ro/../../outside/secret.txt",
        "/rw/../outside/secret.txt",
        "/ro/escape",
        "/rw/out/secret.txt",
        sb.dir.path().join("outside/secret.txt").to_str().unwrap(),
        "/etc/passwd",
        "../outside/secret.txt",
    ] {
        let msg = s.call_err("hostile.read_file", json!({"path": path}));
        assert!(!msg.contains("TOP SECRET"), "{path}: {msg}");
        assert!(
            msg.contains(path),
            "the message names the path {path}: {msg}"
        );
    }
    // A denied access says which key would grant it.
    let msg = s.call_err("hostile.read_file", json!({"path": "/etc/passwd"}));
    assert!(
        msg.contains("was denied access")
            && msg.contains("[[plugins.hostile.mounts]]")
            && msg.contains("mcp-wasm-host.toml"),
        "{msg}"
    );

    // Read-only mounts refuse writes; read-write mounts take them.
    let msg = s.call_err(
        "hostile.write_file",
        json!({"path": "/ro/new.txt", "content": "x"}),
    );
    assert!(msg.contains("/ro/new.txt"), "{msg}");
    assert!(!sb.dir.path().join("ro/new.txt").exists());
    s.call_ok(
        "hostile.write_file",
        json!({"path": "/rw/new.txt", "content": "written"}),
    );
    assert_eq!(
        std::fs::read_to_string(sb.dir.path().join("rw/new.txt")).unwrap(),
        "written"
    );
    for path in [
        "/rw/../outside/planted.txt",
        "/rw/out/planted.txt",
        "/outside/planted.txt",
    ] {
        s.call_err("hostile.write_file", json!({"path": path, "content": "x"}));
    }
    assert!(
        !sb.dir.path().join("outside/planted.txt").exists(),
        "a write escaped the mount"
    );
    assert_eq!(
        std::fs::read_dir(sb.dir.path().join("outside"))
            .unwrap()
            .count(),
        1
    );
    // A plugin without mounts sees no files at all.
    let msg = s.call_err("single.list_dir", json!({"path": "/"}));
    assert!(msg.contains("grants no directories"), "{msg}");
}

fn environment_and_network_are_denied_unless_granted_on(compiler: Compiler) {
    let Sandbox {
        mut server,
        dir: _dir,
    } = sandbox_on(compiler);
    let s = &mut server;
    assert_eq!(
        text(&s.call_ok("hostile.env", json!({"name": "GRANTED"}))),
        "yes"
    );
    assert_eq!(text(&s.call_ok("hostile.env_all", json!({}))), "GRANTED");
    let msg = s.call_err("hostile.env", json!({"name": "PATH"}));
    assert!(
        msg.contains("PATH") && msg.contains("env_passthrough"),
        "{msg}"
    );
    assert_eq!(
        text(&s.call_ok("single.env_all", json!({}))),
        "",
        "no variables unless granted"
    );

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let msg = s.call_err("hostile.connect", json!({"addr": addr}));
    assert!(msg.contains(&format!("cannot connect to {addr}")), "{msg}");
    assert!(listener.accept().is_err(), "the guest reached the listener");
    let msg = s.call_err("hostile.resolve", json!({"host": "localhost"}));
    assert!(msg.contains("cannot resolve localhost"), "{msg}");
}

fn size_concurrency_and_rate_limits_hold_on(compiler: Compiler) {
    let Sandbox { mut server, dir } = sandbox_on(compiler);
    let s = &mut server;
    let (msg, _) = attack_alongside(s, "hostile.big_result", json!({"bytes": 300_000}));
    // 300,000 bytes of text, its quotes and the block's framing (80 bytes).
    assert_eq!(
        msg,
        format!(
            "tool \"big_result\" of plugin \"hostile\" returned 300082 bytes, over its result limit of 256 KiB (raise `plugins.hostile.max_result_size` in {})",
            dir.path().join("mcp-wasm-host.toml").display()
        )
    );
    assert_eq!(
        text(&s.call_ok("hostile.big_result", json!({"bytes": 1000}))).len(),
        1000
    );

    let big = "y".repeat(100 * 1024);
    let (msg, _) = attack_alongside(s, "hostile.echo_size", json!({"data": big}));
    assert!(
        msg.starts_with("the arguments to tool \"echo_size\" of plugin \"hostile\" are ")
            && msg.contains(
                "over its limit of 64 KiB (raise `plugins.hostile.max_argument_size` in "
            ),
        "{msg}"
    );

    // A schema whose check multiplies with the arguments' depth: refused
    // before jsonschema runs, blaming the schema; shallow arguments pass.
    let deep = (0..40).fold(json!({}), |inner, _| json!({ "a": inner }));
    let (msg, _) = attack_alongside(s, "hostile.schema_bomb", deep);
    assert!(
        msg.contains("not checked: checking this value against the input schema")
            && msg.contains("the plugin's schema needs fixing"),
        "{msg}"
    );
    let shallow = json!({"a": {"a": {"a": {}}}});
    assert_eq!(text(&s.call_ok("hostile.schema_bomb", shallow)), "checked");

    // One slot: a call waits for the one holding it. Requests run as
    // separate tasks, so wait until the first one holds the slot (the
    // runtime logs it) before sending the second.
    let first = s.send_request(
        "tools/call",
        json!({"name": "single.slow_ok", "arguments": {"millis": 2000}}),
    );
    s.wait_for_stderr("running: got a slot tool=\"single.slow_ok\"");
    let second = s.send_request("tools/call", json!({"name": "single.ok", "arguments": {}}));
    let other = s.send_request("tools/call", json!({"name": "hostile.ok", "arguments": {}}));
    let mut order = Vec::new();
    while order.len() < 3 {
        let msg = s.recv();
        if let Some(id) = msg["id"].as_i64() {
            assert_eq!(text(&msg["result"]), "ok", "{msg}");
            order.push(id);
        }
    }
    // Responses to concurrent requests may be written in any order (a
    // response waits for its call's notifications to be written), so the
    // slot's order is read from the log: the queued call got the slot only
    // after the first call's audit line, which is written while it still
    // holds the slot.
    assert_eq!(order[0], other, "other plugins do not wait: {order:?}");
    let log = s.stderr();
    let line_of = |needle: &str| {
        log.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in the log:\n{log}"))
    };
    let first_done = log
        .lines()
        .position(|l| l.contains("tool=\"single.slow_ok\"") && l.contains("outcome=\"ok\""))
        .unwrap_or_else(|| panic!("no audit line of single.slow_ok in the log:\n{log}"));
    assert!(
        first_done < line_of("running: got a slot tool=\"single.ok\""),
        "the queued call runs after the one holding the slot (responses {order:?}, first {first}, second {second})"
    );

    // Two calls a minute, then a clear refusal.
    s.call_ok("limited.ok", json!({}));
    s.call_ok("limited.ok", json!({}));
    let msg = s.call_err("limited.ok", json!({}));
    assert!(
        msg.starts_with(
            "tool \"ok\" of plugin \"limited\" is limited to 2 calls per minute; retry in "
        ),
        "{msg}"
    );
}

fn every_call_leaves_one_audit_line_without_arguments_on(compiler: Compiler) {
    let Sandbox {
        mut server,
        dir: _dir,
    } = sandbox_on(compiler);
    let s = &mut server;
    s.call_ok("hostile.echo_size", json!({"data": "secret-argument"}));
    s.call_err("hostile.panic", json!({"msg": "x"}));
    // The server writes each audit line before its response, but the test
    // reads stderr and stdout on separate threads: wait for the line.
    s.wait_for_stderr("tool=\"hostile.panic\" outcome=\"panic\"");
    let stderr = s.stderr();
    let audit: Vec<&str> = stderr.lines().filter(|l| l.contains(" audit: ")).collect();
    assert!(
        audit
            .iter()
            .any(|l| l.contains("tool=\"hostile.echo_size\"")
                && l.contains("outcome=\"ok\"")
                && l.contains("fuel_used=")
                && l.contains("peak_memory=")),
        "{audit:?}"
    );
    assert!(
        audit
            .iter()
            .any(|l| l.contains("tool=\"hostile.panic\"") && l.contains("outcome=\"panic\"")),
        "{audit:?}"
    );
    assert!(
        !stderr.contains("secret-argument"),
        "arguments stay out of the log by default"
    );
}

#[test]
fn policy_file_errors_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[defaults]\nfule = 1\n").unwrap();
    let out = std::process::Command::new(crate::common::binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .args(["serve", "--plugins"])
        .arg(dir.path())
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.toml") && stderr.contains("line 2") && stderr.contains("fule"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing but protocol on stdout");
}

#[test]
fn a_missing_mount_keeps_only_that_plugin_from_loading() {
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::HOSTILE, test_artifacts::PANIC],
        "[[plugins.hostile.mounts]]\nhost = \"missing\"\nguest = \"/data\"\n",
    );
    let mut s = Server::initialized(&plugins, &["--config", &config], R4);
    let (tools, _) = s.list_all_tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ok", "panic"]);
    // The skipped file is logged once the load is done; wait for the line.
    s.wait_for_stderr("hostile.wasm: its policy cannot be applied");
    s.wait_for_stderr("plugins.hostile.mounts[0].host");
}

/// Each attack above against Cranelift's code (`sandbox::NAME`) and against
/// Winch's (`sandbox::winch::NAME`): the quick first compile of a large
/// plugin is held to every limit the optimized code is.
macro_rules! on_both_compilers {
    ($($test:ident => $body:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                $body(Compiler::Cranelift)
            }
        )*
        mod winch {
            $(
                #[test]
                fn $test() {
                    super::$body(super::Compiler::Winch)
                }
            )*
        }
    };
}

on_both_compilers! {
    cpu_and_time_attacks_are_cut_off_at_their_limits => cpu_and_time_attacks_are_cut_off_at_their_limits_on,
    memory_and_stack_attacks_get_their_own_messages => memory_and_stack_attacks_get_their_own_messages_on,
    nothing_outside_a_mount_can_be_read_or_written => nothing_outside_a_mount_can_be_read_or_written_on,
    environment_and_network_are_denied_unless_granted => environment_and_network_are_denied_unless_granted_on,
    size_concurrency_and_rate_limits_hold => size_concurrency_and_rate_limits_hold_on,
    every_call_leaves_one_audit_line_without_arguments => every_call_leaves_one_audit_line_without_arguments_on,
}
