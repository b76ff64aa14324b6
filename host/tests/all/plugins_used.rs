//! Every test plugin under `plugins/testing/` is used by some test here, as
//! wasmtime's `foreach_*!` macros make every test program have a test: a
//! plugin nobody runs is dead weight in every build, or a test that was lost.

#![allow(clippy::unwrap_used)]

use std::path::Path;

/// The constant `tests/artifacts` gives a plugin: its name in upper snake
/// case (`legacy011` → `LEGACY011`).
fn const_name(plugin: &str) -> String {
    plugin
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Every `.rs` file under `dir`, as text.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
}

/// Whether `text` names `word` as a whole identifier.
fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[test]
fn every_testing_plugin_is_used_by_a_test() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/all");
    let mut files = Vec::new();
    sources(&dir, &mut files);
    let this = file!().rsplit('/').next().unwrap();
    files.retain(|(path, _)| !path.ends_with(this));
    assert!(!test_artifacts::TESTING_PLUGINS.is_empty());
    let unused: Vec<&str> = test_artifacts::TESTING_PLUGINS
        .iter()
        .copied()
        .filter(|plugin| {
            let konst = const_name(plugin);
            !files.iter().any(|(_, text)| names(text, &konst))
        })
        .collect();
    assert!(
        unused.is_empty(),
        "plugins/testing/ holds plugins no test under host/tests/all uses \
         (by their test_artifacts constant): {unused:?}"
    );
}

#[test]
fn the_identifier_match_is_whole_words_only() {
    assert!(names("use test_artifacts::{PANIC, X};", "PANIC"));
    assert!(!names("PANIC_AGAIN", "PANIC"));
    assert!(!names("NOPANIC", "PANIC"));
    assert_eq!(const_name("legacy011"), "LEGACY011");
}
