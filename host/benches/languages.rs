//! Cost per guest language: the same tool, `word_count`, written with each
//! language's SDK (Rust: `plugins/testing/wordcount`; the others:
//! `host/benches/guests/LANG/wordcount`), built from source by the
//! project's own build scripts, and measured against the Rust floor in the
//! same run:
//!
//! - **size** of the component file;
//! - **build**: source to component, with the SDK and toolchain already
//!   installed (Rust: the plugin crate alone, its dependencies built);
//! - **load**: `Runtime::load_files` with no compile cache: Cranelift
//!   compiles the component, then the host lists its tools;
//! - **edit to answer**: the same, for an edited copy of the tool (its
//!   description changed, rebuilt; Rust: the same component with a custom
//!   section added), with Cranelift's incremental compilation cache warmed
//!   by loading the original once: load and first call, as `serve` does
//!   when a file changes, the language having been seen before; its ratio
//!   is to the language's own load with no cache;
//! - **edit to answer, serve's default**: the same with `serve`'s default
//!   quick first compiles (`QuickCompile::Large`): a component of 4 MiB or
//!   more is compiled by Winch, and answers on Winch's code;
//! - **first call**: spawning `mcp-wasm-host serve` with a warm compile
//!   cache until the first `tools/call` answer (`initialize`, then the call);
//! - **call**: a call on a fresh instance, in the host (`Runtime::call`:
//!   new store, instantiate, call, drop), p50 over round-robin rounds;
//! - **reused call**: the same call on a warm instance, the plugin's policy
//!   opting in to reuse (`reuse_instances = 1000`), p50 in the same rounds,
//!   and its ratio to the language's fresh-instance call;
//! - **fuel** the call burnt, and the **memory** of its instance: the
//!   largest linear memory it reached (what the audit record reports);
//! - **page faults** per call (minor faults of the whole process over a
//!   separate loop of calls): what restoring an instance's memory image
//!   costs the kernel;
//! - **resident per instance**: 16 calls held alive at once (each probe's
//!   `word_count` logs a marker line when given it as its text, and the
//!   bench's log callback waits there until all 16 have logged, each on its
//!   own thread), the growth of the process's resident memory (`VmRSS`)
//!   from before the calls to that moment, divided by 16; and the
//!   **server's resident memory** with 16 in flight: the real binary's
//!   `VmRSS` serving that language's probe alone after its first call
//!   (warm cache), plus those 16 instances.
//!
//! The row marked "before" builds the same source without a build-time
//! step this repository adds, in the same run: Go without pre-initializing
//! (`MCP_WASM_HOST_GO_PREINIT=0`).
//!
//! Run: `cargo bench -p mcp-wasm-host --bench languages` (`-- --quick` for
//! a short run, `-- --only Python,JavaScript` for those languages and the
//! Rust floor). To profile or compare engine settings without rebuilding
//! and recompiling every time: `-- --components DIR` takes each language's
//! component from `DIR/LANG.wasm` (`rust`, `c`, `go`, `js`, `python`; a
//! missing one is left out) instead of building it, `-- --cache DIR` keeps
//! compiled code in a compile cache there between runs, and `-- --calls`
//! measures only the calls (no load, no first call). The build scripts install what they need (componentize-py,
//! componentize-js, clang-19 and wasi-libc, Go) as `scripts/test.sh` does;
//! a language whose build fails is reported and left out.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_wasm_host::runtime::{
    CallEvents, Caller, CompileCache, DefaultPolicies, EngineSettings, INCREMENTAL_CACHE_CAP,
    IncrementalStore, Limits, LogLevel, NoEvents, Progress, QuickCompile, Runtime, ToolOutput,
};
use serde_json::{Map, Value, json};

/// One language's probe: its name, and how to build it.
struct Language {
    name: &'static str,
    /// Its file's name under `--components DIR`.
    file: &'static str,
    /// The build script and the directory of its `wordcount` source
    /// (`None`: the Rust floor, built by cargo).
    script: Option<(&'static str, &'static str)>,
    /// Environment for the build script: the rows marked "before" build
    /// the same source as before a build-time change, in the same run.
    env: &'static [(&'static str, &'static str)],
}

