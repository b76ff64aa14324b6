//! C plugins built from source with the C SDK (`sdk-c`) and served by the
//! real binary: `scripts/build-c-plugin.sh` generates the bindings, compiles
//! `plugins/c/*` with clang-19 and wasi-libc, and componentizes them with
//! wit-component and the reactor adapter (cached by a hash of their
//! inputs); then each test calls the `calc` example over stdio: its listed
//! schemas, good calls, arguments the schema refuses, expressions the
//! plugin refuses, tool errors, bounded nesting, a log line, and what it
//! serves beside its tool (a resource, a prompt and a completion); and the
//! `jsonread` test plugin, whose tool reads JSON text with the SDK's reader
//! (cJSON), refusing malformed and too deeply nested text. The
//! SDK's own unit tests (`sdk-c/tests/sdk_test.c`: the JSON reader, results,
//! UTF-8 repair, URI templates, the store API over its in-memory store) are
//! compiled natively with the same clang and run here too. The store API
//! through the host: `keyvalue_sdk/c.rs`.
//!
//! The build needs clang-19: `MCP_WASM_HOST_C` names it
//! (`MCP_WASM_HOST_C=$(scripts/setup-c.sh)`, as `scripts/test.sh` sets it),
//! else `clang-19` on PATH. With neither, every test here says so and passes
//! without running.
#![allow(clippy::unwrap_used)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::{Server, text};
use serde_json::{Value, json};

/// The C compiler: `MCP_WASM_HOST_C`, else `clang-19` found on PATH, or
/// `None` after saying how to get it.
fn compiler() -> Option<OsString> {
    crate::common::toolchain(&crate::common::C).map(PathBuf::into_os_string)
}

/// The directory of built components, or `None` (after saying why) when
/// no compiler is configured. Built once per test binary.
pub(crate) fn built() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let clang = compiler()?;
            let out = crate::common::target_dir().join("c-plugins");
            crate::common::run_build_script(
                "build-c-plugin.sh",
                &out,
                &[("MCP_WASM_HOST_C", &clang)],
            );
            Some(out)
        })
        .as_deref()
}

/// A server with the C plugin `name` alone; the directory lives as long as
/// the server.
fn serve(name: &str) -> Option<(Server, tempfile::TempDir)> {
    Some(crate::common::serve_alone(
        &built()?.join(format!("{name}.wasm")),
        "",
    ))
}

/// The structured content of a successful `evaluate` call.
fn evaluate(s: &mut Server, arguments: Value) -> Value {
    let result = s.call_ok("evaluate", arguments);
    let structured = result["structuredContent"].clone();
    let as_text: Value = serde_json::from_str(&text(&result)).unwrap();
    assert_eq!(as_text, structured, "the same JSON travels as text");
    structured
}

#[test]
fn the_calc_plugin_lists_evaluate_with_the_schemas_and_hints_its_table_declares() {
    let Some((mut s, _dir)) = serve("calc") else {
        return;
    };
    let (tools, _) = s.list_all_tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    let tool = &tools[0];
    assert_eq!(tool["name"], "evaluate");
    assert_eq!(tool["title"], "Calculator");
    assert!(
        tool["description"]
            .as_str()
            .unwrap()
            .contains("Operators: + - * / % ^"),
        "{tool}"
    );
    let input = &tool["inputSchema"];
    assert_eq!(input["required"], json!(["expression"]));
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(input["properties"]["precision"]["type"], "integer");
    assert_eq!(input["properties"]["precision"]["maximum"], 15);
    assert_eq!(
        tool["outputSchema"]["required"],
        json!(["value", "text"]),
        "{tool}"
    );
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert_eq!(tool["annotations"]["idempotentHint"], true);
    assert_eq!(tool["annotations"]["openWorldHint"], false);
    assert!(
        tool["annotations"].get("destructiveHint").is_none(),
        "an unset hint is left out: {tool}"
    );
    let icon = &tool["icons"][0];
    assert!(
        icon["src"]
            .as_str()
            .unwrap()
            .starts_with("data:image/svg+xml;base64,PHN2Zy"),
        "{tool}"
    );
    assert_eq!(icon["mimeType"], "image/svg+xml");
    assert_eq!(icon["sizes"], json!(["any"]));
}

