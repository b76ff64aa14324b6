//! Programs a test needs that the build does not provide (a guest
//! toolchain, redis-server, nginx), found from the variable their setup
//! script's path is exported in, and what a test does without one: skip,
//! or fail under CI. Shared with the benchmarks (`host/benches/common/cluster.rs`
//! includes this file).
#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;

/// Whether every test must run: under CI (`CI` set to anything but empty,
/// `0` or `false`) or when `scripts/test.sh` runs the tests
/// (`MCP_WASM_HOST_REQUIRE_ALL=1`). Then a missing toolchain or server is a
/// failure, never a skip.
pub fn everything_required() -> bool {
    required_by(|var| std::env::var(var).ok())
}

/// [`everything_required`] over the variables `lookup` gives.
fn required_by(lookup: impl Fn(&str) -> Option<String>) -> bool {
    let set = |var: &str| {
        lookup(var).is_some_and(|v| !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"))
    };
    set("CI") || set("MCP_WASM_HOST_REQUIRE_ALL")
}

#[test]
fn a_missing_toolchain_fails_under_ci_and_under_the_test_script() {
    let table: &[(&[(&str, &str)], bool)] = &[
        (&[], false),
        (&[("CI", "true")], true),
        (&[("CI", "1")], true),
        (&[("CI", "false")], false),
        (&[("CI", "0")], false),
        (&[("CI", "")], false),
        (&[("MCP_WASM_HOST_REQUIRE_ALL", "1")], true),
        (&[("CI", "false"), ("MCP_WASM_HOST_REQUIRE_ALL", "1")], true),
        (&[("GITHUB_ACTIONS", "true")], false),
    ];
    for (vars, required) in table {
        assert_eq!(required_by(lookup_in(vars)), *required, "{vars:?}");
        let failed =
            std::panic::catch_unwind(|| skip_under(required_by(lookup_in(vars)), "a test of skip"))
                .is_err();
        assert_eq!(failed, *required, "skip under {vars:?}");
    }
    // And in this process's own environment, as every skip site decides.
    let failed = std::panic::catch_unwind(|| skip("a test of skip itself")).is_err();
    assert_eq!(failed, everything_required());
}

#[test]
fn a_toolchain_is_found_from_its_variable_or_path_else_skipped_naming_its_setup_script() {
    let dir = tempfile::tempdir().unwrap();
    let present = dir.path().join("present");
    std::fs::write(&present, "").unwrap();
    let absent = dir.path().join("absent");
    let tool = Toolchain {
        var: "MCP_WASM_HOST_TEST_TOOL",
        setup: "setup-test.sh",
        on_path: Some("present"),
    };
    let path = dir.path().to_str().unwrap();
    let found = |vars: &[(&str, &str)]| find_toolchain(&tool, lookup_in(vars));

    let set = [("MCP_WASM_HOST_TEST_TOOL", present.to_str().unwrap())];
    assert_eq!(found(&set).unwrap(), present);
    assert_eq!(found(&[("PATH", path)]).unwrap(), present);

    // A variable naming a missing file is not rescued by PATH.
    let set = [
        ("MCP_WASM_HOST_TEST_TOOL", absent.to_str().unwrap()),
        ("PATH", path),
    ];
    let why = found(&set).unwrap_err();
    assert!(
        why.contains("MCP_WASM_HOST_TEST_TOOL=") && why.contains("does not exist"),
        "{why}"
    );
    assert!(why.contains("$(scripts/setup-test.sh)"), "{why}");

    let why = found(&[]).unwrap_err();
    assert!(why.contains("MCP_WASM_HOST_TEST_TOOL is unset"), "{why}");
    assert!(why.contains("`present` is not on PATH"), "{why}");
    assert!(why.contains("$(scripts/setup-test.sh)"), "{why}");
}

/// A `lookup` over a fixed table of variables, for the tests of the helpers.
fn lookup_in<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |var: &str| {
        vars.iter()
            .find(|(k, _)| *k == var)
            .map(|(_, v)| v.to_string())
    }
}

/// Says that a test cannot run because `reason`: one visible `skipped:`
/// line outside CI, a panic (the test fails) under it. See
/// [`everything_required`]. A test that needs a toolchain or a server
/// finds it with [`toolchain`], which calls this.
#[track_caller]
pub fn skip(reason: impl std::fmt::Display) {
    skip_under(everything_required(), reason);
}

/// [`skip`], told whether every test must run.
#[track_caller]
fn skip_under(required: bool, reason: impl std::fmt::Display) {
    if required {
        panic!(
            "under CI (CI set, or MCP_WASM_HOST_REQUIRE_ALL=1 as scripts/test.sh sets it) \
             every test must run, but {reason}"
        );
    }
    eprintln!("skipped: {reason}");
}

/// A program a test needs that the build does not provide: a guest
/// toolchain or a server. `scripts/SETUP` installs it and prints its path,
/// which `scripts/test.sh` exports as `VAR`.
pub struct Toolchain {
    /// The variable naming the program.
    pub var: &'static str,
    /// The script under `scripts/` that installs it and prints its path.
    pub setup: &'static str,
    /// A program searched for on `PATH` when `var` is unset, where the
    /// system's own will do.
    pub on_path: Option<&'static str>,
}

/// The program `tool` names, or `None` after [`skip`] said what is missing
/// and which setup script provides it (under CI, [`skip`] fails the test).
#[track_caller]
pub fn toolchain(tool: &Toolchain) -> Option<PathBuf> {
    match find_toolchain(tool, |var| std::env::var(var).ok()) {
        Ok(path) => Some(path),
        Err(why) => {
            skip(why);
            None
        }
    }
}

/// [`toolchain`] over the variables `lookup` gives: the path, or what is
/// missing and how to get it.
fn find_toolchain(
    tool: &Toolchain,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<PathBuf, String> {
    let Toolchain {
        var,
        setup,
        on_path,
    } = tool;
    let how = format!("run with {var}=$(scripts/{setup}), as scripts/test.sh does");
    if let Some(value) = lookup(var).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(&value);
        return if path.exists() {
            Ok(path)
        } else {
            Err(format!("{var}={value} does not exist; {how}"))
        };
    }
    let Some(name) = on_path else {
        return Err(format!("{var} is unset; {how}"));
    };
    let dirs = lookup("PATH").unwrap_or_default();
    std::env::split_paths(&dirs)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{var} is unset and `{name}` is not on PATH; {how}"))
}
