//! The documentation names only paths that exist. The rule for what counts
//! as a path, in `README.md`, `CONTRIBUTING.md` and `docs/*.md`:
//! - a backticked span whose first segment is a top-level directory of the
//!   checkout (`host/`, `scripts/`, `sdk-*/`, `plugins/`, `.ci/`, …: read
//!   from the checkout, so a new directory is covered without a change
//!   here; `target/` and other hidden or untracked directories are not);
//! - a backticked span that starts inside a crate (`src/…`, as a table of
//!   the tree writes it) and names Rust code: a `.rs` file or a directory.
//!   It must exist in one of the [`CRATES`]. A `src/…` span that names
//!   another language's file (`src/app.py`, `src/hello.c`) is a guest
//!   project's, not ours;
//! - a relative Markdown link target (`[x](docs/policy.md)`), resolved from
//!   the file that holds it.
//!
//! A trailing `,.:)`, a `#anchor` and a `:line` are dropped. Not paths:
//! spans with whitespace (commands) and globs or shell (`*`, `{`, `<`, `$`,
//! `…`). A path must exist as written; one that does not but holds a
//! placeholder (a word of two or more capitals, as in
//! `scripts/setup-LANG.sh` or `plugins/NAME.wasm`) is a template, and the
//! directory before its first placeholder must exist (`scripts/`). The few
//! paths a guide has the reader create are listed in
//! [`THE_READER_CREATES`].
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use crate::common::workspace_root;

/// Paths a guide tells the reader to create, so they are not in the
/// checkout: (the document, the path).
const THE_READER_CREATES: &[(&str, &str)] =
    &[("docs/writing-plugins.md", "plugins/python/hello/app.py")];

/// The crates whose `src/` a span starting with `src/` may name.
const CRATES: &[&str] = &["runtime", "host"];

/// Top-level directories that hold build output or local environments,
/// never files the docs may point at.
const NOT_THE_REPOSITORY: &[&str] = &["target", "node_modules"];

/// The top-level directories of the checkout, each as `NAME/`.
fn top_level_dirs(root: &Path) -> Vec<String> {
    let mut dirs: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name == ".ci" || !name.starts_with('.'))
        .filter(|name| !NOT_THE_REPOSITORY.contains(&name.as_str()))
        .map(|name| format!("{name}/"))
        .collect();
    dirs.sort();
    dirs
}

/// Whether `span` is a command, glob or shell rather than a path.
fn not_a_path(span: &str) -> bool {
    span.is_empty()
        || span.contains(char::is_whitespace)
        || span.contains(['*', '{', '<', '$', '…'])
}

/// Whether the path segment `segment` holds a placeholder: a word of two or
/// more capitals (`NAME`, `OUT_DIR`, `LANG` in `setup-LANG.sh` and
/// `LANG_plugins.rs`).
fn holds_placeholder(segment: &str) -> bool {
    segment
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| {
            word.len() > 1
                && word.chars().any(|c| c.is_ascii_uppercase())
                && !word.chars().any(|c| c.is_ascii_lowercase())
        })
}

/// Whether `path`, relative to `base`, exists, or is a template whose
/// directory before its first placeholder exists.
fn exists_or_template(base: &Path, path: &str) -> bool {
    if base.join(path).exists() {
        return true;
    }
    let segments: Vec<&str> = path.split('/').collect();
    match segments.iter().position(|s| holds_placeholder(s)) {
        Some(first) => base.join(segments[..first].join("/")).is_dir(),
        None => false,
    }
}

/// The path part of `span`: no trailing punctuation, anchor or line.
fn bare(span: &str) -> &str {
    let span = span.trim_end_matches([',', '.', ':', ')', ';']);
    span.split(['#', ':']).next().unwrap()
}

/// The paths of this repository that `text` names in backticks, relative
/// to the repository's root; `dirs` are its top-level directories.
fn quoted_paths(text: &str, dirs: &[String]) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| dirs.iter().any(|d| span.starts_with(d.as_str())))
        .filter(|span| !not_a_path(span))
        .map(|span| bare(span).to_string())
        .collect()
}

/// The spans of `text` that start inside a crate (`src/…`) and name Rust
/// code: a `.rs` file, or a directory (a trailing `/`, or a last segment
/// without an extension).
fn crate_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.starts_with("src/") && !not_a_path(span))
        .map(|span| bare(span).to_string())
        .filter(|path| {
            let last = path.rsplit('/').next().unwrap_or_default();
            path.ends_with(".rs") || !last.contains('.')
        })
        .collect()
}

/// Whether `path` (starting with `src/`) exists, or is a template, in one
/// of the [`CRATES`] under `root`.
fn in_a_crate(root: &Path, path: &str) -> bool {
    CRATES
        .iter()
        .any(|krate| exists_or_template(&root.join(krate), path))
}

