//! The checks the fuzz targets in `fuzz/` run, outside the server's
//! library as wasmtime keeps its own in `crates/fuzzing`. Each takes the
//! fuzzer's raw bytes, runs them through the host's own code and panics
//! when a property the host promises breaks, so the target is one line and
//! `replay` can run every saved input in a normal `cargo test`.
//!
//! An input that is a JSON document of a target's seed shape is read as
//! that seed (the hand-made corpus under `fuzz/corpus/` is readable JSON);
//! any other bytes are decoded with `arbitrary` into a structured case.
//!
//! It reaches the host only through its public API, and the runtime
//! through the runtime's `fuzzing` feature (the guest result conversions,
//! the size a result counts and the generic components' WIT values, which
//! are not public): a member of the main workspace, so `cargo test
//! --workspace` replays the seeds, and a path dependency of the cargo-fuzz
//! workspace in `fuzz/`, which builds the targets.

pub mod arguments;
mod generate;
pub mod messages;
#[cfg(test)]
mod replay;
#[cfg(test)]
mod result_size;
pub mod results;
pub mod wit_values;

use arbitrary::{Arbitrary, Unstructured};
use serde::de::DeserializeOwned;

/// A fuzz input: a hand-written seed or a generated case.
enum Input<S, G> {
    Seed(S),
    Generated(G),
}

/// Reads `bytes` as a JSON seed of shape `S`, or else decodes them as a
/// generated `G` the way libFuzzer's `fuzz_target!` does; `None` when
/// neither fits (the input is skipped).
fn decode<S, G>(bytes: &[u8]) -> Option<Input<S, G>>
where
    S: DeserializeOwned,
    G: for<'a> Arbitrary<'a>,
{
    if bytes.trim_ascii_start().first() == Some(&b'{')
        && let Ok(seed) = serde_json::from_slice(bytes)
    {
        return Some(Input::Seed(seed));
    }
    G::arbitrary_take_rest(Unstructured::new(bytes))
        .ok()
        .map(Input::Generated)
}
