//! The compile cache, file pinning and `mcp-wasm-host check`, against the
//! real binary: a second start loads from the cache, damaged entries are
//! discarded and recompiled, `--no-cache` writes nothing, a pinned digest
//! that does not match keeps the plugin out, and `check` reports one line per
//! file with the right exit code.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R3 as VERSION;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{Server, binary, plugin_dir};
use serde_json::json;

/// The `.cwasm` entries in `dir`.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.extension().is_some_and(|e| e == "cwasm"));
    found.sort();
    found
}

/// Starts a server on `plugins` with `args`, checks the panic plugin's `ok`
/// tool works, and returns its stderr once it has stopped.
fn serve_and_call(plugins: &Path, args: &[&str]) -> String {
    let mut server = Server::initialized(plugins, args, VERSION);
    let result = server.call_ok("ok", json!({}));
    assert_eq!(crate::common::text(&result), "ok");
    server.close_stdin();
    server.wait();
    server.stderr()
}

fn run(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(binary());
    command.env(crate::common::WAIT_FOR_LOAD, "1");
    command.args(args).env_remove("RUST_LOG");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

#[test]
fn a_second_start_loads_from_the_cache() {
    let plugins = plugin_dir(&[test_artifacts::PANIC]);
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().join("nested/cache");
    let arg = cache_dir.to_str().unwrap();

    let first = serve_and_call(plugins.path(), &["--cache-dir", arg]);
    assert!(first.contains("compiled plugin=\"panic\""), "{first}");
    assert!(!first.contains("loaded from cache"), "{first}");
    assert_eq!(entries(&cache_dir).len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&cache_dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "the cache directory is private");
    }

    let second = serve_and_call(plugins.path(), &["--cache-dir", arg]);
    assert!(
        second.contains("loaded from cache plugin=\"panic\""),
        "{second}"
    );
    assert!(!second.contains("compiled plugin"), "{second}");
}

#[test]
fn damaged_entries_are_discarded_and_recompiled() {
    let plugins = plugin_dir(&[test_artifacts::PANIC]);
    let cache = tempfile::tempdir().unwrap();
    let arg = cache.path().to_str().unwrap();
    serve_and_call(plugins.path(), &["--cache-dir", arg]);
    let [entry] = &entries(cache.path())[..] else {
        panic!("expected one entry")
    };
    let good = std::fs::read(entry).unwrap();

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0xff;
    flipped[middle + 1] ^= 0x5a;
    let mut bad_header = good.clone();
    bad_header[20] ^= 0x01;
    let damages: [(&str, Vec<u8>); 4] = [
        ("flipped bytes", flipped),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("truncated to a few bytes", good[..10].to_vec()),
        ("a header for another key", bad_header),
    ];
    for (what, bytes) in damages {
        std::fs::write(entry, &bytes).unwrap();
        let stderr = serve_and_call(plugins.path(), &["--cache-dir", arg]);
        assert!(
            stderr.contains("discarding the compile cache entry")
                && stderr.contains("compiled plugin=\"panic\""),
            "{what}: {stderr}"
        );
        assert!(!stderr.contains("loaded from cache"), "{what}: {stderr}");
        assert_eq!(
            std::fs::read(entry).unwrap(),
            good,
            "{what}: the entry is written again"
        );
    }
}

#[test]
fn an_entry_of_another_plugin_is_refused() {
    let cache = tempfile::tempdir().unwrap();
    let arg = cache.path().to_str().unwrap();
    let panic = plugin_dir(&[test_artifacts::PANIC]);
    serve_and_call(panic.path(), &["--cache-dir", arg]);
    let [mine] = &entries(cache.path())[..] else {
        panic!("expected one entry")
    };
    let both = plugin_dir(&[test_artifacts::PANIC, test_artifacts::ERRORS]);
    serve_and_call(both.path(), &["--cache-dir", arg]);
    let theirs = entries(cache.path())
        .into_iter()
        .find(|p| p != mine)
        .unwrap();
    // A valid entry, whole and stamped, but another plugin's, put in the
    // place of the panic plugin's.
    std::fs::rename(&theirs, mine).unwrap();
    let stderr = serve_and_call(panic.path(), &["--cache-dir", arg]);
    assert!(
        stderr.contains("discarding the compile cache entry (its header names another key)")
            && stderr.contains("compiled plugin=\"panic\""),
        "{stderr}"
    );
    assert!(!stderr.contains("loaded from cache"), "{stderr}");
}

