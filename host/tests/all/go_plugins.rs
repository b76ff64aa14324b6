//! Go plugins built from source with the Go SDK (`sdk-go`) and served by the
//! real binary: `scripts/build-go-plugin.sh` generates the Go bindings,
//! builds `plugins/go/*` with mainline Go for `wasip1` and componentizes
//! them with wit-component and the reactor adapter (cached by a hash of
//! their inputs); then each test calls the `regex` example over stdio: its
//! listed schemas (derived from Go types), good calls, arguments the schema
//! refuses, arguments the plugin refuses, a tool error, a pattern that
//! would hang a backtracking engine, a log line, and what it serves beside
//! its tools (a resource, a prompt and a completion). The SDK's own unit
//! tests (`go test` in `sdk-go`: schema derivation, results, errors,
//! panics, resources, prompts, completions) run natively here too. The
//! `instances` test plugin shows that the build pre-initializes SDK plugins
//! (Wizer) and that each fresh instance still gets its own random seeds.
//!
//! The build needs Go 1.24 or later: `MCP_WASM_HOST_GO` names it
//! (`MCP_WASM_HOST_GO=$(scripts/setup-go.sh)`, as `scripts/test.sh` sets
//! it). Without it, every test here says so and passes without running.
#![allow(clippy::unwrap_used)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::Server;
use serde_json::json;

/// The Go toolchain: `MCP_WASM_HOST_GO` (a distribution's `go` may be too
/// old to target WASI, so PATH is not searched), or `None` after saying how
/// to get it.
fn go() -> Option<OsString> {
    crate::common::toolchain(&crate::common::GO).map(PathBuf::into_os_string)
}

/// The directory cargo builds into, where Go's caches live too.
fn target_dir() -> PathBuf {
    crate::common::target_dir()
}

/// The directory of built components, or `None` (after saying why) when
/// no Go is configured. Built once per test binary.
pub(crate) fn built() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let go = go()?;
            let out = target_dir().join("go-plugins");
            crate::common::run_build_script(
                "build-go-plugin.sh",
                &out,
                &[("MCP_WASM_HOST_GO", &go)],
            );
            Some(out)
        })
        .as_deref()
}

/// A server with the Go plugin `name` alone; the directory lives as long as
/// the server.
fn serve(name: &str) -> Option<(Server, tempfile::TempDir)> {
    Some(crate::common::serve_alone(
        &built()?.join(format!("{name}.wasm")),
        "",
    ))
}

#[test]
fn the_regex_plugin_lists_three_tools_whose_schemas_come_from_the_go_types() {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    let (tools, _) = s.list_all_tools();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["regex_find", "regex_replace", "regex_split"]);
    let find = tools.iter().find(|t| t["name"] == "regex_find").unwrap();
    assert_eq!(find["title"], "Find regex matches");
    assert!(
        find["description"]
            .as_str()
            .unwrap()
            .contains("linear in the text"),
        "{find}"
    );
    assert_eq!(find["annotations"]["readOnlyHint"], true);
    assert_eq!(find["annotations"]["idempotentHint"], true);
    assert_eq!(find["annotations"]["openWorldHint"], false);
    assert!(
        find["annotations"].get("destructiveHint").is_none(),
        "an unset hint is left out: {find}"
    );
    assert_eq!(
        find["icons"],
        json!([{"src": "https://mcp-wasm-host.example/icons/regex.png", "mimeType": "image/png",
                "sizes": ["48x48"], "theme": "dark"}])
    );

    let input = &find["inputSchema"];
    assert_eq!(input["required"], json!(["pattern", "text"]));
    assert_eq!(input["additionalProperties"], false);
    let props = &input["properties"];
    assert_eq!(
        props["limit"],
        json!({"type": "integer", "minimum": 1, "maximum": 10000, "default": 100,
               "description": "The most matches to return."})
    );
    assert_eq!(props["pattern"]["minLength"], 1);
    assert_eq!(
        props["ignore_case"]["type"], "boolean",
        "the embedded Options struct's fields are promoted: {input}"
    );

    let output = &find["outputSchema"];
    assert_eq!(output["required"], json!(["matches", "count", "truncated"]));
    // A slice can be nil, so its schema is `anyOf` an array and null (never
    // a `type` array, which the Inspector's --strict check warns about).
    let matches = &output["properties"]["matches"]["anyOf"];
    assert_eq!(matches[1], json!({"type": "null"}), "{output}");
    let groups = &matches[0]["items"]["properties"]["groups"]["anyOf"];
    assert_eq!(groups[1], json!({"type": "null"}), "{output}");
    let group = &groups[0]["items"];
    assert_eq!(group["required"], json!(["index", "text", "start", "end"]));
    assert_eq!(group["properties"]["name"]["type"], "string");
}

