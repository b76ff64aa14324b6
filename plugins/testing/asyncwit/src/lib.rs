//! A component built for the component model's async ABI (`wit/async.wit`):
//! `async func` exports, lifted with the async canonical ABI by plain
//! wit-bindgen, beside a plain function, and two functions whose `stream`
//! and `future` parameters JSON cannot carry. The host serves the first
//! ones as tools and leaves out the last two.

// Only a wasm32 build has anything in it: the exports carry the component
// model's names, which a native linker cannot export.
#![cfg(target_family = "wasm")]

#[allow(
    unsafe_code,
    unused_qualifications,
    missing_debug_implementations,
    missing_docs,
    clippy::all
)]
mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "asyncwit",
    });
}

use wit_bindgen::{FutureReader, StreamReader};

struct Async;

impl bindings::Guest for Async {
    async fn add(a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }

    async fn greet(name: String) -> String {
        wit_bindgen::yield_async().await;
        format!("hello, {name}")
    }

    async fn spin(yielding: bool) -> u64 {
        let mut steps = 0u64;
        loop {
            steps = std::hint::black_box(steps.wrapping_add(1));
            if yielding {
                wit_bindgen::yield_async().await;
            }
            if steps == u64::MAX {
                return steps;
            }
        }
    }

    async fn hog(mib: u32) -> u64 {
        let held = vec![1u8; (mib as usize) << 20];
        std::hint::black_box(&held).len() as u64
    }

    fn double(x: u32) -> u32 {
        x.wrapping_mul(2)
    }

    async fn count(mut bytes: StreamReader<u8>) -> u64 {
        let mut total = 0u64;
        while bytes.next().await.is_some() {
            total += 1;
        }
        total
    }

    fn settle(_value: FutureReader<u32>) -> u32 {
        0
    }
}

// The generated export glue is unsafe code (the workspace denies it elsewhere).
#[allow(unsafe_code)]
mod export {
    use super::{Async, bindings};
    bindings::export!(Async with_types_in bindings);
}
