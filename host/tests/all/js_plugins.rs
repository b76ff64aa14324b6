//! TypeScript plugins built from source with the JavaScript SDK (`sdk-js`)
//! and served by the real binary: `scripts/build-js-plugin.sh` bundles
//! `plugins/js/*` with esbuild and componentizes them with componentize-js
//! (cached by a hash of their inputs), then each test calls them over stdio:
//! the `markdown` example's schemas, a good call, arguments the schema
//! refuses, and a tool error the plugin throws; the `webget` test plugin's
//! `fetch` reaching the local web server under an allow policy, and denied
//! without one; and what `markdown` serves beside its tools (a resource, a
//! prompt and a completion of its argument); and the `contacts` example,
//! whose schemas are Zod 4 schemas: the JSON Schemas Zod converts them to
//! (made portable by the SDK), and arguments the host's schema check lets
//! through but Zod's parse refuses in the guest; and the `integers` test
//! plugin, whose integers of each width arrive exactly or are refused.
//!
//! The build needs Node: `MCP_WASM_HOST_NODE` names it
//! (`MCP_WASM_HOST_NODE=$(scripts/setup-node.sh)`, as `scripts/test.sh`
//! sets it). Without it every test here says so and passes without running.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::web::{self, WebServer};
use crate::common::{Server, text};
use serde_json::{Value, json};

/// The directory of built components, or `None` (after saying why) when
/// Node is not configured. Built once per test binary.
pub(crate) fn built() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let node = crate::common::toolchain(&crate::common::NODE)?;
            let out = crate::common::target_dir().join("js-plugins");
            let node_dir = Path::new(&node).parent().unwrap();
            let path = std::env::join_paths(std::iter::once(node_dir.to_path_buf()).chain(
                std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
            ))
            .unwrap();
            crate::common::run_build_script(
                "build-js-plugin.sh",
                &out,
                &[("PATH", path.as_os_str())],
            );
            Some(out)
        })
        .as_deref()
}

/// A server with the JavaScript plugin `name` alone, under `policy`; the
/// directory lives as long as the server.
fn serve(name: &str, policy: &str) -> Option<(Server, tempfile::TempDir)> {
    Some(crate::common::serve_alone(
        &built()?.join(format!("{name}.wasm")),
        policy,
    ))
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:?}"))
}

#[test]
fn the_markdown_plugin_lists_its_tools_with_the_schemas_its_builder_made() {
    let Some((mut s, _dir)) = serve("markdown", "") else {
        return;
    };
    let (tools, _) = s.list_all_tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["format_table", "parse_table", "sort_table"]);

    let sort = tool(&tools, "sort_table");
    assert_eq!(sort["title"], "Sort a Markdown table");
    assert_eq!(
        sort["inputSchema"]["required"],
        json!(["markdown", "column"]),
        "an optional() property is not required: {sort}"
    );
    assert_eq!(
        sort["inputSchema"]["properties"]["descending"]["type"],
        "boolean"
    );
    assert_eq!(sort["inputSchema"]["additionalProperties"], false);
    assert_eq!(sort["annotations"]["readOnlyHint"], true);
    assert_eq!(sort["annotations"]["openWorldHint"], false);

    let parse = tool(&tools, "parse_table");
    assert_eq!(
        parse["outputSchema"]["required"],
        json!(["headers", "rows"])
    );
    assert!(tool(&tools, "format_table").get("outputSchema").is_none());
    assert_eq!(
        tool(&tools, "format_table")["icons"],
        json!([{"src": "https://mcp-wasm-host.example/icons/table.png", "mimeType": "image/png",
                "sizes": ["48x48"], "theme": "light"}])
    );
}

