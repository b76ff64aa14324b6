//! Unit tests of `call::blame`: each error a guest can make wasmtime raise
//! is the guest's or a limit's, in the contract's words; only a host fault
//! is the host's.
use super::*;
use crate::error::{Fault, ToolFailure};

fn policy() -> Policy {
    Policy {
        section: "plugins.p".into(),
        config_file: "mcp-wasm-host.toml".into(),
        ..Policy::default()
    }
}

fn told(cause: FailureCause) -> String {
    ToolFailure {
        plugin: "p".into(),
        tool: "t".into(),
        cause,
    }
    .to_string()
}

/// The error as wasmtime hands it over from a guest's frames: with a
/// context on top of the cause, as its wasm backtrace is.
fn from_guest(error: wasmtime::Error) -> wasmtime::Error {
    error.context("error while executing at wasm backtrace:\n    0: 0x1f - <unknown>!f")
}

#[test]
fn each_guest_failure_is_the_guests_or_a_limits_in_the_contracts_words() {
    let surrogate = char::try_from(0xD800u32).map(|_| ()).unwrap_err();
    let bytes = vec![0xffu8];
    let bad_utf8 = std::str::from_utf8(&bytes).map(|_| ()).unwrap_err();
    let table: Vec<(&str, wasmtime::Error, Fault, &str, &str)> = vec![
        (
            "surrogate char",
            wasmtime::Error::new(surrogate),
            Fault::Guest,
            "contract_violation",
            "plugin \"p\" gave the host an invalid char in tool \"t\": a `char` is a Unicode scalar value",
        ),
        (
            "bad UTF-8",
            wasmtime::Error::new(bad_utf8),
            Fault::Guest,
            "contract_violation",
            "plugin \"p\" gave the host a string that is not valid UTF-8 in tool \"t\": invalid utf-8",
        ),
        (
            "typed enum discriminant",
            wasmtime::Error::msg("unexpected discriminant: 7"),
            Fault::Guest,
            "contract_violation",
            "gave the host an enum or variant with an invalid discriminant in tool \"t\": its type has no case 7",
        ),
        (
            "dynamic variant discriminant",
            wasmtime::Error::msg("discriminant 9 out of range [0..3)"),
            Fault::Guest,
            "contract_violation",
            "gave the host a variant, enum, option or result with an invalid discriminant in tool \"t\": discriminant 9 out of range [0..3)",
        ),
        (
            "option discriminant",
            wasmtime::Error::msg("invalid option discriminant"),
            Fault::Guest,
            "contract_violation",
            "an option with an invalid discriminant",
        ),
        (
            "list past memory",
            wasmtime::Error::msg("list pointer/length out of bounds of memory"),
            Fault::Guest,
            "contract_violation",
            "gave the host a list whose pointer and length run past the end of its memory",
        ),
        (
            "string past memory",
            wasmtime::Error::msg("string pointer/length out of bounds of memory"),
            Fault::Guest,
            "contract_violation",
            "a string whose pointer and length run past",
        ),
        (
            "realloc out of bounds",
            wasmtime::Error::msg("realloc return: beyond end of memory"),
            Fault::Guest,
            "contract_violation",
            "returned a pointer past the end of its memory from `cabi_realloc`",
        ),
        (
            "misaligned list",
            wasmtime::Error::msg("list pointer is not aligned"),
            Fault::Guest,
            "contract_violation",
            "a misaligned pointer (list pointer is not aligned)",
        ),
        (
            "a write past check-write",
            wasmtime::Error::msg("write exceeded budget"),
            Fault::Guest,
            "contract_violation",
            "plugin \"p\" wrote to a `wasi:io` output stream more than `check-write` allowed in tool \"t\": write exceeded budget",
        ),
        (
            "random past memory",
            wasmtime::Error::msg("requested len 4294967296 exceeds limit 134217728"),
            Fault::Limit,
            "memory_limit",
            "plugin \"p\" asked for 4 GiB of random bytes in tool \"t\", more than its `memory` limit of 128 MiB allows (raise `plugins.p.memory` in mcp-wasm-host.toml)",
        ),
        (
            "hostcall fuel",
            wasmtime::Error::msg(
                "too much data is being copied between the host and the guest: fuel allocated for hostcalls has been exhausted",
            ),
            Fault::Limit,
            "result_too_large",
            "more than its `max_result_size` limit of 8 MiB allows (raise `plugins.p.max_result_size`",
        ),
        (
            "host handles",
            wasmtime::Error::new(ResourceTableError::Full),
            Fault::Limit,
            "over_limit",
            "more than its `host_resources` limit of 10,000 allows",
        ),
        (
            "component handles",
            wasmtime::Error::msg("cannot allocate another handle: store handle limit exceeded"),
            Fault::Limit,
            "over_limit",
            "held more component handles (its own resources and the host's) at once in tool \"t\", more than its `host_resources` limit of 100,000 allows",
        ),
        (
            "instances",
            wasmtime::Error::msg("resource limit exceeded: instance count too high at 65"),
            Fault::Limit,
            "over_limit",
            "plugin \"p\" made 65 instances in tool \"t\", more than its `instances` limit of 64 allows",
        ),
        (
            "unknown, shown",
            wasmtime::Error::msg("cannot leave component instance"),
            Fault::Guest,
            "contract_violation",
            "plugin \"p\" was stopped by the runtime in tool \"t\": cannot leave component instance",
        ),
    ];
    for (case, error, fault, kind, words) in table {
        let cause = guest_fault(&from_guest(error), &policy());
        assert_eq!(cause.fault(), fault, "{case}: {cause:?}");
        assert_eq!(cause.kind(), kind, "{case}");
        let text = told(cause);
        assert!(text.contains(words), "{case}: {text}");
        assert!(!text.contains("host failed"), "{case}: {text}");
    }
}

