//! `mcp-wasm-host new`, run as a user runs it: the files it writes, what it
//! refuses, and, for `--sdk` (a project on a checkout's SDK, for work on the
//! SDKs), that the Rust and C projects it writes build and pass their own
//! test with the commands their README gives (the first `sh` block under
//! `## Build` and under `## Test`, run with bash in the project).
//!
//! A project on the SDK packages, the default, is built and tested for
//! every language outside the clone, from the packed SDKs and the installed
//! host, by tests/python/test_new_outside.py.
//!
//! The C toolchain comes from `MCP_WASM_HOST_C` (else `clang-19` on PATH),
//! as `scripts/test.sh` sets it; Rust needs the wasm32-wasip2 target. The
//! projects call the binary under test (`MCP_WASM_HOST_BIN`) with the
//! tests' compile cache. Each project is made afresh in
//! `target/new-projects/LANG/demo-LANG`, the same path every run, so that
//! caches hold: the Rust project builds in the shared target directory
//! `target/new-projects/cargo`, and the C project's SDK tool is the
//! workspace's.
#![allow(clippy::unwrap_used)]

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::Instant;

use mcp_wasm_host::scaffold::{LANGUAGES, ReadmeCommands};

/// Runs `mcp-wasm-host new ARGS…`.
fn new(args: &[&str]) -> Output {
    Command::new(crate::common::binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .arg("new")
        .args(args)
        .env_remove("MCP_WASM_HOST_SDK")
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every file below `dir`, as paths relative to it with `/`, sorted.
fn files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).unwrap();
                out.push(relative.to_str().unwrap().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn new_writes_each_language_s_project_with_its_name_and_its_sdk_filled_in() {
    let sdk = crate::common::workspace_root().canonicalize().unwrap();
    let sdk = sdk.to_str().unwrap();
    let cases = LANGUAGES
        .iter()
        .flat_map(|l| [(l.name, None), (l.name, Some(sdk))]);
    for (lang, checkout) in cases {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().to_str().unwrap();
        let mut args = vec!["--lang", lang, "--dir", dir, "my-tool"];
        args.extend(checkout.iter().flat_map(|sdk| ["--sdk", *sdk]));
        let out = new(&args);
        assert!(out.status.success(), "{lang}: {}", stderr(&out));
        let project = parent.path().join("my-tool");
        let written = files(&project);
        let listed = String::from_utf8_lossy(&out.stdout);
        for file in &written {
            assert!(
                listed.contains(&format!("  {file}\n")),
                "{lang}: {file} not listed:\n{listed}"
            );
        }
        assert!(
            written.contains(&"README.md".to_string()),
            "{lang}: {written:?}"
        );
        assert!(
            written.contains(&".gitignore".to_string()),
            "{lang}: {written:?}"
        );
        let mut names_sdk = false;
        for file in &written {
            let text = std::fs::read_to_string(project.join(file)).unwrap();
            assert!(
                !text.contains("@NAME@") && !text.contains("@VERSION@"),
                "{lang}: {file}"
            );
            names_sdk |= text.contains(sdk) && file != "README.md";
            #[cfg(unix)]
            if text.starts_with("#!") {
                use std::os::unix::fs::PermissionsExt as _;
                let mode = std::fs::metadata(project.join(file))
                    .unwrap()
                    .permissions()
                    .mode();
                assert_eq!(mode & 0o111, 0o111, "{lang}: {file} is executable");
            }
        }
        assert_eq!(
            names_sdk,
            checkout.is_some(),
            "{lang}: a build file names the checkout at {sdk} if and only if --sdk names it"
        );
        let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
        assert!(readme.starts_with("# my-tool\n"), "{lang}: {readme}");
        for line in ReadmeCommands::of(&readme).build.unwrap().lines() {
            assert!(
                listed.contains(&format!("  {line}\n")),
                "{lang}: {line} is not printed:\n{listed}"
            );
        }
    }
}

#[test]
fn new_writes_into_an_existing_empty_directory() {
    let parent = tempfile::tempdir().unwrap();
    std::fs::create_dir(parent.path().join("tools")).unwrap();
    let out = new(&[
        "--lang",
        "c",
        "--dir",
        parent.path().to_str().unwrap(),
        "tools",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(parent.path().join("tools/src/tools.c").is_file());
}

/// Runs `new --lang LANG --dir DIR ARGS… -- NAME`, which must fail with
/// `code` and a message holding `says`, writing nothing into DIR unless it
/// held something already.
fn refused(lang: &str, dir: &Path, args: &[&str], name: &str, code: i32, says: &str) {
    let before = files(dir);
    let mut all = vec!["--lang", lang, "--dir", dir.to_str().unwrap()];
    all.extend(args);
    all.extend(["--", name]);
    let out = new(&all);
    assert_eq!(out.status.code(), Some(code), "{all:?}: {}", stderr(&out));
    assert!(stderr(&out).contains(says), "{all:?}: {}", stderr(&out));
    assert_eq!(files(dir), before, "{all:?}: nothing is written");
}

#[test]
fn new_refuses_a_directory_that_is_not_empty_and_leaves_it_as_it_was() {
    let parent = tempfile::tempdir().unwrap();
    let project = parent.path().join("tools");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("README.md"), "mine").unwrap();
    std::fs::write(parent.path().join("file"), "a file").unwrap();
    for name in ["tools", "file"] {
        refused(
            "python",
            parent.path(),
            &[],
            name,
            73,
            "is not an empty directory",
        );
    }
    let mine = std::fs::read_to_string(project.join("README.md")).unwrap();
    assert_eq!(mine, "mine");
}

#[test]
fn new_refuses_a_name_some_language_could_not_use_saying_which_characters_a_name_may_hold() {
    let parent = tempfile::tempdir().unwrap();
    for name in ["My-Tool", "1tool", "my.tool", "my tool", "-x", "../x", ""] {
        let rule = "a-z, 0-9, `-` and `_`, starting with a letter";
        refused("rust", parent.path(), &[], name, 2, rule);
    }
}

#[test]
fn new_refuses_a_language_it_has_no_template_for_listing_those_it_has() {
    let parent = tempfile::tempdir().unwrap();
    let known = "[possible values: rust, python, ts, js, c, go]";
    refused("cobol", parent.path(), &[], "tools", 2, known);
}

#[test]
fn new_refuses_an_sdk_checkout_without_the_language_s_sdk() {
    let parent = tempfile::tempdir().unwrap();
    let fake = tempfile::tempdir().unwrap();
    let sdk = ["--sdk", fake.path().to_str().unwrap()];
    let says = "it has no wit/plugin.wit; pass --sdk";
    refused("rust", parent.path(), &sdk, "a", 66, says);

    std::fs::create_dir(fake.path().join("wit")).unwrap();
    std::fs::write(fake.path().join("wit/plugin.wit"), "").unwrap();
    let says = "with the ts SDK: it has no sdk-js/package.json";
    refused("ts", parent.path(), &sdk, "a", 66, says);

    let gone = fake.path().join("gone");
    let says = "is not an mcp-wasm-host checkout";
    refused(
        "c",
        parent.path(),
        &["--sdk", gone.to_str().unwrap()],
        "a",
        66,
        says,
    );
}

// ---------------------------------------------------------------------------
// Each language's project, built and tested
// ---------------------------------------------------------------------------

/// What a language's build needs from the test's environment.
struct Toolchain {
    /// Environment variables to set.
    env: Vec<(&'static str, OsString)>,
}

/// Makes the `lang` project, builds it and runs its test with the commands
/// of its README, in the environment `toolchain` adds.
fn build_and_test(lang: &str, toolchain: Toolchain) {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let root = crate::common::workspace_root();
    let parent = crate::common::target_dir().join("new-projects").join(lang);
    let name = format!("demo-{lang}");
    let project = parent.join(&name);
    if parent.exists() {
        std::fs::remove_dir_all(&parent).unwrap();
    }
    let sdk = root.to_str().unwrap();
    let out = new(&[
        "--lang",
        lang,
        "--dir",
        parent.to_str().unwrap(),
        "--sdk",
        sdk,
        &name,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    let commands = ReadmeCommands::of(&readme);

    let run = |what: &str, script: &str| {
        let mut command = Command::new("bash");
        command
            .args(["-e", "-c", script])
            .current_dir(&project)
            .env("MCP_WASM_HOST_BIN", crate::common::binary())
            .env(
                "MCP_WASM_HOST_CACHE_DIR",
                crate::common::target_dir().join("test-cache"),
            )
            .env_remove("CARGO_TARGET_DIR")
            .envs(toolchain.env.iter().map(|(k, v)| (k, v)));
        let started = Instant::now();
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "{lang}: the README's {what} command failed:\n{script}\n--- stdout\n{}\n--- stderr\n{}",
            String::from_utf8_lossy(&out.stdout),
            stderr(&out)
        );
        started.elapsed()
    };
    let build = run("build", &commands.build.unwrap());
    let test = run("test", &commands.test.unwrap());
    eprintln!("{lang}: build {build:.1?}, test {test:.1?}");
}

#[test]
fn a_new_rust_project_builds_and_passes_its_test() {
    let target = crate::common::target_dir().join("new-projects/cargo");
    build_and_test(
        "rust",
        Toolchain {
            env: vec![("CARGO_TARGET_DIR", target.into_os_string())],
        },
    );
}

#[test]
fn a_new_c_project_builds_and_passes_its_test() {
    let Some(clang) = crate::common::toolchain(&crate::common::C) else {
        return;
    };
    build_and_test(
        "c",
        Toolchain {
            env: vec![("MCP_WASM_HOST_C", clang.into_os_string())],
        },
    );
}