/// The entries of the incremental compilation cache in the cache `dir`.
fn incremental_entries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for shard in std::fs::read_dir(dir.join("incremental")).unwrap() {
        for file in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            found.push(file.unwrap().path());
        }
    }
    found.sort();
    found
}

#[test]
fn damaged_incremental_entries_are_discarded_and_the_plugin_still_loads() {
    let plugins = plugin_dir(&[test_artifacts::PANIC]);
    let cache = tempfile::tempdir().unwrap();
    let arg = cache.path().to_str().unwrap();
    serve_and_call(plugins.path(), &["--cache-dir", arg]);
    let functions = incremental_entries(cache.path());
    assert!(functions.len() >= 4, "{functions:?}");
    let good: Vec<Vec<u8>> = functions
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();

    // Every entry damaged: a flipped byte, truncated, emptied, and two
    // valid entries swapped (each then names another key).
    for (i, (path, bytes)) in functions.iter().zip(&good).enumerate() {
        let damaged = match i % 4 {
            0 => {
                let mut flipped = bytes.clone();
                *flipped.last_mut().unwrap() ^= 0x01;
                flipped
            }
            1 => bytes[..bytes.len() - 1].to_vec(),
            2 => Vec::new(),
            _ => good[i - 1].clone(),
        };
        std::fs::write(path, damaged).unwrap();
    }
    // The compiled component goes too, so the plugin is compiled again.
    std::fs::remove_file(&entries(cache.path())[0]).unwrap();
    let stderr = serve_and_call(plugins.path(), &["--cache-dir", arg]);
    assert!(
        stderr.contains("discarding the incremental cache entry")
            && stderr.contains("compiled plugin=\"panic\""),
        "{stderr}"
    );
    // Every entry found damaged was deleted, then written again whole when
    // its function was compiled. (Not every entry is looked up again: a few
    // of Cranelift's keys differ from one process to the next.)
    let discarded: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("discarding the incremental cache entry"))
        .map(|l| {
            l[..l.find(": discarding").unwrap()]
                .rsplit(' ')
                .next()
                .unwrap()
        })
        .collect();
    assert!(discarded.len() >= functions.len() / 2, "{stderr}");
    for path in discarded {
        let i = functions.iter().position(|p| p.to_str() == Some(path));
        let i = i.unwrap_or_else(|| panic!("{path} is not an entry"));
        if let Ok(bytes) = std::fs::read(path) {
            assert_eq!(bytes, good[i], "{path} is written again whole");
        }
    }
}

