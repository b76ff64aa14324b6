//! The MCP Inspector's CLI (`@modelcontextprotocol/inspector` from npm,
//! pinned in `tests/ts/package.json`) lists the tools of the real binary with
//! `--method tools/list --strict`, which checks every input and output
//! schema for what some clients cannot take: a `type` array, a schema
//! without any validation keyword, a bare `true`/`false`, a remote `$ref`.
//! Every example plugin, alone and all of them served together as
//! `scripts/serve-examples.sh` serves them, must get 0 errors and 0
//! warnings; the SDK derives portable schemas (`mcp_wasm_sdk::schema`). The
//! `unportable` test plugin, with a raw schema spelled the old way, shows
//! that the check finds what it should. The schemas the host derives from
//! WIT types for a generic component (`plugins/testing/plainwit`, which uses
//! every kind of WIT value type) get 0 errors and 0 warnings as well.
//!
//! The Inspector runs on Node 22: `MCP_WASM_HOST_NODE` names it
//! (`MCP_WASM_HOST_NODE=$(scripts/setup-node.sh)`, as `scripts/test.sh`
//! does, which also installs the Inspector in `tests/ts/node_modules`);
//! without it the tests are skipped, or fail under CI (`common::toolchain`).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// One schema finding: tool, severity (`error` or `warning`), rule, and
/// where (`inputSchema.properties.name`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    tool: String,
    severity: String,
    rule: String,
    path: String,
}

/// What one `tools/list --strict` run reported.
struct Report {
    /// The names of the tools listed.
    tools: Vec<String>,
    findings: Vec<Finding>,
    /// The Inspector's stdout and stderr (its readable report is on stderr).
    output: String,
}

impl Report {
    fn count(&self, severity: &str) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// Node and the Inspector's launcher script, or `None` (with a message) if
/// `MCP_WASM_HOST_NODE` is unset.
fn inspector() -> Option<(PathBuf, PathBuf)> {
    let node = crate::common::toolchain(&crate::common::NODE)?;
    let launcher = crate::common::workspace_root().join(
        "tests/ts/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
    );
    assert!(
        launcher.is_file(),
        "the MCP Inspector is not installed in tests/ts/node_modules: run scripts/setup-node.sh (scripts/test.sh does)"
    );
    Some((node, launcher))
}

/// Runs `inspector --cli mcp-wasm-host serve --plugins PLUGINS --method
/// tools/list --strict --format json` and returns what it found, after
/// checking that it listed tools and exited 0 (`--strict` exits 6 on an
/// error-severity finding).
fn strict_tools_list(node: &Path, launcher: &Path, plugins: &Path) -> Report {
    let out = Command::new(node)
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .arg(launcher)
        .arg("--cli")
        .arg(crate::common::binary())
        .args(["serve", "--no-watch", "--log", "warn", "--plugins"])
        .arg(plugins)
        .arg("--cache-dir")
        .arg(crate::common::target_dir().join("test-cache"))
        .args(["--method", "tools/list", "--strict", "--format", "json"])
        .current_dir(plugins)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} ({e})", node.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let output = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        out.status.success(),
        "the Inspector failed on {} ({}):\n{output}",
        plugins.display(),
        out.status
    );
    let envelope: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the Inspector printed no JSON ({e}):\n{output}"));
    let tools: Vec<String> = envelope["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in the result:\n{output}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!tools.is_empty(), "no tools listed:\n{output}");
    // `schemaFindings` is there only when something was found.
    let mut findings = Vec::new();
    for entry in envelope["schemaFindings"].as_array().into_iter().flatten() {
        for f in entry["findings"].as_array().unwrap() {
            findings.push(Finding {
                tool: entry["toolName"].as_str().unwrap().to_owned(),
                severity: f["severity"].as_str().unwrap().to_owned(),
                rule: f["rule"].as_str().unwrap().to_owned(),
                path: format!(
                    "{}.{}",
                    f["schema"].as_str().unwrap(),
                    f["path"].as_str().unwrap()
                ),
            });
        }
    }
    Report {
        tools,
        findings,
        output,
    }
}

/// Asserts that a run found nothing, with the Inspector's report if it did.
fn assert_portable(report: &Report, what: &str) {
    assert!(
        report.count("error") == 0 && report.count("warning") == 0,
        "{what}: the Inspector's --strict check found {} errors and {} warnings: {:#?}\n{}",
        report.count("error"),
        report.count("warning"),
        report.findings,
        report.output
    );
}