const LANGUAGES: &[Language] = &[
    Language {
        name: "Rust (floor)",
        file: "rust",
        script: None,
        env: &[],
    },
    Language {
        name: "C",
        file: "c",
        script: Some(("scripts/build-c-plugin.sh", "host/benches/guests/c")),
        env: &[],
    },
    Language {
        name: "Go, before",
        file: "go-before",
        script: Some(("scripts/build-go-plugin.sh", "host/benches/guests/go")),
        env: &[("MCP_WASM_HOST_GO_PREINIT", "0")],
    },
    Language {
        name: "Go",
        file: "go",
        script: Some(("scripts/build-go-plugin.sh", "host/benches/guests/go")),
        env: &[],
    },
    Language {
        name: "JavaScript",
        file: "js",
        script: Some(("scripts/build-js-plugin.sh", "host/benches/guests/js")),
        env: &[],
    },
    Language {
        name: "Python",
        file: "python",
        script: Some((
            "scripts/build-python-plugin.sh",
            "host/benches/guests/python",
        )),
        env: &[],
    },
];

/// What was measured of one language.
#[derive(Default)]
struct Row {
    name: &'static str,
    size: u64,
    build: Duration,
    load: Duration,
    edit_to_answer: Duration,
    /// Edit to answer as `serve` does it by default: components of 4 MiB
    /// or more compiled by Winch first (`QuickCompile::Large`).
    quick_edit: Duration,
    first_call: Duration,
    call: Duration,
    reused_call: Duration,
    fuel: u64,
    memory: u64,
    faults: u64,
    /// Resident memory per instance, 16 alive at once.
    resident: u64,
    /// The real server's resident memory serving this probe alone, idle
    /// after its first call.
    server_idle: u64,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Builds `language`'s probe into `out`, returning the component and the
/// build's wall time, or why it could not be built.
fn build(language: &Language, out: &Path) -> Result<(PathBuf, Duration), String> {
    let root = workspace_root();
    let source = language.script.map(|(_, source)| root.join(source));
    build_from(language, source.as_deref(), &out.join(language.name))
}

/// Builds `language`'s probe from `source` (for Rust, always the plugin
/// crate) into `dir`.
fn build_from(
    language: &Language,
    source: Option<&Path>,
    dir: &Path,
) -> Result<(PathBuf, Duration), String> {
    let root = workspace_root();
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let (Some((script, _)), Some(source)) = (language.script, source) else {
        // The plugin crate alone: its dependencies stay built.
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let common = [
            "-p",
            "plugin-wordcount",
            "--target",
            "wasm32-wasip2",
            "--profile",
            "guest",
        ];
        // The guest build's own target directory, beside the host's
        // (tests/artifacts/build.rs).
        let target_dir = Path::new(env!("CARGO_BIN_EXE_mcp-wasm-host"))
            .ancestors()
            .nth(2)
            .expect("the binary is TARGET_DIR/PROFILE/mcp-wasm-host")
            .join("wasm-plugins");
        let clean = Command::new(&cargo)
            .arg("clean")
            .args(common)
            .arg("--target-dir")
            .arg(&target_dir)
            .current_dir(&root)
            .output()
            .map_err(|e| e.to_string())?;
        if !clean.status.success() {
            return Err(String::from_utf8_lossy(&clean.stderr).into_owned());
        }
        let t = Instant::now();
        let run = Command::new(&cargo)
            .arg("build")
            .args(common)
            .args(["--locked", "--target-dir"])
            .arg(&target_dir)
            .current_dir(&root)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .output()
            .map_err(|e| e.to_string())?;
        let elapsed = t.elapsed();
        if !run.status.success() {
            return Err(String::from_utf8_lossy(&run.stderr).into_owned());
        }
        let built = target_dir.join("wasm32-wasip2/guest/plugin_wordcount.wasm");
        let component = dir.join("rust-wordcount.wasm");
        std::fs::copy(built, &component).map_err(|e| e.to_string())?;
        return Ok((component, elapsed));
    };
    if !root.join(script).is_file() || !source.is_dir() {
        return Err(format!(
            "{script} or {} is not in this checkout",
            source.display()
        ));
    }
    // Empty caches, so the C and JavaScript scripts build instead of
    // copying an earlier build.
    let cache = dir.join("cache");
    let t = Instant::now();
    let run = Command::new(root.join(script))
        .arg(dir)
        .arg("wordcount")
        .env("MCP_WASM_HOST_PLUGIN_SRC", source)
        .env("MCP_WASM_HOST_C_CACHE", &cache)
        .env("MCP_WASM_HOST_JS_CACHE", &cache)
        .env("MCP_WASM_HOST_GO_CACHE", &cache)
        .envs(language.env.iter().copied())
        .current_dir(&root)
        .output()
        .map_err(|e| e.to_string())?;
    let elapsed = t.elapsed();
    if !run.status.success() {
        let stderr = String::from_utf8_lossy(&run.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
    Ok((dir.join("wordcount.wasm"), elapsed))
}

fn arguments() -> Map<String, Value> {
    let text = "The quick brown fox jumps over the lazy dog.\n".repeat(24);
    json!({ "text": text }).as_object().unwrap().clone()
}

/// Calls one warm instance serves in the reused-call measure.
const REUSE: u32 = 1000;

/// No rate limit; warm instances serving `reuse` calls each (0: fresh
/// instances).
fn policies(reuse: u32) -> Arc<DefaultPolicies> {
    Arc::new(DefaultPolicies {
        limits: Limits {
            rate_limit_per_minute: 0,
            reuse_instances: reuse,
            ..Limits::default()
        },
    })
}

/// The description every probe gives its tool, and the edit made to it.
const DESCRIPTION: (&str, &str) = ("Counts the words", "Counts all the words");

/// Builds an edited copy of `language`'s probe (its tool's description
/// changed) into `out`; for Rust, whose probe is a workspace crate, the
/// component `original` with a custom section added.
fn edited(language: &Language, original: &Path, out: &Path) -> Result<PathBuf, String> {
    let dir = out.join(format!("{}-edited", language.name));
    let Some((_, source)) = language.script else {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let wasm = std::fs::read(original).map_err(|e| e.to_string())?;
        let copy = dir.join("wordcount.wasm");
        std::fs::write(&copy, common::startup::tagged(&wasm, "edited"))
            .map_err(|e| e.to_string())?;
        return Ok(copy);
    };
    let src = dir.join("src");
    let mut edits = 0;
    copy_edited(&workspace_root().join(source), &src, &mut edits).map_err(|e| e.to_string())?;
    if edits == 0 {
        return Err(format!("no {:?} in {source}", DESCRIPTION.0));
    }
    build_from(language, Some(&src), &dir.join("build")).map(|(wasm, _)| wasm)
}

/// Copies the directory `from` to `to`, with [`DESCRIPTION`] edited in
/// every text file; counts the files edited.
fn copy_edited(from: &Path, to: &Path, edits: &mut usize) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_edited(&entry.path(), &target, edits)?;
            continue;
        }
        let bytes = std::fs::read(entry.path())?;
        match String::from_utf8(bytes) {
            Ok(text) if text.contains(DESCRIPTION.0) => {
                *edits += 1;
                std::fs::write(target, text.replace(DESCRIPTION.0, DESCRIPTION.1))?;
            }
            Ok(text) => std::fs::write(target, text)?,
            Err(e) => std::fs::write(target, e.into_bytes())?,
        }
    }
    Ok(())
}