#[test]
fn an_unknown_error_with_host_internals_blames_the_guest_without_them() {
    let error = from_guest(wasmtime::Error::msg(
        "failed at /home/u/.cargo/registry/src/x.rs:1: Some(Foo { a: 1 })",
    ));
    let cause = guest_fault(&error, &policy());
    assert_eq!(cause.kind(), "contract_violation");
    let client = told(cause.clone());
    assert_eq!(
        client,
        "plugin \"p\" was stopped by the runtime in tool \"t\""
    );
    let log = ToolFailure {
        plugin: "p".into(),
        tool: "t".into(),
        cause,
    }
    .log_line();
    assert!(log.contains("/home/u/.cargo"), "{log}");
}

#[test]
fn only_a_host_fault_or_wasmtimes_own_allocation_failure_is_the_hosts() {
    let ours = from_guest(HostFault::error("the instance does not export `call-tool`"));
    let cause = host_fault(&ours).unwrap();
    assert_eq!((cause.kind(), cause.fault()), ("host_error", Fault::Host));
    assert!(told(cause).contains("the host failed while running tool \"t\""));
    let oom = wasmtime::Error::new(wasmtime::OutOfMemory::new(1 << 40));
    assert!(host_fault(&oom).is_some());
    let io = wasmtime::Error::new(std::io::Error::other("mmap failed"))
        .context("failed to allocate a memory slot");
    assert!(host_fault(&io).is_some());
    for guest in [
        wasmtime::Error::msg("unexpected discriminant: 7"),
        wasmtime::Error::msg("anything else"),
        wasmtime::Error::new(ResourceTableError::NotPresent),
    ] {
        assert!(host_fault(&from_guest(guest)).is_none());
    }
}

#[test]
fn the_copy_budget_follows_max_result_size_and_never_drops_below_wasmtimes() {
    let mut p = policy();
    p.limits.max_result_bytes = 1 << 10;
    assert_eq!(hostcall_fuel(&p), 128 << 20);
    p.limits.max_result_bytes = 256 << 20;
    let fuel = hostcall_fuel(&p) as u64;
    // A `list<u8>` of as many elements as the limit has bytes lifts.
    assert!(
        fuel >= (256 << 20) * (size_of::<Val>() as u64) / 2,
        "{fuel}"
    );
    p.limits.max_result_bytes = u64::MAX;
    assert_eq!(hostcall_fuel(&p), usize::MAX);
}