#[test]
fn every_example_plugin_has_schemas_the_inspector_finds_portable() {
    let Some((node, launcher)) = inspector() else {
        return;
    };
    let mut tools = Vec::new();
    for name in test_artifacts::EXAMPLE_PLUGINS {
        let file = Path::new(test_artifacts::EXAMPLES_DIR).join(format!("{name}.wasm"));
        let dir = crate::common::plugin_dir(&[file.to_str().unwrap()]);
        let report = strict_tools_list(&node, &launcher, dir.path());
        assert_portable(&report, &format!("plugin {name}"));
        tools.extend(report.tools);
    }

    // All of them at once, as `scripts/serve-examples.sh` serves them.
    let all = strict_tools_list(&node, &launcher, Path::new(test_artifacts::EXAMPLES_DIR));
    assert_portable(&all, "the examples directory");
    let mut served = all.tools.clone();
    served.sort();
    tools.sort();
    assert_eq!(served, tools, "{}", all.output);
}

/// The plugin that `scripts/conformance.sh` serves to the official
/// conformance suite (35 tools, some with hand-written 2020-12 schemas) is
/// portable too.
#[test]
fn the_conformance_plugin_has_schemas_the_inspector_finds_portable() {
    let Some((node, launcher)) = inspector() else {
        return;
    };
    let dir = crate::common::plugin_dir(&[test_artifacts::CONFORMANCE]);
    let report = strict_tools_list(&node, &launcher, dir.path());
    assert_portable(&report, "the conformance plugin");
    assert!(
        report.tools.iter().any(|t| t == "json_schema_2020_12_tool"),
        "{}",
        report.output
    );
}

/// The input and output schemas derived from WIT types for a generic
/// component (records, variants, enums, flags, options, results, tuples,
/// lists, every integer width, floats, chars) are portable: the mapping in
/// `runtime::generic::schema` writes nothing the check warns about.
#[test]
fn a_generic_components_derived_schemas_are_portable() {
    let Some((node, launcher)) = inspector() else {
        return;
    };
    let file = Path::new(test_artifacts::TESTING_DIR).join("plainwit.wasm");
    let dir = crate::common::plugin_dir(&[file.to_str().unwrap()]);
    let report = strict_tools_list(&node, &launcher, dir.path());
    assert_portable(&report, "the generic component plainwit");
    for tool in [
        "add",
        "divide",
        "area",
        "midpoint",
        "parse",
        "describe",
        "first-char",
        "swap",
    ] {
        assert!(
            report.tools.iter().any(|t| t == tool),
            "{tool} is not listed:\n{}",
            report.output
        );
    }
}

/// Every kind of WIT value type, alone and nested in the others: a table of
/// the shapes the mapping writes differently (an option of an option, a
/// result with and without payloads, a variant with and without payloads,
/// a record with an option field...).
const EVERY_TYPE: &[&str] = &[
    "bool",
    "s8",
    "u8",
    "s16",
    "u16",
    "s32",
    "u32",
    "s64",
    "u64",
    "f32",
    "f64",
    "char",
    "string",
    "list<u8>",
    "list<string>",
    "option<u32>",
    "option<option<string>>",
    "option<list<option<bool>>>",
    "result",
    "result<u32>",
    "result<_, string>",
    "result<string, colour>",
    "tuple<u8>",
    "tuple<string, f32, char>",
    "item",
    "shape",
    "bare",
    "colour",
    "style",
    "list<item>",
    "option<shape>",
    "option<option<bare>>",
    "result<option<item>, list<style>>",
    "tuple<option<option<shape>>, result<_, colour>>",
    "list<option<list<option<list<option<list<option<tuple<u64, s64>>>>>>>>>",
];