/// The time from an edited file to its first call's answer when the
/// language was seen before: a runtime with the incremental cache in
/// `store_dir` (and no compile cache) loads `component` and calls it.
fn edit_to_answer(
    rt: &tokio::runtime::Runtime,
    component: &Path,
    store_dir: &Path,
    quick: QuickCompile,
) -> Duration {
    let settings = EngineSettings {
        incremental: Some(Arc::new(
            IncrementalStore::open(store_dir, INCREMENTAL_CACHE_CAP).unwrap(),
        )),
        quick,
        ..EngineSettings::default()
    };
    let runtime = Runtime::new(&settings, policies(0)).unwrap();
    let t = Instant::now();
    let report = rt.block_on(runtime.load_files(&[component.to_path_buf()]));
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let out = rt.block_on(word_count(&runtime));
    let elapsed = t.elapsed();
    assert!(!out.is_error);
    elapsed
}

/// A runtime serving `component` alone under `policies(reuse)`, and the
/// time its load took (no compile cache: compile, then list the tools).
fn load(rt: &tokio::runtime::Runtime, component: &Path, reuse: u32) -> (Runtime, Duration) {
    let runtime = Runtime::new(&EngineSettings::default(), policies(reuse)).unwrap();
    let t = Instant::now();
    let report = rt.block_on(runtime.load_files(&[component.to_path_buf()]));
    let elapsed = t.elapsed();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    (runtime, elapsed)
}

