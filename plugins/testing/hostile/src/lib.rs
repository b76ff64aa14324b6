//! Test plugin: a guest that attacks its sandbox, one tool per attack, plus
//! well-behaved tools (`ok`, `slow_ok`, `echo_size`) to run alongside them.
//!
//! What each attack looks like to the host:
//!
//! - `spin`: a pure wasm loop; only fuel or epoch interruption stops it.
//! - `sleep_forever`: blocks inside `wasi:io/poll` on a
//!   `wasi:clocks/monotonic-clock` subscription; only a host-side deadline
//!   stops it (epoch interruption does not reach into a host call).
//! - `vec_bomb`: heap growth through the allocator; a refused `memory.grow`
//!   aborts with "memory allocation of 1048576 bytes failed" on stderr and a
//!   wasm `unreachable` trap.
//! - `grow_bomb`: raw `memory.grow`; a refused growth returns -1 and the tool
//!   returns normally, reporting how far it got.
//! - `deep_recursion`: overflows the shadow stack in linear memory (`shadow`,
//!   an out-of-bounds memory access trap) or the wasm call stack (`wasm`, a
//!   stack overflow trap).
//! - `read_file`, `write_file`, `list_dir`: `wasi:filesystem` through the
//!   preopens; `env`, `env_all`: `wasi:cli/environment`; `connect`,
//!   `resolve`: `wasi:sockets`.
//! - `big_result`, `echo_size`: result and argument size caps.
//! - `random_bytes`: asks `wasi:random` for `bytes` random bytes at once
//!   (the host bounds it by the plugin's `memory` limit).

use std::fs;
use std::hint::black_box;
use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::thread;
use std::time::Duration;

use mcp_wasm_sdk::prelude::*;

/// One mebibyte.
const MIB: usize = 1 << 20;

/// How many 64 KiB wasm pages make a MiB.
#[cfg(target_arch = "wasm32")]
const PAGES_PER_MIB: usize = 16;

/// Arguments of `vec_bomb`.
#[derive(Deserialize, JsonSchema)]
struct VecBombArgs {
    /// Stop after allocating this many MiB and return the count; without it,
    /// allocate until an allocation fails (which aborts the guest).
    #[serde(default)]
    mib: Option<u32>,
}

/// Arguments of `grow_bomb`.
#[derive(Deserialize, JsonSchema)]
struct GrowBombArgs {
    /// How many 64 KiB pages to ask for per `memory.grow` (default 16, 1 MiB).
    #[serde(default = "default_pages_per_step")]
    #[schemars(range(min = 1))]
    pages_per_step: u32,
}

fn default_pages_per_step() -> u32 {
    16
}

/// Which stack `deep_recursion` overflows.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum StackKind {
    /// The shadow stack in linear memory: 4 KiB stack-allocated array per
    /// frame.
    Shadow,
    /// The wasm call stack: small frames, no linear-memory stack use.
    Wasm,
}

/// Arguments of `deep_recursion`.
#[derive(Deserialize, JsonSchema)]
struct RecursionArgs {
    /// Which stack to overflow.
    mode: StackKind,
    /// How many levels to recurse; a small depth returns normally.
    depth: u64,
}

/// Arguments of `panic`.
#[derive(Deserialize, JsonSchema)]
struct PanicArgs {
    /// Text to include in the panic message.
    msg: String,
}

/// Arguments of `read_file` and `list_dir`.
#[derive(Deserialize, JsonSchema)]
struct PathArgs {
    /// A path in the guest's filesystem, such as `/data/notes.txt`.
    path: String,
}

/// Arguments of `write_file`.
#[derive(Deserialize, JsonSchema)]
struct WriteArgs {
    /// A path in the guest's filesystem, such as `/data/out.txt`.
    path: String,
    /// The text to write; replaces the file's content.
    content: String,
}

/// Arguments of `env`.
#[derive(Deserialize, JsonSchema)]
struct EnvArgs {
    /// The environment variable's name.
    name: String,
}

/// Arguments of `connect`.
#[derive(Deserialize, JsonSchema)]
struct ConnectArgs {
    /// The address to connect to, such as `127.0.0.1:80`.
    addr: String,
}