#[test]
fn a_good_call_returns_text_and_an_object_returns_structured_content() {
    let Some((mut s, _dir)) = serve("markdown", "") else {
        return;
    };
    let table = s.call_ok(
        "format_table",
        json!({"headers": ["city", "people"], "rows": [["Paris", 2100000], ["Zürich", 420000]]}),
    );
    assert_eq!(
        text(&table),
        "| city   |  people |\n| ------ | ------: |\n| Paris  | 2100000 |\n| Zürich |  420000 |"
    );
    assert!(table.get("structuredContent").is_none(), "{table}");

    let parsed = s.call_ok("parse_table", json!({"markdown": text(&table)}));
    let want = json!({"headers": ["city", "people"], "rows": [
        {"city": "Paris", "people": "2100000"}, {"city": "Zürich", "people": "420000"}]});
    assert_eq!(parsed["structuredContent"], want);
    let as_text: Value = serde_json::from_str(&text(&parsed)).unwrap();
    assert_eq!(as_text, want, "the same JSON travels as text");
}

#[test]
fn arguments_that_break_the_schema_are_refused_before_the_plugin_runs() {
    let Some((mut s, _dir)) = serve("markdown", "") else {
        return;
    };
    let missing = s.call_err("sort_table", json!({"markdown": "| a |\n|---|\n| 1 |"}));
    assert!(missing.contains("column"), "{missing}");
    let wrong = s.call_err(
        "sort_table",
        json!({"markdown": "| a |", "column": "a", "descending": "yes"}),
    );
    assert!(wrong.contains("/descending"), "{wrong}");
    let extra = s.call_err("parse_table", json!({"markdown": "x", "strict": true}));
    assert!(extra.contains("strict"), "{extra}");
}

#[test]
fn a_thrown_invalid_arguments_error_reaches_the_model_with_its_message() {
    let Some((mut s, _dir)) = serve("markdown", "") else {
        return;
    };
    let unknown = s.call_err(
        "sort_table",
        json!({"markdown": "| a | b |\n|---|---|\n| 1 | 2 |", "column": "c"}),
    );
    assert!(unknown.contains("rejected its arguments"), "{unknown}");
    assert!(
        unknown.contains("no column \"c\"; the columns are a, b"),
        "{unknown}"
    );
    let no_table = s.call_err("parse_table", json!({"markdown": "just prose"}));
    assert!(no_table.contains("no Markdown table found"), "{no_table}");
    // The instance that threw is gone; the next call still answers.
    s.call_ok("parse_table", json!({"markdown": "| a |\n|---|\n| 1 |"}));
}

#[test]
fn fetch_reaches_an_origin_the_policy_allows() {
    let web = WebServer::start();
    let policy = format!("[plugins.webget.http]\nallow = [\"{}\"]\n", web.origin());
    let Some((mut s, _dir)) = serve("webget", &policy) else {
        return;
    };
    let result = s.call_ok("get", json!({"url": web.url("/text")}));
    assert_eq!(
        result["structuredContent"],
        json!({"status": 200, "body": web::TEXT})
    );
    assert_eq!(web.requests_to("/text").len(), 1);
}

#[test]
fn fetch_without_an_allow_policy_is_denied_and_nothing_is_sent() {
    let web = WebServer::start();
    let Some((mut s, _dir)) = serve("webget", "") else {
        return;
    };
    let msg = s.call_err("get", json!({"url": web.url("/text")}));
    assert!(msg.contains("was denied access"), "{msg}");
    assert!(msg.contains("refused or failed"), "{msg}");
    s.wait_for_stderr("plugins.webget.http");
    assert!(web.requests().is_empty(), "{:?}", web.requests());
}

#[test]
fn the_markdown_plugin_lets_sort_table_alone_run_as_a_task() {
    let Some(dir) = built() else { return };
    let report = crate::common::inspect_json(&dir.join("markdown.wasm"));
    // Tools that never run as tasks are left out.
    assert_eq!(
        report["task_support"],
        json!({"sort_table": "optional"}),
        "{report:#}"
    );
}