/// A component exporting `checkN: func(v: T, p0: u8, ... p15: u8) -> tuple<T,
/// u8, ...>` for every `T` of [`EVERY_TYPE`]: with more than 16 flat
/// parameters and more than one flat result, every function's core type is
/// `(i32) -> i32`, so one trapping core function serves them all (the test
/// only lists the tools).
fn every_type_component() -> Vec<u8> {
    let pad: String = (0..16).map(|i| format!(", p{i}: u8")).collect();
    let pad_result: String = (0..16).map(|_| ", u8").collect();
    let mut wit = String::from(
        "package test:every;\nworld w {\n\
         record item { name: string, count: u32, note: option<string>, tags: list<string> }\n\
         variant shape { circle(f64), rect(tuple<f64, f64>), dot, empty }\n\
         variant bare { one, two }\n\
         enum colour { red, green }\n\
         flags style { bold, italic }\n",
    );
    let mut core = String::from(
        r#"(module (memory (export "memory") 1)
           (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) unreachable)"#,
    );
    for (i, t) in EVERY_TYPE.iter().enumerate() {
        wit.push_str(&format!(
            "  export check{i}: func(v: {t}{pad}) -> tuple<{t}{pad_result}>;\n"
        ));
        core.push_str(&format!(
            r#"(func (export "check{i}") (param i32) (result i32) unreachable)"#
        ));
    }
    wit.push_str("}\n");
    core.push(')');
    test_artifacts::component_of_wit(&wit, "w", &core)
}

/// The class behind the plainwit check: the schemas derived for every kind
/// of WIT value type, as parameter and inside a result, are portable.
#[test]
fn the_schemas_derived_for_every_wit_value_type_are_portable() {
    let Some((node, launcher)) = inspector() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("every.wasm"), every_type_component()).unwrap();
    let report = strict_tools_list(&node, &launcher, dir.path());
    assert_portable(&report, "a generic component using every WIT value type");
    let mut expected: Vec<String> = (0..EVERY_TYPE.len()).map(|i| format!("check{i}")).collect();
    let mut listed = report.tools.clone();
    expected.sort();
    listed.sort();
    assert_eq!(listed, expected, "{}", report.output);
}

#[test]
fn the_inspector_reports_a_type_array_and_an_untyped_schema() {
    let Some((node, launcher)) = inspector() else {
        return;
    };
    let dir = crate::common::plugin_dir(&[test_artifacts::UNPORTABLE]);
    let report = strict_tools_list(&node, &launcher, dir.path());
    let finding = |rule: &str, path: &str| Finding {
        tool: "unportable".into(),
        severity: "warning".into(),
        rule: rule.into(),
        path: path.into(),
    };
    assert_eq!(
        report.findings,
        [
            finding("type-union", "inputSchema.properties.name"),
            finding("untyped-schema", "inputSchema.properties.value"),
        ],
        "{}",
        report.output
    );
    assert!(
        report
            .output
            .contains("0 errors, 2 warnings across 1 tool."),
        "{}",
        report.output
    );
}

/// The example plugins in the other languages (`plugins/go`, `plugins/c`,
/// `plugins/js`), built by their own test modules, are portable too.
#[test]
fn every_other_language_example_plugin_has_schemas_the_inspector_finds_portable() {
    let Some((node, launcher)) = inspector() else {
        return;
    };
    let built = [
        ("Go", crate::go_plugins::built()),
        ("C", crate::c_plugins::built()),
        ("JavaScript", crate::js_plugins::built()),
    ];
    for (language, dir) in built {
        let Some(dir) = dir else {
            crate::common::skip(format!(
                "the {language} example plugins: their toolchain is not set up"
            ));
            continue;
        };
        for entry in std::fs::read_dir(dir).unwrap() {
            let file = entry.unwrap().path();
            if file.extension().is_none_or(|e| e != "wasm") {
                continue;
            }
            let alone = crate::common::plugin_dir(&[file.to_str().unwrap()]);
            let report = strict_tools_list(&node, &launcher, alone.path());
            assert!(
                !report.tools.is_empty(),
                "{}: no tools\n{}",
                file.display(),
                report.output
            );
            assert_portable(&report, &format!("{language} plugin {}", file.display()));
        }
    }
}

/// The JavaScript `contacts` example declares its schemas with Zod 4, whose
/// own conversion writes `type` arrays, a tuple's `"items": false` and `{}`
/// for `z.unknown()`; the SDK's portable rewrite (`sdk-js/src/portable.js`)
/// leaves the check nothing to report.
#[test]
fn the_zod_example_plugin_has_schemas_the_inspector_finds_portable() {
    let Some((node, launcher)) = inspector() else {
        return;
    };
    let Some(built) = crate::js_plugins::built() else {
        return;
    };
    let file = built.join("contacts.wasm");
    let dir = crate::common::plugin_dir(&[file.to_str().unwrap()]);
    let report = strict_tools_list(&node, &launcher, dir.path());
    assert_portable(&report, "the Zod example plugin contacts");
    let mut tools = report.tools.clone();
    tools.sort();
    assert_eq!(tools, ["add_contact", "book_slot"], "{}", report.output);
}