/// A runtime serving `component` alone under `policies(reuse)`, its
/// compiled code taken from `cache` when there.
fn load_cached(
    rt: &tokio::runtime::Runtime,
    component: &Path,
    reuse: u32,
    cache: Option<CompileCache>,
) -> Runtime {
    let runtime = Runtime::new(&EngineSettings::default(), policies(reuse))
        .unwrap()
        .with_cache(cache);
    let report = rt.block_on(runtime.load_files(&[component.to_path_buf()]));
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    runtime
}

/// A writer that keeps what the tracing subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The number after `field=` in a line of text.
fn field(text: &str, field: &str) -> u64 {
    let at = text.find(&format!("{field}=")).unwrap() + field.len() + 1;
    text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

/// One call with the audit record captured: (fuel burnt, peak memory).
fn audited_call(rt: &tokio::runtime::Runtime, runtime: &Runtime) -> (u64, u64) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let out = rt
            .block_on(runtime.call(
                "word_count",
                Some(arguments()),
                &Caller::new(),
                Arc::new(NoEvents),
            ))
            .result
            .unwrap();
        assert!(!out.is_error);
    });
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("peak_memory="))
        .unwrap_or_else(|| panic!("no audit record in {text}"));
    (field(line, "fuel_used"), field(line, "peak_memory"))
}

/// The text on which every probe's `word_count` logs it before counting
/// (`plugins/testing/wordcount` and `host/benches/guests/*/wordcount`).
const HOLD: &str = "hold: log this line";

/// Instances held alive at once in the memory measure.
const IN_FLIGHT: usize = 16;

/// Call events that hold each call logging [`HOLD`] until [`IN_FLIGHT`]
/// calls have, samples the resident memory then, and lets them all go.
struct Hold {
    arrived: std::sync::Barrier,
    sampled: std::sync::Barrier,
    rss: std::sync::atomic::AtomicU64,
}

impl CallEvents for Hold {
    fn log(&self, _: &str, _: &str, _: LogLevel, message: &str) {
        if message != HOLD {
            return;
        }
        if self.arrived.wait().is_leader() {
            let rss = common::process_memory(std::process::id(), "VmRSS");
            self.rss.store(rss, std::sync::atomic::Ordering::SeqCst);
        }
        self.sampled.wait();
    }
    fn progress(&self, _: &str, _: &str, _: Progress) {}
}

/// The growth of resident memory per instance with [`IN_FLIGHT`] calls of
/// `runtime` alive at once, each on its own thread.
fn resident_per_instance(rt: &tokio::runtime::Runtime, runtime: &Runtime) -> u64 {
    let hold = Arc::new(Hold {
        arrived: std::sync::Barrier::new(IN_FLIGHT),
        sampled: std::sync::Barrier::new(IN_FLIGHT),
        rss: std::sync::atomic::AtomicU64::new(0),
    });
    let before = common::process_memory(std::process::id(), "VmRSS");
    std::thread::scope(|scope| {
        for _ in 0..IN_FLIGHT {
            let hold = hold.clone();
            scope.spawn(move || {
                let arguments = json!({ "text": HOLD }).as_object().unwrap().clone();
                let out = rt
                    .block_on(runtime.call("word_count", Some(arguments), &Caller::new(), hold))
                    .result
                    .unwrap();
                assert!(!out.is_error);
            });
        }
    });
    let during = hold.rss.load(std::sync::atomic::Ordering::SeqCst);
    during.saturating_sub(before) / IN_FLIGHT as u64
}