#[test]
fn the_markdown_plugin_serves_its_table_syntax_resource_and_fills_in_the_tabulate_prompt() {
    let Some((mut s, _dir)) = serve("markdown", "") else {
        return;
    };
    let listed = s.request("resources/list", json!({}));
    assert_eq!(
        listed["result"]["resources"],
        json!([{"uri": "markdown://syntax/tables", "name": "table_syntax",
                "title": "Markdown table syntax",
                "description": "The pipe-table syntax that format_table writes and parse_table and sort_table read.",
                "mimeType": "text/markdown"}]),
        "{listed}"
    );
    let read = s.request("resources/read", json!({"uri": "markdown://syntax/tables"}));
    let contents = &read["result"]["contents"];
    assert_eq!(contents[0]["uri"], "markdown://syntax/tables", "{read}");
    assert_eq!(contents[0]["mimeType"], "text/markdown");
    assert!(
        contents[0]["text"]
            .as_str()
            .unwrap()
            .contains("`---:` right"),
        "{read}"
    );
    let missing = s.request("resources/read", json!({"uri": "markdown://syntax/lists"}));
    assert_eq!(missing["error"]["code"], -32002, "{missing}");

    let prompts = s.request("prompts/list", json!({}));
    let prompt = &prompts["result"]["prompts"][0];
    assert_eq!(prompt["name"], "tabulate", "{prompts}");
    assert_eq!(prompt["arguments"][0]["required"], true);
    let got = s.request(
        "prompts/get",
        json!({"name": "tabulate", "arguments": {"data": "apples 3, pears 5", "order": "descending"}}),
    );
    let messages = got["result"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{got}");
    assert_eq!(
        messages[0]["content"]["resource"]["uri"],
        "markdown://syntax/tables"
    );
    let ask = messages[1]["content"]["text"].as_str().unwrap();
    assert!(ask.ends_with("\n\napples 3, pears 5"), "{ask}");
    assert!(ask.contains("sort it descending"), "{ask}");
    let refused = s.request(
        "prompts/get",
        json!({"name": "tabulate", "arguments": {"data": "x", "order": "random"}}),
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("order is one of"),
        "{refused}"
    );

    let completed = s.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "tabulate"},
               "argument": {"name": "order", "value": "a"}}),
    );
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["as given", "ascending"]),
        "{completed}"
    );
}

/// Every JSON type, the SDK's portable spelling of a schema that constrains
/// nothing (`z.unknown()`).
fn any_json_value() -> Value {
    json!({"anyOf": [{"type": "object"}, {"type": "array"}, {"type": "string"},
                     {"type": "number"}, {"type": "boolean"}, {"type": "null"}]})
}