/// Arguments of `resolve`.
#[derive(Deserialize, JsonSchema)]
struct ResolveArgs {
    /// The host name to look up, such as `example.com`.
    host: String,
}

/// Arguments of `big_result`.
#[derive(Deserialize, JsonSchema)]
struct BigResultArgs {
    /// The length of the returned text, in bytes.
    bytes: u64,
}

/// Arguments of `echo_size`.
#[derive(Deserialize, JsonSchema)]
struct EchoSizeArgs {
    /// Any text; only its length is returned.
    data: String,
}

/// Arguments of `slow_ok`.
#[derive(Deserialize, JsonSchema)]
struct SlowOkArgs {
    /// How long to sleep before answering, in milliseconds.
    millis: u64,
}

/// Loops forever without calling the host.
fn spin() -> ! {
    let mut counter = 0u64;
    loop {
        counter = black_box(counter.wrapping_add(1));
    }
}

/// Sleeps forever inside the host: every `thread::sleep` is a
/// monotonic-clock subscription blocked on with `wasi:io/poll`.
fn sleep_forever() -> ! {
    loop {
        // A year at a time: whatever std does with the duration, it stays far
        // below `u64::MAX` nanoseconds.
        thread::sleep(black_box(Duration::from_secs(365 * 24 * 60 * 60)));
    }
}

/// Allocates `limit` MiB (or until allocation fails) in 1 MiB chunks, writing
/// every byte, and returns how many it allocated.
fn vec_bomb(limit: Option<u32>) -> u32 {
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut count = 0u32;
    while limit.is_none_or(|limit| count < limit) {
        // A non-zero fill is a real write: the pages are touched, not just
        // reserved.
        let chunk = vec![0xA5u8; MIB];
        chunks.push(black_box(chunk));
        count += 1;
    }
    black_box(&chunks);
    count
}

/// Grows linear memory with raw `memory.grow` until the host refuses.
#[cfg(target_arch = "wasm32")]
fn grow_bomb(pages_per_step: u32) -> ToolResult {
    use core::arch::wasm32::{memory_grow, memory_size};

    if pages_per_step == 0 {
        return Err(ToolError::invalid_arguments(
            "`pages_per_step` must be at least 1",
        ));
    }
    let step = pages_per_step as usize;
    let initial = memory_size::<0>();
    let mut granted = 0usize;
    let mut steps = 0usize;
    // Terminates: a 32-bit memory never exceeds 65536 pages.
    while memory_grow::<0>(black_box(step)) != usize::MAX {
        granted += step;
        steps += 1;
    }
    let now = memory_size::<0>();
    Ok(Output::text(format!(
        "granted {granted} pages ({granted_mib} MiB) in {steps} steps of {step} pages; \
         memory grew from {initial} to {now} pages ({now_mib} MiB); \
         growth refused: memory.grow of {step} more pages returned -1",
        // In pages: 65536 pages of 64 KiB overflow a 32-bit `usize` in bytes.
        granted_mib = granted / PAGES_PER_MIB,
        now_mib = now / PAGES_PER_MIB,
    )))
}

/// `memory.grow` exists only in WebAssembly.
#[cfg(not(target_arch = "wasm32"))]
fn grow_bomb(_pages_per_step: u32) -> ToolResult {
    Err(ToolError::failed(
        "grow_bomb needs wasm32: memory.grow does not exist on this target",
    ))
}

/// Recurses `depth` levels with a 4 KiB array per frame on the shadow stack
/// (the part of linear memory below `__stack_pointer`).
#[inline(never)]
fn shadow_recurse(depth: u64) -> u64 {
    let mut frame = [0u8; 4096];
    frame[0] = depth.to_le_bytes()[0];
    frame[4095] = depth.to_le_bytes()[1];
    // The array's address escapes, so it must live in linear memory, and it
    // is read after the recursive call, so it lives across it.
    let frame = black_box(&mut frame);
    if depth == 0 {
        return u64::from(frame[0]);
    }
    let below = shadow_recurse(black_box(depth - 1));
    below.wrapping_add(u64::from(frame[4095])).wrapping_add(1)
}