/// `mcp-wasm-host serve` on `plugins` with the compile cache `cache`.
fn serve(plugins: &Path, cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-wasm-host"));
    command
        .args(["serve", "--log", "warn", "--no-watch", "--plugins"])
        .arg(plugins)
        .arg("--cache-dir")
        .arg(cache);
    command
}

/// The real binary's resident memory serving `plugins` with the warm cache
/// `cache`, idle after its first call.
fn server_idle(plugins: &Path, cache: &Path) -> u64 {
    let mut client = common::stdio::StdioClient::spawn(serve(plugins, cache));
    client.initialize();
    let call = json!({"name": "word_count", "arguments": arguments()});
    client.round_trip(&common::stdio::request(1, "tools/call", &call));
    let rss = common::process_memory(client.pid(), "VmRSS");
    client.close();
    rss
}

/// The process's minor page faults so far (`/proc/self/stat`, field 10).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // The command name (field 2) may hold spaces; count from after it.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    rest.split(' ').nth(7).unwrap().parse().unwrap()
}

/// One call of `word_count` on `runtime`, as a new client.
async fn word_count(runtime: &Runtime) -> ToolOutput {
    runtime
        .call(
            "word_count",
            Some(arguments()),
            &Caller::new(),
            Arc::new(NoEvents),
        )
        .await
        .result
        .unwrap()
}

/// Minor page faults per call of `word_count` on `runtime`.
fn faults_per_call(rt: &tokio::runtime::Runtime, runtime: &Runtime, calls: u64) -> u64 {
    rt.block_on(async {
        let before = minor_faults();
        for _ in 0..calls {
            let out = word_count(runtime).await;
            assert!(!out.is_error);
        }
        (minor_faults() - before) / calls
    })
}

/// Spawns the real binary on `plugins` with the cache `cache` and returns
/// the time from spawning to the first `tools/call` answer.
fn first_call(plugins: &Path, cache: &Path) -> Duration {
    first_call_of(serve(plugins, cache))
}