#[test]
fn a_good_call_returns_the_value_as_structured_content_and_text() {
    let Some((mut s, _dir)) = serve("calc") else {
        return;
    };
    assert_eq!(
        evaluate(
            &mut s,
            json!({"expression": "(2^10 - 24) / sqrt(16) * max(1, 2, 3)"})
        ),
        json!({"value": 750, "text": "750"})
    );
    assert_eq!(
        evaluate(&mut s, json!({"expression": "-2^2 + 2^3^2 + 7 % 3"})),
        json!({"value": 509, "text": "509"}),
        "unary minus binds looser than ^, which is right-associative"
    );
    assert_eq!(
        evaluate(&mut s, json!({"expression": "1/3", "precision": 4})),
        json!({"value": 0.3333, "text": "0.3333"})
    );
    assert_eq!(
        evaluate(&mut s, json!({"expression": "0.1 + 0.2"})),
        json!({"value": 0.30000000000000004, "text": "0.3"}),
        "the value reads back exactly; the text is rounded to 15 digits"
    );
    let pi = evaluate(&mut s, json!({"expression": "pi", "precision": 2}));
    assert_eq!(pi["text"], "3.14");
    let negative_zero = evaluate(&mut s, json!({"expression": "-0.001", "precision": 2}));
    assert_eq!(negative_zero, json!({"value": 0, "text": "0.00"}));
}

#[test]
fn arguments_that_break_the_schema_are_refused_before_the_plugin_runs() {
    let Some((mut s, _dir)) = serve("calc") else {
        return;
    };
    let missing = s.call_err("evaluate", json!({"precision": 2}));
    assert!(missing.contains("expression"), "{missing}");
    let too_precise = s.call_err("evaluate", json!({"expression": "1", "precision": 99}));
    assert!(too_precise.contains("/precision"), "{too_precise}");
    let wrong_type = s.call_err("evaluate", json!({"expression": 12}));
    assert!(wrong_type.contains("/expression"), "{wrong_type}");
    let extra = s.call_err("evaluate", json!({"expression": "1", "unit": "m"}));
    assert!(extra.contains("unit"), "{extra}");
    assert!(
        !s.stderr().contains("evaluated"),
        "the plugin never ran:\n{}",
        s.stderr()
    );
}

#[test]
fn a_malformed_expression_is_refused_as_invalid_arguments_naming_the_column() {
    let Some((mut s, _dir)) = serve("calc") else {
        return;
    };
    let cases = [
        ("2 * (3 + ", "column 10: expected a number, a name or '('"),
        (
            "1 2",
            "column 3: unexpected '2' after a complete expression",
        ),
        ("foo(2)", "column 1: unknown function 'foo' (known: sqrt"),
        ("2 * x", "column 5: unknown name 'x'"),
        ("max()", "column 1: max takes at least 1 argument(s), got 0"),
        // Columns count characters, and the message quotes whole ones.
        (
            "3 × 4",
            "column 3: unexpected '×' after a complete expression",
        ),
    ];
    for (expression, want) in cases {
        let msg = s.call_err("evaluate", json!({"expression": expression}));
        assert!(
            msg.contains("rejected its arguments"),
            "{expression}: {msg}"
        );
        assert!(msg.contains(want), "{expression}: {msg}");
    }
}

#[test]
fn division_by_zero_is_a_tool_error_and_the_next_call_still_answers() {
    let Some((mut s, _dir)) = serve("calc") else {
        return;
    };
    let msg = s.call_err("evaluate", json!({"expression": "1 / (2 - 2)"}));
    assert!(msg.contains("failed: column 3: division by zero"), "{msg}");
    for (expression, want) in [
        ("5 % 0", "modulo by zero"),
        ("sqrt(-4)", "sqrt of a negative number (-4)"),
        ("ln(0)", "ln of a number that is not positive"),
        ("10^400", "the power has no finite result"),
    ] {
        let msg = s.call_err("evaluate", json!({"expression": expression}));
        assert!(msg.contains("failed"), "{expression}: {msg}");
        assert!(msg.contains(want), "{expression}: {msg}");
    }
    assert_eq!(
        evaluate(&mut s, json!({"expression": "6 * 7"}))["value"],
        42
    );
}