/// Recurses `depth` levels using only wasm locals: no address is taken, so
/// nothing goes to the shadow stack, and the arguments are used after the
/// call, so each level keeps its wasm frame. Rotating the result before
/// combining it keeps LLVM from turning the recursion into a loop (no
/// `black_box` here: it would spill to the shadow stack).
#[inline(never)]
fn wasm_recurse(depth: u64, a: u64, b: u64, c: u64, d: u64) -> u64 {
    if depth == 0 {
        return a ^ b ^ c ^ d;
    }
    let below = wasm_recurse(
        depth - 1,
        b.wrapping_add(depth),
        c ^ a,
        d.rotate_left(7),
        a.wrapping_mul(31),
    );
    below.rotate_left(5) ^ a.wrapping_add(d) ^ c.rotate_right(3)
}

fn deep_recursion(args: &RecursionArgs) -> String {
    let value = match args.mode {
        StackKind::Shadow => shadow_recurse(args.depth),
        StackKind::Wasm => wasm_recurse(args.depth, 1, 2, 3, 4),
    };
    format!("recursed {} levels: {value}", args.depth)
}

/// Turns an I/O error on `path` into a tool error. The sandbox refusing
/// access (permission denied, or a path that no mount contains) is
/// [`ToolError::Denied`]; anything else is [`ToolError::Failed`]. The
/// message is `cannot {action} {path}: {error} (kind: {kind})`.
fn io_failure(action: &str, path: &str, error: &io::Error) -> ToolError {
    let kind = error.kind();
    let message = format!("cannot {action} {path}: {error} (kind: {kind:?})");
    if kind == io::ErrorKind::PermissionDenied {
        ToolError::denied(message)
    } else if kind == io::ErrorKind::NotFound && !inside_a_mount(path) {
        // wasi-libc reports a path under no preopened directory as ENOENT.
        ToolError::denied(format!("{message}; no mount contains this path"))
    } else {
        ToolError::failed(message)
    }
}

/// Whether some ancestor directory of `path` exists. Under WASI, paths that
/// no preopened directory contains do not exist at all, not even `/`.
fn inside_a_mount(path: &str) -> bool {
    Path::new(path).ancestors().skip(1).any(|dir| {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        fs::symlink_metadata(dir).is_ok()
    })
}

fn read_file(args: &PathArgs) -> ToolResult {
    fs::read_to_string(&args.path)
        .map(Output::text)
        .map_err(|e| io_failure("read", &args.path, &e))
}

fn write_file(args: &WriteArgs) -> ToolResult {
    fs::write(&args.path, &args.content).map_err(|e| io_failure("write", &args.path, &e))?;
    Ok(Output::text(format!(
        "wrote {} bytes to {}",
        args.content.len(),
        args.path
    )))
}

fn list_dir(args: &PathArgs) -> ToolResult {
    let failure = |e: io::Error| io_failure("list", &args.path, &e);
    let mut names = fs::read_dir(&args.path)
        .map_err(failure)?
        .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(failure)?;
    names.sort();
    Ok(Output::text(names.join("\n")))
}

fn env(args: &EnvArgs) -> ToolResult {
    match std::env::var(&args.name) {
        Ok(value) => Ok(Output::text(value)),
        Err(std::env::VarError::NotPresent) => Err(ToolError::denied(format!(
            "environment variable {} is not set (not granted)",
            args.name
        ))),
        Err(e @ std::env::VarError::NotUnicode(_)) => Err(ToolError::failed(format!(
            "environment variable {}: {e}",
            args.name
        ))),
    }
}