#[test]
fn the_contacts_plugin_lists_the_schemas_zod_converted_in_their_portable_spelling() {
    let Some((mut s, _dir)) = serve("contacts", "") else {
        return;
    };
    let (tools, _) = s.list_all_tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add_contact", "book_slot"]);

    let add = tool(&tools, "add_contact");
    let input = &add["inputSchema"];
    assert_eq!(
        input["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{add}"
    );
    // A field with a default (`tags`) or `.optional()` is not required of the caller.
    assert_eq!(input["required"], json!(["name", "email", "company"]));
    let props = &input["properties"];
    assert_eq!(props["name"]["description"], "Full name.");
    assert_eq!(props["email"]["format"], "email");
    assert_eq!(props["tags"]["default"], json!([]));
    // Zod writes `"type": ["string", "null"]`, a tuple's `"items": false`
    // and `{}` for `z.unknown()`; the SDK rewrites each the portable way.
    assert_eq!(
        props["company"],
        json!({"description": "Employer, or null if none.",
               "anyOf": [{"type": "string"}, {"type": "null"}]})
    );
    assert_eq!(props["location"]["items"], json!({"not": {}}));
    assert_eq!(props["extra"]["additionalProperties"], any_json_value());
    // Zod leaves unknown keys to its parse (a plain object strips them).
    assert!(input.get("additionalProperties").is_none(), "{input}");
    // The output schema describes what the handler returns: `tags` always.
    let output = &add["outputSchema"];
    assert_eq!(output["additionalProperties"], false, "{output}");
    assert_eq!(
        output["properties"]["contact"]["required"],
        json!(["name", "email", "company", "tags"])
    );
}

#[test]
fn zod_parses_the_arguments_before_the_handler_runs_and_refuses_what_the_schema_cannot_say() {
    let Some((mut s, _dir)) = serve("contacts", "") else {
        return;
    };
    // The handler gets what Zod parsed: the name trimmed, the default tags.
    let added = s.call_ok(
        "add_contact",
        json!({"name": "  Ada Lovelace ", "email": "ada@example.org", "company": null}),
    );
    assert_eq!(
        added["structuredContent"],
        json!({"id": "ada-lovelace-0", "contact": {"name": "Ada Lovelace",
               "email": "ada@example.org", "company": null, "tags": []}})
    );

    // Broken against the JSON Schema: the host refuses it, no guest code runs.
    let host = s.call_err(
        "add_contact",
        json!({"name": "Ada", "email": "ada@example.org", "company": 3}),
    );
    assert!(host.contains("invalid arguments"), "{host}");
    assert!(host.contains("/company"), "{host}");
    assert!(!host.contains("rejected its arguments"), "{host}");

    // Within the JSON Schema, but not what Zod accepts: blank once trimmed,
    // and a refinement across two fields. The guest answers invalid arguments
    // with every problem, and the handler does not run.
    let blank = s.call_err(
        "add_contact",
        json!({"name": "   ", "email": "ada@example.org", "company": null}),
    );
    assert!(blank.contains("rejected its arguments"), "{blank}");
    assert!(
        blank.contains("/name: Too small: expected string to have >=1 characters"),
        "{blank}"
    );
    let slot = s.call_err("book_slot", json!({"start": 9, "end": 8}));
    assert!(slot.contains("rejected its arguments"), "{slot}");
    assert!(slot.contains("/end: end must be after start"), "{slot}");

    let booked = s.call_ok("book_slot", json!({"start": 9, "end": 12}));
    assert_eq!(booked["structuredContent"], json!({"hours": 3}));
}

/// The `integers` test plugin's `s.int32()`, `s.uint32()`, `s.int64()`,
/// `s.uint64()` and `s.integer()`: each lists its exact bounds, and each
/// edge in every spelling arrives exactly (a 64-bit one as a BigInt read
/// from its text) or is refused naming the bound, as for a generic
/// component (`integer_edges.rs`).
#[test]
fn every_integer_width_states_its_bounds_and_each_edge_arrives_exactly_or_is_refused() {
    let Some((mut s, _dir)) = serve("integers", "") else {
        return;
    };
    let (tools, _) = s.list_all_tools();
    let safe = (1i128 << 53) - 1;
    let widths: [(&str, i128, i128); 5] = [
        ("int32", i32::MIN.into(), i32::MAX.into()),
        ("uint32", 0, u32::MAX.into()),
        ("int64", i64::MIN.into(), i64::MAX.into()),
        ("uint64", 0, u64::MAX.into()),
        ("integer", -safe, safe),
    ];
    for (name, min, max) in widths {
        let n = &tool(&tools, &format!("echo-{name}"))["inputSchema"]["properties"]["n"];
        assert_eq!(n["type"], "integer", "{name}: {n}");
        // Compared as text: every digit, never a double's rounding.
        assert_eq!(n["minimum"].to_string(), min.to_string(), "{name}: {n}");
        assert_eq!(n["maximum"].to_string(), max.to_string(), "{name}: {n}");
    }
    let (exact, refused) = crate::integer_edges::every_edge(&mut s, &widths);
    eprintln!("{exact} values arrived exactly, {refused} were refused");
    assert!(exact > 0 && refused > 0);

    let got = s.call_ok("echo-uint64", json!({"n": 9_007_199_254_740_993u64}));
    assert_eq!(
        got["structuredContent"],
        json!({"result": 9_007_199_254_740_993u64, "type": "bigint"})
    );
    let got = s.call_ok("echo-int32", json!({"n": -5}));
    assert_eq!(got["structuredContent"]["type"], "number");
    let sum = s.call_ok("sum-uint64", json!({"items": [u64::MAX - 1, 1, 0]}));
    assert_eq!(sum["structuredContent"], json!({"sum": u64::MAX}));
    let refused = s.call_err("sum-uint64", json!({"items": [1, 9_007_199_254_740_992.0]}));
    assert!(
        refused.contains("/items/1") && refused.contains("uint64 takes 0 to 18446744073709551615"),
        "{refused}"
    );
}