/// The relative targets of `text`'s Markdown links (`[x](target)`), as
/// written (relative to the file that holds them).
fn link_targets(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')')?];
            Some(target)
        })
        .filter(|t| !t.contains("://") && !t.starts_with(['#', '/']) && !t.starts_with("mailto:"))
        .filter(|t| !not_a_path(t))
        .map(|t| t.split('#').next().unwrap().to_string())
        .collect()
}

/// The documents the rule covers.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = workspace_root();
    let dirs = top_level_dirs(&root);
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in documents(&root) {
        let name = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        let quoted = quoted_paths(&text, &dirs)
            .into_iter()
            .map(|p| (root.clone(), p));
        let linked = link_targets(&text)
            .into_iter()
            .map(|t| (file.parent().unwrap().to_path_buf(), t));
        for path in crate_paths(&text) {
            checked += 1;
            if !in_a_crate(&root, &path) {
                missing.push(format!("{name}: `{path}` (in no crate: {CRATES:?})"));
            }
        }
        for (base, path) in quoted.chain(linked) {
            checked += 1;
            if !exists_or_template(&base, &path)
                && !THE_READER_CREATES.contains(&(name.as_str(), path.as_str()))
            {
                missing.push(format!("{name}: `{path}`"));
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} paths found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "the docs name paths that do not exist (see host/tests/all/docs_paths.rs for the rule):\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_paths_and_skips_commands_and_globs() {
    let dirs = ["host/", "plugins/", "wit/", "tests/", "docs/", ".ci/"].map(String::from);
    let text = "see `host/src/x.rs`, `tests/python/a b`, `plugins/NAME.wasm`, \
                `sdk-c/src/*.c`, `cargo test`, `wit/plugin.wit`, \
                `plugins/go/hello/main.go:12`, `.ci/run`, \
                `host/src/a.rs#L3`, `target/debug/x`, `docs/x.md`.";
    assert_eq!(
        quoted_paths(text, &dirs),
        [
            "host/src/x.rs",
            "plugins/NAME.wasm",
            "wit/plugin.wit",
            "plugins/go/hello/main.go",
            ".ci/run",
            "host/src/a.rs",
            "docs/x.md",
        ]
    );
    let text = "[a](docs/policy.md), [b](policy.md#keys), [c](https://x.org/y), \
                [d](#anchor), [e](docs/LANG.md)";
    assert_eq!(
        link_targets(text),
        ["docs/policy.md", "policy.md", "docs/LANG.md"]
    );
}

#[test]
fn a_path_inside_a_crate_is_checked_against_each_crate() {
    let text = "`src/config/` and `src/lib.rs`, `src/mcp`, `src/app.py`, \
                `src/hello.c`, `src/`, `host/src/main.rs`, `src/config.rs:3`.";
    assert_eq!(
        crate_paths(text),
        [
            "src/config/",
            "src/lib.rs",
            "src/mcp",
            "src/",
            "src/config.rs"
        ]
    );
    let root = workspace_root();
    // One in the runtime, one in the server, one in both.
    for real in ["src/runtime.rs", "src/config/", "src/lib.rs"] {
        assert!(in_a_crate(&root, real), "{real}");
    }
    // What the docs named before the runtime's tree was regrouped (issue 44).
    for drifted in [
        "src/config.rs",
        "src/runtime",
        "src/scaffold.rs",
        "src/lifecycle.rs",
    ] {
        assert!(!in_a_crate(&root, drifted), "{drifted}");
    }
}

#[test]
fn a_template_needs_the_directory_before_its_first_placeholder() {
    let root = workspace_root();
    for real in ["README.md", "sdk-c/VERSION", "scripts/setup-go.sh", "docs/"] {
        assert!(exists_or_template(&root, real), "{real}");
    }
    for template in [
        "scripts/setup-LANG.sh",
        "host/tests/all/LANG_plugins.rs",
        "plugins/NAME.wasm",
        "host/templates/LANG/",
        "docs/LANG.md",
    ] {
        assert!(exists_or_template(&root, template), "{template}");
    }
    for drifted in [
        "host/src/inspect.rs",
        "host/src/scaffold.rs",
        "scripts/gone/setup-LANG.sh",
        "sdk-c/src/gone.c",
    ] {
        assert!(!exists_or_template(&root, drifted), "{drifted}");
    }
}

#[test]
fn the_top_level_directories_are_read_from_the_checkout() {
    let dirs = top_level_dirs(&workspace_root());
    for expected in ["host/", "scripts/", "sdk-c/", "plugins/", ".ci/", "docs/"] {
        assert!(dirs.iter().any(|d| d == expected), "{expected} in {dirs:?}");
    }
    assert!(
        !dirs.iter().any(|d| d == "target/" || d == ".git/"),
        "{dirs:?}"
    );
}
