//! The documentation names only paths that exist: every path of this
//! repository that the README or `docs/*.md` quotes in backticks (the
//! host's sources, tests and benchmarks, the SDKs, the scripts, the WIT) is
//! a file or directory of the checkout. Placeholders (`NAME`, `HEX`, `LANG`)
//! and globs are not paths.
#![allow(clippy::unwrap_used)]

use crate::common::workspace_root;

/// Where the project's own files live (not the plugins a guide has the
/// reader write, under `plugins/`).
const PREFIXES: &[&str] = &[
    "host/",
    "sdk-guest/",
    "sdk-python/",
    "sdk-js/",
    "sdk-go/",
    "sdk-c/",
    "sdk-tool/",
    "scripts/",
    "wit/",
    "tests/",
    "deploy/",
    ".ci/",
];

/// The backticked spans of `text` that look like paths of this repository.
fn quoted_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| PREFIXES.iter().any(|p| span.starts_with(p)))
        .filter(|span| {
            !span.contains(char::is_whitespace)
                && !span.contains(['*', '{', '<', '$', '…'])
                && !span
                    .split('/')
                    .any(|seg| seg.len() > 1 && seg.chars().all(|c| c.is_ascii_uppercase()))
        })
        .map(|span| span.trim_end_matches([',', '.', ':', ')']).to_string())
        .collect()
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = workspace_root();
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for path in quoted_paths(&text) {
            checked += 1;
            let bare = path.split(['#', ':']).next().unwrap();
            if !root.join(bare).exists() {
                missing.push(format!("{}: `{path}`", file.display()));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "the docs name paths that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_paths_and_skips_placeholders() {
    let text = "see `host/src/x.rs`, `tests/python/a b`, `plugins/NAME.wasm`, \
                `host/templates/LANG/`, `sdk-c/src/*.c`, `cargo test`, `wit/plugin.wit`.";
    assert_eq!(quoted_paths(text), ["host/src/x.rs", "wit/plugin.wit"]);
}
