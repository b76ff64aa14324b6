//! Whose fault a failed call is, as a client, the audit log and the metrics
//! see it, through the real binary: a table of every way a call fails. A
//! guest that breaks the component model's contract (a generic component
//! built here from WIT and WAT: an invalid `char`, bad UTF-8, an enum or
//! option discriminant out of range, a list past its memory, a trapping
//! `cabi_realloc` or post-return) is blamed by name in the contract's words
//! (`contract_violation`, or `trap` for a trap); a limit (fuel, memory,
//! timeout, random bytes past `memory`) names its key; a result as large as
//! a raised `max_result_size` allows comes back whole; and only a real host
//! failure is `host_error`, with no host internals in any response.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::http::get;
use crate::common::revision::R4;
use crate::host_errors::{Hostile, assert_clean, listed_name};

/// Elements of `big-list`'s result: wasmtime copies 4 million `list<u8>`
/// elements of a generic component's result as more than its default
/// 128 MiB of hostcall fuel.
const BIG: u32 = 4_000_000;

/// A generic component whose functions each break the canonical ABI one
/// way, and two that keep it (`fine`, `big-list`).
fn contract_breaker() -> Vec<u8> {
    let wit = "package test:blame;\n\
        world w {\n\
          enum colour { red, green }\n\
          export bad-char: func() -> char;\n\
          export bad-string: func() -> string;\n\
          export bad-enum: func() -> colour;\n\
          export bad-option: func() -> option<u8>;\n\
          export past-memory: func() -> list<u8>;\n\
          export realloc-traps: func(s: string) -> u32;\n\
          export post-return-traps: func() -> u32;\n\
          export big-list: func(n: u32) -> list<u8>;\n\
          export fine: func() -> u32;\n\
        }\n";
    // 64 pages: 4 MiB, room for `big-list`'s elements from offset 1024.
    let core = r#"(module
        (memory (export "memory") 64)
        ;; bad-string's return area: pointer 32, length 1, and its byte.
        (data (i32.const 16) "\20\00\00\00\01\00\00\00")
        (data (i32.const 32) "\ff")
        ;; past-memory's return area: pointer 0, length 0x7fffffff.
        (data (i32.const 48) "\00\00\00\00\ff\ff\ff\7f")
        ;; bad-option's return area: discriminant 7.
        (data (i32.const 64) "\07\00")
        (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) unreachable)
        (func (export "bad-char") (result i32) i32.const 0xD800)
        (func (export "bad-string") (result i32) i32.const 16)
        (func (export "bad-enum") (result i32) i32.const 7)
        (func (export "bad-option") (result i32) i32.const 64)
        (func (export "past-memory") (result i32) i32.const 48)
        (func (export "realloc-traps") (param i32 i32) (result i32) i32.const 0)
        (func (export "post-return-traps") (result i32) i32.const 1)
        (func (export "cabi_post_post-return-traps") (param i32) unreachable)
        (func (export "big-list") (param i32) (result i32)
            i32.const 80 i32.const 1024 i32.store
            i32.const 84 local.get 0 i32.store
            i32.const 80)
        (func (export "fine") (result i32) i32.const 42))"#;
    test_artifacts::component_of_wit(wit, "w", core)
}

/// One call of the table: the tool (`plugin.tool`), its arguments, what
/// its text says, whether it is an error, its audit outcome, and the
/// policy key of the limit that stopped it.
struct Case {
    tool: &'static str,
    arguments: Value,
    says: &'static [&'static str],
    is_error: bool,
    outcome: &'static str,
    limit: Option<&'static str>,
}

fn case(
    tool: &'static str,
    arguments: Value,
    says: &'static [&'static str],
    outcome: &'static str,
    limit: Option<&'static str>,
) -> Case {
    Case {
        tool,
        arguments,
        says,
        is_error: outcome != "ok",
        outcome,
        limit,
    }
}