#[test]
fn no_cache_writes_nothing() {
    let plugins = plugin_dir(&[test_artifacts::PANIC]);
    let home = tempfile::tempdir().unwrap();
    let cache_dir = home.path().join("explicit");
    let stderr = serve_and_call(
        plugins.path(),
        &["--no-cache", "--cache-dir", cache_dir.to_str().unwrap()],
    );
    assert!(stderr.contains("compiled plugin=\"panic\""), "{stderr}");
    assert!(!cache_dir.exists());

    // The default directory, by the XDG rule, is not touched either; without
    // --no-cache it is used.
    let xdg = home.path().join("xdg");
    let dir = plugins.path().to_str().unwrap();
    let out = run(&["check", dir, "--no-cache"], &[("XDG_CACHE_HOME", &xdg)]);
    assert!(out.status.success(), "{out:?}");
    assert!(!xdg.exists());
    let out = run(&["check", dir], &[("XDG_CACHE_HOME", &xdg)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(entries(&xdg.join("mcp-wasm-host")).len(), 1);
}

#[cfg(unix)]
#[test]
fn a_shared_cache_directory_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let plugins = plugin_dir(&[test_artifacts::PANIC]);
    let cache = tempfile::tempdir().unwrap();
    std::fs::set_permissions(cache.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = run(
        &[
            "check",
            plugins.path().to_str().unwrap(),
            "--cache-dir",
            cache.path().to_str().unwrap(),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stderr.contains("group- or world-writable") && stderr.contains("without a compile cache"),
        "{stderr}"
    );
    assert!(entries(cache.path()).is_empty());
}

/// The file's SHA-256 by `sha256sum`, if that tool is installed.
fn sha256sum(path: &Path) -> Option<String> {
    let out = Command::new("sha256sum").arg(path).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && text.len() >= 64).then(|| text[..64].to_string())
}

#[test]
fn a_pinned_digest_must_match() {
    let plugins = plugin_dir(&[test_artifacts::PANIC]);
    let file = plugins.path().join("panic.wasm");
    let policy = tempfile::tempdir().unwrap();
    let config = policy.path().join("mcp-wasm-host.toml");
    let wrong = "00".repeat(32);
    std::fs::write(&config, format!("[plugins.panic]\nsha256 = \"{wrong}\"\n")).unwrap();
    let dir = plugins.path().to_str().unwrap();
    let config_arg = config.to_str().unwrap();

    let out = run(&["check", dir, "--config", config_arg, "--no-cache"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stdout.starts_with("FAIL panic.wasm: the file's SHA-256 does not match the pinned digest")
            && stdout.contains(&format!("expected {wrong}"))
            && stdout.contains("[plugins.panic]")
            && stdout.contains(config_arg),
        "{stdout}"
    );
    let actual = stdout
        .split("actual ")
        .nth(1)
        .map(|s| s.trim().to_string())
        .unwrap();
    assert_eq!(actual.len(), 64, "{stdout}");
    if let Some(independent) = sha256sum(&file) {
        assert_eq!(actual, independent);
    }

    // serve names the file too, and serves nothing from it.
    let mut server = Server::initialized(
        plugins.path(),
        &["--config", config_arg, "--no-cache"],
        VERSION,
    );
    let (tools, _) = server.list_all_tools();
    assert!(tools.is_empty(), "{tools:?}");
    // The load's report is logged once the load has ended, maybe after the
    // list was answered: waited for.
    server.wait_for_stderr(&actual);
    let stderr = server.stderr();
    assert!(
        stderr.contains(&file.display().to_string()) && stderr.contains(&actual),
        "{stderr}"
    );
    drop(server);

    // The right digest (in upper case, too) loads.
    std::fs::write(
        &config,
        format!("[plugins.panic]\nsha256 = \"{}\"\n", actual.to_uppercase()),
    )
    .unwrap();
    let out = run(&["check", dir, "--config", config_arg, "--no-cache"], &[]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ok   panic.wasm  (2 tools)\n"
    );
}

/// The files in `dir` whose name ends in `.extension`.
fn with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.extension().is_some_and(|e| e == extension));
    found
}

#[test]
fn a_warm_start_checks_a_pin_against_the_remembered_digest_as_against_a_fresh_one() {
    let plugins = plugin_dir(&[test_artifacts::PANIC]);
    let file = plugins.path().join("panic.wasm");
    let cache = tempfile::tempdir().unwrap();
    let cache_arg = cache.path().to_str().unwrap();
    let dir = plugins.path().to_str().unwrap();
    let policy = tempfile::tempdir().unwrap();
    let config = policy.path().join("mcp-wasm-host.toml");
    let config_arg = config.to_str().unwrap();
    let check = |pin: &str| {
        std::fs::write(&config, format!("[plugins.panic]\nsha256 = \"{pin}\"\n")).unwrap();
        let out = run(
            &[
                "check",
                dir,
                "--config",
                config_arg,
                "--cache-dir",
                cache_arg,
            ],
            &[],
        );
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // A cold start computes the digest (a wrong pin shows the actual one)
    // and remembers it once the file proved a component.
    let wrong = "00".repeat(32);
    let (code, cold) = check(&wrong);
    assert_eq!(code, Some(1), "{cold}");
    let actual = cold.split("actual ").nth(1).unwrap().trim().to_string();
    if let Some(independent) = sha256sum(&file) {
        assert_eq!(actual, independent);
    }
    assert!(
        with_extension(cache.path(), "sha256").is_empty(),
        "a refused file is not remembered"
    );
    let (code, out) = check(&actual);
    assert_eq!(code, Some(0), "{out}");
    let [remembered] = &with_extension(cache.path(), "sha256")[..] else {
        panic!("expected one remembered digest")
    };
    // Warm: the same refusal, the same actual digest, and the right pin loads.
    let (code, warm) = check(&wrong);
    assert_eq!((code, warm.as_str()), (Some(1), cold.as_str()));
    assert_eq!(check(&actual).0, Some(0));
    // A damaged memory is discarded, never believed: the digest is computed again.
    let mut bytes = std::fs::read(remembered).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(remembered, &bytes).unwrap();
    let (code, damaged) = check(&wrong);
    assert_eq!((code, damaged.as_str()), (Some(1), cold.as_str()));
    assert_eq!(check(&actual).0, Some(0));
    // Another file's entry under this file's name: refused likewise.
    let other = plugin_dir(&[test_artifacts::BADNAME]);
    let out = run(
        &[
            "check",
            other.path().to_str().unwrap(),
            "--cache-dir",
            cache_arg,
        ],
        &[],
    );
    assert!(out.status.code().is_some(), "{out:?}");
    let entries = with_extension(cache.path(), "sha256");
    assert_eq!(entries.len(), 2, "{entries:?}");
    let foreign = entries.iter().find(|p| *p != remembered).unwrap();
    std::fs::copy(foreign, remembered).unwrap();
    let (code, swapped) = check(&wrong);
    assert_eq!((code, swapped.as_str()), (Some(1), cold.as_str()));
}

#[test]
fn check_reports_every_file() {
    let plugins = plugin_dir(&[test_artifacts::PANIC, test_artifacts::BADNAME]);
    let dir = plugins.path();
    // Two plugins whose qualified names clash: `x.y` and `x_y` both become
    // the prefix `x_y`, so the later file loses its tools.
    std::fs::copy(test_artifacts::PANIC, dir.join("x.y.wasm")).unwrap();
    std::fs::copy(test_artifacts::PANIC, dir.join("x_y.wasm")).unwrap();
    let mut corrupt = std::fs::read(test_artifacts::PANIC).unwrap();
    corrupt.truncate(corrupt.len() / 3);
    std::fs::write(dir.join("corrupt.wasm"), corrupt).unwrap();
    std::fs::write(dir.join("core.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(dir.join("notes.txt"), b"not a plugin").unwrap();
    let cache = tempfile::tempdir().unwrap();

    let check = || {
        run(
            &[
                "check",
                dir.to_str().unwrap(),
                "--cache-dir",
                cache.path().to_str().unwrap(),
            ],
            &[],
        )
    };
    let out = check();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{stdout}");
    let line = |name: &str| {
        *lines
            .iter()
            .find(|l| l.split_whitespace().nth(1).map(|f| f.trim_end_matches(':')) == Some(name))
            .unwrap_or_else(|| panic!("no line for {name}: {stdout}"))
    };
    assert!(line("badname.wasm").starts_with("FAIL badname.wasm: tool \"has space!\""));
    assert!(line("core.wasm").starts_with("FAIL core.wasm: this is a core WebAssembly module"));
    assert!(
        line("corrupt.wasm").starts_with("FAIL corrupt.wasm: the component is invalid or corrupt")
    );
    assert_eq!(line("panic.wasm"), "ok   panic.wasm  (2 tools)");
    assert_eq!(line("x.y.wasm"), "ok   x.y.wasm  (2 tools)");
    let clash = line("x_y.wasm");
    assert!(
        clash.starts_with("FAIL x_y.wasm: tool ")
            && clash.contains("of plugin \"x_y\" left out")
            && clash.contains("already taken by plugin \"x.y\""),
        "{clash}"
    );

    // Only good plugins: exit 0.
    for f in ["badname.wasm", "x_y.wasm", "corrupt.wasm", "core.wasm"] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    let out = check();
    assert!(out.status.success(), "{out:?}");
}

/// `check` takes component files as well as directories: a plugin author's
/// first command is `check my_tool.wasm`.
#[test]
fn check_takes_files_and_directories() {
    let plugins = plugin_dir(&[test_artifacts::PANIC, test_artifacts::BADNAME]);
    let dir = plugins.path();
    let other = tempfile::tempdir().unwrap();
    let loose = other.path().join("loose.wasm");
    std::fs::copy(test_artifacts::PANIC, &loose).unwrap();
    let empty = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.join(name).to_str().unwrap().to_owned();

    // One good file: its line, exit 0.
    let out = run(&["check", &file("panic.wasm"), "--no-cache"], &[]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ok   panic.wasm  (2 tools)\n"
    );

    // One bad file: its reason, exit 1.
    let out = run(&["check", &file("badname.wasm"), "--no-cache"], &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("FAIL badname.wasm: tool \"has space!\""),
        "{stdout}"
    );

    // Files and directories together, a file named twice loading once; an
    // empty directory is said to be empty.
    let out = run(
        &[
            "check",
            loose.to_str().unwrap(),
            dir.to_str().unwrap(),
            &file("panic.wasm"),
            empty.path().to_str().unwrap(),
            "--no-cache",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert_eq!(lines[0], "ok   loose.wasm  (2 tools)", "{stdout}");
    assert!(
        lines[1].starts_with("FAIL badname.wasm: tool \"has space!\""),
        "{stdout}"
    );
    assert_eq!(lines[2], "ok   panic.wasm  (2 tools)", "{stdout}");
    assert_eq!(
        lines[3],
        format!("no plugins (*.wasm files) in {}", empty.path().display()),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");

    // A path that is neither says so.
    let missing = dir.join("missing.wasm");
    let out = run(&["check", missing.to_str().unwrap()], &[]);
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
}

/// A `[plugins.NAME]` section is a likely typo only when no file of that
/// name exists: one whose plugin failed to load, or one with a `source`,
/// gets no typo warning (the failure speaks for itself), and a misspelt one
/// does, for every way a plugin can fail.
#[test]
fn a_section_for_a_plugin_that_failed_is_not_called_a_typo() {
    let plugins = plugin_dir(&[test_artifacts::PANIC]);
    let dir = plugins.path();
    let failing: [(&str, &[u8]); 3] = [
        ("junk", b"junk"),
        ("core", b"\0asm\x01\0\0\0"),
        ("cut", &std::fs::read(test_artifacts::PANIC).unwrap()[..64]),
    ];
    let mut policy = String::from("[plugins.panic]\nfuel = 5_000_000\n[plugins.panik]\nfuel = 5\n");
    for (name, bytes) in failing {
        std::fs::write(dir.join(format!("{name}.wasm")), bytes).unwrap();
        policy.push_str(&format!("[plugins.{name}]\nfuel = 5\n"));
    }
    policy.push_str("[plugins.remote]\nsource = \"oci://127.0.0.1:9/none:v1\"\n");
    let config = tempfile::tempdir().unwrap();
    let config = config.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, policy).unwrap();
    let out = run(
        &[
            "check",
            dir.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--no-cache",
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warned: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("matches no plugin"))
        .collect();
    assert_eq!(warned.len(), 1, "{stderr}");
    assert!(warned[0].contains("[plugins.panik]"), "{stderr}");
}
