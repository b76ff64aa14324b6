//! Whose fault an error raised while a guest ran is, when it is neither a
//! trap nor one of the host's own failures ([`HostFault`]): a limit the
//! guest reached that a policy key names (random bytes past `memory`, a
//! copy past `max_result_size`, host handles, tables, instances), or a
//! breach of the component model's contract in the contract's words. Never
//! the host's: the host's own failures are found by their type, so an
//! error nobody recognises is the guest's, told without host internals.

use std::mem::size_of;

use wasmtime::component::{ResourceTableError, Val};

use crate::error::{Breach, Excess, FailureCause, HostFault};
use crate::policy::Policy;
use crate::policy::limits::spec::key;
use crate::units::{bytes, count};

/// wasmtime's own copy budget for one crossing of the component boundary
/// (`DEFAULT_HOSTCALL_FUEL` in its `component/store.rs`): the store's
/// hostcall fuel never goes below it.
const WASMTIME_HOSTCALL_FUEL: u64 = 128 << 20;

/// What wasmtime charges a generic component's result per value it lifts
/// (a list's elements, an option's payload, a record's fields): one
/// [`Val`]. A result's JSON spends at least about two bytes per value (`0,`),
/// so half a `Val` per byte of `max_result_size` lets every result within
/// the limit be lifted. A typed (SDK) result costs one per string byte.
const FUEL_PER_RESULT_BYTE: u64 = size_of::<Val>() as u64 / 2;

/// The store's hostcall fuel for a plugin under `policy`: what wasmtime
/// lets the guest hand the host in one crossing (a result, a host call's
/// arguments), enough for any result within `max_result_size`, and never
/// less than wasmtime's default.
pub(super) fn hostcall_fuel(policy: &Policy) -> usize {
    let wanted = policy
        .limits
        .max_result_bytes
        .saturating_mul(FUEL_PER_RESULT_BYTE)
        .max(WASMTIME_HOSTCALL_FUEL);
    usize::try_from(wanted).unwrap_or(usize::MAX)
}

/// wasmtime's own bound on the component-model handles a store holds at
/// once (`DEFAULT_MAX_COMPONENT_HANDLES`).
const WASMTIME_COMPONENT_HANDLES: u64 = 100_000;

/// The most component-model handles (resources the guest makes with
/// `resource.new`, and the host's it holds) a call's store may hold at
/// once: `host_resources`, never less than wasmtime's default, so a policy
/// can raise it and its message names the key.
pub(super) fn component_handles(policy: &Policy) -> usize {
    let handles = u64::from(policy.limits.host_resources).max(WASMTIME_COMPONENT_HANDLES);
    usize::try_from(handles).unwrap_or(usize::MAX)
}

/// The host's own failure, when `error` is one: a [`HostFault`] its code
/// raised, wasmtime failing to allocate host memory, or an I/O error of the
/// host's (wasmtime-wasi turns the guest's own I/O failures into WASI error
/// codes, so one that ends the call is the host's: an `mmap` refused).
pub(super) fn host_fault(error: &wasmtime::Error) -> Option<FailureCause> {
    if error.downcast_ref::<HostFault>().is_some()
        || error.downcast_ref::<wasmtime::OutOfMemory>().is_some()
        || error.downcast_ref::<std::io::Error>().is_some()
    {
        Some(FailureCause::Host(format!("{error:#}")))
    } else {
        None
    }
}

/// What `error`, raised while the guest ran and neither a trap nor a host
/// fault, says the guest did: a limit it reached (naming the key), or a
/// breach of the contract.
pub(super) fn guest_fault(error: &wasmtime::Error, policy: &Policy) -> FailureCause {
    let detail = format!("{error:#}");
    let over = |key: &'static str, what: String, limit: String| {
        FailureCause::OverLimit(Box::new(Excess {
            key,
            what,
            limit,
            hint: policy.raise_hint(key),
        }))
    };
    let limits = &policy.limits;
    if let Some(ResourceTableError::Full) = error.downcast_ref::<ResourceTableError>() {
        return over(
            key::HOST_RESOURCES,
            "held more host handles (streams, pollables, files) at once".into(),
            count(limits.host_resources.into()),
        );
    }
    if messages(error).any(|m| m.ends_with("store handle limit exceeded")) {
        return over(
            key::HOST_RESOURCES,
            "held more component handles (its own resources and the host's) at once".into(),
            count(component_handles(policy) as u64),
        );
    }
    if let Some(len) = messages(error).find_map(random_request) {
        return over(
            key::MEMORY,
            format!("asked for {} of random bytes", bytes(len)),
            bytes(limits.memory_bytes),
        );
    }
    if messages(error).any(|m| m.contains("fuel allocated for hostcalls has been exhausted")) {
        return over(
            key::MAX_RESULT_SIZE,
            format!(
                "gave the host more than {} at once (counted as wasmtime counts a copy: a string's bytes, {} per value of a generic component's result)",
                bytes(hostcall_fuel(policy) as u64),
                size_of::<Val>(),
            ),
            bytes(limits.max_result_bytes),
        );
    }
    if let Some((name, n)) = messages(error).find_map(count_exceeded) {
        let limit = match name {
            key::INSTANCES => limits.instances,
            key::TABLES => limits.tables,
            _ => limits.memories,
        };
        return over(name, format!("made {n} {name}"), count(limit.into()));
    }
    let (what, why) = contract_words(error);
    FailureCause::ContractViolation(Box::new(Breach { what, why, detail }))
}