fn env_all() -> String {
    let mut names: Vec<String> = std::env::vars_os()
        .map(|(name, _)| name.to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.join("\n")
}

/// A network error: [`ToolError::Denied`] if the sandbox refused, else
/// [`ToolError::Failed`].
fn net_failure(message: String, error: &io::Error) -> ToolError {
    if error.kind() == io::ErrorKind::PermissionDenied {
        ToolError::denied(message)
    } else {
        ToolError::failed(message)
    }
}

fn connect(args: &ConnectArgs) -> ToolResult {
    match TcpStream::connect(args.addr.as_str()) {
        Ok(stream) => {
            let peer = stream
                .peer_addr()
                .map_or_else(|_| args.addr.clone(), |a| a.to_string());
            Ok(Output::text(format!("connected to {peer}")))
        }
        Err(e) => Err(net_failure(
            format!(
                "cannot connect to {}: {e} (kind: {:?})",
                args.addr,
                e.kind()
            ),
            &e,
        )),
    }
}

fn resolve(args: &ResolveArgs) -> ToolResult {
    match format!("{}:80", args.host).to_socket_addrs() {
        Ok(addrs) => {
            let addrs: Vec<String> = addrs.map(|a| a.ip().to_string()).collect();
            Ok(Output::text(addrs.join("\n")))
        }
        Err(e) => Err(net_failure(
            format!("cannot resolve {}: {e} (kind: {:?})", args.host, e.kind()),
            &e,
        )),
    }
}

fn big_result(bytes: u64) -> ToolResult {
    let len = usize::try_from(bytes).map_err(|_| {
        ToolError::invalid_arguments(format!("`bytes`: {bytes} does not fit in memory"))
    })?;
    // Fail cleanly, not with an allocation abort, if the memory is not there.
    let mut probe = String::new();
    probe
        .try_reserve_exact(len)
        .map_err(|e| ToolError::failed(format!("cannot allocate {len} bytes: {e}")))?;
    drop(probe);
    // `repeat` copies by doubling (a few `memory.copy`s), so a large result
    // costs little fuel, unlike a loop pushing one byte at a time.
    Ok(Output::text("x".repeat(len)))
}

/// Arguments of `random_bytes`.
#[derive(Deserialize, JsonSchema)]
struct RandomArgs {
    /// How many random bytes to ask `wasi:random` for, at once.
    bytes: u64,
}

struct Hostile;

impl Plugin for Hostile {
    fn router() -> Router {
        Router::new()
            // The same attacks through a resource read, a prompt and a
            // completion, which run in the same sandbox as a tool call.
            .resource(
                ResourceDef::new("hostile://spin", "spin"),
                |_: &str, _: &Vars| -> ResourceResult { spin() },
            )
            .resource(
                ResourceDef::new("hostile://panic", "panic"),
                |_: &str, _: &Vars| -> ResourceResult { panic!("the resource exploded") },
            )
            .resource(
                ResourceDef::new("hostile://sleep", "sleep"),
                |_: &str, _: &Vars| -> ResourceResult { sleep_forever() },
            )
            .template(
                TemplateDef::new("hostile://big/{mib}", "big"),
                |uri: &str, vars: &Vars| -> ResourceResult {
                    let mib: usize = vars["mib"].parse().unwrap_or(1).min(64);
                    Ok(Contents::text(uri, "text/plain", "x".repeat(mib << 20)))
                },
            )
            .prompt(
                PromptDef::new("hostile_spin", "Loops forever."),
                |_: &Vars| -> PromptResult { spin() },
            )
            .complete_prompt("hostile_spin", "x", |_: &str, _: &Vars| spin())
            .tool(
                ToolDef::new("spin", "Loops forever without calling the host."),
                |_: NoArgs| -> ToolResult { spin() },
            )
            .tool(
                ToolDef::new(
                    "sleep_forever",
                    "Sleeps forever, blocked inside a host call (monotonic-clock poll).",
                ),
                |_: NoArgs| -> ToolResult { sleep_forever() },
            )
            .tool(
                ToolDef::new(
                    "vec_bomb",
                    "Allocates 1 MiB heap chunks until `mib` is reached or allocation fails.",
                ),
                |args: VecBombArgs| -> ToolResult {
                    Ok(Output::text(vec_bomb(args.mib).to_string()))
                },
            )
            .tool(
                ToolDef::new(
                    "grow_bomb",
                    "Grows linear memory with raw memory.grow until refused; reports the pages granted.",
                ),
                |args: GrowBombArgs| grow_bomb(args.pages_per_step),
            )
            .tool(
                ToolDef::new(
                    "deep_recursion",
                    "Recurses `depth` levels, overflowing the shadow stack or the wasm stack.",
                ),
                |args: RecursionArgs| -> ToolResult { Ok(Output::text(deep_recursion(&args))) },
            )
            .tool(
                ToolDef::new("panic", "Panics with \"deliberate panic: <msg>\"."),
                |args: PanicArgs| -> ToolResult {
                    let msg = args.msg;
                    panic!("deliberate panic: {msg}")
                },
            )
            .tool(
                ToolDef::new("read_file", "Returns the content of a text file."),
                |args: PathArgs| read_file(&args),
            )
            .tool(
                ToolDef::new("write_file", "Writes a text file, replacing its content."),
                |args: WriteArgs| write_file(&args),
            )
            .tool(
                ToolDef::new("list_dir", "Lists a directory's entry names, sorted, one per line."),
                |args: PathArgs| list_dir(&args),
            )
            .tool(
                ToolDef::new("env", "Returns the value of an environment variable."),
                |args: EnvArgs| env(&args),
            )
            .tool(
                ToolDef::new(
                    "env_all",
                    "Lists the names of all environment variables, sorted, one per line.",
                ),
                |_: NoArgs| -> ToolResult { Ok(Output::text(env_all())) },
            )
            .tool(
                ToolDef::new("connect", "Opens a TCP connection to `addr`."),
                |args: ConnectArgs| connect(&args),
            )
            .tool(
                ToolDef::new("resolve", "Looks up the IP addresses of a host name."),
                |args: ResolveArgs| resolve(&args),
            )
            .tool(
                ToolDef::new("big_result", "Returns a text of `bytes` bytes ('x' repeated)."),
                |args: BigResultArgs| big_result(args.bytes),
            )
            .tool(
                ToolDef::new("echo_size", "Returns the length of `data` in bytes."),
                |args: EchoSizeArgs| -> ToolResult {
                    Ok(Output::text(args.data.len().to_string()))
                },
            )
            .tool(
                ToolDef::new(
                    "random_bytes",
                    "Asks wasi:random for `bytes` random bytes at once; returns how many came.",
                ),
                |args: RandomArgs| -> ToolResult {
                    let got = wasip2::random::random::get_random_bytes(args.bytes);
                    Ok(Output::text(got.len().to_string()))
                },
            )
            .tool(
                ToolDef::new(
                    "schema_bomb",
                    "Its input schema applies itself twice at each level of `a`: checking \
                     deep arguments the way jsonschema reports them costs 2^depth.",
                )
                .raw_input_schema(
                    r##"{"type":"object","properties":{"a":{"allOf":[{"$ref":"#"},{"$ref":"#"}]}}}"##,
                ),
                |_: serde_json::Value| Ok("checked"),
            )
            .tool(ToolDef::new("ok", "Returns \"ok\"."), |_: NoArgs| Ok("ok"))
            .tool(
                ToolDef::new("slow_ok", "Sleeps `millis` milliseconds, then returns \"ok\"."),
                |args: SlowOkArgs| {
                    thread::sleep(Duration::from_millis(args.millis));
                    Ok("ok")
                },
            )
    }
}

export_plugin!(Hostile);

#[cfg(test)]
mod tests {
    use super::*;

    fn text(result: &ToolResult) -> &str {
        let output = result.as_ref().expect("the call succeeds");
        output.content()[0].as_text().expect("a text block")
    }

    #[test]
    fn lists_every_tool() {
        let names: Vec<String> = Hostile::router()
            .list()
            .iter()
            .map(|def| def.name().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "spin",
                "sleep_forever",
                "vec_bomb",
                "grow_bomb",
                "deep_recursion",
                "panic",
                "read_file",
                "write_file",
                "list_dir",
                "env",
                "env_all",
                "connect",
                "resolve",
                "big_result",
                "echo_size",
                "random_bytes",
                "schema_bomb",
                "ok",
                "slow_ok",
            ]
        );
    }

    #[test]
    fn well_behaved_tools() {
        let router = Hostile::router();
        assert_eq!(text(&router.call("ok", "")), "ok");
        assert_eq!(text(&router.call("slow_ok", r#"{"millis":1}"#)), "ok");
        assert_eq!(text(&router.call("echo_size", r#"{"data":"héllo"}"#)), "6");
        let big = router.call("big_result", r#"{"bytes":100000}"#);
        assert_eq!(text(&big).len(), 100_000);
        assert!(text(&big).bytes().all(|b| b == b'x'));
        assert_eq!(text(&router.call("big_result", r#"{"bytes":0}"#)), "");
    }

    #[test]
    fn bounded_attacks_return() {
        let router = Hostile::router();
        assert_eq!(text(&router.call("vec_bomb", r#"{"mib":3}"#)), "3");
        assert_eq!(
            text(&router.call("deep_recursion", r#"{"mode":"shadow","depth":10}"#)),
            format!("recursed 10 levels: {}", shadow_recurse(10))
        );
        assert!(
            text(&router.call("deep_recursion", r#"{"mode":"wasm","depth":1000}"#))
                .starts_with("recursed 1000 levels: ")
        );
        assert!(matches!(
            router.call("deep_recursion", r#"{"mode":"native","depth":1}"#),
            Err(ToolError::InvalidArguments(_))
        ));
        // Natively there is no memory.grow.
        assert!(matches!(
            router.call("grow_bomb", "{}"),
            Err(ToolError::Failed(_))
        ));
    }

    #[test]
    fn files() {
        let dir = std::env::temp_dir().join(format!("plugin-hostile-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("create the temporary directory");
        let file = dir.join("a.txt");
        let file = file.to_str().expect("a UTF-8 path");
        let args = serde_json::json!({ "path": file, "content": "hello" }).to_string();
        let router = Hostile::router();
        assert_eq!(
            text(&router.call("write_file", &args)),
            format!("wrote 5 bytes to {file}")
        );
        let args = serde_json::json!({ "path": file }).to_string();
        assert_eq!(text(&router.call("read_file", &args)), "hello");
        fs::write(dir.join("b.txt"), "").expect("write b.txt");
        let args = serde_json::json!({ "path": dir }).to_string();
        assert_eq!(text(&router.call("list_dir", &args)), "a.txt\nb.txt");

        let missing = dir.join("missing.txt");
        let missing = missing.to_str().expect("a UTF-8 path");
        let args = serde_json::json!({ "path": missing }).to_string();
        match router.call("read_file", &args) {
            // Natively `/` exists, so a missing file is just missing.
            Err(ToolError::Failed(message)) => {
                assert!(
                    message.starts_with(&format!("cannot read {missing}: ")),
                    "{message}"
                );
                assert!(message.contains("(kind: NotFound)"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
        fs::remove_dir_all(&dir).expect("remove the temporary directory");
    }

    #[test]
    fn io_failure_kinds() {
        let denied = io::Error::from(io::ErrorKind::PermissionDenied);
        assert!(matches!(
            io_failure("read", "/x", &denied),
            ToolError::Denied(m) if m.starts_with("cannot read /x: ")
        ));
        let other = io::Error::from(io::ErrorKind::InvalidData);
        assert!(matches!(
            io_failure("write", "/x", &other),
            ToolError::Failed(m) if m.starts_with("cannot write /x: ")
        ));
    }

    #[test]
    fn env_vars() {
        let router = Hostile::router();
        let args = r#"{"name":"PLUGIN_HOSTILE_SURELY_UNSET_VARIABLE"}"#;
        assert_eq!(
            router.call("env", args),
            Err(ToolError::denied(
                "environment variable PLUGIN_HOSTILE_SURELY_UNSET_VARIABLE is not set (not granted)"
            ))
        );
        let names = router.call("env_all", "");
        let names: Vec<&str> = text(&names).lines().collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert!(names.contains(&"PATH"));
    }

    #[test]
    fn panics_with_the_message() {
        let caught = std::panic::catch_unwind(|| {
            let _ = Hostile::router().call("panic", r#"{"msg":"boom"}"#);
        });
        let payload = caught.expect_err("the tool panics");
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some("deliberate panic: boom")
        );
    }
}