#[test]
fn a_good_find_returns_each_match_with_its_groups_character_offsets_and_line() {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    let found = s.call_structured(
        "regex_find",
        json!({"pattern": r"(?P<year>\d{4})-(\d{2})", "text": "née 2024-05,\nvu 2025-12"}),
    );
    assert_eq!(
        found,
        json!({"count": 2, "truncated": false, "matches": [
            {"text": "2024-05", "start": 4, "end": 11, "line": 1, "groups": [
                {"index": 1, "name": "year", "text": "2024", "start": 4, "end": 8},
                {"index": 2, "text": "05", "start": 9, "end": 11}]},
            {"text": "2025-12", "start": 16, "end": 23, "line": 2, "groups": [
                {"index": 1, "name": "year", "text": "2025", "start": 16, "end": 20},
                {"index": 2, "text": "12", "start": 21, "end": 23}]}]}),
        "offsets count characters (é is one), not bytes"
    );
    let limited = s.call_structured(
        "regex_find",
        json!({"pattern": "A", "text": "a a a", "ignore_case": true, "limit": 2}),
    );
    assert_eq!(limited["count"], 2);
    assert_eq!(limited["truncated"], true);
}

#[test]
fn replace_expands_named_groups_and_split_cuts_around_matches() {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    assert_eq!(
        s.call_structured(
            "regex_replace",
            json!({"pattern": r"(?P<d>\d+)/(?P<m>\d+)", "text": "on 5/11 and 7/12",
                   "replacement": "${m}-${d}"})
        ),
        json!({"text": "on 11-5 and 12-7", "replacements": 2})
    );
    assert_eq!(
        s.call_structured(
            "regex_replace",
            json!({"pattern": "a", "text": "aaa", "replacement": "$1", "literal": true, "limit": 2})
        ),
        json!({"text": "$1$1a", "replacements": 2})
    );
    assert_eq!(
        s.call_structured(
            "regex_split",
            json!({"pattern": r"\s*[,;]\s*", "text": "a , b;c ;  d", "limit": 3})
        ),
        json!({"parts": ["a", "b", "c ;  d"], "count": 3})
    );
}

#[test]
fn arguments_that_break_the_schema_are_refused_before_the_plugin_runs() {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    let missing = s.call_err("regex_find", json!({"text": "x"}));
    assert!(missing.contains("pattern"), "{missing}");
    let empty = s.call_err("regex_find", json!({"pattern": "", "text": "x"}));
    assert!(empty.contains("/pattern"), "{empty}");
    let zero = s.call_err(
        "regex_find",
        json!({"pattern": "x", "text": "x", "limit": 0}),
    );
    assert!(zero.contains("/limit"), "{zero}");
    let wrong_type = s.call_err("regex_split", json!({"pattern": "x", "text": 7}));
    assert!(wrong_type.contains("/text"), "{wrong_type}");
    let extra = s.call_err(
        "regex_replace",
        json!({"pattern": "x", "text": "x", "replacement": "y", "global": true}),
    );
    assert!(extra.contains("global"), "{extra}");
    assert!(
        !s.stderr().contains("match(es)"),
        "the plugin never ran:\n{}",
        s.stderr()
    );
}

#[test]
fn a_pattern_that_does_not_compile_or_a_replacement_naming_no_group_is_refused_as_invalid_arguments()
 {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    let pattern = s.call_err("regex_find", json!({"pattern": "(a", "text": "a"}));
    assert!(
        pattern.contains(
            "rejected its arguments: pattern: error parsing regexp: missing closing ): `(a`"
        ),
        "{pattern}"
    );
    let lookahead = s.call_err("regex_find", json!({"pattern": "a(?=b)", "text": "ab"}));
    assert!(
        lookahead.contains("invalid or unsupported Perl syntax"),
        "{lookahead}"
    );
    let group = s.call_err(
        "regex_replace",
        json!({"pattern": r"(\w+)@(\w+)", "text": "a@b", "replacement": "$2 at $1x"}),
    );
    assert!(
        group.contains(
            r#"rejected its arguments: replacement: ${1x} names no group of the pattern (its groups: 0, 1, 2); to follow group 1 by "x" write ${1}x"#
        ),
        "{group}"
    );
}

#[test]
fn a_result_over_the_plugins_bound_is_a_tool_error_and_the_next_call_still_answers() {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    let msg = s.call_err(
        "regex_replace",
        json!({"pattern": "a", "text": "a".repeat(2000), "replacement": "x".repeat(1000)}),
    );
    assert!(
        msg.contains("failed: the new text would be longer than 1048576 bytes"),
        "{msg}"
    );
    let found = s.call_structured("regex_find", json!({"pattern": "b", "text": "abc"}));
    assert_eq!(found["count"], 1);
}