#[test]
fn every_failure_is_the_guests_a_limits_or_the_hosts_and_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let breaker = dir.path().join("contract-breaker.wasm");
    std::fs::write(&breaker, contract_breaker()).unwrap();
    let breaker = breaker.to_str().unwrap();
    let setup = Hostile::new(
        &[("abi", breaker), ("roomy", breaker), ("tight", breaker)],
        "[plugins.roomy]\nmax_result_size = \"256 MiB\"\ntimeout = \"60s\"\n\n\
         [plugins.tight]\nmax_result_size = \"1 MiB\"\ntimeout = \"60s\"\n\n\
         [plugins.abi]\ntimeout = \"60s\"\n\n",
    );
    let mut s = setup.server(&["--no-watch", "--metrics-addr", "127.0.0.1:0"]);
    assert!(s.initialize(R4).get("result").is_some());
    let (listed, _) = s.list_all_tools();
    let listed: Vec<String> = listed
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    // The mount disappears once the plugin is loaded: the next call's
    // sandbox cannot be built, the host's own failure.
    std::fs::remove_dir(&setup.gone).unwrap();

    let bad = |tool, says, outcome| case(tool, json!({}), says, outcome, None);
    let table = vec![
        // The canonical ABI, broken by a generic component.
        bad(
            "abi.bad-char",
            &[
                "plugin \"abi\" gave the host an invalid char in tool \"bad-char\": a `char` is a Unicode scalar value",
            ],
            "contract_violation",
        ),
        bad(
            "abi.bad-string",
            &[
                "plugin \"abi\" gave the host a string that is not valid UTF-8 in tool \"bad-string\"",
            ],
            "contract_violation",
        ),
        bad(
            "abi.bad-enum",
            &[
                "plugin \"abi\" gave the host a variant, enum, option or result with an invalid discriminant in tool \"bad-enum\": discriminant 7 out of range [0..2)",
            ],
            "contract_violation",
        ),
        bad(
            "abi.bad-option",
            &[
                "plugin \"abi\" gave the host a variant, enum, option or result with an invalid discriminant in tool \"bad-option\": discriminant 7 out of range [0..2)",
            ],
            "contract_violation",
        ),
        bad(
            "abi.past-memory",
            &[
                "plugin \"abi\" gave the host a list whose pointer and length run past the end of its memory in tool \"past-memory\"",
            ],
            "contract_violation",
        ),
        case(
            "abi.realloc-traps",
            json!({"s": "x"}),
            &[
                "plugin \"abi\" trapped in tool \"realloc-traps\": executed an `unreachable` instruction",
            ],
            "trap",
            None,
        ),
        bad(
            "abi.post-return-traps",
            &[
                "plugin \"abi\" trapped in tool \"post-return-traps\": executed an `unreachable` instruction",
            ],
            "trap",
        ),
        bad("abi.fine", &["42"], "ok"),
        // The copy a result needs is the policy's: a raised
        // `max_result_size` lets 4 million elements through; the default
        // refuses them naming the key.
        case(
            "roomy.big-list",
            json!({"n": BIG}),
            &["{\"result\":[0,0,0"],
            "ok",
            None,
        ),
        case(
            "abi.big-list",
            json!({"n": BIG}),
            &["plugin \"abi\"", "raise `plugins.abi.max_result_size` in"],
            "result_too_large",
            Some("max_result_size"),
        ),
        // Under a small `max_result_size` wasmtime's own copy budget
        // (128 MiB, counting each element as a `Val`) stops the copy
        // first: the message names that bound and the key.
        case(
            "tight.big-list",
            json!({"n": BIG}),
            &[
                "plugin \"tight\" gave the host more than 128 MiB at once (counted as wasmtime counts a copy",
                "in tool \"big-list\", more than its `max_result_size` limit of 1 MiB allows (raise `plugins.tight.max_result_size` in",
            ],
            "result_too_large",
            Some("max_result_size"),
        ),
        // An SDK plugin: random bytes, the limits. (A small amount: the
        // plugin's timeout is 2 s, for its spin and sleep tools, and 1 MiB
        // of a debug build's random bytes took longer at a load average
        // of 30.)
        case(
            "hostile.random_bytes",
            json!({"bytes": 1 << 16}),
            &["65536"],
            "ok",
            None,
        ),
        case(
            "hostile.random_bytes",
            json!({"bytes": 4u64 << 30}),
            &[
                "plugin \"hostile\" asked for 4 GiB of random bytes in tool \"random_bytes\", more than its `memory` limit of 32 MiB allows (raise `plugins.hostile.memory` in",
            ],
            "memory_limit",
            Some("memory"),
        ),
        case(
            "hostile.panic",
            json!({"msg": "boom"}),
            &["plugin \"hostile\" panicked in tool \"panic\": deliberate panic: boom"],
            "panic",
            None,
        ),
        case(
            "fuelcap.spin",
            json!({}),
            &["plugin \"fuelcap\" ran out of fuel in tool \"spin\" (limit 100,000,000 units)"],
            "out_of_fuel",
            Some("fuel"),
        ),
        case(
            "hostile.vec_bomb",
            json!({}),
            &["plugin \"hostile\" exceeded its memory limit of 32 MiB in tool \"vec_bomb\""],
            "memory_limit",
            Some("memory"),
        ),
        case(
            "hostile.spin",
            json!({}),
            &["tool \"spin\" of plugin \"hostile\" timed out after 2 s"],
            "timeout",
            Some("timeout"),
        ),
        // The host's own failure: no internals, the details in the log.
        case(
            "mounted.ok",
            json!({}),
            &[
                "the host failed while running tool \"ok\" of plugin \"mounted\" (the server log has the details)",
            ],
            "host_error",
            None,
        ),
    ];
    let named = |qualified: &str| listed_name(&listed, qualified);
    let mut counts = std::collections::BTreeMap::<String, u32>::new();
    let mut limits = std::collections::BTreeMap::<String, u32>::new();
    for c in &table {
        let what = format!("{}({})", c.tool, c.arguments);
        let name = named(c.tool);
        let response = s.call(&name, c.arguments.clone());
        let result = &response["result"];
        assert_eq!(result["isError"], json!(c.is_error), "{what}: {response}");
        let text = crate::common::text(result);
        for says in c.says {
            assert!(text.contains(says), "{what}: {says:?} not in {text}");
        }
        if c.is_error {
            assert!(
                !text.contains("host failed") || c.outcome == "host_error",
                "{what}: {text}"
            );
            // A panic names the guest's own source location, not the host's.
            if c.outcome != "panic" {
                assert_clean(&what, &response);
            }
        }
        let receipt = &result["_meta"]["mcp-wasm-host/receipt"];
        assert_eq!(receipt["outcome"], c.outcome, "{what}: {receipt}");
        // The audit line names the tool as listed; the metrics as the
        // plugin names it.
        let (plugin, tool) = c.tool.split_once('.').unwrap();
        s.wait_for_stderr(&format!("tool=\"{name}\" outcome=\"{}\"", c.outcome));
        *counts
            .entry(format!(
                "plugin=\"{plugin}\",tool=\"{tool}\",outcome=\"{}\"",
                c.outcome
            ))
            .or_default() += 1;
        if let Some(limit) = c.limit {
            *limits
                .entry(format!(
                    "plugin=\"{plugin}\",tool=\"{tool}\",limit=\"{limit}\""
                ))
                .or_default() += 1;
        }
    }

    // The metrics say the same.
    s.wait_for_stderr("metrics served at http://");
    let stderr = s.stderr();
    let prefix = "metrics served at http://";
    let at = stderr.find(prefix).unwrap() + prefix.len() - "http://".len();
    let url = stderr[at..].split_whitespace().next().unwrap().to_string();
    let (_, scrape) = get(&url);
    for (labels, n) in &counts {
        let sample = format!("mcp_wasm_host_calls_total{{{labels}}} {n}");
        assert!(
            scrape.lines().any(|l| l == sample),
            "{sample} not in\n{scrape}"
        );
    }
    for (labels, n) in &limits {
        let sample = format!("mcp_wasm_host_limit_hits_total{{{labels}}} {n}");
        assert!(
            scrape.lines().any(|l| l == sample),
            "{sample} not in\n{scrape}"
        );
    }
    for line in scrape
        .lines()
        .filter(|l| l.contains("outcome=\"host_error\""))
    {
        assert!(
            line.contains("plugin=\"mounted\""),
            "only the host's own failure is `host_error`: {line}"
        );
    }
    // The log has what the client does not: the runtime's own words for a
    // contract violation, the host failure's path.
    s.wait_for_stderr("converted integer out of range for `char`");
    s.wait_for_stderr("gone-host-directory");
}