#[test]
fn nesting_beyond_the_bound_is_refused_with_a_message_not_a_crash() {
    let Some((mut s, _dir)) = serve("calc") else {
        return;
    };
    let within = format!("{}1{}", "(".repeat(90), ")".repeat(90));
    assert_eq!(evaluate(&mut s, json!({"expression": within}))["value"], 1);
    for deep in [
        format!("{}1{}", "(".repeat(900), ")".repeat(900)),
        format!("{}1", "-".repeat(1999)),
        format!("2{}", "^2".repeat(999)),
        format!("{}1{}", "abs(".repeat(300), ")".repeat(300)),
    ] {
        let msg = s.call_err("evaluate", json!({"expression": deep}));
        assert!(msg.contains("nested more than 100 levels deep"), "{msg}");
    }
    let long = s.call_err("evaluate", json!({"expression": "1+".repeat(1001)}));
    assert!(
        long.contains("maxLength") || long.contains("longer"),
        "{long}"
    );
}

#[test]
fn json_the_sdk_cannot_read_is_refused_with_the_reason_and_the_next_call_still_answers() {
    let Some((mut s, _dir)) = serve("jsonread") else {
        return;
    };
    let read = |s: &mut Server, arguments: Value| -> Value {
        serde_json::from_str(&text(&s.call_ok("read_json", arguments))).unwrap()
    };
    let deepest = format!("{}{}", "[".repeat(128), "]".repeat(128));
    assert_eq!(read(&mut s, json!({"text": deepest}))["depth"], 128);
    let too_deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
    let objects_too_deep = format!("{}1{}", r#"{"a": "#.repeat(129), "}".repeat(129));
    for (text, want) in [
        (too_deep.as_str(), "nesting too deep at byte 128"),
        (objects_too_deep.as_str(), "nesting too deep at byte 768"),
        (r#"{"a": 1,}"#, "not valid JSON at byte 8"),
        ("[1, 01]", "bad number at byte 4"),
        (r#""\u12zz""#, "bad \\u escape at byte 1"),
        ("\"a\tb\"", "control character in string at byte 2"),
        ("[1] [2]", "trailing characters after the value at byte 4"),
        ("", "unexpected end of input at byte 0"),
    ] {
        let msg = s.call_err("read_json", json!({"text": text}));
        assert!(msg.contains("rejected its arguments"), "{text}: {msg}");
        assert!(
            msg.contains(&format!("`text` is not JSON: {want}")),
            "{text}: {msg}"
        );
    }
    // Arguments nested as deep as the host passes on (it refuses a request
    // nested much deeper itself: tests/all/malformed.rs) reach the plugin
    // whole.
    let mut nested = json!(1);
    for _ in 0..100 {
        nested = json!([nested]);
    }
    let answer = read(&mut s, json!({"text": "{}", "nested": nested}));
    assert_eq!(answer, json!({"depth": 1, "arguments_depth": 101}));
}

#[test]
fn a_call_logs_through_the_host_to_the_client() {
    let Some((mut s, _dir)) = serve("calc") else {
        return;
    };
    evaluate(&mut s, json!({"expression": "1 + 2 * 3"}));
    let log = s
        .notifications
        .iter()
        .find(|n| n["method"] == "notifications/message")
        .unwrap_or_else(|| panic!("no log message in {:?}", s.notifications));
    assert_eq!(log["params"]["logger"], "calc/evaluate");
    assert_eq!(log["params"]["level"], "info");
    assert_eq!(
        log["params"]["data"],
        "evaluated 9 characters, 2 operator(s)"
    );
}

#[test]
fn the_sdk_unit_tests_pass_when_compiled_natively_with_undefined_behaviour_trapping() {
    let Some(clang) = compiler() else { return };
    let root = crate::common::workspace_root();
    let sdk = root.join("sdk-c");
    let out = tempfile::tempdir().unwrap();
    let exe = out.path().join("sdk_test");
    let compile = Command::new(clang)
        .args(["-std=gnu17", "-O1", "-g", "-Wall", "-Wextra", "-Werror"])
        .args(["-fsanitize=undefined", "-fsanitize-trap=all"])
        .arg(format!(
            "-DMCP_URI_TEMPLATES=\"{}\"",
            root.join("tests/uri-templates.json").display()
        ))
        .arg("-I")
        .arg(sdk.join("include"))
        .arg("-I")
        .arg(sdk.join("src"))
        .arg(sdk.join("tests/sdk_test.c"))
        .args(
            // json.c compiles in the vendored cJSON (sdk-c/vendor/cjson).
            // store_memory.c: the store API's in-memory store, natively.
            [
                "json.c",
                "result.c",
                "utf8.c",
                "serve.c",
                "fields.c",
                "store.c",
                "store_memory.c",
            ]
            .map(|f| sdk.join("src").join(f)),
        )
        .arg("-lm")
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        compile.status.success(),
        "compiling sdk-c/tests/sdk_test.c failed:\n{}",
        String::from_utf8_lossy(&compile.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "sdk_test failed:\n{stdout}");
    assert!(stdout.contains("all checks passed"), "{stdout}");
}

#[test]
fn the_calc_plugin_lets_evaluate_run_as_a_task_when_the_client_supports_tasks() {
    let Some(dir) = built() else { return };
    let report = crate::common::inspect_json(&dir.join("calc.wasm"));
    // Tools that never run as tasks are left out.
    assert_eq!(
        report["task_support"],
        json!({"evaluate": "optional"}),
        "{report:#}"
    );
}

#[test]
fn the_calc_plugin_serves_its_syntax_resource_and_fills_in_the_word_problem_prompt() {
    let Some((mut s, _dir)) = serve("calc") else {
        return;
    };
    let listed = s.request("resources/list", json!({}));
    assert_eq!(
        listed["result"]["resources"],
        json!([{"uri": "calc://syntax", "name": "syntax", "title": "calc expression syntax",
                "description": "The operators, functions and constants evaluate accepts.",
                "mimeType": "text/markdown"}]),
        "{listed}"
    );
    let templates = s.request("resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"],
        json!([]),
        "{templates}"
    );
    let read = s.request("resources/read", json!({"uri": "calc://syntax"}));
    let contents = &read["result"]["contents"];
    assert_eq!(contents.as_array().unwrap().len(), 1, "{read}");
    assert_eq!(contents[0]["uri"], "calc://syntax");
    assert_eq!(contents[0]["mimeType"], "text/markdown");
    assert!(
        contents[0]["text"]
            .as_str()
            .unwrap()
            .contains("2^3^2 is 2^9"),
        "{read}"
    );
    let missing = s.request("resources/read", json!({"uri": "calc://nothing"}));
    assert_eq!(missing["error"]["code"], -32002, "{missing}");

    let got = s.request(
        "prompts/get",
        json!({"name": "solve_word_problem",
               "arguments": {"problem": "3 apples at 1.25 each", "precision": "2"}}),
    );
    let messages = got["result"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{got}");
    assert_eq!(messages[0]["role"], "user");
    let ask = messages[0]["content"]["text"].as_str().unwrap();
    assert!(ask.contains("with \"precision\": 2,"), "{ask}");
    assert!(ask.ends_with("\n\n3 apples at 1.25 each"), "{ask}");
    let refused = s.request(
        "prompts/get",
        json!({"name": "solve_word_problem", "arguments": {"problem": "x", "precision": "two"}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("precision is a whole number"),
        "{refused}"
    );

    let completed = s.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "solve_word_problem"},
               "argument": {"name": "precision", "value": "1"}}),
    );
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["15"]),
        "{completed}"
    );
}
