//! What a guest reads of a host error: `wasi:io/error.to-debug-string`
//! gives the error's message and its causes on one line, never a `Debug`
//! rendering, a host backtrace (which wasmtime captures into its errors
//! when `RUST_BACKTRACE` or `RUST_LIB_BACKTRACE` is set) or more than
//! [`MAX_DEBUG_STRING`] bytes. wasmtime-wasi-io's own prints `{:?}`, and a
//! guest often hands that text on to the client.

use wasmtime::component::{Linker, Resource};

use crate::capabilities::CapsView;
use crate::error::clip;

/// The interface whose `to-debug-string` the host replaces: the version
/// wasmtime-wasi defines (older 0.2 imports link to it).
const ERROR: &str = "wasi:io/error@0.2.12";

/// The longest debug string a guest gets, in bytes (then clipped).
pub const MAX_DEBUG_STRING: usize = 1024;

/// Replaces `to-debug-string` in the linker (after wasi:io is linked).
pub fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    super::bindings::replace(linker, ERROR, |error| {
        error.func_wrap(
            "[method]error.to-debug-string",
            |mut store: wasmtime::StoreContextMut<'_, T>,
             (error,): (Resource<wasmtime::Error>,)| {
                let (table, _) = store.data_mut().table_and_caps();
                Ok((shown(table.get(&error)?),))
            },
        )
    })
}

/// `error` as a guest may see it: its message chain (`{:#}`), clipped.
pub fn shown(error: &wasmtime::Error) -> String {
    clip(format!("{error:#}"), MAX_DEBUG_STRING)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guest_sees_the_message_chain_never_a_backtrace_or_debug() {
        let inner = std::io::Error::other("the peer went away");
        let error = wasmtime::Error::from(inner).context("reading the body");
        let text = shown(&error);
        assert_eq!(text, "reading the body: the peer went away");
        assert!(!text.contains("Custom {"), "{text}");
        let long = shown(&wasmtime::Error::msg("x".repeat(10_000)));
        assert!(long.len() < MAX_DEBUG_STRING + 64, "{}", long.len());
    }
}