/// What the guest did, and why it breaks the contract, for a breach of the
/// canonical ABI wasmtime reports; else the runtime's top message, when it
/// carries no host internals.
fn contract_words(error: &wasmtime::Error) -> (String, Option<String>) {
    let gave = |what: &str, why: String| (format!("gave the host {what}"), Some(why));
    if error.is::<std::char::CharTryFromError>() {
        let why = "a `char` is a Unicode scalar value: not a surrogate (0xD800 to 0xDFFF) and at most 0x10FFFF";
        return gave("an invalid char", why.into());
    }
    if let Some(e) = error.downcast_ref::<std::str::Utf8Error>() {
        return gave("a string that is not valid UTF-8", e.to_string());
    }
    if error.is::<std::char::DecodeUtf16Error>() {
        let why = "it holds an unpaired surrogate";
        return gave("a string that is not valid UTF-16", why.into());
    }
    for message in messages(error) {
        if let Some(words) = abi_words(&message) {
            return words;
        }
    }
    let shown = error.root_cause().to_string();
    let why = shown_safely(&shown).then_some(shown);
    ("was stopped by the runtime".into(), why)
}

/// The words for one of wasmtime's canonical ABI errors (its `bail!` texts
/// in `component/func/typed.rs`, `values.rs`, `options.rs`).
fn abi_words(message: &str) -> Option<(String, Option<String>)> {
    let gave = |what: &str, why: Option<&str>| {
        Some((format!("gave the host {what}"), why.map(str::to_string)))
    };
    if let Some(n) = message.strip_prefix("unexpected discriminant: ") {
        let why = format!("its type has no case {n}");
        return gave(
            "an enum or variant with an invalid discriminant",
            Some(&why),
        );
    }
    if let Some(rest) = message.strip_prefix("discriminant ") {
        // A generic component's value: wasmtime's dynamic lifting says the
        // same for every type with cases.
        let why = format!("discriminant {rest}");
        return gave(
            "a variant, enum, option or result with an invalid discriminant",
            Some(&why),
        );
    }
    if message == "invalid option discriminant" {
        return gave(
            "an option with an invalid discriminant",
            Some("an option's discriminant is 0 (none) or 1 (some)"),
        );
    }
    if message == "invalid expected discriminant" {
        return gave(
            "a result with an invalid discriminant",
            Some("a result's discriminant is 0 (ok) or 1 (error)"),
        );
    }
    if let Some(what) = message.strip_suffix(" pointer/length out of bounds of memory") {
        let what = format!("a {what} whose pointer and length run past the end of its memory");
        return gave(&what, None);
    }
    if message.starts_with("realloc return: beyond end of memory") {
        return Some((
            "returned a pointer past the end of its memory from `cabi_realloc`".into(),
            None,
        ));
    }
    if message.starts_with("realloc return: result not aligned") {
        return Some((
            "returned a misaligned pointer from `cabi_realloc`".into(),
            None,
        ));
    }
    if message == "write exceeded budget"
        || message.starts_with("not permitted to write")
        || message.starts_with("write not permitted")
    {
        return Some((
            "wrote to a `wasi:io` output stream more than `check-write` allowed".into(),
            Some(message.to_string()),
        ));
    }
    if message.contains("not aligned") {
        let what = format!("a misaligned pointer ({message})");
        return gave(&what, None);
    }
    if message.contains("pointer out of bounds") || message.starts_with("size overflow copying") {
        let what = format!("a pointer out of bounds of its memory ({message})");
        return gave(&what, None);
    }
    None
}

/// Every message in `error`'s chain, outermost first.
fn messages(error: &wasmtime::Error) -> impl Iterator<Item = String> + '_ {
    error.chain().map(|e| e.to_string())
}

/// The length wasmtime-wasi's `get-random-bytes` refused:
/// `requested len 4294967296 exceeds limit 134217728`.
fn random_request(message: String) -> Option<u64> {
    let rest = message.strip_prefix("requested len ")?;
    let (len, _) = rest.split_once(" exceeds limit ")?;
    len.parse().ok()
}

/// The policy key and the count wasmtime refused for
/// `resource limit exceeded: instance count too high at 65`.
fn count_exceeded(message: String) -> Option<(&'static str, String)> {
    let rest = message.strip_prefix("resource limit exceeded: ")?;
    let (what, n) = rest.split_once(" count too high at ")?;
    let name = match what {
        "instance" => key::INSTANCES,
        "table" => key::TABLES,
        "memory" => key::MEMORIES,
        _ => return None,
    };
    Some((name, n.to_string()))
}

/// Whether a runtime message nobody recognised may be shown to a client:
/// one line, short, with no path, no `Debug` rendering and no Rust path.
fn shown_safely(message: &str) -> bool {
    const MARKS: &[&str] = &[
        "/",
        "\\",
        "::",
        "{",
        "}",
        "Some(",
        "None",
        "backtrace",
        "Caused by",
    ];
    message.len() <= 256 && !message.contains('\n') && !MARKS.iter().any(|m| message.contains(m))
}

#[cfg(test)]
mod tests;
