//! The light declaration forms of the Rust, Go and C SDKs (issue 30 §6)
//! against the real binary: the same `number_stats` tool, written with
//! Rust's `#[tool]`/`export_tools!` (`plugins/testing/toolfn`), Go's
//! `mcp.Register` (`plugins/go/stats`) and C's field macros
//! (`plugins/c/stats`), lists the same schemas and hints and answers the same
//! calls, its refusal as an `isError` result. The Go and C builds need their
//! toolchains, as `go_plugins` and `c_plugins` say.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use crate::common::{Server, serve_alone};
use serde_json::{Value, json};

/// Each language's component, or `None` when its toolchain is not
/// configured (the toolchain's module has said why).
fn components() -> Vec<(&'static str, Option<PathBuf>)> {
    vec![
        ("rust", Some(PathBuf::from(test_artifacts::TOOLFN))),
        (
            "go",
            crate::go_plugins::built().map(|dir| dir.join("stats.wasm")),
        ),
        (
            "c",
            crate::c_plugins::built().map(|dir| dir.join("stats.wasm")),
        ),
    ]
}

/// A server for each language whose component could be built.
fn servers() -> Vec<(&'static str, Server, tempfile::TempDir)> {
    components()
        .into_iter()
        .filter_map(|(language, component)| {
            let (server, dir) = serve_alone(&component?, "");
            Some((language, server, dir))
        })
        .collect()
}

fn listed(s: &mut Server, name: &str) -> Value {
    let (tools, _) = s.list_all_tools();
    tools
        .into_iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[test]
fn tools_list_shows_the_derived_schemas_and_hints() {
    for (language, mut s, _dir) in servers() {
        let tool = listed(&mut s, "number_stats");
        assert_eq!(
            tool["description"], "Count numbers and give their mean.",
            "{language}"
        );
        assert_eq!(tool["title"], "Number statistics", "{language}");
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{language}");
        assert_eq!(tool["annotations"]["openWorldHint"], false, "{language}");
        let input = &tool["inputSchema"];
        assert_eq!(input["type"], "object", "{language}: {input}");
        assert_eq!(input["required"], json!(["numbers"]), "{language}: {input}");
        let numbers = &input["properties"]["numbers"];
        assert_eq!(numbers["type"], "array", "{language}: {input}");
        assert_eq!(numbers["items"]["type"], "number", "{language}: {input}");
        assert_eq!(
            numbers["description"], "The numbers to summarize.",
            "{language}: {input}"
        );
        assert!(
            input["properties"]["digits"]
                .to_string()
                .contains("\"maximum\":10"),
            "{language}: {input}"
        );
        let output = &tool["outputSchema"];
        assert_eq!(output["type"], "object", "{language}: {output}");
        for field in ["count", "mean"] {
            assert!(
                output["properties"][field].is_object(),
                "{language}: {field} in {output}"
            );
        }
    }
}

#[test]
fn calls_give_structured_content_and_the_refusal_is_an_error_result() {
    for (language, mut s, _dir) in servers() {
        // Compared as numbers: Go writes the mean -5.0 as -5, Rust as -5.0.
        let cases = [
            (
                json!({"numbers": [1, 2, 4], "digits": 1}),
                json!({"count": 3, "mean": 2.3}),
            ),
            (
                json!({"numbers": [1, 2, 2]}),
                json!({"count": 3, "mean": 1.67}),
            ),
            (json!({"numbers": [-5]}), json!({"count": 1, "mean": -5.0})),
        ];
        for (arguments, expected) in cases {
            let structured = s.call_structured("number_stats", arguments.clone());
            for field in ["count", "mean"] {
                assert_eq!(
                    structured[field].as_f64(),
                    expected[field].as_f64(),
                    "{language}: {arguments} gave {structured}"
                );
            }
        }
        let refusal = s.call_err("number_stats", json!({"numbers": []}));
        assert!(
            refusal.contains("`numbers` is empty"),
            "{language}: {refusal}"
        );
    }
}