fn first_call_of(command: Command) -> Duration {
    let call = json!({"name": "word_count", "arguments": arguments()});
    let (elapsed, line) = common::stdio::first_call(command, &call);
    assert!(line.contains(r#""words":216"#), "{line}");
    elapsed
}

/// Fills `cache` with Cranelift's code, as a server leaves it once its
/// background compile has ended (a server stopped sooner leaves Winch's
/// code, and the next start compiles in the background again).
fn fill_cache(plugins: &Path, cache: &Path) {
    let mut command = serve(plugins, cache);
    command.env("MCP_WASM_HOST_QUICK_COMPILE", "never");
    first_call_of(command);
}

/// The bench's options.
struct Options {
    quick: bool,
    /// Prebuilt components (`--components DIR`) instead of building them.
    components: Option<PathBuf>,
    /// A compile cache kept between runs (`--cache DIR`).
    cache: Option<PathBuf>,
    /// Measure only the calls (`--calls`).
    calls_only: bool,
}

impl Options {
    fn parse() -> Options {
        let args: Vec<String> = std::env::args().collect();
        let value = |flag: &str| {
            args.iter()
                .position(|a| a == flag)
                .map(|i| PathBuf::from(args.get(i + 1).expect("a directory after the flag")))
        };
        Options {
            quick: args.iter().any(|a| a == "--quick"),
            components: value("--components"),
            cache: value("--cache"),
            calls_only: args.iter().any(|a| a == "--calls"),
        }
    }
}

fn main() {
    let options = Options::parse();
    let (reps, iterations) = if options.quick { (2, 100) } else { (5, 500) };
    // `--only A,B`: those languages, and the floor.
    let args: Vec<String> = std::env::args().collect();
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|list| list.split(',').map(str::to_owned).collect());
    println!(
        "mcp-wasm-host cost per guest language (`word_count`; {reps} starts, {iterations} calls per language)"
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    let mut runtimes = Vec::new();
    for (i, language) in LANGUAGES.iter().enumerate() {
        if i > 0
            && only
                .as_ref()
                .is_some_and(|only| !only.iter().any(|n| n == language.name))
        {
            continue;
        }
        let built = match &options.components {
            Some(dir) => {
                let file = dir.join(format!("{}.wasm", language.file));
                if file.is_file() {
                    Ok((file, Duration::ZERO))
                } else {
                    Err(format!("{} is not there", file.display()))
                }
            }
            None => build(language, work.path()),
        };
        let (component, build) = match built {
            Ok(built) => built,
            Err(why) => {
                println!("{}: left out, its build failed:\n{why}", language.name);
                continue;
            }
        };
        let cached = |reuse| {
            let cache = options
                .cache
                .as_deref()
                .map(|dir| CompileCache::open(dir).unwrap());
            load_cached(&rt, &component, reuse, cache)
        };
        let (runtime, load_time) = if options.calls_only {
            (cached(0), Duration::ZERO)
        } else {
            let loads: Vec<(Runtime, Duration)> =
                (0..reps).map(|_| load(&rt, &component, 0)).collect();
            let load_time = median(loads.iter().map(|(_, d)| *d).collect());
            (loads.into_iter().next().unwrap().0, load_time)
        };
        let (fuel, memory) = audited_call(&rt, &runtime);

        // The incremental cache warmed by the original, then the edited
        // copy loaded and called with it.
        let store_dir = work.path().join(format!("{}-incremental", language.name));
        edit_to_answer(&rt, &component, &store_dir, QuickCompile::Never);
        let (edit, quick_edit) = match edited(language, &component, work.path()) {
            Ok(edited) => {
                let edit = |quick| {
                    median(
                        (0..reps)
                            .map(|_| edit_to_answer(&rt, &edited, &store_dir, quick))
                            .collect(),
                    )
                };
                (edit(QuickCompile::Never), edit(QuickCompile::Large))
            }
            Err(why) => {
                println!("{}: no edited copy: {why}", language.name);
                (Duration::ZERO, Duration::ZERO)
            }
        };

        let plugins = work.path().join(format!("{}-plugins", language.name));
        std::fs::create_dir_all(&plugins).unwrap();
        std::fs::copy(&component, plugins.join("wordcount.wasm")).unwrap();
        let cache = match &options.cache {
            Some(dir) => dir.clone(),
            None => work.path().join(format!("{}-cache", language.name)),
        };
        fill_cache(&plugins, &cache);
        let first = if options.calls_only {
            Duration::ZERO
        } else {
            median((0..reps).map(|_| first_call(&plugins, &cache)).collect())
        };
        let idle = server_idle(&plugins, &cache);

        rows.push(Row {
            name: language.name,
            size: std::fs::metadata(&component).unwrap().len(),
            build,
            load: load_time,
            edit_to_answer: edit,
            quick_edit,
            first_call: first,
            fuel,
            memory,
            server_idle: idle,
            ..Row::default()
        });
        let reusing = if options.calls_only {
            cached(REUSE)
        } else {
            load(&rt, &component, REUSE).0
        };
        runtimes.push((runtime, reusing));
    }

    // Fresh-instance and reused-instance calls, round-robin over the
    // languages so drift in the machine's speed affects every language and
    // both kinds alike.
    let mut samples: Vec<[Vec<Duration>; 2]> = (0..runtimes.len())
        .map(|_| [0, 1].map(|_| Vec::with_capacity(iterations)))
        .collect();
    rt.block_on(async {
        for round in 0..(iterations + iterations / 10) {
            for (i, (fresh, reusing)) in runtimes.iter().enumerate() {
                for (kind, runtime) in [fresh, reusing].into_iter().enumerate() {
                    let t = Instant::now();
                    let out = word_count(runtime).await;
                    let elapsed = t.elapsed();
                    assert!(!out.is_error);
                    if round >= iterations / 10 {
                        samples[i][kind].push(elapsed);
                    }
                }
            }
        }
    });
    for ((row, [fresh, reused]), (runtime, _)) in rows.iter_mut().zip(samples).zip(&runtimes) {
        row.call = median(fresh);
        row.reused_call = median(reused);
        row.faults = faults_per_call(&rt, runtime, 50);
        row.resident = resident_per_instance(&rt, runtime);
    }
    report(&rows);
}

fn report(rows: &[Row]) {
    let Some(floor) = rows.first() else {
        return;
    };
    let ratio = |a: f64, b: f64| format!("{:.1}×", a / b);
    let secs = |d: Duration| d.as_secs_f64();
    println!(
        "\n{:<14} {:>17} {:>15} {:>17} {:>23} {:>17} {:>19} {:>21} {:>21} {:>17} {:>13}",
        "language",
        "size",
        "build",
        "load (compile)",
        "edit to answer",
        "first call",
        "fresh-instance call",
        "reused-instance call",
        "fuel per call",
        "memory",
        "page faults"
    );
    for row in rows {
        println!(
            "{:<14} {:>10.2} MB {:>5} {:>7.1} s {:>6} {:>8.0} ms {:>6} {:>9.0} ms {:>11} {:>8.1} ms {:>6} {:>10.0} µs {:>6} {:>7.0} µs {:>6} fresh {:>13} {:>6} {:>9.1} MiB {:>5} {:>7} {:>5}",
            row.name,
            row.size as f64 / 1e6,
            ratio(row.size as f64, floor.size as f64),
            secs(row.build),
            ratio(secs(row.build), secs(floor.build)),
            secs(row.load) * 1e3,
            ratio(secs(row.load), secs(floor.load)),
            secs(row.edit_to_answer) * 1e3,
            format!("{:.2}× load", secs(row.edit_to_answer) / secs(row.load)),
            secs(row.first_call) * 1e3,
            ratio(secs(row.first_call), secs(floor.first_call)),
            secs(row.call) * 1e6,
            ratio(secs(row.call), secs(floor.call)),
            secs(row.reused_call) * 1e6,
            format!("{:.2}×", secs(row.reused_call) / secs(row.call)),
            row.fuel,
            ratio(row.fuel as f64, floor.fuel as f64),
            row.memory as f64 / (1 << 20) as f64,
            ratio(row.memory as f64, floor.memory as f64),
            row.faults,
            ratio(row.faults as f64, floor.faults.max(1) as f64),
        );
    }
    println!(
        "\n{:<14} {:>26} {:>34}",
        "language", "edit to answer, Cranelift", "edit to answer, serve's default"
    );
    for row in rows {
        println!(
            "{:<14} {:>13.0} ms {:>10} {:>21.0} ms {:>10}",
            row.name,
            secs(row.edit_to_answer) * 1e3,
            format!("{:.2}× load", secs(row.edit_to_answer) / secs(row.load)),
            secs(row.quick_edit) * 1e3,
            format!("{:.2}× load", secs(row.quick_edit) / secs(row.load)),
        );
    }
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    println!(
        "\n{:<14} {:>26} {:>24} {:>36}",
        "language",
        "resident per instance",
        "server idle (1 call)",
        format!("server with {IN_FLIGHT} instances in flight")
    );
    for row in rows {
        let busy = row.server_idle + IN_FLIGHT as u64 * row.resident;
        let floor_busy = floor.server_idle + IN_FLIGHT as u64 * floor.resident;
        println!(
            "{:<14} {:>17.2} MiB {:>6} {:>15.1} MiB {:>6} {:>27.1} MiB {:>6}",
            row.name,
            mib(row.resident),
            ratio(row.resident as f64, floor.resident.max(1) as f64),
            mib(row.server_idle),
            ratio(row.server_idle as f64, floor.server_idle as f64),
            mib(busy),
            ratio(busy as f64, floor_busy as f64),
        );
    }
}