#[test]
fn a_pattern_that_hangs_a_backtracking_engine_answers_because_re2_is_linear() {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    // (a+)+$ against a's followed by a non-match takes exponential time
    // in a backtracking engine; RE2 answers, well inside the call's
    // deadline and fuel.
    let text = format!("{}!", "a".repeat(50_000));
    let found = s.call_structured("regex_find", json!({"pattern": "(a+)+$", "text": text}));
    assert_eq!(found["count"], 0);
}

#[test]
fn a_call_logs_through_the_host_to_the_client() {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    s.call_structured("regex_find", json!({"pattern": "o", "text": "foo"}));
    let log = s
        .notifications
        .iter()
        .find(|n| n["method"] == "notifications/message")
        .unwrap_or_else(|| panic!("no log message in {:?}", s.notifications));
    assert_eq!(log["params"]["logger"], "regex/regex_find");
    assert_eq!(log["params"]["level"], "info");
    assert_eq!(log["params"]["data"], "2 match(es) in 3 characters");
}

#[test]
fn the_sdk_unit_tests_pass_natively() {
    let Some(go) = go() else { return };
    let caches = target_dir().join("go-cache");
    let run = Command::new(go)
        .args(["test", "-count=1", "./..."])
        .current_dir(crate::common::workspace_root().join("sdk-go"))
        .env("GOCACHE", caches.join("build"))
        .env("GOMODCACHE", caches.join("mod"))
        .env("GOWORK", "off")
        .env("GOFLAGS", "")
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOTELEMETRY", "off")
        .env("GOENV", "off")
        .env("CGO_ENABLED", "0")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "go test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("ok  \tgithub.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"),
        "{stdout}"
    );
}

#[test]
fn the_regex_plugin_lets_regex_find_alone_run_as_a_task() {
    let Some(dir) = built() else { return };
    let report = crate::common::inspect_json(&dir.join("regex.wasm"));
    // Tools that never run as tasks are left out.
    assert_eq!(
        report["task_support"],
        json!({"regex_find": "optional"}),
        "{report:#}"
    );
}

#[test]
fn the_regex_plugin_serves_its_syntax_resource_and_fills_in_the_explain_prompt() {
    let Some((mut s, _dir)) = serve("regex") else {
        return;
    };
    let listed = s.request("resources/list", json!({}));
    assert_eq!(
        listed["result"]["resources"],
        json!([{"uri": "regex://syntax", "name": "syntax", "title": "RE2 syntax",
                "description": "The regular expression syntax regex_find, regex_replace and regex_split accept.",
                "mimeType": "text/markdown"}]),
        "{listed}"
    );
    let read = s.request("resources/read", json!({"uri": "regex://syntax"}));
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["uri"], "regex://syntax", "{read}");
    assert_eq!(contents["mimeType"], "text/markdown");
    assert!(
        contents["text"]
            .as_str()
            .unwrap()
            .contains("Not supported: backreferences"),
        "{read}"
    );
    let missing = s.request("resources/read", json!({"uri": "regex://nothing"}));
    assert_eq!(missing["error"]["code"], -32002, "{missing}");

    let got = s.request(
        "prompts/get",
        json!({"name": "explain_pattern", "arguments": {"pattern": "(?P<year>\\d{4})-(\\d\\d)"}}),
    );
    let messages = got["result"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{got}");
    assert_eq!(messages[0]["content"]["resource"]["uri"], "regex://syntax");
    let ask = messages[1]["content"]["text"].as_str().unwrap();
    assert!(ask.starts_with("Explain, for a beginner,"), "{ask}");
    assert!(ask.contains("It has 2 capturing group(s)."), "{ask}");
    assert!(ask.ends_with("\n\n(?P<year>\\d{4})-(\\d\\d)"), "{ask}");
    let broken = s.request(
        "prompts/get",
        json!({"name": "explain_pattern", "arguments": {"pattern": "a(", "audience": "expert"}}),
    );
    let ask = broken["result"]["messages"][1]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(ask.contains("It does not compile in RE2: "), "{ask}");
    let refused = s.request(
        "prompts/get",
        json!({"name": "explain_pattern", "arguments": {"pattern": "a", "audience": "child"}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    let completed = s.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "explain_pattern"},
               "argument": {"name": "audience", "value": "e"}}),
    );
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["expert"]),
        "{completed}"
    );
}

#[test]
fn a_pre_initialized_plugin_runs_init_once_at_build_yet_seeds_each_instance_afresh() {
    let Some((mut s, _dir)) = serve("instances") else {
        return;
    };
    // Two calls, each on a fresh instance (the default policy).
    let first = s.call_structured("instance_state", json!({}));
    let second = s.call_structured("instance_state", json!({}));
    // Package init ran before the snapshot, not in each instance: both see
    // the time it ran at build.
    assert_eq!(
        first["initialized"], second["initialized"],
        "{first} {second}"
    );
    // math/rand's default generator was seeded again in each instance: the
    // snapshot's state would give both the same first number.
    assert_ne!(first["random"], second["random"], "{first} {second}");
}
